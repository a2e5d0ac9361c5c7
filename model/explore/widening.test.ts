/**
 * Loop widening (issue 16, `machine/widening.ts`, docs/semantics.md §13) over-approximates: on
 * random kernels (loops, unknown values from opaque instructions, atomics, CALL/RET, WARPSYNC),
 * every outcome the plain search finds — trap, violation, undefined behaviour, deadlock,
 * termination — the widened search finds too (livelocks excepted: an unknown exit branch that
 * widening makes reachable is assumed fair, SEMANTICS §5, so a cycle the plain search closes may
 * be left). Loop visits are left out of the reduced key (two states with the same data stand for
 * the same concrete states); the law covers that too. It fails on a planted bug: widening that
 * sets what a loop writes to 0 instead of unknown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outcomesButLivelocks } from '../testing/outcomes.ts';
import { machineOf } from '../testing/run.ts';
import { explore, type Budget } from './exhaustive.ts';
import { findingReplays } from './findingReplays.ts';
import { randomKernel } from './randomKernels.ts';

const budget: Budget = { maxStates: 20_000, maxDepth: 5_000, timeoutMs: 20_000 };
const mechanisms = ['its', 'simt-stack', 'hanoi'] as const;

const outcomes = outcomesButLivelocks;

function covered(text: string, mech: string, limit: number, plant: boolean): boolean | null {
  const plain = explore(machineOf(text, mech), budget);
  const widened = explore(
    machineOf(text, mech, { widen: limit, plantUnsoundWidening: plant }),
    budget,
  );
  if (plain.bound !== null || widened.bound !== null) return null;
  const w = outcomes(widened);
  for (const o of outcomes(plain)) expect(w, text).toContain(o);
  return widened.findings.some((f) => f.possible === true);
}

/**
 * A loop whose exit depends on unknown data (a bound loaded through an opaque address) and on a
 * known bound, so the plain search ends; after it, a value the loop computed decides a trap, a
 * WARPSYNC that names a lane still in the loop (undefined behaviour), or nothing. Random kernels
 * (`randomKernel`) around it add the rest.
 */
const loopKernel = fc
  .record({
    w: fc.integer({ min: 1, max: 3 }),
    bound: fc.integer({ min: 1, max: 4 }),
    step: fc.integer({ min: 1, max: 2 }),
    target: fc.integer({ min: 0, max: 6 }),
    end: fc.constantFrom('BPT.TRAP 0x1', 'WARPSYNC 0x1', 'NOP'),
    // The unknown bound as a launch constant: one unknown for every lane, compared by choosing
    // stand-in values (docs/semantics.md §13 "uniform comparisons"), not a branch on an unknown.
    uniform: fc.boolean(),
  })
  .map(({ w, bound, step, target, end, uniform }) => ({
    text: [
      `// @warpcheck warp-size=${w} warps=1`,
      'MOV R1, 0x0',
      'LDG.E R4, desc[UR4][R2.64]',
      'loop:',
      `IADD3 R1, R1, 0x${step.toString(16)}, RZ`,
      `ISETP.LT.AND P0, PT, R1, ${uniform ? 'c[0x0][0x168]' : 'R4'}, PT`,
      `ISETP.LT.AND P0, PT, R1, 0x${(bound * step).toString(16)}, P0`,
      '@P0 BRA loop',
      `ISETP.EQ.AND P1, PT, R1, 0x${target.toString(16)}, PT`,
      `@P1 ${end}`,
      'EXIT',
    ].join('\n'),
  }));

const cases = fc.record({
  k: fc.oneof(loopKernel, randomKernel({ maxLength: 10 })),
  mech: fc.constantFrom(...mechanisms),
  limit: fc.integer({ min: 1, max: 2 }),
});

describe('loop widening', () => {
  it('finds every outcome of the plain search (over-approximation)', () => {
    let compared = 0;
    let widenedFinding = 0;
    fc.assert(
      fc.property(cases, ({ k, mech, limit }) => {
        const r = covered(k.text, mech, limit, false);
        if (r === null) return;
        compared++;
        if (r) widenedFinding++;
      }),
      { seed: 20261124, numRuns: 400 },
    );
    expect(compared).toBeGreaterThan(300);
    // The kernels must make widening act, not only pass through it.
    expect(widenedFinding).toBeGreaterThan(5);
  });

  it('fails on a planted bug: forgotten values set to 0 instead of unknown', () => {
    expect(() =>
      fc.assert(
        fc.property(cases, ({ k, mech, limit }) => {
          covered(k.text, mech, limit, true);
        }),
        { seed: 20261124, numRuns: 400 },
      ),
    ).toThrow();
  });
});

describe('a loop whose exit compares with a launch constant', () => {
  it('is widened: the lanes took part in an unknown choice', () => {
    // `for (i = tid; i < n; i += 2)` with n a kernel parameter (c[0x0][0x168], one unknown for
    // every lane): the ISETP chooses a stand-in for n per turn (docs/semantics.md §13), so its
    // predicate is known and the BRA is no branch on an unknown. The counter is concrete and grows
    // every turn: without widening no state repeats and the search never ends (bound-reached);
    // the cudad sm_89 grid-stride loops (find_max, l2_norm_sq, dot_thread) at W = 4 were so.
    // The choice is abstract, so it flags the lanes (widening.ts) as an unknown branch does:
    // after `limit` turns the counter is forgotten, the ISETP compares two unknowns, and the
    // loop's unknown exit is fair (SEMANTICS §5): every lane exits.
    const text = [
      '// @warpcheck warp-size=2 warps=1',
      'S2R R0, SR_TID.X',
      'loop:',
      'IADD3 R0, R0, 0x2, RZ',
      'ISETP.LT.AND P0, PT, R0, c[0x0][0x168], PT',
      '@P0 BRA loop',
      'EXIT',
    ].join('\n');
    const small: Budget = { maxStates: 5_000, maxDepth: 1_000, timeoutMs: 20_000 };
    for (const mech of mechanisms) {
      const plain = explore(machineOf(text, mech), small);
      expect(plain.verdict, mech).toBe('bound-reached');
      const widened = explore(machineOf(text, mech, { widen: 2 }), small);
      expect(widened.verdict, mech).toBe('terminates');
      expect(widened.bound, mech).toBeNull();
    }
  });
});

describe('a lasso around a widened loop', () => {
  it('walks again from the initial state and replays', () => {
    // One lane calls SUB and never returns (`BRA SUB` is unconditional): a livelock on every
    // mechanism. The ISETP compares with a launch constant, a choice among stand-ins that flags
    // the loop, so from the second turn on widening forgets P0 at each jump back. On `simt-stack`
    // the return entry at RET0 keeps P0 in the reduced key (its `@P0 EXIT` reads it), and the
    // reduced key leaves loop visits out: the stored states are those of the first turns, whose
    // cycle a run with more turns cannot follow (it widens where they did not). The search is
    // redone with loop visits keyed (`Machine.withLoopVisitsKeyed`); its lasso goes round the
    // widened loop. Before that, the explorer said the finding "could not be walked again" and
    // its schedule stopped at step 4 on replay.
    const text = [
      '// @warpcheck warp-size=1 warps=1',
      'MOV R20, `(RET0)',
      'CALL.REL.NOINC `(SUB)',
      'RET0:',
      '@P0 EXIT ;',
      'EXIT ;',
      'SUB:',
      'ISETP.EQ.AND P0, PT, R0, c[0x0][0x160], PT ;',
      'BRA `(SUB) ;',
      'RET.REL.NODEC R20 0x0 ;',
    ].join('\n');
    for (const mech of mechanisms) {
      const machine = machineOf(text, mech, { widen: 2 });
      const r = explore(machine, budget);
      expect([r.verdict, r.kind], mech).toEqual(['deadlock', 'livelock']);
      expect(
        r.notes.filter((n) => /may not replay/.test(n)),
        mech,
      ).toEqual([]);
      for (const f of r.findings) expect(findingReplays(machine, f), mech).toBe(true);
    }
  });
});

describe('WARPSYNC own bit under an unknown guard (found by the law above)', () => {
  it('is undefined behaviour in the alternatives that let an unnamed lane in', () => {
    // Lane 1 may run `WARPSYNC 0x1` (P1 unknown: a loaded value): SEMANTICS §2 makes that
    // undefined under every mechanism. Before the fix only lanes whose guard was known were
    // checked, so every alternative ran on and the search said `terminates`.
    const text = [
      '// @warpcheck warp-size=2 warps=1',
      'LDG.E R4, desc[UR4][R2.64]',
      'ISETP.EQ.AND P1, PT, R4, 0x6, PT',
      '@P1 WARPSYNC 0x1',
      'EXIT',
    ].join('\n');
    for (const mech of mechanisms) {
      const r = explore(machineOf(text, mech), budget);
      expect(r.verdict, mech).toBe('undefined-behavior');
      expect(r.findings[0]!.possible, mech).toBe(true);
      expect(r.findings[0]!.message).toContain('lane 1 is not named in its own mask');
    }
  });
});
