import { isLaneLocalDataOp, type Op } from '../isa/op.ts';
import { moveLaneData } from '../lanes/laneData.ts';
import { outsideTags } from '../lanes/shared.ts';
import { fullMask } from '../lanes/values.ts';
import type { LaneData } from '../lanes/laneData.ts';
import type { Machine, MachineState, WarpState, WarpStep } from '../machine/machine.ts';
import { KeyWriter } from '../machine/key.ts';
import { moveLoopVisits } from '../machine/widening.ts';
import { warpState } from '../machine/warpState.ts';
import { followReplay, type InClass } from './concretize.ts';
import type { GroupPriority } from './groupPriority.ts';
import { int32 } from './growable.ts';
import { ProjectionSink, pushLaneTurns } from './laneChains.ts';
import type { LocalSteps } from './localSteps.ts';
import type { VisitedStates } from './visited.ts';
import { VectorTable } from './tables.ts';

/**
 * The planted bug of the law (`frozenLanes.test.ts`); never set outside tests. `drop-context`:
 * the projection leaves out what the frozen lanes are (their PCs, waits and B registers), so a
 * summary made where a barrier is held by a frozen lane serves where it is not.
 */
export type PlantUnsoundFrozen = 'drop-context';

/**
 * What the search gives the summaries: the reduced successor of step `e` (local `loc`) of the
 * one-warp state (`wid`, `mid`) — the same successor its own expansion takes, chains included —
 * written as (warp id, memory id) into `out`; returns the steps accelerated past the first.
 */
export type ReducedStep = (
  wid: number,
  mid: number,
  e: number,
  loc: number,
  out: Int32Array,
) => number;

/** A summary: the exits of the interior of its owner state, in the owner's frame. */
interface Summary {
  /** The owner's warp id (its interior is explored in full by the search). */
  readonly owner: number;
  /** Exit warp ids, as the visited set interned them. */
  readonly exits: Int32Array;
  /** Per exit: the lanes of its representative that came from the owner's ready lanes. */
  readonly derived: readonly Int32Array[];
  /** Per exit: the machine steps from the owner (chains counted in full). */
  readonly steps: Int32Array;
  /** Per exit: its path from the owner, as (choice, extra, projection of the state reached). */
  readonly paths: readonly Int32Array[];
  /** Per exit: 1 when its recorded path takes a step that rests on abstraction. */
  readonly abstract: Uint8Array;
  /**
   * Its interior may hold a fair cycle: the closure's fair-cycle pass found one, a macro edge of a
   * nested summary lies on one of its cycles, or a nested summary's interior may hold one.
   */
  readonly fair: boolean;
}

/**
 * The fair-cycle pass over a closure (`SearchRun`): states 0..n-1 with their locals `locs`, edges
 * as in `Graph`; returns whether some fair cycle exists and each state's component.
 */
export type ClosureCycles = (
  locs: Int32Array,
  edgeStart: Int32Array,
  edgeTo: Int32Array,
  edgeStep: Int32Array,
) => { fair: boolean; comp: Int32Array };

/** A macro edge's replay: the summary and the exit it took. */
export interface MacroEdge {
  readonly summary: number;
  readonly exit: number;
}

/** Interior closures larger than this are not summarised (the search expands them as always). */
const CLOSURE_CAP = 200_000;
/**
 * Summaries start once a search has stored this many states (`ExploreOptions.frozenAfter`): where
 * the lanes' combinations multiply, a search soon passes it; a smaller one would pay closures it
 * does not meet again.
 */
export const FROZEN_AFTER = 5_000;
/** Below this warp size summaries are off by default: few lanes make few combinations. */
export const FROZEN_MIN_WARP = 8;
/**
 * Summaries are given up while none has been taken once their closures have walked this many
 * states per state the search has stored (or per `FROZEN_AFTER`): interiors that are not met again
 * cost their walk and save nothing. (On `count_above` at W = 32 the first macro edge comes at 23.)
 */
const IDLE_WORK = 50;
/** Summaries made inside the making of others, at most this deep. */
const MAX_NESTING = 400;

/**
 * Summaries of frozen lanes (docs/semantics.md §14.7; issue 16): tabulation of the interiors that
 * the ready lanes of one `its` warp run while the other lanes wait at convergence barriers or have
 * exited.
 *
 * On real loop nests (`count_above`), lanes leave each loop on their own unknown trip counts and
 * wait at the BSYNC after it, so a state records how many lanes wait at each barrier of the nest
 * at once, and the states of each loop are met again in every such combination (degree 4 in the
 * warp size). The running lanes' behaviour does not depend on how many lanes wait elsewhere until
 * a step touches one of them. A state's *projection* keys the ready lanes by their signatures (as
 * the visited set keys them, with loop visits and lane-number pins: `ProjectionSink`, as chain
 * summaries do), plus the *set* of what the other lanes are to a step of the ready ones
 * (`Mechanism.laneContext`: PC, wait, B registers; exited), the shared unknowns they hold
 * (`outsideTags`), the memory and the warp-wide numbers.
 *
 * The first state met with a projection is its *owner*: the search expands it and its interior
 * as always, and the summary records the interior's exits — the states reached from the owner
 * through *interior* steps (below) whose reduced expansion holds a step that is not interior, a
 * stop, or none. A later state with the same projection (another combination of frozen lanes) is
 * not expanded: its successors are the exits, each with the owner's frozen lanes swapped for its
 * own (macro edges). An interior step is a step of the reduced expansion by an instruction that
 * reads no other lane (`interiorOp`), which leaves every waiting or exited lane exactly as it was
 * and memory as it was.
 *
 * Why it is sound: see docs/semantics.md §14.7. The search checks afterwards that no macro edge
 * lies on a cycle (`onCycle`) and that every finding walks again; otherwise it is redone without
 * summaries (`exhaustive.ts`).
 */
export class FrozenLanes {
  /** States given macro edges; summaries recorded; projections refused; verify mismatches. */
  hits = 0;
  recorded = 0;
  refused = 0;
  mismatches = 0;
  /** States the interior closures visited (each once per summary). */
  closureStates = 0;
  /** Set when a closure outgrew its caps: no summaries from then on (`closure`). */
  gaveUp = false;
  /** A closure met a branch on an unknown value (for the search's note on fair choices). */
  sawUnknown = false;
  private readonly table = new VectorTable();
  private readonly key = new KeyWriter();
  private readonly sink: ProjectionSink;
  /** Per projection id: its summary, or null when refused. */
  private readonly summaries: (Summary | null | undefined)[] = [];
  /** Projections whose summaries are being made (a nested closure does not use them). */
  private readonly making = new Set<number>();
  /** Per warp id: (memory id, projection id) of its representative (`projectWarp`). */
  private readonly projOf = new Map<number, [number, number]>();
  /** Per warp id: its summary's exits spliced into it (`exitsOf`). */
  private readonly spliced = new Map<number, { sum: Summary; wids: Int32Array | null }>();
  private readonly nestWids: number[] = [];
  private readonly nestSteps: number[] = [];
  /** Per state id reached first by a macro edge: its summary and exit (`macroOf`). */
  private readonly macroSummary = new Map<number, number>();
  private readonly macroExit = new Map<number, number>();
  private readonly ctx: number[] = [];
  private readonly ctxB: number[] = [];
  private readonly ctxPairs = new Float64Array(64);
  private readonly scratch = new Int32Array(2);
  /** `project`'s ready lanes in signature order (at most 32). */
  private readonly order = new Int32Array(32);
  private readonly full: number;
  private readonly sigSink: ProjectionSink;
  private readonly dropContext: boolean;
  /** Macro edges recorded: (from state, to state) pairs, for the cycle check. */
  readonly macroFrom = int32();
  readonly macroTo = int32();

  constructor(
    private readonly machine: Machine,
    private readonly visited: VisitedStates,
    private readonly cache: LocalSteps,
    private readonly reducedStep: ReducedStep,
    private readonly cycles: ClosureCycles,
    /** The first synthetic step that labels macro edges (`LocalSteps.syntheticSteps`). */
    private readonly macroStep: number,
    /** The visited set leaves dead values out of its keys. */
    private readonly reduced: boolean,
    private readonly deadline: number,
    /** The search's state budget: no closure grows past it (nor past `CLOSURE_CAP`). */
    private readonly maxStates: number,
    /**
     * Summaries start once the search has stored this many states: a small search pays their
     * closures without meeting its interiors again (the law sets 0).
     */
    private readonly after: number,
    /** The law's verify mode: each macro expansion is checked against the closure of its state. */
    private readonly verify: boolean,
    plant: PlantUnsoundFrozen | null,
  ) {
    const W = machine.launch.warpSize;
    this.full = fullMask(W);
    this.sink = new ProjectionSink(W, false);
    this.sigSink = new ProjectionSink(W, false);
    this.dropContext = plant === 'drop-context';
  }

  /**
   * Summaries apply to a launch of one warp on a mechanism that declares `moveLanes` and
   * `laneContext` (`its`), under lane symmetry (a summary pairs lanes by signature, so lanes with
   * equal signatures must be interchangeable: the key then sorts them), without a reference run,
   * and without partial-order reduction inside the warp (single-lane issues).
   */
  static applies(machine: Machine, porInsideWarp: boolean): boolean {
    const m = machine.mechanism;
    return (
      machine.launch.warps === 1 &&
      machine.symmetric &&
      m.moveLanes !== undefined &&
      m.laneContext !== undefined &&
      machine.blockLaunch === undefined &&
      !porInsideWarp
    );
  }

  /**
   * The projection of warp state `w` under memory `mid` (see the class comment), interned; -1
   * when there is none: no ready lane, no frozen lane, a lane the mechanism cannot freeze, a
   * reference run, or a tag too large.
   */
  project(w: WarpState, mid: number): number {
    if (w.ref !== undefined) return -1;
    const mech = this.machine.mechanism;
    const M = mech.ready(w.mech) >>> 0;
    const F = (this.full & ~M) >>> 0;
    if (M === 0 || F === 0) return -1;
    const sink = this.sink;
    sink.reset(M);
    this.machine.writeWarp(w, sink, this.reduced);
    const numbered = this.machine.ownNumberReaders(w);
    const order = this.order;
    let n = 0;
    for (let m = M; m !== 0; m &= m - 1) {
      const l = 31 - Math.clz32(m & -m);
      pushLaneTurns(sink, l, numbered, w.loops);
      sink.lane(l, ((w.anonymous ?? 0) >>> l) & 1);
      order[n++] = l;
    }
    sink.sortLanes(order, n);
    const key = this.key;
    key.reset();
    key.push(mid);
    sink.writeKey(key, order, n);
    // The frozen lanes as a set of what a step of the ready lanes may read of them: per lane
    // (PC, wait, B registers, exited), sorted, each once.
    if (!this.dropContext) {
      const exited = w.data.exited;
      const ctx = this.ctx;
      const pairs = this.ctxPairs;
      const live = this.liveBits(w);
      let np = 0;
      for (let m = F; m !== 0; m &= m - 1) {
        const l = 31 - Math.clz32(m & -m);
        ctx.length = 0;
        if (!mech.laneContext!(w.mech, l, ctx)) return -1;
        // PC; wait (-1 .. 63) and exited below the 16 bits of B-register membership.
        const a = ctx[0]!;
        const b = (ctx[1]! + 1) * 2 + ((exited >>> l) & 1) + (ctx[2]! & live) * 256;
        let i = np;
        while (
          i > 0 &&
          (pairs[2 * i - 2]! > a || (pairs[2 * i - 2] === a && pairs[2 * i - 1]! > b))
        ) {
          pairs[2 * i] = pairs[2 * i - 2]!;
          pairs[2 * i + 1] = pairs[2 * i - 1]!;
          i--;
        }
        pairs[2 * i] = a;
        pairs[2 * i + 1] = b;
        np++;
      }
      let distinct = 0;
      for (let i = 0; i < np; i++)
        if (i === 0 || pairs[2 * i] !== pairs[2 * i - 2] || pairs[2 * i + 1] !== pairs[2 * i - 1])
          distinct++;
      key.push(distinct);
      for (let i = 0; i < np; i++)
        if (i === 0 || pairs[2 * i] !== pairs[2 * i - 2] || pairs[2 * i + 1] !== pairs[2 * i - 1]) {
          key.push(pairs[2 * i]!);
          key.push(pairs[2 * i + 1]!);
        }
    }
    if (!outsideTags(w.data, F, key)) return -1;
    return this.table.intern(key.buf, key.length);
  }

  /**
   * Whether `macro` may take a summary now: past the threshold of stored states and not given up.
   * Before, `macro` would only say no, so the search skips it (and the copy it needs).
   */
  active(): boolean {
    return !this.gaveUp && this.visited.size >= this.after;
  }

  /**
   * The macro successors of the one-warp state (`wid`, `mid`): the exits of the summary of its
   * projection, each with this state's frozen lanes, as warp ids, into `outWids` (with their
   * step counts into `outSteps`); returns the summary (projection) id, or -1 when the state is
   * expanded as always — no projection, a refused one, or the owner itself, whose summary (and
   * those of its interior, `closure`) is made here.
   */
  macro(wid: number, mid: number, outWids: number[], outSteps: number[]): number {
    if (!this.active()) return -1;
    const id = this.projectWarp(wid, mid);
    if (id < 0) return -1;
    const sum = this.summaryOf(id, wid, mid);
    // An interior that may hold a fair cycle (a livelock) is not stood for by macro edges: the
    // state is expanded as always, so the search's own fair-cycle pass sees that cycle.
    if (sum === null || sum.owner === wid || sum.fair) return -1;
    if (!this.exitsOf(wid, sum, outWids, outSteps)) return -1;
    if (this.verify) {
      // The oracle's closure counts toward no cap of the search's own (`closure`).
      const counted = this.closureStates;
      const gaveUp = this.gaveUp;
      const again = this.closure(wid, mid, false, false);
      this.closureStates = counted;
      if (again !== null) {
        const want = [...new Set(again.exits)].sort((a, b) => a - b);
        const got = [...new Set(outWids)].sort((a, b) => a - b);
        if (want.join(',') !== got.join(',')) this.mismatches++;
      } else if (!this.gaveUp) this.mismatches++;
      this.gaveUp = gaveUp;
    }
    this.hits++;
    return id;
  }

  /**
   * The B registers of `w` that matter: those some lane may still read (`Machine.liveBarriers`)
   * and those its lanes wait on. The reduced key leaves the others empty, so their bits differ
   * between members of one class and no step reads them again.
   */
  private liveBits(w: WarpState): number {
    let live = this.machine.liveBarriers(w);
    const ctx = this.ctxB;
    const mech = this.machine.mechanism;
    for (let l = 0; l < this.machine.launch.warpSize; l++) {
      ctx.length = 0;
      if (mech.laneContext!(w.mech, l, ctx) && ctx[1]! >= 0 && ctx[1]! < 16) live |= 1 << ctx[1]!;
    }
    return live;
  }

  /** The projection of warp `wid`'s representative under memory `mid`, memoized per warp. */
  private projectWarp(wid: number, mid: number): number {
    const known = this.projOf.get(wid);
    if (known !== undefined && known[0] === mid) return known[1];
    const id = this.project(this.visited.warpObj(wid), mid);
    this.projOf.set(wid, [mid, id]);
    return id;
  }

  /**
   * `exitsInto` for warp `wid`'s representative, memoized per warp (a summary never changes once
   * made, and a warp's representative is fixed).
   */
  private exitsOf(wid: number, sum: Summary, outWids: number[], outSteps: number[]): boolean {
    const known = this.spliced.get(wid);
    if (known !== undefined && known.sum === sum) {
      outWids.length = 0;
      outSteps.length = 0;
      if (known.wids === null) return false;
      for (let j = 0; j < known.wids.length; j++) {
        outWids.push(known.wids[j]!);
        outSteps.push(sum.steps[j]!);
      }
      return true;
    }
    const ok = this.exitsInto(this.visited.warpObj(wid), sum, outWids, outSteps);
    this.spliced.set(wid, { sum, wids: ok ? Int32Array.from(outWids) : null });
    return ok;
  }

  /** The exits of `sum` with `w`'s frozen lanes, as warp ids (and their steps); false: no fit. */
  private exitsInto(w: WarpState, sum: Summary, outWids: number[], outSteps: number[]): boolean {
    outWids.length = 0;
    outSteps.length = 0;
    const M = this.machine.mechanism.ready(w.mech) >>> 0;
    for (let j = 0; j < sum.exits.length; j++) {
      const exitObj = this.visited.warpObj(sum.exits[j]!);
      const spliced = this.splice(w, M, exitObj, sum.derived[j]!);
      if (spliced === null) return false;
      outWids.push(this.visited.warpId(spliced));
      outSteps.push(sum.steps[j]!);
    }
    return true;
  }

  /**
   * The summary of projection `id`, made from (`wid`, `mid`) — its owner — when there is none;
   * null when refused, or while it is being made (a cycle of interiors) or too deep.
   */
  private summaryOf(id: number, wid: number, mid: number): Summary | null {
    while (this.summaries.length <= id) this.summaries.push(undefined);
    const known = this.summaries[id];
    if (known !== undefined) return known;
    if (this.making.has(id) || this.making.size > MAX_NESTING) return null;
    this.making.add(id);
    const made = this.summarise(wid, mid);
    this.making.delete(id);
    this.summaries[id] = made;
    return made;
  }

  /** Records, for state `to` first reached by a macro edge, the summary and exit it took. */
  recordMacro(from: number, to: number, added: boolean, summary: number, exit: number): void {
    this.macroFrom.push(from);
    this.macroTo.push(to);
    if (added) {
      this.macroSummary.set(to, summary);
      this.macroExit.set(to, exit);
    }
  }

  /** Exit `j` of summary `sid` is reached from its owner only through abstraction. */
  exitAbstract(sid: number, j: number): boolean {
    return this.summaries[sid]!.abstract[j] === 1;
  }

  /** The macro edge that first reached state `id`, or null. */
  macroOf(id: number): MacroEdge | null {
    const summary = this.macroSummary.get(id);
    return summary === undefined ? null : { summary, exit: this.macroExit.get(id)! };
  }

  /**
   * Replay of macro edge `e` from the concrete state `s` to a state in the class of stored state
   * `target` (`concretize.ts`).
   */
  walk(
    s: MachineState,
    e: MacroEdge,
    target: number,
    inClass: InClass,
    forced: GroupPriority | null,
  ): { schedule: number[]; state: MachineState } | null {
    const schedule: number[] = [];
    const end = this.walkPath(s, e.summary, e.exit, (t) => inClass(t, target), forced, schedule);
    return end === null ? null : { schedule, state: end };
  }

  /**
   * Walks summary `sid`'s path to its exit `j` from `s`, hop by hop — at each, a successor (the
   * recorded choice first) whose chain of `extra` steps ends in a state with the recorded
   * projection (the last hop: one that `done` accepts); a hop that stands for a nested summary is
   * walked the same way. Trying any successor is sound: each is a real step of the machine.
   */
  private walkPath(
    s: MachineState,
    sid: number,
    j: number,
    done: (t: MachineState) => boolean,
    forced: GroupPriority | null,
    schedule: number[],
  ): MachineState | null {
    const hops = this.summaries[sid]!.paths[j]!;
    const machine = this.machine;
    let cur = s;
    for (let h = 0; h < hops.length; h += 3) {
      const choice = hops[h]!;
      const extra = hops[h + 1]!;
      const proj = hops[h + 2]!;
      const last = h + 3 === hops.length;
      const ok = (t: MachineState) => (last ? done(t) : this.projectState(t) === proj);
      if (choice < 0) {
        const mark = schedule.length;
        const end = this.walkPath(cur, extra, -1 - choice, ok, forced, schedule);
        if (end === null) {
          schedule.length = mark;
          return null;
        }
        cur = end;
        continue;
      }
      const succ = machine.successors(cur);
      let found: MachineState | null = null;
      for (let k = -1; k < succ.length && found === null; k++) {
        const c = k < 0 ? choice : k;
        if (k === choice) continue;
        const t = succ[c];
        if (!t?.next) continue;
        const tail: number[] = [];
        const reached =
          extra > 0 ? followReplay(machine, t.next, t.warp, extra, tail, forced) : t.next;
        if (!reached || !ok(reached)) continue;
        schedule.push(c);
        for (const x of tail) schedule.push(x);
        found = reached;
      }
      if (found === null) return null;
      cur = found;
    }
    return cur;
  }

  /** The projection of a concrete state's one warp, for replays (-1: none). */
  projectState(s: MachineState): number {
    return this.project(s.warps[0]!, this.visited.memId(s.memory));
  }

  /** The summary of owner (`wid`, `mid`); null when refused. */
  private summarise(wid: number, mid: number): Summary | null {
    const c = this.closure(wid, mid, true, true);
    if (c === null) {
      this.refused++;
      return null;
    }
    const owner = this.visited.warpObj(wid);
    const mech = this.machine.mechanism;
    const F = (this.full & ~(mech.ready(owner.mech) >>> 0)) >>> 0;
    const frozenSigs = this.signatures(owner, F);
    const derived: Int32Array[] = [];
    for (const x of c.exits) {
      const d = this.derivedLanes(this.visited.warpObj(x), frozenSigs);
      if (d === null) {
        this.refused++;
        return null;
      }
      derived.push(d);
    }
    this.recorded++;
    return {
      owner: wid,
      exits: Int32Array.from(c.exits),
      derived,
      steps: Int32Array.from(c.steps),
      paths: c.paths,
      abstract: Uint8Array.from(c.abstract),
      fair: c.fair,
    };
  }

  /**
   * The interior of (`wid`, `mid`): breadth-first over interior steps of the reduced expansion —
   * and, with `nested`, over the summaries of the states it meets (their exits instead of their
   * interiors, which lie inside this one: a state reached by interior steps holds the owner's
   * frozen lanes, so its own interior steps are interior here too). Returns the exits (warp ids,
   * with their machine steps and paths) or null when it is not summarised: the owner's own
   * expansion leaves the interior, a candidate the expansion picks among several (the cycle
   * proviso), over `CLOSURE_CAP` states, or the time budget.
   */
  private closure(
    wid: number,
    mid: number,
    nested: boolean,
    withPaths: boolean,
  ): {
    exits: number[];
    steps: number[];
    paths: Int32Array[];
    abstract: number[];
    fair: boolean;
  } | null {
    const { cache, visited } = this;
    // What the owner's frozen lanes wait on and belong to: a step may change a waiting lane only
    // where it cannot be one of them (`interior`).
    const held = this.heldRegisters(visited.warpObj(wid));
    if (held === null) return null;
    const index = new Map<number, number>();
    const ids: number[] = [wid];
    const parent: number[] = [-1];
    const hopChoice: number[] = [-1];
    const hopExtra: number[] = [0];
    const stepsTo: number[] = [0];
    /** Per node: its recorded path from the owner takes a step that rests on abstraction. */
    const abstractTo: number[] = [0];
    index.set(wid, 0);
    const exits: number[] = [];
    const exitSteps: number[] = [];
    const exitAt: number[] = [];
    const exitAbstract: number[] = [];
    // The closure's graph, for its fair-cycle pass: each node's local and edges (an exit has
    // none); a nested summary's exits are edges labelled with the synthetic step.
    const locs: number[] = [];
    const edgeStart: number[] = [];
    const edgeTo: number[] = [];
    const edgeStep: number[] = [];
    let nestedFair = false;
    const out = this.scratch;
    // Successors of the node being expanded: (warp id, choice, extra, steps, step, abstract).
    const succ: number[] = [];
    const wids = this.nestWids;
    const nsteps = this.nestSteps;
    for (let qi = 0; qi < ids.length; qi++) {
      if (this.gaveUp) return null;
      if ((qi & 255) === 255 && performance.now() > this.deadline) {
        this.gaveUp = true;
        return null;
      }
      // An interior past the caps (an unbounded loop without widening, say): summaries are
      // given up for the rest of the search, which goes on as without them.
      if (
        ids.length > Math.min(CLOSURE_CAP, this.maxStates) ||
        this.closureStates > 4 * this.maxStates ||
        (this.hits === 0 &&
          this.closureStates > IDLE_WORK * Math.max(this.visited.size, FROZEN_AFTER))
      ) {
        this.gaveUp = true;
        return null;
      }
      const w = ids[qi]!;
      this.closureStates++;
      succ.length = 0;
      let exit = false;
      let summarised = false;
      const loc = cache.of(0, w, mid);
      locs.push(loc);
      edgeStart.push(edgeTo.length);
      if (nested && qi > 0) {
        const pu = this.projectWarp(w, mid);
        const sum = pu >= 0 ? this.summaryOf(pu, w, mid) : null;
        if (sum !== null && this.exitsOf(w, sum, wids, nsteps)) {
          summarised = true;
          if (sum.fair) nestedFair = true;
          for (let j = 0; j < wids.length; j++)
            succ.push(
              wids[j]!,
              -1 - j,
              pu,
              nsteps[j]!,
              this.macroStep + sum.abstract[j]!,
              sum.abstract[j]!,
            );
        }
      }
      if (!summarised) {
        const base = cache.localStart.get(loc);
        const nSteps = cache.localStart.get(loc + 1) - base;
        let from = 0;
        let to = nSteps;
        const af = cache.localAmpleFrom.length > loc ? cache.localAmpleFrom.get(loc) : -1;
        if (af >= 0) {
          // Several candidates would leave the choice to the cycle proviso, which depends on
          // the search's order: not summarised.
          if (cache.localMoreStart.get(loc + 1) !== cache.localMoreStart.get(loc)) return null;
          from = af;
          to = cache.localAmpleTo.get(loc);
        }
        exit = nSteps === 0;
        if (!exit) {
          const rep = visited.warpObj(w);
          const frozen = (this.full & ~(this.machine.mechanism.ready(rep.mech) >>> 0)) >>> 0;
          // The steps computed again from the representative: the cache holds each successor's
          // class representative, whose lanes may be numbered otherwise.
          const own = this.machine.warpSteps(0, rep, visited.memObjs[mid]!).steps;
          for (let i = from; i < to; i++) {
            const e = base + i;
            if (cache.stepStop.get(e) >= 0 || !this.interior(e, rep, own[i]!, frozen, mid, held)) {
              exit = true;
              break;
            }
            const extra = this.reducedStep(w, mid, e, loc, out);
            if (out[1] !== mid) {
              exit = true;
              break;
            }
            if (cache.stepUnknown.get(e)) this.sawUnknown = true;
            succ.push(out[0]!, i, extra, 1 + extra, e, cache.stepAbstract.get(e));
          }
        }
      }
      if (exit) {
        // The owner's own expansion leaves the interior: nothing to summarise.
        if (qi === 0) return null;
        exits.push(w);
        exitSteps.push(stepsTo[qi]!);
        exitAbstract.push(abstractTo[qi]!);
        exitAt.push(qi);
        continue;
      }
      for (let k = 0; k < succ.length; k += 6) {
        const t = succ[k]!;
        let at = index.get(t);
        if (at === undefined) {
          at = ids.length;
          index.set(t, at);
          ids.push(t);
          parent.push(qi);
          hopChoice.push(succ[k + 1]!);
          hopExtra.push(succ[k + 2]!);
          stepsTo.push(stepsTo[qi]! + succ[k + 3]!);
          abstractTo.push(abstractTo[qi]! | succ[k + 5]!);
        }
        edgeTo.push(at);
        edgeStep.push(succ[k + 4]!);
      }
    }
    edgeStart.push(edgeTo.length);
    // Fair cycles inside the interior: a macro edge on a cycle hides which lanes issue, so it
    // counts as one.
    const cyc = this.cycles(
      Int32Array.from(locs),
      Int32Array.from(edgeStart),
      Int32Array.from(edgeTo),
      Int32Array.from(edgeStep),
    );
    let hidden = nestedFair;
    for (let q = 0; q < ids.length && !hidden; q++)
      for (let k = edgeStart[q]!; k < edgeStart[q + 1]!; k++)
        if (
          (edgeStep[k] === this.macroStep || edgeStep[k] === this.macroStep + 1) &&
          cyc.comp[edgeTo[k]!] === cyc.comp[q]
        )
          hidden = true;
    // A nested summary that hides a cycle: the interior is walked again without nested
    // summaries, where the fair-cycle pass sees every step.
    if (hidden) return this.closure(wid, mid, false, withPaths);
    const fair = cyc.fair;
    const paths: Int32Array[] = [];
    if (withPaths)
      for (const at of exitAt) {
        const hops: number[] = [];
        for (let q = at; q > 0; q = parent[q]!) {
          hops.push(this.projectWarp(ids[q]!, mid), hopExtra[q]!, hopChoice[q]!);
        }
        paths.push(Int32Array.from(hops.reverse()));
      }
    return { exits, steps: exitSteps, paths, abstract: exitAbstract, fair };
  }

  /**
   * The B registers the frozen lanes of owner `w` wait on (`wait`, a bit per register) and belong
   * to (`member`); null when some frozen lane cannot be frozen (`Mechanism.laneContext`).
   */
  private heldRegisters(w: WarpState): { wait: number; member: number } | null {
    const mech = this.machine.mechanism;
    const F = (this.full & ~(mech.ready(w.mech) >>> 0)) >>> 0;
    const ctx = this.ctx;
    const live = this.liveBits(w);
    let wait = 0;
    let member = 0;
    for (let m = F; m !== 0; m &= m - 1) {
      const l = 31 - Math.clz32(m & -m);
      ctx.length = 0;
      if (!mech.laneContext!(w.mech, l, ctx)) return null;
      if (((w.data.exited >>> l) & 1) === 0 && ctx[1]! >= 0 && ctx[1]! < 30) wait |= 1 << ctx[1]!;
      member |= ctx[2]! & live;
    }
    return { wait, member };
  }

  /**
   * Step `e` from representative `rep` (`step`, computed from `rep`; `frozen`: its waiting and
   * exited lanes) is interior: its
   * instruction reads no other lane (`interiorOp`), it leaves memory as it was, and it changes no
   * lane that may be one of the owner's frozen lanes. Those wait on a register of `held.wait` or
   * have exited — such lanes must stay exactly as they were — and belong to the registers of
   * `held.member`, whose membership no step may change for a waiting lane. A lane that started to
   * wait on another register inside the interior may be woken (a barrier of the running lanes
   * completing).
   */
  private interior(
    e: number,
    rep: WarpState,
    step: WarpStep,
    frozen: number,
    mid: number,
    held: { wait: number; member: number },
  ): boolean {
    const { cache, machine } = this;
    const mech = machine.mechanism;
    const pc = cache.stepPc.get(e);
    const op = machine.ops[pc];
    if (op === undefined || !interiorOp(op)) return false;
    if (cache.stepMem.get(e) !== mid || step.warp === null) return false;
    const next = step.warp;
    // The lanes that may be the owner's: exactly as they were (in the B registers that matter).
    const live = this.liveBits(rep);
    let strict = rep.data.exited & frozen;
    const ctxA = this.ctx;
    const ctxB = this.ctxB;
    for (let m = frozen; m !== 0; m &= m - 1) {
      const l = 31 - Math.clz32(m & -m);
      ctxA.length = 0;
      ctxB.length = 0;
      if (!mech.laneContext!(rep.mech, l, ctxA)) return false;
      if (!mech.laneContext!(next.mech, l, ctxB)) return false;
      const w = ctxA[1]!;
      const isStrict =
        ((strict >>> l) & 1) === 1 || (w >= 0 && w < 30 && ((held.wait >>> w) & 1) === 1);
      if (isStrict) {
        strict |= 1 << l;
        if (ctxA[0] !== ctxB[0] || ctxA[1] !== ctxB[1] || (ctxA[2]! ^ ctxB[2]!) & live)
          return false;
      }
      if ((ctxA[2]! ^ ctxB[2]!) & (held.member | held.wait) & live) return false;
    }
    strict >>>= 0;
    // A step writes only its issued lanes' registers, predicates, calls and loop visits (which
    // are ready, never frozen: SEMANTICS §2, lane-local execution); what it may change of another
    // lane is its mechanism entries (compared above), its exit and its number's forgetting.
    if (((rep.anonymous ?? 0) ^ (next.anonymous ?? 0)) & strict) return false;
    if ((rep.data.exited ^ next.data.exited) & strict) return false;
    if ((cache.stepMask.get(e) & frozen) !== 0) return false;
    return true;
  }

  /** Each lane of `mask` of `w`: its signature (values as keyed, then membership words). */
  private signatures(w: WarpState, mask: number): number[][] {
    const sink = this.sigSink;
    sink.reset(mask);
    this.machine.writeWarp(w, sink, this.reduced);
    const numbered = this.machine.ownNumberReaders(w);
    const out: number[][] = [];
    for (let m = mask; m !== 0; m &= m - 1) {
      const l = 31 - Math.clz32(m & -m);
      pushLaneTurns(sink, l, numbered, w.loops);
      sink.lane(l, ((w.anonymous ?? 0) >>> l) & 1);
      sink.lane(l, (w.data.exited >>> l) & 1);
    }
    sink.finishSets();
    for (let m = mask; m !== 0; m &= m - 1) out.push(sink.signature(31 - Math.clz32(m & -m)));
    return out;
  }

  /**
   * The lanes of exit representative `x` that came from the owner's ready lanes: all lanes but
   * one match for each of the owner's frozen lanes (`frozenSigs`); lanes with equal signatures
   * are interchangeable, so which of them is taken does not matter. Null when some frozen lane
   * has no match (the exit changed a frozen lane: never, for an interior path).
   */
  private derivedLanes(x: WarpState, frozenSigs: readonly number[][]): Int32Array | null {
    const lanes: number[] = [];
    for (let m = this.full; m !== 0; m &= m - 1) lanes.push(31 - Math.clz32(m & -m));
    const sigs = this.signatures(x, this.full);
    const used = new Uint8Array(lanes.length);
    for (const f of frozenSigs) {
      let hit = -1;
      for (let i = 0; i < lanes.length && hit < 0; i++)
        if (!used[i] && sameSig(sigs[i]!, f)) hit = i;
      if (hit < 0) return null;
      used[hit] = 1;
    }
    const out: number[] = [];
    for (let i = 0; i < lanes.length; i++) if (!used[i]) out.push(lanes[i]!);
    return Int32Array.from(out);
  }

  /**
   * `into` (a state of the summary's projection, ready lanes `M`) with its ready lanes given the
   * derived lanes of exit `x`: a lane that may read its own number goes to that number, the others
   * in order. Null when the numbers do not fit.
   */
  private splice(into: WarpState, M: number, x: WarpState, derived: Int32Array): WarpState | null {
    const numbered = this.machine.ownNumberReaders(x);
    const n = derived.length;
    const pairs = new Int32Array(2 * n);
    let free = M;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const d = derived[i]!;
      if ((numbered >>> d) & 1) {
        if (!((free >>> d) & 1)) return null;
        free = (free & ~(1 << d)) >>> 0;
        pairs[2 * k] = d;
        pairs[2 * k + 1] = d;
        k++;
      }
    }
    for (let i = 0; i < n; i++) {
      const d = derived[i]!;
      if ((numbered >>> d) & 1) continue;
      if (free === 0) return null;
      const l = 31 - Math.clz32(free & -free);
      free = (free & ~(1 << l)) >>> 0;
      pairs[2 * k] = l;
      pairs[2 * k + 1] = d;
      k++;
    }
    if (free !== 0) return null;
    const mech = this.machine.mechanism.moveLanes!(into.mech, x.mech, pairs, n);
    const data = moveExited(moveLaneData(into.data, x.data, pairs, n), x.data, pairs, n);
    const loops =
      into.loops && x.loops ? moveLoopVisits(into.loops, x.loops, pairs, n) : into.loops;
    let anon = into.anonymous ?? 0;
    for (let i = 0; i < n; i++) {
      const to = pairs[2 * i]!;
      const src = pairs[2 * i + 1]!;
      anon =
        ((x.anonymous ?? 0) >>> src) & 1 ? (anon | (1 << to)) >>> 0 : (anon & ~(1 << to)) >>> 0;
    }
    return warpState(mech, data, into.ref, loops, anon === 0 ? undefined : anon);
  }
}

/** `moveLaneData` keeps `into`'s exited lanes: here the moved lanes take theirs from `from`. */
function moveExited(into: LaneData, from: LaneData, pairs: Int32Array, n: number): LaneData {
  let exited = into.exited;
  for (let i = 0; i < n; i++) {
    const to = pairs[2 * i]!;
    const src = pairs[2 * i + 1]!;
    exited = (from.exited >>> src) & 1 ? (exited | (1 << to)) >>> 0 : (exited & ~(1 << to)) >>> 0;
  }
  return exited === into.exited ? into : { ...into, exited };
}

function sameSig(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Instructions an interior step may issue: those that read no other lane's registers or masks
 * (data instructions, plain branches, local memory, calls and returns), loads (memory is in the
 * projection and an interior step leaves it as it was), and the convergence-barrier instructions
 * (not BMOV, which moves lane masks through registers) and EXIT, whose effect on the other lanes
 * the projection's context decides (`release` reads of a frozen lane only its wait and
 * membership). Not VOTE (a ballot names lanes), WARPSYNC,
 * atomics and stores to shared memory, BRA.DIV/.CONV (they read which lanes exited), traps.
 */
export function interiorOp(op: Op): boolean {
  switch (op.kind) {
    case 'bra':
      return op.cond === 'none';
    case 'brx':
    case 'call':
    case 'ret':
    case 'bssy':
    case 'bsync':
    case 'break':
    case 'exit':
      return true;
    case 'load':
      return true;
    case 'store':
      return op.local === true;
    default:
      return isLaneLocalDataOp(op);
  }
}
