/**
 * Dead convergence barriers (issue 16, docs/semantics.md §13 "dead barriers"): the reduced key
 * writes a B register no lane may still read (`Liveness.barrierLive`) as empty. The law: on
 * generated compiled-style Turing kernels (BSSY regions, BREAK, BMOV spills, partial WARPSYNCs)
 * the search with the reduction gives the verdict, kind, property and outcomes of the search
 * without it, on `its`, `hanoi` and the SIMT stack (whose `its` reference carries B registers too),
 * and it fails on a planted bug (BSYNC not counted as reading its register).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liveness } from '../machine/liveness.ts';
import { registerLayout } from '../lanes/laneData.ts';
import { load, machineOf } from '../testing/run.ts';
import { renderTuring, turingProgramWith } from '../../properties/arbitraries/turing.ts';
import { explore, type Budget } from './exhaustive.ts';
import { outcomes } from '../testing/outcomes.ts';

const budget: Budget = { maxStates: 20_000, maxDepth: 5_000, timeoutMs: 20_000 };
const mechanisms = ['its', 'hanoi', 'simt-stack'] as const;

const kernels = fc
  .tuple(fc.boolean(), fc.constantFrom(...mechanisms))
  .chain(([spill, mech]) =>
    turingProgramWith({ spill }).map((nodes) => ({ text: renderTuring(nodes), mech })),
  );

/** Compares the reduced and plain searches; returns whether the reduced one was smaller. */
function compare(text: string, mech: string, plant: boolean): boolean | null {
  const machine = machineOf(text, mech, { plantUnsoundBarriers: plant });
  // BSYNC priority and groups that run alone have their own laws (bsyncPriority.test.ts,
  // aloneGroups.test.ts); off here, lanes that stand ready before and at a BSYNC keep the
  // interleavings in which a wrongly dead barrier shows.
  const others = { bsyncPriority: false, aloneGroups: false };
  const plain = explore(machine, budget, undefined, { reduce: { deadValues: false, ...others } });
  const reduced = explore(machine, budget, undefined, { reduce: { deadValues: true, ...others } });
  if (plain.bound !== null || reduced.bound !== null) return null;
  expect(`${reduced.verdict}/${reduced.kind ?? ''}`, text).toBe(
    `${plain.verdict}/${plain.kind ?? ''}`,
  );
  expect(outcomes(reduced), text).toEqual(outcomes(plain));
  return reduced.states < plain.states;
}

describe('barrier liveness', () => {
  it('knows where each B register may still be read (derived by hand)', () => {
    const text = [
      'BSSY B0, join', //          0: B0 assigned here: dead before (nothing reads it first)
      'S2R R0, SR_LANEID', //      1: B0 live (the BSYNC below reads it)
      'ISETP.NE.AND P0, PT, R0, RZ, PT', // 2
      '@P0 BREAK B0', //           3: reads B0
      'BSYNC B0', //               4: reads B0
      'join:',
      'BSSY B1, end', //           5: B0 dead from here on; B1 assigned
      'BSYNC B1', //               6: reads B1
      'end:',
      'EXIT', //                   7: nothing live
    ].join('\n');
    const loaded = load(text, { strict: false });
    const live = liveness(loaded.ops, registerLayout(loaded.ops), () => 'native');
    const bl = live.barrierLive(true);
    expect(Array.from(bl.slice(0, 8))).toEqual([0, 1, 1, 1, 1, 0, 2, 0]);
    // With BSSY OR-ing into Bx (SEMANTICS §2, an option), BSSY reads Bx: nothing kills it.
    const or = live.barrierLive(false);
    expect(Array.from(or.slice(0, 8))).toEqual([3, 3, 3, 3, 3, 2, 2, 0]);
  });

  it('never changes a verdict or the outcomes on generated Turing kernels', () => {
    let compared = 0;
    let smaller = 0;
    fc.assert(
      fc.property(kernels, ({ text, mech }) => {
        const r = compare(text, mech, false);
        if (r === null) return;
        compared++;
        if (r) smaller++;
      }),
      { seed: 20261124, numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(250);
    // The kernels must exercise the reductions, not only pass through them (dead registers and
    // dead barriers together here; the planted-bug test below shows dead barriers alone matter:
    // seed 20261124 gives 15 smaller searches).
    expect(smaller).toBeGreaterThan(10);
  });

  it('fails on a planted bug: BSYNC not counted as reading its register', () => {
    expect(() =>
      fc.assert(
        fc.property(kernels, ({ text, mech }) => {
          compare(text, mech, true);
        }),
        { seed: 20261124, numRuns: 300 },
      ),
    ).toThrow();
  });
});
