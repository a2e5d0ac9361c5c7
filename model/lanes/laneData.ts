import type { Op, Src } from '../isa/op.ts';
import { RZ } from '../isa/program.ts';
import type { Launch } from './launch.ts';
import { UNKNOWN, u32 } from './values.ts';
import type { Memory } from './memory.ts';

/**
 * Which general registers a program touches, mapped to dense slots so that a warp's register
 * file is a small flat array (the explorer copies it on every write and hashes it into every key).
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
 * One warp's thread state (SEMANTICS §1): registers, predicates, exited lanes, and each lane's
 * stack of return PCs (the call depth is its length). Where a lane *is* belongs to the mechanism.
 */
export interface LaneData {
  /** regs[lane * layout.count + slot]: a word, or UNKNOWN. */
  readonly regs: readonly number[];
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

/** The initial thread state of warp `k` of a launch. */
export function initialLaneData(layout: RegisterLayout, launch: Launch, k: number): LaneData {
  const w = launch.warpSize;
  const regs = new Array<number>(w * layout.count).fill(0);
  for (const init of launch.registers) {
    const s = layout.slot[init.reg] ?? -1;
    if (s < 0) continue;
    for (let l = 0; l < w; l++) {
      const tid = k * w + l;
      if (!init.threads || init.threads.includes(tid)) regs[l * layout.count + s] = u32(init.value);
    }
  }
  return {
    regs,
    preds: [0, 0, 0, 0, 0, 0, 0],
    predsUnknown: [0, 0, 0, 0, 0, 0, 0],
    exited: 0,
    calls: Array.from({ length: w }, () => []),
    local: null,
  };
}

/** The value of register `r` in `lane` (RZ and registers the program never names read 0). */
export function readReg(d: LaneData, layout: RegisterLayout, lane: number, r: number): number {
  const s = layout.slot[r] ?? -1;
  return s < 0 ? 0 : d.regs[lane * layout.count + s]!;
}

export { UNKNOWN };
