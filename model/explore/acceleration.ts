import { isLaneLocalDataOp, type Op } from '../isa/op.ts';
import type { Memory } from '../lanes/memory.ts';
import type { Machine, WarpState, WarpStep, WarpSteps } from '../machine/machine.ts';
import { isLocalStep } from '../machine/footprint.ts';
import { KeyWriter } from '../machine/key.ts';
import { firstGroup, plainStep, type GroupPick, type GroupPriority } from './groupPriority.ts';
import { AscendingMap, int32 } from './growable.ts';
import type { LaneChains } from './laneChains.ts';
import { TupleTable } from './tables.ts';
import { CHAIN_ORIGIN, FORCED_ORIGIN, NO_ORIGIN, type Origin } from './visited.ts';

/**
 * Chain acceleration (issue 16, item 3; docs/semantics.md §14.2). A long *concrete* loop in which
 * no lane diverges, waits or touches shared memory is a path of states each with exactly one
 * successor the search expands. Storing every one of them exhausts the depth budget (a kernel of
 * 312,500 iterations × 320 instructions is 10^8 levels). Such a path is followed here without
 * keying or storing its intermediate states, and recorded as one *compressed edge* from the state
 * where it starts (stored) to the state where it ends (stored).
 *
 * A step may be in a chain (`chainable`) when it is local (`machine/footprint.ts`: it reads and
 * writes no memory and leaves memory as it was, so no other warp's steps or enabledness change),
 * its op (and a merged issue's second op) is a lane-local data instruction or a branch (no
 * convergence barrier, WARPSYNC, VOTE, EXIT, call, trap, memory), it resolves no unknown value,
 * is not widened and not order-dependent, and it is not a stop.
 *
 * Where a chain may start, and why verdicts do not change (the exact rule is docs/semantics.md
 * §14.2): the state's expanded step set is that one chainable step, and the step issues every
 * ready lane of its warp (and, under fairness per PC, the warp's ready lanes are all at its PC).
 * Every intermediate state then has exactly one step of that warp (and the other warps exactly as
 * in the start state), so: no deadlock, stop or terminal state is skipped; cycles and strongly
 * connected components among stored states are those of the full graph; and the compressed edge
 * can be labelled with its *first* step for the fair-cycle analysis — an entity ready in every
 * stored state of a component is ready at each chain start in it, hence taken by the chain's first
 * step, and the intermediate states add no entity that is ready throughout and never taken.
 */

/** Steps in one chain before the state reached is stored (a concrete infinite loop then closes as a cycle of stored states). */
export const CHAIN_CAP = 1_000_000;

/** Steps of chains cut at the cap per state of the states budget, in one search (`Chains.total`). */
export const ACCEL_PER_STATE = 10;

/** Planted bugs for the soundness law (`acceleration.test.ts`); never defaults. */
export type PlantUnsoundAccel =
  /** Stores and loads may be in a chain (another warp may read what it writes). */
  | 'swallow-memory'
  /**
   * A chain goes on through a state with several steps — an unknown branch's outcomes, lane
   * groups — taking the first (the other choices are lost).
   */
  | 'first-of-many'
  /**
   * A forced chain (`Chains.followForced`) goes on through any state with a group of one step,
   * taking the first such group whether or not a group rule picks it (the other groups'
   * interleavings are lost).
   */
  | 'forced-first-group';

/**
 * The step may be inside a chain (see above); `plant` only for the soundness law. With
 * `oneWarp` (a launch of one warp: no other warp can store between a chain's steps, and the
 * chain's warp has no other ready lane) a load may be in a chain too: it reads memory and
 * leaves it as it was (docs/semantics.md §14.2, "Loads in a single warp").
 */
export function chainable(
  ops: readonly Op[],
  st: WarpStep,
  mem: Memory,
  plant: PlantUnsoundAccel | null = null,
  oneWarp = false,
): boolean {
  if (st.stop !== null || st.warp === null || st.widened) return false;
  if (st.unknownChoice && plant !== 'first-of-many') return false;
  if (st.orderDependent) return false;
  if (plant === 'swallow-memory') return true;
  const op = ops[st.issue.pc];
  if (op === undefined) return false;
  if (oneWarp && op.kind === 'load' && st.issue.merged === undefined) return st.memory === mem;
  if (!isLocalStep(ops, st, mem)) return false;
  if (!chainOp(op)) return false;
  const merged = st.issue.merged;
  if (merged !== undefined) {
    const op2 = ops[merged.pc];
    if (op2 === undefined || !chainOp(op2)) return false;
  }
  return true;
}

const chainOp = (op: Op): boolean => op.kind === 'bra' || isLaneLocalDataOp(op);

/** Not a BRA.DIV/.CONV, which reads whether other lanes of the warp have exited. */
const plainOp = (op: Op): boolean => op.kind !== 'bra' || op.cond === 'none';

/** A launch of one warp: loads may be in chains (`chainable`). */
export const oneWarpOf = (machine: Machine): boolean => machine.launch.warps === 1;

/** A group rule's pick that a forced chain may take: one step, picked by a rule other than EXIT priority's. */
export const forcedRule = (p: GroupPick | null): p is GroupPick =>
  p !== null && p.to - p.from === 1 && p.rule !== 'exit';

/**
 * The picked step may be inside a forced chain: a lone group's chainable step, or a BSYNC arrival
 * that is a plain step (no stop, memory as it was, no unknown value) and not widened.
 */
export function forcedStepOk(
  rule: GroupPick['rule'],
  st: WarpStep,
  mem: Memory,
  ops: readonly Op[],
  oneWarp: boolean,
): boolean {
  return rule === 'alone'
    ? chainable(ops, st, mem, null, oneWarp) && st.memory === mem
    : plainStep(st, mem) && !st.widened;
}

/** The planted `forced-first-group`: the first group of one step, as if a rule had picked it. */
const plantedPick = (ws: WarpSteps): GroupPick | null =>
  firstGroup(ws.steps, 'bsync', (from, to) => to - from === 1);

/** Where a chain ended: the warp state reached, how many steps past the first, and why it ended. */
export interface ChainEnd {
  readonly warp: WarpState;
  readonly memory: Memory;
  /** Steps taken after the chain's first step (0: nothing was accelerated). */
  readonly steps: number;
  readonly end: 'step' | 'cap' | 'time' | 'cycle';
  /** No step was a BRA.DIV/.CONV (they read other lanes: summaries, `laneChains.ts`). */
  readonly plainOnly: boolean;
}

/**
 * Follows warp `k` from `warp` (the state after a chain's first step) while it has exactly one
 * step and that step is chainable, up to `CHAIN_CAP` steps or until `deadline`
 * (`performance.now()`, checked every 4,096 steps), or until it returns to a state it was in: a
 * concrete infinite loop (`L: BRA L`) ends its chain there, and the state reached is stored, so
 * the cycle closes among stored states. Brent's cycle detection, with the exact key (`keys`)
 * computed only when the step's PC equals the saved state's: about one key per loop turn. Nothing
 * is stored.
 */
/**
 * A chain's cycle check (`followChain`): `save` keeps the exact key of one state, `matches` says
 * whether another state's key equals it — numbers compared in place, no string per turn.
 */
export interface ChainKeys {
  save(w: WarpState, m: Memory): void;
  matches(w: WarpState, m: Memory): boolean;
}

export function followChain(
  machine: Machine,
  k: number,
  warp: WarpState,
  mem: Memory,
  deadline: number,
  plant: PlantUnsoundAccel | null = null,
  keys: ChainKeys | null = null,
  cap = CHAIN_CAP,
  /** The first step must be the warp's only one (a planted `first-of-many` aside). */
  onlyFirst = false,
  /** The steps of `warp`, when the caller has computed them. */
  firstSteps?: WarpSteps,
): ChainEnd {
  const ops = machine.ops;
  const oneWarp = oneWarpOf(machine);
  let w = warp;
  let m = mem;
  let n = 0;
  let plainOnly = true;
  // Brent: the saved state (its PC, its key once needed), and steps since it was saved.
  let savedPc = -1;
  let savedWarp: WarpState | null = null;
  let savedMem: Memory | null = null;
  let savedKeyed = false;
  let power = 1;
  let lam = 0;
  // Runs of dead writes (`machine/deadRun.ts`) are crossed in one call: each of their steps is
  // the one chainable step `warpSteps` would give. Not under a planted bug (the law's chains).
  const deadRun = plant === null ? machine.deadRun : undefined;
  for (let turn = 0; ; turn++) {
    if (n >= cap) return { warp: w, memory: m, steps: n, end: 'cap', plainOnly };
    if ((turn & 4095) === 4095 && performance.now() > deadline)
      return { warp: w, memory: m, steps: n, end: 'time', plainOnly };
    // A dead run stops where Brent's bookkeeping below would act — before a step at the saved
    // state's PC (a key comparison) or the step that saves a state — so the chain saves, compares
    // and ends exactly where it does step by step.
    const max = keys ? Math.min(cap - n, n > 0 ? power - lam : 0) : cap - n;
    if (deadRun && max > 0) {
      const run = deadRun(k, w, m, max, oneWarp, keys ? savedPc : -1);
      if (run) {
        w = run.warp;
        n += run.steps;
        lam += run.steps;
        continue;
      }
    }
    const ws = turn === 0 && firstSteps ? firstSteps : machine.warpSteps(k, w, m);
    if (
      ws.steps.length !== 1 &&
      (plant !== 'first-of-many' || ws.steps.length === 0 || (onlyFirst && n === 0))
    )
      break;
    const st = ws.steps[0]!;
    if (!chainable(ops, st, m, plant, oneWarp)) break;
    if (plainOnly && !plainOp(ops[st.issue.pc]!)) plainOnly = false;
    const merged = st.issue.merged;
    if (plainOnly && merged !== undefined && !plainOp(ops[merged.pc]!)) plainOnly = false;
    if (keys) {
      const pc = st.issue.pc;
      if (pc === savedPc && n > 0) {
        if (!savedKeyed) {
          keys.save(savedWarp!, savedMem!);
          savedKeyed = true;
        }
        if (keys.matches(w, m)) return { warp: w, memory: m, steps: n, end: 'cycle', plainOnly };
      }
      if (lam === power || n === 0) {
        savedPc = pc;
        savedKeyed = false;
        savedWarp = w;
        savedMem = m;
        power *= 2;
        lam = 0;
      }
      lam++;
    }
    // A planted chain that writes memory carries the new memory along (only for the law).
    w = st.warp!;
    m = st.memory!;
    n++;
  }
  return { warp: w, memory: m, steps: n, end: 'step', plainOnly };
}

/**
 * The one transition of warp `k` among `succ` (a replayed chain step), or -1 when there is not
 * exactly one.
 */
export function chainChoice(succ: readonly { readonly warp: number }[], k: number): number {
  let found = -1;
  for (let c = 0; c < succ.length; c++) {
    if (succ[c]!.warp !== k) continue;
    if (found >= 0) return -1;
    found = c;
  }
  return found;
}

/** What `exhaustive.ts` needs of its expansion stage and visited set to start chains. */
interface ChainHost {
  readonly machine: Machine;
  readonly visited: {
    readonly memObjs: readonly Memory[];
    /** Warp `id`'s representative (`VisitedStates.warpObj`: computed again if dropped). */
    warpObj(id: number): WarpState;
    isRepresentative(id: number, w: WarpState): boolean;
    /** Forgets warp `id`'s object where it can be computed again (`VisitedStates.dropWarp`). */
    dropWarp(id: number): void;
    warpId(ws: WarpState, origin?: Origin, a?: number, b?: number): number;
    memId(m: Memory): number;
  };
  readonly cache: {
    readonly stepChain: { get(i: number): number };
    /** Step e's successor warp id (`LocalSteps.warpOf`). */
    warpOf(e: number): number;
    /** Forgets the objects of local `loc`'s steps not interned (`LocalSteps.dropLazy`). */
    dropLazy(loc: number): void;
    /** Local `loc`'s (warp index, warp id, memory id) (`LocalSteps.localKey`). */
    localKey(loc: number, j: 0 | 1 | 2): number;
    localOf(e: number): number;
    /** Step e's successor computed again from its local's warp (`LocalSteps.successor`). */
    successor(e: number, from: WarpState): WarpState;
    readonly stepMem: { get(i: number): number };
    readonly stepMask: { get(i: number): number };
    readonly stepPlace: { get(i: number): number };
    readonly localReady: { get(i: number): number };
    readonly localPlaceStart: { get(i: number): number };
    readonly localPlaces: { get(i: number): number };
    readonly localStart: { get(i: number): number };
    readonly stepStop: { get(i: number): number };
    readonly localForced: { get(i: number): number };
    readonly localAmpleFrom: { get(i: number): number };
    readonly localAmpleTo: { get(i: number): number };
    /** The local id of warp k in warp state wid under memory mid, expanded on first use. */
    of(k: number, wid: number, mid: number, given?: WarpSteps): number;
  };
  readonly placeFair: boolean;
  /** The visited set leaves dead values out of its keys (`Reductions.deadValues`). */
  readonly reduced: boolean;
  /**
   * The search's group rules (EXIT priority, BSYNC priority, groups that run alone), when on:
   * forced chains pass the steps of the last two (`Chains.followForced`).
   */
  readonly groups: GroupPriority | null;
  /**
   * Summaries of chains by their running lanes (`laneChains.ts`), when on; with `verify` (the
   * law only) every summary is checked against the chain walked from the same start.
   */
  readonly summaries: LaneChains | null;
  readonly verifySummaries?: boolean;
}

/**
 * The explorer's side of acceleration: starts chains at the states where the rule allows it and
 * records which edges (and which states' breadth-first parent edges) are compressed, and by how
 * many steps, for the findings (their schedules expand each chain again, `concretize.ts`).
 */
export class Chains {
  /** Edge index → steps after its first (compressed edges only). */
  readonly ofEdge = new AscendingMap();
  /** State id → steps after the first of the edge from its breadth-first parent. */
  readonly ofState = new AscendingMap();
  /** Steps executed inside chains (not counting each chain's first step), and chains. */
  steps = 0;
  count = 0;
  /** Forced chains (`followForced`), memo hits included. */
  forced = 0;
  /** Chains stopped by the chain cap, and by the time budget. */
  capped = 0;
  timedOut = false;
  private readonly kw = new KeyWriter();
  private readonly savedKw = new KeyWriter();
  /**
   * The visited set's own warp key (dead values left out when it leaves them out): a chain stops
   * where it returns to a state the visited set would call the same. Memory only counts under the
   * planted bug (a real chain leaves memory as it was).
   */
  private readonly chainKeys: ChainKeys = {
    save: (w, m) => this.writeKey(this.savedKw, w, m),
    matches: (w, m) => {
      const a = this.savedKw;
      const b = this.kw;
      this.writeKey(b, w, m);
      return a.equals(b);
    },
  };

  private writeKey(kw: KeyWriter, w: WarpState, m: Memory): void {
    kw.reset();
    this.host.machine.warpKey(w, kw, this.host.reduced);
    if (this.plant) this.host.machine.memoryKey(m, kw);
  }
  /**
   * Chains already followed, by where they start: (warp index, warp id after the first step,
   * memory id), interned in `memoStarts`, whose id indexes the arrays below. A chain is a pure
   * function of where it starts (the machine is deterministic along it), so a start met again — a
   * spinning warp's turn, in every combination of the other warps — costs a lookup instead of
   * running the machine. Only chains that ended by themselves ('step', 'cycle') are kept; -1: none
   * kept for that start.
   */
  private readonly memoStarts = new TupleTable(3);
  private readonly memoKey = new Int32Array(3);
  private readonly memoWarp = int32();
  private readonly memoMem = int32();
  private readonly memoSteps = int32();
  /** The same for forced chains (`followForced`), by the local they start at. */
  private readonly forcedWarp = int32();
  private readonly forcedMem = int32();
  private readonly forcedSteps = int32();
  /**
   * Steps run on the machine in chains cut at the cap, for the total budget. Chains that end by
   * themselves are the search's own work, bounded by its time budget: at W = 32 `count_above`
   * walks 350 M steps in such chains to its verdict, and a budget on all of them stopped chains
   * there and left the search without them (1.48 M states at depth 40 against 1.38 M at 15).
   */
  private computed = 0;

  /** The total budget of steps in capped chains is spent: no chain starts any more. */
  get exhausted(): boolean {
    return this.computed >= this.total;
  }

  constructor(
    private readonly host: ChainHost,
    private readonly deadline: number,
    private readonly plant: PlantUnsoundAccel | null,
    /** Steps per chain (`CHAIN_CAP`, or the states budget when smaller). */
    readonly cap: number = CHAIN_CAP,
    /**
     * Steps of chains cut at the cap in the whole search (`ACCEL_PER_STATE` × the states
     * budget): past it no chain starts, so a concrete loop that never ends (a counter that never
     * meets its bound: each chain runs to the cap) reaches the plain search's own budget instead
     * of running chains until the time budget.
     */
    readonly total: number = Infinity,
  ) {}

  /**
   * Step `e` of warp `k` (local `loc`) is expanded from the state being expanded, whose other
   * warps are in `tuple`. When a chain may start at the step's successor, follows it and puts its
   * end into `tuple` (entries k and K, memory); returns the steps accelerated past the first. 0:
   * no chain, and `tuple` is as it was — the caller puts the successor there.
   *
   * `anyFirst` false: `e` is the state's one expanded step and must itself be chainable (the
   * successor then is the chain's first intermediate state). `anyFirst` true: `e` is any
   * expanded step but a stop, one of several or not; the chain starts only when the successor's
   * warp k has exactly one step and it is chainable, so the successor — under partial-order
   * reduction, with warp k's only step local, a valid one-step ample set — is intermediate
   * (docs/semantics.md §14.2, "Chains after any step").
   */
  follow(k: number, e: number, loc: number, tuple: Int32Array, anyFirst = false): number {
    const steps = this.chainFrom(k, e, loc, tuple, anyFirst);
    if (steps > 0) {
      this.steps += steps;
      this.count++;
    }
    return steps;
  }

  /** `follow` without counting the chain in `steps` and `count` (a forced chain counts itself). */
  private chainFrom(
    k: number,
    e: number,
    loc: number,
    tuple: Int32Array,
    anyFirst: boolean,
  ): number {
    const { machine, visited, cache, placeFair } = this.host;
    if (this.computed >= this.total) return 0;
    if (anyFirst) {
      if (cache.stepStop.get(e) >= 0) return 0;
    } else if (!cache.stepChain.get(e)) return 0;
    // The chain's first step issues every ready lane of its warp (docs/semantics.md §14.2).
    if ((cache.localReady.get(loc) & ~cache.stepMask.get(e)) >>> 0 !== 0) return 0;
    if (placeFair) {
      const from = cache.localPlaceStart.get(loc);
      const to = cache.localPlaceStart.get(loc + 1);
      if (to - from !== 1 || cache.localPlaces.get(from) !== cache.stepPlace.get(e)) return 0;
    }
    const K = tuple.length - 1;
    const mid = cache.stepMem.get(e);
    const start = cache.warpOf(e);
    // Where the chain starts, (warp index, warp id, memory id), is the memo's key. The start is
    // expanded (`LocalSteps.of`) only where no chain runs, from the steps computed for the walk:
    // where a chain runs it is never stored.
    const memoKey = this.memoKey;
    memoKey[0] = k;
    memoKey[1] = start;
    memoKey[2] = mid;
    const slot = this.memoStarts.intern(memoKey);
    const mem = visited.memObjs[mid]!;
    const hit = slot < this.memoSteps.length ? this.memoSteps.get(slot) : -1;
    if (hit >= 0) {
      const steps = hit;
      if (steps === 0) return 0;
      tuple[k] = this.memoWarp.get(slot);
      tuple[K] = this.memoMem.get(slot);
      return steps;
    }
    // A start whose running lanes a recorded chain had: its end, lane for lane (`laneChains.ts`),
    // looked up before the start's steps are computed. A projection with a recorded chain says
    // that the start's one step is chainable (its lanes, paired with the recorded start's, issue
    // the same instruction alone: docs/semantics.md §14.5), so a hit needs no steps. In verify
    // mode the chain is walked as well (below), and a hit whose start has no such step shows as a
    // mismatch (the walk ends at once). Under a planted bug of the chains (their law only) the
    // argument does not hold — `first-of-many` records chains from starts of several steps,
    // `swallow-memory` chains of barrier steps — so there the start's steps are computed first
    // and the summary serves only a start whose one step is chainable, as before.
    const summaries = this.host.summaries;
    const startWarp = visited.warpObj(start);
    const checked = this.plant !== null ? machine.warpSteps(k, startWarp, mem) : null;
    const summary =
      summaries &&
      (checked === null ||
        (checked.steps.length === 1 &&
          chainable(machine.ops, checked.steps[0]!, mem, this.plant, oneWarpOf(machine))))
        ? summaries.lookup(k, startWarp, mid)
        : null;
    if (summary && !this.host.verifySummaries) {
      // No origin: the summary assembles its end lane by lane, which may differ from the walked
      // end in dead values; walking again would give another member of the class.
      tuple[k] = visited.warpId(summary.warp);
      tuple[K] = mid;
      this.remember(slot, true, tuple[k]!, mid, summary.steps);
      // The memo answers this start from now on: its object can go (computed again if needed).
      visited.dropWarp(start);
      return summary.steps;
    }
    // The start's steps: they serve the walk's first step and the expansion cache where no chain
    // runs (the start is then stored and expanded: its steps are computed once).
    const first = checked ?? machine.warpSteps(k, startWarp, mem);
    // A chain stops where it returns to a state the visited set would call the same (`chainKeys`).
    const keys = this.chainKeys;
    // `anyFirst`: only where the successor's warp k has exactly one step, and it is chainable.
    const end = followChain(
      machine,
      k,
      startWarp,
      mem,
      this.deadline,
      this.plant,
      keys,
      Math.min(this.cap, this.total - this.computed),
      anyFirst,
      first,
    );
    if (end.end === 'cap') {
      this.capped++;
      this.computed += end.steps;
    }
    if (end.end === 'time') this.timedOut = true;
    const kept = end.end === 'step' || end.end === 'cycle';
    if (summary) summaries!.verify(summary, end.warp, end.steps);
    else if (summaries) summaries.record(k, startWarp, mid, mem, end, kept, end.plainOnly);
    if (end.steps === 0) {
      cache.of(k, start, mid, first);
      this.remember(slot, kept, -1, -1, 0);
      return 0;
    }
    // Its origin: the chain walked again, when it left memory as it was (every chain but a planted
    // one's).
    tuple[k] =
      end.memory === mem
        ? visited.warpId(end.warp, CHAIN_ORIGIN, e, end.steps)
        : visited.warpId(end.warp);
    tuple[K] = end.memory === mem ? mid : visited.memId(end.memory);
    this.remember(slot, kept, tuple[k]!, tuple[K]!, end.steps);
    if (kept) visited.dropWarp(start);
    return end.steps;
  }

  /**
   * A forced chain (docs/semantics.md §14.3 "Chains", §14.4 "Chains"): the successor in `tuple`
   * of an expanded step of warp `k` is skipped when its own reduced expansion is one step picked
   * by a group rule — a group that runs alone (`aloneGroups.ts`) or a group that starts to wait at
   * a BSYNC first (`bsyncPriority.ts`) — and so on from the state it leads to; where the warp is
   * left with exactly one chainable step, a plain chain (`followChain`) goes on from there. The
   * first state that is neither is stored, `tuple` set to it. Each skipped state has that one
   * successor in the reduced graph (the search's own choice with one warp; with several, a valid
   * choice of its ample set: a group rule's pick is persistent, and a state may be reached with
   * other choices elsewhere — a superset of a persistent set is still one), and no finding (a
   * forced step is no stop; another group's stop stays enabled and is seen at the stored end).
   * No cycle takes the first forced step — its lanes wait at a BSYNC off every loop, which they
   * pass only once released (bsync), or join the lanes that have exited or cannot reach the
   * group's PC, a count no step lowers (alone) — so the compressed edge is on no cycle, and the
   * fair-cycle analysis and the cycle proviso never need its label (docs/semantics.md §14.3).
   * The chain leaves memory as it was. Returns the steps skipped (0: none).
   */
  followForced(k: number, tuple: Int32Array): number {
    const { machine, visited, cache, groups } = this.host;
    if (!groups || this.computed >= this.total) return 0;
    const K = tuple.length - 1;
    const mid = tuple[K]!;
    const slot = cache.of(k, tuple[k]!, mid);
    const planted = this.plant === 'forced-first-group';
    // Most successors have no forced step: one look at the cached expansion.
    if (!planted && cache.localForced.get(slot) === 0) return 0;
    const hit = slot < this.forcedSteps.length ? this.forcedSteps.get(slot) : -1;
    if (hit > 0) {
      tuple[k] = this.forcedWarp.get(slot);
      tuple[K] = this.forcedMem.get(slot);
      this.steps += hit;
      this.count++;
      this.forced++;
      return hit;
    }
    // The first step is the successor's cached one; past it the chain walks the machine's steps
    // without interning the states it passes (a key each), as a plain chain does, and interns
    // only where it hands over to a plain chain (memoized per start: states met from many forced
    // chains) or ends.
    const ops = machine.ops;
    const oneWarp = oneWarpOf(machine);
    const mem = visited.memObjs[mid]!;
    /** The state reached: its id when interned (else -1), and the state itself. */
    let wid = tuple[k]!;
    let w = visited.warpObj(wid);
    let n = 0;
    let kept = true;
    /** The chain ended in a plain chain, which put its end into `tuple`. */
    let end = false;
    /** The state after the forced first step (-1: the planted pick); where a plain chain took over. */
    let first = -1;
    let handover = -1;
    for (;;) {
      if (n >= this.cap) {
        this.capped++;
        this.computed += n;
        kept = false;
        break;
      }
      if (n === 0 && !planted) {
        // The successor's forced step, as the expansion cache judged it (`LocalSteps.localForced`).
        wid = cache.warpOf(cache.localStart.get(slot) + cache.localAmpleFrom.get(slot));
        w = visited.warpObj(wid);
        first = wid;
        n++;
        continue;
      }
      const ws = machine.warpSteps(k, w, mem);
      if (n > 0 && ws.steps.length === 1) {
        // The warp's one step: when it is chainable, it is skipped too and a plain chain goes on
        // from its successor (`follow`'s, memoized).
        const st = ws.steps[0]!;
        if (!chainable(ops, st, mem, null, oneWarp) || st.memory !== mem) break;
        if (wid < 0) wid = visited.warpId(w, planted ? NO_ORIGIN : FORCED_ORIGIN, slot, n);
        // The steps computed here are the local's only if `w` is the class's stored state (lane
        // symmetry and dead values make another member the representative).
        handover = wid;
        const loc = cache.of(k, wid, mid, visited.isRepresentative(wid, w) ? ws : undefined);
        const first = cache.localStart.get(loc);
        const capped = this.capped;
        const more = this.chainFrom(k, first, loc, tuple, false);
        // No chain: the handover's successor is the stored end.
        if (more === 0) tuple[k] = cache.warpOf(first);
        n += 1 + more;
        // A plain chain cut by the cap or the time budget is not kept, nor is this one.
        if (this.timedOut || this.capped !== capped) kept = false;
        end = true;
        break;
      }
      const p = planted ? plantedPick(ws) : groups.pick(w, ws, mem);
      if (!forcedRule(p)) break;
      const st = ws.steps[p.from]!;
      if (!forcedStepOk(p.rule, st, mem, ops, oneWarp)) break;
      w = st.warp!;
      wid = -1;
      n++;
    }
    if (n === 0) return 0;
    if (!end)
      tuple[k] = wid >= 0 ? wid : visited.warpId(w, planted ? NO_ORIGIN : FORCED_ORIGIN, slot, n);
    if (kept) {
      while (this.forcedSteps.length <= slot) {
        this.forcedWarp.push(-1);
        this.forcedMem.push(-1);
        this.forcedSteps.push(-1);
      }
      this.forcedWarp.set(slot, tuple[k]!);
      this.forcedMem.set(slot, tuple[K]!);
      this.forcedSteps.set(slot, n);
      // The memo answers this local from now on: the states the walk passed are never stored
      // from here, so their objects can go (computed again if asked for: `VisitedStates.warpObj`).
      const passed = cache.localKey(slot, 1);
      if (passed !== tuple[k]) visited.dropWarp(passed);
      if (first >= 0 && first !== tuple[k]) visited.dropWarp(first);
      if (handover >= 0 && handover !== tuple[k]) visited.dropWarp(handover);
      cache.dropLazy(slot);
    }
    this.steps += n;
    this.count++;
    this.forced++;
    return n;
  }

  /**
   * Follows an origin again (`VisitedStates.warpObj`): a plain chain of `n` steps after step `e`,
   * from `start`, the representative of the chain start's class (`originStart`) — which the walk
   * started from, and which under lane symmetry may be another member than the step's own
   * successor — as `followChain` walked it (each step the warp's only one).
   */
  rewalk(e: number, n: number, start: WarpState): WarpState {
    const { machine, visited, cache } = this.host;
    const k = cache.localKey(cache.localOf(e), 0);
    const mem = visited.memObjs[cache.stepMem.get(e)]!;
    let w = start;
    for (let i = 0; i < n; i++) {
      // A chain's step is the warp's only one; a walk past the chain's end (never, but for the
      // law's planted bug) stops where no step leads on, and the key check judges the state.
      const next = machine.warpSteps(k, w, mem).steps[0]?.warp;
      if (!next) break;
      w = next;
    }
    return w;
  }

  /**
   * The warp a chain or forced-walk origin starts from: the chain start's class after step `e`
   * (`CHAIN_ORIGIN`), or the state after local `slot`'s forced first step (`FORCED_ORIGIN`) — both
   * interned by the walk, whose representatives the walk read.
   */
  originStart(forced: boolean, a: number): number {
    const cache = this.host.cache;
    return cache.warpOf(forced ? cache.localStart.get(a) + cache.localAmpleFrom.get(a) : a);
  }

  /**
   * Follows an origin again: `n` steps of a forced walk from local `slot`, from `first`, the
   * representative of the state after its cached forced step (`originStart`), by the group rules'
   * picks (`followForced`).
   */
  reforce(slot: number, n: number, first: WarpState): WarpState {
    const { machine, visited, cache, groups } = this.host;
    const k = cache.localKey(slot, 0);
    const mem = visited.memObjs[cache.localKey(slot, 2)]!;
    let w = first;
    for (let i = 1; i < n; i++) {
      const ws = machine.warpSteps(k, w, mem);
      w = ws.steps[groups!.pick(w, ws, mem)!.from]!.warp!;
    }
    return w;
  }

  /** Fills the memo slot of local `slot`: the chain's end, or (not kept) -1, run again next time. */
  private remember(slot: number, kept: boolean, warp: number, mem: number, steps: number): void {
    while (this.memoSteps.length <= slot) {
      this.memoWarp.push(-1);
      this.memoMem.push(-1);
      this.memoSteps.push(-1);
    }
    this.memoWarp.set(slot, warp);
    this.memoMem.set(slot, mem);
    this.memoSteps.set(slot, kept ? steps : -1);
  }

  /** Records that edge `edge` (to `to`, a new state when `added`) is a chain of `extra` more steps. */
  record(edge: number, to: number, added: boolean, extra: number): void {
    if (extra === 0) return;
    this.ofEdge.set(edge, extra);
    if (added) this.recordState(to, extra);
  }

  /** Records that new state `to` is reached from its breadth-first parent by a chain of `extra` more steps (states in the order they are added). */
  recordState(to: number, extra: number): void {
    this.ofState.set(to, extra);
  }
}
