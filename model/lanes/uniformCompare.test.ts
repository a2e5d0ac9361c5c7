/**
 * Unknown uniform comparisons (`uniformCompare.ts`, docs/semantics.md §13): an ISETP of known
 * per-lane values against one unknown uniform value splits the lanes only as a real value can.
 * - Derived by hand: lane ids 0..7 against `UR8` give the 9 suffixes for GE and the 9 "one lane
 *   or none" sets for EQ — not 2^8.
 * - The law (soundness): for every real value of the operand (given as a launch constant), the
 *   predicates the concrete run computes are those of one of the abstract alternatives — on
 *   random per-lane values, comparisons, signedness and operand order. It fails on a planted bug:
 *   stand-ins without the values just above each lane's value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Machine, MachineState } from '../machine/machine.ts';
import { machineOf } from '../testing/run.ts';
import { standInValues, uniformCompare } from './uniformCompare.ts';
import { evalDataOp } from './dataOps.ts';
import { u32 } from './values.ts';

/** Runs the deterministic prefix: every step before `pc` must have exactly one successor. */
function runTo(m: Machine, pc: number): MachineState {
  let s = m.initial();
  for (let i = 0; i < 100; i++) {
    const succ = m.successors(s);
    if (succ[0]?.issue.pc === pc) return s;
    expect(succ).toHaveLength(1);
    s = succ[0]!.next!;
  }
  throw new Error('the ISETP was not reached');
}

/** P0 true-masks of the ISETP's alternatives (its successors, all lanes at the ISETP). */
function p0Masks(m: Machine, s: MachineState): number[] {
  return m.successors(s).map((t) => t.next!.warps[0]!.data.preds[0]!);
}

const listing = (w: number, body: readonly string[], constant: number | null) =>
  [
    `// @warpcheck warp-size=${w} warps=1${constant === null ? '' : ` c[0x0][0x160]=${constant}`}`,
    'S2R R0, SR_LANEID',
    ...body,
    'EXIT',
  ].join('\n');

describe('ISETP against an unknown uniform operand', () => {
  it('splits lane ids 0..7 into the 9 suffixes for GE and 9 one-or-none sets for EQ (by hand)', () => {
    const ge = machineOf(listing(8, ['ISETP.GE.AND P0, PT, R0, UR8, PT'], null), 'its');
    expect(p0Masks(ge, runTo(ge, 1)).sort((a, b) => a - b)).toEqual(
      // lanes ≥ k take for k = 8 (none) … 0 (all): 0, 0x80, 0xc0, …, 0xff
      [0, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff],
    );
    const eq = machineOf(listing(8, ['ISETP.EQ.AND P0, PT, R0, c[0x0][0x160], PT'], null), 'its');
    expect(p0Masks(eq, runTo(eq, 1)).sort((a, b) => a - b)).toEqual([
      0, 1, 2, 4, 8, 16, 32, 64, 128,
    ]);
    // Known constant: no choice at all.
    const known = machineOf(listing(8, ['ISETP.GE.AND P0, PT, R0, c[0x0][0x160], PT'], 5), 'its');
    expect(p0Masks(known, runTo(known, 1))).toEqual([0xe0]);
    // A lane value that is itself unknown (a load through an opaque address) keeps the plain
    // rule: one successor, P0 unknown on every lane.
    const lane = machineOf(
      listing(4, ['LDG.E R1, desc[UR4][R2.64]', 'ISETP.GE.AND P0, PT, R1, UR8, PT'], null),
      'its',
    );
    const s = runTo(lane, 2);
    expect(lane.successors(s)).toHaveLength(1);
    expect(lane.successors(s)[0]!.next!.warps[0]!.data.predsUnknown[0]).toBe(0xf);
  });

  type CaseOf = {
    w: number;
    mul: number;
    add: number;
    cmp: string;
    unsigned: boolean;
    swap: boolean;
    bool: string;
    value: number;
  };

  const cases = fc.record({
    w: fc.integer({ min: 2, max: 8 }),
    mul: fc.integer({ min: 0, max: 5 }),
    add: fc.constantFrom(0, 1, 7, 0x7ffffffe, 0xfffffffd, 0x80000000),
    cmp: fc.constantFrom('EQ', 'NE', 'LT', 'LE', 'GT', 'GE'),
    unsigned: fc.boolean(),
    swap: fc.boolean(),
    bool: fc.constantFrom('AND', 'OR', 'XOR'),
    value: fc.oneof(
      fc.integer({ min: 0, max: 12 }),
      fc.constantFrom(0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x80000001),
      fc.integer({ min: 0, max: 0xffffffff }),
    ),
  });
  const bodyOf = (c: CaseOf) => {
    const operands = c.swap ? 'c[0x0][0x160], R0' : 'R0, c[0x0][0x160]';
    return [
      `IMAD R0, R0, ${c.mul}, RZ`,
      `IADD3 R0, R0, 0x${c.add.toString(16)}, RZ`,
      // P1: lanes 1, 3, 5 … — the combining predicate, so AND/OR/XOR matter.
      'LOP3.LUT R2, R0, 0x1, RZ, 0xc0, !PT',
      'ISETP.NE.AND P1, PT, R2, RZ, PT',
      `ISETP.${c.cmp}${c.unsigned ? '.U32' : ''}.${c.bool} P0, P2, ${operands}, P1`,
    ];
  };

  it('covers every real value of the operand (soundness law)', () => {
    let choices = 0;
    fc.assert(
      fc.property(cases, (c) => {
        const body = bodyOf(c);
        const abstract = machineOf(listing(c.w, body, null), 'its');
        const concrete = machineOf(listing(c.w, body, c.value), 'its');
        const pc = body.length; // the ISETP
        const real = p0Masks(concrete, runTo(concrete, pc));
        expect(real).toHaveLength(1);
        const sa = runTo(abstract, pc);
        const succ = abstract.successors(sa);
        if (succ.length > 1) choices++;
        const both = (t: (typeof succ)[number]) =>
          `${t.next!.warps[0]!.data.preds[0]}/${t.next!.warps[0]!.data.preds[2]}`;
        const realNext = concrete.successors(runTo(concrete, pc))[0]!;
        expect(succ.map(both)).toContain(both(realNext));
        // No alternative claims a lane's value unknown: the split resolved them all.
        for (const t of succ) expect(t.next!.warps[0]!.data.predsUnknown[0]).toBe(0);
      }),
      { seed: 20261124, numRuns: 400 },
    );
    expect(choices).toBeGreaterThan(200);
  });

  it('fails on a planted bug: stand-ins without the values above each lane value', () => {
    const planted = (values: ReadonlySet<number>) =>
      standInValues(values).filter((x) => !values.has(u32(x - 1)) || values.has(x));
    expect(() =>
      fc.assert(
        fc.property(cases, (c) => {
          const body = bodyOf(c);
          const abstract = machineOf(listing(c.w, body, null), 'its');
          const concrete = machineOf(listing(c.w, body, c.value), 'its');
          const pc = body.length;
          const sa = runTo(abstract, pc);
          const d = sa.warps[0]!.data;
          const op = abstract.ops[pc]!;
          const full = abstract.ctx.full;
          const resolved = uniformCompare(abstract.ctx, op, d, full, planted)!;
          const masks = resolved.alternatives.map((alt) => {
            const r = evalDataOp(abstract.ctx, alt.op, pc, 0, d, sa.memory, full, full, 0)[0]!;
            return r.kind === 'step' ? `${r.data.preds[0]}/${r.data.preds[2]}` : 'stop';
          });
          const realNext = concrete.successors(runTo(concrete, pc))[0]!.next!.warps[0]!.data;
          expect(masks).toContain(`${realNext.preds[0]}/${realNext.preds[2]}`);
        }),
        { seed: 20261124, numRuns: 400 },
      ),
    ).toThrow();
  });
});
