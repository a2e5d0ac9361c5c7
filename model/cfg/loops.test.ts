/**
 * Natural loops and irreducible cycles of the worked examples; expected values by hand from the
 * layouts in `testing/examples.ts` (blocks numbered as in `buildCfg.test.ts`).
 */
import { describe, expect, it } from 'vitest';
import { buildCfg } from './buildCfg.ts';
import { VIRTUAL_EXIT as X } from './programCfg.ts';
import * as ex from './testing/examples.ts';
import { ins, kernel, op, p, tgt } from './testing/programs.ts';

const fn0 = (p: Parameters<typeof buildCfg>[0]) => buildCfg(p).functions[0]!;

describe('natural loops', () => {
  it('seed 002 Fig. 6–8: one loop, header A, latch G, body A..G, exit G → b7', () => {
    // The only back edge is G (b6) → A (b0): A dominates G. Every block but b7 reaches G
    // without passing A again.
    const f = fn0(ex.nestedIfInLoop);
    expect(f.loops).toEqual([
      {
        irreducible: false,
        header: 0,
        latches: [6],
        body: [0, 1, 2, 3, 4, 5, 6],
        exits: [{ from: 6, to: 7 }],
        parent: null,
      },
    ]);
    expect(f.irreducibleCycles).toEqual([]);
  });

  it('spinlock: a self-loop on the CAS block', () => {
    // b1 [1,4) → b1 is a back edge (every block dominates itself); it leaves to b2.
    expect(fn0(ex.spinlock).loops).toEqual([
      {
        irreducible: false,
        header: 1,
        latches: [1],
        body: [1],
        exits: [{ from: 1, to: 2 }],
        parent: null,
      },
    ]);
  });

  it('an endless spin is a loop with no exits', () => {
    // b1 → b1 and b2 → b1 are back edges (b1 dominates b1 and b2).
    expect(fn0(ex.spinForever).loops).toEqual([
      { irreducible: false, header: 1, latches: [1, 2], body: [1, 2], exits: [], parent: null },
    ]);
  });

  it('unreachable cycles (the padding loop) are not loops', () => {
    expect(fn0(ex.padding).loops).toEqual([]);
    expect(fn0(ex.padding).irreducibleCycles).toEqual([]);
  });

  it('nested loops record their parent', () => {
    // 0 IADD3 | 1 outer: IADD3 | 2 inner: ISETP | 3 @P0 BRA 2 | 4 @P1 BRA 1 | 5 EXIT
    // Blocks b0 [0,1), b1 [1,2), b2 [2,4) → b2, b3; b3 [4,5) → b1, b4; b4 [5,6) → X.
    // Back edges b2 → b2 (inner) and b3 → b1 (outer, body b1, b2, b3).
    const f = fn0(
      kernel(
        op(),
        op(),
        op('ISETP'),
        ins('BRA', [tgt(2)], { guard: p(0) }),
        ins('BRA', [tgt(1)], { guard: p(1) }),
        ins('EXIT'),
      ),
    );
    expect(f.loops.map((l) => [l.header, l.body, l.parent])).toEqual([
      [1, [1, 2, 3], null],
      [2, [2], 0],
    ]);
    expect(f.loops[0]!.exits).toEqual([{ from: 3, to: 4 }]);
    expect(f.loops[1]!.exits).toEqual([{ from: 2, to: 3 }]);
  });
});

describe('irreducible cycles', () => {
  it('a cycle entered at two blocks', () => {
    // b1 ⇄ b2, both entered from b0; neither dominates the other, so no back edge.
    const f = fn0(ex.irreducible);
    expect(f.loops).toEqual([]);
    expect(f.irreducibleCycles).toEqual([
      { irreducible: true, entries: [1, 2], body: [1, 2], exits: [{ from: 2, to: 3 }] },
    ]);
  });

  it('an irreducible cycle nested in a natural loop', () => {
    // b0 h [0,2) → b2, b1; b1 a [2,4) → b0, b2; b2 b [4,6) → b1, b3; b3 [6,7) → X.
    // b1 → b0 is a back edge: the loop of h is {h, a, b} (b reaches the latch a).
    // Inside it, with h removed, a ⇄ b is entered from h at both: irreducible.
    const f = fn0(ex.irreducibleInLoop);
    expect(f.loops).toEqual([
      {
        irreducible: false,
        header: 0,
        latches: [1],
        body: [0, 1, 2],
        exits: [{ from: 2, to: 3 }],
        parent: null,
      },
    ]);
    expect(f.irreducibleCycles).toEqual([
      {
        irreducible: true,
        entries: [1, 2],
        body: [1, 2],
        exits: [
          { from: 1, to: 0 },
          { from: 2, to: 3 },
        ],
      },
    ]);
  });

  it('exits of a loop may go to the virtual exit', () => {
    // 0 loop: ISETP | 1 @P0 EXIT | 2 BRA 0: b0 [0,2) → X, b1; b1 [2,3) → b0.
    const f = fn0(kernel(op('ISETP'), ins('EXIT', [], { guard: p(0) }), ins('BRA', [tgt(0)])));
    expect(f.loops).toEqual([
      {
        irreducible: false,
        header: 0,
        latches: [1],
        body: [0, 1],
        exits: [{ from: 0, to: X }],
        parent: null,
      },
    ]);
  });
});
