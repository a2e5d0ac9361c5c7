import type { Memory } from '../lanes/memory.ts';
import type { Machine, Transition, WarpState } from '../machine/machine.ts';
import { int32, uint32, uint8 } from './growable.ts';
import { VisitedStates } from './visited.ts';
import { LocalSteps } from './localSteps.ts';
import { findFairCycles, type Graph } from './fairCycles.ts';
import { buildFindings, blockedMessage, type FirstOccurrence } from './findings.ts';
import { verdictRank, type Finding, type Verdict, type DeadlockKind } from './verdict.ts';
import { partialOrder, type PlantUnsoundPor } from './partialOrder.ts';
import { groupPriority, type PlantUnsoundGroups } from './groupPriority.ts';
import { WarpSymmetry, type PlantUnsoundWarpSymmetry } from './warpSymmetry.ts';
import { ACCEL_PER_STATE, Chains, CHAIN_CAP, type PlantUnsoundAccel } from './acceleration.ts';
import { SCENARIO_LIMITS } from '../scenario/limits.ts';

/** Every search has a budget (DESIGN.md) and says which one it hit. */
export interface Budget {
  readonly maxStates: number;
  readonly maxDepth: number;
  readonly timeoutMs: number;
  /** Resident memory of the process, in MB, past which the search stops (`bound: 'memory'`). */
  readonly maxMemoryMb?: number;
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
  readonly bound: 'states' | 'depth' | 'time' | 'branching' | 'memory' | 'random' | null;
  /** The search ran with lane symmetry (its machine's `symmetric`): schedules replay only so. */
  readonly laneSymmetry: boolean;
  /** The search ran with partial-order reduction over warps (`partialOrder.ts`). */
  readonly partialOrder?: boolean;
  /**
   * The search ran with EXIT priority among one warp's lane groups (`groupPriority.ts`), and in
   * how many distinct warp states it expanded an exiting group alone.
   */
  readonly exitPriority?: { readonly applied: number };
  /** The search ran with warp symmetry (`warpSymmetry.ts`): states up to permuting free warps. */
  readonly warpSymmetry?: boolean;
  /**
   * Steps run inside accelerated chains and not stored (`acceleration.ts`), past each chain's
   * first step; 0 when acceleration was off or never applied. A verdict with a nonzero count
   * rests on acceleration (the notes say so).
   */
  readonly accelerated?: number;
  /** The first (shortest) finding of every distinct outcome, best-ranked first. */
  readonly findings: readonly Finding[];
  /** Terminal states in which every lane exited. */
  readonly terminalStates: number;
  readonly notes: readonly string[];
}

/** Which sound reductions the search applies; each can be switched off (all on by default). */
export interface Reductions {
  /**
   * Dead-value reduction: states that differ only in lane registers or predicates that no lane can
   * read again before overwriting them are one state (`machine/liveness.ts`). They are bisimilar
   * with the same issue labels, so every verdict — fair cycles included — is unchanged; only state
   * counts shrink. Applies when the mechanism reports `lanePcs`.
   */
  readonly deadValues: boolean;
  /**
   * Partial-order reduction over warps (`partialOrder.ts`, docs/semantics.md): a warp whose steps
   * are all local is expanded alone, with the cycle proviso; deadlocks, stops and fair cycles are
   * preserved. Applies with two or more warps; redone without it when a step resolves an unknown.
   */
  readonly partialOrder: boolean;
  /**
   * EXIT priority inside one `its` warp under maximal grouping, or one `dws` warp
   * (`groupPriority.ts`, docs/semantics.md §14.1): ready lanes at an unguarded EXIT that ends no
   * run exit before any other group (split) moves. Deadlocks, stops, terminal states and fair cycles are preserved.
   */
  readonly exitPriority: boolean;
  /**
   * Warp symmetry (`warpSymmetry.ts`, docs/semantics.md §15): states equal up to a permutation
   * of warps that can no longer read their own index are one state; livelocks are decided with
   * each warp tracked through the permutations (`trackedFairness.ts`). Applies with two or more
   * warps on a per-warp mechanism.
   */
  readonly warpSymmetry: boolean;
  /**
   * Chain acceleration (`acceleration.ts`, docs/semantics.md §14.2): a path of states that each
   * expand one local data step issuing all of its warp's ready lanes is followed without storing
   * its intermediate states; every verdict, fair cycles included, is unchanged.
   */
  readonly accelerate: boolean;
}

export const defaultReductions: Reductions = {
  deadValues: true,
  partialOrder: true,
  exitPriority: true,
  warpSymmetry: true,
  accelerate: true,
};

export interface ExploreOptions {
  readonly reduce?: Partial<Reductions>;
  /** A planted bug for the partial-order soundness law; never set outside tests. */
  readonly plantUnsoundPor?: PlantUnsoundPor;
  /** A planted bug for the EXIT-priority soundness law; never set outside tests. */
  readonly plantUnsoundGroups?: PlantUnsoundGroups;
  /** A planted bug for the warp-symmetry soundness law; never set outside tests. */
  readonly plantUnsoundWarpSymmetry?: PlantUnsoundWarpSymmetry;
  /** A planted bug for the acceleration soundness law; never set outside tests. */
  readonly plantUnsoundAccel?: PlantUnsoundAccel;
}

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
 * 1. expansion — each warp's steps, cached per (warp, warp state, memory) (`localSteps.ts`), and
 *    the partial-order reduction's choice of which to expand (`partialOrder.ts`), here;
 * 2. the visited set — interned warp and memory ids, state tuples, parents (`visited.ts`); a step
 *    re-keys only what it changed (one warp; memory only when written), and unexpanded states are
 *    rebuilt from representatives when expanded;
 * 3. the fair-cycle pass over the recorded graph (`fairCycles.ts`);
 * 4. finding construction — schedules from the real initial state, concrete witnesses, the lasso
 *    (`findings.ts`);
 * then the verdict (the best-ranked finding, or the budget that ran out).
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
  const placeFair = machine.mechanism.laneFairness && machine.symmetric;
  const laneFair = machine.mechanism.laneFairness && !placeFair;
  const reduce: Reductions = { ...defaultReductions, ...options.reduce };
  const reduced = reduce.deadValues && machine.canReduce;
  const por =
    reduce.partialOrder && (K > 1 || machine.mechanism.threadIssues === true)
      ? partialOrder(machine, options.plantUnsoundPor)
      : null;
  const groups = reduce.exitPriority ? groupPriority(machine, options.plantUnsoundGroups) : null;
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
  const add = (from: number, choice: number, depth: number): number => {
    if (sym) lastPerm = sym.canon(tuple);
    return visited.add(from, choice, depth);
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
  const chains = reduce.accelerate
    ? new Chains(
        { machine, visited, cache, placeFair, reduced },
        t0 + budget.timeoutMs,
        accelPlant,
        Math.min(CHAIN_CAP, budget.maxStates),
        ACCEL_PER_STATE * budget.maxStates,
      )
    : null;
  /**
   * Chains may follow any expanded step, not only a state's one step: the successor is then an
   * intermediate state only if its warp's one chainable step is what the search would expand
   * there alone — under partial-order reduction (a local step is a valid one-step ample set) or
   * with one warp (docs/semantics.md §14.2).
   */
  const chainAfterAny = por !== null || K === 1;
  /** Per ample step: steps accelerated past it, and whether its target was a new state. */
  const ampleExtra: number[] = [];
  const ampleAdded: boolean[] = [];
  const { localInfo, localReady, localStart, localAmpleFrom, localAmpleTo, localAcyclic } = cache;
  const proviso = por ? por.proviso : true;
  const { localMoreStart, ampleMore } = cache;
  const { stepWarp, stepMem, stepOf, stepMask, stepGroup, stepUnknown, stepAbstract } = cache;
  const { stepStop, stepPlace, stops, localPlaceStart, localPlaces } = cache;
  const stateLocal = int32();
  const localOf = (k: number, wid: number, mid: number): number => cache.of(k, wid, mid);
  const locals = new Int32Array(K);
  const ampleTo: number[] = [];
  /** Ample candidates of the state being expanded: (warp, first step, end step, first choice). */
  const cand: number[] = [];
  /**
   * Per expanded state: 1 when every one of its steps is in the reduced graph (fully expanded).
   * The cycle proviso accepts an ample edge back to a level ≤ d when its target is such a state
   * (`closesOnFull`): every cycle through that edge then has a fully expanded state.
   */
  const expandedFull = uint8();
  /** An edge to `to` closes cycles only through a state already expanded in full (head: the state). */
  const closesOnFull = (to: number, head: number): boolean =>
    to < head && (plantAnyTarget || expandedFull.get(to) === 1);
  const plantAnyTarget = options.plantUnsoundPor === 'any-expanded-target';
  /** The cycle proviso (C3) holds for steps from..to-1 of warp k: none goes back to a level ≤ d. */
  const provisoAccepts = (
    k: number,
    from: number,
    to: number,
    d: number,
    head: number,
  ): boolean => {
    for (let e = from; e < to; e++) {
      if (stepStop.get(e) >= 0) continue;
      for (let j = 0; j <= K; j++) tuple[j] = parentTuple[j]!;
      tuple[k] = stepWarp.get(e);
      tuple[K] = stepMem.get(e);
      if (sym) sym.canon(tuple);
      const id = visited.find();
      if (id >= 0 && depthOf.get(id) <= d && !closesOnFull(id, head)) return false;
    }
    return true;
  };
  const amplePerm: number[] = [];

  const init = machine.initial();
  for (let k = 0; k < K; k++) tuple[k] = warpId(init.warps[k]!);
  tuple[K] = memId(init.memory);
  add(-1, -1, 0);
  let head = 0;
  for (; head < visited.size; head++) {
    if ((head & 255) === 0) {
      const elapsed = performance.now() - t0;
      if (elapsed > budget.timeoutMs) {
        bound = 'time';
        break;
      }
      if (budget.maxMemoryMb !== undefined && (head & 0x3fff) === 0) {
        if (process.memoryUsage.rss() / 1048576 > budget.maxMemoryMb) {
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
    expandedFull.push(0);
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
    if (cache.orderDependent || cache.porAbstract) break;
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
    // Partial-order reduction: the ample warp's successors first, then the cycle proviso.
    // The ample set is steps ampleFrom .. ampleEnd - 1 (step indices) of warp `ample`.
    let ample = -1;
    let ampleFrom = 0;
    let ampleEnd = 0;
    let full = true;
    if (por || groups) {
      // Candidates: per warp, its ample range and (single-lane issues) its further ones.
      cand.length = 0;
      for (let k = 0, c0 = 0; k < K; k++) {
        const loc = locals[k]!;
        const from = localAmpleFrom.get(loc);
        const base = localStart.get(loc);
        if (from >= 0) {
          cand.push(k, base + from, base + localAmpleTo.get(loc), c0 + from);
          for (let i = localMoreStart.get(loc), end = localMoreStart.get(loc + 1); i < end; i += 2)
            cand.push(
              k,
              base + ampleMore.get(i),
              base + ampleMore.get(i + 1),
              c0 + ampleMore.get(i),
            );
        }
        c0 += localStart.get(loc + 1) - base;
      }
      // The smallest candidate first; with several, the first (by size, then order) that the
      // cycle proviso accepts — SPIN's way of trying the next process before expanding fully.
      let pick = -1;
      const several = cand.length > 4;
      for (let tried = 0; tried * 4 < cand.length && pick < 0; tried++) {
        let best = -1;
        for (let i = 0; i < cand.length; i += 4)
          if (
            cand[i + 1]! >= 0 &&
            (best < 0 || cand[i + 2]! - cand[i + 1]! < cand[best + 2]! - cand[best + 1]!)
          )
            best = i;
        if (best < 0) break;
        if (
          !several ||
          !proviso ||
          localAcyclic.get(locals[cand[best]!]!) === 1 ||
          provisoAccepts(cand[best]!, cand[best + 1]!, cand[best + 2]!, d, head)
        )
          pick = best;
        else cand[best + 1] = -1;
      }
      if (pick >= 0) {
        ample = cand[pick]!;
        ampleFrom = cand[pick + 1]!;
        ampleEnd = cand[pick + 2]!;
        const before = cand[pick + 3]!;
        // An EXIT-priority step exits lanes: no cycle passes it (groupPriority.ts). A warp whose
        // ample set is an exit has no further candidates, so its candidate is that exit.
        const acyclic = localAcyclic.get(locals[ample]!) === 1;
        full = false;
        ampleTo.length = 0;
        amplePerm.length = 0;
        ampleExtra.length = 0;
        ampleAdded.length = 0;
        for (let e = ampleFrom; e < ampleEnd; e++) {
          for (let j = 0; j <= K; j++) tuple[j] = parentTuple[j]!;
          tuple[ample] = stepWarp.get(e);
          tuple[K] = stepMem.get(e);
          // A one-step ample set may start an accelerated chain (acceleration.ts).
          const extra =
            chains && (chainAfterAny || ampleEnd - ampleFrom === 1)
              ? chains.follow(ample, e, locals[ample]!, tuple, chainAfterAny)
              : 0;
          const size = visited.size;
          const to = add(head, before + (e - ampleFrom), d + 1);
          ampleTo.push(to);
          amplePerm.push(lastPerm);
          ampleExtra.push(extra);
          ampleAdded.push(to >= size);
          // C3 (Bošnački et al.): an edge back to a level ≤ d may close a cycle.
          if (proviso && !acyclic && to < size && depthOf.get(to) <= d && !closesOnFull(to, head))
            full = true;
        }
      }
    }
    if (full || ampleEnd - ampleFrom === nSteps) expandedFull.set(head, 1);
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
            chains.record(
              edgeTo.length,
              to,
              ampleAdded[e - ampleFrom]!,
              ampleExtra[e - ampleFrom]!,
            );
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
          tuple[k] = stepWarp.get(e);
          tuple[K] = stepMem.get(e);
          // The state's only step may start an accelerated chain (acceleration.ts).
          // Or, with several steps, a chain may follow it where its successor is intermediate.
          const extra =
            chains && (nSteps === 1 || chainAfterAny)
              ? chains.follow(k, e, loc, tuple, chainAfterAny)
              : 0;
          const size = visited.size;
          to = add(head, c, d + 1);
          perm = lastPerm;
          if (extra > 0) chains!.record(edgeTo.length, to, to >= size, extra);
        }
        if (stepUnknown.get(e)) sawUnknownChoice = true;
        edgeTo.push(to);
        edgeStep.push(e);
        edgePerm?.push(perm);
      }
    }
  }
  if (cache.porAbstract && !cache.orderDependent) {
    const rest: Budget = {
      ...budget,
      timeoutMs: Math.max(0, budget.timeoutMs - (performance.now() - t0)),
    };
    const plain = explore(machine, rest, onProgress, {
      ...options,
      reduce: { ...reduce, partialOrder: false },
    });
    return {
      ...plain,
      timeMs: performance.now() - t0,
      notes: [
        'partial-order reduction was switched off: a step resolves an unknown value, and the fair-choice livelock check needs every interleaving',
        ...plain.notes,
      ],
    };
  }
  if (cache.orderDependent) {
    // Lanes of different classes raced at a store or atomic: renumbering lanes is not sound for
    // this program (laneCanon.ts), so the search is redone without lane symmetry.
    const issue: Transition['issue'] = cache.orderDependent;
    const rest: Budget = {
      ...budget,
      timeoutMs: Math.max(0, budget.timeoutMs - (performance.now() - t0)),
    };
    const plain = explore(machine.withoutSymmetry(), rest, onProgress, options);
    return {
      ...plain,
      timeMs: performance.now() - t0,
      notes: [
        `lane symmetry was switched off: lanes that are not interchangeable race at pc ${issue.pc} (a store or atomic whose lane order decides the result)`,
        ...plain.notes,
      ],
    };
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
      chains: chains ? { ofEdge: chains.ofEdge, ofState: chains.ofState } : null,
    },
    cycles,
  );
  if (unreplayable > 0)
    notes.push(
      `${unreplayable} finding${unreplayable > 1 ? 's' : ''} could not be walked again from the initial state; ${unreplayable > 1 ? 'their schedules' : 'its schedule'} may not replay`,
    );
  if (longSchedules > 0)
    notes.push(
      `${longSchedules} finding${longSchedules > 1 ? 's' : ''} lie${longSchedules > 1 ? '' : 's'} past accelerated chains longer than a scenario holds (${SCENARIO_LIMITS.scheduleSteps.toLocaleString('en-US')} steps): ${longSchedules > 1 ? 'their schedules give' : 'its schedule gives'} each chain as its first step only and do${longSchedules > 1 ? '' : 'es'} not replay`,
    );
  if (chains && chains.steps > 0)
    notes.push(
      `accelerated ${chains.steps.toLocaleString('en-US')} steps in ${chains.count.toLocaleString('en-US')} chain${chains.count > 1 ? 's' : ''} without storing their states (docs/semantics.md §14.2): the verdict rests on acceleration` +
        (chains.capped > 0
          ? `; ${chains.capped} chain${chains.capped > 1 ? 's' : ''} reached the cap of ${chains.cap.toLocaleString('en-US')} steps and stored the state reached`
          : '') +
        (chains.steps >= chains.total
          ? `; acceleration stopped at its budget of ${chains.total.toLocaleString('en-US')} steps (${ACCEL_PER_STATE} per state of the states budget)`
          : ''),
    );
  if (sawUnknownChoice)
    notes.push(
      'branches on unknown values were explored both ways and assumed fair (SEMANTICS §5): a cycle that only some resolutions of them keep going is not reported, so livelocks on opaque code are under-approximated',
    );
  if (bound === null && head < visited.size) bound = 'states';
  if (bound === null && branching !== null) bound = 'branching';

  const sorted = out.sort(
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
    message =
      bound === 'branching'
        ? branching!
        : `${bound} budget ran out (${bound === 'states' ? `${budget.maxStates} states` : bound === 'depth' ? `depth ${budget.maxDepth}` : bound === 'memory' ? `${budget.maxMemoryMb ?? 0} MB` : `${budget.timeoutMs} ms`}) before the search finished`;
  }
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
    ...(groups ? { exitPriority: { applied: cache.exitPriority } } : {}),
    warpSymmetry: sym !== null,
    accelerated: chains?.steps ?? 0,
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
