import type { Machine, Transition } from '../machine/machine.ts';
import { findFairCycles } from './fairCycles.ts';
import { buildFindings } from './findings.ts';
import { headline, searchNotes } from './searchSummary.ts';
import { findingReplays } from './findingReplays.ts';
import { SCENARIO_LIMITS } from '../scenario/limits.ts';
import { SearchRun } from './searchRun.ts';
import type { FrozenLanes } from './frozenLanes.ts';
import {
  defaultBudget,
  defaultReductions,
  noReductions,
  type Budget,
  type ExploreOptions,
  type ExploreResult,
  type Progress,
  type Reductions,
} from './exploreTypes.ts';

// What a search takes and gives lives in `exploreTypes.ts`; its callers import it from here.
export { defaultBudget, defaultReductions, noReductions };
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
 * Stages, each its own module (`searchRun.ts` runs the first two; this function the rest and
 * the searches again without a reduction that a stage may ask for):
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
  // Stages 1 and 2: the search and its graph.
  const run = new SearchRun(machine, budget, options);
  const { t0, cache, visited, chains, summaries } = run;
  run.search(onProgress);
  /**
   * The search again without a reduction, with what is left of the time budget, its notes after
   * the reason: for what a reduction cannot decide (`redoAfterSearch`, `redoAfterCycles`, dead
   * writes below).
   */
  const redo = ({ machine: m, options: opts, why }: Redo): ExploreResult => {
    const rest: Budget = {
      ...budget,
      timeoutMs: Math.max(0, budget.timeoutMs - (performance.now() - t0)),
    };
    const again = explore(m, rest, onProgress, opts);
    return { ...again, timeMs: performance.now() - t0, notes: [why, ...again.notes] };
  };
  const afterSearch = redoAfterSearch(run);
  if (afterSearch) return redo(afterSearch);

  // Stage 3: fair cycles.
  const graph = run.graph();
  // The splitting of components by unknown outcomes (`fairCycles.ts`) stops at the time budget;
  // a result it left incomplete is `bound-reached (time)` below.
  const cycles = findFairCycles(graph, t0 + budget.timeoutMs);
  const afterCycles = redoAfterCycles(run, cycles.count);
  if (afterCycles) return redo(afterCycles);
  // Summaries of frozen lanes (`frozenLanes.ts`): a macro edge on a cycle hides the steps a
  // fairness check would read; the search without them decides.
  const frozen = run.frozen;
  if (frozen && macroOnCycle(frozen, graph.expanded, cycles.comp))
    return redo({
      machine,
      options: { ...options, reduce: { ...run.reduce, frozenLanes: false } },
      why: 'summaries of frozen lanes were switched off: a macro edge lies on a cycle, whose fairness only the steps it stands for can decide (docs/semantics.md §14.7)',
    });

  // Stage 4: the findings, with schedules from the real initial state.
  const sym = run.sym;
  const {
    findings: out,
    unreplayable,
    longSchedules,
  } = buildFindings(
    {
      machine,
      graph,
      states: visited.size,
      stepAbstract: cache.stepAbstract.view(),
      parent: visited.parent.view(),
      parentChoice: visited.parentChoice.view(),
      first: run.findings,
      occurrences: run.occurrences,
      inClass: sym ? sym.inClass : visited.inClass,
      matchWarps: sym ? sym.match : null,
      chains: chains
        ? { ofEdge: chains.ofEdge, ofState: chains.ofState, groups: run.groups }
        : null,
      frozen,
    },
    cycles,
  );
  // A finding that passes a macro edge and does not walk again: the search without summaries.
  if (frozen && frozen.hits > 0 && unreplayable > 0)
    return redo({
      machine,
      options: { ...options, reduce: { ...run.reduce, frozenLanes: false } },
      why: `summaries of frozen lanes were switched off: ${unreplayable === 1 ? 'a finding' : `${unreplayable} findings`} could not be walked again from the initial state`,
    });
  const notes = searchNotes({
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
    sawUnknownChoice: run.sawUnknownChoice || (frozen?.sawUnknown ?? false),
  });
  // Loop visits (`widening.ts`): the reduced key leaves them out, so a stored state may widen
  // later than a run that reaches it after more turns, and a path through it — a lasso around a
  // widened loop — may not walk again. The search with loop visits keyed stores states that
  // widen as the runs do; its result stands when it ends within what is left of the budget.
  if (unreplayable > 0) {
    const keyed = machine.withLoopVisitsKeyed();
    if (keyed !== machine) {
      const again = redo({
        machine: keyed,
        options,
        why: `loop visits were keyed: ${unreplayable === 1 ? 'a finding' : `${unreplayable} findings`} could not be walked again from the initial state, where a run widens a loop sooner than a stored state it passes`,
      });
      if (again.bound === null) return again;
      notes.push(
        `a search with loop visits keyed, to walk ${unreplayable === 1 ? 'that finding' : 'those findings'} again, ran out (${again.bound}); this result is the search without them`,
      );
    }
  }
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
        return redo({
          machine: plain,
          options,
          why: `dead writes were switched off: the schedule of a ${f.verdict} finding did not replay on the machine that computes every write`,
        });
  }

  // The verdict: the best-ranked finding, or the budget that ran out.
  let bound = run.bound;
  if (bound === null && run.head < visited.size) bound = 'states';
  if (bound === null && run.branching !== null) bound = 'branching';
  if (bound === null && cycles.incomplete) bound = 'time';
  const { verdict, kind, message, sorted } = headline(
    out,
    bound,
    run.branching,
    budget,
    run.memoryBound,
  );
  return {
    verdict,
    kind,
    message,
    states: visited.size,
    transitions: run.transitions,
    depth: visited.maxDepth,
    timeMs: performance.now() - t0,
    bound,
    findings: sorted,
    laneSymmetry: machine.symmetric,
    partialOrder: run.por !== null,
    ...(run.exitFirst ? { exitPriority: { applied: cache.exitPriority } } : {}),
    ...(run.alone ? { aloneGroups: { applied: cache.aloneGroups } } : {}),
    ...(run.bsyncFirst ? { bsyncPriority: { applied: cache.bsyncPriority } } : {}),
    warpSymmetry: sym !== null,
    accelerated: chains?.steps ?? 0,
    forcedChains: chains?.forced ?? 0,
    chainSummaries: summaries
      ? { hits: summaries.hits, recorded: summaries.recorded, mismatches: summaries.mismatches }
      : null,
    frozenLanes: frozen
      ? {
          hits: frozen.hits,
          recorded: frozen.recorded,
          refused: frozen.refused,
          mismatches: frozen.mismatches,
        }
      : null,
    recomputedWarps: visited.recomputed,
    terminalStates: run.terminalStates,
    notes,
  };
}

/** Some macro edge joins two states of one strongly connected component (`comp`). */
function macroOnCycle(frozen: FrozenLanes, expanded: number, comp: Int32Array): boolean {
  const { macroFrom, macroTo } = frozen;
  for (let i = 0; i < macroFrom.length; i++) {
    const a = macroFrom.get(i);
    const b = macroTo.get(i);
    if (a < expanded && b < expanded && comp[a] === comp[b]) return true;
  }
  return false;
}

/** A search to run instead: on `machine` with `options`, for the reason `why` (a note). */
interface Redo {
  readonly machine: Machine;
  readonly options: ExploreOptions;
  readonly why: string;
}

/**
 * What the search's cache flagged that a reduction cannot decide, in order: a step that leaves
 * the reachability analysis's graph (`offGraph.ts`), a step that resolves an unknown value under
 * partial-order reduction, lanes of different symmetry classes racing at memory. Null: none.
 */
function redoAfterSearch(run: SearchRun): Redo | null {
  const { cache, machine, options, reduce } = run;
  if (cache.offGraph) {
    const at: Transition['issue'] = cache.offGraph;
    return {
      machine: machine.withoutCallGraph(),
      options: {
        ...options,
        reduce: {
          ...reduce,
          deadValues: false,
          aloneGroups: false,
          bsyncPriority: false,
          warpSymmetry: false,
        },
      },
      why: `lane symmetry, warp symmetry, dead values, dead writes, groups that run alone and BSYNC priority were switched off and liveness stops at CALL and RET: the step at pc ${at.pc} leaves the control flow their reachability analysis assumes (a RET to an address other than its call's return site, or lanes that forgot a BREAK's guard; docs/semantics.md §14.4)`,
    };
  }
  if (cache.porAbstract && !cache.orderDependent)
    return {
      machine,
      options: { ...options, reduce: { ...reduce, partialOrder: false } },
      why: 'partial-order reduction was switched off: a step resolves an unknown value, and the fair-choice livelock check needs every interleaving',
    };
  if (cache.orderDependent) {
    // Lanes of different classes raced at a store or atomic: renumbering lanes is not sound for
    // this program (laneCanon.ts), so the search is redone without lane symmetry.
    const issue: Transition['issue'] = cache.orderDependent;
    return {
      machine: machine.withoutSymmetry(),
      options,
      why: `lane symmetry was switched off: lanes that are not interchangeable race at pc ${issue.pc} (a store or atomic whose lane order decides the result)`,
    };
  }
  return null;
}

/**
 * Places that over-approximate lane fairness (`Mechanism.coarsePlaces`): a cycle fair per place
 * may starve a lane of a place, so only the search without lane symmetry can say it is a
 * livelock. Without one, no lane-fair cycle exists either (every lane-fair cycle is fair per
 * place, and the quotient keeps every cycle's image), so `terminates` stands.
 */
function redoAfterCycles(run: SearchRun, fairCycles: number): Redo | null {
  const { machine, options } = run;
  if (
    fairCycles > 0 &&
    run.placeFair &&
    machine.mechanism.coarsePlaces === true &&
    options.plantTrustCoarsePlaces !== true
  )
    return {
      machine: machine.withoutSymmetry(),
      options,
      why: `lane symmetry was switched off: a cycle is fair per PC, which with single-lane issues may starve one lane of a PC; the search without it decides whether the cycle is a livelock (docs/semantics.md §13)`,
    };
  return null;
}

/**
 * The run's verdict rests on abstraction (issue 16): its own finding is `possible`. Never for
 * `terminates` or `bound-reached`, which have no finding of their own.
 */
export const verdictPossible = (r: ExploreResult): boolean =>
  r.verdict !== 'terminates' &&
  r.verdict !== 'bound-reached' &&
  (r.findings.find((f) => f.verdict === r.verdict && f.kind === r.kind)?.possible ?? false);
