/**
 * Per-lane ballot logs, as the Vulkan/WebGPU "correct reconvergence" tests record them: each lane
 * appends, at every ballot, the active mask (and at every `store(k)`, a marker) to its own slice
 * of memory. Layout shared by the lowering (`lowerStructured.ts`), the cases of
 * `../shared/cases/reconvergence/` and the law P9: lane `l` of warp `w` writes its `i`-th entry at
 * word `LOG_BASE + (w · W + l) · LOG_STRIDE + i`; a store marker is `STORE_TAG + k`. A ballot
 * mask is never 0 (the lane itself is active), so the first unwritten word ends a lane's log.
 */
import { memoryEntries, type Memory } from '../../model/lanes/memory.ts';

export const LOG_BASE = 0x10000;
export const LOG_STRIDE = 0x1000;
export const STORE_TAG = 0x10000;

/** One lane's log: ballot masks and store markers, in program order. */
export type LaneLog = readonly number[];

/** The logs of `threads` threads read from a final memory. */
export function ballotLogs(memory: Memory, threads: number): LaneLog[] {
  const words = new Map<number, number>(memoryEntries(memory));
  return Array.from({ length: threads }, (_, t) => {
    const out: number[] = [];
    for (let i = 0; i < LOG_STRIDE; i++) {
      const v = words.get(LOG_BASE + t * LOG_STRIDE + i);
      if (v === undefined) break;
      out.push(v >>> 0);
    }
    return out;
  });
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
