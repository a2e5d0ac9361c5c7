import { PT, type PredRef } from '../isa/program.ts';
import { holdsAlways, unguarded, type Op } from '../isa/op.ts';
import type { Memory } from '../lanes/memory.ts';
import type { Machine, WarpState, WarpSteps } from '../machine/machine.ts';
import type { ItsState } from '../mechanisms/its.ts';
import { firstGroup, plainStep, type GroupPick, type GroupPriority } from './groupPriority.ts';

/**
 * BSYNC priority: a reduction among the lane groups of one `its` warp under maximal grouping
 * (issue 16; docs/semantics.md §14.4). Lanes that leave a loop at different iterations on unknown
 * data each reach the loop's BSYNC while the others still run; every group that stands *ready* at
 * the BSYNC may issue it now or after any step of the others, so a state also records how many
 * lanes stand there, ready, beside how many already wait. This module picks, per warp state, a
 * group `H` (the ready lanes at PC `b`, an unguarded `BSYNC Bx`) whose step may be expanded alone:
 *
 * 1. the step is a pure wait: every lane of `H` is a member of Bx, and some other non-exited
 *    member neither waits on Bx nor is in `H` — so `H` only starts to wait, nothing is released
 *    and no lane moves (`release` in its.ts); the step is no stop and leaves memory as it was;
 * 2. `b` lies on no cycle of the control-flow graph (`b + 1` may not reach `b`, along the
 *    over-approximating successors of `Liveness.mayReach`);
 * 3. no other live lane of the warp that does not already wait on Bx may reach an instruction that
 *    sets Bx (BSSY Bx, BMOV Bx ← R, BMOV.CLEAR of Bx) or the instruction after a BSYNC on Bx (where
 *    released lanes land); a member of Bx's paths stop at an unguarded BSYNC on Bx (it cannot pass
 *    it before `H` arrives: Bx cannot complete while `H`'s lanes, members, do not wait), and go on
 *    as a non-member's after a BREAK on Bx.
 *
 * Why it is sound (Godefroid's persistent sets, LNCS 1032 ch. 4; Lipton's movers, CACM 18(12),
 * 1975; the full argument in docs/semantics.md §14.4): `H`'s arrival moves to the front of any
 * path from the state that later issues it.
 * - Until `H` issues, Bx cannot complete (1) and no lane sets Bx (3): the lanes that wait on Bx
 *   stay waiting, whatever the order. Another group's step reads of `H` only whether it waits, and
 *   only through `release`, which wakes a barrier's waiters once every non-exited member waits: with
 *   `H` already waiting a release of Bx may come at that step instead of at `H`'s arrival, and the
 *   woken lanes land where (3) says no other lane issues before `H` would have arrived. Releases of
 *   other registers and of WARPSYNC do not read a lane waiting on Bx.
 * - A group `G` that reaches `b` while `H` stands there ready issues with it (`H ∪ G`); arriving
 *   first, `H` waits, and `G` then issues the BSYNC alone: the arrivals are a union, the release
 *   comes when the last member arrives, so the state after both is the same (as EXIT priority's
 *   `E ∪ F`, `groupPriority.ts`).
 * - Off every cycle (2): a lane that issued at `b` never stands at `b` ready again, so a cycle that
 *   passes a state with `H` ready at `b` keeps `H` ready there throughout — unfair to `H`'s lanes
 *   (weak fairness per lane) and to the place `b` (per PC under lane symmetry). Every fair cycle
 *   thus lies in states this rule leaves in full, and needs no cycle proviso.
 * - Finite: each such step turns ready lanes into waiting ones and releases none, so a run of
 *   reduced states is finite; every deadlock, stop and fair cycle of the full graph stays reachable
 *   (the measure: the lanes the rest of the path still issues, which each moved arrival lowers).
 *
 * Applied only to the explored machine's own warps (as EXIT priority).
 */
export function bsyncPriority(
  machine: Machine,
  plant: PlantUnsoundBsync | null = null,
): GroupPriority | null {
  const mech = machine.mechanism;
  if (mech.id !== 'its' || (machine.options['grouping'] ?? 'maximal') !== 'maximal') return null;
  const mayReach = machine.mayReach;
  const barrierValue = mech.barrierValue;
  if (!mayReach || !barrierValue) return null;
  const ops = machine.ops;
  const n = ops.length;
  const native = (op: Op) => mech.policy(op) === 'native';
  const quiet = barrierQuiet(machine, plant === 'ignore-setters');
  if (!quiet) return null;
  /** Per PC: an unguarded native BSYNC off every cycle (condition 2), else -1; its register. */
  const eligible = new Map<number, number>();
  const barrierAt = (pc: number): number => {
    let x = eligible.get(pc);
    if (x !== undefined) return x;
    const op = ops[pc];
    x = -1;
    if (op && op.kind === 'bsync' && unguarded(op) && native(op) && pc + 1 < n) {
      const self = mayReach((p) => p === pc);
      if (self[pc + 1] === 0) x = op.barrier;
    }
    eligible.set(pc, x);
    return x;
  };
  return {
    pick(warp: WarpState, steps: WarpSteps, mem: Memory): GroupPick | null {
      if (steps.issues < 2) return null;
      return firstGroup(steps.steps, 'bsync', (from, to) => {
        const first = steps.steps[from]!;
        return (
          to === from + 1 &&
          plainStep(first, mem) &&
          pureWait(warp, first.issue.pc, first.issue.mask, first.warp!)
        );
      });
    },
  };

  /** Conditions 1–3 for the ready lanes `h` at `pc`, given the state their step leads to. */
  function pureWait(warp: WarpState, pc: number, h: number, after: WarpState): boolean {
    const x = barrierAt(pc);
    if (x < 0) return false;
    const s = warp.mech as ItsState;
    const members = barrierValue!(s, x);
    if ((members & h) >>> 0 !== h >>> 0) return false;
    const exited = warp.data.exited;
    let waitingOnX = 0;
    for (let l = 0; l < s.wait.length; l++) if (s.wait[l] === x) waitingOnX |= 1 << l;
    // Condition 1: another member still to arrive, so the arrival releases nothing.
    if ((members & ~exited & ~waitingOnX & ~h) >>> 0 === 0) return false;
    // The step as computed (a check of the above): every lane of `h` now waits on Bx at `pc`, and
    // every other lane is where and as it was.
    const t = after.mech as ItsState;
    for (let l = 0; l < s.pcs.length; l++) {
      const inH = ((h >>> l) & 1) === 1;
      if (t.pcs[l] !== (inH ? pc : s.pcs[l]) || t.wait[l] !== (inH ? x : s.wait[l])) return false;
    }
    // Condition 3: no other live lane that may still move may set Bx or issue where lanes land.
    return quiet!(warp, x, h);
  }
}

/**
 * Condition 3 of BSYNC priority, shared with groups that run alone (`aloneGroups.ts`, which lets a
 * group land on a BSYNC that others may reach): `quiet(warp, x, h)` holds when no live lane of
 * `warp` outside `h` that does not already wait on Bx may reach an instruction that sets Bx (BSSY
 * Bx, `BMOV Bx, R`, a clearing `BMOV R, Bx`) or the instruction after a BSYNC on Bx (where released
 * lanes land). A member of Bx's paths stop at an unguarded BSYNC on Bx — sound while `h`, members
 * that do not wait, keep Bx from completing — and go on as a non-member's after a BREAK on Bx (for
 * the compiler's `@P BREAK Bx; @P BRA t`, one guard and adjacent, from `t`, where the breaking lanes
 * go). Null where the mechanism is not `its` or the analysis is missing.
 */
export function barrierQuiet(
  machine: Machine,
  ignoreSetters = false,
): ((warp: WarpState, x: number, h: number) => boolean) | null {
  const mech = machine.mechanism;
  const mayReach = machine.mayReach;
  const barrierValue = mech.barrierValue;
  if (mech.id !== 'its' || !mayReach || !barrierValue) return null;
  const ops = machine.ops;
  const n = ops.length;
  const native = (op: Op) => mech.policy(op) === 'native';
  /** Per barrier register: per PC, whether a lane there may break condition 3 (computed once). */
  const reach = new Map<number, { member: Uint8Array; other: Uint8Array }>();
  const reachOf = (x: number) => {
    let r = reach.get(x);
    if (r) return r;
    const sets = (op: Op): boolean =>
      !ignoreSetters &&
      ((op.kind === 'bssy' && op.barrier === x) ||
        (op.kind === 'bmov-to-barrier' && op.barrier === x) ||
        (op.kind === 'bmov-from-barrier' && op.barrier === x && op.clear));
    const bsyncOn = (op: Op | undefined): boolean =>
      op !== undefined && op.kind === 'bsync' && op.barrier === x;
    const target = (pc: number): boolean => {
      const op = ops[pc]!;
      return (native(op) && sets(op)) || (pc > 0 && bsyncOn(ops[pc - 1]) && native(ops[pc - 1]!));
    };
    const other = mayReach(target);
    // A member goes on as any lane after a BREAK on Bx; its paths stop at a BSYNC on Bx. The
    // compiler's `@P BREAK Bx; @P BRA t` (the same guard, nothing between): a lane that breaks
    // takes the BRA, so it goes on as any lane from t; one that does not stays a member.
    const afterBreak = (pc: number): number => {
      const op = ops[pc]!;
      if (op.kind !== 'break' || op.barrier !== x) return -1;
      const next = ops[pc + 1];
      if (
        next?.kind === 'bra' &&
        next.cond === 'none' &&
        sameGuard(op.guard, next.guard) &&
        holdsAlways(op.pred2) &&
        holdsAlways(next.pred2)
      )
        return next.target;
      return pc;
    };
    const member = mayReach(
      (pc) => {
        if (target(pc)) return true;
        const from = afterBreak(pc);
        return from >= 0 && other[from] === 1;
      },
      (pc) => bsyncOn(ops[pc]) && unguarded(ops[pc]!) && native(ops[pc]!),
    );
    r = { member, other };
    reach.set(x, r);
    return r;
  };
  return (warp, x, h) => {
    const s = warp.mech as ItsState;
    const members = barrierValue(s, x);
    const { member, other } = reachOf(x);
    for (let l = 0; l < s.pcs.length; l++) {
      const p = s.pcs[l]!;
      if (p < 0 || (h >>> l) & 1 || s.wait[l] === x) continue;
      if (p >= n) return false;
      // A member (ready, or waiting on another register) stays one until it breaks.
      if ((((members >>> l) & 1) === 1 ? member : other)[p] !== 0) return false;
    }
    return true;
  };
}

/** Planted bugs for the soundness law (`bsyncPriority.test.ts`); never defaults. */
export type PlantUnsoundBsync =
  /** Condition 3 without the instructions that set Bx: another lane may re-arm Bx first. */
  'ignore-setters';

/** Two guards that hold on the same lanes: the same predicate, negated alike (not `PT`). */
const sameGuard = (a: PredRef | null, b: PredRef | null): boolean =>
  a !== null && b !== null && a.index !== PT && a.index === b.index && a.negated === b.negated;
