import type { Machine, MachineState } from '../machine/machine.ts';
import { exactLasso, stopChoice, walkClasses, type InClass } from './concretize.ts';
import { decisionsOf } from './decisions.ts';
import type { Graph, Lasso } from './fairCycles.ts';
import type { GroupPriority } from './groupPriority.ts';
import type { FrozenLanes } from './frozenLanes.ts';
import type { Finding } from './verdict.ts';
import { SCENARIO_LIMITS } from '../scenario/limits.ts';

/** The first occurrence of an outcome: the state it shows at, and the ending step (a choice) if any. */
export interface FirstOccurrence {
  readonly f: Omit<Finding, 'schedule' | 'loop'>;
  readonly at: number;
  readonly last: number | null;
}

/** What the search leaves for the findings: its graph, parents and outcomes (`exhaustive.ts`). */
export interface SearchRecord {
  readonly machine: Machine;
  /** Edge e of state i is choice `e - edgeStart[i]` (placeholders keep it so under reduction). */
  readonly graph: Graph;
  /** States reached (expanded ones are `graph.expanded`). */
  readonly states: number;
  /** Per step: it rests on abstraction (an unknown outcome, a widened loop). */
  readonly stepAbstract: Uint8Array;
  /** Breadth-first parent of each state (-1 for the initial one) and the choice taken from it. */
  readonly parent: Int32Array;
  readonly parentChoice: Int32Array;
  /** Per outcome id (`verdict:kind:property`), its first occurrence. */
  readonly first: ReadonlyMap<string, FirstOccurrence>;
  /** Per outcome id, occurrences as (state, ending choice or -1) pairs, up to a cap. */
  readonly occurrences: ReadonlyMap<string, readonly number[]>;
  readonly inClass: InClass;
  /** Warp symmetry (`warpSymmetry.ts`): the concrete warp at each index of stored state `id`. */
  readonly matchWarps?: ((s: MachineState, id: number) => Int32Array | null) | null;
  /** Accelerated chains (`acceleration.ts`): steps past the first, per edge and per parent edge. */
  readonly chains: {
    readonly ofEdge: { get(edge: number): number | undefined };
    readonly ofState: { get(state: number): number | undefined };
    /** The search's group rules, which forced chains follow (`Chains.followForced`). */
    readonly groups: GroupPriority | null;
  } | null;
  /** Summaries of frozen lanes (`frozenLanes.ts`): the macro edge that first reached a state. */
  readonly frozen?: FrozenLanes | null;
}

/**
 * The findings of a finished search (stage 4 of `explore`, after expansion, the visited set and the
 * fair-cycle pass): each outcome's shortest schedule, walked again from the real initial state
 * (`concretize.ts`) — a concrete witness when one exists (issue 16, `possible` otherwise, with its
 * decisions) — and the lasso of the first fair cycle. `unreplayable` counts schedules that could
 * not be walked again.
 */
export function buildFindings(
  r: SearchRecord,
  cycles: { readonly count: number; readonly lasso: Lasso | null },
): { findings: Finding[]; unreplayable: number; longSchedules: number } {
  const { machine, graph, stepAbstract, parent, parentChoice, occurrences, inClass } = r;
  const { edgeStart, edgeTo, edgeStep, expanded } = graph;
  const findings = r.first;
  /** Choices from the initial state to state `i`. */
  const pathTo = (i: number): number[] => {
    const out: number[] = [];
    for (let s = i; s > 0; s = parent[s]!) out.push(parentChoice[s]!);
    return out.reverse();
  };
  /** State ids from the initial state to `i`. */
  const idsTo = (i: number): number[] => {
    const out: number[] = [];
    for (let s = i; s >= 0; s = parent[s]!) out.push(s);
    return out.reverse();
  };
  // Schedules from the real initial state (concretize.ts): every recorded path is walked again.
  const chains = r.chains;
  const frozen = r.frozen ?? null;
  const classPath = (ids: readonly number[]) => ({
    ids,
    hint: ids.slice(1).map((id) => parentChoice[id]!),
    ...(chains
      ? { extra: ids.slice(1).map((id) => chains.ofState.get(id) ?? 0), forced: chains.groups }
      : {}),
    // A state first reached by a macro edge: its summary's path is walked instead.
    ...(frozen
      ? {
          macro: ids.slice(1).map((id) => {
            const e = frozen.macroOf(id);
            return e === null
              ? null
              : (s: MachineState, target: number, inTarget: InClass) =>
                  frozen.walk(s, e, target, inTarget, chains?.groups ?? null);
          }),
        }
      : {}),
  });
  /** Steps of a path once its chains are expanded (a schedule's length). */
  const expandedLength = (p: { ids: readonly number[]; extra?: readonly number[] }): number =>
    p.ids.length - 1 + (p.extra ?? []).reduce((a, b) => a + b, 0);
  // Concrete reachability (issue 16, `decisions.ts`): states reached without any abstract step,
  // with their own shortest parents, so that a finding that has a concrete witness shows it.
  const nStates = r.states;
  const cParent = new Int32Array(nStates).fill(-2);
  const cChoice = new Int32Array(nStates);
  {
    const queue = new Int32Array(nStates);
    let qn = 0;
    cParent[0] = -1;
    queue[qn++] = 0;
    for (let qi = 0; qi < qn; qi++) {
      const st = queue[qi]!;
      if (st >= expanded) continue;
      for (let e = edgeStart[st]!; e < edgeStart[st + 1]!; e++) {
        const t = edgeTo[e]!;
        if (t < 0 || cParent[t] !== -2 || stepAbstract[edgeStep[e]!]) continue;
        cParent[t] = st;
        cChoice[t] = e - edgeStart[st]!;
        queue[qn++] = t;
      }
    }
  }
  const concreteIds = (i: number): number[] => {
    const ids: number[] = [];
    for (let st = i; st >= 0; st = cParent[st]!) ids.push(st);
    return ids.reverse();
  };
  /** The first occurrence reached and ended without abstraction, or null. */
  const concreteOccurrence = (id: string): { at: number; last: number | null } | null => {
    const occ = occurrences.get(id)!;
    for (let i = 0; i < occ.length; i += 2) {
      const at = occ[i]!;
      const last = occ[i + 1]!;
      if (cParent[at] === -2) continue;
      if (last >= 0 && stepAbstract[edgeStep[edgeStart[at]! + last]!]) continue;
      return { at, last: last >= 0 ? last : null };
    }
    return null;
  };
  const out: Finding[] = [];
  let unreplayable = 0;
  let longSchedules = 0;
  for (const [id, first] of findings) {
    const { f } = first;
    const concrete = concreteOccurrence(id);
    const { at, last } = concrete ?? first;
    const ids = concrete ? concreteIds(at) : idsTo(at);
    const path = concrete
      ? {
          ids,
          hint: ids.slice(1).map((x) => cChoice[x]!),
          ...(chains
            ? {
                extra: ids
                  .slice(1)
                  .map((x) => chains.ofEdge.get(edgeStart[cParent[x]!]! + cChoice[x]!) ?? 0),
                forced: chains.groups,
              }
            : {}),
        }
      : classPath(ids);
    // A schedule through chains longer than a scenario may hold is not walked (it could not be
    // saved, and walking it again costs as much as the chains did): its choices stay compressed.
    const tooLong = expandedLength(path) > SCENARIO_LIMITS.scheduleSteps;
    if (tooLong) longSchedules++;
    const walked = tooLong ? null : walkClasses(machine, machine.initial(), path, inClass);
    const stop =
      walked && last !== null
        ? stopChoice(machine, walked.state, last, f.verdict, f.property)
        : null;
    if (!walked || (last !== null && !stop)) {
      if (!tooLong) unreplayable++;
      const schedule = pathTo(at);
      if (last !== null) schedule.push(last);
      out.push({ ...f, schedule, loop: null });
      continue;
    }
    const message =
      stop?.transition.stop?.message ??
      (f.verdict === 'deadlock' ? blockedMessage(machine, walked.state) : f.message);
    const schedule = stop ? [...walked.schedule, stop.choice] : walked.schedule;
    // `terminates` is never possible: it holds of every run the abstraction allows (§13).
    const decisions = concrete || f.verdict === 'terminates' ? [] : decisionsOf(machine, schedule);
    out.push({
      ...f,
      message,
      schedule,
      loop: null,
      possible: decisions.length > 0,
      ...(decisions.length > 0 ? { decisions } : {}),
    });
  }
  if (cycles.count > 0 && cycles.lasso) {
    const entryIds = idsTo(cycles.lasso.entry);
    const cycleIds = [cycles.lasso.entry];
    const cycleExtra: number[] = [];
    for (const c of cycles.lasso.cycle) {
      const e = edgeStart[cycleIds.at(-1)!]! + c;
      cycleExtra.push(chains?.ofEdge.get(e) ?? 0);
      cycleIds.push(edgeTo[e]!);
    }
    const entryPath = classPath(entryIds);
    const cyclePath = {
      ids: cycleIds,
      hint: cycles.lasso.cycle,
      extra: cycleExtra,
      forced: chains?.groups ?? null,
      ...trackOf(graph, cycleIds, cycles.lasso.cycle),
    };
    const tooLong =
      expandedLength(entryPath) + expandedLength(cyclePath) > SCENARIO_LIMITS.scheduleSteps;
    if (tooLong) longSchedules++;
    const walked = tooLong ? null : walkClasses(machine, machine.initial(), entryPath, inClass);
    const lasso = walked
      ? exactLasso(
          machine,
          walked.state,
          cyclePath,
          inClass,
          64,
          r.matchWarps ? (s) => r.matchWarps!(s, cycles.lasso!.entry) : null,
        )
      : null;
    if (!lasso && !tooLong) unreplayable++;
    const prefix =
      lasso && walked ? [...walked.schedule, ...lasso.prefix] : pathTo(cycles.lasso.entry);
    const cycle = lasso ? lasso.cycle : cycles.lasso.cycle;
    // One turn of the stored cycle in steps, its accelerated chains expanded.
    const turn = expandedLength(cyclePath);
    const turns = lasso ? lasso.prefix.length / turn : 0;
    const cycleTurns = cycle.length / turn;
    const lead =
      (turns === 0
        ? 'the lasso is the shortest prefix to one'
        : `the lasso is the shortest prefix to one, then ${turns === 1 ? 'one turn' : `${turns} turns`} of the cycle, after which it returns to the very same state`) +
      (cycleTurns > 1
        ? `; the cycle is ${cycleTurns} turns of one that renumbers interchangeable lanes`
        : '');
    const decisions = decisionsOf(machine, [...prefix, ...cycle]);
    out.push({
      possible: decisions.length > 0,
      ...(decisions.length > 0 ? { decisions } : {}),
      verdict: 'deadlock',
      kind: 'livelock',
      property: null,
      message: `a fair cycle of ${turn} steps never ends (${cycles.count} fair cycle component${cycles.count > 1 ? 's' : ''}; ${lead})`,
      schedule: [...prefix, ...cycle],
      loop: prefix.length,
    });
  }
  return { findings: out, unreplayable, longSchedules };
}

/** Under warp symmetry: the issuing warp index and σ of each step of a cycle (`ClassPath`). */
function trackOf(
  g: Graph,
  ids: readonly number[],
  choices: readonly number[],
): { warps?: number[]; perms?: number[] } {
  if (!g.edgePerm) return {};
  const edges = choices.map((c, i) => g.edgeStart[ids[i]!]! + c);
  return {
    warps: edges.map((e) => g.stepWarp[g.edgeStep[e]!]!),
    perms: edges.map((e) => g.edgePerm![e]!),
  };
}

/** The message of a blocked state: which lanes of which warps have not exited. */
export function blockedMessage(machine: Machine, s: MachineState): string {
  const live = machine.live(s);
  const parts = live.flatMap((m, w) => (m ? [`warp ${w} lanes ${machine.fmt.mask(m)}`] : []));
  return `nothing can issue while ${parts.join(', ')} have not exited`;
}
