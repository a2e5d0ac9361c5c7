/**
 * Whether a machine can produce a given per-lane ballot log: a search over its schedules that
 * prunes every state in which some lane's log so far is not a prefix of the wanted one (the
 * logs only grow), so the reference `its` — whose schedules are many — is searched in the few
 * states that stay on the wanted log. Used by the reconvergence cases and by law P9 on `its`.
 */
import type { Machine, MachineState } from '../../model/machine/machine.ts';
import { StateSet } from '../laws/stateSet.ts';
import { logProgress, type LaneLog } from './ballotLog.ts';

export interface ReachResult {
  /** A terminated state with exactly `want` in memory was found. */
  readonly found: boolean;
  /** States visited; a budget reached (`exhausted: false`) means `found: false` proves nothing. */
  readonly states: number;
  readonly exhausted: boolean;
}

/** Searches the schedules of `m` for a terminated run whose logs equal `want`. */
export function reachesLog(
  m: Machine,
  want: readonly LaneLog[],
  limit = 200_000,
  timeoutMs = Infinity,
): ReachResult {
  const t0 = performance.now();
  const threads = want.length;
  const fns = m.program.functions;
  const rank = (pc: number): number => {
    const f = fns.findIndex((x) => pc >= x.start && pc < x.end);
    return (fns.length - f) * 1_000_000 + pc;
  };
  const seen = new StateSet(m);
  const lengths = new Int32Array(threads);
  // Only states whose logs are still prefixes of the wanted ones are pushed (a successor that
  // diverges is dropped before it is keyed: the logs only grow, so nothing after it can match);
  // `states` counts the distinct ones among them.
  const start = m.initial();
  if (logProgress(start.memory, want, lengths) === 'diverged')
    return { found: false, states: 0, exhausted: true };
  const stack: MachineState[] = [start];
  let states = 0;
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (!seen.add(s)) continue;
    if (++states > limit || ((states & 63) === 0 && performance.now() - t0 > timeoutMs))
      return { found: false, states, exhausted: false };
    const succ = m.successors(s);
    if (succ.length === 0) {
      if (m.status(s) === 'terminated' && logProgress(s.memory, want, lengths) === 'complete')
        return { found: true, states, exhausted: false };
      continue;
    }
    // The lanes furthest behind first (popped first, so pushed last): on structured layout,
    // running them until they catch up is maximal reconvergence (the lanes at a construct's end,
    // or past a loop, wait for those still inside), so the wanted run is usually the first one
    // tried; the rest of the search is for the others. Behind = in a deeper call (a function
    // later in the listing: the ballot programs call only later functions), then a lower PC.
    const order = succ
      .filter(
        (t) =>
          t.next !== null &&
          (t.next.memory === s.memory || logProgress(t.next.memory, want, lengths) !== 'diverged'),
      )
      .sort((a, b) => rank(b.issue.pc) - rank(a.issue.pc) || a.issue.mask - b.issue.mask);
    for (const t of order) stack.push(t.next!);
  }
  return { found: false, states, exhausted: true };
}
