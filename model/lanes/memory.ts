import { UNKNOWN } from './values.ts';

/**
 * Block-shared memory (SEMANTICS §1): one map from integer address to 32-bit word, sequentially
 * consistent. `havoc` is set by an opaque store (abstract mode): every word not written since
 * reads as unknown.
 *
 * A persistent structure (issue 14, fault 6: the flat array was copied on every write, and built
 * in quadratic time, so a 16,000-word launch header took 36 s before the first step). Words are
 * grouped in buckets of `BUCKET` consecutive byte addresses: `keys[i]` is the bucket number
 * `floor(addr / BUCKET)` of `buckets[i]`, ascending, and each bucket is its (address, value) pairs
 * sorted by address. A write copies one bucket and the bucket list, never the words of the others,
 * which stay shared between the states of a search. The shape is a function of the contents alone
 * (which buckets exist and what each holds), so equal memories are structurally equal and their
 * keys (`writeMemoryKey`) are equal whatever the order of writes. Empty buckets are never kept.
 */
export interface Memory {
  readonly keys: readonly number[];
  readonly buckets: readonly (readonly number[])[];
  readonly havoc: boolean;
}

/** Bytes of address space per bucket: 64 words at the usual 4-byte stride. */
const BUCKET = 256;

export const emptyMemory: Memory = { keys: [], buckets: [], havoc: false };

/** Builds a memory from (address, value) pairs; later pairs win. O(n log n). */
export function memoryOf(entries: Iterable<readonly [number, number]>): Memory {
  const list = [...entries];
  if (list.some(([a]) => a === UNKNOWN)) {
    // A store to an unknown address havocs what came before it: replay the writes in order.
    let m = emptyMemory;
    for (const [a, v] of list) m = writeWord(m, a, v);
    return m;
  }
  const last = new Map<number, number>();
  for (const [a, v] of list) last.set(a, v);
  const addrs = [...last.keys()].sort((x, y) => x - y);
  const keys: number[] = [];
  const buckets: number[][] = [];
  for (const a of addrs) {
    const k = Math.floor(a / BUCKET);
    if (keys.length === 0 || keys[keys.length - 1] !== k) {
      keys.push(k);
      buckets.push([]);
    }
    buckets[buckets.length - 1]!.push(a, last.get(a)!);
  }
  return { keys, buckets, havoc: false };
}

/** Index of `k` in the ascending `keys`, or `-(insertion point + 1)`. */
function search(keys: readonly number[], k: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const x = keys[mid]!;
    if (x === k) return mid;
    if (x < k) lo = mid + 1;
    else hi = mid - 1;
  }
  return -(lo + 1);
}

/** Pair index of `addr` in a bucket's (address, value) pairs, or `-(insertion pair + 1)`. */
function find(cells: readonly number[], addr: number): number {
  let lo = 0;
  let hi = (cells.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const a = cells[mid * 2]!;
    if (a === addr) return mid;
    if (a < addr) lo = mid + 1;
    else hi = mid - 1;
  }
  return -(lo + 1);
}

/** The word at `addr` (0 when never written, unknown after havoc or at an unknown address). */
export function readWord(m: Memory, addr: number): number {
  if (addr === UNKNOWN) return UNKNOWN;
  const b = search(m.keys, Math.floor(addr / BUCKET));
  if (b >= 0) {
    const cells = m.buckets[b]!;
    const i = find(cells, addr);
    if (i >= 0) return cells[i * 2 + 1]!;
  }
  return m.havoc ? UNKNOWN : 0;
}

/** Writes one word; a write to an unknown address havocs the whole memory. */
export function writeWord(m: Memory, addr: number, value: number): Memory {
  if (addr === UNKNOWN) return havocMemory();
  const k = Math.floor(addr / BUCKET);
  const b = search(m.keys, k);
  if (b < 0) {
    // A new bucket: the key and bucket lists grow by one at the insertion point.
    const at = -(b + 1);
    const keys = m.keys.slice();
    keys.splice(at, 0, k);
    const buckets = m.buckets.slice();
    buckets.splice(at, 0, [addr, value]);
    return { keys, buckets, havoc: m.havoc };
  }
  const old = m.buckets[b]!;
  const i = find(old, addr);
  if (i >= 0 && old[i * 2 + 1] === value) return m;
  const cells = old.slice();
  if (i >= 0) cells[i * 2 + 1] = value;
  else cells.splice(-(i + 1) * 2, 0, addr, value);
  const buckets = m.buckets.slice();
  buckets[b] = cells;
  return { keys: m.keys, buckets, havoc: m.havoc };
}

/** Every word unknown (an opaque store, or a store to an unknown address). */
export const havocMemory = (): Memory => ({ keys: [], buckets: [], havoc: true });

/** The written words as (address, value) pairs, ascending address (for views and tests). */
export function memoryEntries(m: Memory): [number, number][] {
  const out: [number, number][] = [];
  for (const cells of m.buckets)
    for (let i = 0; i < cells.length; i += 2) out.push([cells[i]!, cells[i + 1]!]);
  return out;
}

/**
 * The canonical key of a memory: the havoc flag, the number of written words, then every
 * (address, value) pair in ascending address order — equal memories give equal keys.
 */
export function writeMemoryKey(m: Memory, out: { push(n: number): void }): void {
  out.push(m.havoc ? 1 : 0);
  let n = 0;
  for (const cells of m.buckets) n += cells.length;
  out.push(n);
  for (const cells of m.buckets) for (let i = 0; i < cells.length; i++) out.push(cells[i]!);
}

/**
 * The lanes' local memories (`LaneData.local`) after a symbolic split's forgetting
 * (`machine/laneSymmetry.ts`): every word on which `lanes` disagree (a different value, or written
 * by some and not others) becomes unknown in each of them; a havoc in one havocs all of them. Null
 * when they already agree. An over-approximation: each lane's new memory holds its old one.
 */
export function forgetDifferingWords(
  local: readonly Memory[],
  lanes: readonly number[],
): Memory[] | null {
  const first = local[lanes[0]!]!;
  if (lanes.every((l) => local[l] === first)) return null;
  const out = local.slice();
  if (lanes.some((l) => local[l]!.havoc !== first.havoc)) {
    for (const l of lanes) out[l] = havocMemory();
    return out;
  }
  const addrs = new Set<number>();
  for (const l of lanes) for (const [a] of memoryEntries(local[l]!)) addrs.add(a);
  let changed = false;
  for (const a of addrs) {
    const v = readWord(first, a);
    if (lanes.every((l) => readWord(local[l]!, a) === v)) continue;
    changed = true;
    for (const l of lanes) out[l] = writeWord(out[l]!, a, UNKNOWN);
  }
  return changed ? out : null;
}
