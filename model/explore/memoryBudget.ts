import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The memory budget of a search (`Budget.maxMemoryMb`, DESIGN.md "Budgets, not hangs"): the
 * search stops with `bound-reached (memory)` when the process's resident memory passes the budget,
 * or — whichever comes first — when the JavaScript heap nears V8's own limit. That limit (about
 * 4 GB on a 24 GB machine under Node's defaults, the same in worker threads) is often below the
 * budget; past it V8 aborts the whole process with "heap out of memory" and a native stack,
 * losing every result, so the search must stop before it. `HEAP_SHARE` of the limit leaves room
 * for the fair-cycle pass and the findings that follow a stopped search. Both figures are judged
 * after a full collection (`memoryOver`): what counts is what the search keeps. Worker threads of
 * `explore` get a heap limit as large as the budget (`cli/exploreSearch.ts`, `cli/workerPool.ts`),
 * so there the resident budget, which the user sets, is the one that binds.
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

/**
 * After a full collection the live heap may fill at most this share of the limit: between it and
 * `HEAP_SHARE` lies the room the search allocates into before the next check collects again, so a
 * search near the limit stops instead of collecting at every check.
 */
export const LIVE_SHARE = 0.75;

/**
 * After a full collection the resident memory may fill at most this share of the budget, for the
 * same reason: a search just under the budget would otherwise collect at every check.
 */
export const RESIDENT_SHARE = 0.9;

/** V8's full collection, asked for at run time (`--expose-gc` set from here); null if refused. */
let collector: (() => void) | null | undefined;

/** Runs a full garbage collection; false when this runtime offers none. */
export function collectGarbage(): boolean {
  if (collector === undefined)
    try {
      setFlagsFromString('--expose-gc');
      collector = runInNewContext('gc') as () => void;
    } catch {
      collector = null;
    }
  if (!collector) return false;
  collector();
  return true;
}

/**
 * Why the search must stop for memory, or null while it may go on. The budget is judged on what
 * the search keeps, not on garbage V8 has not yet collected: V8 collects the old generation
 * lazily, and a large search stood at half garbage when the heap check stopped it (`count_above`,
 * W = 32, issue 16: 3.5 GB of heap in use, about 1.8 GB of it live). So when either figure is over,
 * the check collects (`collect`) and reads again; it stops if the resident memory still fills more
 * than `RESIDENT_SHARE` of the budget or the live heap more than `LIVE_SHARE` of V8's limit.
 */
export function memoryOver(
  maxMemoryMb: number,
  read: () => MemoryFigures = processMemory,
  collect: () => boolean = collectGarbage,
): string | null {
  let f = read();
  const budget = maxMemoryMb * 1048576;
  if (f.rss <= budget && f.heapUsed <= HEAP_SHARE * f.heapLimit) return null;
  const collected = collect();
  if (collected) f = read();
  const mb = (n: number) => Math.round(n / 1048576).toLocaleString('en-US');
  if (f.rss > (collected ? RESIDENT_SHARE : 1) * budget)
    return `${maxMemoryMb} MB resident; ${mb(f.rss)} MB in use`;
  if (f.heapUsed > (collected ? LIVE_SHARE : HEAP_SHARE) * f.heapLimit)
    return `the JavaScript heap at ${mb(f.heapUsed)} MB${collected ? ' live' : ''} of its ${mb(f.heapLimit)} MB limit; raise the limit with NODE_OPTIONS=--max-old-space-size=MB`;
  return null;
}
