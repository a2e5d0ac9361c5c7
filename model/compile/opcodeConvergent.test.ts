import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { load } from '../testing/run.ts';
import { opcodeConvergentPlan, type MergedRegion, type Slot } from './opcodeConvergent.ts';

const planOf = (text: string, memory: 'align' | 'skip' = 'align') => {
  const l = load(text);
  return { plan: opcodeConvergentPlan(l.program, l.ops, { memory }), loaded: l };
};
const pcOf = (text: string, label: string): number => {
  const l = load(text);
  const found = l.program.labels.find((x) => x.name === label);
  if (!found) throw new Error(label);
  return found.pc;
};
/** Slots as `[taken pc | null, not-taken pc | null]`, `sub` units as `'sub'`. */
const flat = (r: MergedRegion) =>
  r.slots.map((s: Slot) =>
    [s.taken, s.notTaken].map((u) => (u === null ? null : u.kind === 'pc' ? u.pc : 'sub')),
  );

const scenario = readFileSync(
  new URL('../../scenarios/seed002-opcode-convergent.sass', import.meta.url),
  'utf8',
);

describe('opcode-convergent pass (seed 002 §4.4, §4.9)', () => {
  it('merges the scenario if/else: two IADD3 pairs; STS aligned but not merged; SHF and BRA one-sided', () => {
    // Worked by hand (see the listing's comment): pcs 3..7 not-taken, 8..10 taken, IPDOM 11.
    const { plan } = planOf(scenario);
    expect([...plan.regions.keys()]).toEqual([2]);
    const r = plan.regions.get(2)!;
    expect(r).toMatchObject({ takenStart: 8, notTakenStart: 3, ipdom: 11, saved: 2 });
    expect(flat(r)).toEqual([
      [8, 3],
      [null, 4],
      [9, 5],
      [10, null],
      [null, 6],
      [null, 7],
    ]);
  });

  it('memory=skip leaves memory out of the alignment (same merges here, memory never paired)', () => {
    const r = planOf(scenario, 'skip').plan.regions.get(2)!;
    expect(r.saved).toBe(2);
    expect(flat(r)).toEqual([
      [8, 3],
      [null, 4],
      [9, 5],
      [10, null],
      [null, 6],
      [null, 7],
    ]);
  });

  it('memory=align can cost a merge that memory=skip finds (the LCS pairs the loads instead)', () => {
    // taken: LDS IADD3 ; not-taken: IADD3 LDS. align: LCS picks one pair — by the tie-break the
    // LDS pair (the last cells) — and merges nothing; skip: the IADD3 pair merges.
    const text = `// @warpcheck warp-size=2 warps=1
\tFunction : m
        S2R R0, SR_LANEID ;
   @P0  BRA T ;
        IADD3 R1, R0, 0x1, RZ ;
        LDS R2, [R0] ;
        BRA J ;
T:
        LDS R2, [R0] ;
        IADD3 R1, R0, 0x2, RZ ;
J:
        EXIT ;
`;
    expect(planOf(text, 'align').plan.regions.size).toBe(0);
    expect(planOf(text, 'align').plan.candidates.get(1)!.saved).toBe(0);
    expect(planOf(text, 'skip').plan.regions.get(1)!.saved).toBe(1);
  });

  it('finds no region for an if without else or for a one-path structure (seed 002 §5.2: BFS, NW)', () => {
    const text = `// @warpcheck warp-size=2 warps=1
\tFunction : m
        S2R R0, SR_LANEID ;
   @P0  BRA J ;
        IADD3 R1, R0, 0x1, RZ ;
J:
        IADD3 R1, R0, 0x1, RZ ;
        EXIT ;
`;
    const { plan } = planOf(text);
    expect(plan.candidates.size).toBe(0);
  });

  /**
   * §4.9, Fig. 43-B: an if/else nested in the taken side of another. The outer sides are
   * IADD3 <inner> IADD3 against IADD3 IADD3 IADD3 BRA — 2 merges (the nested structure is one unit
   * that never matches); the inner sides are `inner` LOP3s against `inner` LOP3s + BRA.
   */
  const nested = (inner: number) => `// @warpcheck warp-size=4 warps=1
\tFunction : n
        S2R R0, SR_LANEID ;
   @P0  BRA OT ;
        IADD3 R1, R0, 0x1, RZ ;
        IADD3 R2, R0, 0x2, RZ ;
        IADD3 R3, R0, 0x3, RZ ;
        BRA J ;
OT:
        IADD3 R1, R0, 0x4, RZ ;
INNER:
   @P1  BRA IT ;
${Array.from({ length: inner }, (_, i) => `        LOP3.LUT R4, R0, 0x${i + 1}, RZ, 0xfc, !PT ;`).join('\n')}
        BRA IJ ;
IT:
${Array.from({ length: inner }, (_, i) => `        LOP3.LUT R5, R0, 0x${i + 1}, RZ, 0xfc, !PT ;`).join('\n')}
IJ:
        IADD3 R6, R0, 0x5, RZ ;
J:
        EXIT ;
`;

  it('nested, tie (2 against 2): merges the outer level (§4.9 "prioritize merging at the outer level")', () => {
    const text = nested(2);
    const { plan } = planOf(text);
    const inner = pcOf(text, 'INNER');
    expect(plan.candidates.get(1)!.saved).toBe(2);
    expect(plan.candidates.get(inner)!.saved).toBe(2);
    expect([...plan.regions.keys()]).toEqual([1]);
    // The outer taken side runs the nested structure as one sub unit.
    expect(flat(plan.regions.get(1)!).filter((s) => s.includes('sub'))).toHaveLength(1);
  });

  it('nested, inner saves more (3 against 2): merges the inner level only', () => {
    const text = nested(3);
    const { plan } = planOf(text);
    const inner = pcOf(text, 'INNER');
    expect(plan.candidates.get(inner)!.saved).toBe(3);
    expect([...plan.regions.keys()]).toEqual([inner]);
  });
});

describe('opcode-convergent pass: structures it leaves alone', () => {
  it('a side with a conditional EXIT: the branch has no IPDOM but the virtual exit (SEMANTICS §3.2), so no region', () => {
    const text = `// @warpcheck warp-size=4 warps=1
\tFunction : e
        S2R R0, SR_LANEID ;
   @P0  BRA T ;
        IADD3 R1, R0, 0x1, RZ ;
   @P1  EXIT ;
        BRA J ;
T:
        IADD3 R1, R0, 0x2, RZ ;
J:
        EXIT ;
`;
    expect(planOf(text).plan.candidates.size).toBe(0);
  });
});
