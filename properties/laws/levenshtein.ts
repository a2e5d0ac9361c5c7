/**
 * Edit distance of two issue sequences (seed 000 §IX: trace discrepancy = Levenshtein distance /
 * length). A local copy: `model/trace/discrepancy.ts` (being written beside this) has the same DP
 * over (PC, mask) issues — once it is committed, use its `levenshtein` and delete this file.
 */
export function levenshtein(a: readonly string[], b: readonly string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
        prev[j]! + 1,
        cur[j - 1]! + 1,
      );
    prev = cur;
  }
  return prev[b.length]!;
}
