import { expect } from 'vitest';
import type { ExploreResult } from '../explore/exhaustive.ts';

/**
 * What the soundness laws compare between a reduced and an unreduced search (DESIGN.md "check
 * each reduction by comparing verdicts with and without it"): the set of distinct outcomes —
 * verdict, kind and property of every finding — sorted, and the headline verdict with the
 * first finding's property.
 */
export const outcomes = (r: ExploreResult): string[] =>
  [...new Set(r.findings.map((f) => `${f.verdict}/${f.kind ?? ''}/${f.property ?? ''}`))].sort();

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
