import { isDeepStrictEqual } from 'node:util';
import type { Memory } from '../lanes/memory.ts';
import { KeyWriter } from '../machine/key.ts';
import type { Machine, MachineState, WarpState } from '../machine/machine.ts';
import { int32, uint8 } from './growable.ts';
import { TupleTable, VectorTable } from './tables.ts';

/**
 * How a warp was first met (`VisitedStates`): `STEP_ORIGIN` — the successor of step a of the
 * expansion cache; `CHAIN_ORIGIN` — b steps of a plain chain (`followChain`) past that successor;
 * `FORCED_ORIGIN` — b steps of a forced walk (`Chains.followForced`) from local a. `NO_ORIGIN`: kept.
 */
export const NO_ORIGIN = 0;
export const STEP_ORIGIN = 1;
export const CHAIN_ORIGIN = 2;
export const FORCED_ORIGIN = 3;
export type Origin = 0 | 1 | 2 | 3;

/**
 * Follows origins again (set by `explore` from the expansion cache and `Chains`): the warp an
 * origin starts from, and the object it leads to from that warp's object.
 */
export interface Origins {
  from(kind: Origin, a: number): number;
  follow(kind: Origin, a: number, b: number, from: WarpState): WarpState;
}

/**
 * The visited set of `explore` (a stage of its own; DESIGN.md "Performance notes"): a state is a
 * tuple of interned ids — one per warp, one for memory — in a `TupleTable`; warps and memories
 * are interned once as number vectors (`VectorTable`) by their canonical keys (`Machine.warpKey`,
 * `memoryKey`; with the dead-value reduction, exact on every value that can still be read), with
 * the first-seen object as the representative of each id. Each state keeps its breadth-first
 * parent, the choice taken from it and its depth.
 *
 * Memory (issue 16: at W = 32 the representatives were most of the live heap, about 7 KB per
 * stored state): a warp keeps how it was first met, its _origin_ (`Origin`): the successor of an
 * expanded step, the end of a chain after one, or the end of a forced walk from a local. Its object
 * may be dropped (`dropWarp`) where the search no longer expects to read it — a chain start once
 * its chain is memoized, a one-warp state once expanded — and `warpObj` computes it again from
 * its origin: the machine is deterministic (`Machine.warpSteps` is a pure function), so the same
 * steps from the same warp give the same object. Each object computed again is checked against
 * the key it was interned with. The initial state has no origin and is always kept.
 */
export class VisitedStates {
  private readonly warpTable = new VectorTable();
  /** Representatives by warp id; `undefined` once dropped (read them through `warpObj`). */
  private readonly warpObjs: (WarpState | undefined)[] = [];
  /** Per warp id: its origin's kind (`Origin`, 0: none) and its two numbers. */
  private readonly originKind = uint8();
  private readonly originA = int32();
  private readonly originB = int32();
  /** How an origin is followed again (set by `explore`); null: nothing is ever dropped. */
  origins: Origins | null = null;
  /**
   * The law only (`ExploreOptions.stressOrigins`): a warp with an origin is dropped at once, and
   * its first-seen object is kept here so that each object computed again is compared with it in
   * full — the key check alone would let another member of the class pass (lane symmetry).
   */
  stress = false;
  private readonly originals: (WarpState | undefined)[] = [];
  /** The law's planted bug (`ExploreOptions.plantUnsoundOrigins`): chains one step too long. */
  plantChainOneMore = false;
  /** Objects computed again from their origin (for the tally and the tests). */
  recomputed = 0;
  private readonly memTable = new VectorTable();
  readonly memObjs: Memory[] = [];
  private readonly states: TupleTable;
  private readonly kw = new KeyWriter();
  /** The state being built: warp ids 0..K-1, memory id at K. `add` interns it. */
  readonly tuple: Int32Array;
  readonly parent = int32();
  readonly parentChoice = int32();
  readonly depthOf = int32();
  /**
   * Per state: the machine steps from the initial state along the path that first reached it
   * (a chain's steps counted in full); fixed once the state is added. The cycle proviso compares
   * it (`ampleChoice.ts`).
   */
  readonly stepsOf = int32();
  maxDepth = 0;

  constructor(
    private readonly machine: Machine,
    /** The dead-value reduction is on (`Reductions.deadValues` and `Machine.canReduce`). */
    private readonly reduced: boolean,
  ) {
    const K = machine.launch.warps;
    this.states = new TupleTable(K + 1);
    this.tuple = new Int32Array(K + 1);
  }

  get size(): number {
    return this.states.size;
  }

  /** Entry j of state `id`'s tuple (a warp id for j < K, the memory id at K). */
  at(id: number, j: number): number {
    return this.states.at(id, j);
  }

  /** Copies state `id`'s tuple into `out`. */
  copy(id: number, out: Int32Array): void {
    this.states.copy(id, out);
  }

  /**
   * The id of `ws`'s class, interning it when new; for a new id, `origin` with its numbers `a`
   * and `b` (`Origin`) says how `ws` was met, so that its object may be dropped and computed again.
   */
  warpId(ws: WarpState, origin: Origin = NO_ORIGIN, a = 0, b = 0): number {
    const kw = this.kw;
    kw.reset();
    this.machine.warpKey(ws, kw, this.reduced);
    const id = this.warpTable.intern(kw.buf, kw.length);
    // A dropped representative is not replaced by `ws` (another member of the class): it is
    // computed again, the same object, so every search reads the representatives it always did.
    if (id === this.warpObjs.length) {
      const drop = this.stress && this.origins !== null && origin !== NO_ORIGIN;
      this.warpObjs.push(drop ? undefined : ws);
      if (this.stress) this.originals[id] = ws;
      this.originKind.push(origin);
      this.originA.push(a);
      this.originB.push(this.plantChainOneMore && origin === CHAIN_ORIGIN ? b + 1 : b);
    }
    return id;
  }

  /** The representative of warp `id`, computed again from its origin when it was dropped. */
  warpObj(id: number): WarpState {
    const w = this.warpObjs[id];
    if (w !== undefined) return w;
    // The warp an origin starts from may itself be dropped: walk up to the nearest kept one (it
    // was interned before, so ids fall and the walk ends at the latest at the initial state, which
    // is always kept), then compute each level again, keeping them.
    const origins = this.origins!;
    const path: number[] = [];
    let cur = id;
    while (this.warpObjs[cur] === undefined) {
      path.push(cur);
      cur = origins.from(this.originKind.get(cur) as Origin, this.originA.get(cur));
    }
    let obj = this.warpObjs[cur]!;
    for (let i = path.length - 1; i >= 0; i--) {
      const at = path[i]!;
      obj = origins.follow(
        this.originKind.get(at) as Origin,
        this.originA.get(at),
        this.originB.get(at),
        obj,
      );
      // The same class, or the machine was not deterministic: never go on with another state.
      this.kw.reset();
      this.machine.warpKey(obj, this.kw, this.reduced);
      if (!this.sameVector(this.warpTable.get(at)))
        throw new Error(`warp ${at} computed again from its origin is another state`);
      if (this.stress && !isDeepStrictEqual(obj, this.originals[at]))
        throw new Error(`warp ${at} computed again from its origin is another member of its class`);
      this.warpObjs[at] = obj;
      this.recomputed++;
    }
    return obj;
  }

  /** `w` is warp `id`'s representative as kept now (no object is computed to say so). */
  isRepresentative(id: number, w: WarpState): boolean {
    return this.warpObjs[id] === w;
  }

  /** Forgets warp `id`'s object if it can be computed again (it has an origin). */
  dropWarp(id: number): void {
    if (this.origins !== null && id >= 0 && this.originKind.get(id) !== NO_ORIGIN)
      this.warpObjs[id] = undefined;
  }

  memId(m: Memory): number {
    const kw = this.kw;
    this.memKey(m);
    const id = this.memTable.intern(kw.buf, kw.length);
    if (id === this.memObjs.length) this.memObjs.push(m);
    return id;
  }

  /**
   * Interns `tuple`; records parent, choice, depth (stored levels) and `steps` (machine steps
   * from the initial state along the path that first reached it, chains counted in full) when the
   * state is new.
   */
  add(from: number, choice: number, depth: number, steps: number): number {
    const before = this.states.size;
    const id = this.states.intern(this.tuple);
    if (id === before) {
      this.parent.push(from);
      this.parentChoice.push(choice);
      this.depthOf.push(depth);
      this.stepsOf.push(steps);
      if (depth > this.maxDepth) this.maxDepth = depth;
    }
    return id;
  }

  /** The id of `tuple` if it was reached, else -1 (nothing is added). */
  find(): number {
    return this.states.find(this.tuple);
  }

  /** State `id` as an object, from its warps' and memory's representatives. */
  rebuild(id: number): MachineState {
    const K = this.tuple.length - 1;
    const warps: WarpState[] = new Array(K);
    for (let k = 0; k < K; k++) warps[k] = this.warpObj(this.states.at(id, k));
    return { warps, memory: this.memObjs[this.states.at(id, K)]! };
  }

  /** `st` is in the class of stored state `id`: its canonical warp and memory keys are id's. */
  readonly inClass = (st: MachineState, id: number): boolean => {
    const K = this.tuple.length - 1;
    for (let k = 0; k < K; k++) {
      this.kw.reset();
      this.machine.warpKey(st.warps[k]!, this.kw, this.reduced);
      if (!this.sameVector(this.warpTable.get(this.states.at(id, k)))) return false;
    }
    this.memKey(st.memory);
    return this.sameVector(this.memTable.get(this.states.at(id, K)));
  };

  /** Memory is keyed unless the reduction knows it cannot influence control. */
  private memKey(m: Memory): void {
    this.kw.reset();
    if (!this.reduced || this.machine.memoryRelevant) this.machine.memoryKey(m, this.kw);
  }

  private sameVector(v: Float64Array): boolean {
    const kw = this.kw;
    if (v.length !== kw.length) return false;
    for (let i = 0; i < v.length; i++) if (v[i] !== kw.buf[i]) return false;
    return true;
  }
}
