/**
 * Soundness law of groups that run alone inside one `its` warp (issue 16, `aloneGroups.ts`,
 * docs/semantics.md §14.3; DESIGN.md: "check each reduction by comparing verdicts with and without
 * it"): on generated kernels (both generators, the explorer's random kernels, the spinlock family
 * and lanes in roles around convergence barriers; W ≤ 6, 1–2 warps, with and without lane
 * symmetry, the partial-order reduction over warps and EXIT priority), the search with the
 * reduction gives the verdict, kind and property of the search without it and the same set of
 * outcomes, reaches no more states, and every finding it reports replays from the real initial
 * state. Two hand-derived kernels show what each condition protects, and the law fails on the
 * planted variants that drop them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bsyncLoops,
  expectReducedAgrees,
  type Tally,
  groupKernels,
} from '../testing/groupKernels.ts';
import { outcomes, verdictOf } from '../testing/outcomes.ts';
import { machineOf } from '../testing/run.ts';
import type { PlantUnsoundAlone } from './aloneGroups.ts';
import { explore, type Budget } from './exhaustive.ts';

const budget: Budget = { maxStates: 6_000, maxDepth: 5_000, timeoutMs: 10_000 };

/**
 * Two lanes that part on their lane id and meet again at A, where a VOTE tells whether they issue
 * together. Hand derivation (SEMANTICS §3.1, maximal groups: every ready lane at one PC issues
 * together): after the BRA, lane 0 stands at A and lane 1 at X, one instruction before A.
 * - If lane 1 issues X first, both stand at A and issue A and the VOTE together: ballot 0b11, the
 *   guarded trap is skipped, both exit.
 * - If lane 0 issues A first, it reaches the VOTE alone or with lane 1 (which may catch up there):
 *   ballot 0b01 (then lane 0 traps) or 0b11.
 * So the full search reaches both `trap` and `terminates`. Lane 1's step at X lands on A, where
 * lane 0 stands (condition 3 of `aloneGroups.ts`): it must not run alone, or the trap is lost.
 */
const meet = [
  '// @warpcheck warp-size=2 warps=1',
  '\tFunction : meet',
  '        S2R R0, SR_LANEID ;',
  '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
  '   @P0  BRA A ;',
  'X:',
  '        IADD3 R6, R6, 0x1, RZ ;',
  'A:',
  '        IADD3 R7, R7, 0x1, RZ ;',
  '        VOTE.ANY R5, PT, PT ;',
  '        ISETP.NE.AND P1, PT, R5, 0x3, PT ;',
  '   @P1  BPT.TRAP 0x1 ;',
  '        EXIT ;',
].join('\n');

/**
 * Lane 0 spins forever in a loop of arithmetic; lane 1 traps. Hand derivation: under weak fairness
 * per lane lane 1 issues eventually, so the full search finds the trap (and lane 0's endless loop
 * is a fair cycle until then). The loop's instructions lie on a cycle (condition 2): were lane 0
 * run alone there, the search would follow it forever and never let lane 1 issue.
 */
const starve = [
  '// @warpcheck warp-size=2 warps=1',
  '\tFunction : starve',
  '        S2R R0, SR_LANEID ;',
  '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
  '   @!P0 BRA T ;',
  'L:',
  '        IADD3 R6, R6, 0x1, RZ ;',
  '        LOP3.LUT R6, R6, 0x1, RZ, 0xc0, !PT ;',
  '        BRA L ;',
  'T:',
  '        BPT.TRAP 0x1 ;',
  '        EXIT ;',
].join('\n');

/**
 * Both lanes enter B0; lane 1 re-arms B0 with itself only (BSSY: B0 := the active mask, SEMANTICS
 * §2) and goes to a BSYNC on B0 that lane 0 reaches after one addition; after the BSYNC lane 0
 * stores a flag, and lane 1 traps if it reads the flag unset. Hand derivation (SEMANTICS §3.1,
 * `release` in its.ts):
 * - lane 1 first (BSSY, BRA, BSYNC) while lane 0 is still at its IADD3: lane 1 waits, completes
 *   B0 = {1} and is released alone; it loads 0 and traps;
 * - lane 0 at the BSYNC before lane 1 gets there: if both stand there, they issue it together and
 *   the store comes with lane 1's pass through the next instruction; if lane 0 issues it first, it
 *   waits (B0 = {0,1}: released with lane 1, together) or, B0 re-armed, passes and stores before
 *   lane 1 can load — either way no trap; both exit.
 * So the full search finds `trap` and `terminates`. Lane 0 lands on a BSYNC that lane 1 reaches
 * after it may re-arm B0: the exception of condition 3 must not apply, or the trap is lost.
 */
const meetRearmed = [
  '// @warpcheck warp-size=2 warps=1 mem[0x100]=0',
  '\tFunction : meet',
  '        S2R R0, SR_LANEID ;',
  '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
  '        MOV R3, 0x1 ;',
  '        BSSY B0, S ;',
  '   @P0  BRA X ;',
  '        BSSY B0, S ;',
  '        BRA S ;',
  'X:',
  '        IADD3 R6, R6, 0x1, RZ ;',
  'S:',
  '        BSYNC B0 ;',
  '   @P0  STS [RZ+0x100], R3 ;',
  '        LDS R4, [RZ+0x100] ;',
  '        ISETP.EQ.AND P1, PT, R4, RZ, !P0 ;',
  '   @P1  BPT.TRAP 0x1 ;',
  '        EXIT ;',
].join('\n');

const setup = fc.record({
  text: fc.oneof(groupKernels, bsyncLoops),
  laneSymmetry: fc.boolean(),
  por: fc.boolean(),
  exitPriority: fc.boolean(),
  bssy: fc.constantFrom('assign', 'or'),
});
type Setup = typeof setup extends fc.Arbitrary<infer T> ? T : never;

/** The law on one setup; throws (via expect) when it breaks. */
function check(s: Setup, tally: Tally, plant?: PlantUnsoundAlone): void {
  const machine = machineOf(s.text, 'its', {
    options: { bssy: s.bssy },
    laneSymmetry: s.laneSymmetry,
  });
  // Warp symmetry has its own law (warpSymmetry.test.ts, which runs with this reduction on), and
  // so has BSYNC priority (bsyncPriority.test.ts, with this one on and off).
  const reduce = {
    partialOrder: s.por,
    exitPriority: s.exitPriority,
    warpSymmetry: false,
    bsyncPriority: false,
  };
  const plain = explore(machine, budget, undefined, { reduce: { ...reduce, aloneGroups: false } });
  if (plain.bound !== null) return;
  const reduced = explore(machine, budget, undefined, {
    reduce: { ...reduce, aloneGroups: true },
    ...(plant ? { plantUnsoundAlone: plant } : {}),
  });
  if (reduced.bound !== null) return;
  const label = `bssy=${s.bssy} symmetry=${s.laneSymmetry} por=${s.por} exitPriority=${s.exitPriority}\n${s.text}`;
  expectReducedAgrees(
    machine,
    plain,
    reduced,
    label,
    (reduced.aloneGroups?.applied ?? 0) > 0,
    tally,
  );
}

const SEED = 20261125;

describe('groups that run alone inside an its warp', () => {
  it('gives the outcomes of the search without it on generated kernels, and its findings replay', () => {
    const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
    fc.assert(
      fc.property(setup, (s) => check(s, tally)),
      { seed: SEED, numRuns: 300 },
    );
    // The kernels must exercise the reduction, not only pass through it.
    // (seed 20261125, with the loops of bsyncLoops among the kernels: 219 compared — loops with
    // unknown trip counts run out of the budget —, 66 with a group run alone, 65 smaller.)
    expect(tally.compared).toBeGreaterThan(200);
    expect(tally.applied).toBeGreaterThan(55);
    expect(tally.smaller).toBeGreaterThan(55);
  }, 120_000);

  it('keeps the trap of lanes that do not meet (hand derivation above)', () => {
    const m = machineOf(meet, 'its');
    const plain = explore(m, budget, undefined, { reduce: { aloneGroups: false } });
    expect(outcomes(plain)).toEqual(['terminates//', 'trap//']);
    const reduced = explore(m, budget);
    expect(outcomes(reduced)).toEqual(outcomes(plain));
    // The planted variant runs lane 1 alone from X onto A: both then issue together, no trap.
    const unsound = explore(m, budget, undefined, { plantUnsoundAlone: 'ignore-others' });
    expect(outcomes(unsound)).toEqual(['terminates//']);
  });

  it('keeps the trap of a lane next to an endless loop (hand derivation above)', () => {
    const m = machineOf(starve, 'its');
    const plain = explore(m, budget, undefined, { reduce: { aloneGroups: false } });
    expect(outcomes(plain)).toContain('trap//');
    expect(verdictOf(plain)).toBe('trap//');
    const reduced = explore(m, budget);
    expect(outcomes(reduced)).toEqual(outcomes(plain));
    const unsound = explore(m, budget, undefined, { plantUnsoundAlone: 'on-cycles' });
    expect(outcomes(unsound)).not.toContain('trap//');
  });

  it('runs one arm of a branch alone while the other cannot reach it (hand count)', () => {
    // Two lanes on two arms that meet only at their EXITs: pcs 0-2 shared, lane 1 on 3-5 (adds)
    // and 6 (EXIT), lane 0 on 7-9 (adds) and 10 (EXIT). The values are dead (relevance), so a
    // state is the pair of positions.
    const arms = [
      '// @warpcheck warp-size=2 warps=1',
      '\tFunction : arms',
      '        S2R R0, SR_LANEID ;',
      '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
      '   @P0  BRA B ;',
      '        IADD3 R6, R6, 0x1, RZ ;',
      '        IADD3 R6, R6, 0x1, RZ ;',
      '        IADD3 R6, R6, 0x1, RZ ;',
      '        EXIT ;',
      'B:',
      '        IADD3 R7, R7, 0x1, RZ ;',
      '        IADD3 R7, R7, 0x1, RZ ;',
      '        IADD3 R7, R7, 0x1, RZ ;',
      '        EXIT ;',
    ].join('\n');
    const m = machineOf(arms, 'its');
    const off = { reduce: { aloneGroups: false, exitPriority: false, accelerate: false } };
    const on = { reduce: { exitPriority: false, accelerate: false } };
    const plain = explore(m, budget, undefined, off);
    const reduced = explore(m, budget, undefined, on);
    expect(verdictOf(plain)).toBe('terminates//');
    expect(verdictOf(reduced)).toBe('terminates//');
    // Plain: 3 states before the split, then every pair of positions, 5 per lane (3 adds, the
    // EXIT, exited): 3 + 25.
    expect(plain.states).toBe(3 + 25);
    // Reduced: the lower PC's group runs alone while the other cannot reach its next PC. Lane 1
    // goes 3 → 4 → 5 → 6 alone (lane 0 at 7 cannot reach 4, 5 or 6): (3,7) (4,7) (5,7) (6,7);
    // lane 1's EXIT is not lane-local, so lane 0 goes 7 → 8 → 9 → 10 alone: (6,8) (6,9) (6,10);
    // both at an EXIT: expanded in full, (x,10) (6,x) (x,x). 3 + 4 + 3 + 3 = 13.
    expect(reduced.states).toBe(13);
    expect(reduced.aloneGroups?.applied).toBeGreaterThan(0);

    // With acceleration (docs/semantics.md §14.2 and §14.3, "Chains"): the start runs as one chain
    // (S2R, ISETP and the BRA each issue both lanes) to (3,7); a forced chain goes on from there
    // through the states whose one expanded step is a lone group's — (3,7) (4,7) (5,7) (6,7)
    // (6,8) (6,9) —, so the initial state's edge leads to (6,10); then (x,10), (6,x) and (x,x) as
    // before: 5 states. Without lone groups every pair is stored again: 1 + 25.
    const accel = { reduce: { exitPriority: false } };
    const chained = explore(m, budget, undefined, accel);
    const unchained = explore(m, budget, undefined, {
      reduce: { exitPriority: false, aloneGroups: false },
    });
    expect(unchained.states).toBe(1 + 25);
    expect(chained.states).toBe(5);
    expect(verdictOf(chained)).toBe('terminates//');
    const finding = chained.findings.find((f) => f.verdict === 'terminates')!;
    // The schedule replays every skipped step: each instruction issued once, 3 shared, then 3 adds
    // and an EXIT per lane.
    expect(finding.schedule.length).toBe(3 + 4 + 4);
  });

  it('keeps the trap of a lane that meets a re-armed barrier (hand derivation above)', () => {
    const m = machineOf(meetRearmed, 'its');
    const plain = explore(m, budget, undefined, { reduce: { aloneGroups: false } });
    expect(outcomes(plain)).toEqual(['terminates//', 'trap//']);
    const reduced = explore(m, budget);
    expect(outcomes(reduced)).toEqual(outcomes(plain));
    // The planted variant lets lane 0 land on the BSYNC first: the flag is then always set in time.
    const unsound = explore(m, budget, undefined, { plantUnsoundAlone: 'ignore-barrier' });
    expect(outcomes(unsound)).toEqual(['terminates//']);
  });

  for (const plant of ['on-cycles', 'ignore-others', 'ignore-barrier'] as const)
    it(`fails on a planted bug (${plant})`, () => {
      const tally: Tally = { compared: 0, applied: 0, smaller: 0 };
      const withHand = fc.oneof(
        { weight: 4, arbitrary: setup },
        {
          weight: 1,
          arbitrary: fc.record({
            text: fc.constant(
              plant === 'on-cycles' ? starve : plant === 'ignore-others' ? meet : meetRearmed,
            ),
            laneSymmetry: fc.constant(false),
            por: fc.boolean(),
            exitPriority: fc.boolean(),
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
