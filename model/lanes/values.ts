/**
 * Lane values (SEMANTICS §1): 32-bit words held as unsigned numbers in [0, 2^32), and `UNKNOWN`
 * for a value the model cannot know (abstract mode, SEMANTICS §5). Arithmetic on an unknown
 * operand gives unknown.
 */
export const UNKNOWN = -1;

/** Reduces any integer to an unsigned 32-bit word. */
export const u32 = (n: number): number => n >>> 0;

/** The word as a signed 32-bit integer. */
export const s32 = (n: number): number => n | 0;

export const isKnown = (n: number): boolean => n >= 0;

/**
 * Shared unknowns (issue 16, docs/semantics.md §13 "Shared unknowns"): a register column may hold
 * `shared(t)` (−2 − t, t ≥ 0) instead of `UNKNOWN`: every lane of the column holding the same tag
 * holds the same word, which the model does not know — a loop bound read from a kernel parameter,
 * `n - n % 4` computed by every lane of one issue. A tag means nothing across columns or states;
 * it only ties the lanes of one column together. Readers that evaluate values (`srcValue`) see
 * `UNKNOWN`; the rules that use the tie are in `lanes/shared.ts`.
 */
export const shared = (t: number): number => -2 - t;

/** `v` is a shared unknown (`shared`). */
export const isShared = (v: number): boolean => v < UNKNOWN;

/** The tag of shared unknown `v` (`shared`'s inverse). */
export const tagOf = (v: number): number => -2 - v;

/** Full mask of a W-lane warp. */
export const fullMask = (w: number): number => (w >= 32 ? 0xffffffff : (1 << w) - 1) >>> 0;

/** Number of set bits. */
export function popcount(m: number): number {
  m = m - ((m >>> 1) & 0x55555555);
  m = (m & 0x33333333) + ((m >>> 2) & 0x33333333);
  return (((m + (m >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Lowest set lane, or -1. */
export const lowestLane = (m: number): number => (m === 0 ? -1 : 31 - Math.clz32(m & -m));

/** Lanes of a mask in ascending order. */
export function lanesOf(m: number): number[] {
  const out: number[] = [];
  for (let l = 0; m !== 0; l++, m >>>= 1) if (m & 1) out.push(l);
  return out;
}

/** A mask as hex, `0x0000000f`. */
export const hexMask = (m: number): string => '0x' + (m >>> 0).toString(16).padStart(8, '0');

/** A mask as binary, most significant lane first, as seed 000 writes masks (`1100` = lanes 3, 2). */
export const binMask = (m: number, w: number): string =>
  (m >>> 0).toString(2).padStart(w, '0').slice(-w);
