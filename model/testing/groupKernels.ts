import fc from 'fast-check';
import { expect } from 'vitest';
import { spinlockKernel } from '../../properties/arbitraries/kernels.ts';
import { structuredKernel } from '../../properties/arbitraries/structured.ts';
import { unstructuredKernel } from '../../properties/arbitraries/unstructured.ts';
import { randomKernel } from '../explore/randomKernels.ts';
import type { ExploreResult } from '../explore/exhaustive.ts';
import type { Machine } from '../machine/machine.ts';
import { expectSameOutcomes } from './outcomes.ts';
import { machineOf, replay } from './run.ts';

/**
 * Kernels for the laws of the reductions among the lane groups of one warp (`groupPriority.ts`,
 * `aloneGroups.ts`): both generators, the explorer's random kernels, the spinlock family and lanes
 * in roles around convergence barriers, half of them with unknown lane ids (so that lane symmetry
 * applies), and a replay check of the findings.
 */
/**
 * Three lanes and two convergence barriers, written by hand so that the order of one EXIT and one
 * BSSY decides a deadlock. Lane 0 exits early; lane 2 leaves B0 (BREAK), waits for lane 1's flag,
 * re-arms B0 with itself only (BSSY, SEMANTICS §2: Bx := the active mask) and waits at BSYNC B1;
 * lane 1 sets the flag and waits at BSYNC B0. Hand derivation (SEMANTICS §3.1, `release` in
 * its.ts: a BSYNC on Bx releases when every non-exited member of Bx waits on it):
 * - if lane 0 is still at its EXIT when lane 2 re-arms B0, lane 1 waits on B0 = {2} and lane 2 on
 *   B1 = {0,1,2} \ exited, which lane 1 never reaches: a blocked deadlock, whenever lane 0 exits;
 * - if lane 0 exited first, lane 1 is released as soon as it waits (B0 \ exited = {1} after the
 *   BREAK), exits, and lane 2's BSYNC B1 then releases: every lane exits.
 * So the full search finds the deadlock; exiting lane 0 before anything else hides it. Lane 0 is a
 * member of B0 and B1, so EXIT priority must not apply to it (`groupPriority.ts`, condition 2).
 */
export const exitRelease = [
  '// @warpcheck warp-size=3 warps=1 mem[0x100]=0',
  '\tFunction : k',
  '        S2R R0, SR_LANEID ;',
  '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
  '        ISETP.EQ.AND P1, PT, R0, 0x2, PT ;',
  '        MOV R3, 0x1 ;',
  '        BSSY B1, END ;',
  '        BSSY B0, JOIN ;',
  '   @P0  BRA EARLY ;',
  '   @P1  BRA G ;',
  '        STS [RZ+0x100], R3 ;',
  '        BSYNC B0 ;',
  'JOIN:',
  '        EXIT ;',
  'EARLY:',
  '        EXIT ;',
  'G:',
  '        BREAK B0 ;',
  'SPIN:',
  '        LDS R4, [RZ+0x100] ;',
  '        ISETP.EQ.AND P2, PT, R4, RZ, PT ;',
  '   @P2  BRA SPIN ;',
  '        BSSY B0, JOIN ;',
  '        BSYNC B1 ;',
  'END:',
  '        EXIT ;',
].join('\n');

/**
 * Lanes in roles around convergence barriers (neither generator emits BSSY/BSYNC/BREAK): every lane
 * arms B0 and B1, then each lane runs the instructions of role `lane mod roles` — random picks of
 * BSSY, BSYNC, BREAK, an early EXIT, a flag store, a spin on the flag, arithmetic and VOTE — and
 * exits. Early exits of barrier members next to BSSY/BREAK of others are what EXIT priority must
 * not reorder (`exitRelease` above is one of them).
 */
const roleOp = fc.constantFrom(
  'BSSY B0, END',
  'BSSY B1, END',
  'BSYNC B0',
  'BSYNC B1',
  'BREAK B0',
  'BREAK B1',
  'EXIT',
  'STS [RZ+0x100], R3',
  'SPIN',
  'IADD3 R6, R6, 0x1, RZ',
  'VOTE.ANY R5, PT, PT',
);
export const barrierRoles = fc
  .record({
    warpSize: fc.integer({ min: 2, max: 4 }),
    roles: fc.array(fc.array(roleOp, { minLength: 1, maxLength: 4 }), {
      minLength: 2,
      maxLength: 3,
    }),
  })
  .map(({ warpSize, roles }) => {
    const lines = [
      `// @warpcheck warp-size=${warpSize} warps=1 mem[0x100]=0`,
      '\tFunction : roles',
      '        S2R R0, SR_LANEID ;',
      '        MOV R3, 0x1 ;',
      '        BSSY B1, END ;',
      '        BSSY B0, END ;',
    ];
    // Lane l runs role l mod roles.length.
    for (let l = 0; l < warpSize; l++)
      lines.push(
        `        ISETP.EQ.AND P0, PT, R0, 0x${l}, PT ;`,
        `   @P0  BRA ROLE${l % roles.length} ;`,
      );
    lines.push('        EXIT ;');
    roles.forEach((ops, r) => {
      lines.push(`ROLE${r}:`);
      ops.forEach((op, i) => {
        if (op === 'SPIN')
          lines.push(
            `S${r}_${i}:`,
            '        LDS R4, [RZ+0x100] ;',
            '        ISETP.EQ.AND P2, PT, R4, RZ, PT ;',
            `   @P2  BRA S${r}_${i} ;`,
          );
        else lines.push(`        ${op} ;`);
      });
      lines.push('        BRA END ;');
    });
    lines.push('END:', '        EXIT ;');
    return lines.join('\n');
  });

/**
 * Lane symmetry applies where lane ids are not read; the generators branch on lane ids, so half
 * the kernels read an unknown special register instead (as `laneSymmetry.test.ts` does).
 */
export const unknownIds = (text: string): string =>
  text.replace(/SR_LANEID|SR_TID\.X/g, 'SR_CLOCKLO');
/** Both generators and the explorer's random kernels (W ≤ 6, one or two warps). */
const generated = (): fc.Arbitrary<string>[] => [
  structuredKernel({ maxWarpSize: 6, maxWarps: 2, maxStatements: 3, maxDepth: 2 }).map(
    (k) => k.text,
  ),
  unstructuredKernel({ maxWarpSize: 6, maxWarps: 2, maxBlocks: 6 }).map((k) => k.text),
  randomKernel({ maxLength: 10, maxWarpSize: 4 }).map((k) => k.text),
];

/** One of `kernels`, half of the time with unknown lane ids. */
const halfUnknown = (...kernels: fc.Arbitrary<string>[]): fc.Arbitrary<string> =>
  fc
    .tuple(fc.oneof(...kernels), fc.boolean())
    .map(([text, unknown]) => (unknown ? unknownIds(text) : text));

export const groupKernels = halfUnknown(
  ...generated(),
  spinlockKernel.map((k) => k.text),
  barrierRoles,
);

/** `generated`, half with unknown lane ids: the kernels of the laws of lane symmetry and dead writes. */
export const mixedKernels = halfUnknown(...generated());

/** Every finding replays from the real initial state to its outcome (as `partialOrder.test.ts`). */
export function checkFindings(machine: Machine, r: ExploreResult, label: string): void {
  const m = r.laneSymmetry === machine.symmetric ? machine : machine.withoutSymmetry();
  for (const f of r.findings) {
    const { states, last } = replay(m, f.schedule);
    const end = states.at(-1)!;
    if (f.loop !== null) expect(m.behaviourKey(states[f.loop]!), label).toBe(m.behaviourKey(end));
    else if (f.verdict === 'terminates') expect(m.status(end), label).toBe('terminated');
    else if (f.verdict === 'deadlock') expect(m.status(end), label).toBe('blocked');
    else expect(last?.stop?.verdict, label).toBe(f.verdict);
  }
}

/** What a group-reduction law counts over its runs. */
export interface Tally {
  compared: number;
  /** The reduced search applied the reduction somewhere. */
  applied: number;
  /** ... and reached fewer states. */
  smaller: number;
}

/**
 * The comparison of a group-reduction law: the reduced search gives the plain one's outcomes,
 * reaches no more states, and its findings replay; `applied` says whether the reduction ran.
 */
export function expectReducedAgrees(
  machine: Machine,
  plain: ExploreResult,
  reduced: ExploreResult,
  label: string,
  applied: boolean,
  tally: Tally,
): void {
  tally.compared++;
  expectSameOutcomes(reduced, plain, label);
  expect(reduced.states, label).toBeLessThanOrEqual(plain.states);
  if (applied) tally.applied++;
  if (reduced.states < plain.states) tally.smaller++;
  checkFindings(machine, reduced, label);
}

/**
 * Lanes that leave a loop at different iterations and meet at its BSYNC (the shape BSYNC priority
 * reduces, `bsyncPriority.ts`): a trip count from the lane id (or an unknown one, through an
 * unknown special register), and around it what the priority's conditions are about — a lane that
 * breaks out (with or without the compiler's `@P BRA` after the BREAK), one that re-arms the
 * barrier, a flag stored by one lane and checked by another, an early EXIT, and a VOTE after the
 * BSYNC that tells whether the lanes issue together.
 */
export const bsyncLoops: fc.Arbitrary<string> = fc
  .record({
    w: fc.integer({ min: 2, max: 4 }),
    bound: fc.constantFrom('R0', 'R7'),
    breaker: fc.constantFrom('none', 'with-bra', 'alone'),
    rearm: fc.constantFrom('none', 'loop', 'out'),
    flag: fc.boolean(),
    early: fc.boolean(),
    vote: fc.boolean(),
    unknown: fc.boolean(),
  })
  .map((k) => {
    const full = `0x${((1 << k.w) - 1).toString(16)}`;
    const lines = [
      `// @warpcheck warp-size=${k.w} warps=1 mem[0x100]=0`,
      '\tFunction : k',
      `        S2R R0, ${k.unknown ? 'SR_CLOCKLO' : 'SR_LANEID'} ;`,
      '        LOP3.LUT R7, R0, 0x1, RZ, 0xc0, !PT ;',
      '        ISETP.EQ.AND P3, PT, R0, RZ, PT ;',
      '        ISETP.EQ.AND P4, PT, R0, 0x1, PT ;',
      '        MOV R3, 0x1 ;',
      '        MOV R5, RZ ;',
    ];
    if (k.early) lines.push('        ISETP.EQ.AND P5, PT, R0, 0x2, PT ;', '   @P5  EXIT ;');
    lines.push('        BSSY B0, J ;', 'L:', '        IADD3 R5, R5, 0x1, RZ ;');
    if (k.breaker !== 'none') lines.push('   @P3  BREAK B0 ;');
    if (k.breaker === 'with-bra') lines.push('   @P3  BRA OUT ;');
    if (k.rearm === 'loop') lines.push('   @P4  BSSY B0, J ;');
    if (k.flag) lines.push('   @P3  STS [RZ+0x100], R3 ;');
    lines.push(
      `        ISETP.LE.AND P1, PT, R5, ${k.bound}, PT ;`,
      '   @P1  BRA L ;',
      '        BSYNC B0 ;',
      'J:',
    );
    if (k.flag)
      lines.push(
        '        LDS R4, [RZ+0x100] ;',
        '        ISETP.NE.AND P2, PT, R4, RZ, PT ;',
        '   @P2  BPT.TRAP 0x1 ;',
      );
    if (k.vote)
      lines.push(
        '        VOTE.ANY R6, PT, PT ;',
        `        ISETP.NE.AND P2, PT, R6, ${full}, PT ;`,
        '   @P2  BPT.TRAP 0x2 ;',
      );
    lines.push('        EXIT ;', 'OUT:');
    if (k.rearm === 'out') lines.push('        BSSY B0, J2 ;', '        BSYNC B0 ;', 'J2:');
    lines.push('        BRA J ;');
    return lines.join('\n');
  });

/**
 * Searches of `its` over group kernels and loops that meet at their BSYNC, under each setting a
 * chain or a walk depends on — grouping, lane symmetry, dead values, loop widening: the setups of
 * the laws that compare two ways of running the same search (summaries of chains, origins).
 */
export const itsLoopSetups = fc.record({
  text: fc.oneof(groupKernels, bsyncLoops, bsyncLoops),
  grouping: fc.constantFrom('maximal', 'maximal', 'single'),
  laneSymmetry: fc.boolean(),
  deadValues: fc.boolean(),
  widen: fc.constantFrom(0, 2),
});

export type ItsLoopSetup = typeof itsLoopSetups extends fc.Arbitrary<infer T> ? T : never;

/** The machine of setup `s`, and a label that names it for a failing assertion. */
export function itsLoopMachine(s: ItsLoopSetup): { machine: Machine; label: string } {
  return {
    machine: machineOf(s.text, 'its', {
      options: { grouping: s.grouping },
      laneSymmetry: s.laneSymmetry,
      widen: s.widen,
    }),
    label: `${JSON.stringify({ ...s, text: undefined })}\n${s.text}`,
  };
}
