import type { Op } from '../isa/op.ts';
import { writableColumn, type LaneData, type RegisterLayout } from '../lanes/laneData.ts';
import type { Outcome } from '../lanes/execute.ts';
import { UNKNOWN } from '../lanes/values.ts';
import type { Policy } from '../mechanisms/mechanism.ts';
import { callEffects } from './callEffects.ts';
import type { Liveness } from './liveness.ts';

/**
 * Loop widening in abstract mode (issue 16, SEMANTICS §5): a loop whose exit depends on unknown
 * data runs forever in the model unless the values it changes stop changing — a counter compared
 * with an unknown bound makes a new state every turn. So a lane that goes round a loop after a
 * branch on an unknown value, or any other step with several unknown outcomes (an ISETP against
 * an unknown uniform operand chooses a stand-in, `uniformCompare.ts`) (`flagged`), counts that turn; from its `limit`-th such turn on, every
 * register and predicate the loop may write becomes unknown for that lane when it jumps back.
 * Then the loop's states repeat, and its unknown exit branch — fair (SEMANTICS §5) — ends it.
 *
 * This over-approximates: the widened lane may do whatever any value could make it do, so what
 * the search finds after a widening is *possible*, not certain (the finding says so), while a
 * `terminates` stays sound up to the fair-choice assumption of SEMANTICS §5: a value the loop
 * only *may* write (a guarded write whose guard never holds) is forgotten too, and an exit that
 * then tests it is an unknown branch assumed fair, so a loop that never ends can be reported to
 * end (docs/semantics.md §13, "Loop widening": the search without reductions does so on a review's
 * kernel; the row's note says livelocks on opaque code are under-approximated). Loops whose exits depend only on known values (concrete loops, and
 * spin loops on memory another lane writes) are never widened: no unknown branch flags them.
 *
 * A loop turn is a jump back *within a function* (BRA, BRX): a CALL to a function placed before
 * its caller, or a RET to a caller placed before its callee, goes to a lower PC without closing a
 * loop, and counted as one it used to widen the whole range of PCs between, callee prologues
 * included. What a loop may write is what its instructions write, and for a CALL in it what the
 * callee may leave changed when it returns (`callEffects.ts`): a register the callee restores —
 * the stack pointer after a balanced prologue and epilogue — keeps its value (docs/semantics.md
 * §13).
 */
export interface LoopVisits {
  /** Per lane: turns taken after an unknown branch, up to the limit. */
  readonly counts: readonly number[];
  /** Lanes that took part in a branch on an unknown value since they last jumped back. */
  readonly flagged: number;
}

/**
 * The widening tests' planted bugs: `true` sets what a loop writes to 0 instead of unknown (the
 * law's plant); `'keep-call-writes'` claims no CALL changes a register, so a loop that calls a
 * counter's increment keeps the counter and never repeats (the call-effects test's plant).
 */
export type WideningPlant = boolean | 'keep-call-writes';

export interface Widening {
  readonly limit: number;
  initial(warpSize: number): LoopVisits;
  /**
   * Applies one step: lanes of `issued` that took part in an unknown branch are flagged; lanes
   * that jump back (BRA, BRX to a PC at or before `pc`; not CALL, RET) count a turn if flagged,
   * and past the limit forget what the loop writes. Returns the new visits and data, and whether
   * anything was forgotten.
   */
  step(
    visits: LoopVisits,
    data: LaneData,
    pc: number,
    issued: number,
    unknownBranch: boolean,
    outcome: Outcome,
  ): { visits: LoopVisits; data: LaneData; widened: boolean };
}

export function widening(
  ops: readonly Op[],
  live: Liveness,
  layout: RegisterLayout,
  policy: (op: Op) => Policy,
  limit: number,
  /** The widening tests' planted bugs only. */
  plantUnsound: WideningPlant = false,
): Widening {
  const forgotten = plantUnsound === true ? 0 : UNKNOWN;
  const slots = layout.count;
  const words = live.words;
  const effectOf = callEffects(ops, live, layout, policy, plantUnsound === 'keep-call-writes');
  /** Slots and predicates the instructions target..source may write (a CALL: what it changes). */
  const cache = new Map<number, { regs: Uint32Array; preds: number }>();
  const loopWrites = (target: number, source: number) => {
    const k = target * 65536 + source;
    let w = cache.get(k);
    if (w) return w;
    const regs = new Uint32Array(words);
    let preds = 0;
    for (let pc = target; pc <= source; pc++) {
      const op = ops[pc]!;
      if (op.kind === 'call' && policy(op) !== 'nop') {
        const e = effectOf(op.target);
        for (let i = 0; i < words; i++) regs[i]! |= e.changed[i]!;
        preds |= e.preds;
        continue;
      }
      for (let i = 0; i < words; i++) regs[i]! |= live.writes[pc * words + i]!;
      preds |= live.writesP[pc]!;
    }
    w = { regs, preds };
    cache.set(k, w);
    return w;
  };
  return {
    limit,
    initial: (W) => ({ counts: new Array<number>(W).fill(0), flagged: 0 }),
    step(visits, data, pc, issued, unknownBranch, outcome) {
      let flagged = unknownBranch ? (visits.flagged | issued) >>> 0 : visits.flagged;
      let counts = visits.counts;
      let d = data;
      let widened = false;
      // CALL and RET change functions: a lower PC they reach closes no loop.
      const kind = ops[pc]!.kind;
      if (kind === 'call' || kind === 'ret')
        return flagged === visits.flagged
          ? { visits, data, widened }
          : { visits: { counts, flagged }, data, widened };
      for (const g of outcome.groups) {
        if (g.pc > pc) continue;
        const turning = (g.mask & flagged) >>> 0;
        flagged = (flagged & ~g.mask) >>> 0;
        if (turning === 0) continue;
        const w = loopWrites(g.pc, pc);
        let regs: number[][] | null = null;
        let preds: number[] | null = null;
        let unknown: number[] | null = null;
        // The lanes that reach the limit with this jump forget what the loop writes.
        let forget = 0;
        for (let m = turning; m !== 0; m &= m - 1) {
          const l = 31 - Math.clz32(m & -m);
          if (counts[l]! < limit) {
            if (counts === visits.counts) counts = counts.slice();
            (counts as number[])[l] = counts[l]! + 1;
          }
          if (counts[l]! >= limit) forget |= 1 << l;
        }
        forget >>>= 0;
        // Forget what the loop writes (SEMANTICS §5: unknown values). A shared unknown
        // (`lanes/shared.ts`) is unknown already: it stays, tie and all. (Lanes that forget a value
        // they all hold equal are not tied: measured, the ties made `csv_find_fields` at W = 4 grow
        // from 15,825 states to 117,905, docs/semantics.md §13 "Shared unknowns".) Forgetting a
        // value that can no longer reach control (dead at the loop's head, where the lane goes)
        // abstracts nothing: the step stays concrete (and a stale value that dead writes left
        // there, `deadWrites.ts`, marks nothing either).
        for (let s = 0; forget !== 0 && s < slots; s++) {
          if (!((w.regs[s >>> 5]! >>> (s & 31)) & 1)) continue;
          const col = d.regs[s]!;
          for (let m = forget; m !== 0; m &= m - 1) {
            const l = 31 - Math.clz32(m & -m);
            const v = col[l]!;
            if (v === forgotten || (forgotten === UNKNOWN && v < 0)) continue;
            regs ??= d.regs.slice() as number[][];
            writableColumn(regs, d.regs, s)[l] = forgotten;
            if ((live.regs[g.pc * words + (s >>> 5)]! >>> (s & 31)) & 1) widened = true;
          }
        }
        for (let m = forget; m !== 0; m &= m - 1) {
          const l = 31 - Math.clz32(m & -m);
          for (let p = 0; p < 7; p++) {
            if (!((w.preds >>> p) & 1)) continue;
            const bit = 1 << l;
            if ((d.predsUnknown[p]! & bit) !== 0) continue;
            preds ??= d.preds.slice();
            unknown ??= d.predsUnknown.slice();
            preds[p] = (preds[p]! & ~bit) >>> 0;
            unknown[p] = (unknown[p]! | bit) >>> 0;
            if ((live.preds[g.pc]! >>> p) & 1) widened = true;
          }
        }
        if (regs || preds)
          d = {
            regs: regs ?? d.regs,
            preds: preds ?? d.preds,
            predsUnknown: unknown ?? d.predsUnknown,
            exited: d.exited,
            calls: d.calls,
            local: d.local,
          };
      }
      if (counts === visits.counts && flagged === visits.flagged && d === data)
        return { visits, data, widened };
      return { visits: { counts, flagged }, data: d, widened };
    },
  };
}

/**
 * `into` with each lane `pairs[2i]` given lane `pairs[2i + 1]`'s turns and flag in `from`, for
 * i < n (summaries of chains, `explore/laneChains.ts`).
 */
export function moveLoopVisits(
  into: LoopVisits,
  from: LoopVisits,
  pairs: Int32Array,
  n: number,
): LoopVisits {
  const counts = into.counts.slice();
  let flagged = into.flagged;
  for (let i = 0; i < n; i++) {
    const to = pairs[2 * i]!;
    const src = pairs[2 * i + 1]!;
    counts[to] = from.counts[src]!;
    flagged =
      (from.flagged >>> src) & 1 ? (flagged | (1 << to)) >>> 0 : (flagged & ~(1 << to)) >>> 0;
  }
  return { counts, flagged };
}
