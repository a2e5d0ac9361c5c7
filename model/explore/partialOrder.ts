import type { Memory } from '../lanes/memory.ts';
import { isLocalStep } from '../machine/footprint.ts';
import type { Machine, WarpSteps } from '../machine/machine.ts';

/**
 * Partial-order reduction over the interleaving of warps (issue 10; docs/semantics.md
 * "Partial-order reduction"): ample sets in the sense of Peled (conditions C0–C3; Clarke,
 * Grumberg, Peled, *Model Checking*, ch. 10), each made of **every** step of one warp whose steps
 * are all local (`machine/footprint.ts`). The explorer asks this module two things: how to class
 * one warp's steps (once per cached local expansion) and, per state, which warp to expand alone.
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
 * Weak fairness (livelocks) holds because the ample set is a whole warp (see docs/semantics.md).
 */
export type WarpClass =
  /** Enabled, every step local and not a stop: may be expanded alone. */
  | 'ample'
  /** Some step touches memory or ends the run, or nothing is enabled: never alone. */
  | 'dependent'
  /**
   * Some step resolves an unknown value: the fair-choice livelock check (fairCycles.ts) looks at
   * whole components, so the search is redone without the reduction (see docs/semantics.md).
   */
  | 'abstract';

export interface PartialOrder {
  /** Classes the steps of one warp (in one warp state, under one memory). */
  classify(steps: WarpSteps, mem: Memory): WarpClass;
  /** The planted bug under test drops the cycle proviso. */
  readonly proviso: boolean;
}

/** Planted bugs for the soundness law (`partialOrder.test.ts`); never defaults. */
export type PlantUnsoundPor = 'local-stores' | 'no-proviso';

export function partialOrder(machine: Machine, plant: PlantUnsoundPor | null = null): PartialOrder {
  const ops = machine.ops;
  const plantStores = plant === 'local-stores';
  return {
    proviso: plant !== 'no-proviso',
    classify(steps, mem) {
      if (!steps.enabled || steps.steps.length === 0) return 'dependent';
      let local = true;
      for (const st of steps.steps) {
        if (st.unknownChoice) return 'abstract';
        if (local && !isLocalStep(ops, st, mem, plantStores)) local = false;
      }
      return local ? 'ample' : 'dependent';
    },
  };
}
