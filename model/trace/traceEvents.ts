/**
 * The control events of the trace-driven replay (`traceReplay.ts`): what an instruction run with
 * its guard-true lanes tells the mechanism, as `lanes/execute.ts` builds it from data, here from
 * the trace and the rebuilt operands.
 */
import type { Op } from '../isa/op.ts';
import { operandsOf } from '../isa/operands.ts';
import type { Event } from '../lanes/execute.ts';
import type { MechanismContext } from '../mechanisms/mechanism.ts';

const lowest = (m: number) => 31 - Math.clz32(m & -m);

/**
 * B register values BMOV moved into general registers, so that a spill `BMOV.32 Rx, Bb` restored
 * by `BMOV.32 Bb, Rx` gives the mechanism back its value (seed 000 §V-E). Only a listing supplies
 * BMOV's operands (`withListingOperands`); the replay evaluates no data instruction, so any other
 * write to the register forgets the value.
 */
export interface BmovSpills {
  /** The value `BMOV Bb, Rs` moves for lanes `take`: known and equal on all of them, else null. */
  moved(op: Op, take: number): number | null;
  /**
   * After `op` ran for `issued` lanes (`take` with a true guard): its register writes forget what
   * those lanes held; `BMOV Rd, Bb` keeps `barrierValue` (the mechanism's Bb before the step).
   */
  record(op: Op, take: number, issued: number, barrierValue: number | null): void;
}

export function bmovSpills(): BmovSpills {
  /** Key lane * 256 + register. */
  const spilled = new Map<number, number>();
  return {
    moved(op, take) {
      if (op.kind !== 'bmov-to-barrier') return null;
      if (op.src.kind === 'imm') return op.src.value >>> 0;
      if (op.src.kind !== 'reg') return null;
      let v: number | null = null;
      for (let m = take; m !== 0; m &= m - 1) {
        const x = spilled.get(lowest(m) * 256 + op.src.index);
        if (x === undefined || (v !== null && v !== x)) return null;
        v = x;
      }
      return v;
    },
    record(op, take, issued, barrierValue) {
      for (const r of operandsOf(op).writeRegs)
        for (let m = issued; m !== 0; m &= m - 1) spilled.delete(lowest(m) * 256 + r);
      if (op.kind === 'bmov-from-barrier' && barrierValue !== null)
        for (let m = take; m !== 0; m &= m - 1) spilled.set(lowest(m) * 256 + op.dst, barrierValue);
    },
  };
}

/** The control event of `op` run with guard-true lanes `take` (as `lanes/execute.ts` builds it). */
export function eventOf(
  op: Op,
  pc: number,
  take: number,
  ctx: MechanismContext,
  moved: number | null,
): Event {
  switch (op.kind) {
    case 'call':
      return take === 0 ? { kind: 'none' } : { kind: 'call', mask: take, returnPc: pc + 1 };
    case 'ret':
      return take === 0 ? { kind: 'none' } : { kind: 'ret', mask: take };
    case 'bssy':
    case 'bsync':
    case 'break':
    case 'bmov-from-barrier':
      return { kind: 'barrier', mask: take, value: null };
    case 'bmov-to-barrier':
      // The trace holds no B register values: only a value a BMOV spilled before (`moved`).
      return { kind: 'barrier', mask: take, value: moved };
    case 'warpsync': {
      // traceProgram writes the mask as an immediate; a register operand would be unknown (-1).
      const named = op.mask === null ? ctx.full : op.mask.kind === 'imm' ? op.mask.value >>> 0 : -1;
      const masks = new Array<number>(ctx.warpSize).fill(0);
      for (let m = take; m !== 0; m &= m - 1) masks[lowest(m)] = named;
      return { kind: 'warpsync', mask: take, named, masks };
    }
    case 'yield':
      return { kind: 'yield' };
    default:
      return { kind: 'none' };
  }
}
