/**
 * Operands a trace does not record, taken from a SASS listing of the kernel (issue 15): Accel-Sim
 * traces name general registers only, so the B register of BSSY/BSYNC/BREAK, the BSSY target when
 * no lane reached its BSYNC, the WARPSYNC mask and the targets of Fermi's stack instructions
 * (SSY/PBK/PCNT/PRET, seed 003) are guesses in `traceProgram` (docs/validation.md). With the
 * listing (`warpcheck validate --listing`), each executed instruction of those opcodes takes the
 * listing's operands instead, targets mapped to the rebuilt program's addresses, and the listing's
 * likely convergence points (`// @warpcheck lcp=`, seed 002 §3.11) come along.
 *
 * Only a listing that agrees with the trace is used (`listingAgreement` finds no disagreement: same
 * opcode at every executed PC, and the lanes' jumps go to its targets). BMOV gets its operands
 * too: the replay carries a spilled B register value from `BMOV Rx, Bb` to `BMOV Bb, Rx`.
 */
import type { Instruction, Operand, Program } from '../isa/program.ts';
import { INST_STRIDE } from './lanePaths.ts';
import { listingAddresses } from './traceReplayListing.ts';
import type { TraceProgram } from './traceReplayProgram.ts';

/** Opcodes whose operands the trace lacks and the listing gives. */
const FROM_LISTING: ReadonlySet<string> = new Set([
  'BSSY',
  'BSYNC',
  'BREAK',
  'BMOV',
  'WARPSYNC',
  'SSY',
  'PBK',
  'PCNT',
  'PRET',
]);

/** Control instructions no lane ran, taken from the listing for the rebuilt control-flow graph. */
const UNSEEN_CONTROL: ReadonlySet<string> = new Set(['EXIT', 'BRA']);

const hex = (pc: number) => '0x' + pc.toString(16).padStart(4, '0');

export interface WithListing {
  readonly built: TraceProgram;
  /** Likely convergence points in the rebuilt program's instruction indices. */
  readonly likelyConvergence: ReadonlyMap<number, number> | null;
}

/** `built` with the listing's operands where the trace lacks them (see the module comment). */
export function withListingOperands(
  built: TraceProgram,
  listing: Program,
  likelyConvergence: ReadonlyMap<number, number> | null = null,
): WithListing {
  const addr = listingAddresses(listing);
  const at = new Map<number, number>();
  addr.forEach((a, pc) => at.set(a, pc));
  const { base } = built;
  const instructions: Instruction[] = [...built.program.instructions];
  const notes: string[] = [];
  /** The rebuilt index of listing instruction `pc`, growing the program with NOPs to reach it. */
  const rebuiltIndex = (pc: number): number | null => {
    const byte = addr[pc] ?? (pc === listing.instructions.length ? lastByte() + INST_STRIDE : null);
    if (byte === null || byte < base || (byte - base) % INST_STRIDE !== 0) return null;
    const i = (byte - base) / INST_STRIDE;
    while (instructions.length <= i)
      instructions.push({
        offset: base + instructions.length * INST_STRIDE,
        guard: null,
        opcode: 'NOP',
        modifiers: [],
        operands: [],
      });
    return i;
  };
  const lastByte = () => addr[addr.length - 1] ?? 0;
  let used = 0;
  /** Guesses the listing replaced: their notes go. */
  const replaced = new Set<string>();
  for (const e of built.skeleton) {
    if (!FROM_LISTING.has(e.opcode)) continue;
    const lpc = at.get(e.pc);
    const ins = lpc === undefined ? undefined : listing.instructions[lpc];
    if (ins === undefined || ins.opcode !== e.opcode) continue;
    let ok = true;
    const operands: Operand[] = ins.operands.map((o) => {
      if (o.kind !== 'target') return o;
      const i = rebuiltIndex(o.pc);
      if (i === null) ok = false;
      return { kind: 'target', pc: i ?? 0 };
    });
    if (!ok) {
      notes.push(
        `${e.opcode} at ${hex(e.pc)}: the listing's target lies before the traced code; reconstructed`,
      );
      continue;
    }
    const i = (e.pc - base) / INST_STRIDE;
    instructions[i] = {
      ...instructions[i]!,
      opcode: ins.opcode,
      modifiers: ins.modifiers,
      guard: ins.guard,
      operands,
    };
    replaced.add(`${e.opcode} at ${hex(e.pc)}`);
    used++;
  }
  if (used > 0)
    notes.push(
      `operands of ${used} BSSY/BSYNC/BREAK/BMOV/WARPSYNC/stack instructions from the listing`,
    );
  // Control the trace never saw: an EXIT or BRA no lane ran is a NOP in the rebuilt program, which
  // changes its control-flow graph — a loop body's own EXIT vanishes, and with it the path that
  // keeps the loop's exit block from post-dominating the loop. Replay never runs these, but the
  // mechanisms' reconvergence points (IPDOMs) are computed from that graph.
  // Likewise a guarded BRA every lane that ran it took: the rebuilt one is unconditional, so its
  // fall-through path vanishes from the graph; the listing's guard puts it back (replay takes
  // each lane's way from its path and never reads the guard).
  const executed = new Set(built.skeleton.map((e) => e.pc));
  let filled = 0;
  for (let i = 0; i < instructions.length; i++) {
    const byte = base + i * INST_STRIDE;
    const lpc = at.get(byte);
    const ins = lpc === undefined ? undefined : listing.instructions[lpc];
    if (executed.has(byte)) {
      const here = instructions[i]!;
      if (ins?.opcode === 'BRA' && here.opcode === 'BRA' && here.guard === null && ins.guard) {
        instructions[i] = { ...here, guard: ins.guard };
        filled++;
      }
      continue;
    }
    if (ins === undefined || !UNSEEN_CONTROL.has(ins.opcode)) continue;
    let ok = true;
    const operands: Operand[] = ins.operands.map((o) => {
      if (o.kind !== 'target') return o;
      const t = rebuiltIndex(o.pc);
      if (t === null) ok = false;
      return { kind: 'target', pc: t ?? 0 };
    });
    if (!ok) continue;
    instructions[i] = { ...ins, offset: byte, operands };
    filled++;
  }
  if (filled > 0)
    notes.push(
      `${filled} EXIT/BRA no lane ran, or guards no lane was seen to fail, from the listing`,
    );
  let lcp: Map<number, number> | null = null;
  if (likelyConvergence !== null && likelyConvergence.size > 0) {
    lcp = new Map();
    for (const [branch, point] of likelyConvergence) {
      const b = rebuiltIndex(branch);
      const p = rebuiltIndex(point);
      if (b !== null && p !== null) lcp.set(b, p);
    }
    notes.push(`${lcp.size} likely convergence point(s) from the listing`);
  }
  // Grown functions: the last one ends where the program now ends.
  const functions = built.program.functions.map((f, k, all) =>
    k === all.length - 1 ? { ...f, end: instructions.length } : f,
  );
  return {
    built: {
      ...built,
      program: { ...built.program, functions, instructions },
      notes: [...built.notes.filter((n) => ![...replaced].some((r) => n.startsWith(r))), ...notes],
    },
    likelyConvergence: lcp,
  };
}
