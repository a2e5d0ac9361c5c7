/**
 * `mp-ipdom` (seed 004; SEMANTICS §3.6) beyond the paper scenarios (`scenarios/seed004.test.ts`):
 * CALL/RET frames, lanes that exit inside a split, the foreign-instruction policy, the spinlock,
 * and property laws on generated kernels. Expected tables are derived by hand from the rules: a
 * divergent split adds an RT entry (IPDOM, mask, mask) unless the IPDOM is its own entry's PC; a
 * split at its entry's PC leaves the ST and is subtracted from the pending mask; an entry with
 * nothing pending returns to the ST as (PC, reconvergence mask, parent). Masks print lane W-1 first.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explore } from '../explore/exhaustive.ts';
import type { Machine, MachineState } from '../machine/machine.ts';
import { divergentKernel, spinlockKernel } from '../../properties/arbitraries/kernels.ts';
import { machineOf, replay, runListing, reachable } from '../testing/run.ts';
import type { MpIpdomState } from './mpIpdom.ts';
import { laneTraces, prefixCompatible, FLAG_WAIT } from './mpIpdomTesting.ts';

const tables = (m: Machine, s: MachineState) =>
  m.mechanism.view(s.warps[0]!.mech, m.fmt).data as { st: unknown[]; rt: unknown[] };
const verdictOf = (r: { verdict: string; kind: string | null }) =>
  r.kind ? `${r.verdict}/${r.kind}` : r.verdict;
const budget = { maxStates: 20_000, maxDepth: 2_000, timeoutMs: 10_000 };

describe('mp-ipdom: CALL/RET frames', () => {
  const text = [
    '// @warpcheck warp-size=2',
    '        S2R R0, SR_LANEID', // 0
    '        ISETP.EQ.AND P0, PT, R0, RZ, PT', // 1: lane 0 calls
    '        MOV R20, back', // 2
    '   @P0  CALL.REL.NOINC f', // 3
    'back:',
    '        EXIT', // 4
    'f:',
    '        MOV R1, 0x7', // 5
    '        RET.REL.NODEC R20 0x0', // 6
  ].join('\n');
  it('a guarded CALL: the callers run the callee under a frame entry; the split resumes at the return PC', () => {
    const m = machineOf(text, 'mp-ipdom');
    const { states } = replay(m, [0, 0, 0, 0, 0, 0, 0]);
    // After the CALL: lane 0 in f, under frame entry 0 (return PC back, all lanes, lane 0 pending).
    expect(tables(m, states[4]!)).toEqual({
      st: [{ pc: 'f', mask: '01', r: 0 }],
      rt: [{ pc: 'back', frame: true, rpc: null, rec: '11', pending: '01', parent: null }],
    });
    // RET: lane 0 leaves the frame's pending mask, which empties: (back, 11) is a split again.
    expect(tables(m, states[6]!)).toEqual({ st: [{ pc: 'back', mask: '11', r: null }], rt: [] });
    expect(m.status(states[7]!)).toBe('terminated');
  });
});

describe('mp-ipdom: lanes that exit inside a split', () => {
  const text = [
    '// @warpcheck warp-size=4',
    '        S2R R0, SR_LANEID',
    '        ISETP.LT.AND P0, PT, R0, 0x2, PT', // lanes 0, 1
    '        ISETP.EQ.AND P1, PT, R0, RZ, PT', // lane 0
    '   @P0  BRA T', // 3: IPDOM J
    '        MOV R1, 0x2', // 4
    '        BRA J', // 5
    'T:',
    '   @P1  EXIT', // 6: lane 0 exits
    '        MOV R1, 0x1', // 7
    'J:',
    '        EXIT', // 8
  ].join('\n');
  it('leave every split and entry; the entry goes away once its last lane exited', () => {
    // The guarded EXIT puts an exit edge on T's path, so the IPDOM of the branch is the virtual
    // exit ('-'), not J: the RT entry waits at the exit, the splits never arrive there, and both run
    // their own EXIT at J (as on simt-stack, IPDOM reconvergence is lost behind an EXIT).
    const m = machineOf(text, 'mp-ipdom');
    const { states } = replay(m, [0, 0, 0, 0, 1, 1, 0, 0, 0, 0]);
    const X = (rec: string) => ({ pc: '-', rpc: null, rec, pending: rec, parent: null });
    // Lane 0 exits at T: it leaves the split (0011 -> 0010) and both masks of the entry.
    expect(tables(m, states[5]!)).toEqual({
      st: [
        { pc: '0x0040', mask: '1100', r: 0 },
        { pc: '0x0070', mask: '0010', r: 0 },
      ],
      rt: [X('1110')],
    });
    expect(tables(m, states[6]!)).toEqual({
      st: [
        { pc: '0x0040', mask: '1100', r: 0 },
        { pc: 'J', mask: '0010', r: 0 },
      ],
      rt: [X('1110')],
    });
    // Both splits at J, not merged (only an RT entry reconverges), lower mask first.
    expect(tables(m, states[8]!)).toEqual({
      st: [
        { pc: 'J', mask: '0010', r: 0 },
        { pc: 'J', mask: '1100', r: 0 },
      ],
      rt: [X('1110')],
    });
    expect(tables(m, states[9]!)).toEqual({
      st: [{ pc: 'J', mask: '1100', r: 0 }],
      rt: [X('1100')],
    });
    // The last lanes exit: the entry's masks empty, it goes away without a split.
    expect(tables(m, states[10]!)).toEqual({ st: [], rt: [] });
    expect(m.status(states[10]!)).toBe('terminated');
  });
});

describe('mp-ipdom: foreign instructions (SEMANTICS §2, as simt-stack)', () => {
  const ws = (mask: string) =>
    [
      '// @warpcheck warp-size=4',
      '        S2R R0, SR_LANEID',
      '        ISETP.LT.AND P0, PT, R0, 0x2, PT',
      '   @P0  BRA T',
      `        WARPSYNC ${mask}`,
      '        BRA J',
      'T:',
      '        NOP',
      'J:',
      '        EXIT',
    ].join('\n');
  it('WARPSYNC naming lanes of another split is a violation (no split can wait); check can be turned off', () => {
    const r = runListing(ws('0xf'), 'mp-ipdom', { budget }).result;
    expect(r.verdict).toBe('violation');
    expect(r.findings[0]!.property).toBe('warpsync-check');
    expect(runListing(ws('0xc'), 'mp-ipdom', { budget }).result.verdict).toBe('terminates');
    const off = runListing(ws('0xf'), 'mp-ipdom', { budget, options: { warpsync: 'nop' } });
    expect(off.result.verdict).toBe('terminates');
  });
  it('BSSY/BSYNC are no-ops by default and unsupported with foreign=reject', () => {
    const text = [
      '// @warpcheck warp-size=2',
      '        BSSY B0, J',
      '        S2R R0, SR_LANEID',
      '        ISETP.EQ.AND P0, PT, R0, RZ, PT',
      '   @P0  BRA J',
      '        NOP',
      'J:',
      '        BSYNC B0',
      '        EXIT',
    ].join('\n');
    expect(runListing(text, 'mp-ipdom', { budget }).result.verdict).toBe('terminates');
    const rej = runListing(text, 'mp-ipdom', { budget, options: { foreign: 'reject' } });
    expect(rej.result.verdict).toBe('unsupported');
  });
});

describe('mp-ipdom and the spinlock (seed 000 §III)', () => {
  // Does the free choice of split let the spinlock terminate? No. The loop branch `@P0 BRA acquire`
  // diverges when one lane wins the CAS; its IPDOM is the instruction after it (the loop exit). The
  // winner's group lands exactly on that IPDOM, i.e. on the PC of the new RT entry, so by the rule
  // "a split whose pc equals its entry's pc leaves the ST" it is never a split: it waits in the RT,
  // pending only on the spinners. The spinners are then the only split, their branch is uniform
  // (all retry), the CAS keeps failing because the holder never reaches the release, and the state
  // repeats. The cycle is fair — the holder is in no split, so it is never ready (weak fairness
  // among splits says nothing about it). Hence deadlock/livelock, as on simt-stack.
  it('scenarios/spinlock.sass: a livelock on mp-ipdom, dual-path and lcp (and simt-stack), terminates on its', () => {
    const text = readFileSync(new URL('../../scenarios/spinlock.sass', import.meta.url), 'utf8');
    for (const mech of ['mp-ipdom', 'dual-path', 'lcp', 'simt-stack'])
      expect(verdictOf(runListing(text, mech, { budget }).result), mech).toBe('deadlock/livelock');
    expect(runListing(text, 'its', { budget }).result.verdict).toBe('terminates');
  });
  it('the spinlock listing is a livelock', () => {
    const r = runListing(
      [
        '// @warpcheck warp-size=4 mem[0x100]=0',
        '        MOV R2, 0x100 ;',
        '        MOV R3, 0x1 ;',
        'acquire:',
        '        ATOMS.CAS R0, [R2], RZ, R3 ;',
        '        ISETP.NE.AND P0, PT, R0, RZ, PT ;',
        '   @P0  BRA acquire ;',
        '        ATOMS.EXCH RZ, [R2], RZ ;',
        '        EXIT ;',
      ].join('\n'),
      'mp-ipdom',
      { budget },
    ).result;
    expect(verdictOf(r)).toBe('deadlock/livelock');
  });
  it('the whole spinlock family: livelock for every warp of two or more lanes', () => {
    fc.assert(
      fc.property(spinlockKernel, ({ text, warpSize }) => {
        const v = verdictOf(runListing(text, 'mp-ipdom', { budget }).result);
        expect(v).toBe(warpSize === 1 ? 'terminates' : 'deadlock/livelock');
      }),
      { seed: 4004, numRuns: 20 },
    );
  });
  // Where both sides of the divergence are splits, the choice does matter: lane 0 raises a flag the
  // other lanes spin on. On simt-stack with the taken path (the spinners) first, the flag is never
  // raised; on mp-ipdom the raiser's split is ready in every state of the spin loop, so weak
  // fairness forces it to run, and every fair run terminates.
  it('a flag wait across two splits terminates under split fairness (simt-stack taken-first does not)', () => {
    expect(verdictOf(runListing(FLAG_WAIT, 'simt-stack', { budget }).result)).toBe(
      'deadlock/livelock',
    );
    expect(verdictOf(runListing(FLAG_WAIT, 'mp-ipdom', { budget }).result)).toBe('terminates');
  });
});

/** Checks SEMANTICS §3.6's complete-and-disjoint invariant on one state; returns the problem or null. */
function partitionProblem(s: MpIpdomState, live: number, W: number): string | null {
  const inSplit = new Map<number, number>();
  for (let k = 0; k < s.st.length; k++) {
    const sp = s.st[k]!;
    if (sp.mask === 0) return `split ${k} is empty`;
    if ((sp.mask & ~live) >>> 0) return `split ${k} holds a lane that is not live`;
    for (let l = 0; l < W; l++)
      if ((sp.mask >>> l) & 1) {
        if (inSplit.has(l)) return `lane ${l} is in two splits`;
        inSplit.set(l, k);
      }
    const e = sp.r >= 0 ? s.rt[sp.r] : null;
    if (e && !e.frame && e.pc === sp.pc) return `split ${k} sits at its entry's PC`;
  }
  for (const e of s.rt) {
    if ((e.pending & ~e.rec) >>> 0) return 'pending ⊄ reconvergence mask';
    if ((e.rec & ~live) >>> 0) return 'an RT entry holds a lane that is not live';
    if (e.pending === 0) return 'an RT entry has nothing pending';
  }
  const chain = (r: number): Set<number> => {
    const c = new Set<number>();
    for (let i = r; i >= 0; i = s.rt[i]!.parent) c.add(i);
    return c;
  };
  for (let l = 0; l < W; l++) {
    if (!((live >>> l) & 1)) continue;
    const bit = (m: number) => ((m >>> l) & 1) === 1;
    let pendingAt: Set<number>;
    if (inSplit.has(l)) pendingAt = chain(s.st[inSplit.get(l)!]!.r);
    else {
      // Waiting: exactly one entry holds it in its reconvergence mask and not in pending.
      const waits = s.rt.flatMap((e, i) => (bit(e.rec) && !bit(e.pending) ? [i] : []));
      if (waits.length !== 1)
        return `lane ${l} is in no split and waits at ${waits.length} RT entries`;
      pendingAt = chain(s.rt[waits[0]!]!.parent);
    }
    for (let i = 0; i < s.rt.length; i++)
      if (bit(s.rt[i]!.pending) !== pendingAt.has(i))
        return `lane ${l}: pending at entry ${i} is ${bit(s.rt[i]!.pending)}, its chain says ${pendingAt.has(i)}`;
  }
  return null;
}

describe('law: complete and disjoint (seed 001 §2; SEMANTICS §3)', () => {
  it('every live lane is in exactly one split, or waits at exactly one RT entry; pending masks follow the R-Index chains', () => {
    fc.assert(
      fc.property(divergentKernel({ forwardOnly: false, maxSteps: 8 }), ({ text, warpSize }) => {
        const m = machineOf(text, 'mp-ipdom');
        for (const s of reachable(m, 1500)) {
          const [live] = m.live(s);
          const problem = partitionProblem(s.warps[0]!.mech as MpIpdomState, live!, warpSize);
          expect(problem, text).toBeNull();
        }
      }),
      { seed: 20261201, numRuns: 60 },
    );
  });
});

describe('law: per-lane traces equal its on lanes that never communicate', () => {
  it('loop-free kernels: every schedule of mp-ipdom gives each lane the PCs its gives it', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: true }),
        fc.array(fc.nat({ max: 7 }), { minLength: 1, maxLength: 40 }),
        ({ text }, choices) => {
          const ref = laneTraces(machineOf(text, 'its'), () => 0);
          const mine = laneTraces(
            machineOf(text, 'mp-ipdom'),
            (i, n) => choices[i % choices.length]! % n,
          );
          expect(ref.ended && mine.ended).toBe(true);
          expect(mine.traces).toEqual(ref.traces);
        },
      ),
      { seed: 20261202, numRuns: 120 },
    );
  });
  it('kernels with loops: bounded runs agree lane by lane up to the shorter trace', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false }),
        fc.array(fc.nat({ max: 7 }), { minLength: 1, maxLength: 40 }),
        ({ text }, choices) => {
          const ref = laneTraces(machineOf(text, 'its'), () => 0, 300);
          const mine = laneTraces(
            machineOf(text, 'mp-ipdom'),
            (i, n) => choices[i % choices.length]! % n,
            300,
          );
          mine.traces.forEach((t, l) =>
            expect(prefixCompatible(t, ref.traces[l]!), text).toBe(true),
          );
        },
      ),
      { seed: 20261203, numRuns: 100 },
    );
  });
});

describe('the dead-value reduction keeps mp-ipdom verdicts (lanePcs contract)', () => {
  it('reduced and plain searches agree on generated kernels', () => {
    fc.assert(
      fc.property(divergentKernel({ forwardOnly: false, maxSteps: 8 }), ({ text }) => {
        const m = machineOf(text, 'mp-ipdom');
        const plain = explore(m, budget, undefined, { reduce: { deadValues: false } });
        const reduced = explore(m, budget, undefined, { reduce: { deadValues: true } });
        fc.pre(plain.bound === null && reduced.bound === null);
        expect(verdictOf(reduced)).toBe(verdictOf(plain));
      }),
      { seed: 20261204, numRuns: 40 },
    );
  });
});
