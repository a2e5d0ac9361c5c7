/**
 * Soundness law of the partial-order reduction over warps and single-lane issues (issue 10,
 * `partialOrder.ts`; DESIGN.md: "check each reduction by comparing verdicts with and without it"):
 * on generated kernels (K = 2..3, W = 1..2; `its.grouping=single` also K = 1, W ≤ 3) with shared
 * memory, loads, stores, every atomic, spinlocks, message passing, loops, WARPSYNC and VOTE, on
 * every mechanism, with and without lane symmetry, the reduced and the
 * unreduced searches report the same verdict and the same set of outcomes (verdict, kind,
 * property) — livelocks included — and every finding of the reduced search replays from the real
 * initial state. The law fails on two planted bugs: stores and atomics counted as local, and the
 * cycle proviso dropped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Machine } from '../machine/machine.ts';
import { MECHANISMS } from '../mechanisms/index.ts';
import { spinlockKernel } from '../../properties/arbitraries/kernels.ts';
import { machineOf, replay } from '../testing/run.ts';
import { explore, type Budget, type ExploreResult } from './exhaustive.ts';
import type { PlantUnsoundPor } from './partialOrder.ts';
import { randomKernel } from './randomKernels.ts';
import { expectSameOutcomes, outcomes, verdictOf } from '../testing/outcomes.ts';

const budget: Budget = { maxStates: 20_000, maxDepth: 10_000, timeoutMs: 20_000 };

/**
 * Message passing between warps: thread 0 writes a flag after `pad` local steps, every other
 * thread reads it after `readerPad` local steps and traps (`BPT.TRAP`) if it sees `seen`. Whether
 * the trap is reachable depends on the order of one store and one load of different warps — what
 * a footprint that calls stores local gets wrong.
 */
const messagePassing = fc
  .record({
    pad: fc.integer({ min: 0, max: 3 }),
    readerPad: fc.integer({ min: 0, max: 3 }),
    value: fc.integer({ min: 1, max: 2 }),
    seen: fc.integer({ min: 0, max: 2 }),
    atomic: fc.boolean(),
  })
  .map(({ pad, readerPad, value, seen, atomic }) =>
    [
      '// @warpcheck warp-size=1 warps=2 mem[0x100]=0',
      'S2R R0, SR_TID.X',
      'ISETP.NE.AND P0, PT, R0, RZ, PT',
      '@P0 BRA reader',
      ...Array.from({ length: pad }, (_, i) => `IADD3 R${4 + i}, R${4 + i}, 0x1, RZ`),
      `MOV R3, 0x${value}`,
      atomic ? 'ATOMS.EXCH RZ, [RZ+0x100], R3' : 'STS [RZ+0x100], R3',
      'EXIT',
      'reader:',
      ...Array.from({ length: readerPad }, (_, i) => `IADD3 R${4 + i}, R${4 + i}, 0x1, RZ`),
      'LDS R1, [RZ+0x100]',
      `ISETP.EQ.AND P1, PT, R1, 0x${seen}, PT`,
      '@P1 BPT.TRAP 0x1',
      'EXIT',
    ].join('\n'),
  );

/**
 * An exit race inside one warp: lane 0 exits after `pad` steps while the other lanes, after
 * `readerPad` steps, branch with BRA.DIV (or .CONV) — taken or not depending on whether lane 0 has
 * exited yet — to a trap. What a lane rule that calls BRA.DIV lane-local gets wrong.
 */
const exitRace = fc
  .record({
    pad: fc.integer({ min: 0, max: 3 }),
    readerPad: fc.integer({ min: 0, max: 2 }),
    cond: fc.constantFrom('DIV', 'CONV'),
  })
  .map(({ pad, readerPad, cond }) =>
    [
      '// @warpcheck warp-size=2 warps=1',
      'S2R R0, SR_LANEID',
      'ISETP.NE.AND P0, PT, R0, RZ, PT',
      '@P0 BRA reader',
      ...Array.from({ length: pad }, (_, i) => `IADD3 R${4 + i}, R${4 + i}, 0x1, RZ`),
      'EXIT',
      'reader:',
      ...Array.from({ length: readerPad }, (_, i) => `IADD3 R${4 + i}, R${4 + i}, 0x1, RZ`),
      `BRA.${cond} target`,
      'EXIT',
      'target:',
      'BPT.TRAP 0x1',
    ].join('\n'),
  );

/**
 * A generated multi-warp kernel: random instructions (`randomKernels.ts`), the spinlock of seed 000
 * Fig. 3 (`properties/arbitraries`), or message passing.
 */
const kernel = fc.oneof(
  { weight: 3, arbitrary: randomKernel({ maxLength: 10, maxWarpSize: 2 }).map((k) => k.text) },
  { weight: 1, arbitrary: spinlockKernel.map(({ text }) => text) },
  { weight: 1, arbitrary: messagePassing },
);

/** Every mechanism with its default options, and `its` issuing single lanes (threads). */
const configs: readonly { mech: string; options: Record<string, string> }[] = [
  ...MECHANISMS.map((m) => ({ mech: m.id, options: {} })),
  { mech: 'its', options: { grouping: 'single' } },
  { mech: 'its', options: { grouping: 'single' } },
];

/** K = 2..3 warps of W = 1..2 lanes; `its.grouping=single` also one warp of up to 3 threads. */
const setup = fc
  .record({
    text: kernel,
    warps: fc.integer({ min: 1, max: 3 }),
    warpSize: fc.integer({ min: 1, max: 3 }),
    config: fc.constantFrom(...configs),
    laneSymmetry: fc.boolean(),
  })
  .map((s) =>
    s.config.options['grouping'] === 'single'
      ? { ...s, warps: Math.min(s.warps, 2) }
      : { ...s, warps: Math.max(s.warps, 2), warpSize: Math.min(s.warpSize, 2) },
  );

/** One warp of 2..3 threads on `its` with single-lane issues. */
const threads = fc.record({
  text: fc.oneof(kernel, exitRace),
  warps: fc.constant(1),
  warpSize: fc.integer({ min: 2, max: 3 }),
  config: fc.constant({ mech: 'its', options: { grouping: 'single' } as Record<string, string> }),
  laneSymmetry: fc.constant(false),
});

type Setup = typeof setup extends fc.Arbitrary<infer T> ? T : never;

interface Compared {
  readonly plain: ExploreResult;
  readonly reduced: ExploreResult;
  readonly machine: Machine;
}

/** Both searches on one setup; null when either ran out of budget. */
function compare(s: Setup, plant?: PlantUnsoundPor): Compared | null {
  const machine = machineOf(s.text, s.config.mech, {
    options: s.config.options,
    launch: { warps: s.warps, warpSize: s.warpSize },
    laneSymmetry: s.laneSymmetry,
  });
  const plain = explore(machine, budget, undefined, { reduce: { partialOrder: false } });
  if (plain.bound !== null) return null;
  const reduced = explore(machine, budget, undefined, {
    reduce: { partialOrder: true },
    ...(plant ? { plantUnsoundPor: plant } : {}),
  });
  if (reduced.bound !== null) return null;
  return { plain, reduced, machine };
}

/** Every finding replays from the real initial state to its outcome. */
function checkFindings(machine: Machine, r: ExploreResult): void {
  const m = r.laneSymmetry === machine.symmetric ? machine : machine.withoutSymmetry();
  for (const f of r.findings) {
    const { states, last } = replay(m, f.schedule);
    const end = states.at(-1)!;
    if (f.loop !== null) expect(m.behaviourKey(states[f.loop]!)).toBe(m.behaviourKey(end));
    else if (f.verdict === 'terminates') expect(m.status(end)).toBe('terminated');
    else if (f.verdict === 'deadlock') expect(m.status(end)).toBe('blocked');
    else expect(last?.stop?.verdict, f.message).toBe(f.verdict);
  }
}

const SEED = 20261124;
// The two laws take 10–25 s alone, twice that on a loaded 2-core machine: their own timeouts.

describe('partial-order reduction over warps', () => {
  it('gives the outcomes of the unreduced search on generated multi-warp kernels, and its findings replay', () => {
    let compared = 0;
    let smaller = 0;
    let smallerLivelocks = 0;
    fc.assert(
      fc.property(setup, (s) => {
        const c = compare(s);
        if (!c) return;
        compared++;
        const { plain, reduced, machine } = c;
        expect(verdictOf(reduced), s.text).toBe(verdictOf(plain));
        expect(outcomes(reduced), s.text).toEqual(outcomes(plain));
        expect(reduced.states).toBeLessThanOrEqual(plain.states);
        if (reduced.partialOrder && reduced.states < plain.states) {
          smaller++;
          if (plain.kind === 'livelock') smallerLivelocks++;
        }
        checkFindings(machine, reduced);
      }),
      { seed: SEED, numRuns: 300 },
    );
    // The kernels must exercise the reduction, livelocks included, not only pass through it.
    // (seed 20261124: 295 compared, 286 smaller, 38 of them livelocks.)
    expect(compared).toBeGreaterThan(250);
    expect(smaller).toBeGreaterThan(200);
    expect(smallerLivelocks).toBeGreaterThan(25);
  }, 120_000);

  it('gives the outcomes of the unreduced search inside one warp of single-lane issues (its, grouping=single)', () => {
    let compared = 0;
    let smaller = 0;
    fc.assert(
      fc.property(threads, (s) => {
        const c = compare(s);
        if (!c) return;
        compared++;
        expect(verdictOf(c.reduced), s.text).toBe(verdictOf(c.plain));
        expect(outcomes(c.reduced), s.text).toEqual(outcomes(c.plain));
        if (c.reduced.partialOrder && c.reduced.states < c.plain.states) smaller++;
        checkFindings(c.machine, c.reduced);
      }),
      { seed: SEED, numRuns: 150 },
    );
    // (seed 20261124: 150 compared, 143 smaller.)
    expect(compared).toBeGreaterThan(130);
    expect(smaller).toBeGreaterThan(110);
  }, 120_000);

  it('fails on a planted bug (lanes-ignore-divergence)', () => {
    expect(() =>
      fc.assert(
        fc.property(threads, (s) => {
          const c = compare(s, 'lanes-ignore-divergence');
          if (!c) return;
          expectSameOutcomes(c.reduced, c.plain);
        }),
        { seed: SEED, numRuns: 150 },
      ),
    ).toThrow();
  });

  for (const plant of ['local-stores', 'no-proviso', 'any-expanded-target'] as const)
    it(`fails on a planted bug (${plant})`, () => {
      expect(() =>
        fc.assert(
          fc.property(setup, (s) => {
            const c = compare(s, plant);
            if (!c) return;
            expectSameOutcomes(c.reduced, c.plain);
          }),
          { seed: SEED, numRuns: 300 },
        ),
      ).toThrow();
    });

  it('runs a warp alone while its steps are local (hand count)', () => {
    // Two warps of one lane each run MOV, MOV, EXIT: no step touches memory. Unreduced, a state is
    // the pair (steps done by warp 0, by warp 1), each 0..3: 16 states, and (3 - a) + (3 - b)
    // edges from (a, b) summed over the grid: 24 transitions. Reduced, warp 0 (the first of the
    // warps with fewest steps) runs alone to its exit, then warp 1: (0,0) (1,0) (2,0) (3,0) (3,1)
    // (3,2) (3,3) — 7 states, 6 transitions. No edge returns to a level ≤ its own, so the
    // proviso never fully expands a state.
    const text = ['// @warpcheck warp-size=1 warps=2', 'MOV R1, 0x1', 'MOV R2, 0x2', 'EXIT'].join(
      '\n',
    );
    const m = machineOf(text, 'simt-stack');
    // (Warp symmetry off: the two warps would be one class, counted in warpSymmetry.test.ts;
    // acceleration off: it would run each warp's MOVs as one chain, acceleration.test.ts.)
    const plain = explore(m, budget, undefined, {
      reduce: { partialOrder: false, warpSymmetry: false, accelerate: false },
    });
    const reduced = explore(m, budget, undefined, {
      reduce: { warpSymmetry: false, accelerate: false },
    });
    expect([plain.states, plain.transitions]).toEqual([16, 24]);
    expect([reduced.states, reduced.transitions]).toEqual([7, 6]);
    expect(reduced.partialOrder).toBe(true);
    expect(verdictOf(reduced)).toBe('terminates//');
  });

  it('accepts an ample edge back only to a fully expanded state (the refined proviso)', () => {
    // Warp 1 (tid 1) goes to a trap; warp 0 spins in a two-instruction local loop. Warp 0 is the
    // ample warp until warp 1's only step is the trap (a stop is never in an ample set), so the
    // search runs warp 0 around its loop: L0 (warp 1 still at its first instructions) → BRA →
    // back to L0's state, one level up. That state was expanded with warp 0 alone, not fully, so
    // the BRA state must be expanded fully, and warp 1 reaches its trap. Accepting the edge
    // because its target was already expanded (the planted bug) closes the cycle with no fully
    // expanded state: warp 1 is ignored and the trap is never seen.
    const text = [
      '// @warpcheck warp-size=1 warps=2',
      'S2R R0, SR_TID.X',
      'ISETP.NE.AND P0, PT, R0, RZ, PT',
      '@P0 BRA T',
      'L0:',
      'MOV R1, 0x1',
      'BRA L0',
      'T:',
      'BPT.TRAP 0x1',
      'EXIT',
    ].join('\n');
    const m = machineOf(text, 'simt-stack');
    const reduce = { accelerate: false, warpSymmetry: false };
    const plain = explore(m, budget, undefined, { reduce: { ...reduce, partialOrder: false } });
    const reduced = explore(m, budget, undefined, { reduce });
    const unsound = explore(m, budget, undefined, {
      reduce,
      plantUnsoundPor: 'any-expanded-target',
    });
    expect(plain.findings.map((f) => f.verdict)).toContain('trap');
    expect(reduced.partialOrder).toBe(true);
    expect(reduced.findings.map((f) => f.verdict)).toContain('trap');
    expect(unsound.findings.map((f) => f.verdict)).not.toContain('trap');
  });

  it('fully expands a state whose ample step closes a cycle (the proviso)', () => {
    // Warp 0 spins on a local loop while warp 1 could store: without the proviso, the search
    // would follow warp 0's self-loop forever and never see warp 1 move. Both warps spin at L0
    // (a self-loop: an edge back to the same level), so the initial state is fully expanded and
    // the fair cycle in which both warps spin is found.
    const text = ['// @warpcheck warp-size=1 warps=2', 'L0:', 'BRA L0', 'EXIT'].join('\n');
    const m = machineOf(text, 'simt-stack');
    const reduced = explore(m, budget);
    expect(`${reduced.verdict}/${reduced.kind}`).toBe('deadlock/livelock');
    expect(reduced.transitions).toBe(2);
    const unsound = explore(m, budget, undefined, { plantUnsoundPor: 'no-proviso' });
    expect(unsound.transitions).toBe(1);
    expect(unsound.kind).not.toBe('livelock');
  });
});
