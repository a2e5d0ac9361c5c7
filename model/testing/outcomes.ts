import { expect } from 'vitest';
import { explore, type Budget, type ExploreResult } from '../explore/exhaustive.ts';
import type { Machine } from '../machine/machine.ts';

/**
 * What the soundness laws compare between a reduced and an unreduced search (DESIGN.md "check
 * each reduction by comparing verdicts with and without it"): the set of distinct outcomes —
 * verdict, kind and property of every finding — sorted, and the headline verdict with the
 * first finding's property.
 */
export const outcomes = (r: ExploreResult): string[] =>
  [...new Set(r.findings.map((f) => `${f.verdict}/${f.kind ?? ''}/${f.property ?? ''}`))].sort();

/**
 * The outcomes of the abstraction laws (widening, shared unknowns), livelocks left out: an unknown
 * branch is assumed fair (SEMANTICS §5), so a cycle the more concrete search closes may be left.
 */
export const outcomesButLivelocks = (r: ExploreResult): Set<string> =>
  new Set(
    r.findings
      .filter((f) => f.kind !== 'livelock')
      .map((f) => `${f.verdict}/${f.kind ?? ''}/${f.property ?? ''}`),
  );

export const verdictOf = (r: ExploreResult): string =>
  `${r.verdict}/${r.kind ?? ''}/${r.findings[0]?.property ?? ''}`;

/**
 * A reduction law's check (vitest `expect`): the reduced search gives the headline verdict and
 * the set of outcomes of the unreduced one.
 */
export function expectSameOutcomes(
  reduced: ExploreResult,
  plain: ExploreResult,
  label?: string,
): void {
  expect(verdictOf(reduced), label).toBe(verdictOf(plain));
  expect(outcomes(reduced), label).toEqual(outcomes(plain));
}

/**
 * The laws of the reduced key (dead values, spent stack entries, arrival runs): the search with
 * the reduced key and without it, partial-order reduction off in both.
 */
export function reducedAndPlain(
  m: Machine,
  budget: Budget,
): { readonly reduced: ExploreResult; readonly plain: ExploreResult } {
  const run = (deadValues: boolean) =>
    explore(m, budget, undefined, { reduce: { deadValues, partialOrder: false } });
  return { plain: run(false), reduced: run(true) };
}
