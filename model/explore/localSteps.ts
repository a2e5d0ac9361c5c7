import type { Machine, Stop, Transition, WarpState, WarpSteps } from '../machine/machine.ts';
import { int32, uint16, uint32, uint8 } from './growable.ts';
import type { GroupPriority } from './groupPriority.ts';
import type { PartialOrder } from './partialOrder.ts';
import {
  chainable,
  forcedRule,
  forcedStepOk,
  oneWarpOf,
  type PlantUnsoundAccel,
} from './acceleration.ts';
import { leavesGraph } from './offGraph.ts';
import { TupleTable } from './tables.ts';
import { STEP_ORIGIN, type VisitedStates } from './visited.ts';

/** `LocalSteps.stepWarp` of a step whose successor warp is not interned yet (`warpOf`). */
const LAZY = -3;

/**
 * The expansion stage of `explore`: local expansions, cached per (warp index, warp id, memory
 * id). A warp's steps depend on its own state and memory only (`Machine.warpSteps`), so a state's
 * successors are its warps' cached steps with one tuple entry (and maybe memory) replaced. This is
 * caching of a pure function, not a reduction. Each distinct step is stored once, as columns of
 * typed arrays indexed by step number; a local's steps are `localStart[l] .. localStart[l+1]-1`.
 */
export class LocalSteps {
  private readonly table = new TupleTable(3);
  private readonly key = new Int32Array(3);
  /** Per local: bit 0 enabled, bit 1 live. */
  readonly localInfo = uint32();
  /** Per local: the steps `localStart + from .. localStart + to - 1` may run alone, or from = -1. */
  readonly localAmpleFrom = int32();
  readonly localAmpleTo = int32();
  /**
   * Per local: 1 when its ample steps exit lanes (EXIT priority) or arrive at a BSYNC off every
   * cycle (BSYNC priority): no fair cycle passes them.
   */
  readonly localAcyclic = uint8();
  /** Per local: 1 when its ample steps are a group that runs alone (`aloneGroups.ts`). */
  readonly localAlone = uint8();
  /**
   * Per local: 1 when its ample set is one step a group rule forced (a group that runs alone, one
   * arriving at a BSYNC first) and that step may be inside a forced chain (`forcedRule`,
   * `forcedStepOk`; `Chains.followForced`), else 0.
   */
  readonly localForced = uint8();
  /** Locals whose ample set is an EXIT-priority group (`groupPriority.ts`), for the tally. */
  exitPriority = 0;
  /** Locals whose ample set is a group that runs alone (`aloneGroups.ts`), for the tally. */
  aloneGroups = 0;
  /** Locals whose ample set is a group arriving at a BSYNC (`bsyncPriority.ts`), for the tally. */
  bsyncPriority = 0;
  /**
   * Per local: its further candidate ranges (`WarpAmple.more`) are
   * `ampleMore[localMoreStart[l] .. localMoreStart[l+1]-1]`, pairs of (from, to).
   */
  readonly localMoreStart = int32();
  readonly ampleMore = int32();
  /** Per local: `Mechanism.ready` (lane fairness). */
  readonly localReady = uint32();
  readonly localStart = int32();
  /**
   * Per step: the next warp's id and memory's id (-1 for a stop). Read a step's warp id through
   * `warpOf`: a step a reduced state leaves out holds `LAZY` until first asked for.
   */
  readonly stepWarp = int32();
  /**
   * Per step: its successor warp while not interned (`stepWarp` = `LAZY`), else `undefined`;
   * also `undefined` once dropped (`dropLazy`): `warpObj` computes it again from the local.
   */
  private readonly lazy: (WarpState | undefined)[] = [];
  /** Per step: the local it belongs to (for `VisitedStates.warpObj` and `dropLazy`). */
  private readonly stepLocal = int32();
  readonly stepMem = int32();
  /** Per step: the warp index that issues it. */
  readonly stepOf = uint8();
  readonly stepMask = uint32();
  readonly stepGroup = uint16();
  readonly stepUnknown = uint8();
  /** The step rests on abstraction: an unknown branch's outcome, or a widened loop. */
  readonly stepAbstract = uint8();
  /** -1, or an index into `stops`. */
  readonly stepStop = int32();
  readonly stepPc = int32();
  /** Per step: it may be inside an accelerated chain (`acceleration.ts`); all 0 when off. */
  readonly stepChain = uint8();
  readonly stops: Stop[] = [];
  /**
   * Fairness per place (`Mechanism.fairPlaces`, under lane symmetry): the places of each local's
   * ready lanes are `localPlaces[localPlaceStart[l] .. localPlaceStart[l+1]-1]`, and `stepPlace`
   * is the place each step issues (that of its lanes); empty when off.
   */
  readonly localPlaceStart = int32();
  readonly localPlaces = int32();
  readonly stepPlace = int32();
  /** Scratch of `of`: each lane's place in the warp being expanded. */
  private readonly placeOfLane: Int32Array;
  /** A launch of one warp: loads may be chain steps (`chainable`). */
  private readonly oneWarp: boolean;
  /** The first step whose lanes of different symmetry classes raced (`Transition.orderDependent`). */
  orderDependent: Transition['issue'] | null = null;
  /**
   * The first step that leaves the control flow the reachability analysis assumes (`offGraph.ts`),
   * looked for only while a reduction that rests on it is on (`checkGraph`).
   */
  offGraph: Transition['issue'] | null = null;
  checkGraph = false;
  /** A step resolved an unknown value under partial-order reduction: redo without it. */
  porAbstract = false;

  constructor(
    private readonly machine: Machine,
    private readonly visited: VisitedStates,
    private readonly por: PartialOrder | null,
    private readonly placeFair: boolean,
    private readonly groups: GroupPriority | null = null,
    /** Chain acceleration is on (`acceleration.ts`), with a planted bug only in its law. */
    private readonly accel: { readonly plant: PlantUnsoundAccel | null } | null = null,
  ) {
    this.localStart.push(0);
    this.localPlaceStart.push(0);
    this.placeOfLane = new Int32Array(placeFair ? 32 : 0);
    this.oneWarp = oneWarpOf(machine);
    this.localMoreStart.push(0);
  }

  /**
   * Two steps that no local holds, to label the search's macro edges (`frozenLanes.ts`): they
   * issue nothing a fairness check could read (macro edges lie on no cycle, which the search
   * checks) and are no stop; the first rests on no abstraction, the second does (`stepAbstract`,
   * for the concrete-witness pass). Made before any local, once; returns the first's index.
   */
  syntheticSteps(): number {
    if (this.table.size !== 0) throw new Error('syntheticSteps: locals already made');
    const e = this.stepMask.length;
    for (const abstract of [0, 1]) {
      this.stepOf.push(0);
      this.stepLocal.push(-1);
      this.stepPc.push(-1);
      this.stepChain.push(0);
      this.stepMask.push(0);
      this.stepGroup.push(0);
      this.stepUnknown.push(0);
      this.stepAbstract.push(abstract);
      this.stepStop.push(-1);
      this.lazy.push(undefined);
      this.stepWarp.push(-1);
      this.stepMem.push(-1);
      if (this.placeFair) this.stepPlace.push(-1);
    }
    this.localStart.set(0, this.stepMask.length);
    return e;
  }

  /** The local step `e` belongs to. */
  localOf(e: number): number {
    return this.stepLocal.get(e);
  }

  /** Local `loc`'s (warp index, warp id, memory id): entry j of its key. */
  localKey(loc: number, j: 0 | 1 | 2): number {
    return this.table.at(loc, j);
  }

  /** Step `e`'s successor computed again from `from`, the warp of its local. */
  successor(e: number, from: WarpState): WarpState {
    const loc = this.stepLocal.get(e);
    const mem = this.visited.memObjs[this.table.at(loc, 2)]!;
    const ws = this.machine.warpSteps(this.table.at(loc, 0), from, mem);
    return ws.steps[e - this.localStart.get(loc)]!.warp!;
  }

  /** Step `e`'s successor warp as an object, interned or not (never asked of a stop). */
  warpObj(e: number): WarpState {
    const w = this.stepWarp.get(e);
    if (w !== LAZY) return this.visited.warpObj(w);
    const kept = this.lazy[e];
    if (kept !== undefined) return kept;
    const again = this.successor(e, this.visited.warpObj(this.table.at(this.stepLocal.get(e), 1)));
    this.lazy[e] = again;
    return again;
  }

  /**
   * Forgets the successor objects of local `loc`'s steps that are not interned: the search calls
   * it where it expects not to need them (a one-warp state once expanded, a state a forced chain
   * passed); `warpObj` computes one again if it is asked for after all.
   */
  dropLazy(loc: number): void {
    for (let e = this.localStart.get(loc), end = this.localStart.get(loc + 1); e < end; e++)
      this.lazy[e] = undefined;
  }

  /** The id of step `e`'s successor warp (interned on first use when `LAZY`); -1 for a stop. */
  warpOf(e: number): number {
    const w = this.stepWarp.get(e);
    if (w !== LAZY) return w;
    const id = this.visited.warpId(this.warpObj(e), STEP_ORIGIN, e);
    this.lazy[e] = undefined;
    this.stepWarp.set(e, id);
    return id;
  }

  /**
   * The local id of warp `k` in warp state `wid` under memory `mid`, expanded on first use (from
   * `given`, that warp's steps, when the caller has computed them).
   */
  of(k: number, wid: number, mid: number, given?: WarpSteps): number {
    const key = this.key;
    key[0] = k;
    key[1] = wid;
    key[2] = mid;
    const before = this.table.size;
    const id = this.table.intern(key);
    if (id !== before) return id;
    const { machine, visited } = this;
    const mem = visited.memObjs[mid]!;
    const warp = visited.warpObj(wid);
    const ws = given ?? machine.warpSteps(k, warp, mem);
    if (this.por || this.groups) {
      // EXIT priority (one group, acyclic) before the warp-level ample set: it is never larger.
      const exit = this.groups?.pick(warp, ws, mem) ?? null;
      const ample = this.por?.classify(ws, mem) ?? null;
      if (ample?.abstract) this.porAbstract = true;
      if (exit?.rule === 'exit') this.exitPriority++;
      else if (exit?.rule === 'bsync') this.bsyncPriority++;
      else if (exit) this.aloneGroups++;
      this.localAmpleFrom.push(exit ? exit.from : (ample?.from ?? -1));
      this.localAmpleTo.push(exit ? exit.to : (ample?.to ?? -1));
      this.localAcyclic.push(exit ? 1 : 0);
      this.localAlone.push(exit?.rule === 'alone' ? 1 : 0);
      this.localForced.push(
        forcedRule(exit) &&
          forcedStepOk(exit.rule, ws.steps[exit.from]!, mem, machine.ops, this.oneWarp)
          ? 1
          : 0,
      );
      if (!exit && ample) for (const x of ample.more) this.ampleMore.push(x);
      this.localMoreStart.push(this.ampleMore.length);
    }
    this.localInfo.push((ws.enabled ? 1 : 0) | (ws.live ? 2 : 0));
    this.localReady.push(ws.ready);
    if (this.placeFair && ws.places && ws.stepPlaces) {
      // The machine names the places (`Machine.placeFairness`, the block machine).
      for (const place of ws.places) this.localPlaces.push(place);
      this.localPlaceStart.push(this.localPlaces.length);
      for (const place of ws.stepPlaces) this.stepPlace.push(place);
    } else if (this.placeFair) {
      const places: number[] = [];
      const placeOfLane = this.placeOfLane;
      let placed = 0;
      machine.mechanism.fairPlaces!(warp.mech, (place, mask) => {
        placed |= mask;
        for (let m = mask >>> 0; m !== 0; m &= m - 1) placeOfLane[31 - Math.clz32(m & -m)] = place;
        if ((mask & ws.ready) !== 0 && !places.includes(place)) places.push(place);
      });
      for (const place of places) this.localPlaces.push(place);
      this.localPlaceStart.push(this.localPlaces.length);
      // An issue's lanes share one place (the contract of `fairPlaces`): its lowest lane's.
      for (const st of ws.steps) {
        const m = st.issue.mask >>> 0;
        if (m === 0 || (m & ~placed) !== 0)
          throw new Error(`fairPlaces: the lanes of an issue at pc ${st.issue.pc} have no place`);
        this.stepPlace.push(placeOfLane[31 - Math.clz32(m & -m)]!);
      }
    }
    // Steps outside the local's first candidate range (a group rule's pick, or the warp's ample
    // set) are expanded only where the state's expansion is full: their successors are interned
    // when first asked for (`warpOf`), not here — a key each that a reduced state never needs.
    const from = this.por || this.groups ? this.localAmpleFrom.get(id) : -1;
    const to = from >= 0 ? this.localAmpleTo.get(id) : -1;
    for (let i = 0; i < ws.steps.length; i++) {
      const st = ws.steps[i]!;
      if (st.orderDependent) this.orderDependent ??= st.issue;
      if (this.checkGraph && this.offGraph === null && leavesGraph(machine, warp, st))
        this.offGraph = st.issue;
      this.stepOf.push(k);
      this.stepLocal.push(id);
      this.stepPc.push(st.issue.pc);
      this.stepChain.push(
        this.accel && chainable(machine.ops, st, mem, this.accel.plant, this.oneWarp) ? 1 : 0,
      );
      this.stepMask.push(st.issue.mask);
      this.stepGroup.push(st.group);
      this.stepUnknown.push(st.unknownChoice ? 1 : 0);
      this.stepAbstract.push(st.unknownChoice || st.widened ? 1 : 0);
      if (st.stop) {
        this.stepStop.push(this.stops.length);
        this.stops.push(st.stop);
        this.lazy.push(undefined);
        this.stepWarp.push(-1);
        this.stepMem.push(-1);
      } else {
        this.stepStop.push(-1);
        if (from >= 0 && (i < from || i >= to)) {
          this.lazy.push(st.warp!);
          this.stepWarp.push(LAZY);
        } else {
          this.lazy.push(undefined);
          this.stepWarp.push(visited.warpId(st.warp!, STEP_ORIGIN, this.stepWarp.length));
        }
        this.stepMem.push(st.memory === mem ? mid : visited.memId(st.memory!));
      }
    }
    this.localStart.push(this.stepMask.length);
    return id;
  }
}
