import type { KeySink, KeyWriter } from './key.ts';

const NUMBER = 0;
const MASK = 1;
/** Tags that start a canonical warp key (never a first number of a plain key of the same machine). */
const TAG_SORTED = -0x5e01;
const TAG_IDENTITY = -0x5e02;
/** Marks a run of zero items in a canonical key (`write`); not an integer, so no mask or PC. */
const ZERO_RUN = -0.5;

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
  /** The `pinned` argument of the last `sort`, and the number of membership words per lane. */
  private pinned = 0;
  private words = 0;
  /** Scratch of `sort`: runs of equal signatures as linked lists. */
  private readonly runFirst: Int32Array;
  private readonly runLast: Int32Array;
  private readonly runNext: Int32Array;
  private readonly runOrder: Int32Array;
  /** Scratch of `sort`: each lane's signature hash, each run's. */
  private readonly laneHash: Int32Array;
  private readonly runHash: Int32Array;
  /** After `sort`: run r is order[runStart[r] .. runStart[r + 1] - 1]; `runs` runs in all. */
  private readonly runStart: Int32Array;
  private runs = 0;
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
    this.runFirst = new Int32Array(warpSize);
    this.runLast = new Int32Array(warpSize);
    this.runNext = new Int32Array(warpSize);
    this.runOrder = new Int32Array(warpSize);
    this.laneHash = new Int32Array(warpSize);
    this.runHash = new Int32Array(warpSize);
    this.runStart = new Int32Array(warpSize + 1);
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
    pushLaneValue(this.laneVals, this.laneLen, l, v);
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
    // The whole warp is a set every lane is in: it tells no lanes apart and its bit would be the
    // same in every signature, so it is left out (as the empty set is); the set itself is in the
    // key's items either way.
    const full = this.full;
    for (let i = 0, k = 0; i < this.n; i++) {
      if (this.kinds[i] !== MASK) continue;
      const set = k++;
      const m0 = this.items[i]! >>> 0;
      if (m0 !== full) addMembership(member, words, set, m0);
    }
    this.pinned = pinned;
    this.words = words;
    // Lanes with equal signatures into runs (lane order within a run): each lane is compared with
    // the first lane of each run so far (a comparison of unequal signatures stops at their first
    // difference), so W equal lanes cost W − 1 comparisons, not the O(W²) of sorting them one by
    // one, and no signature is copied.
    // A hash of each signature first: a lane is compared in full only with runs of its hash
    // (equal signatures hash alike, so the runs are exactly those of comparing every pair; with
    // 32 distinct lanes, ~500 integer tests instead of ~500 signature comparisons per key).
    const { runFirst, runNext, runLast, laneHash, runHash } = this;
    for (let l = 0; l < W; l++) laneHash[l] = this.signatureHash(l);
    let runs = 0;
    for (let l = 0; l < W; l++) {
      runNext[l] = -1;
      const h = laneHash[l]!;
      let r = 0;
      for (; r < runs; r++) {
        if (runHash[r] !== h) continue;
        const a = runFirst[r]!;
        if (this.compare(a, l) === 0) break;
      }
      if (r === runs) {
        runHash[runs] = h;
        runFirst[runs++] = l;
        runLast[r] = l;
      } else {
        runNext[runLast[r]!] = l;
        runLast[r] = l;
      }
    }
    // The runs sorted by signature (insertion sort over distinct signatures), then laid out in
    // that order: the same order as a stable sort of the lanes by signature.
    const sorted = this.runOrder;
    for (let i = 0; i < runs; i++) {
      const x = i;
      let j = i - 1;
      while (j >= 0 && this.compare(runFirst[sorted[j]!]!, runFirst[x]!) > 0) {
        sorted[j + 1] = sorted[j]!;
        j--;
      }
      sorted[j + 1] = x;
    }
    const order = this.order;
    const runStart = this.runStart;
    let k = 0;
    for (let i = 0; i < runs; i++) {
      runStart[i] = k;
      for (let l = runFirst[sorted[i]!]!; l >= 0; l = runNext[l]!) order[k++] = l;
    }
    runStart[runs] = W;
    this.runs = runs;
    for (let i = 0; i < W; i++) this.pos[order[i]!] = i;
    return true;
  }

  /**
   * Lane `l`'s signature (valid after `sort`), written out: `[0, l]` for a pinned lane, `[1]`
   * otherwise; the number of its own values and the values in the order written; its membership
   * words (bit k of word w: the lane is in lane set 30·w + k).
   */
  private writeSignature(out: KeyWriter, l: number): void {
    if ((this.pinned >>> l) & 1) {
      out.push(0);
      out.push(l);
    } else out.push(1);
    const kept = this.unsound === 'drop-lane-values' ? 0 : this.laneLen[l]!;
    out.push(kept);
    const vals = this.laneVals[l]!;
    for (let i = 0; i < kept; i++) out.push(vals[i]!);
    const words = this.words;
    for (let w = 0; w < words; w++) out.push(this.member[l * words + w]!);
  }

  /**
   * A hash of lane `l`'s signature (after the membership words are filled): equal under `compare`
   * means equal hashes — the pinned bit and number, or the values (unless the planted bug drops
   * them) and the membership words, each value by its low 32 bits (so -0 and 0 agree; values
   * that differ only above them merely share a hash).
   */
  private signatureHash(l: number): number {
    if ((this.pinned >>> l) & 1) return (0x5bd1e995 ^ l) | 0;
    let h = 0x2545f491;
    if (this.unsound !== 'drop-lane-values') {
      const len = this.laneLen[l]!;
      const vals = this.laneVals[l]!;
      h = Math.imul(h ^ len, 0x9e3779b1);
      for (let i = 0; i < len; i++) {
        h = Math.imul(h ^ (vals[i]! | 0), 0x9e3779b1);
        h ^= h >>> 15;
      }
    }
    const words = this.words;
    for (let w = 0; w < words; w++) {
      h = Math.imul(h ^ this.member[l * words + w]!, 0x9e3779b1);
      h ^= h >>> 15;
    }
    return h | 0;
  }

  /**
   * Lexicographic order of the signatures of lanes `a` and `b` (`writeSignature`), read in place.
   * Pinned lanes come first, by number; then by the number of values (so the values, then the
   * membership words, line up), the values, the membership words.
   */
  private compare(a: number, b: number): number {
    const pa = (this.pinned >>> a) & 1;
    const pb = (this.pinned >>> b) & 1;
    if (pa !== pb) return pb - pa;
    if (pa === 1) return a - b;
    if (this.unsound !== 'drop-lane-values') {
      const la = this.laneLen[a]!;
      const d = la - this.laneLen[b]!;
      if (d !== 0) return d;
      const va = this.laneVals[a]!;
      const vb = this.laneVals[b]!;
      for (let i = 0; i < la; i++) {
        const x = va[i]! - vb[i]!;
        if (x !== 0) return x;
      }
    }
    return compareMembership(this.member, this.words, a, b);
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
    // The items, each run of zeros (empty lane sets, unused barriers and predicates: most of an
    // `its` warp's items) as ZERO_RUN and its length; a literal ZERO_RUN is written twice. With
    // `n` in front, this reads back one way only, so keys stay exact — only shorter, which is
    // what the visited set stores and hashes for every state.
    let zeros = 0;
    for (let i = 0; i < this.n; i++) {
      const raw = this.items[i]!;
      const v = sorted && this.kinds[i] === MASK ? this.relabel(raw) : raw;
      if (v === 0) {
        zeros++;
        continue;
      }
      if (zeros > 0) {
        out.push(ZERO_RUN);
        out.push(zeros);
        zeros = 0;
      }
      if (v === ZERO_RUN) out.push(ZERO_RUN);
      out.push(v);
    }
    if (zeros > 0) {
      out.push(ZERO_RUN);
      out.push(zeros);
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
    for (let r = 0; r < this.runs; r++) {
      const i = this.runStart[r]!;
      const a = this.order[i]!;
      out.push(this.runStart[r + 1]! - i);
      this.writeSignature(out, a);
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
    for (let r = 0; r < this.runs; r++) {
      let m = 0;
      for (let i = this.runStart[r]!; i < this.runStart[r + 1]!; i++) m |= 1 << this.order[i]!;
      out.push(m >>> 0);
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

/**
 * Membership words, `words` per lane (bit k of word w: the lane is in lane set 30·w + k), as lane
 * symmetry's signatures and chain summaries' projections (`laneChains.ts`) lay them out: marks the
 * lanes of `m` as members of set `set`.
 */
export function addMembership(member: Int32Array, words: number, set: number, m: number): void {
  const w = (set / 30) | 0;
  const bit = 1 << (set % 30);
  for (let x = m >>> 0; x !== 0; x &= x - 1) member[(31 - Math.clz32(x & -x)) * words + w]! |= bit;
}

/** Lanes `a` and `b`'s membership words in lexicographic order (`addMembership`'s layout). */
export function compareMembership(member: Int32Array, words: number, a: number, b: number): number {
  for (let w = 0; w < words; w++) {
    const x = member[a * words + w]! - member[b * words + w]!;
    if (x !== 0) return x;
  }
  return 0;
}

/** Appends `v` to lane `l`'s values `vals[l][0 .. len[l]-1]`, doubling the lane's buffer when full. */
export function pushLaneValue(vals: Float64Array[], len: Int32Array, l: number, v: number): void {
  let buf = vals[l]!;
  const n = len[l]!;
  if (n === buf.length) {
    const next = new Float64Array(buf.length * 2);
    next.set(buf);
    vals[l] = buf = next;
  }
  buf[n] = v;
  len[l] = n + 1;
}
