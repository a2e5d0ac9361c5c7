/**
 * Spin-loop detection for the deadlock-aware placement (seed 000 §VI-C). **Decision**
 * (docs/semantics.md, "Compile passes"): a natural loop is a spin loop when one of its exits is a
 * conditional branch whose predicate (guard or second predicate) depends, inside the loop, on a
 * value read from memory there — a load (`LD*`) or an atomic (`ATOM*`, `RED` does not return one).
 * Such a loop may wait for a store by another lane (the lock release of Fig. 3), which a BSYNC
 * placed at the loop exit would keep from ever happening. The dependence is an over-approximation
 * (any register or predicate written from a tainted source is tainted, iterated to a fixpoint
 * over the loop body, ignoring the order of instructions); loops on lane-private values are not
 * spin loops. A loop also waits for nothing when no write of the program (a store or an atomic,
 * in any function) may hit a word it reads (`registerRanges`): re-reading a read-only input is no
 * spin loop (issue 11, `hanoi-spin-loop-misdetected`: what the loop waits for is a value another
 * lane or warp can write, not any load).
 */
import { controlOf, secondPredicate } from '../isa/control.ts';
import { PT, RZ, type Instruction } from '../isa/program.ts';
import type { Program } from '../isa/program.ts';
import {
  addressRange,
  rangesOverlap,
  registerRanges,
  type Range,
  type RangeState,
} from './addresses.ts';
import { EXIT_NODE, edgesFrom, functionGraph, type FnGraph, type PcLoop } from './graph.ts';

const isMemoryWrite = (ins: Instruction): boolean =>
  ins.opcode.startsWith('ST') || ins.opcode.startsWith('ATOM') || ins.opcode === 'RED';

const isMemoryRead = (ins: Instruction): boolean =>
  ins.opcode.startsWith('LD') || ins.opcode.startsWith('ATOM');

/** Registers an instruction reads (sources, address bases) and writes (first register operand). */
function registersOf(ins: Instruction): {
  reads: number[];
  writes: number[];
  predWrites: number[];
} {
  const reads: number[] = [];
  const writes: number[] = [];
  const predWrites: number[] = [];
  const ops = ins.operands;
  // Leading predicate operands are destinations (ISETP P0, PT, …; PSETP); the first register
  // operand is the destination unless the first operand is a memory address (a store).
  let i = 0;
  while (i < ops.length && ops[i]!.kind === 'pred') {
    const p = ops[i] as { kind: 'pred'; pred: { index: number } };
    if (p.pred.index !== PT) predWrites.push(p.pred.index);
    i++;
  }
  let destDone = predWrites.length > 0 || ops[0]?.kind === 'mem';
  for (; i < ops.length; i++) {
    const o = ops[i]!;
    if (o.kind === 'reg') {
      if (!destDone) {
        if (o.index !== RZ) writes.push(o.index);
        destDone = true;
      } else reads.push(o.index);
    } else if (o.kind === 'mem') reads.push(o.base);
    else if (o.kind === 'pred') reads.push(1000 + o.pred.index);
  }
  if (ins.guard !== null) reads.push(1000 + ins.guard.index);
  return { reads, writes, predWrites };
}

/** Per program: the address intervals of every write, in every function (computed once). */
const writesCache = new WeakMap<Program, Range[]>();
function writesOf(program: Program): Range[] {
  let w = writesCache.get(program);
  if (w === undefined) {
    w = program.functions.flatMap((_, fi) => {
      const fg = functionGraph(program, fi);
      const ranges = registerRanges(program, fg);
      const out: Range[] = [];
      for (let pc = fg.fn.start; pc < fg.fn.end; pc++) {
        const ins = program.instructions[pc]!;
        if (isMemoryWrite(ins)) out.push(addressRange(ins, ranges.get(pc)));
      }
      return out;
    });
    writesCache.set(program, w);
  }
  return w;
}

/** Per function graph: the register intervals before each PC. */
const rangesCache = new WeakMap<FnGraph, Map<number, RangeState>>();

/** True when `loop` is a spin loop (see the module comment). */
export function spinLoop(g: FnGraph, loop: PcLoop): boolean {
  const pcs = [...loop.body].sort((a, b) => a - b);
  const program = g.program;
  if (!pcs.some((pc) => isMemoryRead(program.instructions[pc]!))) return false;
  const writes = writesOf(program);
  let ranges = rangesCache.get(g);
  if (ranges === undefined) rangesCache.set(g, (ranges = registerRanges(program, g)));
  const waitsForAWrite = pcs.some((pc) => {
    const ins = program.instructions[pc]!;
    if (!isMemoryRead(ins)) return false;
    const at = addressRange(ins, ranges.get(pc));
    return writes.some((w) => rangesOverlap(w, at));
  });
  if (!waitsForAWrite) return false;
  // Tainted registers (index) and predicates (1000 + index).
  const tainted = new Set<number>();
  for (let changed = true; changed;) {
    changed = false;
    for (const pc of pcs) {
      const ins = program.instructions[pc]!;
      if (controlOf(program, pc).kind !== 'none') continue;
      const { reads, writes, predWrites } = registersOf(ins);
      const hot = isMemoryRead(ins) || reads.some((r) => tainted.has(r));
      if (!hot) continue;
      for (const w of [...writes, ...predWrites.map((p) => 1000 + p)])
        if (!tainted.has(w)) {
          tainted.add(w);
          changed = true;
        }
    }
  }
  return pcs.some((pc) => {
    const leaves = edgesFrom(g, pc).some((e) => e.to !== EXIT_NODE && !loop.body.has(e.to));
    if (!leaves || controlOf(program, pc).kind !== 'branch') return false;
    const ins = program.instructions[pc]!;
    const preds = [ins.guard, secondPredicate(ins)].filter((p) => p !== null);
    return preds.some((p) => p!.index !== PT && taintedAt(pc, p!.index));
  });

  /**
   * Predicate `p` as the branch at `pc` reads it: decided by its last writer in the straight-line
   * code before the branch when there is one (a predicate reused for another test elsewhere in
   * the loop does not count), else by the loop-wide taint.
   */
  function taintedAt(pc: number, p: number): boolean {
    for (let at = pc - 1; at >= g.fn.start && loop.body.has(at); at--) {
      if (controlOf(program, at).kind !== 'none' || g.preds[at + 1 - g.fn.start]!.length > 1) break;
      const w = program.instructions[at]!;
      const { reads, predWrites } = registersOf(w);
      if (predWrites.includes(p)) return isMemoryRead(w) || reads.some((r) => tainted.has(r));
    }
    return tainted.has(1000 + p);
  }
}
