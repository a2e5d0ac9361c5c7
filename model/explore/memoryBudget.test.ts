import { describe, expect, it } from 'vitest';
import { explore } from './exhaustive.ts';
import { HEAP_SHARE, LIVE_SHARE, memoryOver } from './memoryBudget.ts';
import { SPINLOCK_W2 } from '../core/coreTesting.ts';
import { machineFor } from '../scenario/session.ts';
import { loadProgram, resolveLaunch } from '../scenario/loadProgram.ts';

const MB = 1048576;

describe('memory budget (memoryBudget.ts)', () => {
  it('stops at the resident budget, and names it', () => {
    const why = memoryOver(100, () => ({ rss: 101 * MB, heapUsed: 0, heapLimit: 4000 * MB }));
    expect(why).toMatch(/^100 MB resident; 101 MB in use/);
  });

  it('stops when the heap nears V8 own limit even far below the resident budget', () => {
    // The crash this guards against: a worker died with "heap out of memory" at 4 GB while the
    // default budget was 8 GB resident (count_above at W = 32, --timeout 600). Without a collector
    // the figure read is all there is: over HEAP_SHARE of the limit stops.
    const limit = 4144 * MB;
    const noCollector = () => false;
    const near = memoryOver(
      8192,
      () => ({ rss: 4300 * MB, heapUsed: Math.ceil(HEAP_SHARE * limit) + MB, heapLimit: limit }),
      noCollector,
    );
    expect(near).toMatch(/JavaScript heap at 3,52\d MB of its 4,144 MB limit/);
    const below = memoryOver(
      8192,
      () => ({ rss: 4300 * MB, heapUsed: Math.floor(HEAP_SHARE * limit) - MB, heapLimit: limit }),
      noCollector,
    );
    expect(below).toBeNull();
  });

  it('judges the heap after a full collection: garbage does not stop a search, live data does', () => {
    const limit = 4000 * MB;
    // Before the collection 3,600 MB in use (over HEAP_SHARE = 3,400 MB); after it, `live`.
    const figures = (live: number) => {
      let collected = false;
      return {
        read: () => ({ rss: 5000 * MB, heapUsed: collected ? live : 3600 * MB, heapLimit: limit }),
        collect: () => (collected = true),
        collected: () => collected,
      };
    };
    const mostlyGarbage = figures(1800 * MB);
    expect(memoryOver(8192, mostlyGarbage.read, mostlyGarbage.collect)).toBeNull();
    expect(mostlyGarbage.collected()).toBe(true);
    // Live data past LIVE_SHARE (3,000 MB) stops, so that the search does not collect at every
    // check in the last tenth of the heap.
    const live = figures(Math.ceil(LIVE_SHARE * limit) + MB);
    expect(memoryOver(8192, live.read, live.collect)).toMatch(
      /JavaScript heap at 3,001 MB live of its 4,000 MB limit/,
    );
    // Under both thresholds nothing is collected.
    const calm = { n: 0 };
    const none = memoryOver(
      8192,
      () => ({ rss: 100 * MB, heapUsed: 100 * MB, heapLimit: limit }),
      () => (calm.n++, true),
    );
    expect(none).toBeNull();
    expect(calm.n).toBe(0);
  });

  it('judges the resident budget after a collection too', () => {
    let collected = false;
    const read = () => ({
      rss: collected ? 850 * MB : 1100 * MB,
      heapUsed: 0,
      heapLimit: 4000 * MB,
    });
    expect(memoryOver(1000, read, () => (collected = true))).toBeNull();
    // Just under the budget after the collection is not enough: RESIDENT_SHARE (90 %) leaves room,
    // so that a search does not collect at every check.
    collected = false;
    const close = () => ({
      rss: collected ? 950 * MB : 1100 * MB,
      heapUsed: 0,
      heapLimit: 4000 * MB,
    });
    expect(memoryOver(1000, close, () => (collected = true))).toMatch(/^1000 MB resident; 950 MB/);
    collected = false;
    const stays = () => ({ rss: 1100 * MB, heapUsed: 0, heapLimit: 4000 * MB });
    expect(memoryOver(1000, stays, () => true)).toMatch(/^1000 MB resident; 1,100 MB in use/);
  });

  it('a search over budget ends bound-reached (memory), never a verdict of its own', () => {
    // Any live process is over 1 MB resident: the first check (state 0) stops the search.
    const loaded = loadProgram(SPINLOCK_W2, 'spinlock.sass');
    if (!loaded.ok) throw new Error('spinlock does not load');
    const launch = resolveLaunch(loaded.value.header, {});
    if (!launch.ok) throw new Error('no launch');
    const made = machineFor(loaded.value, launch.value, 'its', {}, 'ascending');
    if (!made.ok) throw new Error(made.error.join('; '));
    const m = made.value;
    const r = explore(m, { maxStates: 1e6, maxDepth: 1e5, timeoutMs: 60_000, maxMemoryMb: 1 });
    expect(r.bound).toBe('memory');
    expect(r.verdict).toBe('bound-reached');
    expect(r.message).toMatch(/memory budget ran out \(1 MB resident; [\d,]+ MB in use\)/);
  });
});
