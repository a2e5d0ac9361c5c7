import { describe, expect, it } from 'vitest';
import { countDwfPool } from '../bench/dwfPool.ts';
import { spinlockMachine } from '../bench/spinlock.ts';
import { explore } from '../model/explore/exhaustive.ts';

/**
 * The counting model of `bench/dwfPool.ts` (written apart from `model/mechanisms/dwf.ts`, for the
 * bench's figures on the spinlock) against the tool: with no reduction but dead values, its `tool`
 * reading must reach exactly the states `explore` stores for `dwf` — the same pool orders, joins
 * and CAS winners. So the bench's counts at sizes the tool cannot finish are the tool's rules,
 * and a change to either side's rules shows here.
 */
describe('bench/dwfPool.ts counts the states of dwf on the spinlock', () => {
  for (const [warps, warpSize] of [
    [2, 2],
    [2, 4],
    [3, 2],
  ] as const)
    it(`K = ${warps}, W = ${warpSize}`, () => {
      const m = spinlockMachine({ mechanism: 'dwf', warpSize, warps });
      const r = explore(
        m,
        { maxStates: 200_000, maxDepth: 100_000, timeoutMs: 50_000 },
        undefined,
        {
          reduce: { exitPriority: false },
        },
      );
      expect(r.verdict).toBe('terminates');
      const c = countDwfPool({
        warps,
        warpSize,
        reading: 'tool',
        exitFirst: false,
        ample: false,
        maxStates: 200_000,
      });
      expect(c.capped).toBe(false);
      expect(c.states).toBe(r.states);
    });

  it('the symmetric readings count fewer states than the tool on the same launch', () => {
    // Each reading's quotient identifies states; at K = 2, W = 4 the tool's rules keep threads by
    // name, so the quotients must come out smaller (a broken canonical form would not).
    const at = { warps: 2, warpSize: 4, exitFirst: true, ample: true, maxStates: 500_000 };
    const tool = countDwfPool({ ...at, reading: 'tool' });
    const g1 = countDwfPool({ ...at, reading: 'lane-first' });
    expect(tool.capped).toBe(false);
    expect(g1.states).toBeLessThan(tool.states);
  });
});
