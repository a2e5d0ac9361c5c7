/**
 * Per-lane ballot logs, as the Vulkan/WebGPU "correct reconvergence" tests record them: each lane
 * appends, at every ballot, the active mask (and at every `store(k)`, a marker) to its own slice
 * of memory. Layout shared by the lowering (`lowerStructured.ts`), the cases of
 * `../shared/cases/reconvergence/` and the law P9: lane `l` of warp `w` writes its `i`-th entry at
 * word `LOG_BASE + (w · W + l) · LOG_STRIDE + i`; a store marker is `STORE_TAG + k`. A ballot
 * mask is never 0 (the lane itself is active), so the first unwritten word ends a lane's log.
 */
import type { Memory } from '../../model/lanes/memory.ts';

export const LOG_BASE = 0x10000;
export const LOG_STRIDE = 0x1000;
export const STORE_TAG = 0x10000;

/** One lane's log: ballot masks and store markers, in program order. */
export type LaneLog = readonly number[];

/**
 * Calls `visit(thread, index, value)` for every log word of threads `0 .. threads-1` in `memory`,
 * in ascending address order (so thread by thread, each lane's entries in order), without copying
 * the memory: the buckets are walked in place from the first that can hold a log word.
 */
function forEachLogWord(
  memory: Memory,
  threads: number,
  visit: (thread: number, index: number, value: number) => void,
): void {
  const end = LOG_BASE + threads * LOG_STRIDE;
  for (const cells of memory.buckets) {
    const n = cells.length;
    // Buckets hold ascending addresses and come in ascending order: skip those below the logs,
    // stop at the first word past them.
    if (n === 0 || cells[n - 2]! < LOG_BASE) continue;
    for (let i = 0; i < n; i += 2) {
      const a = cells[i]!;
      if (a < LOG_BASE) continue;
      if (a >= end) return;
      const off = a - LOG_BASE;
      const t = Math.floor(off / LOG_STRIDE);
      visit(t, off - t * LOG_STRIDE, cells[i + 1]!);
    }
  }
}

/** The logs of `threads` threads read from a final memory. */
export function ballotLogs(memory: Memory, threads: number): LaneLog[] {
  const out: number[][] = Array.from({ length: threads }, () => []);
  // A lane's log ends at its first unwritten word: a later word (past a gap) is not part of it.
  forEachLogWord(memory, threads, (t, i, v) => {
    const log = out[t]!;
    if (i === log.length) log.push(v >>> 0);
  });
  return out;
}

/**
 * How the logs in `memory` stand against `want` (one log per thread), as `ballotLogs` would read
 * them, without building them: `diverged` when some lane's log is not a prefix of its wanted one,
 * `complete` when every lane's log equals it, else `prefix`. The per-state test of `reachesLog`.
 */
export function logProgress(
  memory: Memory,
  want: readonly LaneLog[],
  lengths: Int32Array = new Int32Array(want.length),
): 'diverged' | 'prefix' | 'complete' {
  const threads = want.length;
  lengths.fill(0, 0, threads);
  let diverged = false;
  forEachLogWord(memory, threads, (t, i, v) => {
    if (diverged || i !== lengths[t]) return; // past a gap: not part of the log
    const w = want[t]!;
    if (i >= w.length || w[i] !== v >>> 0) diverged = true;
    else lengths[t] = i + 1;
  });
  if (diverged) return 'diverged';
  for (let t = 0; t < threads; t++) if (lengths[t] !== want[t]!.length) return 'prefix';
  return 'complete';
}

/** An entry as the cases' headers print it: `0xc` for a mask, `s7` for `store(7)`. */
export const formatEntry = (v: number): string =>
  v >= STORE_TAG ? `s${v - STORE_TAG}` : `0x${v.toString(16)}`;

/** `lane 0: 0xc 0xc` lines, as in the cases' headers. */
export const formatLogs = (logs: readonly LaneLog[]): string[] =>
  logs.map((l, i) => `lane ${i}: ${l.map(formatEntry).join(' ')}`.trimEnd());

/** Parses an entry written by `formatEntry`. */
export function parseEntry(s: string): number | null {
  if (/^s\d+$/.test(s)) return STORE_TAG + Number(s.slice(1));
  if (/^0x[0-9a-f]+$/i.test(s)) return Number(s) >>> 0;
  return null;
}
