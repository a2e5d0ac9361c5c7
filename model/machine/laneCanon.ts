import type { KeySink, KeyWriter } from './key.ts';

const NUMBER = 0;
const MASK = 1;
/** Tags that start a canonical warp key (never a first number of a plain key of the same machine). */
const TAG_SORTED = -0x5e01;
const TAG_IDENTITY = -0x5e02;

/**
 * Lane symmetry (issue 16; DESIGN.md "Reductions must be sound"): a warp's canonical key under
 * permutations of its lanes.
 *
 * A warp's key is recorded as it is written (`KeySink`): plain numbers, lane sets (`mask`) and
 * values that belong to one lane (`lane`). Every lane then has a *signature* — its own values in
 * the order written, and its membership of every lane set — and the lanes are sorted by it. The
 * canonical key is the plain numbers, every lane set relabelled by that order, and the sorted
 * signatures (runs of equal ones written once with their count). So:
 * - states that are lane permutations of each other get the same key (the signatures and the
 *   relabelled sets do not depend on the lanes' numbers), and
 * - equal keys mean the two states are lane permutations of each other (the key holds every
 *   lane's values and every set, only the lanes' numbers are dropped).
 *
 * *Pinned* lanes (those that may still read their own lane number, `machine.ts`) are never
 * renumbered away from themselves: their number leads their signature, so two states only share
 * a key when each pinned lane is the same lane in both.
 *
 * Lanes whose signatures are equal are interchangeable: a permutation among them maps the state
 * to itself. `classes` gives those groups, which is what counted splits of unknown branches use
 * (`lanes/execute.ts`).
 *
 * A lane set that belongs to a lane (`laneMask`, an `its` lane's WARPSYNC mask) is not sorted on;
 * when one is non-empty the key is written unsorted (identity), which is exact and only less
 * reduced.
 */
export class LaneCanon implements KeySink {
  private items = new Float64Array(256);
  private kinds = new Uint8Array(256);
  private n = 0;
  private readonly laneVals: Float64Array[];
  private readonly laneLen: Int32Array;
  private masks = 0;
  private identity = false;
  private readonly order: number[];
  private readonly pos: Int32Array;
  private sig: Float64Array[] = [];
  private sigLen: Int32Array;
  /** Lane-set membership words, `words` per lane (scratch of `sort`). */
  private member = new Int32Array(64);
  private readonly full: number;

  /**
   * @param unsound For the soundness law's planted bug only: `drop-lane-values` leaves the lanes'
   *   own values out of the key (lanes at different PCs or with different registers then merge),
   *   which the law must catch.
   */
  constructor(
    readonly warpSize: number,
    private readonly unsound: 'none' | 'drop-lane-values' = 'none',
  ) {
    this.full = (warpSize >= 32 ? 0xffffffff : (1 << warpSize) - 1) >>> 0;
    this.laneVals = Array.from({ length: warpSize }, () => new Float64Array(64));
    this.laneLen = new Int32Array(warpSize);
    this.order = Array.from({ length: warpSize }, (_, l) => l);
    this.pos = new Int32Array(warpSize);
    this.sig = Array.from({ length: warpSize }, () => new Float64Array(64));
    this.sigLen = new Int32Array(warpSize);
  }

  reset(): void {
    this.n = 0;
    this.masks = 0;
    this.identity = false;
    this.laneLen.fill(0);
  }

  push(v: number): void {
    this.item(v, NUMBER);
  }

  pushAll(ns: readonly number[]): void {
    this.push(ns.length);
    for (let i = 0; i < ns.length; i++) this.push(ns[i]!);
  }

  mask(m: number): void {
    this.item(m >>> 0, MASK);
    this.masks++;
  }

  lane(l: number, v: number): void {
    let buf = this.laneVals[l]!;
    const len = this.laneLen[l]!;
    if (len === buf.length) {
      const next = new Float64Array(buf.length * 2);
      next.set(buf);
      this.laneVals[l] = buf = next;
    }
    buf[len] = v;
    this.laneLen[l] = len + 1;
  }

  laneMask(l: number, m: number): void {
    // The empty set and the whole warp are the same under every renumbering.
    if (m !== 0 && m >>> 0 !== this.full) this.identity = true;
    this.lane(l, m);
  }

  /**
   * Sorts the lanes by signature (pinned lanes first, by number). Returns false when the key must
   * stay unsorted (a lane-owned lane set is non-empty).
   */
  private sort(pinned: number): boolean {
    if (this.identity) return false;
    const W = this.warpSize;
    const words = Math.ceil(this.masks / 30);
    // Membership of every lane set, 30 sets to a number, per lane: one pass over the items and the
    // set bits of each mask (not one pass over the items per lane).
    if (this.member.length < W * words) this.member = new Int32Array(W * words * 2);
    const member = this.member;
    member.fill(0, 0, W * words);
    for (let i = 0, k = 0; i < this.n; i++) {
      if (this.kinds[i] !== MASK) continue;
      const w = (k / 30) | 0;
      const bit = 1 << (k % 30);
      for (let m = this.items[i]! >>> 0; m !== 0; m &= m - 1)
        member[(31 - Math.clz32(m & -m)) * words + w]! |= bit;
      k++;
    }
    for (let l = 0; l < W; l++) {
      const len = this.laneLen[l]!;
      const need = 3 + len + words;
      let s = this.sig[l]!;
      if (s.length < need) this.sig[l] = s = new Float64Array(need * 2);
      let j = 0;
      if ((pinned >>> l) & 1) {
        s[j++] = 0;
        s[j++] = l;
      } else s[j++] = 1;
      const kept = this.unsound === 'drop-lane-values' ? 0 : len;
      s[j++] = kept;
      const vals = this.laneVals[l]!;
      for (let i = 0; i < kept; i++) s[j++] = vals[i]!;
      for (let w = 0; w < words; w++) s[j++] = member[l * words + w]!;
      this.sigLen[l] = j;
    }
    const order = this.order;
    for (let l = 0; l < W; l++) order[l] = l;
    // Insertion sort (W ≤ 32); stable, so equal signatures keep their lane order.
    for (let i = 1; i < W; i++) {
      const x = order[i]!;
      let j = i - 1;
      while (j >= 0 && this.compare(order[j]!, x) > 0) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = x;
    }
    for (let i = 0; i < W; i++) this.pos[order[i]!] = i;
    return true;
  }

  private compare(a: number, b: number): number {
    const la = this.sigLen[a]!;
    const lb = this.sigLen[b]!;
    const sa = this.sig[a]!;
    const sb = this.sig[b]!;
    const n = Math.min(la, lb);
    for (let i = 0; i < n; i++) {
      const d = sa[i]! - sb[i]!;
      if (d !== 0) return d;
    }
    return la - lb;
  }

  private relabel(m: number): number {
    let r = 0;
    for (let x = m >>> 0; x !== 0; x &= x - 1) r |= 1 << this.pos[31 - Math.clz32(x & -x)]!;
    return r >>> 0;
  }

  /** Writes the canonical key of what was recorded; `pinned` lanes keep their numbers. */
  write(out: KeyWriter, pinned: number): void {
    const sorted = this.sort(pinned);
    const W = this.warpSize;
    out.push(sorted ? TAG_SORTED : TAG_IDENTITY);
    out.push(this.n);
    for (let i = 0; i < this.n; i++) {
      const v = this.items[i]!;
      out.push(sorted && this.kinds[i] === MASK ? this.relabel(v) : v);
    }
    if (!sorted) {
      for (let l = 0; l < W; l++) {
        const len = this.laneLen[l]!;
        out.push(len);
        const vals = this.laneVals[l]!;
        for (let i = 0; i < len; i++) out.push(vals[i]!);
      }
      return;
    }
    // The sorted signatures, runs of equal ones once with their count.
    for (let i = 0; i < W;) {
      const a = this.order[i]!;
      let j = i + 1;
      while (j < W && this.compare(a, this.order[j]!) === 0) j++;
      out.push(j - i);
      const len = this.sigLen[a]!;
      const s = this.sig[a]!;
      for (let k = 0; k < len; k++) out.push(s[k]!);
      i = j;
    }
  }

  /**
   * The groups of interchangeable lanes of what was recorded (lanes with equal signatures), as
   * masks; every lane is in exactly one. Unsorted keys (see `write`) give one lane a group.
   */
  classes(pinned: number): number[] {
    const W = this.warpSize;
    if (!this.sort(pinned)) return Array.from({ length: W }, (_, l) => (1 << l) >>> 0);
    const out: number[] = [];
    for (let i = 0; i < W;) {
      const a = this.order[i]!;
      let m = (1 << a) >>> 0;
      let j = i + 1;
      while (j < W && this.compare(a, this.order[j]!) === 0) {
        m = (m | (1 << this.order[j]!)) >>> 0;
        j++;
      }
      out.push(m);
      i = j;
    }
    return out;
  }

  private item(v: number, kind: number): void {
    if (this.n === this.items.length) {
      const items = new Float64Array(this.n * 2);
      items.set(this.items);
      this.items = items;
      const kinds = new Uint8Array(this.n * 2);
      kinds.set(this.kinds);
      this.kinds = kinds;
    }
    this.items[this.n] = v;
    this.kinds[this.n++] = kind;
  }
}
