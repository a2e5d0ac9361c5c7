import type { KeySink } from '../machine/key.ts';

/**
 * Sets of a block's threads for the block mechanisms (`blockMechanism.ts`; issue 10): one W-bit
 * word per home warp, word k bit l = thread k·W + l (SEMANTICS §1's numbering: home warp k, home
 * lane l). K ≤ 8 and W ≤ 32 (the launch limits, `lanes/launch.ts`) give up to 256 threads, and
 * word k is exactly the lane mask home warp k's lanes execute (`machine/blockMachine.ts`), so no
 * step converts between layouts. Plain readonly arrays of K numbers, never mutated once made.
 *
 * Order (`compareThreads`) is the order of the block number Σ word_k · 2^(k·W): the order the
 * 32-bit block masks had (`dwf` sorts its pool by it), so runs at K·W ≤ 32 are unchanged.
 */
export type ThreadMask = readonly number[];

/** A block's shape: K warps of W lanes. */
export interface BlockShape {
  /** Warps in the block (K). */
  readonly warps: number;
  /** Lanes per warp (W): a thread's home lane is its index mod W. */
  readonly warpSize: number;
}

/** Mask of the W lanes of one warp. */
export function laneWord(shape: BlockShape): number {
  return shape.warpSize === 32 ? 0xffffffff : (1 << shape.warpSize) - 1;
}

/** The empty set. */
export function noThreads(shape: BlockShape): ThreadMask {
  return new Array<number>(shape.warps).fill(0);
}

/** Every thread of the block. */
export function allThreads(shape: BlockShape): ThreadMask {
  return new Array<number>(shape.warps).fill(laneWord(shape));
}

/** Thread t alone. */
export function oneThread(shape: BlockShape, t: number): ThreadMask {
  const out = new Array<number>(shape.warps).fill(0);
  out[Math.floor(t / shape.warpSize)] = (1 << (t % shape.warpSize)) >>> 0;
  return out;
}

export function isEmpty(a: ThreadMask): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== 0) return false;
  return true;
}

export function sameThreads(a: ThreadMask, b: ThreadMask): boolean {
  if (a === b) return true;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

export function intersects(a: ThreadMask, b: ThreadMask): boolean {
  for (let k = 0; k < a.length; k++) if ((a[k]! & b[k]!) !== 0) return true;
  return false;
}

/** `a` ∪ `b`; one of them itself when the other adds nothing (states share it). */
export function union(a: ThreadMask, b: ThreadMask): ThreadMask {
  if (isEmpty(b)) return a;
  if (isEmpty(a)) return b;
  const out = new Array<number>(a.length);
  for (let k = 0; k < a.length; k++) out[k] = (a[k]! | b[k]!) >>> 0;
  return out;
}

/** The union of the `threads` of `items` (one array for all of them). */
export function unionOf(
  shape: BlockShape,
  items: readonly { readonly threads: ThreadMask }[],
): ThreadMask {
  const out = new Array<number>(shape.warps).fill(0);
  for (const it of items) for (let k = 0; k < out.length; k++) out[k] |= it.threads[k]!;
  for (let k = 0; k < out.length; k++) out[k] = out[k]! >>> 0;
  return out;
}

/** `a` without the threads of `b`; `a` itself when nothing is removed (states share it). */
export function minus(a: ThreadMask, b: ThreadMask): ThreadMask {
  if (!intersects(a, b)) return a;
  const out = new Array<number>(a.length);
  for (let k = 0; k < a.length; k++) out[k] = (a[k]! & ~b[k]!) >>> 0;
  return out;
}

/** The order of the block numbers Σ word_k · 2^(k·W): the highest home warp decides first. */
export function compareThreads(a: ThreadMask, b: ThreadMask): number {
  for (let k = a.length - 1; k >= 0; k--) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return 0;
}

export function countThreads(a: ThreadMask): number {
  let n = 0;
  for (let k = 0; k < a.length; k++) for (let m = a[k]!; m !== 0; m &= m - 1) n++;
  return n;
}

/** The home lanes `a` occupies, as one W-bit mask (the union of its words). */
export function homeLanesOf(a: ThreadMask): number {
  let m = 0;
  for (let k = 0; k < a.length; k++) m |= a[k]!;
  return m >>> 0;
}

/** The lowest thread of `a` (k·W + l), or -1 when empty. */
export function lowestThread(shape: BlockShape, a: ThreadMask): number {
  for (let k = 0; k < a.length; k++) {
    const w = a[k]!;
    if (w !== 0) return k * shape.warpSize + (31 - Math.clz32(w & -w));
  }
  return -1;
}

/** The 32-bit block-view mask of `a` (bit k·W + l); only for K·W ≤ 32. */
export function toBlockView(shape: BlockShape, a: ThreadMask): number {
  let m = 0;
  for (let k = 0; k < a.length; k++) m |= a[k]! << (k * shape.warpSize);
  return m >>> 0;
}

/** `toBlockView`'s inverse. */
export function fromBlockView(shape: BlockShape, m: number): ThreadMask {
  const out = new Array<number>(shape.warps);
  const word = laneWord(shape);
  for (let k = 0; k < shape.warps; k++) out[k] = ((m >>> (k * shape.warpSize)) & word) >>> 0;
  return out;
}

/**
 * Writes `a` to a key: one number when the block fits 32 bits (the block-view mask, so keys at
 * K·W ≤ 32 stay as short as before), else one number per home warp. Exact either way.
 */
export function writeThreads(out: KeySink, shape: BlockShape, a: ThreadMask): void {
  if (shape.warps * shape.warpSize <= 32) out.push(toBlockView(shape, a));
  else for (let k = 0; k < a.length; k++) out.push(a[k]!);
}

/** Prints `a` as its home warps' masks, warp 0 on the right: `1110_1111`. */
export function formatThreads(shape: BlockShape, a: ThreadMask): string {
  const parts: string[] = [];
  for (let k = shape.warps - 1; k >= 0; k--)
    parts.push((a[k]! >>> 0).toString(2).padStart(shape.warpSize, '0'));
  return parts.join('_');
}
