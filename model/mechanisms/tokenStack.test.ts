/**
 * `token-stack` (seed 003 §II, Table I; SEMANTICS §3.3) on small listings. Every expected state is
 * derived by hand from the rules (the comments walk through them), never copied from the tool.
 * Masks in views are written lane 3 first (`0011` = lanes 0 and 1).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomKernel } from '../explore/randomKernels.ts';
import type { Machine, MachineState } from '../machine/machine.ts';
import { explore } from '../explore/exhaustive.ts';
import { machineOf, regsOf, replay, runDeterministic, runListing } from '../testing/run.ts';

interface View {
  active: { pc: string; mask: string } | null;
  tokens: { type: string; mask: string; pc: string }[];
}
const viewOf = (m: Machine, s: MachineState): View =>
  m.mechanism.view(s.warps[0]!.mech, m.fmt).data as View;
const tok = (type: string, mask: string, pc: string) => ({ type, mask, pc });

const W4 = '// @warpcheck warp-size=4 warps=1\n\tFunction : t\n';

// PBK/BRK (Table I): iteration k (R1 = k) breaks the lanes with lane id <= k.
const BRK_LOOP = `${W4}
        S2R R0, SR_LANEID ;
        MOV R1, 0x0 ;
        PBK OUT ;
LOOP:
        IADD3 R1, R1, 0x1, RZ ;
        ISETP.GE.AND P0, PT, R1, R0, PT ;
   @P0  BRK ;
        BRA LOOP ;
OUT:
        EXIT ;
`;

// An exit inside an SSY region: the exited lanes leave the SSY token.
const EXIT_IN_SSY = `${W4}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        SSY JOIN ;
   @P0  BRA T ;
        EXIT ;
T:
        MOV R1, 0x1 ;
        SYNC ;
JOIN:
        EXIT ;
`;

describe('token-stack: PBK/BRK, PCNT/CONT', () => {
  it('BRK parks its lanes in the PBK token; the last BRK pops it and every lane resumes at OUT', () => {
    const m = machineOf(BRK_LOOP, 'token-stack');
    const states = runDeterministic(m);
    // After S2R, MOV, PBK: (PBK, 1111, OUT) pushed, all lanes active at LOOP.
    expect(viewOf(m, states[3]!)).toEqual({
      active: { pc: 'LOOP', mask: '1111' },
      tokens: [tok('PBK', '1111', 'OUT')],
    });
    // Iteration 1 (R1 = 1): lanes 0, 1 break at step 6; lanes 2, 3 go on to the BRA.
    expect(viewOf(m, states[6]!)).toEqual({
      active: { pc: '0x0060', mask: '1100' },
      tokens: [tok('PBK', '1111', 'OUT')],
    });
    // Iteration 2 (R1 = 2): lane 2 breaks at step 10.
    expect(viewOf(m, states[10]!).active).toEqual({ pc: '0x0060', mask: '1000' });
    // Iteration 3: lane 3 breaks at step 14, the active mask empties, the PBK token pops.
    expect(viewOf(m, states[14]!)).toEqual({ active: { pc: 'OUT', mask: '1111' }, tokens: [] });
    expect(states.length).toBe(16); // EXIT at step 15
    expect(viewOf(m, states[15]!)).toEqual({ active: null, tokens: [] });
  });

  it('CONT parks its lanes in the PCNT token until the others CONT too', () => {
    const m = machineOf(
      `${W4}
        S2R R0, SR_LANEID ;
        PCNT NEXT ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
   @P0  CONT ;
        MOV R2, 0x7 ;
        CONT ;
NEXT:
        EXIT ;
`,
      'token-stack',
    );
    const states = runDeterministic(m);
    // Step 4: lanes 0, 1 continue; lanes 2, 3 run the MOV (step 5) and CONT (step 6): popped.
    expect(viewOf(m, states[4]!)).toEqual({
      active: { pc: '0x0040', mask: '1100' },
      tokens: [tok('PCNT', '1111', 'NEXT')],
    });
    expect(viewOf(m, states[6]!)).toEqual({ active: { pc: 'NEXT', mask: '1111' }, tokens: [] });
    expect(regsOf(m, states[6]!, 2)).toEqual([0, 0, 7, 7]);
  });

  it('BRK leaves every token above the nearest PBK (an SSY region inside the loop)', () => {
    const m = machineOf(
      `${W4}
        S2R R0, SR_LANEID ;
        PBK OUT ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        SSY J ;
   @P0  BRA T ;
        BRK ;
T:
        MOV R1, 0x1 ;
        SYNC ;
J:
        BRK ;
OUT:
        EXIT ;
`,
      'token-stack',
    );
    const states = runDeterministic(m);
    // Step 5: the branch pushes (DIV, 0011, T) over (SSY, 1111, J) over (PBK, 1111, OUT).
    expect(viewOf(m, states[5]!)).toEqual({
      active: { pc: '0x0050', mask: '1100' },
      tokens: [tok('DIV', '0011', 'T'), tok('SSY', '1111', 'J'), tok('PBK', '1111', 'OUT')],
    });
    // Step 6: lanes 2, 3 break: they leave the SSY token (not the PBK); the DIV token pops.
    expect(viewOf(m, states[6]!)).toEqual({
      active: { pc: 'T', mask: '0011' },
      tokens: [tok('SSY', '0011', 'J'), tok('PBK', '1111', 'OUT')],
    });
    // Step 8: SYNC pops the SSY token (lanes 0, 1 only); step 9: they break, the PBK pops.
    expect(viewOf(m, states[8]!).active).toEqual({ pc: 'J', mask: '0011' });
    expect(viewOf(m, states[9]!)).toEqual({ active: { pc: 'OUT', mask: '1111' }, tokens: [] });
  });

  it('BRK with no PBK token is undefined behavior', () => {
    const { result } = runListing(`${W4}\n        BRK ;\n        EXIT ;\n`, 'token-stack');
    expect(result.verdict).toBe('undefined-behavior');
  });
});

describe('token-stack: SSY, DIV, pops, exits', () => {
  it('exited lanes leave the SSY token; the DIV token pops when the active mask empties', () => {
    const m = machineOf(EXIT_IN_SSY, 'token-stack');
    const states = runDeterministic(m);
    // Step 4: the branch diverges: (DIV, 0011, T) over (SSY, 1111, JOIN); not-taken 1100 runs.
    expect(viewOf(m, states[4]!)).toEqual({
      active: { pc: '0x0040', mask: '1100' },
      tokens: [tok('DIV', '0011', 'T'), tok('SSY', '1111', 'JOIN')],
    });
    // Step 5: lanes 2, 3 exit: they leave the SSY token; the DIV token pops.
    expect(viewOf(m, states[5]!)).toEqual({
      active: { pc: 'T', mask: '0011' },
      tokens: [tok('SSY', '0011', 'JOIN')],
    });
    // Step 7: SYNC pops the SSY token: lanes 0, 1 at JOIN.
    expect(viewOf(m, states[7]!)).toEqual({ active: { pc: 'JOIN', mask: '0011' }, tokens: [] });
  });

  it('taken-first pushes the not-taken lanes in the DIV token instead', () => {
    const m = machineOf(EXIT_IN_SSY, 'token-stack', { options: { order: 'taken-first' } });
    const { states } = replay(m, [0, 0, 0, 0]);
    expect(viewOf(m, states[4]!)).toEqual({
      active: { pc: 'T', mask: '0011' },
      tokens: [tok('DIV', '1100', '0x0040'), tok('SSY', '1111', 'JOIN')],
    });
  });

  it('a pop with an empty stack, or one that would lose lanes, is undefined behavior', () => {
    expect(
      runListing(`${W4}\n        SYNC ;\n        EXIT ;\n`, 'token-stack').result.verdict,
    ).toBe('undefined-behavior');
    // No SSY: the not-taken lanes pop the DIV token and are held by no token.
    const lost = runListing(
      `${W4}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
   @P0  BRA T ;
        NOP.S ;
T:
        EXIT ;
`,
      'token-stack',
    );
    expect(lost.result.verdict).toBe('undefined-behavior');
    expect(lost.result.findings[0]?.message).toMatch(/in no token/);
  });

  it('a predicated SSY is unsupported', () => {
    const r = runListing(`${W4}\n   @P0  SSY L ;\nL:\n        EXIT ;\n`, 'token-stack');
    expect(r.result.verdict).toBe('unsupported');
  });
});

describe('token-stack: CALL and RET', () => {
  it('CALL pushes (CALL, active, return pc); RET parks the callers there until all returned', () => {
    const m = machineOf(
      `${W4}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        MOV R20, BACK ;
   @P0  CALL F ;
BACK:
        EXIT ;
F:
        MOV R1, 0x1 ;
        RET.REL.NODEC R20 0x0 ;
`,
      'token-stack',
    );
    const states = runDeterministic(m);
    expect(viewOf(m, states[4]!)).toEqual({
      active: { pc: 'F', mask: '0011' },
      tokens: [tok('CALL', '1111', 'BACK')],
    });
    expect(viewOf(m, states[6]!)).toEqual({ active: { pc: 'BACK', mask: '1111' }, tokens: [] });
    expect(regsOf(m, states[6]!, 1)).toEqual([1, 1, 0, 0]);
  });
});

describe('token-stack: foreign instructions and refinement', () => {
  it('BSSY/BSYNC are no-ops by default, unsupported with foreign=reject', () => {
    const text = `${W4}\n        BSSY B0, L ;\n        BSYNC B0 ;\nL:\n        EXIT ;\n`;
    expect(runListing(text, 'token-stack').result.verdict).toBe('terminates');
    expect(runListing(text, 'token-stack', { options: { foreign: 'reject' } }).result.verdict).toBe(
      'unsupported',
    );
  });

  it('a WARPSYNC naming lanes that are not active is a violation (check)', () => {
    const r = runListing(
      `${W4}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
   @P0  BRA T ;
        EXIT ;
T:
        WARPSYNC 0xf ;
        EXIT ;
`,
      'token-stack',
    );
    // Lanes 2, 3 exit first (not-taken first), so 0xf names only exited lanes besides 0, 1.
    expect(r.result.verdict).toBe('terminates');
    const r2 = runListing(
      `${W4}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        SSY J ;
   @P0  BRA T ;
        WARPSYNC 0xf ;
        SYNC ;
T:
        SYNC ;
J:
        EXIT ;
`,
      'token-stack',
    );
    expect(r2.result.verdict).toBe('violation');
  });

  it('refines its on Fermi code: pops move the reference lanes where the stack resumes them', () => {
    // With refinement on (the default), every issue of BRK_LOOP and EXIT_IN_SSY is one the
    // reference allows; without refOutcome the reference would keep the BRK lanes in the loop.
    for (const text of [BRK_LOOP, EXIT_IN_SSY]) {
      const r = runListing(text, 'token-stack');
      expect(r.result.verdict).toBe('terminates');
    }
  });

  it('dead-value reduction does not change the spinlock verdict', () => {
    const spin = `${W4}
        MOV R2, 0x100 ;
        MOV R3, 0x1 ;
        SSY AFTER ;
ACQ:
        ATOMS.CAS R0, [R2], RZ, R3 ;
        ISETP.NE.AND P0, PT, R0, RZ, PT ;
   @P0  BRA ACQ ;
        SYNC ;
AFTER:
        ATOMS.EXCH RZ, [R2], RZ ;
        EXIT ;
`;
    const m = machineOf(spin, 'token-stack');
    const budget = { maxStates: 50_000, maxDepth: 10_000, timeoutMs: 10_000 };
    const a = explore(m, budget, undefined, { reduce: { deadValues: true } });
    const b = explore(m, budget, undefined, { reduce: { deadValues: false } });
    expect(m.canReduce).toBe(true);
    expect(a.states).toBeLessThanOrEqual(b.states);
    // seed 000 §III: the lock holder waits in the SSY token while the others spin.
    expect(`${a.verdict}/${a.kind}`).toBe('deadlock/livelock');
    expect(`${b.verdict}/${b.kind}`).toBe('deadlock/livelock');
  });
});

describe('token-stack: the dead-value reduction (lanePcs) never changes a verdict', () => {
  it('keeps the registers of lanes parked in a DIV token live (they read R5 when popped)', () => {
    // Every lane swaps its id into 0x100 (initially 9); lanes 2, 3 run first and overwrite R5,
    // while lanes 0, 1 wait in the DIV token. A lane 0 or 1 that got 2 spins forever: that
    // happens only in some atomic orders, which differ from others only in the parked lanes' R5.
    const text = `// @warpcheck warp-size=4 warps=1 mem[0x100]=9
\tFunction : t
        S2R R0, SR_LANEID ;
        MOV R2, 0x100 ;
        ATOMS.EXCH R5, [R2], R0 ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
   @P0  BRA T ;
        MOV R5, 0x0 ;
        EXIT ;
T:
        ISETP.EQ.AND P1, PT, R5, 0x2, PT ;
SPIN:
   @P1  BRA SPIN ;
        EXIT ;
`;
    const m = machineOf(text, 'token-stack', { atomicOrder: 'explore' });
    const budget = { maxStates: 50_000, maxDepth: 10_000, timeoutMs: 10_000 };
    for (const deadValues of [false, true]) {
      const r = explore(m, budget, undefined, { reduce: { deadValues } });
      expect(`${r.verdict}/${r.kind}`).toBe('deadlock/livelock');
    }
  });

  it('on random kernels, both orders (DESIGN.md: compare verdicts with and without it)', () => {
    const budget = { maxStates: 20_000, maxDepth: 10_000, timeoutMs: 20_000 };
    let compared = 0;
    let smaller = 0;
    fc.assert(
      fc.property(
        randomKernel({ maxLength: 12 }),
        fc.constantFrom('not-taken-first', 'taken-first'),
        (k, order) => {
          const m = machineOf(k.text, 'token-stack', { options: { order } });
          const plain = explore(m, budget, undefined, { reduce: { deadValues: false } });
          const reduced = explore(m, budget, undefined, { reduce: { deadValues: true } });
          if (plain.bound !== null || reduced.bound !== null) return;
          compared++;
          if (reduced.states < plain.states) smaller++;
          expect(`${reduced.verdict}/${reduced.kind}`, k.text).toBe(
            `${plain.verdict}/${plain.kind}`,
          );
        },
      ),
      { seed: 20261122, numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(200);
    expect(smaller).toBeGreaterThan(10);
  });
});
