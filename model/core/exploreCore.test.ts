/**
 * The exhaustive search over the core's scheduler choices (exploreCore.ts). Expected verdicts
 * derived by hand: a dependence chain on two warps ends under every schedule; on the spinlock an
 * unfair scheduler can keep issuing the spinner forever (seed 000 §III's loop, one lane holding the
 * lock never chosen), which the search reports as a cycle, not as termination.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { divergentKernel } from '../../properties/arbitraries/kernels.ts';
import { explore } from '../explore/exhaustive.ts';
import { MECHANISMS } from '../mechanisms/registry.ts';
import { machineOf } from '../testing/run.ts';
import { createCore, type CoreConfig } from './core.ts';
import { exploreCore } from './exploreCore.ts';
import { coreConfig, SPINLOCK_W2 } from './coreTesting.ts';

const cfg = (o: Partial<CoreConfig> = {}): CoreConfig =>
  coreConfig({ latencies: { alu: 2, sfu: 3, shared: 3, global: 5 }, ...o });
const budget = { maxStates: 50_000, maxDepth: 5_000, timeoutMs: 10_000 };

describe('exploreCore', () => {
  it('every schedule of a two-warp dependence chain ends', () => {
    const m = machineOf(
      `// @warpcheck warp-size=1 warps=2
	Function : chain
        MOV R1, 0x1 ;
        IADD3 R2, R1, 0x1, RZ ;
        EXIT ;
`,
      'its',
    );
    const r = exploreCore(createCore(m, cfg()), budget);
    expect(r.verdict).toBe('terminates');
    // Both warps' MOVs in either order, each warp's chain stalls, etc.: more than one path.
    expect(r.states).toBeGreaterThan(5);
  });

  it('finds the unfair schedule that spins forever on the spinlock (its, latency 1)', () => {
    const m = machineOf(SPINLOCK_W2, 'its');
    const r = exploreCore(
      createCore(m, cfg({ latencies: { alu: 1, sfu: 1, shared: 1, global: 1 } })),
      budget,
    );
    expect(r.verdict).toBe('cycle');
    expect(r.choices.length).toBeGreaterThan(0);
  });

  it('timing adds no deadlock: on kernels whose lanes never communicate every schedule of every mechanism ends', () => {
    let conclusive = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: true, maxSteps: 6 }),
        fc.constantFrom(...MECHANISMS.map((f) => f.id)),
        fc.constantFrom('warp' as const, 'mask' as const),
        fc.integer({ min: 1, max: 4 }),
        ({ text }, mech, scoreboard, alu) => {
          runs++;
          const m = machineOf(text, mech);
          const functional = explore(m, { maxStates: 5_000, maxDepth: 5_000, timeoutMs: 5_000 });
          fc.pre(functional.verdict === 'terminates');
          const r = exploreCore(
            createCore(
              m,
              cfg({
                scoreboard,
                latencies: { alu, sfu: alu + 1, shared: alu + 2, global: alu + 3 },
              }),
            ),
            { maxStates: 20_000, maxDepth: 5_000, timeoutMs: 5_000 },
          );
          if (r.verdict === 'bound-reached') return;
          conclusive++;
          expect(r.verdict, r.message).toBe('terminates');
        },
      ),
      { seed: 31, numRuns: 60 },
    );
    expect(conclusive).toBeGreaterThan(runs / 2);
  });
});
