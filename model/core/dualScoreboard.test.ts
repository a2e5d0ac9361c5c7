/**
 * The dual scoreboard (seed 002 §4.6). Cycle counts are derived by hand from the rules in
 * dualScoreboard.ts and core.ts (write-back at issue + latency, alu = 4, one issue per cycle),
 * as in core.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explore } from '../explore/exhaustive.ts';
import { MECHANISMS } from '../mechanisms/registry.ts';
import { divergentKernel } from '../../properties/arbitraries/kernels.ts';
import { machineOf, replay } from '../testing/run.ts';
import { createCore, scheduleOf, type CoreConfig } from './core.ts';
import { enter, EMPTY_DUAL } from './dualScoreboard.ts';
import { simulate } from './simulate.ts';
import { coreConfig } from './coreTesting.ts';

const cfg = (o: Partial<CoreConfig> = {}): CoreConfig => coreConfig({ scoreboard: 'dual', ...o });

/** Seed 002 Fig. 40, written from the prose: r1 is written in block B, read in block C. */
const fig40 = `// @warpcheck warp-size=2 warps=1
	Function : fig40
        S2R R0, SR_LANEID ;
        ISETP.EQ.AND P0, PT, R0, RZ, PT ;
   @P0  BRA TAKEN ;
NOT_TAKEN:
        IADD3 R2, R0, 0x5, RZ ;
        IADD3 R4, R1, 0x1, RZ ;
        BRA IPDOM ;
TAKEN:
        IADD3 R1, R0, 0x7, RZ ;
        IADD3 R4, R5, 0x1, RZ ;
IPDOM:
        EXIT ;
`;

describe('dual scoreboard: merged blocks (seed 002 §4.6 rule 3, Fig. 40)', () => {
  it('the per-warp scoreboard stalls the merged ADD on r1 written by the other side', () => {
    // c0 S2R; c1–3 wait (R0); c4 ISETP; c5–7 wait (P0); c8 BRA; c9 merged IADD3 R1 ∩ IADD3 R2
    // (R1, R2 ready at 13); c10–12 the merged IADD3 R4,R5 ∩ IADD3 R4,R1 waits on R1 (3 false
    // stalls: R1 is pending for lane 0 only, C runs on lane 1); c13 it issues; c14 BRA (lane 1);
    // c15 EXIT: 16 cycles, 9 stalls.
    const r = simulate(
      createCore(machineOf(fig40, 'opcode-convergent'), cfg({ scoreboard: 'warp' })),
    );
    expect(r.end.kind).toBe('terminated');
    expect(r.counters).toMatchObject({ cycles: 16, issued: 7, stalls: 9, falseStalls: 3 });
  });

  it('two boards: each half checks only its own side, so the merged ADD issues at once', () => {
    // Same until c9, which opens the split (side of lane 0 / side of lane 1): R1 goes to lane 0's
    // board, R2 to lane 1's (rule 3a). c10 the merged ADD: lane 0's half checks R4,R5 on board 0,
    // lane 1's half R4,R1 on board 1 — nothing pending (3b); c11 BRA; c12 EXIT: 13 cycles.
    const r = simulate(createCore(machineOf(fig40, 'opcode-convergent'), cfg()));
    expect(r.end.kind).toBe('terminated');
    expect(r.counters).toMatchObject({ cycles: 13, issued: 7, stalls: 6, falseStalls: 0 });
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
        MOV R5, R1 ;
        EXIT ;
`;

describe('dual scoreboard: divergent and convergent blocks (rules 1 and 2)', () => {
  it('a divergent write stays on its side; re-convergence unifies the boards', () => {
    // simt-stack, taken path first: c0 S2R; c1–3 wait; c4 ISETP; c5–7 wait; c8 BRA (convergent,
    // both lanes); c9 LDS by lane 0 opens the split, R1 pending on board 0 until 39 (rule 2a);
    // c10 IADD3 by lane 1 checks board 1 only (2b): issues; c11 BRA; c12 MOV R5, R1 by both lanes
    // is convergent: the boards are unified and R1 is pending (rule 2a, re-convergence), so it
    // waits c12–c38 (27 stalls); c39 MOV; c40 EXIT: 41 cycles, 3 + 3 + 27 = 33 stalls.
    const r = simulate(createCore(machineOf(divergent, 'simt-stack'), cfg()));
    expect(r.end.kind).toBe('terminated');
    expect(r.counters).toMatchObject({ cycles: 41, issued: 8, stalls: 33, falseStalls: 0 });
  });

  it('classifies issues by lanes: split, sides, merged halves, re-convergence', () => {
    const d0 = enter(EMPTY_DUAL, { pc: 0, mask: 0b1111 });
    expect(d0.role).toEqual({ kind: 'convergent' });
    const d1 = enter(d0.board, { pc: 3, mask: 0b0011 });
    expect(d1.role).toEqual({ kind: 'divergent', side: 0 });
    expect(d1.board.split).toEqual([0b0011, 0b1100]);
    expect(enter(d1.board, { pc: 7, mask: 0b0100 }).role).toEqual({ kind: 'divergent', side: 1 });
    expect(enter(d1.board, { pc: 7, mask: 0b0110 }).role).toEqual({ kind: 'convergent' });
    expect(enter(d0.board, { pc: 4, mask: 0b1100, merged: { pc: 8, mask: 0b0011 } }).role).toEqual({
      kind: 'merged',
      sides: [0, 1],
    });
    expect(enter(d1.board, { pc: 4, mask: 0b1100, merged: { pc: 8, mask: 0b0011 } }).role).toEqual({
      kind: 'merged',
      sides: [1, 0],
    });
  });
});

describe('dual scoreboard and operand collector keep the core laws (SEMANTICS §4)', () => {
  it('safety and liveness: every timed run is an untimed run; functional termination is kept', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false, maxSteps: 8 }),
        fc.constantFrom(...MECHANISMS.map((f) => f.id)),
        fc.constantFrom('lrr', 'gto'),
        fc.constantFrom('none', 'in-order', 'out-of-order'),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        ({ text }, mech, scheduler, collector, alu, banks) => {
          const m = machineOf(text, mech);
          const functional = explore(m, { maxStates: 2_000, maxDepth: 2_000, timeoutMs: 2_000 });
          const terminates = functional.verdict === 'terminates';
          const r = simulate(
            createCore(
              m,
              cfg({
                scheduler: scheduler as 'lrr' | 'gto',
                latencies: { alu, sfu: 2 * alu, shared: 3 * alu, global: 10 * alu },
                collector: collector as 'none' | 'in-order' | 'out-of-order',
                banks,
              }),
            ),
            { maxCycles: terminates ? 50_000 : 2_000, timeoutMs: 5_000 },
          );
          expect(m.key(replay(m, scheduleOf(r.state)).states.at(-1)!)).toBe(m.key(r.state.machine));
          // divergentKernel never shows a war-hazard (R1 is the only register written in the body).
          if (terminates) expect(r.end.kind).toBe('terminated');
        },
      ),
      { seed: 4343, numRuns: 40 },
    );
  });
});
