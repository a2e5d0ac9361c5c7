/**
 * Law of origins (issue 16; `VisitedStates`, docs/semantics.md §14.6): the explorer drops the
 * objects of interned warps where it no longer expects to read them and computes them again from
 * how each was first met — the successor of a step, the end of a plain chain after one, the end of
 * a forced walk from a local. Memory only: the search must be the same search. On generated
 * kernels (both group-kernel generators, W ≤ 6, one or two warps, maximal and single grouping,
 * lane symmetry, dead values and loop widening on or off), under a stress mode that drops every
 * warp with an origin as soon as it is interned — so that every read of one computes it again and
 * checks it against the key it was interned with — the search stores the same states and
 * transitions, accelerates the same steps and ends with the same outcomes as the plain search,
 * whose representatives are all the first-seen objects. It fails on a planted bug (origins of
 * chains one step too long): the key check stops the search.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkFindings,
  itsLoopMachine,
  itsLoopSetups,
  type ItsLoopSetup,
} from '../testing/groupKernels.ts';
import { expectSameOutcomes } from '../testing/outcomes.ts';
import { explore, type Budget } from './exhaustive.ts';

const budget: Budget = { maxStates: 20_000, maxDepth: 10_000, timeoutMs: 20_000 };
const SEED = 20261128;

interface Tally {
  compared: number;
  /** Objects computed again from their origins, over all compared searches. */
  recomputed: number;
}

function check(s: ItsLoopSetup, tally: Tally, plant = false): void {
  const { machine, label } = itsLoopMachine(s);
  const reduce = { deadValues: s.deadValues };
  const plain = explore(machine, budget, undefined, { reduce });
  if (plain.bound !== null) return;
  const stressed = explore(machine, budget, undefined, {
    reduce,
    stressOrigins: true,
    ...(plant ? { plantUnsoundOrigins: 'chain-one-more' as const } : {}),
  });
  if (stressed.bound !== null) return;
  tally.compared++;
  tally.recomputed += stressed.recomputedWarps ?? 0;
  expect([stressed.states, stressed.transitions, stressed.accelerated], label).toEqual([
    plain.states,
    plain.transitions,
    plain.accelerated,
  ]);
  expectSameOutcomes(stressed, plain, label);
  checkFindings(machine, stressed, label);
}

describe('origins: dropped warp objects computed again (issue 16)', () => {
  it('computing every object again from its origin changes no state, transition or outcome', () => {
    const tally: Tally = { compared: 0, recomputed: 0 };
    fc.assert(
      fc.property(itsLoopSetups, (s) => check(s, tally)),
      { seed: SEED, numRuns: 60 },
    );
    // The law must exercise the origins, not only pass by them.
    expect(tally.compared).toBeGreaterThan(40);
    expect(tally.recomputed).toBeGreaterThan(1_000);
  }, 240_000);

  it('fails on a planted bug (chain-one-more): the key check stops the search', () => {
    const tally: Tally = { compared: 0, recomputed: 0 };
    expect(() =>
      fc.assert(
        fc.property(itsLoopSetups, (s) => check(s, tally, true)),
        { seed: SEED, numRuns: 60, includeErrorInReport: true },
      ),
    ).toThrow(/computed again from its origin is another state/);
  }, 240_000);
});
