/**
 * Discrepancy between two warp traces (seed 000 §IX: "the Levenshtein distance between the
 * control-flow traces of the model and the hardware, divided by the trace length"): each trace is
 * a sequence of (PC, mask) issues; two issues are equal when both PC and mask are. Distance is
 * the plain edit distance (insert, delete, substitute, each cost 1), computed by the O(n·m) DP
 * with two rows over interned (pc, mask) ids — 1,027 × 1,027 cells take a few milliseconds, so no
 * library is needed.
 */
import type { WarpIssue } from './traceReplay.ts';

/** Edit distance between `a` and `b` (issues equal when PC and mask are). */
export function levenshtein(a: readonly WarpIssue[], b: readonly WarpIssue[]): number {
  const ids = new Map<string, number>();
  const intern = (x: WarpIssue) => {
    const k = `${x.pc}:${x.mask >>> 0}`;
    let id = ids.get(k);
    if (id === undefined) ids.set(k, (id = ids.size));
    return id;
  };
  const xs = Int32Array.from(a, intern);
  const ys = Int32Array.from(b, intern);
  // prev[j] = distance between xs[0..i) and ys[0..j).
  let prev = new Int32Array(ys.length + 1);
  let cur = new Int32Array(ys.length + 1);
  for (let j = 0; j <= ys.length; j++) prev[j] = j;
  for (let i = 1; i <= xs.length; i++) {
    cur[0] = i;
    const x = xs[i - 1]!;
    for (let j = 1; j <= ys.length; j++) {
      const sub = prev[j - 1]! + (x === ys[j - 1]! ? 0 : 1);
      const del = prev[j]! + 1;
      const ins = cur[j - 1]! + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    [prev, cur] = [cur, prev];
  }
  return prev[ys.length]!;
}

/** First index at which the traces differ (a shorter trace differs where it ends); null if equal. */
export function firstDifference(a: readonly WarpIssue[], b: readonly WarpIssue[]): number | null {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++)
    if (a[i]!.pc !== b[i]!.pc || a[i]!.mask >>> 0 !== b[i]!.mask >>> 0) return i;
  return a.length === b.length ? null : n;
}

/** The discrepancy of a model trace against the hardware's. */
export interface Discrepancy {
  readonly hardwareLength: number;
  readonly modelLength: number;
  readonly distance: number;
  /** distance / hardware length (0 when both are empty). */
  readonly ratio: number;
  readonly first: number | null;
}

export function discrepancy(
  hardware: readonly WarpIssue[],
  model: readonly WarpIssue[],
): Discrepancy {
  const distance = levenshtein(hardware, model);
  return {
    hardwareLength: hardware.length,
    modelLength: model.length,
    distance,
    ratio: hardware.length === 0 ? (model.length === 0 ? 0 : 1) : distance / hardware.length,
    first: firstDifference(hardware, model),
  };
}

/** One row of a side-by-side view: the issues at `index` of each trace (null past its end). */
export interface SideBySideRow {
  readonly index: number;
  readonly hardware: WarpIssue | null;
  readonly model: WarpIssue | null;
  readonly same: boolean;
}

/** Rows `at - window` … `at + window` (clipped to the longer trace), index by index. */
export function sideBySide(
  hardware: readonly WarpIssue[],
  model: readonly WarpIssue[],
  at: number,
  window: number,
): SideBySideRow[] {
  const end = Math.min(Math.max(hardware.length, model.length), at + window + 1);
  const rows: SideBySideRow[] = [];
  for (let i = Math.max(0, at - window); i < end; i++) {
    const h = hardware[i] ?? null;
    const m = model[i] ?? null;
    rows.push({
      index: i,
      hardware: h,
      model: m,
      same: h !== null && m !== null && h.pc === m.pc && h.mask >>> 0 === m.mask >>> 0,
    });
  }
  return rows;
}
