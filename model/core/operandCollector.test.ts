/**
 * The operand collector (seed 002 §2.5). Cycle counts are derived by hand from the rules stated in
 * operandCollector.ts (reads from the cycle after issue, one read per bank per cycle, oldest unit
 * first, bank = register mod banks; dispatch the cycle after the last read; write-back at dispatch +
 * latency; a unit is held from issue to dispatch).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { machineOf } from '../testing/run.ts';
import { divergentKernel } from '../../properties/arbitraries/kernels.ts';
import { MECHANISMS } from '../mechanisms/registry.ts';
import { createCore, type CoreConfig } from './core.ts';
import {
  collectorSettingArb,
  findWarHazard,
  showsWar,
  straightKernel,
} from './operandCollectorSearch.ts';
import { simulate } from './simulate.ts';

const cfg = (o: Partial<CoreConfig> = {}): CoreConfig => ({
  scheduler: 'lrr',
  scoreboard: 'warp',
  latencies: { alu: 1, sfu: 20, shared: 30, global: 200 },
  issueWidth: 1,
  collector: 'out-of-order',
  banks: 4,
  collectorUnits: 2,
  ...o,
});

/** R0, R4 and R8 share bank 0 of 4: the IADD3 reads them in cycles 1, 2, 3. */
const war = `// @warpcheck warp-size=1 warps=1
	Function : war
        IADD3 R1, R0, R4, R8 ;
        MOV R8, 0x1 ;
        EXIT ;
`;

describe('operand collector: the write-after-read hazard', () => {
  it('out of order: the younger MOV writes R8 back before the older IADD3 reads it', () => {
    // c0 IADD3 issues (unit 1): reads R0 c1, R4 c2, R8 c3 (all bank 0); dispatch c4.
    // c1 MOV R8 issues (unit 2; the scoreboard has only R1 pending): no source, dispatch c2,
    // write-back c2 + 1 = c3 — the IADD3 reads R8 in c3: war-hazard, the run stops after c1.
    const r = simulate(createCore(machineOf(war, 'simt-stack'), cfg()), {
      maxCycles: 100,
      timeoutMs: 5_000,
    });
    expect(r.end.kind).toBe('stop');
    if (r.end.kind !== 'stop') return;
    expect(r.end.stop).toMatchObject({ verdict: 'violation', property: 'war-hazard' });
    // Names the register, both instructions and their PCs (0x0000 and 0x0010, 16 bytes each).
    expect(r.end.stop.message).toMatch(/write-after-read on R8/);
    expect(r.end.stop.message).toMatch(/MOV R8, 0x1 at 0x0010/);
    expect(r.end.stop.message).toMatch(/IADD3 R1, R0, R4, R8 at 0x0000/);
    expect(r.counters.cycles).toBe(2);
  });

  it('in order: the MOV waits for the IADD3 to dispatch; no hazard', () => {
    // c0 IADD3 (dispatch c4); c1 MOV: dispatch max(c2, c4) = c4, write-back c5 > c3;
    // c2, c3: both units held, EXIT cannot issue (idle); c4 units free, EXIT: 5 cycles.
    const r = simulate(createCore(machineOf(war, 'simt-stack'), cfg({ collector: 'in-order' })));
    expect(r.end.kind).toBe('terminated');
    expect(r.counters).toMatchObject({ cycles: 5, issued: 3, idle: 2, stalls: 0 });
  });

  it('out of order with a longer ALU latency: the write-back comes after the read', () => {
    // alu = 4: MOV write-back c2 + 4 = c6 > c3. The MOV dispatched (out of order) in c2 and freed
    // its unit, so EXIT issues in c2: 3 cycles (in order it waits until c4: 5, above).
    const r = simulate(
      createCore(
        machineOf(war, 'simt-stack'),
        cfg({ latencies: { alu: 4, sfu: 20, shared: 30, global: 200 } }),
      ),
    );
    expect(r.end.kind).toBe('terminated');
    expect(r.counters.cycles).toBe(3);
  });

  it('without a collector the listing takes 3 cycles (operands read at issue)', () => {
    const r = simulate(createCore(machineOf(war, 'simt-stack'), cfg({ collector: 'none' })));
    expect(r.counters).toMatchObject({ cycles: 3, issued: 3, idle: 0 });
  });
});

describe('operand collector laws over generated kernels', () => {
  it('in-order dispatch never shows a war-hazard (divergent kernels, every mechanism)', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: true, maxSteps: 8 }),
        fc.constantFrom(...MECHANISMS.map((f) => f.id)),
        collectorSettingArb,
        ({ text }, mech, s) => {
          const r = simulate(
            createCore(
              machineOf(text, mech),
              cfg({
                collector: 'in-order',
                latencies: s.latencies,
                banks: s.banks,
                collectorUnits: s.units,
              }),
            ),
            { maxCycles: 5_000, timeoutMs: 5_000 },
          );
          expect(r.end.kind === 'stop' && r.end.stop.property === 'war-hazard').toBe(false);
        },
      ),
      { seed: 606, numRuns: 80 },
    );
  });

  it('in-order dispatch never shows a war-hazard (straight-line kernels built to provoke it)', () => {
    fc.assert(
      fc.property(straightKernel, collectorSettingArb, (k, s) => {
        expect(showsWar({ text: k.text, ...s }, 'in-order')).toBe(false);
      }),
      { seed: 607, numRuns: 300 },
    );
  });

  it('out-of-order dispatch does show it: fast-check finds and shrinks a counterexample', () => {
    const c = findWarHazard(20261122, 500);
    expect(c).not.toBeNull();
    expect(showsWar(c!, 'out-of-order')).toBe(true);
    expect(showsWar(c!, 'in-order')).toBe(false);
  });
});
