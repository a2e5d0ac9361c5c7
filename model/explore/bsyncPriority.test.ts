/**
 * Soundness law of BSYNC priority inside one `its` warp (issue 16, `bsyncPriority.ts`,
 * docs/semantics.md §14.4; DESIGN.md: "check each reduction by comparing verdicts with and without
 * it"): on generated kernels (both generators, the explorer's random kernels, the spinlock family
 * and lanes in roles around convergence barriers; W ≤ 6, 1–2 warps, with and without lane
 * symmetry, the partial-order reduction over warps, EXIT priority and groups that run alone), the
 * search with the reduction gives the verdict, kind and property of the search without it and the
 * same set of outcomes, reaches no more states, and every finding it reports replays from the real
 * initial state. Hand-derived kernels show what the conditions protect, and the law fails on the
 * planted variants that drop them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bsyncLoops,
  checkFindings,
  expectReducedAgrees,
  type Tally,
  groupKernels,
} from '../testing/groupKernels.ts';
import { expectSameOutcomes, outcomes, verdictOf } from '../testing/outcomes.ts';
import { machineOf } from '../testing/run.ts';
import type { PlantUnsoundBsync } from './bsyncPriority.ts';
import { explore, type Budget } from './exhaustive.ts';

const budget: Budget = { maxStates: 6_000, maxDepth: 5_000, timeoutMs: 10_000 };

/**
 * Lane 1 re-arms B0 while lane 0 stands at BSYNC B0. Hand derivation (SEMANTICS §2: BSSY assigns
 * Bx the active mask, a BSYNC lets lanes outside Bx pass; `release` in its.ts):
 * - lane 1's BSSY first: B0 = {1}, so lane 0 passes its BSYNC and stores the flag; lane 1 may then
 *   load it as 1 and trap;
 * - lane 0's BSYNC first: it waits (lane 1, a member of B0 = {0,1}, has not arrived); lane 1's BSSY
 *   makes B0 = {1}, which releases nobody (lane 1 does not wait), lane 1 loads 0, waits at its
 *   BSYNC, which completes B0 = {1} and wakes both; lane 0 stores the flag; both exit.
 * So the full search finds `trap` and `terminates`. Lane 1 may reach a BSSY on B0 (condition 3 of
 * `bsyncPriority.ts`): lane 0's arrival must not come first, or the trap is lost.
 */
const rearm = [
  '// @warpcheck warp-size=2 warps=1 mem[0x100]=0',
  '\tFunction : rearm',
  '        S2R R0, SR_LANEID ;',
  '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
  '        MOV R3, 0x1 ;',
  '        BSSY B0, A ;',
  '   @P0  BRA A ;',
  '        BSSY B0, D ;',
  '        LDS R4, [RZ+0x100] ;',
  '        ISETP.NE.AND P1, PT, R4, RZ, PT ;',
  '   @P1  BPT.TRAP 0x1 ;',
  '        BSYNC B0 ;',
  'D:',
  '        EXIT ;',
  'A:',
  '        BSYNC B0 ;',
  '        STS [RZ+0x100], R3 ;',
  '        EXIT ;',
].join('\n');

/**
 * Two lanes part on their lane id and meet at one BSYNC: lane 0 goes there at once, lane 1 after
 * three additions (pcs 4–6); B0 holds both. Hand count below.
 */
const meetAtBsync = [
  '// @warpcheck warp-size=2 warps=1',
  '\tFunction : meet',
  '        S2R R0, SR_LANEID ;',
  '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
  '        BSSY B0, J ;',
  '   @P0  BRA S ;',
  '        IADD3 R6, R6, 0x1, RZ ;',
  '        IADD3 R6, R6, 0x1, RZ ;',
  '        IADD3 R6, R6, 0x1, RZ ;',
  'S:',
  '        BSYNC B0 ;',
  'J:',
  '        EXIT ;',
].join('\n');

/**
 * A RET to a known address that is not its call's return site (found by a review of this
 * reduction): lane 0 stands at BSYNC B0; lane 1 calls F, leaves B0 and returns straight to J,
 * past the BSYNC (SEMANTICS §1: `RET Rn` jumps to the offset Rn holds, 0x90 = J). Hand
 * derivation: lane 1 may load the flag before lane 0, released by lane 1's BREAK, stores it —
 * `trap` —, or after — `terminates`. The reachability analysis sends a RET to the return sites
 * only, so it holds that lane 1 cannot reach J; the explorer sees the RET leave that graph
 * (`offGraph.ts`) and searches again without the reductions that rest on it.
 */
const retPast = [
  '// @warpcheck warp-size=2 warps=1 mem[0x100]=0',
  '\tFunction : k',
  '        S2R R0, SR_LANEID ;',
  '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
  '        ISETP.EQ.AND P1, PT, R0, 0x1, PT ;',
  '        MOV R3, 0x1 ;',
  '        BSSY B0, J ;',
  '   @P0  BRA S ;',
  '        CALL.REL.NOINC `(F) ;',
  '        EXIT ;',
  'S:',
  '        BSYNC B0 ;',
  'J:',
  '   @P0  STS [RZ+0x100], R3 ;',
  '        LDS R4, [RZ+0x100] ;',
  '        ISETP.EQ.AND P5, PT, R4, RZ, P1 ;',
  '   @P5  BPT.TRAP 0x1 ;',
  '        EXIT ;',
  'F:',
  '        BREAK B0 ;',
  '        MOV R20, 0x90 ;',
  '        RET.REL.NODEC R20 0x0 ;',
].join('\n');

const setup = fc.record({
  text: fc.oneof(groupKernels, bsyncLoops),
  laneSymmetry: fc.boolean(),
  por: fc.boolean(),
  exitPriority: fc.boolean(),
  aloneGroups: fc.boolean(),
  bssy: fc.constantFrom('assign', 'or'),
});
type Setup = typeof setup extends fc.Arbitrary<infer T> ? T : never;

/**
 * The law on one setup; throws (via expect) when it breaks. With `others`, EXIT priority and groups
 * that run alone are on or off as the setup says, in both searches: the outcomes must agree, but
 * the reductions then pick different groups and neither graph need be the smaller, so only the
 * outcomes and the replays are compared.
 */
function check(s: Setup, tally: Tally, plant?: PlantUnsoundBsync, others = false): void {
  const machine = machineOf(s.text, 'its', {
    options: { bssy: s.bssy },
    laneSymmetry: s.laneSymmetry,
  });
  // Warp symmetry has its own law (warpSymmetry.test.ts, which runs with this reduction on).
  const reduce = {
    partialOrder: s.por,
    exitPriority: others && s.exitPriority,
    aloneGroups: others && s.aloneGroups,
    warpSymmetry: false,
  };
  const plain = explore(machine, budget, undefined, {
    reduce: { ...reduce, bsyncPriority: false },
  });
  if (plain.bound !== null) return;
  const reduced = explore(machine, budget, undefined, {
    reduce: { ...reduce, bsyncPriority: true },
    ...(plant ? { plantUnsoundBsync: plant } : {}),
  });
  if (reduced.bound !== null) return;
  const label = `bssy=${s.bssy} symmetry=${s.laneSymmetry} por=${s.por} exitPriority=${reduce.exitPriority} aloneGroups=${reduce.aloneGroups}\n${s.text}`;
  if (others) {
    tally.compared++;
    expectSameOutcomes(reduced, plain, label);
    checkFindings(machine, reduced, label);
    return;
  }
  expectReducedAgrees(
    machine,
    plain,
    reduced,
    label,
    (reduced.bsyncPriority?.applied ?? 0) > 0,
    tally,
  );
}

const SEED = 20261127;

describe('BSYNC priority inside an its warp', () => {
  it('gives the outcomes of the search without it on generated kernels, and its findings replay', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    fc.assert(
      fc.property(setup, (s) => check(s, tally)),
      { seed: SEED, numRuns: 300 },
    );
    // The kernels must exercise the reduction, not only pass through it.
    // (seed 20261127: 202 compared — the loops with unknown trip counts run out of the budget —,
    // 29 with a group arriving alone at a BSYNC, 25 smaller.)
    expect(tally.compared).toBeGreaterThan(180);
    expect(tally.applied).toBeGreaterThan(20);
    expect(tally.smaller).toBeGreaterThan(18);
  }, 180_000);

  it('gives the same outcomes with EXIT priority and groups that run alone on or off', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    fc.assert(
      fc.property(setup, (s) => check(s, tally, undefined, true)),
      { seed: SEED + 1, numRuns: 150 },
    );
    expect(tally.compared).toBeGreaterThan(90);
  }, 180_000);

  it('keeps the trap of a lane that re-arms the barrier (hand derivation above)', () => {
    const m = machineOf(rearm, 'its');
    const plain = explore(m, budget, undefined, { reduce: { bsyncPriority: false } });
    expect(outcomes(plain)).toEqual(['terminates//', 'trap//']);
    const reduced = explore(m, budget);
    expect(outcomes(reduced)).toEqual(outcomes(plain));
    // The planted variant lets lane 0 wait first: B0 is re-armed without it, and no trap.
    const unsound = explore(m, budget, undefined, { plantUnsoundBsync: 'ignore-setters' });
    expect(outcomes(unsound)).toEqual(['terminates//']);
  });

  it('keeps the trap of a lane that returns past the BSYNC (hand derivation above)', () => {
    const none = {
      bsyncPriority: false,
      aloneGroups: false,
      exitPriority: false,
      accelerate: false,
      deadValues: false,
    };
    const plain = explore(machineOf(retPast, 'its'), budget, undefined, { reduce: none });
    expect(outcomes(plain)).toEqual(['terminates//', 'trap//']);
    for (const laneSymmetry of [false, true]) {
      const reduced = explore(machineOf(retPast, 'its', { laneSymmetry }), budget);
      expect(outcomes(reduced)).toEqual(outcomes(plain));
      expect(reduced.notes.join('\n')).toMatch(/leaves the control flow/);
    }
  });

  it('lets the first lane at a BSYNC wait before the other moves (hand count)', () => {
    // Without the other group reductions and chains, so that every state is stored.
    const off = { aloneGroups: false, exitPriority: false, accelerate: false };
    const m = machineOf(meetAtBsync, 'its');
    const plain = explore(m, budget, undefined, { reduce: { ...off, bsyncPriority: false } });
    const reduced = explore(m, budget, undefined, { reduce: off });
    expect(verdictOf(plain)).toBe('terminates//');
    expect(verdictOf(reduced)).toBe('terminates//');
    // Plain: both lanes at pcs 0, 1, 2, 3 (4 states); after the BRA lane 0 stands at the BSYNC
    // (pc 7), ready or waiting, while lane 1 is at 4, 5 or 6 (2 × 3); lane 1 arrives: both ready at
    // 7, or lane 0 waiting and lane 1 ready (2); the BSYNC completes: both at the EXIT (1); both
    // exited (1). 4 + 6 + 2 + 1 + 1 = 14.
    expect(plain.states).toBe(14);
    // Reduced: from (ready at 7, 4) lane 0 only starts to wait; then lane 1 walks 4 → 7 beside a
    // waiting lane 0: (7r, 4), (7w, 4), (7w, 5), (7w, 6), (7w, 7r), then (8, 8) and exited:
    // 4 + 5 + 1 + 1 = 11.
    expect(reduced.states).toBe(11);
    expect(reduced.bsyncPriority?.applied).toBe(1);
  });

  it('skips the state in which the priority applies, inside a chain (hand count)', () => {
    // With chains (acceleration.ts, forced chains: docs/semantics.md §14.4 "Chains"): from the
    // initial state a plain chain takes S2R and ISETP (stored: pcs (0, 0) and (2, 2)); from (2, 2)
    // the BSSY, the BRA that parts the lanes, lane 0's wait (the priority's one step), lane 1's
    // three additions — one compressed edge of 6 steps to (7 waiting, 7 ready); then the BSYNC
    // that completes B0 (8, 8) and the EXIT: 5 states, 4 transitions. Accelerated: ISETP, then the
    // 5 steps after the BSSY.
    const off = { aloneGroups: false, exitPriority: false };
    const m = machineOf(meetAtBsync, 'its');
    const r = explore(m, budget, undefined, { reduce: off });
    expect(verdictOf(r)).toBe('terminates//');
    expect([r.states, r.transitions, r.accelerated, r.forcedChains]).toEqual([5, 4, 6, 1]);
    // The finding's schedule expands every chain: all 10 steps, replayed from the initial state.
    expect(r.findings[0]!.schedule).toHaveLength(10);
    checkFindings(m, r, 'meetAtBsync');
    // Without the priority lane 0 stands ready beside lane 1: more states, no forced chain.
    const plain = explore(m, budget, undefined, { reduce: { ...off, bsyncPriority: false } });
    expect(plain.forcedChains).toBe(0);
    expect(plain.states).toBeGreaterThan(r.states);
  });

  for (const plant of ['ignore-setters'] as const)
    it(`fails on a planted bug (${plant})`, () => {
      const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
      const withHand = fc.oneof(
        { weight: 4, arbitrary: setup },
        {
          weight: 1,
          arbitrary: fc.record({
            text: fc.constant(rearm),
            laneSymmetry: fc.constant(false),
            por: fc.boolean(),
            exitPriority: fc.boolean(),
            aloneGroups: fc.boolean(),
            bssy: fc.constant('assign'),
          }),
        },
      );
      expect(() =>
        fc.assert(
          fc.property(withHand, (s) => check(s, tally, plant)),
          { seed: SEED, numRuns: 100 },
        ),
      ).toThrow(/Property failed/);
    }, 120_000);
});
