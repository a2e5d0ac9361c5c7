import type { Memory } from '../lanes/memory.ts';
import { moveLaneData } from '../lanes/laneData.ts';
import { outsideTags } from '../lanes/shared.ts';
import { fullMask } from '../lanes/values.ts';
import type { Machine, WarpState } from '../machine/machine.ts';
import { KeyWriter, type KeySink } from '../machine/key.ts';
import { addMembership, compareMembership, pushLaneValue } from '../machine/laneCanon.ts';
import { moveLoopVisits } from '../machine/widening.ts';
import { warpState } from '../machine/warpState.ts';
import { VectorTable } from './tables.ts';

/**
 * A planted bug for the law of summaries (`laneChains.test.ts`); never set outside tests.
 * `drop-masks`: a lane's membership of the warp's lane sets (its predicates among them) is left
 * out of the summary's key, so chains whose lanes branch on different predicates share one end.
 */
/**
 * The summaries' planted bugs (their laws only): `drop-masks` leaves lane-set membership out of
 * the key; `ignore-tags` leaves out the shared unknowns the other lanes hold (`outsideTags`).
 */
export type PlantUnsoundSummaries = 'drop-masks' | 'ignore-tags';

/** What a summary gives back: the chain's end from the asked start, and its length. */
export interface SummaryEnd {
  readonly warp: WarpState;
  readonly steps: number;
}

/**
 * Summaries of chains by their running lanes (docs/semantics.md §14.5; issue 16).
 *
 * A chain (`acceleration.ts`) is a run of lane-local steps (data instructions, plain BRAs) of one
 * warp whose ready lanes `M` issue together while every other lane waits or has exited. On a
 * mechanism that declares `moveLanes` (`its`), such a step reads and writes only `M`'s own lanes
 * and wakes no one, so the chain is a function of `M`'s lanes alone: a waiting lane stays where
 * it is. The states it meets on real kernels differ mostly in their waiting lanes (how many wait
 * at each BSYNC of a loop nest), and the plain memo, keyed by the whole warp, meets each start
 * once. This one keys a chain by its *projection*: the warp index, the memory, and the sorted
 * signatures of `M`'s lanes — each lane's values as the visited set keys them (dead values left
 * out when it leaves them out), its membership of every lane set the key writes (predicates,
 * B registers, exited), its loop turns and flag (widening), and its number when it may still read
 * it (`Machine.ownNumberReaders`) — plus the key's warp-wide numbers. A start with the same
 * projection gets the recorded end's lanes, lane for lane in signature order
 * (`Mechanism.moveLanes`, `moveLaneData`, `moveLoopVisits`); its other lanes stay as they are.
 *
 * Why that is the chain's end up to dead values: lanes with equal signatures hold the same live
 * values at the same PC, so each computes what its partner computed; a step reads nothing of
 * another lane (lane-local) and nothing warp-wide but what the key holds; the chain stops at the
 * same step in both (its stops are decided by `M`'s lanes: a step that is not chainable, a return
 * to a saved state). A chain is recorded only when it also checks so in fact: it ended by itself,
 * left memory as it was, ran no BRA.DIV/.CONV (they read other lanes), and its end differs from
 * its start in `M`'s lanes only (`sameOutside`).
 */
export class LaneChains {
  /** Lookups answered, and chains recorded. */
  hits = 0;
  recorded = 0;
  /** Verify mode: hits whose end differed from the chain walked from the same start. */
  mismatches = 0;
  private readonly table = new VectorTable();
  private readonly key = new KeyWriter();
  private readonly sink: ProjectionSink;
  /** Per projection id: the recorded end, its lanes in signature order, its length (0: none). */
  private readonly ends: WarpState[] = [];
  private readonly orders: Int32Array[] = [];
  private readonly lengths: number[] = [];
  private readonly pairs: Int32Array;
  private readonly exactA = new KeyWriter();
  private readonly exactB = new KeyWriter();
  /** The last projection asked for (`order` and `n` still hold its lanes). */
  private lastWarp: WarpState | null = null;
  private lastK = -1;
  private lastMid = -1;
  private lastId = -1;
  /** After `project`: the lanes of `M` in signature order, and how many. */
  private readonly order: Int32Array;
  private n = 0;
  private readonly full: number;
  private readonly ignoreTags: boolean;

  constructor(
    private readonly machine: Machine,
    /** The visited set leaves dead values out of its keys. */
    private readonly reduced: boolean,
    plant: PlantUnsoundSummaries | null = null,
  ) {
    const W = machine.launch.warpSize;
    this.full = fullMask(W);
    this.ignoreTags = plant === 'ignore-tags';
    this.sink = new ProjectionSink(W, plant === 'drop-masks');
    this.pairs = new Int32Array(2 * W);
    this.order = new Int32Array(W);
  }

  /** Summaries apply to this machine: a per-warp mechanism with `moveLanes`, no reference run. */
  static applies(machine: Machine): boolean {
    return machine.mechanism.moveLanes !== undefined && machine.blockLaunch === undefined;
  }

  /**
   * The projection of warp `k`'s state `w` under memory `mid` onto its ready lanes, interned;
   * -1 when there is none (no ready lane, or a reference run). Leaves the lanes in `order`.
   */
  private project(k: number, w: WarpState, mid: number): number {
    // `record` follows the `lookup` that missed on the same start: its projection is still here.
    if (w === this.lastWarp && k === this.lastK && mid === this.lastMid) return this.lastId;
    this.lastWarp = w;
    this.lastK = k;
    this.lastMid = mid;
    return (this.lastId = this.projectAnew(k, w, mid));
  }

  private projectAnew(k: number, w: WarpState, mid: number): number {
    if (w.ref !== undefined) return -1;
    const M = this.machine.mechanism.ready(w.mech) >>> 0;
    if (M === 0) return -1;
    const sink = this.sink;
    sink.reset(M);
    this.machine.writeWarp(w, sink, this.reduced);
    const numbered = this.machine.ownNumberReaders(w);
    const loops = w.loops;
    let n = 0;
    for (let m = M; m !== 0; m &= m - 1) {
      const l = 31 - Math.clz32(m & -m);
      pushLaneTurns(sink, l, numbered, loops);
      this.order[n++] = l;
    }
    this.n = n;
    sink.sortLanes(this.order, n);
    const key = this.key;
    key.reset();
    key.push(k);
    key.push(mid);
    sink.writeKey(key, this.order, n);
    // The shared unknowns the lanes that stay hold (exited ones too), column by column
    // (`lanes/shared.ts` `outsideTags`): a tag the chain makes is the lowest none of them holds,
    // so two starts alike in these make the same tags, and a tag the running lanes keep ties them
    // to the same lanes in both.
    if (!this.ignoreTags && !outsideTags(w.data, (this.full & ~M) >>> 0, key)) return -1;
    return this.table.intern(key.buf, key.length);
  }

  /** The summarised end of the chain from warp `k`'s state `w` under memory `mid`, or null. */
  lookup(k: number, w: WarpState, mid: number): SummaryEnd | null {
    const id = this.project(k, w, mid);
    if (id < 0 || id >= this.ends.length || this.lengths[id] === 0) return null;
    const src = this.orders[id]!;
    const pairs = this.pairs;
    const n = this.n;
    for (let i = 0; i < n; i++) {
      pairs[2 * i] = this.order[i]!;
      pairs[2 * i + 1] = src[i]!;
    }
    this.hits++;
    return { warp: this.splice(w, this.ends[id]!, pairs, n), steps: this.lengths[id]! };
  }

  /**
   * Records the chain walked from `start` (warp `k`, memory `mid`, `mem` its object) to `end`,
   * `steps` long, when it qualifies (see the class comment): `plainOnly` says that it ran no
   * BRA.DIV/.CONV, `kept` that it ended by itself.
   */
  record(
    k: number,
    start: WarpState,
    mid: number,
    mem: Memory,
    end: { readonly warp: WarpState; readonly memory: Memory; readonly steps: number },
    kept: boolean,
    plainOnly: boolean,
  ): void {
    if (!kept || !plainOnly || end.steps === 0 || end.memory !== mem) return;
    const id = this.project(k, start, mid);
    if (id < 0) return;
    const n = this.n;
    // The end must differ from the start in M's lanes only.
    const pairs = this.pairs;
    for (let i = 0; i < n; i++) pairs[2 * i] = pairs[2 * i + 1] = this.order[i]!;
    if (!this.sameWarp(this.splice(start, end.warp, pairs, n), end.warp)) return;
    while (this.ends.length <= id) {
      this.ends.push(start);
      this.orders.push(new Int32Array(0));
      this.lengths.push(0);
    }
    this.ends[id] = end.warp;
    this.orders[id] = this.order.slice(0, n);
    this.lengths[id] = end.steps;
    this.recorded++;
  }

  /**
   * Verify mode (the law): `summary`, given for start `w`, against the chain walked from `w`
   * (`walked`, `steps` long): the same length and the same key as the visited set writes it.
   */
  verify(summary: SummaryEnd, walked: WarpState, steps: number): void {
    const a = this.exactA;
    const b = this.exactB;
    a.reset();
    b.reset();
    this.machine.warpKey(summary.warp, a, this.reduced);
    this.machine.warpKey(walked, b, this.reduced);
    if (summary.steps !== steps || !a.equals(b)) this.mismatches++;
  }

  /** `into` with lanes `pairs[2i]` given lanes `pairs[2i + 1]` of `from`. */
  private splice(into: WarpState, from: WarpState, pairs: Int32Array, n: number): WarpState {
    const mech = this.machine.mechanism.moveLanes!(into.mech, from.mech, pairs, n);
    const data = moveLaneData(into.data, from.data, pairs, n);
    const loops =
      into.loops && from.loops ? moveLoopVisits(into.loops, from.loops, pairs, n) : into.loops;
    return warpState(mech, data, into.ref, loops, into.anonymous);
  }

  /**
   * Exactly equal warps: every lane's values, PC and sets, numbers and all — the plain writer
   * with nothing left out (lane symmetry sorts only what `warpKey` writes).
   */
  private sameWarp(x: WarpState, y: WarpState): boolean {
    const a = this.exactA;
    const b = this.exactB;
    a.reset();
    b.reset();
    this.machine.writeWarp(x, a, false);
    this.machine.writeWarp(y, b, false);
    return a.equals(b);
  }
}

/**
 * What a projection's signature adds to lane `l`'s values as the visited set keys them: its number
 * when it may still read it (`numbered`, `Machine.ownNumberReaders`), then its loop turns and flag
 * (widening), which decide where widening stops a walk even where the reduced key drops them.
 */
export function pushLaneTurns(
  sink: KeySink,
  l: number,
  numbered: number,
  loops: WarpState['loops'],
): void {
  sink.lane(l, (numbered >>> l) & 1 ? l : -1);
  if (loops) {
    sink.lane(l, loops.counts[l]!);
    sink.lane(l, (loops.flagged >>> l) & 1);
  }
}

/**
 * Collects the signatures of the lanes of `M` from a warp writer: each lane's own values in the
 * order written, then its membership of every lane set, 30 sets to a number (bit k of word w: the
 * lane is in set 30·w + k) — the layout of `LaneCanon`'s signatures, on which lane symmetry
 * already rests; the warp-wide numbers and the count of sets apart. (One number per lane and set,
 * as this sink first wrote them, made projections of a 32-lane warp about a thousand numbers
 * long, and hashing them a tenth of a W = 32 search.)
 */
export class ProjectionSink implements KeySink {
  private M = 0;
  private readonly vals: Float64Array[];
  private readonly len: Int32Array;
  private plain = new Float64Array(64);
  private plainLen = 0;
  /** The lane sets written, in order, and the membership words computed from them. */
  private sets = new Int32Array(64);
  private nSets = 0;
  private words = 0;
  private member: Int32Array;

  constructor(
    private readonly warpSize: number,
    private readonly dropMasks: boolean,
  ) {
    this.vals = Array.from({ length: warpSize }, () => new Float64Array(64));
    this.len = new Int32Array(warpSize);
    this.member = new Int32Array(warpSize * 4);
  }

  reset(M: number): void {
    this.M = M;
    this.len.fill(0);
    this.plainLen = 0;
    this.nSets = 0;
    this.words = 0;
  }

  push(v: number): void {
    if (this.plainLen === this.plain.length) {
      const next = new Float64Array(this.plain.length * 2);
      next.set(this.plain);
      this.plain = next;
    }
    this.plain[this.plainLen++] = v;
  }

  pushAll(ns: readonly number[]): void {
    this.push(ns.length);
    for (let i = 0; i < ns.length; i++) this.push(ns[i]!);
  }

  mask(m: number): void {
    if (this.dropMasks) return;
    if (this.nSets === this.sets.length) {
      const next = new Int32Array(this.sets.length * 2);
      next.set(this.sets);
      this.sets = next;
    }
    this.sets[this.nSets++] = m | 0;
  }

  lane(l: number, v: number): void {
    if (((this.M >>> l) & 1) === 1) pushLaneValue(this.vals, this.len, l, v);
  }

  laneMask(l: number, m: number): void {
    this.lane(l, m);
  }

  /**
   * The membership words of the lanes of `M`, once the warp is written: `sortLanes` computes them
   * (and `writeKey` reads them after it).
   */
  private finish(): void {
    const words = (this.words = Math.ceil(this.nSets / 30));
    const need = this.warpSize * words;
    if (this.member.length < need) this.member = new Int32Array(need * 2);
    const member = this.member;
    member.fill(0, 0, need);
    const M = this.M;
    for (let k = 0; k < this.nSets; k++) addMembership(member, words, k, this.sets[k]! & M);
  }

  /**
   * Lexicographic order of two lanes' signatures: their values (a shorter prefix first), then
   * their membership words.
   */
  private compare(a: number, b: number): number {
    const x = this.vals[a]!;
    const y = this.vals[b]!;
    const n = Math.min(this.len[a]!, this.len[b]!);
    for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    const d = this.len[a]! - this.len[b]!;
    if (d !== 0) return d;
    return compareMembership(this.member, this.words, a, b);
  }

  /** Computes the membership words (as `sortLanes` does), for `signature`. */
  finishSets(): void {
    this.finish();
  }

  /** Lane `l`'s signature: its values, then its membership words (after `finishSets`). */
  signature(l: number): number[] {
    const out: number[] = [];
    const v = this.vals[l]!;
    for (let j = 0; j < this.len[l]!; j++) out.push(v[j]!);
    for (let w = 0; w < this.words; w++) out.push(this.member[l * this.words + w]!);
    return out;
  }

  /** Sorts `order[0 .. n-1]` by signature (insertion sort: stable, n ≤ 32). */
  sortLanes(order: Int32Array, n: number): void {
    this.finish();
    for (let i = 1; i < n; i++) {
      const x = order[i]!;
      let j = i - 1;
      while (j >= 0 && this.compare(order[j]!, x) > 0) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = x;
    }
  }

  /**
   * The warp-wide numbers and the count of lane sets, then each lane's signature in `order`: its
   * values with their count, and its membership words.
   */
  writeKey(out: KeyWriter, order: Int32Array, n: number): void {
    out.push(this.plainLen);
    for (let i = 0; i < this.plainLen; i++) out.push(this.plain[i]!);
    out.push(this.nSets);
    out.push(n);
    const words = this.words;
    for (let i = 0; i < n; i++) {
      const l = order[i]!;
      const len = this.len[l]!;
      out.push(len);
      const v = this.vals[l]!;
      for (let j = 0; j < len; j++) out.push(v[j]!);
      for (let w = 0; w < words; w++) out.push(this.member[l * words + w]!);
    }
  }
}
