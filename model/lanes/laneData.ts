import type { Op, Src } from '../isa/op.ts';
import { RZ } from '../isa/program.ts';
import type { Launch } from './launch.ts';
import { UNKNOWN, u32 } from './values.ts';
import { emptyMemory, type Memory } from './memory.ts';

/**
 * Which general registers a program touches, mapped to dense slots so that a warp's register
 * file holds only those (`RegFile`: one column per slot; the explorer hashes it into every key).
 */
export interface RegisterLayout {
  /** slot[r] = dense index of Rr, or -1 when the program never names it (RZ is always -1). */
  readonly slot: Int16Array;
  readonly count: number;
}

/** Every register an op reads or writes, including the high half of `[Ra.64]` pairs. */
export function registerLayout(ops: readonly Op[], extra: readonly number[] = []): RegisterLayout {
  const used = new Set<number>(extra);
  const src = (s: Src | null | undefined) => {
    if (s?.kind === 'reg') used.add(s.index);
  };
  const addr = (a: { base: number; wide: boolean }) => {
    used.add(a.base);
    if (a.wide) used.add(a.base + 1);
  };
  for (const op of ops) {
    switch (op.kind) {
      case 'brx':
      case 'ret':
        used.add(op.reg);
        break;
      case 'bmov-from-barrier':
      case 's2r':
        used.add(op.dst);
        break;
      case 'bmov-to-barrier':
        src(op.src);
        break;
      case 'warpsync':
        src(op.mask);
        break;
      case 'mov':
        used.add(op.dst);
        src(op.src);
        break;
      case 'arith':
        used.add(op.dst);
        op.mul?.forEach(src);
        op.adds.forEach(src);
        break;
      case 'lop3':
        used.add(op.dst);
        op.srcs.forEach(src);
        break;
      case 'shift':
        used.add(op.dst);
        [op.lo, op.amount, op.hi].forEach(src);
        break;
      case 'isetp':
        src(op.a);
        src(op.b);
        break;
      case 'load':
        used.add(op.dst);
        addr(op.addr);
        break;
      case 'store':
        addr(op.addr);
        src(op.src);
        break;
      case 'atomic':
        used.add(op.dst);
        addr(op.addr);
        src(op.a);
        src(op.b);
        break;
      case 'vote':
        used.add(op.dst);
        break;
      case 'opaque':
        op.regs.forEach((r) => used.add(r));
        break;
      default:
        break;
    }
  }
  used.delete(RZ);
  const slot = new Int16Array(256).fill(-1);
  const sorted = [...used].filter((r) => r >= 0 && r < RZ).sort((a, b) => a - b);
  sorted.forEach((r, i) => (slot[r] = i));
  return { slot, count: sorted.length };
}

/**
 * A warp's register file, one column per register slot: `regs[slot][lane]` is a word, or UNKNOWN.
 *
 * Columns are immutable and shared between states (issue 16): a step that writes one register
 * copies that column (W numbers) and the short array of columns, not the whole file (W × slots
 * numbers, 7.7 KB at W = 32 with 30 slots), so every stored state keeps only the columns it
 * changed. Writers use `writableColumn` on a copy of the outer array.
 */
export type RegFile = readonly (readonly number[])[];

/**
 * One warp's thread state (SEMANTICS §1): registers, predicates, exited lanes, and each lane's
 * stack of return PCs (the call depth is its length). Where a lane *is* belongs to the mechanism.
 */
export interface LaneData {
  /** regs[slot][lane]: a word, or UNKNOWN (`RegFile`). */
  readonly regs: RegFile;
  /** preds[p] for P0..P6: lanes where Pp is known true. */
  readonly preds: readonly number[];
  /** predsUnknown[p]: lanes where Pp is unknown (abstract mode). Disjoint from preds[p]. */
  readonly predsUnknown: readonly number[];
  /** Lanes that have exited. */
  readonly exited: number;
  /** calls[lane]: return PCs of the lane's open calls, innermost last. */
  readonly calls: readonly (readonly number[])[];
  /**
   * local[lane]: the lane's own local memory (LDL/STL; CUDA's local memory is private to each
   * thread — docs/semantics.md, data subset), absent until a lane first stores to it. Words never
   * written read 0, as the block's memory does; a store to an unknown address havocs only the
   * storing lane's local memory. Null until some lane stores there.
   */
  readonly local: readonly Memory[] | null;
}

/** A lane's empty call stack (one array shared by every lane: stacks are never written in place). */
const NO_CALLS: readonly number[] = [];

/** The initial thread state of warp `k` of a launch. */
export function initialLaneData(layout: RegisterLayout, launch: Launch, k: number): LaneData {
  const w = launch.warpSize;
  // Every all-zero column is one shared array (columns are never written in place).
  const zero = zeros(w);
  const regs: (readonly number[])[] = [];
  for (let s = 0; s < layout.count; s++) regs.push(zero);
  for (const init of launch.registers) {
    const s = layout.slot[init.reg] ?? -1;
    if (s < 0) continue;
    const col = regs[s]!.slice();
    for (let l = 0; l < w; l++) {
      const tid = k * w + l;
      if (!init.threads || init.threads.includes(tid)) col[l] = u32(init.value);
    }
    regs[s] = col;
  }
  return {
    regs,
    preds: [0, 0, 0, 0, 0, 0, 0],
    predsUnknown: [0, 0, 0, 0, 0, 0, 0],
    exited: 0,
    calls: Array.from({ length: w }, () => NO_CALLS),
    local: null,
  };
}

/** The value of register `r` in `lane` (RZ and registers the program never names read 0). */
export function readReg(d: LaneData, layout: RegisterLayout, lane: number, r: number): number {
  const s = layout.slot[r] ?? -1;
  const v = s < 0 ? 0 : d.regs[s]![lane]!;
  // A shared unknown (`shared.ts`) reads as unknown.
  return v < 0 ? UNKNOWN : v;
}

/** A packed array of `n` zeros (a literal loop: `new Array(n).fill` would make it holey). */
function zeros(n: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(0);
  return a;
}

/**
 * Column `slot` of `out` ready to be written: `out` is a fresh copy of `from` (the outer array,
 * `from.slice()`), and the column is copied on its first write (while `out[slot]` is still the
 * shared column of `from`). Columns of `from` are never written in place.
 */
export function writableColumn(out: number[][], from: RegFile, slot: number): number[] {
  const col = out[slot]!;
  if (col !== from[slot]) return col;
  return (out[slot] = col.slice());
}

/** `regs` with column `slot` replaced by `col` (the outer array copied; every other column shared). */
export function withColumn(regs: RegFile, slot: number, col: readonly number[]): RegFile {
  const out = regs.slice();
  out[slot] = col;
  return out;
}

export { UNKNOWN };

/**
 * `into` with each lane `pairs[2i]` given lane `pairs[2i + 1]`'s registers, predicates, call stack
 * and local memory in `from`, for i < n (summaries of chains, `explore/laneChains.ts`). The
 * exited lanes are `into`'s; columns that no moved lane changes stay shared.
 */
export function moveLaneData(
  into: LaneData,
  from: LaneData,
  pairs: Int32Array,
  n: number,
): LaneData {
  let regs: (readonly number[])[] | null = null;
  for (let s = 0; s < into.regs.length; s++) {
    const a = into.regs[s]!;
    const b = from.regs[s]!;
    let col: number[] | null = null;
    for (let i = 0; i < n; i++) {
      const to = pairs[2 * i]!;
      const v = b[pairs[2 * i + 1]!]!;
      if (a[to] === v) continue;
      col ??= a.slice();
      col[to] = v;
    }
    if (col) (regs ??= into.regs.slice())[s] = col;
  }
  const preds = into.preds.slice();
  const unknown = into.predsUnknown.slice();
  const calls = into.calls.slice();
  let local: Memory[] | null = into.local ? into.local.slice() : null;
  for (let i = 0; i < n; i++) {
    const to = pairs[2 * i]!;
    const src = pairs[2 * i + 1]!;
    const bit = 1 << to;
    for (let p = 0; p < 7; p++) {
      preds[p] = (from.preds[p]! >>> src) & 1 ? (preds[p]! | bit) >>> 0 : (preds[p]! & ~bit) >>> 0;
      unknown[p] =
        (from.predsUnknown[p]! >>> src) & 1
          ? (unknown[p]! | bit) >>> 0
          : (unknown[p]! & ~bit) >>> 0;
    }
    calls[to] = from.calls[src]!;
    const mem = from.local?.[src];
    if (mem !== undefined || local) {
      local ??= Array.from({ length: into.calls.length }, () => emptyMemory);
      local[to] = mem ?? emptyMemory;
    }
  }
  return {
    regs: regs ?? into.regs,
    preds,
    predsUnknown: unknown,
    exited: into.exited,
    calls,
    local,
  };
}
