import type { Machine, MachineState, Transition } from '../machine/machine.ts';
import { decisionsOf } from './decisions.ts';
import type { ExploreResult } from './exhaustive.ts';
import { verdictRank, type Finding, type Verdict } from './verdict.ts';

/**
 * Random exploration for what stays too big (issue 10, as TLC's simulation mode): `runs` random
 * schedules from the initial state, each step a uniform choice among the state's successors (so
 * every continuously enabled warp, path and lane is taken with probability 1: the runs are fair),
 * each run cut at `depth` steps. A run that ends in a stop (undefined behaviour, trap, violation,
 * …) or in a blocked state is a finding; its schedule is shrunk (chunks of choices removed while the
 * same outcome still shows, choices lowered) before it is reported. Livelocks are not looked for: a
 * run cut at the depth proves nothing. No finding is never `terminates`: the verdict is
 * `bound-reached` with the message `no finding in N runs`.
 *
 * Reproducible (DESIGN.md): the seed is printed and saved; the same seed gives the same runs.
 */
export interface RandomOptions {
  readonly runs: number;
  readonly seed: number;
  readonly depth: number;
  readonly timeoutMs: number;
}

/** mulberry32: a small, well-known 32-bit generator; the seed alone fixes every run. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Outcome = {
  verdict: Verdict;
  kind: 'blocked' | null;
  property: string | null;
  message: string;
};

const BLOCKED: Outcome = {
  verdict: 'deadlock',
  kind: 'blocked',
  property: null,
  message: 'nothing can issue while lanes have not exited',
};

/** The outcome of a step that ended the run. */
const stopped = (stop: NonNullable<Transition['stop']>): Outcome => ({
  verdict: stop.verdict,
  kind: null,
  property: stop.property ?? null,
  message: stop.message,
});

/** Runs `choices` (each taken modulo the number of successors); the outcome it ends in, if any. */
function outcomeOf(
  machine: Machine,
  choices: readonly number[],
): { outcome: Outcome | null; used: number[] } {
  let s: MachineState = machine.initial();
  const used: number[] = [];
  for (const c of choices) {
    const succ: Transition[] = machine.successors(s);
    if (succ.length === 0) break;
    const i = c % succ.length;
    used.push(i);
    const t = succ[i]!;
    if (t.stop) return { outcome: stopped(t.stop), used };
    s = t.next!;
  }
  if (machine.status(s) === 'blocked') return { outcome: BLOCKED, used };
  return { outcome: null, used };
}

const same = (a: Outcome, b: Outcome) =>
  a.verdict === b.verdict && a.kind === b.kind && a.property === b.property;

/** Greedy shrinking: drop chunks of choices, then lower each choice, while the outcome stays. */
function shrink(machine: Machine, schedule: number[], target: Outcome, deadline: number): number[] {
  let best = schedule;
  const still = (cand: readonly number[]): number[] | null => {
    const r = outcomeOf(machine, cand);
    return r.outcome && same(r.outcome, target) ? r.used : null;
  };
  for (let chunk = best.length >> 1; chunk >= 1 && performance.now() < deadline; chunk >>= 1) {
    for (let i = 0; i + chunk <= best.length && performance.now() < deadline;) {
      const ok = still([...best.slice(0, i), ...best.slice(i + chunk)]);
      if (ok && ok.length < best.length) best = ok;
      else i += chunk;
    }
  }
  for (let i = 0; i < best.length && performance.now() < deadline; i++)
    for (let c = 0; c < best[i]!; c++) {
      const ok = still([...best.slice(0, i), c, ...best.slice(i + 1)]);
      if (ok && ok.length <= best.length) {
        best = ok;
        break;
      }
    }
  return best;
}

export function exploreRandom(machine: Machine, o: RandomOptions): ExploreResult {
  const t0 = performance.now();
  const rand = generator(o.seed);
  const found = new Map<string, { outcome: Outcome; schedule: number[] }>();
  let runs = 0;
  let ended = 0;
  let cut = 0;
  let steps = 0;
  let maxDepth = 0;
  for (; runs < o.runs && performance.now() - t0 < o.timeoutMs; runs++) {
    let s = machine.initial();
    const schedule: number[] = [];
    let outcome: Outcome | null = null;
    for (let d = 0; ; d++) {
      const succ = machine.successors(s);
      if (succ.length === 0) {
        if (machine.status(s) === 'blocked') outcome = BLOCKED;
        else ended++;
        break;
      }
      if (d >= o.depth) {
        cut++;
        break;
      }
      const c = Math.floor(rand() * succ.length);
      schedule.push(c);
      steps++;
      const t = succ[c]!;
      if (t.stop) {
        outcome = stopped(t.stop);
        break;
      }
      s = t.next!;
    }
    maxDepth = Math.max(maxDepth, schedule.length);
    if (outcome && outcome.verdict !== 'bound-reached') {
      const id = `${outcome.verdict}:${outcome.kind ?? ''}:${outcome.property ?? ''}`;
      const prev = found.get(id);
      if (!prev || schedule.length < prev.schedule.length) found.set(id, { outcome, schedule });
    }
  }
  const deadline = performance.now() + Math.max(1000, o.timeoutMs / 10);
  const findings: Finding[] = [...found.values()]
    .map(({ outcome, schedule }) => {
      const shrunk = shrink(machine, schedule, outcome, deadline);
      const final = outcomeOf(machine, shrunk).outcome ?? outcome;
      const decisions = decisionsOf(machine, shrunk);
      return {
        verdict: outcome.verdict,
        kind: outcome.kind,
        property: outcome.property,
        message: final.message,
        schedule: shrunk,
        loop: null,
        possible: decisions.length > 0,
        ...(decisions.length > 0 ? { decisions } : {}),
      };
    })
    .sort((a, b) => verdictRank(a.verdict, a.kind) - verdictRank(b.verdict, b.kind));
  const best = findings[0];
  const message = best
    ? best.message
    : `no finding in ${runs} random run${runs === 1 ? '' : 's'} (seed ${o.seed}: ${ended} ended with every lane exited, ${cut} cut at depth ${o.depth}); random runs prove nothing about the others`;
  return {
    verdict: best?.verdict ?? 'bound-reached',
    kind: best?.kind ?? null,
    message,
    states: steps,
    transitions: steps,
    depth: maxDepth,
    timeMs: performance.now() - t0,
    bound: best ? null : 'random',
    laneSymmetry: machine.symmetric,
    findings,
    terminalStates: ended,
    notes: [
      `random exploration: ${runs} run${runs === 1 ? '' : 's'}, seed ${o.seed}, depth ${o.depth}; 'states' counts steps taken; livelocks are not looked for`,
    ],
  };
}
