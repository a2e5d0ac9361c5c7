/**
 * Checks a SASS listing against the program a trace implies (issue 7: "where a listing is given
 * too, check that they agree"): every executed PC must be an instruction of the listing with the
 * same opcode and modifiers, and every target lanes were seen to jump or call to must be the
 * listing's target. Operands the trace does not give (B registers, BSSY targets, WARPSYNC masks)
 * are compared with their reconstruction and reported apart: they test `traceProgram`'s guesses,
 * not the trace.
 *
 * Addresses: trace PCs are byte offsets in the kernel's code section. The listing's first function
 * keeps its offsets; a later function whose offsets restart (nvdisasm prints each function from
 * 0) is placed right after the previous one, as the trace's CALL targets show subroutines laid out.
 */
import { controlOf } from '../isa/control.ts';
import type { Instruction, Program } from '../isa/program.ts';
import { INST_STRIDE } from './lanePaths.ts';
import type { TraceProgram } from './traceReplayProgram.ts';

export interface ListingAgreement {
  /** Where the listing contradicts the trace. */
  readonly disagreements: readonly string[];
  /** Where a reconstructed operand differs from the listing's. */
  readonly reconstruction: readonly string[];
  /** Executed PCs found in the listing. */
  readonly matched: number;
}

const hex = (pc: number) => '0x' + pc.toString(16).padStart(4, '0');
const spell = (i: Instruction) => [i.opcode, ...i.modifiers].join('.');

/** Byte address of every listing instruction (see the module comment). */
export function listingAddresses(program: Program): number[] {
  const addr: number[] = new Array<number>(program.instructions.length).fill(0);
  let end = 0;
  program.functions.forEach((f, k) => {
    const first = program.instructions[f.start]?.offset ?? 0;
    const base = k > 0 && first < end ? end : 0;
    for (let pc = f.start; pc < f.end; pc++) addr[pc] = base + program.instructions[pc]!.offset;
    if (f.end > f.start) end = Math.max(end, addr[f.end - 1]! + INST_STRIDE);
  });
  return addr;
}

/** Compares `listing` (with its source line per PC) with `built`. */
export function listingAgreement(
  built: TraceProgram,
  listing: Program,
  lineOf: (pc: number) => string,
): ListingAgreement {
  const addr = listingAddresses(listing);
  const at = new Map<number, number>();
  addr.forEach((a, pc) => at.set(a, pc));
  const addrOf = (pc: number) => addr[pc] ?? -1;
  const disagreements: string[] = [];
  const reconstruction: string[] = [];
  let matched = 0;
  const mine = built.program.instructions;
  const myIdx = (byte: number) => (byte - built.base) / INST_STRIDE;
  for (const e of built.skeleton) {
    const pc = at.get(e.pc);
    const traced = [e.opcode, ...e.modifiers].join('.');
    if (pc === undefined) {
      disagreements.push(`trace PC ${hex(e.pc)} (${traced}) is not an instruction of the listing`);
      continue;
    }
    matched++;
    const ins = listing.instructions[pc]!;
    const where = `${lineOf(pc)} (${hex(e.pc)})`;
    if (spell(ins) !== traced) {
      disagreements.push(`${where}: the listing has ${spell(ins)}, the trace ${traced}`);
      continue;
    }
    const c = controlOf(listing, pc);
    const targets = c.targets.map(addrOf);
    if (
      (c.kind === 'branch' || c.kind === 'call' || (c.kind === 'indirect' && targets.length > 0)) &&
      e.control
    ) {
      for (const s of e.successors)
        if (s !== e.pc + INST_STRIDE && !targets.includes(s))
          disagreements.push(
            `${where}: lanes went to ${hex(s)}, the listing's target is ${targets.map(hex).join(', ') || 'none'}`,
          );
    }
    const rebuilt = mine[myIdx(e.pc)];
    if (rebuilt === undefined) continue;
    const ops = (i: Instruction) =>
      i.operands
        .flatMap((o) =>
          o.kind === 'breg'
            ? [`B${o.index}`]
            : o.kind === 'imm'
              ? [`0x${(o.value >>> 0).toString(16)}`]
              : [],
        )
        .join(', ');
    if (
      e.opcode === 'BSSY' ||
      e.opcode === 'BSYNC' ||
      e.opcode === 'BREAK' ||
      e.opcode === 'WARPSYNC'
    ) {
      if (ops(rebuilt) !== ops(ins))
        reconstruction.push(
          `${where}: reconstructed ${e.opcode} ${ops(rebuilt)}, the listing has ${ops(ins)}`,
        );
    }
    if (e.opcode === 'BSSY') {
      const t = ins.operands.find((o) => o.kind === 'target');
      const r = rebuilt.operands.find((o) => o.kind === 'target');
      const listed = t?.kind === 'target' ? addrOf(t.pc) : null;
      const guessed = r?.kind === 'target' ? built.base + r.pc * INST_STRIDE : null;
      if (listed !== guessed)
        reconstruction.push(
          `${where}: reconstructed BSSY target ${guessed === null ? 'unknown' : hex(guessed)}, the listing has ${listed === null ? 'none' : hex(listed)}`,
        );
    }
  }
  return { disagreements, reconstruction, matched };
}
