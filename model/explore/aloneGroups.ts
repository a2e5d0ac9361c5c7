import { holdsAlways, unguarded, type Op } from '../isa/op.ts';
import type { Memory } from '../lanes/memory.ts';
import { laneLocalOp, touchesMemory } from '../machine/footprint.ts';
import type { Machine, WarpState, WarpSteps } from '../machine/machine.ts';
import { barrierQuiet } from './bsyncPriority.ts';
import { firstGroup, type GroupPick, type GroupPriority } from './groupPriority.ts';

/**
 * Groups that run alone: a partial-order reduction among the lane groups of one `its` warp under
 * maximal grouping (issue 16; docs/semantics.md §14.3). Under maximal grouping (SEMANTICS §3.1)
 * every group of ready lanes at one PC is a candidate, so groups that diverged on a branch
 * interleave instruction by instruction until they wait at a barrier. This module picks, per warp
 * state, a group `G` (the ready lanes at PC `a`) whose step may be expanded alone:
 *
 * 1. `G`'s instruction is lane-local (`laneLocalOp`: a data instruction, a plain BRA, LDL/STL) and
 *    touches no shared memory, and its step is no stop, leaves memory as it was and races no
 *    lanes of different symmetry classes;
 * 2. `a` lies on no cycle of the control-flow graph (no successor of `a` may reach `a`, along the
 *    over-approximating successors of `Liveness.mayReach`);
 * 3. no other live lane of the warp — ready, waiting at a barrier or inside a call — may reach a
 *    successor of `a` from its PC (hence not `a` either: every path to `a` goes on to one), unless
 *    that successor is an unguarded BSYNC on a register Bx that holds every lane of `G`, and no
 *    lane that may still move may set Bx or issue after a BSYNC on Bx (`barrierQuiet` of
 *    `bsyncPriority.ts`): there the lanes only meet to arrive (below).
 *
 * Why it is sound (Godefroid's persistent sets, LNCS 1032 ch. 4, with an argument of our own for
 * cycles; the full argument is in docs/semantics.md §14.3):
 * - Persistent: along any path from the state that does not move `G`, no step depends on `G`'s.
 *   `G`'s step reads and writes only `G`'s lanes (1); by (3) no other lane joins `G` at `a` (which
 *   would change `G`'s issue) nor sits at or reaches a PC where `G` lands (where `G` would join its
 *   group); other warps share only memory, which `G`'s step does not touch; and in `its` a ready
 *   lane stays ready until it issues (`release` only wakes waiting lanes). The exception of (3):
 *   `G` lands on a BSYNC on Bx and holds members of Bx that do not wait, so Bx cannot complete
 *   before `G` arrives, and no lane may re-arm it; a lane that reaches the BSYNC first only starts
 *   to wait there (a non-member would pass to the instruction after it, which (3) excludes), and
 *   one that stands there when `G` lands arrives with `G` instead of before it — arrivals are a
 *   union and the release comes with the last member, so the state after both arrivals is the
 *   same (EXIT priority's `E ∪ F`, docs/semantics.md §14.4).
 * - Off every cycle: a lane that leaves `a` never returns (2), so no cycle of the full graph in
 *   which `G` moves passes a state with `G` at `a`, and a cycle in which `G` never moves keeps `G`
 *   ready at `a` throughout — unfair to `G`'s lanes (weak fairness per lane) and to the place `a`
 *   (fairness per PC under lane symmetry). The reduced graph therefore keeps every fair cycle with
 *   all its states fully expanded, and needs no cycle proviso; its strongly connected components
 *   that hold a fair cycle are those of the full graph, so the fair-choice rule for unknown branches
 *   (SEMANTICS §5, `fairCycles.ts`) sees the same components.
 * - Finite: each such step moves a lane past a PC it can never visit again, so runs of reduced
 *   states are finite, and deadlocks, stops and fair cycles reachable in the full graph stay
 *   reachable (the step commutes to the front of any path that reaches them).
 *
 * Applied only to the explored machine's own warps (the refinement reference keeps every candidate).
 */
export function aloneGroups(
  machine: Machine,
  plant: PlantUnsoundAlone | null = null,
): GroupPriority | null {
  const mech = machine.mechanism;
  if (mech.id !== 'its' || (machine.options['grouping'] ?? 'maximal') !== 'maximal') return null;
  const mayReach = machine.mayReach;
  const lanePcs = mech.lanePcs;
  if (!mayReach || !lanePcs) return null;
  const ops = machine.ops;
  const n = ops.length;
  const quiet = barrierQuiet(machine);
  const barrierValue = mech.barrierValue;
  /** `G` (lanes `g`) may land on `s` although others may reach it: the exception of (3). */
  const meetToArrive = (warp: WarpState, s: number, g: number): boolean => {
    if (plant === 'ignore-barrier') return ops[s]?.kind === 'bsync';
    const op = ops[s];
    if (!op || op.kind !== 'bsync' || !unguarded(op) || mech.policy(op) !== 'native') return false;
    if (!quiet || !barrierValue) return false;
    const members = barrierValue(warp.mech, op.barrier);
    return (members & g) >>> 0 === g >>> 0 && quiet(warp, op.barrier, g);
  };
  /** Per target PC: which PCs may reach it (`Liveness.mayReach`), computed on first use. */
  const reachers = new Map<number, Uint8Array>();
  const reachersOf = (t: number): Uint8Array => {
    let r = reachers.get(t);
    if (!r) {
      r = mayReach((pc) => pc === t);
      reachers.set(t, r);
    }
    return r;
  };
  /** Per PC: the successors of a lane-local instruction off every cycle, or null (not eligible). */
  const succ = new Map<number, readonly number[] | null>();
  const successorsOf = (pc: number): readonly number[] | null => {
    if (succ.has(pc)) return succ.get(pc)!;
    const op = ops[pc];
    let out: readonly number[] | null = null;
    if (op && laneLocalOp(op) && !touchesMemory(op) && machine.mechanism.policy(op) !== 'reject') {
      const next = successorsOfOp(op, pc);
      const self = reachersOf(pc);
      // Every successor is an instruction, and none may lead back to `pc` (condition 2).
      if (next.every((s) => s >= 0 && s < n && (self[s] === 0 || plant === 'on-cycles')))
        out = next;
    }
    succ.set(pc, out);
    return out;
  };
  return {
    pick(warp: WarpState, steps: WarpSteps, mem: Memory): GroupPick | null {
      if (steps.issues < 2) return null;
      return firstGroup(steps.steps, 'alone', (from, to) =>
        alone(warp, steps.steps, from, to, mem),
      );
    },
  };

  function alone(
    warp: WarpState,
    list: WarpSteps['steps'],
    from: number,
    to: number,
    mem: Memory,
  ): boolean {
    for (let e = from; e < to; e++) {
      const st = list[e]!;
      if (st.stop !== null || st.warp === null || st.memory !== mem || st.orderDependent === true)
        return false;
    }
    const issue = list[from]!.issue;
    const next = successorsOf(issue.pc);
    if (next === null) return false;
    if (plant === 'ignore-others') return true;
    // Condition 3: no other live lane may reach a successor of `a` (but to arrive at a BSYNC).
    const others = (~issue.mask & ~warp.data.exited) >>> 0;
    let ok = true;
    /** Per successor: 1 the exception holds, 0 not yet asked, -1 it does not. */
    const meet = [0, 0];
    lanePcs!(warp.mech, (pc, mask) => {
      if (!ok || (mask & others) === 0) return;
      if (pc < 0 || pc >= n) ok = false;
      else
        for (let i = 0; i < next.length && ok; i++) {
          const s = next[i]!;
          if (reachersOf(s)[pc] === 0) continue;
          if (meet[i] === 0) meet[i] = meetToArrive(warp, s, issue.mask) ? 1 : -1;
          if (meet[i] === -1) ok = false;
        }
    });
    return ok;
  }
}

/** Planted bugs for the soundness law (`aloneGroups.test.ts`); never defaults. */
export type PlantUnsoundAlone =
  /** Condition 2 dropped: groups on cycles run alone too (a spinning group starves the others). */
  | 'on-cycles'
  /** Condition 3 dropped: a group runs alone although another may join it or meet it. */
  | 'ignore-others'
  /** The exception of condition 3 without its barrier conditions: any BSYNC may be met at. */
  | 'ignore-barrier';

/** The control successors of a lane-local instruction at `pc` (a plain BRA: target and, when guarded, the fall-through). */
function successorsOfOp(op: Op, pc: number): readonly number[] {
  if (op.kind === 'bra')
    return holdsAlways(op.guard) && holdsAlways(op.pred2) ? [op.target] : [pc + 1, op.target];
  return [pc + 1];
}
