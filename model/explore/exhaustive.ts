import type { Memory } from '../lanes/memory.ts';
import type { Machine, Transition, WarpState } from '../machine/machine.ts';
import { int32, uint32, uint8 } from './growable.ts';
import { CHAIN_ORIGIN, FORCED_ORIGIN, STEP_ORIGIN, VisitedStates } from './visited.ts';
import { LocalSteps } from './localSteps.ts';
import { findFairCycles, type Graph } from './fairCycles.ts';
import { buildFindings, blockedMessage, type FirstOccurrence } from './findings.ts';
import type { Finding } from './verdict.ts';
import { partialOrder } from './partialOrder.ts';
import { aloneGroups } from './aloneGroups.ts';
import { bsyncPriority } from './bsyncPriority.ts';
import { eitherGroup, groupPriority } from './groupPriority.ts';
import { WarpSymmetry } from './warpSymmetry.ts';
import { ACCEL_PER_STATE, Chains, CHAIN_CAP } from './acceleration.ts';
import { LaneChains } from './laneChains.ts';
import { headline, searchNotes } from './searchSummary.ts';
import { findingReplays } from './findingReplays.ts';
import { SCENARIO_LIMITS } from '../scenario/limits.ts';
import { AmpleChoice } from './ampleChoice.ts';
import { memoryOver } from './memoryBudget.ts';
import {
  defaultBudget,
  defaultReductions,
  type Budget,
  type ExploreOptions,
  type ExploreResult,
  type Progress,
  type Reductions,
} from './exploreTypes.ts';

// What a search takes and gives lives in `exploreTypes.ts`; its callers import it from here.
export { defaultBudget, defaultReductions };
export type { Budget, ExploreOptions, ExploreResult, Progress, Reductions };

/**
 * Breadth-first exhaustive search of every interleaving (SEMANTICS §6). States are identified by
 * their exact canonical key (with the dead-value reduction: exact on every value that can still be
 * read), so counterexamples are shortest. A state whose step ends the run (undefined
 * behaviour, trap, violation, unsupported) is a finding; a state where nothing can issue while a
 * lane lives is a blocked deadlock; after the search, strongly connected components of the graph
 * are checked for fair cycles — livelocks (`fairCycles.ts`).
 *
 * Each expanded state's successors are recorded in full (or, under partial-order reduction, its
 * ample set with a placeholder per step left out), even when that overshoots `maxStates`, so that
 * a cycle found among expanded states has all its exits known.
 *
 * Stages, each its own module:
 * 1. expansion — each warp's steps, cached per (warp, warp state, memory) (`localSteps.ts`), with
 *    each warp's ample candidates (`partialOrder.ts`, `groupPriority.ts`); the choice among them
 *    and the cycle proviso (`ampleChoice.ts`); accelerated chains (`acceleration.ts`);
 * 2. the visited set — interned warp and memory ids, state tuples, parents (`visited.ts`); a step
 *    re-keys only what it changed (one warp; memory only when written), and unexpanded states are
 *    rebuilt from representatives when expanded;
 * 3. the fair-cycle pass over the recorded graph (`fairCycles.ts`);
 * 4. finding construction — schedules from the real initial state, concrete witnesses, the lasso
 *    (`findings.ts`);
 * then the notes and the verdict (the best-ranked finding, or the budget that ran out;
 * `searchSummary.ts`).
 */
export function explore(
  machine: Machine,
  budget: Budget = defaultBudget,
  onProgress?: (p: Progress) => void,
  options: ExploreOptions = {},
): ExploreResult {
  const t0 = performance.now();
  const K = machine.launch.warps;
  // Under lane symmetry lane numbers do not persist along edges: fairness per place, the PC or the
  // split the mechanism names (`Mechanism.fairPlaces`, fairCycles.ts).
  // The block machine names its places itself (`Machine.placeFairness`).
  const placeFair =
    machine.mechanism.laneFairness && (machine.symmetric || machine.placeFairness === true);
  const laneFair = machine.mechanism.laneFairness && !placeFair;
  const reduce: Reductions = { ...defaultReductions, ...options.reduce };
  const reduced = reduce.deadValues && machine.canReduce;
  const por =
    reduce.partialOrder && (K > 1 || machine.mechanism.threadIssues === true)
      ? partialOrder(machine, options.plantUnsoundPor)
      : null;
  const exitFirst = reduce.exitPriority ? groupPriority(machine, options.plantUnsoundGroups) : null;
  const alone = reduce.aloneGroups ? aloneGroups(machine, options.plantUnsoundAlone ?? null) : null;
  const bsyncFirst = reduce.bsyncPriority
    ? bsyncPriority(machine, options.plantUnsoundBsync ?? null)
    : null;
  const groups = eitherGroup(eitherGroup(exitFirst, bsyncFirst), alone);
  const visited = new VisitedStates(machine, reduced);
  const { tuple, depthOf } = visited;
  const sym =
    reduce.warpSymmetry && K > 1 && machine.warpPinned
      ? new WarpSymmetry(machine, visited, options.plantUnsoundWarpSymmetry ?? null)
      : null;
  /** Per edge under warp symmetry: σ from the computed successor to its canonical form. */
  const edgePerm = sym ? int32() : null;
  const identity = sym ? sym.identity : 0;
  const parentTuple = new Int32Array(K + 1);
  const edgeStart = int32();
  const edgeTo = int32();
  const edgeStep = int32();
  const enabledWarps = uint8();
  const readyLanes = uint32();
  /** The first occurrence of each outcome: the state it shows at, and the ending step if any. */
  const findings = new Map<string, FirstOccurrence>();
  let transitions = 0;
  let terminalStates = 0;
  let bound: ExploreResult['bound'] = null;
  /** What ran out when `bound` is 'memory' (`memoryBudget.ts`). */
  let memoryBound: string | null = null;
  let sawUnknownChoice = false;
  /** The first branching-budget message (too many outcomes of unknown branches), if any. */
  let branching: string | null = null;

  /** Occurrences of each outcome (state, ending step), up to a cap: for a concrete witness. */
  const occurrences = new Map<string, number[]>();
  const record = (f: Omit<Finding, 'schedule' | 'loop'>, at: number, last: number | null) => {
    const id = `${f.verdict}:${f.kind ?? ''}:${f.property ?? ''}`;
    if (!findings.has(id)) {
      findings.set(id, { f, at, last });
      occurrences.set(id, []);
    }
    const occ = occurrences.get(id)!;
    if (occ.length < 200_000) occ.push(at, last ?? -1);
  };
  const warpId = (ws: WarpState): number => visited.warpId(ws);
  const memId = (m: Memory): number => visited.memId(m);
  /** σ of the last `add` (warp symmetry puts `tuple` in canonical order first). */
  let lastPerm = identity;
  const add = (from: number, choice: number, depth: number, steps: number): number => {
    if (sym) lastPerm = sym.canon(tuple);
    return visited.add(from, choice, depth, steps);
  };

  // Local expansions, cached per (warp index, warp id, memory id) (`localSteps.ts`).
  const accelPlant = options.plantUnsoundAccel ?? null;
  const cache = new LocalSteps(
    machine,
    visited,
    por,
    placeFair,
    groups,
    reduce.accelerate ? { plant: accelPlant } : null,
  );
  // The reductions that rest on the reachability analysis (`offGraph.ts`); a step that leaves
  // its graph sends the search again without them (below).
  const graphBound =
    machine.symmetric ||
    reduced ||
    alone !== null ||
    bsyncFirst !== null ||
    (reduce.warpSymmetry && K > 1 && machine.warpPinned !== null);
  cache.checkGraph = graphBound && machine.mayReach !== null;
  // Summaries of chains by their running lanes (`laneChains.ts`).
  const summaries =
    reduce.accelerate && reduce.chainSummaries && LaneChains.applies(machine)
      ? new LaneChains(machine, reduced, options.plantUnsoundSummaries ?? null)
      : null;
  const chains = reduce.accelerate
    ? new Chains(
        {
          machine,
          visited,
          cache,
          placeFair,
          reduced,
          groups,
          summaries,
          verifySummaries: options.verifySummaries === true,
        },
        t0 + budget.timeoutMs,
        accelPlant,
        Math.min(CHAIN_CAP, budget.maxStates),
        ACCEL_PER_STATE * budget.maxStates,
      )
    : null;
  // Objects of interned warps are dropped where the search no longer expects them and computed
  // again from their origins (`VisitedStates`); not under a planted bug of the chains or the
  // summaries, whose walks the origins would not repeat.
  if (accelPlant === null && !options.plantUnsoundSummaries)
    visited.origins = {
      from: (kind, a) =>
        kind === STEP_ORIGIN
          ? cache.localKey(cache.localOf(a), 1)
          : chains!.originStart(kind === FORCED_ORIGIN, a),
      follow: (kind, a, b, from) =>
        kind === STEP_ORIGIN
          ? cache.successor(a, from)
          : kind === CHAIN_ORIGIN
            ? chains!.rewalk(a, b, from)
            : chains!.reforce(a, b, from),
    };
  visited.stress = options.stressOrigins === true;
  visited.plantChainOneMore = options.plantUnsoundOrigins === 'chain-one-more';
  /**
   * Chains may follow any expanded step, not only a state's one step: the successor is then an
   * intermediate state only if its warp's one chainable step is what the search would expand
   * there alone — under partial-order reduction (a local step is a valid one-step ample set) or
   * with one warp (docs/semantics.md §14.2).
   */
  const chainAfterAny = por !== null || K === 1;
  /** Per ample step: steps accelerated past it. */
  const ampleExtra: number[] = [];
  const { localInfo, localReady, localStart, localAcyclic } = cache;
  const proviso = por ? por.proviso : true;
  const { stepMem, stepOf, stepMask, stepGroup, stepUnknown, stepAbstract } = cache;
  const { stepStop, stepPlace, stops, localPlaceStart, localPlaces } = cache;
  const stateLocal = int32();
  const localOf = (k: number, wid: number, mid: number): number => cache.of(k, wid, mid);
  const locals = new Int32Array(K);
  const ampleTo: number[] = [];
  const choice = new AmpleChoice(
    cache,
    visited,
    sym,
    K,
    proviso,
    options.plantUnsoundPor === 'any-expanded-target',
  );
  const amplePerm: number[] = [];

  const init = machine.initial();
  for (let k = 0; k < K; k++) tuple[k] = warpId(init.warps[k]!);
  tuple[K] = memId(init.memory);
  add(-1, -1, 0, 0);
  let head = 0;
  for (; head < visited.size; head++) {
    if ((head & 255) === 0) {
      const elapsed = performance.now() - t0;
      if (elapsed > budget.timeoutMs) {
        bound = 'time';
        break;
      }
      if (budget.maxMemoryMb !== undefined && (head & 0x3ff) === 0) {
        memoryBound = memoryOver(budget.maxMemoryMb);
        if (memoryBound !== null) {
          bound = 'memory';
          break;
        }
      }
      if (onProgress && (head & 0x3fff) === 0)
        onProgress({
          states: visited.size,
          transitions,
          depth: visited.maxDepth,
          elapsedMs: elapsed,
        });
    }
    // A chain stopped at the time budget: stop here, not 255 states (and chains) later.
    if (chains?.timedOut) {
      bound = 'time';
      break;
    }
    if (visited.size >= budget.maxStates) {
      bound = 'states';
      break;
    }
    edgeStart.push(edgeTo.length);
    choice.begin();
    const d = depthOf.get(head);
    const mid = visited.at(head, K);
    let en = 0;
    let live = false;
    let nSteps = 0;
    for (let k = 0; k < K; k++) {
      const loc = localOf(k, visited.at(head, k), mid);
      locals[k] = loc;
      nSteps += localStart.get(loc + 1) - localStart.get(loc);
      const info = localInfo.get(loc);
      if (info & 1) en |= 1 << k;
      if (info & 2) live = true;
      if (laneFair) readyLanes.push(localReady.get(loc));
      if (placeFair) stateLocal.push(loc);
    }
    if (cache.orderDependent || cache.porAbstract || cache.offGraph) break;
    enabledWarps.push(en);
    if (!live) {
      terminalStates++;
      record(
        { verdict: 'terminates', kind: null, property: null, message: 'every lane exited' },
        head,
        null,
      );
      continue;
    }
    if (en === 0) {
      record(
        {
          verdict: 'deadlock',
          kind: 'blocked',
          property: null,
          message: blockedMessage(machine, visited.rebuild(head)),
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
    visited.copy(head, parentTuple);
    const headSteps = visited.stepsOf.get(head);
    // Partial-order reduction: the ample warp's successors first, then the cycle proviso.
    // The ample set is steps ampleFrom .. ampleEnd - 1 (step indices) of warp `ample`.
    let ample = -1;
    let ampleFrom = 0;
    let ampleEnd = 0;
    let full = true;
    if (por || groups) {
      // The ample set (`ampleChoice.ts`): candidates smallest first, the cycle proviso.
      if (choice.choose(locals, head, parentTuple, tuple)) {
        ample = choice.warp;
        ampleFrom = choice.from;
        ampleEnd = choice.end;
        const before = choice.before;
        // An EXIT-priority step exits lanes: no cycle passes it (groupPriority.ts). A warp whose
        // ample set is an exit has no further candidates, so its candidate is that exit.
        const acyclic = localAcyclic.get(locals[ample]!) === 1;
        // Forced chains (acceleration.ts) start after a lone group's step, or after any step
        // with one warp (the successor's reduced expansion is then the search's own choice).
        const forcedAfter = K === 1 || cache.localAlone.get(locals[ample]!) === 1;
        full = false;
        ampleTo.length = 0;
        amplePerm.length = 0;
        ampleExtra.length = 0;
        for (let e = ampleFrom; e < ampleEnd; e++) {
          for (let j = 0; j <= K; j++) tuple[j] = parentTuple[j]!;
          tuple[ample] = cache.warpOf(e);
          tuple[K] = stepMem.get(e);
          // An accelerated chain may follow the step (acceleration.ts): after any ample step when
          // `chainAfterAny`, else only after a one-step ample set's step; a forced chain may go
          // on from where it ends (or from the successor itself).
          const extra = chains
            ? (chainAfterAny || ampleEnd - ampleFrom === 1
                ? chains.follow(ample, e, locals[ample]!, tuple, chainAfterAny)
                : 0) + (forcedAfter ? chains.followForced(ample, tuple) : 0)
            : 0;
          const size = visited.size;
          const to = add(head, before + (e - ampleFrom), d + 1, headSteps + 1 + extra);
          ampleTo.push(to);
          amplePerm.push(lastPerm);
          ampleExtra.push(extra);
          // States are recorded in the order they are added (the full expansion below may add
          // states of earlier warps or steps before this edge is recorded).
          if (extra > 0 && to >= size) chains!.recordState(to, extra);
          // C3 (Bošnački et al.): an edge back to a level ≤ d may close a cycle.
          if (proviso && !acyclic && to < size && choice.breaksCycle(to, head)) full = true;
        }
      }
    }
    if (full || ampleEnd - ampleFrom === nSteps) choice.markFull(head);
    let c = 0;
    for (let k = 0; k < K; k++) {
      const loc = locals[k]!;
      for (let e = localStart.get(loc), end = localStart.get(loc + 1); e < end; e++, c++) {
        const inAmple = k === ample && e >= ampleFrom && e < ampleEnd;
        if (!inAmple && !full) {
          // Left out by the reduction: a placeholder keeps edge indices equal to choices.
          edgeTo.push(NOT_EXPANDED);
          edgeStep.push(e);
          edgePerm?.push(identity);
          continue;
        }
        transitions++;
        let to = -1;
        let perm = identity;
        const stop = stepStop.get(e);
        if (inAmple) {
          to = ampleTo[e - ampleFrom]!;
          perm = amplePerm[e - ampleFrom]!;
          if (chains && ampleExtra[e - ampleFrom]! > 0)
            chains.record(edgeTo.length, to, false, ampleExtra[e - ampleFrom]!);
        } else if (stop >= 0) {
          const st = stops[stop]!;
          if (st.verdict === 'bound-reached') branching ??= st.message;
          else
            record(
              {
                verdict: st.verdict,
                kind: null,
                property: st.property ?? null,
                message: st.message,
              },
              head,
              c,
            );
        } else {
          for (let j = 0; j <= K; j++) tuple[j] = parentTuple[j]!;
          tuple[k] = cache.warpOf(e);
          tuple[K] = stepMem.get(e);
          // An accelerated chain may follow the step (acceleration.ts): the state's only step, or,
          // when `chainAfterAny`, any step whose successor is intermediate; with one warp, a
          // forced chain may go on from where it ends (or from the successor itself).
          const extra = chains
            ? (nSteps === 1 || chainAfterAny ? chains.follow(k, e, loc, tuple, chainAfterAny) : 0) +
              (K === 1 ? chains.followForced(k, tuple) : 0)
            : 0;
          const size = visited.size;
          to = add(head, c, d + 1, headSteps + 1 + extra);
          perm = lastPerm;
          if (extra > 0) chains!.record(edgeTo.length, to, to >= size, extra);
        }
        if (stepUnknown.get(e)) sawUnknownChoice = true;
        edgeTo.push(to);
        edgeStep.push(e);
        edgePerm?.push(perm);
      }
    }
    // One warp: the state is expanded once, so its objects can go (`VisitedStates`: computed
    // again from their origin if another memory ever asks for this warp's steps).
    if (K === 1) {
      visited.dropWarp(parentTuple[0]!);
      cache.dropLazy(locals[0]!);
    }
  }
  /**
   * The search again on `m` with what is left of the time budget, its notes after `why`: for what
   * a reduction cannot decide (below and after the fair-cycle pass).
   */
  const redo = (m: Machine, opts: ExploreOptions, why: string): ExploreResult => {
    const rest: Budget = {
      ...budget,
      timeoutMs: Math.max(0, budget.timeoutMs - (performance.now() - t0)),
    };
    const again = explore(m, rest, onProgress, opts);
    return { ...again, timeMs: performance.now() - t0, notes: [why, ...again.notes] };
  };
  if (cache.offGraph) {
    const at: Transition['issue'] = cache.offGraph;
    return redo(
      machine.withoutSymmetry(),
      {
        ...options,
        reduce: {
          ...reduce,
          deadValues: false,
          aloneGroups: false,
          bsyncPriority: false,
          warpSymmetry: false,
        },
      },
      `lane symmetry, warp symmetry, dead values, groups that run alone and BSYNC priority were switched off: the step at pc ${at.pc} leaves the control flow their reachability analysis assumes (a RET to an address other than its call's return site, or lanes that forgot a BREAK's guard; docs/semantics.md §14.4)`,
    );
  }
  if (cache.porAbstract && !cache.orderDependent)
    return redo(
      machine,
      { ...options, reduce: { ...reduce, partialOrder: false } },
      'partial-order reduction was switched off: a step resolves an unknown value, and the fair-choice livelock check needs every interleaving',
    );
  if (cache.orderDependent) {
    // Lanes of different classes raced at a store or atomic: renumbering lanes is not sound for
    // this program (laneCanon.ts), so the search is redone without lane symmetry.
    const issue: Transition['issue'] = cache.orderDependent;
    return redo(
      machine.withoutSymmetry(),
      options,
      `lane symmetry was switched off: lanes that are not interchangeable race at pc ${issue.pc} (a store or atomic whose lane order decides the result)`,
    );
  }
  const expanded = edgeStart.length;
  edgeStart.push(edgeTo.length);

  const notes: string[] = [];
  const graph: Graph = {
    expanded,
    warps: K,
    edgeStart: edgeStart.view(),
    edgeTo: edgeTo.view(),
    edgeStep: edgeStep.view(),
    stepWarp: stepOf.view(),
    stepMask: stepMask.view(),
    stepGroup: stepGroup.view(),
    stepUnknown: stepUnknown.view(),
    enabledWarps: enabledWarps.view(),
    readyLanes: laneFair ? readyLanes.view() : null,
    readyPlaces: placeFair
      ? {
          stateLocal: stateLocal.view(),
          start: localPlaceStart.view(),
          places: localPlaces.view(),
          stepPlace: stepPlace.view(),
        }
      : null,
    edgePerm:
      edgePerm && options.plantUnsoundWarpSymmetry !== 'index-fairness' ? edgePerm.view() : null,
  };
  const cycles = findFairCycles(graph);
  // Places that over-approximate lane fairness (`Mechanism.coarsePlaces`): a cycle fair per place
  // may starve a lane of a place, so only the search without lane symmetry can say it is a
  // livelock. Without one, no lane-fair cycle exists either (every lane-fair cycle is fair per
  // place, and the quotient keeps every cycle's image), so `terminates` stands.
  if (
    cycles.count > 0 &&
    placeFair &&
    machine.mechanism.coarsePlaces === true &&
    options.plantTrustCoarsePlaces !== true
  )
    return redo(
      machine.withoutSymmetry(),
      options,
      `lane symmetry was switched off: a cycle is fair per PC, which with single-lane issues may starve one lane of a PC; the search without it decides whether the cycle is a livelock (docs/semantics.md §13)`,
    );
  const {
    findings: out,
    unreplayable,
    longSchedules,
  } = buildFindings(
    {
      machine,
      graph,
      states: visited.size,
      stepAbstract: stepAbstract.view(),
      parent: visited.parent.view(),
      parentChoice: visited.parentChoice.view(),
      first: findings,
      occurrences,
      inClass: sym ? sym.inClass : visited.inClass,
      matchWarps: sym ? sym.match : null,
      chains: chains ? { ofEdge: chains.ofEdge, ofState: chains.ofState, groups } : null,
    },
    cycles,
  );
  notes.push(
    ...searchNotes({
      unreplayable,
      longSchedules,
      chains: chains && {
        steps: chains.steps,
        count: chains.count,
        capped: chains.capped,
        cap: chains.cap,
        total: chains.total,
        exhausted: chains.exhausted,
      },
      sawUnknownChoice,
    }),
  );
  // Dead writes (`machine/deadWrites.ts`): a schedule that replays on this machine but not on
  // the one that computes every write — where saved scenarios replay — sends the search there.
  // (Schedules left compressed, too long or not walked, replay on neither.)
  if (machine.skipsDeadWrites && options.checkDeadWriteReplays !== false && out.length > 0) {
    const plain = machine.withoutDeadWrites();
    for (const f of out)
      if (
        f.schedule.length < SCENARIO_LIMITS.scheduleSteps &&
        !findingReplays(plain, f) &&
        findingReplays(machine, f)
      )
        return redo(
          plain,
          options,
          `dead writes were switched off: the schedule of a ${f.verdict} finding did not replay on the machine that computes every write`,
        );
  }
  if (bound === null && head < visited.size) bound = 'states';
  if (bound === null && branching !== null) bound = 'branching';
  const { verdict, kind, message, sorted } = headline(out, bound, branching, budget, memoryBound);
  return {
    verdict,
    kind,
    message,
    states: visited.size,
    transitions,
    depth: visited.maxDepth,
    timeMs: performance.now() - t0,
    bound,
    findings: sorted,
    laneSymmetry: machine.symmetric,
    partialOrder: por !== null,
    ...(exitFirst ? { exitPriority: { applied: cache.exitPriority } } : {}),
    ...(alone ? { aloneGroups: { applied: cache.aloneGroups } } : {}),
    ...(bsyncFirst ? { bsyncPriority: { applied: cache.bsyncPriority } } : {}),
    warpSymmetry: sym !== null,
    accelerated: chains?.steps ?? 0,
    forcedChains: chains?.forced ?? 0,
    chainSummaries: summaries
      ? { hits: summaries.hits, recorded: summaries.recorded, mismatches: summaries.mismatches }
      : null,
    recomputedWarps: visited.recomputed,
    terminalStates,
    notes,
  };
}

/**
 * `edgeTo` of a step the partial-order reduction left out: neither a state nor a stop (-1). Every
 * state keeps one edge per choice so that an edge's index in its state is its choice.
 */
const NOT_EXPANDED = -2;

/**
 * The run's verdict rests on abstraction (issue 16): its own finding is `possible`. Never for
 * `terminates` or `bound-reached`, which have no finding of their own.
 */
export const verdictPossible = (r: ExploreResult): boolean =>
  r.verdict !== 'terminates' &&
  r.verdict !== 'bound-reached' &&
  (r.findings.find((f) => f.verdict === r.verdict && f.kind === r.kind)?.possible ?? false);
