import { SCENARIO_LIMITS } from '../scenario/limits.ts';
import { ACCEL_PER_STATE } from './acceleration.ts';
import type { Budget, ExploreResult } from './exploreTypes.ts';
import { verdictRank, type Finding, type Verdict } from './verdict.ts';

/**
 * The last stage of `explore` (`exhaustive.ts`): the notes a result carries about what its verdict
 * rests on, and the headline verdict — the best-ranked finding, or the budget that ran out.
 */

/** What the notes report on; each field as the search ended. */
export interface SearchFacts {
  /** Findings whose schedule could not be walked again from the initial state. */
  readonly unreplayable: number;
  /** Findings past chains longer than a scenario holds (`SCENARIO_LIMITS.scheduleSteps`). */
  readonly longSchedules: number;
  /** Acceleration's tally (`acceleration.ts` `Chains`), or null when it was off. */
  readonly chains: {
    readonly steps: number;
    readonly count: number;
    readonly capped: number;
    readonly cap: number;
    readonly total: number;
    /** The budget of steps run on the machine was spent: no chain started after that. */
    readonly exhausted: boolean;
  } | null;
  /** Some step resolved an unknown value (SEMANTICS §5). */
  readonly sawUnknownChoice: boolean;
}

const plural = (n: number, one: string, many: string): string => (n > 1 ? many : one);

/** The notes of a finished search, in a fixed order. */
export function searchNotes(f: SearchFacts): string[] {
  const notes: string[] = [];
  const { unreplayable, longSchedules, chains } = f;
  if (unreplayable > 0)
    notes.push(
      `${unreplayable} finding${plural(unreplayable, '', 's')} could not be walked again from the initial state; ${plural(unreplayable, 'its schedule', 'their schedules')} may not replay`,
    );
  if (longSchedules > 0)
    notes.push(
      `${longSchedules} finding${plural(longSchedules, '', 's')} lie${plural(longSchedules, 's', '')} past accelerated chains longer than a scenario holds (${SCENARIO_LIMITS.scheduleSteps.toLocaleString('en-US')} steps): ${plural(longSchedules, 'its schedule gives', 'their schedules give')} each chain as its first step only and do${plural(longSchedules, 'es', '')} not replay`,
    );
  if (chains && chains.steps > 0)
    notes.push(
      `accelerated ${chains.steps.toLocaleString('en-US')} steps in ${chains.count.toLocaleString('en-US')} chain${plural(chains.count, '', 's')} without storing their states (docs/semantics.md §14.2): the verdict rests on acceleration` +
        (chains.capped > 0
          ? `; ${chains.capped} chain${plural(chains.capped, '', 's')} reached the cap of ${chains.cap.toLocaleString('en-US')} steps and stored the state reached`
          : '') +
        (chains.exhausted
          ? `; acceleration stopped at its budget of ${chains.total.toLocaleString('en-US')} steps in chains cut at the cap (${ACCEL_PER_STATE} per state of the states budget)`
          : ''),
    );
  if (f.sawUnknownChoice)
    notes.push(
      'branches on unknown values were explored both ways and assumed fair (SEMANTICS §5): a cycle that only some resolutions of them keep going is not reported, so livelocks on opaque code are under-approximated',
    );
  return notes;
}

/**
 * The headline of a search: the best-ranked finding (`findings` sorted in place, best first) —
 * unless a budget ran out before anything worse than `bound-reached` was found, which is then the
 * verdict: a bound is never reported as `terminates` (DESIGN.md "Budgets, not hangs").
 */
export function headline(
  findings: Finding[],
  bound: ExploreResult['bound'],
  branching: string | null,
  budget: Budget,
  /** What ran out when `bound` is 'memory' (`memoryBudget.ts`). */
  memoryBound: string | null = null,
): { verdict: Verdict; kind: ExploreResult['kind']; message: string; sorted: Finding[] } {
  const sorted = findings.sort(
    (a, b) => verdictRank(a.verdict, a.kind) - verdictRank(b.verdict, b.kind),
  );
  const best = sorted[0];
  const verdict: Verdict = best?.verdict ?? 'bound-reached';
  const kind = best?.kind ?? null;
  const message = best?.message ?? 'nothing reached';
  if (bound === null || verdictRank(verdict, kind) < verdictRank('bound-reached'))
    return { verdict, kind, message, sorted };
  const spent =
    bound === 'states'
      ? `${budget.maxStates} states`
      : bound === 'depth'
        ? `depth ${budget.maxDepth}`
        : bound === 'memory'
          ? (memoryBound ?? `${budget.maxMemoryMb ?? 0} MB`)
          : // Whole milliseconds, or seconds past one (a command's --time-limit leaves fractions).
            budget.timeoutMs < 1000
            ? `${Math.round(budget.timeoutMs)} ms`
            : `${(budget.timeoutMs / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} s`;
  return {
    verdict: 'bound-reached',
    kind: null,
    message:
      bound === 'branching'
        ? branching!
        : `${bound} budget ran out (${spent}) before the search finished`,
    sorted,
  };
}
