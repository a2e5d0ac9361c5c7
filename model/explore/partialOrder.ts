import type { Memory } from '../lanes/memory.ts';
import { isLocalStep, laneLocalOp } from '../machine/footprint.ts';
import type { Machine, WarpSteps } from '../machine/machine.ts';

/**
 * Partial-order reduction over the interleaving of warps (issue 10; docs/semantics.md §14): ample
 * sets in the sense of Peled (conditions C0–C3; Clarke, Grumberg, Peled, *Model Checking*, ch.
 * 10), each made of **every** step of one warp whose steps are all local (`machine/footprint.ts`)
 * — or, when the mechanism issues single lanes (`Mechanism.threadIssues`), every step of one
 * lane's issue that changes only that lane. The explorer asks this module how to class one warp's
 * steps (once per cached local expansion) and picks, per state, the smallest such set.
 *
 * - C0: an ample set is empty only when the state has no steps (the warp must be enabled).
 * - C1 (persistence): a local step is independent of every step of another warp, and steps of
 *   other warps cannot change this warp's state, so no step dependent on the ample set can run
 *   before one of it.
 * - C2 (invisibility): a warp with a stop step (a finding) is never ample alone.
 * - C3 (cycle proviso, strong form: every cycle of the reduced graph has a fully expanded state):
 *   the breadth-first form of Bošnački, Leue and Lluch Lafuente ("Partial-order reduction for
 *   general state exploring algorithms", SPIN 2006): a state whose ample successor was already
 *   reached at a depth ≤ its own is fully expanded. Every cycle has such a "back-level" edge.
 *
 * Weak fairness (livelocks) holds because the ample set is everything one entity of the fairness
 * rules (a warp, a lane) can do, and that entity's steps wait for nobody (docs/semantics.md §14).
 */
/**
 * How one warp's steps (in one warp state, under one memory) may be expanded: `from`..`to` - 1
 * index the steps that may be expanded alone (all of them, or one lane's issue when the mechanism
 * issues single lanes), `from` = -1 when none may; `abstract` when some step resolves an unknown
 * value — the fair-choice livelock check (fairCycles.ts) looks at whole components, so the search
 * is then redone without the reduction (docs/semantics.md §14).
 */
export interface WarpAmple {
  readonly from: number;
  readonly to: number;
  readonly abstract: boolean;
  /**
   * Further ranges that may each be expanded alone, as `[from, to, from, to, …]` (single-lane
   * issues: every local lane issue after the first). The explorer falls back on them when the
   * cycle proviso rejects the first (SPIN's way: try the next process before expanding fully).
   */
  readonly more: readonly number[];
}

export interface PartialOrder {
  classify(steps: WarpSteps, mem: Memory): WarpAmple;
  /** False only for the planted bug that drops the cycle proviso. */
  readonly proviso: boolean;
}

/** Planted bugs for the soundness law (`partialOrder.test.ts`); never defaults. */
export type PlantUnsoundPor =
  /** Stores and atomics count as local. */
  | 'local-stores'
  /** No cycle proviso (the ignoring problem). */
  | 'no-proviso'
  /** BRA.DIV/.CONV count as lane-local although they read which lanes have exited. */
  | 'lanes-ignore-divergence'
  /**
   * The cycle proviso accepts an edge back to any state already expanded, fully or not (the
   * refinement accepts only fully expanded targets).
   */
  | 'any-expanded-target';

const NO_MORE: readonly number[] = [];
const NONE: WarpAmple = { from: -1, to: -1, abstract: false, more: NO_MORE };
const ABSTRACT: WarpAmple = { from: -1, to: -1, abstract: true, more: NO_MORE };

export function partialOrder(machine: Machine, plant: PlantUnsoundPor | null = null): PartialOrder {
  const ops = machine.ops;
  const plantStores = plant === 'local-stores';
  // Lanes run alone only where an issue is one lane.
  const lanes = machine.mechanism.threadIssues === true;
  const plantDiv = plant === 'lanes-ignore-divergence';
  return {
    proviso: plant !== 'no-proviso',
    classify(steps, mem) {
      const list = steps.steps;
      if (!steps.enabled || list.length === 0) return NONE;
      let local = true;
      for (const st of list) {
        if (st.unknownChoice) return ABSTRACT;
        if (local && !isLocalStep(ops, st, mem, plantStores)) local = false;
      }
      if (lanes) {
        // Every issue (one lane) whose steps are all local and change only that lane.
        let first: WarpAmple | null = null;
        const more: number[] = [];
        for (let from = 0; from < list.length;) {
          const group = list[from]!.group;
          let to = from;
          let ok = true;
          for (; to < list.length && list[to]!.group === group; to++) {
            const st = list[to]!;
            const op = ops[st.issue.pc];
            if (!isLocalStep(ops, st, mem, plantStores) || !op || !laneLocalOp(op, plantDiv))
              ok = false;
          }
          if (ok) {
            if (first === null) first = { from, to, abstract: false, more };
            else more.push(from, to);
          }
          from = to;
        }
        if (first !== null) return first;
      }
      return local ? { from: 0, to: list.length, abstract: false, more: NO_MORE } : NONE;
    },
  };
}
