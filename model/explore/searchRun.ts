import type { Machine } from '../machine/machine.ts';
import { int32, uint32, uint8 } from './growable.ts';
import { CHAIN_ORIGIN, FORCED_ORIGIN, STEP_ORIGIN, VisitedStates } from './visited.ts';
import { LocalSteps } from './localSteps.ts';
import { findFairCycles, type Graph } from './fairCycles.ts';
import { blockedMessage, type FirstOccurrence } from './findings.ts';
import type { Finding } from './verdict.ts';
import { partialOrder } from './partialOrder.ts';
import { aloneGroups } from './aloneGroups.ts';
import { bsyncPriority } from './bsyncPriority.ts';
import { eitherGroup, groupPriority, type GroupPriority } from './groupPriority.ts';
import { WarpSymmetry } from './warpSymmetry.ts';
import { ACCEL_PER_STATE, Chains, CHAIN_CAP } from './acceleration.ts';
import { LaneChains } from './laneChains.ts';
import { FROZEN_AFTER, FROZEN_MIN_WARP, FrozenLanes } from './frozenLanes.ts';
import { AmpleChoice } from './ampleChoice.ts';
import { memoryOver } from './memoryBudget.ts';
import {
  defaultReductions,
  type Budget,
  type ExploreOptions,
  type ExploreResult,
  type Progress,
  type Reductions,
} from './exploreTypes.ts';

/**
 * `edgeTo` of a step the partial-order reduction left out: neither a state nor a stop (-1). Every
 * state keeps one edge per choice so that an edge's index in its state is its choice.
 */
const NOT_EXPANDED = -2;

/** The ample set of one state: steps `from .. end - 1` of warp `warp`; `full`: C3 asked for all. */
interface AmpleSet {
  readonly warp: number;
  readonly from: number;
  readonly end: number;
  readonly full: boolean;
}

/**
 * Stages 1 and 2 of `explore` (`exhaustive.ts`): one breadth-first search of a machine, which
 * builds the reduced state graph the later stages read (fair cycles, findings).
 *
 * - The constructor wires the reductions the options ask for (`wireReductions` below): partial
 *   order over warps, the group rules inside an `its` warp, warp symmetry, chains and their
 *   summaries, and the visited set with the origins of the warp objects it may drop.
 * - `search` takes states from the queue in the order they were added and expands each
 *   (`expand`): the local steps of every warp, a deadlock or a terminal state, else the ample
 *   set the rules choose (`expandAmple`, with the cycle proviso), then every edge of the state
 *   (`recordEdges`) — placeholders where the reduction leaves a step out.
 * - What the search met is in its fields: the graph (`graph()`), the first occurrence of each
 *   outcome and where else it showed, the budget that ran out (`bound`), and the cache's flags
 *   that send the search again without a reduction (`LocalSteps.offGraph`, `porAbstract`,
 *   `orderDependent`; `exhaustive.ts` decides).
 */
export class SearchRun {
  readonly t0 = performance.now();
  readonly K: number;
  /**
   * Under lane symmetry lane numbers do not persist along edges: fairness per place, the PC or
   * the split the mechanism names (`Mechanism.fairPlaces`, fairCycles.ts). The block machine
   * names its places itself (`Machine.placeFairness`).
   */
  readonly placeFair: boolean;
  readonly laneFair: boolean;
  readonly reduce: Reductions;
  /** The visited set leaves dead values out of its keys. */
  readonly reduced: boolean;
  readonly por: ReturnType<typeof partialOrder> | null;
  readonly exitFirst: GroupPriority | null;
  readonly alone: GroupPriority | null;
  readonly bsyncFirst: GroupPriority | null;
  readonly visited: VisitedStates;
  readonly sym: WarpSymmetry | null;
  readonly cache: LocalSteps;
  readonly summaries: LaneChains | null;
  readonly chains: Chains | null;
  /** Summaries of frozen lanes (`frozenLanes.ts`), or null. */
  readonly frozen: FrozenLanes | null;
  /** The first synthetic step that labels macro edges (`LocalSteps.syntheticSteps`), or -1. */
  private readonly macroStep: number;
  private readonly macroWids: number[] = [];
  private readonly macroSteps: number[] = [];
  /** The group rules inside a warp (EXIT priority, BSYNC priority, groups that run alone). */
  readonly groups: GroupPriority | null;

  // The recorded graph (`graph()`): per expanded state its first edge; per edge its target (a
  // state, -1 for a stop, NOT_EXPANDED), its step and, under warp symmetry, σ from the computed
  // successor to its canonical form; per state the enabled warps and ready lanes or places.
  readonly edgeStart = int32();
  readonly edgeTo = int32();
  readonly edgeStep = int32();
  readonly edgePerm: ReturnType<typeof int32> | null;
  readonly enabledWarps = uint8();
  readonly readyLanes = uint32();
  readonly stateLocal = int32();

  /** The first occurrence of each outcome: the state it shows at, and the ending step if any. */
  readonly findings = new Map<string, FirstOccurrence>();
  /** Occurrences of each outcome (state, ending step), up to a cap: for a concrete witness. */
  readonly occurrences = new Map<string, number[]>();
  transitions = 0;
  terminalStates = 0;
  bound: ExploreResult['bound'] = null;
  /** What ran out when `bound` is 'memory' (`memoryBudget.ts`). */
  memoryBound: string | null = null;
  sawUnknownChoice = false;
  /** The first branching-budget message (too many outcomes of unknown branches), if any. */
  branching: string | null = null;
  /** The next state to expand: every state below it was expanded. */
  head = 0;

  private readonly identity: number;
  /** σ of the last `add` (warp symmetry puts `tuple` in canonical order first). */
  private lastPerm: number;
  private readonly choice: AmpleChoice;
  /**
   * Chains may follow any expanded step, not only a state's one step: the successor is then an
   * intermediate state only if its warp's one chainable step is what the search would expand
   * there alone — under partial-order reduction (a local step is a valid one-step ample set) or
   * with one warp (docs/semantics.md §14.2).
   */
  private readonly chainAfterAny: boolean;
  /** The cycle proviso applies (C3; off only under partial-order reduction that needs none). */
  private readonly proviso: boolean;
  // Scratch of one expansion: the parent's tuple, each warp's local, the ample set's targets.
  private readonly parentTuple: Int32Array;
  private readonly locals: Int32Array;
  private readonly ampleTo: number[] = [];
  private readonly amplePerm: number[] = [];
  /** Per ample step: steps accelerated past it. */
  private readonly ampleExtra: number[] = [];

  constructor(
    readonly machine: Machine,
    readonly budget: Budget,
    readonly options: ExploreOptions,
  ) {
    const K = (this.K = machine.launch.warps);
    this.placeFair =
      machine.mechanism.laneFairness && (machine.symmetric || machine.placeFairness === true);
    this.laneFair = machine.mechanism.laneFairness && !this.placeFair;
    const reduce = (this.reduce = { ...defaultReductions, ...options.reduce });
    const reduced = (this.reduced = reduce.deadValues && machine.canReduce);
    this.por =
      reduce.partialOrder && (K > 1 || machine.mechanism.threadIssues === true)
        ? partialOrder(machine, options.plantUnsoundPor)
        : null;
    this.exitFirst = reduce.exitPriority
      ? groupPriority(machine, options.plantUnsoundGroups)
      : null;
    this.alone = reduce.aloneGroups
      ? aloneGroups(machine, options.plantUnsoundAlone ?? null)
      : null;
    this.bsyncFirst = reduce.bsyncPriority
      ? bsyncPriority(machine, options.plantUnsoundBsync ?? null)
      : null;
    const groups = (this.groups = eitherGroup(
      eitherGroup(this.exitFirst, this.bsyncFirst),
      this.alone,
    ));
    const visited = (this.visited = new VisitedStates(machine, reduced));
    const sym = (this.sym =
      reduce.warpSymmetry && K > 1 && machine.warpPinned
        ? new WarpSymmetry(machine, visited, options.plantUnsoundWarpSymmetry ?? null)
        : null);
    this.edgePerm = sym ? int32() : null;
    this.identity = this.lastPerm = sym ? sym.identity : 0;
    this.parentTuple = new Int32Array(K + 1);
    this.locals = new Int32Array(K);

    // Local expansions, cached per (warp index, warp id, memory id) (`localSteps.ts`).
    const accelPlant = options.plantUnsoundAccel ?? null;
    const cache = (this.cache = new LocalSteps(
      machine,
      visited,
      this.por,
      this.placeFair,
      groups,
      reduce.accelerate ? { plant: accelPlant } : null,
    ));
    // The reductions that rest on the reachability analysis (`offGraph.ts`); a step that leaves
    // its graph sends the search again without them (`exhaustive.ts`).
    const graphBound =
      machine.symmetric ||
      machine.followsCalls ||
      reduced ||
      this.alone !== null ||
      this.bsyncFirst !== null ||
      (reduce.warpSymmetry && K > 1 && machine.warpPinned !== null);
    cache.checkGraph = graphBound && machine.mayReach !== null;
    // Summaries of chains by their running lanes (`laneChains.ts`).
    const summaries = (this.summaries =
      reduce.accelerate && reduce.chainSummaries && LaneChains.applies(machine)
        ? new LaneChains(machine, reduced, options.plantUnsoundSummaries ?? null)
        : null);
    const chains = (this.chains = reduce.accelerate
      ? new Chains(
          {
            machine,
            visited,
            cache,
            placeFair: this.placeFair,
            reduced,
            groups,
            summaries,
            verifySummaries: options.verifySummaries === true,
          },
          this.t0 + this.budget.timeoutMs,
          accelPlant,
          Math.min(CHAIN_CAP, this.budget.maxStates),
          ACCEL_PER_STATE * this.budget.maxStates,
        )
      : null);
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
    // Summaries of frozen lanes (`frozenLanes.ts`): one warp, with chains (their interiors
    // are walked as the search walks them).
    const frozenOn =
      reduce.frozenLanes && reduce.accelerate && FrozenLanes.applies(machine, this.por !== null);
    this.macroStep = frozenOn ? cache.syntheticSteps() : -1;
    this.frozen = frozenOn
      ? new FrozenLanes(
          machine,
          visited,
          cache,
          (wid, mid, e, loc, out) => this.reducedStep(wid, mid, e, loc, out),
          (locs, edgeStart, edgeTo, edgeStep) =>
            this.closureCycles(locs, edgeStart, edgeTo, edgeStep),
          this.macroStep,
          reduced,
          this.t0 + this.budget.timeoutMs,
          this.budget.maxStates,
          options.frozenAfter ??
            (machine.launch.warpSize >= FROZEN_MIN_WARP ? FROZEN_AFTER : Number.POSITIVE_INFINITY),
          options.verifyFrozen === true,
          options.plantUnsoundFrozen ?? null,
        )
      : null;
    visited.stress = options.stressOrigins === true;
    visited.plantChainOneMore = options.plantUnsoundOrigins === 'chain-one-more';
    this.chainAfterAny = this.por !== null || K === 1;
    this.proviso = this.por ? this.por.proviso : true;
    this.choice = new AmpleChoice(
      cache,
      visited,
      sym,
      K,
      this.proviso,
      options.plantUnsoundPor === 'any-expanded-target',
    );
  }

  /**
   * The search: the initial state, then every state in the order added until the queue is empty,
   * a budget runs out (`bound`), or the cache raises a flag that sends the search again without a
   * reduction.
   */
  search(onProgress?: (p: Progress) => void): void {
    const { machine, visited, K } = this;
    const tuple = visited.tuple;
    const init = machine.initial();
    for (let k = 0; k < K; k++) tuple[k] = visited.warpId(init.warps[k]!);
    tuple[K] = visited.memId(init.memory);
    this.add(-1, -1, 0, 0);
    for (; this.head < visited.size; this.head++) {
      if (this.outOfBudget(this.head, onProgress)) break;
      if (!this.expand(this.head)) break;
    }
    // The recorded graph ends with the expanded states' end of edges.
    this.edgeStart.push(this.edgeTo.length);
  }

  /** Expanded states, in the order they were added. */
  get expanded(): number {
    return this.edgeStart.length - 1;
  }

  /**
   * Whether a budget stops the search before state `head` (time, memory, states; a chain that
   * stopped at the time budget) — then `bound` says which. Progress every 16,384 states.
   */
  private outOfBudget(head: number, onProgress?: (p: Progress) => void): boolean {
    const { budget, visited } = this;
    if ((head & 255) === 0) {
      const elapsed = performance.now() - this.t0;
      if (elapsed > budget.timeoutMs) {
        this.bound = 'time';
        return true;
      }
      if (budget.maxMemoryMb !== undefined && (head & 0x3ff) === 0) {
        this.memoryBound = memoryOver(budget.maxMemoryMb);
        if (this.memoryBound !== null) {
          this.bound = 'memory';
          return true;
        }
      }
      if (onProgress && (head & 0x3fff) === 0)
        onProgress({
          states: visited.size,
          transitions: this.transitions,
          depth: visited.maxDepth,
          elapsedMs: elapsed,
        });
    }
    // A chain stopped at the time budget: stop here, not 255 states (and chains) later.
    if (this.chains?.timedOut) {
      this.bound = 'time';
      return true;
    }
    if (visited.size >= budget.maxStates) {
      this.bound = 'states';
      return true;
    }
    return false;
  }

  /**
   * Expands state `head`: its warps' local steps; then a terminal state, a deadlock, the depth
   * budget, or its successors. False when the cache raised a flag that ends the search (the
   * search is then redone without a reduction).
   */
  private expand(head: number): boolean {
    const { visited, cache, K, locals } = this;
    const { localInfo, localReady, localStart } = cache;
    this.edgeStart.push(this.edgeTo.length);
    this.choice.begin();
    const d = visited.depthOf.get(head);
    const mid = visited.at(head, K);
    let en = 0;
    let live = false;
    let nSteps = 0;
    for (let k = 0; k < K; k++) {
      const loc = cache.of(k, visited.at(head, k), mid);
      locals[k] = loc;
      nSteps += localStart.get(loc + 1) - localStart.get(loc);
      const info = localInfo.get(loc);
      if (info & 1) en |= 1 << k;
      if (info & 2) live = true;
      if (this.laneFair) this.readyLanes.push(localReady.get(loc));
      if (this.placeFair) this.stateLocal.push(loc);
    }
    // The search ends here and is redone without a reduction (`exhaustive.ts`): nothing it
    // recorded is read.
    if (cache.orderDependent || cache.porAbstract || cache.offGraph) return false;
    this.enabledWarps.push(en);
    if (!live) {
      this.terminalStates++;
      this.record(
        { verdict: 'terminates', kind: null, property: null, message: 'every lane exited' },
        head,
        null,
      );
      return true;
    }
    if (en === 0) {
      this.record(
        {
          verdict: 'deadlock',
          kind: 'blocked',
          property: null,
          message: blockedMessage(this.machine, visited.rebuild(head)),
        },
        head,
        null,
      );
      return true;
    }
    if (d >= this.budget.maxDepth) {
      this.bound = 'depth';
      return true;
    }
    visited.copy(head, this.parentTuple);
    if (this.frozen?.active()) {
      const sid = this.frozen.macro(this.parentTuple[0]!, mid, this.macroWids, this.macroSteps);
      // The summaries' closures used the scratch tuples.
      visited.copy(head, this.parentTuple);
      if (sid >= 0) {
        this.recordMacro(head, d, nSteps, mid, sid);
        visited.dropWarp(this.parentTuple[0]!);
        cache.dropLazy(locals[0]!);
        return true;
      }
    }
    const ample = this.expandAmple(head, d, nSteps);
    this.recordEdges(head, d, nSteps, ample);
    // One warp: the state is expanded once, so its objects can go (`VisitedStates`: computed
    // again from their origin if another memory ever asks for this warp's steps).
    if (K === 1) {
      visited.dropWarp(this.parentTuple[0]!);
      cache.dropLazy(locals[0]!);
    }
    return true;
  }

  /**
   * Partial-order reduction and the group rules: the ample set the rules choose for `head`
   * (`ampleChoice.ts`: candidates smallest first, the cycle proviso), its successors added (with
   * the chains that follow them) into `ampleTo`, `amplePerm`, `ampleExtra`. Returns the ample
   * set — steps `from .. end - 1` of warp `warp` — and whether the state must be expanded in full
   * after all (C3: the other steps are then expanded too), or null when there is none (every
   * step is expanded).
   */
  private expandAmple(head: number, d: number, nSteps: number): AmpleSet | null {
    const { cache, visited, chains, choice, K, locals, parentTuple } = this;
    const tuple = visited.tuple;
    if (!(this.por || this.groups) || !choice.choose(locals, head, parentTuple, tuple)) {
      choice.markFull(head);
      return null;
    }
    const ample = choice.warp;
    const from = choice.from;
    const end = choice.end;
    const before = choice.before;
    const headSteps = visited.stepsOf.get(head);
    // An EXIT-priority step exits lanes: no cycle passes it (groupPriority.ts). A warp whose
    // ample set is an exit has no further candidates, so its candidate is that exit.
    const acyclic = cache.localAcyclic.get(locals[ample]!) === 1;
    // Forced chains (acceleration.ts) start after a lone group's step, or after any step
    // with one warp (the successor's reduced expansion is then the search's own choice).
    const forcedAfter = K === 1 || cache.localAlone.get(locals[ample]!) === 1;
    const proviso = this.proviso;
    let full = false;
    this.ampleTo.length = 0;
    this.amplePerm.length = 0;
    this.ampleExtra.length = 0;
    for (let e = from; e < end; e++) {
      // An accelerated chain may follow the step (acceleration.ts): after any ample step when
      // `chainAfterAny`, else only after a one-step ample set's step; a forced chain may go
      // on from where it ends (or from the successor itself).
      const extra = this.successor(
        ample,
        e,
        locals[ample]!,
        this.chainAfterAny || end - from === 1,
        forcedAfter,
      );
      const size = visited.size;
      const to = this.add(head, before + (e - from), d + 1, headSteps + 1 + extra);
      this.ampleTo.push(to);
      this.amplePerm.push(this.lastPerm);
      this.ampleExtra.push(extra);
      // States are recorded in the order they are added (the full expansion below may add
      // states of earlier warps or steps before this edge is recorded).
      if (extra > 0 && to >= size) chains!.recordState(to, extra);
      // C3 (Bošnački et al.): an edge back to a level ≤ d may close a cycle.
      if (proviso && !acyclic && to < size && choice.breaksCycle(to, head)) full = true;
    }
    if (full || end - from === nSteps) choice.markFull(head);
    return { warp: ample, from, end, full };
  }

  /**
   * Every edge of state `head`, in choice order: an ample step's edge as `expandAmple` added it; a
   * step outside the ample set a placeholder (`NOT_EXPANDED`), or, when the state is expanded in
   * full, its successor (a stop is recorded as an outcome, its edge -1).
   */
  private recordEdges(head: number, d: number, nSteps: number, ample: AmpleSet | null): void {
    const { cache, visited, chains, K, locals, edgeTo, edgeStep, edgePerm } = this;
    const { localStart, stepStop, stops, stepUnknown } = cache;
    const headSteps = visited.stepsOf.get(head);
    const full = ample === null || ample.full;
    let c = 0;
    for (let k = 0; k < K; k++) {
      const loc = locals[k]!;
      for (let e = localStart.get(loc), end = localStart.get(loc + 1); e < end; e++, c++) {
        const inAmple = ample !== null && k === ample.warp && e >= ample.from && e < ample.end;
        if (!inAmple && !full) {
          // Left out by the reduction: a placeholder keeps edge indices equal to choices.
          edgeTo.push(NOT_EXPANDED);
          edgeStep.push(e);
          edgePerm?.push(this.identity);
          continue;
        }
        this.transitions++;
        let to = -1;
        let perm = this.identity;
        const stop = stepStop.get(e);
        if (inAmple) {
          const i = e - ample!.from;
          to = this.ampleTo[i]!;
          perm = this.amplePerm[i]!;
          if (chains && this.ampleExtra[i]! > 0)
            chains.record(edgeTo.length, to, false, this.ampleExtra[i]!);
        } else if (stop >= 0) {
          const st = stops[stop]!;
          if (st.verdict === 'bound-reached') this.branching ??= st.message;
          else
            this.record(
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
          // An accelerated chain may follow the step (acceleration.ts): the state's only step, or,
          // when `chainAfterAny`, any step whose successor is intermediate; with one warp, a
          // forced chain may go on from where it ends (or from the successor itself).
          const extra = this.successor(k, e, loc, nSteps === 1 || this.chainAfterAny, K === 1);
          const size = visited.size;
          to = this.add(head, c, d + 1, headSteps + 1 + extra);
          perm = this.lastPerm;
          if (extra > 0) chains!.record(edgeTo.length, to, to >= size, extra);
        }
        if (stepUnknown.get(e)) this.sawUnknownChoice = true;
        edgeTo.push(to);
        edgeStep.push(e);
        edgePerm?.push(perm);
      }
    }
  }

  /**
   * Step `e` of warp `k` (local `loc`) from the state being expanded: its successor into
   * `visited.tuple` — or the end of the chain that follows it (`chain`: a plain chain may start
   * there, `Chains.follow`) and of the forced chain after that (`forced`, `Chains.followForced`).
   * Returns the steps accelerated past the first.
   */
  private successor(k: number, e: number, loc: number, chain: boolean, forced: boolean): number {
    const { cache, chains, K, parentTuple } = this;
    const tuple = this.visited.tuple;
    for (let j = 0; j <= K; j++) tuple[j] = parentTuple[j]!;
    tuple[K] = cache.stepMem.get(e);
    let extra = chains && chain ? chains.follow(k, e, loc, tuple, this.chainAfterAny) : 0;
    // No chain: the successor itself.
    if (extra === 0) tuple[k] = cache.warpOf(e);
    if (chains && forced) extra += chains.followForced(k, tuple);
    return extra;
  }

  /**
   * The reduced successor of step `e` (local `loc`) of the one-warp state (`wid`, `mid`), chains
   * included, as the expansion takes it (`FrozenLanes`' closures): (warp id, memory id) into `out`.
   */
  private reducedStep(wid: number, mid: number, e: number, loc: number, out: Int32Array): number {
    const pt = this.parentTuple;
    pt[0] = wid;
    pt[1] = mid;
    const extra = this.successor(0, e, loc, true, true);
    out[0] = this.visited.tuple[0]!;
    out[1] = this.visited.tuple[1]!;
    return extra;
  }

  /**
   * The fair-cycle pass (`fairCycles.ts`) over a closure of `FrozenLanes`: one warp, states with
   * locals `locs`, with this search's fairness (per lane or per place).
   */
  private closureCycles(
    locs: Int32Array,
    edgeStart: Int32Array,
    edgeTo: Int32Array,
    edgeStep: Int32Array,
  ): { fair: boolean; comp: Int32Array } {
    const { cache } = this;
    const n = locs.length;
    const enabled = new Uint8Array(n);
    const ready = this.laneFair ? new Uint32Array(n) : null;
    for (let i = 0; i < n; i++) {
      enabled[i] = cache.localInfo.get(locs[i]!) & 1;
      if (ready) ready[i] = cache.localReady.get(locs[i]!);
    }
    const r = findFairCycles(
      this.graphOf(n, 1, edgeStart, edgeTo, edgeStep, enabled, ready, locs, null),
      this.t0 + this.budget.timeoutMs,
    );
    // Components left unsplit at the time budget may hide a fair cycle: no summary then.
    return { fair: r.count > 0 || r.incomplete, comp: r.comp };
  }

  /**
   * State `head`'s macro edges (`FrozenLanes.macro`): one per exit of summary `sid`, after its
   * steps (choice `nSteps + j` for exit j), labelled with the synthetic step.
   */
  private recordMacro(head: number, d: number, nSteps: number, mid: number, sid: number): void {
    const { visited, edgeTo, edgeStep, edgePerm } = this;
    const headSteps = visited.stepsOf.get(head);
    const tuple = visited.tuple;
    for (let j = 0; j < this.macroWids.length; j++) {
      tuple[0] = this.macroWids[j]!;
      tuple[1] = mid;
      const size = visited.size;
      const to = this.add(head, nSteps + j, d + 1, headSteps + this.macroSteps[j]!);
      this.transitions++;
      edgeTo.push(to);
      // The synthetic step after `macroStep` rests on abstraction (`LocalSteps.syntheticSteps`).
      edgeStep.push(this.macroStep + (this.frozen!.exitAbstract(sid, j) ? 1 : 0));
      edgePerm?.push(this.identity);
      this.frozen!.recordMacro(head, to, to >= size, sid, j);
    }
  }

  /** Adds the state in `visited.tuple` (under warp symmetry, put in canonical order first). */
  private add(from: number, choice: number, depth: number, steps: number): number {
    if (this.sym) this.lastPerm = this.sym.canon(this.visited.tuple);
    return this.visited.add(from, choice, depth, steps);
  }

  /** Records an occurrence of an outcome at state `at` (and its ending step `last`). */
  private record(f: Omit<Finding, 'schedule' | 'loop'>, at: number, last: number | null): void {
    const id = `${f.verdict}:${f.kind ?? ''}:${f.property ?? ''}`;
    if (!this.findings.has(id)) {
      this.findings.set(id, { f, at, last });
      this.occurrences.set(id, []);
    }
    const occ = this.occurrences.get(id)!;
    if (occ.length < 200_000) occ.push(at, last ?? -1);
  }

  /** The recorded graph, for the fair-cycle pass and the findings (`fairCycles.ts`). */
  graph(): Graph {
    return this.graphOf(
      this.expanded,
      this.K,
      this.edgeStart.view(),
      this.edgeTo.view(),
      this.edgeStep.view(),
      this.enabledWarps.view(),
      this.laneFair ? this.readyLanes.view() : null,
      this.stateLocal.view(),
      this.edgePerm && this.options.plantUnsoundWarpSymmetry !== 'index-fairness'
        ? this.edgePerm.view()
        : null,
    );
  }

  /**
   * A graph for `fairCycles.ts` over these states and edges, with the cache's step tables and this
   * search's fairness: per lane (`ready`) or per place (read through `stateLocal`).
   */
  private graphOf(
    expanded: number,
    warps: number,
    edgeStart: Int32Array,
    edgeTo: Int32Array,
    edgeStep: Int32Array,
    enabledWarps: Uint8Array,
    readyLanes: Uint32Array | null,
    stateLocal: Int32Array,
    edgePerm: Int32Array | null,
  ): Graph {
    const { cache } = this;
    return {
      expanded,
      warps,
      edgeStart,
      edgeTo,
      edgeStep,
      stepWarp: cache.stepOf.view(),
      stepMask: cache.stepMask.view(),
      stepGroup: cache.stepGroup.view(),
      stepUnknown: cache.stepUnknown.view(),
      enabledWarps,
      readyLanes,
      readyPlaces: this.placeFair
        ? {
            stateLocal,
            start: cache.localPlaceStart.view(),
            places: cache.localPlaces.view(),
            stepPlace: cache.stepPlace.view(),
          }
        : null,
      edgePerm,
    };
  }
}
