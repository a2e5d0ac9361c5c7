/**
 * Whether a machine can produce a given per-lane ballot log: a search over its schedules that
 * prunes every state in which some lane's log so far is not a prefix of the wanted one (the
 * logs only grow), so the reference `its` — whose schedules are many — is searched in the few
 * states that stay on the wanted log. Used by the reconvergence cases and by law P9 on `its`.
 */
import type { Machine, MachineState } from '../../model/machine/machine.ts';
import { ballotLogs, type LaneLog } from './ballotLog.ts';

export interface ReachResult {
  /** A terminated state with exactly `want` in memory was found. */
  readonly found: boolean;
  /** States visited; `limit` reached means the answer `found: false` proves nothing. */
  readonly states: number;
  readonly exhausted: boolean;
}

const isPrefix = (have: LaneLog, want: LaneLog): boolean =>
  have.length <= want.length && have.every((v, i) => v === want[i]);

/** Searches the schedules of `m` for a terminated run whose logs equal `want`. */
export function reachesLog(m: Machine, want: readonly LaneLog[], limit = 200_000): ReachResult {
  const threads = want.length;
  const seen = new Set<string>();
  const stack: MachineState[] = [m.initial()];
  let states = 0;
  while (stack.length > 0) {
    const s = stack.pop()!;
    const k = m.key(s);
    if (seen.has(k)) continue;
    seen.add(k);
    if (++states > limit) return { found: false, states, exhausted: false };
    const logs = ballotLogs(s.memory, threads);
    if (!logs.every((l, i) => isPrefix(l, want[i]!))) continue;
    const succ = m.successors(s);
    if (succ.length === 0) {
      if (m.status(s) === 'terminated' && logs.every((l, i) => l.length === want[i]!.length))
        return { found: true, states, exhausted: false };
      continue;
    }
    for (const t of succ) if (t.next) stack.push(t.next);
  }
  return { found: false, states, exhausted: true };
}
