/**
 * Soundness law of EXIT priority among the lane groups of one `its` warp and the splits of one
 * `dws` warp (issues 10 and 16, `groupPriority.ts`, docs/semantics.md §14.1; DESIGN.md: "check
 * each reduction by comparing verdicts with and without it"): on generated kernels of both
 * generators, the explorer's random kernels and the spinlock family (W ≤ 6, 1–2 warps, with and
 * without lane symmetry, with and without the partial-order reduction over warps), the search with
 * EXIT priority gives the verdict, kind and property of the search without it and the same set of
 * outcomes, and every finding it reports replays from the real initial state. The law fails on
 * planted unsound variants: a guarded EXIT given priority too (on `its` and on `dws`), lanes that
 * are members of a barrier register exiting first although their exit releases a BSYNC, and
 * (`dws`, hand-derived) priority although a WARPSYNC reads which lanes have exited.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  expectReducedAgrees,
  type Tally,
  exitRelease,
  groupKernels,
} from '../testing/groupKernels.ts';
import { machineOf } from '../testing/run.ts';
import { explore, type Budget } from './exhaustive.ts';
import type { PlantUnsoundGroups } from './groupPriority.ts';
import { outcomes, verdictOf } from '../testing/outcomes.ts';
import { SPINLOCK_W2 } from '../core/coreTesting.ts';
import type { Launch } from '../lanes/launch.ts';

const budget: Budget = { maxStates: 6_000, maxDepth: 5_000, timeoutMs: 10_000 };

const setup = fc.record({
  text: groupKernels,
  laneSymmetry: fc.boolean(),
  por: fc.boolean(),
  bssy: fc.constantFrom('assign', 'or'),
});
type Setup = typeof setup extends fc.Arbitrary<infer T> ? T : never;

/** The law on one setup; throws (via expect) when it breaks. */
function check(
  s: Setup,
  tally: Tally,
  plant?: PlantUnsoundGroups,
  mechanism: 'its' | 'dws' | 'dwf' = 'its',
  launch?: Partial<Launch>,
): void {
  const machine = machineOf(s.text, mechanism, {
    options: mechanism === 'its' ? { bssy: s.bssy } : {},
    laneSymmetry: s.laneSymmetry,
    ...(launch ? { launch } : {}),
  });
  // Warp symmetry has its own law (warpSymmetry.test.ts, which runs with EXIT priority on), and
  // so do groups that run alone (aloneGroups.test.ts, with EXIT priority on and off) and BSYNC
  // priority (bsyncPriority.test.ts, with both on and off): with two, the reductions pick
  // different groups, and neither graph need be the smaller.
  const reduce = {
    partialOrder: s.por,
    warpSymmetry: false,
    aloneGroups: false,
    bsyncPriority: false,
  };
  const plain = explore(machine, budget, undefined, {
    reduce: { ...reduce, exitPriority: false },
  });
  if (plain.bound !== null) return;
  const reduced = explore(machine, budget, undefined, {
    reduce: { ...reduce, exitPriority: true },
    ...(plant ? { plantUnsoundGroups: plant } : {}),
  });
  if (reduced.bound !== null) return;
  const label = `${mechanism} bssy=${s.bssy} symmetry=${s.laneSymmetry} por=${s.por}\n${s.text}`;
  expectReducedAgrees(
    machine,
    plain,
    reduced,
    label,
    (reduced.exitPriority?.applied ?? 0) > 0,
    tally,
  );
}

const SEED = 20261124;

describe('EXIT priority among the lane groups of an its warp and the splits of a dws warp', () => {
  it('gives the outcomes of the search without it on generated kernels, and its findings replay', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    fc.assert(
      fc.property(setup, (s) => check(s, tally)),
      { seed: SEED, numRuns: 300 },
    );
    // The kernels must exercise the reduction, not only pass through it.
    // (seed 20261124: 282 compared, 207 with an exiting group expanded alone, 114 smaller.)
    expect(tally.compared).toBeGreaterThan(250);
    expect(tally.applied).toBeGreaterThan(150);
    expect(tally.smaller).toBeGreaterThan(80);
  }, 120_000);

  it('keeps the deadlock that an early exit would release (hand derivation above)', () => {
    for (const laneSymmetry of [false, true]) {
      const m = machineOf(exitRelease, 'its', { laneSymmetry });
      const plain = explore(m, budget, undefined, {
        reduce: { exitPriority: false, aloneGroups: false },
      });
      const reduced = explore(m, budget, undefined, { reduce: { aloneGroups: false } });
      expect(verdictOf(plain)).toBe('deadlock/blocked/');
      expect(outcomes(plain)).toEqual(['deadlock/blocked/', 'terminates//']);
      expect(verdictOf(reduced)).toBe('deadlock/blocked/');
      expect(outcomes(reduced)).toEqual(outcomes(plain));
      // The planted variant lets lane 0 (a member of B0 and B1) exit first: the deadlock is lost.
      const unsound = explore(m, budget, undefined, { plantUnsoundGroups: 'barrier-members' });
      expect(outcomes(unsound)).toEqual(['terminates//']);
    }
  });

  it('fails on a planted bug (guarded-exit)', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    expect(() =>
      fc.assert(
        fc.property(setup, (s) => check(s, tally, 'guarded-exit')),
        { seed: SEED, numRuns: 300 },
      ),
    ).toThrow(/Property failed/);
  }, 120_000);

  it('fails on a planted bug (barrier-members)', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    const withRace = fc.oneof(
      { weight: 4, arbitrary: setup },
      {
        weight: 1,
        arbitrary: fc.record({
          text: fc.constant(exitRelease),
          laneSymmetry: fc.boolean(),
          por: fc.boolean(),
          bssy: fc.constant('assign'),
        }),
      },
    );
    expect(() =>
      fc.assert(
        fc.property(withRace, (s) => check(s, tally, 'barrier-members')),
        { seed: SEED, numRuns: 100 },
      ),
    ).toThrow(/Property failed/);
  });

  // dws (docs/semantics.md §14.1): a warp-split at an unguarded EXIT exits first. The same
  // kernels; lane symmetry and POR over warps on or off (`bssy` plays no part: dws has no B
  // registers and treats BSSY as its `foreign` option says).
  it('dws: gives the outcomes of the search without it on generated kernels, and its findings replay', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    fc.assert(
      fc.property(setup, (s) => check(s, tally, undefined, 'dws')),
      { seed: SEED, numRuns: 200 },
    );
    // (seed 20261124, 200 runs: 186 compared, 162 with an exiting split expanded alone, 99 smaller.)
    expect(tally.compared).toBeGreaterThan(150);
    expect(tally.applied).toBeGreaterThan(120);
    expect(tally.smaller).toBeGreaterThan(60);
  }, 120_000);

  it('dws: keeps the WARPSYNC violation that an early exit would hide (hand derivation)', () => {
    // Two lanes, two splits after the branch: lane 0 at EARLY's EXIT, lane 1 at WARPSYNC 0x3.
    // SEMANTICS §2 `check` (dws.ts): every named live lane must be in the issuing split. If lane
    // 1 issues the WARPSYNC while lane 0 still stands at its EXIT, lane 0 is named, live and in
    // another split: a violation; if lane 0 exited first, the WARPSYNC passes and both exit.
    // The program reads the exited mask (condition 1 of groupPriority.ts), so no EXIT priority.
    const text = [
      '// @warpcheck warp-size=2 warps=1',
      '\tFunction : k',
      '        S2R R0, SR_LANEID ;',
      '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
      '   @P0  BRA EARLY ;',
      '        WARPSYNC 0x3 ;',
      '        EXIT ;',
      'EARLY:',
      '        EXIT ;',
    ].join('\n');
    const m = machineOf(text, 'dws');
    const plain = explore(m, budget, undefined, {
      reduce: { exitPriority: false, aloneGroups: false },
    });
    const both = ['terminates//', 'violation//warpsync-check'];
    expect(outcomes(plain)).toEqual(both);
    const reduced = explore(m, budget, undefined, { reduce: { aloneGroups: false } });
    expect(reduced.exitPriority).toBeUndefined();
    expect(outcomes(reduced)).toEqual(both);
    // The planted variant ignores condition 1: lane 0 exits first and the violation is lost.
    const unsound = explore(m, budget, undefined, { plantUnsoundGroups: 'reads-exited' });
    expect(unsound.exitPriority?.applied).toBeGreaterThan(0);
    expect(outcomes(unsound)).toEqual(['terminates//']);
  });

  it('dws: fails on a planted bug (guarded-exit)', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    expect(() =>
      fc.assert(
        fc.property(setup, (s) => check(s, tally, 'guarded-exit', 'dws')),
        { seed: SEED, numRuns: 200 },
      ),
    ).toThrow(/Property failed/);
  }, 120_000);

  // dwf with `schedule=any` (docs/semantics.md §14.1): a formed warp at an unguarded EXIT that no
  // regroup can reach exits first. The same kernels on one or two home warps (the block view;
  // threads of different home warps regroup into one formed warp at a branch).
  const dwfSetup = fc.record({ s: setup, warps: fc.integer({ min: 1, max: 2 }) });
  it('dwf: gives the outcomes of the search without it on generated kernels, and its findings replay', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    fc.assert(
      fc.property(dwfSetup, ({ s, warps }) => check(s, tally, undefined, 'dwf', { warps })),
      { seed: SEED, numRuns: 200 },
    );
    // (seed 20261124, 200 runs: 156 compared, 95 with an exiting warp expanded alone, 63 smaller.)
    expect(tally.compared).toBeGreaterThan(130);
    expect(tally.applied).toBeGreaterThan(75);
    expect(tally.smaller).toBeGreaterThan(45);
  }, 120_000);

  it('dwf: two home warps of one lane, one exiting early (hand count)', () => {
    // Thread 0 (home warp 0) runs 0 1 2 3 4=EXIT, thread 1 (home warp 1) runs 0 1 2 5 6 7 8=EXIT.
    // Both have home lane 0, so they never share a formed warp (dwf.ts): the pool is two warps
    // and a state is the pair of their positions (x = exited), registers being dead or fixed by
    // the thread. Without priority: 6 · 8 = 48 states, 5 · 8 + 7 · 6 = 82 transitions (thread 0
    // moves from 5 positions whatever thread 1's, and so on). With it, a state where a thread
    // waits at its EXIT has that exit only: (4, 8) is never reached (one of them would have had
    // to move while the other waited), 47 states; the 35 states with neither at its EXIT keep
    // 4 · 7 + 6 · 5 = 58 transitions, the 7 + 5 with one at its EXIT one each: 70.
    const text = [
      '// @warpcheck warp-size=1 warps=2',
      '\tFunction : k',
      '        S2R R0, SR_TID.X ;',
      '        ISETP.NE.AND P0, PT, R0, RZ, PT ;',
      '   @P0  BRA LONG ;',
      '        MOV R1, 0x1 ;',
      '        EXIT ;',
      'LONG:',
      '        MOV R1, 0x2 ;',
      '        MOV R1, 0x3 ;',
      '        MOV R1, 0x4 ;',
      '        EXIT ;',
    ].join('\n');
    const m = machineOf(text, 'dwf');
    const reduce = { partialOrder: false, aloneGroups: false, warpSymmetry: false };
    const opts = { ...budget, maxDepth: 100 };
    const plain = explore(m, opts, undefined, {
      reduce: { ...reduce, exitPriority: false, accelerate: false },
    });
    const reduced = explore(m, opts, undefined, { reduce: { ...reduce, accelerate: false } });
    expect(verdictOf(plain)).toBe('terminates//');
    expect([plain.states, plain.transitions]).toEqual([48, 82]);
    expect(verdictOf(reduced)).toBe('terminates//');
    expect([reduced.states, reduced.transitions]).toEqual([47, 70]);
    // Another schedule reads the pool (majority, minority, pc): no priority.
    const pc = machineOf(text, 'dwf', { options: { schedule: 'pc' } });
    expect(explore(pc, opts, undefined, { reduce }).exitPriority).toBeUndefined();
  });

  it('exits the lanes that finished the spinlock first (hand count)', () => {
    // Seed 000 Fig. 3 on two lanes (scenarios/spinlock.sass's code). The lanes reach the EXIT one
    // at a time (one CAS winner per issue); with EXIT priority the first one to arrive exits
    // before the other moves, so no state has a lane waiting at the EXIT.
    const text = SPINLOCK_W2;
    // On dws the holder is a split of its own, and the same holds.
    for (const mech of ['its', 'dws']) {
      const m = machineOf(text, mech);
      const plain = explore(m, budget, undefined, {
        reduce: { exitPriority: false, aloneGroups: false },
      });
      const reduced = explore(m, budget, undefined, { reduce: { aloneGroups: false } });
      expect(verdictOf(plain)).toBe('terminates//');
      expect(verdictOf(reduced)).toBe('terminates//');
      expect(reduced.exitPriority?.applied).toBeGreaterThan(0);
      expect(reduced.states).toBeLessThan(plain.states);
      const off = explore(m, budget, undefined, {
        reduce: { exitPriority: false, aloneGroups: false },
      });
      expect(off.exitPriority).toBeUndefined();
    }
  });
});
