import type { Core, CoreState } from './core.ts';

/**
 * Exhaustive search over the issue core's scheduler choices (issue 6 item 1): instead of following
 * a scheduler and the fair choice among paths, every cycle branches over every (warp, candidate)
 * that could issue (`Core.options`); a cycle in which nothing can issue waits for the next
 * write-back. Latencies and scoreboard are fixed by the core's configuration.
 *
 * States are compared without absolute time: the machine state plus every pending write's
 * remaining latency, so a schedule that returns to the same situation is a cycle. Verdicts:
 * `terminates` (every schedule ends with every lane exited), `blocked` (some schedule reaches a
 * state where no warp has a candidate), `stop` (some schedule ends in a machine verdict such as a
 * violation or a war-hazard), `cycle` (some schedule repeats forever — with arbitrary, unfair
 * choices a spinning path can starve the one it waits for, so this is not by itself a deadlock of
 * the hardware), `bound-reached` (a budget ran out first: never reported as `terminates`).
 * Depth-first with the states on the current path marked, so the first cycle found is reported
 * with the choices that reach it.
 */
export type CoreSearchVerdict = 'terminates' | 'blocked' | 'stop' | 'cycle' | 'bound-reached';

export interface CoreSearchResult {
  readonly verdict: CoreSearchVerdict;
  readonly states: number;
  /** For every verdict but `terminates`: the choices (index into `options`, -1 = wait) to it. */
  readonly choices: readonly number[];
  readonly message: string;
  readonly bound: 'states' | 'depth' | 'time' | null;
}

export interface CoreSearchBudget {
  readonly maxStates: number;
  readonly maxDepth: number;
  readonly timeoutMs: number;
}

/** The key of a core state without absolute time (dual boards and collectors are not keyed). */
function keyOf(core: Core, s: CoreState): string {
  const parts = [core.machine.key(s.machine)];
  for (const b of s.boards) {
    const live = b
      .filter((p) => p.ready > s.cycle)
      .map((p) => `${p.key}:${p.mask}:${p.ready - s.cycle}`)
      .sort();
    parts.push(live.join(','));
  }
  return parts.join('|');
}

export function exploreCore(core: Core, budget: CoreSearchBudget): CoreSearchResult {
  if (core.config.scoreboard === 'dual' || (core.config.collector ?? 'none') !== 'none')
    return {
      verdict: 'bound-reached',
      states: 0,
      choices: [],
      message: 'the search keys warp and lane-mask scoreboards without an operand collector only',
      bound: null,
    };
  const t0 = performance.now();
  // 1 = on the current path, 2 = every schedule from it terminates.
  const mark = new Map<string, 1 | 2>();
  interface Frame {
    readonly state: CoreState;
    readonly key: string;
    readonly next: (CoreState | null)[];
    readonly labels: number[];
    i: number;
  }
  const path: Frame[] = [];
  const choices: number[] = [];
  const end = (
    verdict: CoreSearchVerdict,
    message: string,
    bound: CoreSearchResult['bound'] = null,
  ): CoreSearchResult => ({ verdict, states: mark.size, choices: [...choices], message, bound });

  /** Expands a state: its successors (one per option, or one wait), or an end of the search. */
  const enter = (s: CoreState): CoreSearchResult | 'leaf' | Frame => {
    const key = keyOf(core, s);
    const seen = mark.get(key);
    if (seen === 2) return 'leaf';
    if (seen === 1)
      return end('cycle', `a schedule returns to the same state after ${path.length} cycles`);
    const status = core.machine.status(s.machine);
    if (status === 'terminated') {
      mark.set(key, 2);
      return 'leaf';
    }
    if (status === 'blocked')
      return end('blocked', 'no warp has a candidate while lanes have not exited');
    const opts = core.options(s);
    const next: (CoreState | null)[] = [];
    const labels: number[] = [];
    const forced = opts.length > 0 ? opts : [null];
    for (let i = 0; i < forced.length; i++) {
      const r = core.stepCycle(s, forced[i] ?? undefined);
      if (r.kind === 'stop') {
        choices.push(forced[i] ? i : -1);
        return end('stop', `${r.stop.verdict}: ${r.stop.message}`);
      }
      if (r.kind === 'blocked') return end('blocked', 'no warp has a candidate');
      next.push(r.kind === 'terminated' ? null : r.state);
      labels.push(forced[i] ? i : -1);
    }
    mark.set(key, 1);
    return { state: s, key, next, labels, i: 0 };
  };

  const first = enter(core.initial());
  if (first === 'leaf') return end('terminates', 'every schedule ends with every lane exited');
  if (!('next' in first)) return first;
  path.push(first);
  while (path.length > 0) {
    if (mark.size >= budget.maxStates) return end('bound-reached', `${mark.size} states`, 'states');
    if ((mark.size & 255) === 0 && performance.now() - t0 > budget.timeoutMs)
      return end('bound-reached', 'time budget', 'time');
    const top = path[path.length - 1]!;
    if (top.i >= top.next.length) {
      mark.set(top.key, 2);
      path.pop();
      choices.pop();
      continue;
    }
    const i = top.i++;
    const s = top.next[i];
    if (s === null) continue; // that choice ended the run: every lane exited
    if (path.length >= budget.maxDepth)
      return end('bound-reached', `depth ${path.length}`, 'depth');
    choices.push(top.labels[i]!);
    const f = enter(s);
    if (f === 'leaf') {
      choices.pop();
      continue;
    }
    if (!('next' in f)) return f;
    path.push(f);
  }
  return end('terminates', 'every schedule ends with every lane exited');
}
