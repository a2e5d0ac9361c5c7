/**
 * `dws` — dynamic warp subdivision (seed 002 §3.9; docs/semantics.md "dws") beyond the paper
 * scenarios (`scenarios/seed002-fig28-*.dws.json`, `scenarios/seed001-fig1[ef].dws.json`): the
 * warp-split invariants over every reachable state, subdivision, running past the IPDOM,
 * re-merging, CALL/RET, exits, the spinlock under fairness, and seed 001 Fig. 1e/1f (parallel
 * traversal) set against `mp-ipdom`. Expected values are derived by hand from the rules: a
 * divergent split is replaced by one split per next (PC, call depth); splits never wait; splits at
 * one (PC, depth) re-merge. Masks print lane W-1 first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore } from '../explore/exhaustive.ts';
import type { Machine, MachineState } from '../machine/machine.ts';
import { machineOf, reachable, replay } from '../testing/run.ts';
import type { DwsState } from './dws.ts';
import type { MpIpdomState } from './mpIpdom.ts';

const scenarios = join(new URL('.', import.meta.url).pathname, '..', '..', 'scenarios');
const read = (f: string) => readFileSync(join(scenarios, f), 'utf8');
const FIG1 = read('seed001-fig1.sass');
const FIG28 = read('seed002-fig28.sass');
const budget = { maxStates: 50_000, maxDepth: 2_000, timeoutMs: 20_000 };
const verdictOf = (r: { verdict: string; kind: string | null }) =>
  r.kind ? `${r.verdict}/${r.kind}` : r.verdict;

const splitsOf = (m: Machine, s: MachineState) =>
  (m.mechanism.view(s.warps[0]!.mech, m.fmt).data as { splits: unknown[] }).splits;

/** Why the warp-split table of `s` breaks an invariant of dws.ts, or null. */
function problem(m: Machine, s: MachineState): string | null {
  const st = s.warps[0]!.mech as DwsState;
  let seen = 0;
  for (let i = 0; i < st.splits.length; i++) {
    const sp = st.splits[i]!;
    if (sp.mask === 0) return 'an empty split';
    if ((seen & sp.mask) !== 0) return 'two splits share a lane';
    seen = (seen | sp.mask) >>> 0;
    const prev = st.splits[i - 1];
    if (prev && !(prev.pc < sp.pc || (prev.pc === sp.pc && prev.depth < sp.depth)))
      return 'not sorted by (pc, depth), or two splits at one place';
  }
  return seen === m.live(s)[0]! >>> 0 ? null : 'the splits do not hold exactly the live lanes';
}

describe('dws: warp-split invariants in every reachable state', () => {
  for (const [name, text] of [
    ['Fig. 1', FIG1],
    ['Fig. 28', FIG28],
    ['spinlock', read('spinlock.sass')],
    ['loop with break', read('matrix/loop-break.sass')],
    ['recursion', read('matrix/recursion.sass')],
  ] as const)
    it(name, () => {
      const m = machineOf(text, 'dws');
      const states = reachable(m, 5000);
      expect(states.length).toBeGreaterThan(3);
      for (const s of states) expect(problem(m, s)).toBeNull();
    });
});

describe('dws: subdivision, running ahead, re-merging (seed 002 §3.9)', () => {
  it('a divergent branch makes two independently schedulable splits', () => {
    const m = machineOf(FIG28, 'dws');
    const { states } = replay(m, [0, 0, 0]);
    expect(splitsOf(m, states[3]!)).toEqual([
      { pc: 'B', mask: '1100', depth: 0 },
      { pc: 'C', mask: '0011', depth: 0 },
    ]);
    // Both offered: the scheduler (here, the explorer) may take either.
    expect(m.successors(states[3]!).map((t) => m.fmt.pc(t.issue.pc))).toEqual(['B', 'C']);
  });

  it('a split goes past the IPDOM (F) without waiting for its sibling', () => {
    // B (lanes 2,3) runs MOV, BRA F: it is at F, the IPDOM; C has not moved. Then F and G issue
    // for lanes 2,3 alone — "allowed to go beyond the immediate post dominator".
    const m = machineOf(FIG28, 'dws');
    const { states } = replay(m, [0, 0, 0, 0, 0, 1, 1]);
    expect(splitsOf(m, states[5]!)).toEqual([
      { pc: 'C', mask: '0011', depth: 0 },
      { pc: 'F', mask: '1100', depth: 0 },
    ]);
    expect(splitsOf(m, states[7]!)).toEqual([
      { pc: 'C', mask: '0011', depth: 0 },
      { pc: '0x0090', mask: '1100', depth: 0 },
    ]);
  });

  it('splits that meet at one PC re-merge', () => {
    const m = machineOf(FIG28, 'dws');
    const { states } = replay(m, [0, 0, 0, 0, 0, 0, 0]);
    // B waits at F only because it was not scheduled; C's IADD3 brings lanes 0,1 to F too.
    expect(splitsOf(m, states[7]!)).toEqual([{ pc: 'F', mask: '1111', depth: 0 }]);
  });

  it('nested divergence subdivides again: three splits', () => {
    // Fig. 1: A splits into B (0,2,3) and D (1); B splits into C (0) and D (2,3), which meets
    // thread 1's split if it is still at D (re-merge) — here it is.
    const m = machineOf(FIG1, 'dws');
    const { states } = replay(m, [0, 0, 0, 0]);
    expect(splitsOf(m, states[4]!)).toEqual([
      { pc: 'C', mask: '0001', depth: 0 },
      { pc: 'D', mask: '1110', depth: 0 },
    ]);
    const far = replay(m, [0, 0, 1, 0, 0]).states[5]!;
    // Thread 1 went on to E first: three splits, D (2,3) does not meet it.
    expect(splitsOf(m, far)).toEqual([
      { pc: 'C', mask: '0001', depth: 0 },
      { pc: 'D', mask: '1100', depth: 0 },
      { pc: 'E', mask: '0010', depth: 0 },
    ]);
  });

  it('CALL/RET: a split at a deeper call depth does not merge with one at the same PC', () => {
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
    const m = machineOf(text, 'dws');
    const { states } = replay(m, [0, 0, 0, 0]);
    expect(splitsOf(m, states[4]!)).toEqual([
      { pc: 'back', mask: '10', depth: 0 },
      { pc: 'f', mask: '01', depth: 1 },
    ]);
    // Lane 0 returns to `back` while lane 1 still waits there: same PC and depth — re-merged.
    const back = replay(m, [0, 0, 0, 0, 1, 1]).states[6]!;
    expect(splitsOf(m, back)).toEqual([{ pc: 'back', mask: '11', depth: 0 }]);
  });
});

describe('dws: verdicts', () => {
  it('the spinlock terminates: fairness per split lets the lock holder run', () => {
    // seed 000 §III: the holder and the spinners are in different splits; a fair scheduler
    // (weak fairness per split, `laneFairness`) runs the holder, unlike mp-ipdom, where it waits
    // in the Reconvergence Table at the loop exit.
    const text = read('spinlock.sass');
    expect(verdictOf(explore(machineOf(text, 'dws'), budget))).toBe('terminates');
    expect(verdictOf(explore(machineOf(text, 'mp-ipdom'), budget))).toBe('deadlock/livelock');
  });

  it('a WARPSYNC naming lanes of another split is a violation (a split cannot wait)', () => {
    const text = read('matrix/warpsync-partial.sass');
    expect(explore(machineOf(text, 'dws'), budget).verdict).toBe('violation');
  });
});

describe('seed 001 §2.5, Fig. 1e/1f: parallel traversal (the Multi-Path family)', () => {
  // Fig. 1 is an image in our copy. §2.5: "a list of path allows toggling paths easily between
  // active and passive state. Convergence remains challenging ... block D is traversed twice on
  // the example of Figure 1f." Under parallel traversal whether D runs once or twice depends on
  // the interleaving: our reading is that Fig. 1e shows a run where threads 2,3 reach D while
  // thread 1 still waits there (D once), Fig. 1f one where thread 1 ran D first (D twice).
  const dIssues = (m: Machine, schedule: number[]) => {
    const { states } = replay(m, schedule);
    const out: string[] = [];
    schedule.forEach((k, i) => {
      const issue = m.successors(states[i]!)[k]!.issue;
      if (m.fmt.pc(issue.pc) === 'D') out.push(m.fmt.mask(issue.mask));
    });
    return out;
  };

  it('dws: D once (Fig. 1e) or twice (Fig. 1f), by interleaving', () => {
    const m = machineOf(FIG1, 'dws');
    expect(dIssues(m, [0, 0, 0, 0, 0, 0, 0, 0, 0])).toEqual(['1110']);
    expect(dIssues(m, [0, 0, 1, 0, 0, 1, 0, 0, 0, 0])).toEqual(['0010', '1100']);
  });

  it('mp-ipdom: D twice in every run (the two D splits wait for E under one RT entry, never merge)', () => {
    const m = machineOf(FIG1, 'mp-ipdom');
    for (const s of reachable(m, 5000)) {
      const st = (s.warps[0]!.mech as MpIpdomState).st;
      for (const sp of st)
        if (m.fmt.pc(sp.pc) === 'D') expect(['0010', '1100']).toContain(m.fmt.mask(sp.mask));
    }
  });
});

describe('dws reconverge=ipdom: the splits of a divergence wait for each other at its IPDOM', () => {
  const ipdom = { options: { reconverge: 'ipdom' } };

  it('Fig. 28: the split that reaches F first waits there; F issues once, for the whole warp', () => {
    const m = machineOf(FIG28, 'dws', ipdom);
    const atF = new Set<string>();
    for (const s of reachable(m, 5000))
      for (const t of m.successors(s))
        if (m.fmt.pc(t.issue.pc) === 'F') atF.add(m.fmt.mask(t.issue.mask));
    expect([...atF]).toEqual(['1111']);
  });

  it('Fig. 1: splits at one PC under one reconvergence entry re-merge (mp-ipdom keeps them apart)', () => {
    // A's branch: entry E (1111), splits B (1101) and D (0010); B's branch has the same IPDOM, so
    // it reuses the entry (seed 004 Step2A): C (0001) and D (1100) join the D split already there.
    const table = (mech: string, o = {}) => {
      const m = machineOf(FIG1, mech, o);
      return m.mechanism.view(replay(m, [0, 0, 0, 0]).states[4]!.warps[0]!.mech, m.fmt).data;
    };
    const rt = [{ pc: 'E', rpc: null, rec: '1111', pending: '1111', parent: null }];
    expect(table('dws', ipdom)).toEqual({
      st: [
        { pc: 'C', mask: '0001', r: 0 },
        { pc: 'D', mask: '1110', r: 0 },
      ],
      rt,
    });
    expect(table('mp-ipdom')).toEqual({
      st: [
        { pc: 'C', mask: '0001', r: 0 },
        { pc: 'D', mask: '0010', r: 0 },
        { pc: 'D', mask: '1100', r: 0 },
      ],
      rt,
    });
  });

  it('the spinlock livelocks: waiting at the loop exit parks the holder, as on mp-ipdom', () => {
    const text = read('spinlock.sass');
    expect(verdictOf(explore(machineOf(text, 'dws', ipdom), budget))).toBe('deadlock/livelock');
  });
});
