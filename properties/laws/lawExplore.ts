import { explore, type ExploreResult } from '../../model/explore/exhaustive.ts';
import type { Machine } from '../../model/machine/machine.ts';
import type { CheckOptions } from './types.ts';

/**
 * The explorer as the laws call it: the default reductions, except warp symmetry when the budget
 * turns it off (`check --no-warp-symmetry`, docs/semantics.md §15).
 */
export const lawExplore = (machine: Machine, budget: CheckOptions['budget']): ExploreResult =>
  explore(
    machine,
    budget,
    undefined,
    budget.warpSymmetry === false ? { reduce: { warpSymmetry: false } } : {},
  );

/** A cache key for a search's budget (the reductions it runs with included). */
export const budgetKey = (budget: CheckOptions['budget']): string =>
  `${budget.maxStates}/${budget.maxDepth}/${budget.timeoutMs}/${budget.warpSymmetry === false ? 'nows' : 'ws'}`;
