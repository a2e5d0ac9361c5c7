import type { Machine, MachineState } from '../machine/machine.ts';
import { int32, uint16, uint32, uint8 } from './growable.ts';
import { findFairCycles, type Graph } from './fairCycles.ts';
import { verdictRank, type Finding, type Verdict, type DeadlockKind } from './verdict.ts';

/** Every search has a budget (DESIGN.md) and says which one it hit. */
export interface Budget {
  readonly maxStates: number;
  readonly maxDepth: number;
  readonly timeoutMs: number;
}

export const defaultBudget: Budget = { maxStates: 2_000_000, maxDepth: 100_000, timeoutMs: 60_000 };

export interface Progress {
  readonly states: number;
  readonly transitions: number;
  readonly depth: number;
  readonly elapsedMs: number;
}

export interface ExploreResult {
  readonly verdict: Verdict;
  readonly kind: DeadlockKind | null;
  readonly message: string;
  /** Distinct states reached (including ones left unexpanded at a bound). */
  readonly states: number;
  readonly transitions: number;
  /** Deepest BFS level reached. */
  readonly depth: number;
  readonly timeMs: number;
  /** The budget that ran out, if any. */
  readonly bound: 'states' | 'depth' | 'time' | null;
  /** The first (shortest) finding of every distinct outcome, best-ranked first. */
  readonly findings: readonly Finding[];
  /** Terminal states in which every lane exited. */
  readonly terminalStates: number;
  readonly notes: readonly string[];
}

/**
 * Breadth-first exhaustive search of every interleaving (SEMANTICS §6). States are hashed by their
 * exact canonical key, so counterexamples are shortest. A state whose step ends the run (undefined
 * behaviour, trap, violation, unsupported) is a finding; a state where nothing can issue while a
 * lane lives is a blocked deadlock; after the search, strongly connected components of the graph
 * are checked for fair cycles — livelocks (`fairCycles.ts`).
 *
 * Each expanded state's successors are recorded in full, even when that overshoots `maxStates`,
 * so that a cycle found among expanded states has all its exits known.
 */
export function explore(
  machine: Machine,
  budget: Budget = defaultBudget,
  onProgress?: (p: Progress) => void,
): ExploreResult {
  const t0 = performance.now();
  const K = machine.launch.warps;
  const laneFair = machine.mechanism.laneFairness;
  const ids = new Map<string, number>();
  const states: (MachineState | null)[] = [];
  const parent = int32();
  const parentChoice = int32();
  const depthOf = int32();
  const edgeStart = int32();
  const edgeTo = int32();
  const edgeWarp = uint8();
  const edgeMask = uint32();
  const edgeGroup = uint16();
  const edgeUnknown = uint8();
  const edgeChoice = uint16();
  const enabledWarps = uint8();
  const readyLanes = uint32();
  const findings = new Map<string, Finding>();
  let transitions = 0;
  let terminalStates = 0;
  let bound: ExploreResult['bound'] = null;
  let maxDepthSeen = 0;
  let sawUnknownChoice = false;

  const pathTo = (i: number): number[] => {
    const out: number[] = [];
    for (let s = i; s > 0; s = parent.get(s)) out.push(parentChoice.get(s));
    return out.reverse();
  };
  const record = (f: Omit<Finding, 'schedule' | 'loop'>, at: number, last: number | null) => {
    const id = `${f.verdict}:${f.kind ?? ''}:${f.property ?? ''}`;
    if (findings.has(id)) return;
    const schedule = pathTo(at);
    if (last !== null) schedule.push(last);
    findings.set(id, { ...f, schedule, loop: null });
  };
  const add = (s: MachineState, from: number, choice: number, depth: number): number => {
    const key = machine.key(s);
    const known = ids.get(key);
    if (known !== undefined) return known;
    const id = states.length;
    ids.set(key, id);
    states.push(s);
    parent.push(from);
    parentChoice.push(choice);
    depthOf.push(depth);
    if (depth > maxDepthSeen) maxDepthSeen = depth;
    return id;
  };

  add(machine.initial(), -1, -1, 0);
  let head = 0;
  for (; head < states.length; head++) {
    if ((head & 255) === 0) {
      const elapsed = performance.now() - t0;
      if (elapsed > budget.timeoutMs) {
        bound = 'time';
        break;
      }
      if (onProgress && (head & 0x3fff) === 0)
        onProgress({ states: states.length, transitions, depth: maxDepthSeen, elapsedMs: elapsed });
    }
    if (states.length >= budget.maxStates) {
      bound = 'states';
      break;
    }
    const s = states[head]!;
    states[head] = null; // expanded states are no longer needed: replay rebuilds them from schedules
    edgeStart.push(edgeTo.length);
    const d = depthOf.get(head);
    const status = machine.status(s);
    let en = 0;
    for (let w = 0; w < K; w++) {
      const ws = s.warps[w]!;
      if (machine.mechanism.candidates(ws.mech).length > 0) en |= 1 << w;
      if (laneFair) readyLanes.push(machine.mechanism.ready(ws.mech));
    }
    enabledWarps.push(en);
    if (status === 'terminated') {
      terminalStates++;
      record(
        { verdict: 'terminates', kind: null, property: null, message: 'every lane exited' },
        head,
        null,
      );
      continue;
    }
    if (status === 'blocked') {
      record(
        {
          verdict: 'deadlock',
          kind: 'blocked',
          property: null,
          message: blockedMessage(machine, s),
        },
        head,
        null,
      );
      continue;
    }
    if (d >= budget.maxDepth) {
      bound = 'depth';
      continue;
    }
    const succ = machine.successors(s);
    for (let c = 0; c < succ.length; c++) {
      const t = succ[c]!;
      transitions++;
      let to = -1;
      if (t.stop) {
        record(
          {
            verdict: t.stop.verdict,
            kind: null,
            property: t.stop.property ?? null,
            message: t.stop.message,
          },
          head,
          c,
        );
      } else {
        to = add(t.next!, head, c, d + 1);
      }
      if (t.unknownChoice) sawUnknownChoice = true;
      edgeTo.push(to);
      edgeWarp.push(t.warp);
      edgeMask.push(t.issue.mask);
      edgeGroup.push(t.group);
      edgeUnknown.push(t.unknownChoice ? 1 : 0);
      edgeChoice.push(c);
    }
  }
  const expanded = edgeStart.length;
  edgeStart.push(edgeTo.length);

  const notes: string[] = [];
  const graph: Graph = {
    expanded,
    warps: K,
    edgeStart: edgeStart.view(),
    edgeTo: edgeTo.view(),
    edgeWarp: edgeWarp.view(),
    edgeMask: edgeMask.view(),
    edgeGroup: edgeGroup.view(),
    edgeUnknown: edgeUnknown.view(),
    edgeChoice: edgeChoice.view(),
    enabledWarps: enabledWarps.view(),
    readyLanes: laneFair ? readyLanes.view() : null,
  };
  const cycles = findFairCycles(graph);
  if (cycles.count > 0 && cycles.lasso) {
    const prefix = pathTo(cycles.lasso.entry);
    findings.set('deadlock:livelock:', {
      verdict: 'deadlock',
      kind: 'livelock',
      property: null,
      message: `a fair cycle of ${cycles.lasso.cycle.length} steps never ends (${cycles.count} fair cycle component${cycles.count > 1 ? 's' : ''}; the lasso is the shortest prefix to one)`,
      schedule: [...prefix, ...cycles.lasso.cycle],
      loop: prefix.length,
    });
  }
  if (sawUnknownChoice)
    notes.push(
      'branches on unknown values were explored both ways and assumed fair (SEMANTICS §5): a cycle that only some resolutions of them keep going is not reported, so livelocks on opaque code are under-approximated',
    );
  if (bound === null && head < states.length) bound = 'states';

  const sorted = [...findings.values()].sort(
    (a, b) => verdictRank(a.verdict, a.kind) - verdictRank(b.verdict, b.kind),
  );
  const best = sorted[0];
  let verdict: Verdict = best?.verdict ?? 'bound-reached';
  let kind = best?.kind ?? null;
  let message = best?.message ?? 'nothing reached';
  // A bound that ran out before anything worse was found is never reported as `terminates`.
  if (bound !== null && verdictRank(verdict, kind) >= verdictRank('bound-reached')) {
    verdict = 'bound-reached';
    kind = null;
    message = `${bound} budget ran out (${bound === 'states' ? `${budget.maxStates} states` : bound === 'depth' ? `depth ${budget.maxDepth}` : `${budget.timeoutMs} ms`}) before the search finished`;
  }
  return {
    verdict,
    kind,
    message,
    states: states.length,
    transitions,
    depth: maxDepthSeen,
    timeMs: performance.now() - t0,
    bound,
    findings: sorted,
    terminalStates,
    notes,
  };
}

function blockedMessage(machine: Machine, s: MachineState): string {
  const live = machine.live(s);
  const parts = live.flatMap((m, w) => (m ? [`warp ${w} lanes ${machine.fmt.mask(m)}`] : []));
  return `nothing can issue while ${parts.join(', ')} have not exited`;
}
