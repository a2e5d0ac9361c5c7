import { explore, type ExploreResult } from '../../model/explore/exhaustive.ts';
import type { Machine } from '../../model/machine/machine.ts';
import type { CheckOptions } from './types.ts';

/** A cache key for a search's budget (the reductions it runs with included). */
export const budgetKey = (budget: CheckOptions['budget']): string =>
  `${budget.maxStates}/${budget.maxDepth}/${budget.timeoutMs}/${budget.warpSymmetry === false ? 'nows' : 'ws'}`;

/**
 * Results of the laws' searches per machine and budget. `explore` is a pure function of the two
 * (a machine is immutable data; `build` in `machine.ts` hands out one object per text, mechanism,
 * resolved options and refinement), and the laws ask for the same search more than once: P1's
 * `its` reference is also P1 × `its`'s own search and P8's reference of the same text, P5 and P6
 * re-run a kernel's search on shrinking and counterexample construction. A result bounded by time
 * depends on the machine's load and is never kept. Weakly keyed: a machine the `build` cache
 * dropped takes its results with it.
 */
const searches = new WeakMap<Machine, Map<string, ExploreResult>>();

/**
 * The explorer as the laws call it: the default reductions, except warp symmetry when the budget
 * turns it off (`check --no-warp-symmetry`, docs/semantics.md §15); a search already run on the
 * same machine and budget is not run again (`searches`).
 */
export function lawExplore(machine: Machine, budget: CheckOptions['budget']): ExploreResult {
  const key = budgetKey(budget);
  let byBudget = searches.get(machine);
  const hit = byBudget?.get(key);
  if (hit) return hit;
  const r = explore(
    machine,
    budget,
    undefined,
    budget.warpSymmetry === false ? { reduce: { warpSymmetry: false } } : {},
  );
  if (r.bound !== 'time') {
    if (!byBudget) searches.set(machine, (byBudget = new Map()));
    byBudget.set(key, r);
  }
  return r;
}
