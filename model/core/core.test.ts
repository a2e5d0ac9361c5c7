/**
 * The issue core (SEMANTICS §4). Cycle counts below are derived by hand from the rules in
 * core.ts / scheduler.ts / scoreboard.ts (write-back at issue + latency; a write completes at its
 * ready cycle; one issue per cycle), with the latencies set explicitly in each test.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explore } from '../explore/exhaustive.ts';
import { machineOf, replay } from '../testing/run.ts';
import { divergentKernel, spinlockKernel } from '../../properties/arbitraries/kernels.ts';
import { structuredKernel } from '../../properties/arbitraries/structured.ts';
import { readFileSync } from 'node:fs';
import { createCore, scheduleOf } from './core.ts';
import { DEFAULT_LATENCIES, parseLatencies } from './latency.ts';
import { simulate } from './simulate.ts';
import { coreConfig, SPINLOCK_W2 } from './coreTesting.ts';
import { MECHANISMS } from '../mechanisms/registry.ts';

const ALL = MECHANISMS.map((f) => f.id);

const cfg = coreConfig;

const chain = (warps: number) => `// @warpcheck warp-size=1 warps=${warps}
	Function : chain
        MOV R1, 0x1 ;
        IADD3 R2, R1, 0x1, RZ ;
        EXIT ;
`;

describe('core: one warp, a dependence chain', () => {
  it('stalls the dependent instruction until the write-back (alu = 4)', () => {
    // c0 MOV (R1 ready at 4); c1–c3 IADD3 waits; c4 IADD3; c5 EXIT; 6 cycles.
    const r = simulate(createCore(machineOf(chain(1), 'its'), cfg()));
    expect(r.end.kind).toBe('terminated');
    expect(r.counters).toEqual({
      cycles: 6,
      issued: 3,
      activeLanes: 3,
      idle: 3,
      stalls: 3,
      falseStalls: 0,
    });
    expect(r.ipc).toBe(0.5);
    expect(r.simdEfficiency).toBe(1);
  });

  it('two warps under loose round robin hide part of the latency', () => {
    // c0 w0 MOV; c1 w1 MOV; c2,c3 both wait (4 stalls, idle); c4 w0 IADD3; c5 w1 IADD3;
    // c6 w0 EXIT; c7 w1 EXIT: 8 cycles.
    const r = simulate(createCore(machineOf(chain(2), 'its'), cfg({ scheduler: 'lrr' })));
    expect(r.counters).toMatchObject({ cycles: 8, issued: 6, idle: 2, stalls: 4 });
  });

  it('greedy-then-oldest keeps the last warp while it can issue', () => {
    // c0 w0 MOV; c1 w0 waits, w1 MOV; c2,c3 both wait; c4 w1 waits (R1 at 5), w0 IADD3;
    // c5 w0 EXIT; c6 w1 IADD3; c7 w1 EXIT: 8 cycles, 1+2+2+1 = 6 stalls.
    const r = simulate(createCore(machineOf(chain(2), 'its'), cfg({ scheduler: 'gto' })));
    expect(r.counters).toMatchObject({ cycles: 8, issued: 6, idle: 2, stalls: 6 });
  });
});

const divergent = `// @warpcheck warp-size=2 warps=1 mem[0x100]=7
	Function : split
        S2R R0, SR_LANEID ;
        ISETP.EQ.AND P0, PT, R0, RZ, PT ;
   @P0  BRA \`(.L_a) ;
        IADD3 R3, R1, 0x1, RZ ;
        BRA \`(.L_join) ;
.L_a:
        LDS R1, [RZ+0x100] ;
.L_join:
        EXIT ;
`;

describe('core: per-warp vs lane-mask scoreboard (seed 004)', () => {
  it('the per-warp scoreboard stalls the other path on a register only the first path writes', () => {
    // simt-stack, taken path first: c0 S2R; c1–3 wait; c4 ISETP; c5–7 wait; c8 BRA; c9 LDS by
    // lane 0 (R1 pending for lane 0 until 39); lane 1's IADD3 reads R1: the warp scoreboard
    // waits c10–c38 (29 false stalls), c39 IADD3, c40 BRA, c41 EXIT: 42 cycles.
    const r = simulate(createCore(machineOf(divergent, 'simt-stack'), cfg({ scoreboard: 'warp' })));
    expect(r.end.kind).toBe('terminated');
    expect(r.counters).toMatchObject({ cycles: 42, issued: 7, stalls: 35, falseStalls: 29 });
  });

  it('the lane-mask scoreboard lets it issue at once', () => {
    // Same until c9; c10 IADD3 (lane 1 does not overlap the pending mask of lane 0); c11 BRA;
    // c12 EXIT: 13 cycles, 6 stalls.
    const r = simulate(createCore(machineOf(divergent, 'simt-stack'), cfg({ scoreboard: 'mask' })));
    expect(r.counters).toMatchObject({ cycles: 13, issued: 7, stalls: 6, falseStalls: 0 });
    expect(r.simdEfficiency).toBeCloseTo((2 + 2 + 2 + 1 + 1 + 1 + 2) / (7 * 2));
  });
});

describe('core: bounds and ends', () => {
  it('a livelocked mechanism runs into the cycle budget: bound-reached, never terminated', () => {
    const spin = machineOf(SPINLOCK_W2, 'simt-stack');
    const r = simulate(createCore(spin, cfg()), { maxCycles: 5_000, timeoutMs: 10_000 });
    expect(r.end).toEqual({ kind: 'bound-reached', bound: 'cycles' });
  });

  it('parses latencies over the defaults and rejects unknown classes', () => {
    expect(parseLatencies('mem=400,alu=6')).toEqual({
      ok: true,
      value: { ...DEFAULT_LATENCIES, global: 400, alu: 6 },
    });
    expect(parseLatencies('fpu=3').ok).toBe(false);
    expect(parseLatencies('alu=0').ok).toBe(false);
  });
});

const latencyArb = fc.record({
  alu: fc.integer({ min: 1, max: 8 }),
  sfu: fc.integer({ min: 1, max: 30 }),
  shared: fc.integer({ min: 1, max: 40 }),
  global: fc.integer({ min: 1, max: 300 }),
});

describe('core laws over generated kernels (SEMANTICS §4)', () => {
  it('safety: every timed run is an untimed run of the same machine (same final state)', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false, maxSteps: 8 }),
        fc.constantFrom(...ALL),
        fc.constantFrom('lrr', 'gto'),
        fc.constantFrom('warp', 'mask'),
        latencyArb,
        ({ text }, mech, scheduler, scoreboard, latencies) => {
          const m = machineOf(text, mech);
          const r = simulate(
            createCore(
              m,
              cfg({
                scheduler: scheduler as 'lrr' | 'gto',
                scoreboard: scoreboard as 'warp' | 'mask',
                latencies,
              }),
            ),
            { maxCycles: 5_000, timeoutMs: 5_000 },
          );
          // Whatever the end (generated kernels may loop forever), the issues so far are a run.
          expect(m.key(replay(m, scheduleOf(r.state)).states.at(-1)!)).toBe(m.key(r.state.machine));
        },
      ),
      { seed: 4242, numRuns: 80 },
    );
  });

  it('liveness: a kernel that terminates functionally terminates in the core under every scheduler, scoreboard and latency tried', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false, maxSteps: 8 }),
        fc.constantFrom(...ALL),
        latencyArb,
        ({ text }, mech, latencies) => {
          const m = machineOf(text, mech);
          const functional = explore(m, { maxStates: 5_000, maxDepth: 5_000, timeoutMs: 5_000 });
          fc.pre(functional.verdict === 'terminates');
          for (const scheduler of ['lrr', 'gto'] as const)
            for (const scoreboard of ['warp', 'mask'] as const) {
              const r = simulate(createCore(m, cfg({ scheduler, scoreboard, latencies })), {
                maxCycles: 200_000,
                timeoutMs: 5_000,
              });
              expect(r.end.kind).toBe('terminated');
            }
        },
      ),
      { seed: 77, numRuns: 60 },
    );
  });

  it('liveness with communicating lanes: spin loops and flag waits that terminate under fairness terminate in the core (fair choice among paths)', () => {
    // The core picks, among a warp's ready candidates, the one whose longest-waiting lane waited
    // longest; taking always the first would starve the lock holder (its on the spinlock at
    // latency 1, mp-ipdom/dual-path on a flag wait whose setter sits at a higher PC).
    const root = new URL('../../', import.meta.url).pathname;
    for (const [file, mechs] of [
      ['scenarios/spinlock.sass', ['its', 'dws', 'hybrid']],
      ['scenarios/core/flag-wait.sass', ['its', 'mp-ipdom', 'dual-path', 'dws']],
    ] as const)
      for (const mech of mechs)
        for (const scheduler of ['lrr', 'gto'] as const) {
          const m = machineOf(readFileSync(root + file, 'utf8'), mech);
          const r = simulate(
            createCore(m, cfg({ scheduler, latencies: { alu: 1, sfu: 1, shared: 1, global: 1 } })),
            { maxCycles: 20_000, timeoutMs: 5_000 },
          );
          expect(r.end.kind, `${file} on ${mech} (${scheduler})`).toBe('terminated');
        }
    fc.assert(
      fc.property(
        fc.oneof(
          spinlockKernel.map((k) => k.text),
          structuredKernel({ maxWarpSize: 4, maxWarps: 2 }).map((k) => k.text),
        ),
        fc.constantFrom(
          'its',
          'mp-ipdom',
          'dual-path',
          'bfs',
          'hanoi',
          'simt-stack',
          'dws',
          'hybrid',
        ),
        latencyArb,
        fc.constantFrom('lrr', 'gto'),
        (text, mech, latencies, scheduler) => {
          const m = machineOf(text, mech);
          const functional = explore(m, { maxStates: 3_000, maxDepth: 3_000, timeoutMs: 3_000 });
          fc.pre(functional.verdict === 'terminates');
          const r = simulate(createCore(m, cfg({ scheduler, latencies })), {
            maxCycles: 100_000,
            timeoutMs: 5_000,
          });
          expect(r.end.kind).toBe('terminated');
        },
      ),
      { seed: 1122, numRuns: 80 },
    );
  });
});
