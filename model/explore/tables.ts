/**
 * Exact visited sets for the explorer, on typed arrays (DESIGN.md "Performance notes"): no string
 * keys, no per-entry objects, and no 2^24-entry ceiling as V8's `Map`/`Set` have. Open addressing
 * with linear probing; a slot holds `id + 1` (0 = empty). Lookups compare the stored numbers in
 * full, so distinct keys never merge — the 32-bit hash only picks the slot.
 */

import { decodeNumbers, encodeNumber } from './numberCodes.ts';

/** 32-bit mix of one more word into a running hash (murmur3-style). */
function mix(h: number, x: number): number {
  let k = Math.imul(x | 0, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  h ^= Math.imul(k, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalMix(h: number, n: number): number {
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Interns variable-length vectors of numbers (a warp's or a memory's canonical key): equal vectors
 * get the same dense id 0, 1, 2, …
 *
 * Storage (issue 16, the cost of a state at W = 32): each vector is kept as a canonical byte code
 * (`numberCodes.ts`: 1 byte for 0..63, for -1 = `UNKNOWN` and for -0.5, the zero-run mark of
 * `laneCanon.ts`; 2 for 64..16,383; at most 5 for a 32-bit mask or word; 9 for any other number),
 * about 1.4 bytes a number on real W = 32 keys against the 8 it took before, in chunks that are
 * filled and never copied. Each number has exactly one code and a code reads back one way only, so two
 * vectors are equal exactly when their codes are, and the table compares codes. A W = 32 warp key
 * is ~200 numbers, and on these machines the first write to a fresh page costs more than the rest
 * of storing it (a 128 MB array takes ~0.6 s to fill), so bytes stored are the table's time.
 */
export class VectorTable {
  // Small to start (a search of a few hundred states is the common case in `check`, and arrays of
  // at most 64 bytes stay on V8's heap, cheap to make: `growable.ts`); the per-id arrays double
  // when full, the chunks double in size up to `CHUNK` and are never copied.
  private chunks: Uint8Array[] = [new Uint8Array(64)];
  /** The chunk being filled, and how much of it is used. */
  private chunk = this.chunks[0]!;
  private used = 0;
  /** Per id: its chunk, the code's offset in it and its length in bytes, its hash. */
  private chunkOf = new Int32Array(8);
  private start = new Int32Array(8);
  private len = new Int32Array(8);
  private hashes = new Int32Array(8);
  private slots = new Int32Array(16);
  private mask = 16 - 1;
  /** The code of the vector being interned. */
  private code = new Uint8Array(64);
  private codeLen = 0;
  size = 0;

  /** The id of `v[0 .. n-1]`, adding it when new (then `id === size - 1`). */
  intern(v: Float64Array, n: number): number {
    let h = 0x2545f491;
    for (let i = 0; i < n; i++) h = mix(h, v[i]!);
    h = finalMix(h, n);
    this.encode(v, n);
    const code = this.code;
    const len = this.codeLen;
    const slots = this.slots;
    const mask = this.mask;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[s]!;
      if (e === 0) break;
      const id = e - 1;
      if (this.hashes[id] !== h || this.len[id] !== len) continue;
      const o = this.start[id]!;
      const a = this.chunks[this.chunkOf[id]!]!;
      let i = 0;
      while (i < len && a[o + i] === code[i]) i++;
      if (i === len) return id;
    }
    return this.add(h);
  }

  /** The stored vector of `id` (a new array). */
  get(id: number): Float64Array {
    return decodeNumbers(this.chunks[this.chunkOf[id]!]!, this.start[id]!, this.len[id]!);
  }

  /** Bytes held by the table's arrays. */
  get bytes(): number {
    let b = this.slots.byteLength + this.code.byteLength + this.start.byteLength * 4;
    for (const c of this.chunks) b += c.byteLength;
    return b;
  }

  /** Writes the code of `v[0 .. n-1]` into `code[0 .. codeLen-1]`. */
  private encode(v: Float64Array, n: number): void {
    if (this.code.length < n * 9) this.code = new Uint8Array(n * 9 * 2);
    const code = this.code;
    let j = 0;
    for (let i = 0; i < n; i++) j = encodeNumber(v[i]!, code, j);
    this.codeLen = j;
  }

  private add(h: number): number {
    const id = this.size++;
    if (id === this.len.length) {
      const c = this.len.length * 2;
      this.chunkOf = grown(this.chunkOf, new Int32Array(c));
      this.start = grown(this.start, new Int32Array(c));
      this.len = grown(this.len, new Int32Array(c));
      this.hashes = grown(this.hashes, new Int32Array(c));
    }
    const len = this.codeLen;
    if (this.used + len > this.chunk.length) {
      // A new chunk: twice the last up to CHUNK, and at least this code (a code never straddles).
      this.chunk = new Uint8Array(Math.max(len, Math.min(CHUNK, this.chunk.length * 2)));
      this.chunks.push(this.chunk);
      this.used = 0;
    }
    this.chunk.set(this.code.subarray(0, len), this.used);
    this.chunkOf[id] = this.chunks.length - 1;
    this.start[id] = this.used;
    this.len[id] = len;
    this.hashes[id] = h;
    this.used += len;
    if (this.size * 2 > this.slots.length) this.rehash();
    else this.place(id, h);
    return id;
  }

  private place(id: number, h: number): void {
    const slots = this.slots;
    let s = h & this.mask;
    while (slots[s] !== 0) s = (s + 1) & this.mask;
    slots[s] = id + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    this.mask = this.slots.length - 1;
    for (let id = 0; id < this.size; id++) this.place(id, this.hashes[id]!);
  }
}

/** Largest chunk of a `VectorTable` (a code longer than this gets a chunk of its own). */
const CHUNK = 1 << 20;

/**
 * Interns fixed-width tuples of 32-bit integers (a state as its warps' and memory's ids): equal
 * tuples get the same dense id. Capacity grows past 2^24 entries (limited by memory only).
 *
 * Layout (issue 10 §3): each tuple is stored once, inline in its slot next to `id + 1`, so a
 * lookup touches one cache line (the explorer's most frequent random memory access); `slotOf`
 * maps an id to its slot for the breadth-first expansion. Every array starts small and grows with
 * the table — a search of a few hundred states allocates a few KB, not megabytes.
 */
export class TupleTable {
  /** Per slot: id + 1 (0 = empty), then the tuple. */
  private slots: Int32Array;
  /** Per id: the slot that holds it (moved by `rehash`). */
  private slotOf = new Int32Array(INITIAL_CAPACITY / 2);
  private capacity = INITIAL_CAPACITY;
  private readonly stride: number;
  /** Direct-mapped cache of recent entries, same layout as `slots`; grows with the table. */
  private recent: Int32Array;
  private recentShift = 32 - INITIAL_RECENT_BITS;
  size = 0;

  constructor(readonly width: number) {
    this.stride = width + 1;
    this.slots = new Int32Array(this.capacity * this.stride);
    this.recent = new Int32Array((1 << INITIAL_RECENT_BITS) * this.stride);
  }

  /** The id of tuple `t[0 .. width-1]`, adding it when new (then `id === size - 1`). */
  intern(t: Int32Array): number {
    const w = this.width;
    const stride = this.stride;
    const h = hashTuple(t, 0, w);
    // A small direct-mapped cache of recent entries first: breadth-first search meets most
    // duplicates soon after their first visit (the two orders of independent steps), and the
    // cache stays in L2 where the main table is a DRAM access.
    const recent = this.recent;
    const ro = (Math.imul(h, 0x9e3779b1) >>> this.recentShift) * stride;
    const re = recent[ro]!;
    if (re !== 0) {
      let i = 0;
      while (i < w && recent[ro + 1 + i] === t[i]) i++;
      if (i === w) return re - 1;
    }
    const id = this.lookup(t, h);
    recent[ro] = id + 1;
    for (let i = 0; i < w; i++) recent[ro + 1 + i] = t[i]!;
    return id;
  }

  /** The id of tuple `t`, or -1 when it is not in the table (nothing is added). */
  find(t: Int32Array): number {
    const w = this.width;
    const stride = this.stride;
    const slots = this.slots;
    const mask = this.capacity - 1;
    for (let s = hashTuple(t, 0, w) & mask; ; s = (s + 1) & mask) {
      const o = s * stride;
      const e = slots[o]!;
      if (e === 0) return -1;
      let i = 0;
      while (i < w && slots[o + 1 + i] === t[i]) i++;
      if (i === w) return e - 1;
    }
  }

  private lookup(t: Int32Array, h: number): number {
    const w = this.width;
    const stride = this.stride;
    const slots = this.slots;
    const mask = this.capacity - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const o = s * stride;
      const e = slots[o]!;
      if (e === 0) {
        const id = this.size++;
        if (id === this.slotOf.length) this.slotOf = grown(this.slotOf, new Int32Array(id * 2));
        this.slotOf[id] = s;
        slots[o] = id + 1;
        for (let i = 0; i < w; i++) slots[o + 1 + i] = t[i]!;
        // Keep the load under 5/8: linear probing stays short.
        if (this.size * 8 > this.capacity * 5) this.rehash();
        return id;
      }
      let i = 0;
      while (i < w && slots[o + 1 + i] === t[i]) i++;
      if (i === w) return e - 1;
    }
  }

  /** Element `j` of tuple `id`. */
  at(id: number, j: number): number {
    return this.slots[this.slotOf[id]! * this.stride + 1 + j]!;
  }

  /** Copies tuple `id` into `out`. */
  copy(id: number, out: Int32Array): void {
    const o = this.slotOf[id]! * this.stride + 1;
    out.set(this.slots.subarray(o, o + this.width));
  }

  get bytes(): number {
    return this.slots.byteLength + this.slotOf.byteLength + this.recent.byteLength;
  }

  private rehash(): void {
    // Walk the old slots in order: an entry's new home is its old one or that plus the old
    // capacity, so the writes go to two ascending streams instead of random places.
    const old = this.slots;
    const oldCapacity = this.capacity;
    const capacity = oldCapacity * 2;
    const stride = this.stride;
    const slots = new Int32Array(capacity * stride);
    const slotOf = this.slotOf;
    const mask = capacity - 1;
    const w = this.width;
    for (let from = 0; from < oldCapacity; from++) {
      const o = from * stride;
      const e = old[o]!;
      if (e === 0) continue;
      let s = hashTuple(old, o + 1, w) & mask;
      while (slots[s * stride] !== 0) s = (s + 1) & mask;
      const n = s * stride;
      for (let i = 0; i < stride; i++) slots[n + i] = old[o + i]!;
      slotOf[e - 1] = s;
    }
    this.slots = slots;
    this.capacity = capacity;
    // The recent cache: a quarter of the table's slots, up to 2^18 entries (it must fit in L2).
    const bits = 31 - Math.clz32(capacity >>> 2);
    if (bits > 32 - this.recentShift && bits <= MAX_RECENT_BITS) {
      this.recent = new Int32Array((1 << bits) * stride);
      this.recentShift = 32 - bits;
    }
  }
}

const INITIAL_CAPACITY = 1 << 5;
const INITIAL_RECENT_BITS = 3;
const MAX_RECENT_BITS = 18;

/**
 * 32-bit hash of `t[o .. o+w-1]`: one multiply-xorshift per word, then murmur3's finaliser for
 * avalanche (linear probing needs well-spread low bits; the words are small dense ids).
 */
function hashTuple(t: Int32Array, o: number, w: number): number {
  let h = w;
  for (let i = 0; i < w; i++) {
    h = Math.imul(h ^ t[o + i]!, 0x9e3779b1);
    h ^= h >>> 15;
  }
  return finalMix(h, w);
}

function grown<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
