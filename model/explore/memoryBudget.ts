import { getHeapStatistics } from 'node:v8';

/**
 * The memory budget of a search (`Budget.maxMemoryMb`, DESIGN.md "Budgets, not hangs"): the
 * search stops with `bound-reached (memory)` when the process's resident memory passes the budget,
 * or — whichever comes first — when the JavaScript heap nears V8's own limit. That limit (about
 * 4 GB on a 24 GB machine under Node's defaults, the same in worker threads) is often below the
 * budget; past it V8 aborts the whole process with "heap out of memory" and a native stack,
 * losing every result, so the search must stop before it. `HEAP_SHARE` of the limit leaves room
 * for the fair-cycle pass and the findings that follow a stopped search.
 */
export const HEAP_SHARE = 0.85;

/** What the budget check reads, in bytes (a parameter so that tests can give other figures). */
export interface MemoryFigures {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapLimit: number;
}

/** This process's figures now. */
export function processMemory(): MemoryFigures {
  const h = getHeapStatistics();
  return {
    rss: process.memoryUsage.rss(),
    heapUsed: h.used_heap_size,
    heapLimit: h.heap_size_limit,
  };
}

/** Why the search must stop for memory, or null while it may go on. */
export function memoryOver(
  maxMemoryMb: number,
  read: () => MemoryFigures = processMemory,
): string | null {
  const f = read();
  const mb = (n: number) => Math.round(n / 1048576).toLocaleString('en-US');
  if (f.rss > maxMemoryMb * 1048576) return `${maxMemoryMb} MB resident; ${mb(f.rss)} MB in use`;
  if (f.heapUsed > HEAP_SHARE * f.heapLimit)
    return `the JavaScript heap at ${mb(f.heapUsed)} MB of its ${mb(f.heapLimit)} MB limit; raise the limit with NODE_OPTIONS=--max-old-space-size=MB`;
  return null;
}
