/**
 * Longest common subsequence of two sequences (seed 002 §4.4, Fig. 37 and its Appendix A): a plain
 * dynamic-programming table and a deterministic trace-back, used by the opcode-convergent pass to
 * align the opcode streams of two divergent blocks.
 */

/** Which pairs of positions the LCS matched: `pairs[k] = [i, j]` with `a[i]` matched to `b[j]`. */
export interface LcsResult {
  /**
   * `table[i][j]` = length of an LCS of `a[0..i)` and `b[0..j)` — Fig. 37's table, with row 0
   * and column 0 the empty prefixes. `table.length === a.length + 1`.
   */
  readonly table: readonly (readonly number[])[];
  /** Matched index pairs, ascending in both coordinates; `pairs.length` = the LCS length. */
  readonly pairs: readonly (readonly [number, number])[];
}

/**
 * The LCS of `a` and `b` under `equal`.
 *
 * Trace-back (Fig. 37: "following the arrows backward, starting from the last cell"): from
 * (|a|, |b|), a diagonal step where the elements are equal and the diagonal cell + 1 gives the
 * cell; otherwise a step up (drop the last element of `a`) when that keeps the length, else left.
 * This tie-break is a **decision** (the figure's arrows are an image in our copy): it prefers the
 * diagonal, then `a`'s side, so it is deterministic and matches each `b` element as late as
 * possible.
 */
export function lcs<T>(
  a: readonly T[],
  b: readonly T[],
  equal: (x: T, y: T) => boolean,
): LcsResult {
  const n = a.length;
  const m = b.length;
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = 1; i <= n; i++) {
    const row = table[i]!;
    const up = table[i - 1]!;
    for (let j = 1; j <= m; j++)
      row[j] = equal(a[i - 1]!, b[j - 1]!) ? up[j - 1]! + 1 : Math.max(up[j]!, row[j - 1]!);
  }
  const pairs: [number, number][] = [];
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const here = table[i]![j]!;
    if (equal(a[i - 1]!, b[j - 1]!) && table[i - 1]![j - 1]! + 1 === here) {
      pairs.push([i - 1, j - 1]);
      i--;
      j--;
    } else if (table[i - 1]![j]! === here) i--;
    else j--;
  }
  pairs.reverse();
  return { table, pairs };
}
