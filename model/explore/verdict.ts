import type { Decision } from './decisions.ts';

/**
 * Verdicts of a run (SEMANTICS §6), in the order that decides a run's verdict when different
 * interleavings end differently: the first one found in this list wins.
 */
export type Verdict =
  | 'undefined-behavior'
  | 'trap'
  | 'resource-exhausted'
  | 'violation'
  | 'deadlock'
  | 'unsupported'
  | 'bound-reached'
  | 'terminates';

export type DeadlockKind = 'blocked' | 'livelock';

/** Rank of a (verdict, kind) pair: lower wins. Deadlock (blocked) ranks before deadlock (livelock). */
export function verdictRank(v: Verdict, kind: DeadlockKind | null = null): number {
  const order: readonly string[] = [
    'undefined-behavior',
    'trap',
    'resource-exhausted',
    'violation',
    'deadlock:blocked',
    'deadlock:livelock',
    'unsupported',
    'bound-reached',
    'terminates',
  ];
  return order.indexOf(v === 'deadlock' ? `deadlock:${kind ?? 'blocked'}` : v);
}

export const VERDICTS: readonly Verdict[] = [
  'undefined-behavior',
  'trap',
  'resource-exhausted',
  'violation',
  'deadlock',
  'unsupported',
  'bound-reached',
  'terminates',
];

/**
 * One outcome the search reached, with the schedule (choice indices from the initial state) that
 * reaches it. For a livelock the schedule is a lasso: `schedule.slice(0, loop)` is the prefix and
 * `schedule.slice(loop)` the cycle, which returns to the state where it started.
 */
export interface Finding {
  readonly verdict: Verdict;
  readonly kind: DeadlockKind | null;
  readonly property: string | null;
  readonly message: string;
  readonly schedule: readonly number[];
  readonly loop: number | null;
  /**
   * Every path the search found to this outcome takes a branch on an unknown value or a widened
   * loop (issue 16): real inputs may never reach it. False: a path without abstraction reaches it.
   * Absent from findings made before issue 16 (read as false).
   */
  readonly possible?: boolean;
  /** The abstract steps of `schedule` when `possible` (`explore/decisions.ts`). */
  readonly decisions?: readonly Decision[];
}
