/**
 * `dual-path` (seed 002 §3.10; SEMANTICS §3.7). Expected stacks are derived by hand from the
 * rules: a diverging path moves to the IPDOM with all its lanes, and an entry (rpc = IPDOM) with
 * the targets not at the IPDOM is pushed — both schedulable; an entry whose every path waits at
 * its rpc is popped. Rows top first; an entry's paths by ascending PC; masks lane W-1 first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Machine, MachineState } from '../machine/machine.ts';
import { divergentKernel, spinlockKernel } from '../../properties/arbitraries/kernels.ts';
import { machineOf, replay, runListing, reachable } from '../testing/run.ts';
import type { DualPathState } from './dualPath.ts';
import { laneTraces, prefixCompatible, FLAG_WAIT } from './mpIpdomTesting.ts';

const stack = (m: Machine, s: MachineState) =>
  (m.mechanism.view(s.warps[0]!.mech, m.fmt).data as { stack: unknown[] }).stack;
const entry = (rpc: string | null, ...paths: [string, string][]) => ({
  rpc,
  paths: paths.map(([pc, mask]) => ({ pc, mask })),
});
const verdictOf = (r: { verdict: string; kind: string | null }) =>
  r.kind ? `${r.verdict}/${r.kind}` : r.verdict;
const budget = { maxStates: 20_000, maxDepth: 2_000, timeoutMs: 10_000 };

const ifElse = [
  '// @warpcheck warp-size=4',
  '        S2R R0, SR_LANEID', // 0
  '        ISETP.LT.AND P0, PT, R0, 0x1, PT', // 1: lane 0 takes the branch
  '   @P0  BRA then', // 2: IPDOM join
  '        MOV R1, 0x2', // 3
  '        BRA join', // 4
  'then:',
  '        MOV R1, 0x1', // 5
  'join:',
  '        EXIT', // 6
].join('\n');

describe('dual-path: both sides of a branch at the top of the stack', () => {
  it('if/else: both paths are candidates; each waits at the IPDOM; the entry pops when both arrived', () => {
    const m = machineOf(ifElse, 'dual-path');
    const { states } = replay(m, [0, 0, 0, 1, 0, 0, 0]);
    expect(stack(m, states[3]!)).toEqual([
      entry('join', ['0x0030', '1110'], ['then', '0001']),
      entry(null, ['join', '1111']),
    ]);
    expect(m.successors(states[3]!).map((t) => t.issue)).toEqual([
      { pc: 3, mask: 0b1110 },
      { pc: 5, mask: 0b0001 },
    ]);
    // The taken path runs first here (choice 1) and waits at join; only the other path can issue.
    expect(stack(m, states[4]!)).toEqual([
      entry('join', ['0x0030', '1110'], ['join', '0001']),
      entry(null, ['join', '1111']),
    ]);
    expect(m.successors(states[4]!).map((t) => t.issue)).toEqual([{ pc: 3, mask: 0b1110 }]);
    expect(stack(m, states[5]!)).toEqual([
      entry('join', ['0x0040', '1110'], ['join', '0001']),
      entry(null, ['join', '1111']),
    ]);
    // Both at join: popped; the warp runs join reconverged.
    expect(stack(m, states[6]!)).toEqual([entry(null, ['join', '1111'])]);
    expect(m.status(states[7]!)).toBe('terminated');
  });

  it('nested divergence: only the top entry is schedulable (two paths, not three as on mp-ipdom)', () => {
    // seed004-nested's shape: A -> B | C, C -> D | E, D,E -> F, B,F -> G.
    const text = [
      '// @warpcheck warp-size=4',
      'A:',
      '        S2R R0, SR_LANEID',
      '        ISETP.LT.AND P0, PT, R0, 0x2, PT',
      '        ISETP.EQ.AND P1, PT, R0, 0x2, PT',
      '   @P0  BRA B',
      'C:',
      '   @P1  BRA D',
      'E:',
      '        IADD3 R1, R1, 0x3, RZ',
      '        BRA F',
      'D:',
      '        IADD3 R1, R1, 0x2, RZ',
      'F:',
      '        IADD3 R1, R1, 0x10, RZ',
      '        BRA G',
      'B:',
      '        IADD3 R1, R1, 0x1, RZ',
      'G:',
      '        EXIT',
    ].join('\n');
    const m = machineOf(text, 'dual-path');
    const { states } = replay(m, [0, 0, 0, 0, 0]);
    // C diverged: C's path moved to its IPDOM F in the outer entry; D and E on top.
    expect(stack(m, states[5]!)).toEqual([
      entry('F', ['E', '1000'], ['D', '0100']),
      entry('G', ['F', '1100'], ['B', '0011']),
      entry(null, ['G', '1111']),
    ]);
    expect(m.successors(states[5]!).length).toBe(2);
    expect(runListing(text, 'dual-path', { budget }).result.verdict).toBe('terminates');
  });

  it('a guarded CALL: the caller path waits at the return PC under a frame', () => {
    const text = [
      '// @warpcheck warp-size=2',
      '        S2R R0, SR_LANEID',
      '        ISETP.EQ.AND P0, PT, R0, RZ, PT',
      '        MOV R20, back',
      '   @P0  CALL.REL.NOINC f',
      'back:',
      '        EXIT',
      'f:',
      '        MOV R1, 0x7',
      '        RET.REL.NODEC R20 0x0',
    ].join('\n');
    const m = machineOf(text, 'dual-path');
    const { states } = replay(m, [0, 0, 0, 0, 0, 0, 0]);
    expect(stack(m, states[4]!)).toEqual([
      { rpc: 'call', paths: [{ pc: 'f', mask: '01' }] },
      entry(null, ['back', '11']),
    ]);
    expect(stack(m, states[6]!)).toEqual([entry(null, ['back', '11'])]);
    expect(m.status(states[7]!)).toBe('terminated');
  });
});

describe('dual-path and the spinlock (seed 000 §III)', () => {
  // Not terminating, for the reason of seed 000 §III: the lock holder's group lands on the IPDOM of
  // the loop branch (the fall-through), so it is not pushed as a path — it waits in the entry below
  // while the spinners' entry holds a single path. There is no second path to switch to.
  it('the spinlock family is a livelock for every warp of two or more lanes', () => {
    fc.assert(
      fc.property(spinlockKernel, ({ text, warpSize }) => {
        const v = verdictOf(runListing(text, 'dual-path', { budget }).result);
        expect(v).toBe(warpSize === 1 ? 'terminates' : 'deadlock/livelock');
      }),
      { seed: 3010, numRuns: 20 },
    );
  });
  it('a flag wait across the two paths of one branch terminates under path fairness', () => {
    expect(verdictOf(runListing(FLAG_WAIT, 'dual-path', { budget }).result)).toBe('terminates');
  });
});

/** Complete and disjoint on the dual-path stack; returns the problem or null. */
function partitionProblem(s: DualPathState, live: number): string | null {
  let below = live;
  for (let k = 0; k < s.length; k++) {
    const e = s[k]!;
    if (e.paths.length === 0 || e.paths.length > 2) return `entry ${k} has ${e.paths.length} paths`;
    let union = 0;
    for (const p of e.paths) {
      if (p.mask === 0) return `entry ${k} has an empty path`;
      if ((union & p.mask) !== 0) return `entry ${k}: paths overlap`;
      union |= p.mask;
    }
    if (k === 0 && union !== live) return 'the bottom entry does not hold exactly the live lanes';
    if ((union & ~below) >>> 0) return `entry ${k} holds lanes the entry below does not`;
    below = union;
  }
  return s.length === 0 && live !== 0 ? 'live lanes but no entry' : null;
}

describe('dual-path laws', () => {
  it('complete and disjoint: the bottom entry holds every live lane once; each entry within the one below', () => {
    fc.assert(
      fc.property(divergentKernel({ forwardOnly: false, maxSteps: 8 }), ({ text }) => {
        const m = machineOf(text, 'dual-path');
        for (const s of reachable(m, 1500)) {
          const [live] = m.live(s);
          expect(partitionProblem(s.warps[0]!.mech as DualPathState, live!), text).toBeNull();
        }
      }),
      { seed: 20261211, numRuns: 60 },
    );
  });
  it('per-lane traces equal its: every schedule on loop-free kernels, bounded prefixes with loops', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false }),
        fc.array(fc.nat({ max: 7 }), { minLength: 1, maxLength: 40 }),
        ({ text }, choices) => {
          const ref = laneTraces(machineOf(text, 'its'), () => 0, 300);
          const mine = laneTraces(
            machineOf(text, 'dual-path'),
            (i, n) => choices[i % choices.length]! % n,
            300,
          );
          if (ref.ended && mine.ended) expect(mine.traces, text).toEqual(ref.traces);
          else
            mine.traces.forEach((t, l) =>
              expect(prefixCompatible(t, ref.traces[l]!), text).toBe(true),
            );
        },
      ),
      { seed: 20261212, numRuns: 150 },
    );
  });
});
