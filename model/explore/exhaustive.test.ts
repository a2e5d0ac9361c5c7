/**
 * Explorer verdicts (SEMANTICS §6) on tiny listings whose state spaces can be counted by hand.
 * Every finding's schedule is replayed through `Machine.successors` and must reach the same
 * outcome; livelock lassos must return to the state where their cycle starts.
 */
import { describe, expect, it } from 'vitest';
import type { Machine, MachineState } from '../machine/machine.ts';
import { machineOf, replay, runListing } from '../testing/run.ts';
import { defaultBudget, explore, noReductions, type ExploreResult } from './exhaustive.ts';
import { readWord } from '../lanes/index.ts';

/** Replays every finding and checks it ends as reported. */
function checkReplays(machine: Machine, result: ExploreResult): void {
  for (const f of result.findings) {
    const { states, last } = replay(machine, f.schedule);
    const end = states.at(-1)!;
    if (f.loop !== null) {
      expect(f.verdict).toBe('deadlock');
      expect(f.kind).toBe('livelock');
      expect(f.schedule.length).toBeGreaterThan(f.loop);
      expect(last?.stop ?? null).toBeNull();
      expect(states).toHaveLength(f.schedule.length + 1);
      expect(machine.behaviourKey(states[f.loop]!)).toBe(machine.behaviourKey(end));
      checkFairCycle(machine, states.slice(f.loop, -1), f.schedule.slice(f.loop));
    } else if (f.verdict === 'terminates') {
      expect(machine.status(end)).toBe('terminated');
    } else if (f.verdict === 'deadlock') {
      expect(machine.status(end)).toBe('blocked');
    } else {
      expect(last?.stop?.verdict, f.message).toBe(f.verdict);
    }
  }
}

/**
 * Weak fairness of a cycle (SEMANTICS §3.1, §6): a warp that can issue in every state of the cycle
 * issues somewhere in it; under `its` (lane fairness) so does every lane that is ready throughout.
 */
function checkFairCycle(machine: Machine, states: MachineState[], choices: readonly number[]) {
  const K = machine.launch.warps;
  let alwaysEnabled = (1 << K) - 1;
  const alwaysReady = new Array<number>(K).fill(0xffffffff);
  let issuedWarps = 0;
  const issuedLanes = new Array<number>(K).fill(0);
  states.forEach((s, i) => {
    const succ = machine.successors(s);
    let enabled = 0;
    const ready = new Array<number>(K).fill(0);
    for (const t of succ) {
      enabled |= 1 << t.warp;
      ready[t.warp] = (ready[t.warp]! | t.issue.mask) >>> 0;
    }
    alwaysEnabled &= enabled;
    for (let w = 0; w < K; w++) alwaysReady[w] = (alwaysReady[w]! & ready[w]!) >>> 0;
    const t = succ[choices[i]!]!;
    issuedWarps |= 1 << t.warp;
    issuedLanes[t.warp] = (issuedLanes[t.warp]! | t.issue.mask) >>> 0;
  });
  expect(alwaysEnabled & ~issuedWarps, 'a warp enabled throughout the cycle never issues').toBe(0);
  if (machine.mechanism.id === 'its')
    for (let w = 0; w < K; w++)
      expect(
        (alwaysReady[w]! & ~issuedLanes[w]!) >>> 0,
        `warp ${w}: a ready lane never issues`,
      ).toBe(0);
}

describe('straight-line code terminates with a countable state space', () => {
  const straight = '// @warpcheck warp-size=4\nMOV R1, 0x1\nEXIT';

  it('its (maximal) and simt-stack: initial, after MOV, after EXIT = 3 states', () => {
    for (const mech of ['its', 'simt-stack']) {
      const { machine, result } = runListing(straight, mech);
      expect(result.verdict, mech).toBe('terminates');
      expect(result.kind).toBeNull();
      expect(result.states, mech).toBe(3);
      expect(result.transitions, mech).toBe(2);
      expect(result.terminalStates).toBe(1);
      expect(result.bound).toBeNull();
      expect(result.findings.map((f) => f.schedule)).toEqual([[0, 0]]);
      checkReplays(machine, result);
    }
  });

  it('its grouping=single, 2 lanes: each lane at pc 0, pc 1 or exited, independently', () => {
    const machine = machineOf(straight, 'its', {
      options: { grouping: 'single' },
      launch: { warpSize: 2 },
    });
    const result = explore(machine, defaultBudget, undefined, { reduce: { partialOrder: false } });
    expect(result.verdict).toBe('terminates');
    expect(result.states).toBe(3 * 3);
    // One transition per (state, live lane): lane l is live in 2·3 states.
    expect(result.transitions).toBe(2 * 6);
    expect(result.depth).toBe(4);
    // Partial-order reduction (docs/semantics.md §14): a lane's MOV is local and runs alone, the
    // EXITs are not. (0,0) → lane 0's MOV → (1,0) → lane 1's MOV → (1,1), where both EXITs
    // interleave: (X,1), (1,X), (X,X). 6 states, 1 + 1 + 2 + 1 + 1 transitions.
    const reduced = explore(machine);
    expect(reduced.verdict).toBe('terminates');
    expect([reduced.states, reduced.transitions, reduced.depth]).toEqual([6, 6, 4]);
  });

  it('its (maximal) after a divergent branch: 8 states', () => {
    const text = [
      '// @warpcheck warp-size=2',
      'S2R R0, SR_LANEID', // 0
      'ISETP.EQ.AND P0, PT, R0, RZ, PT', // 1: lane 0
      '@P0 BRA L', // 2: lane 0 → 4, lane 1 → 3
      'MOV R1, 0x1', // 3
      'L:',
      'EXIT', // 4
    ].join('\n');
    // (pc0, pc1) → (1,1) → (2,2) → (4,3); then either lane 1 MOVs → (4,4) → both EXIT together,
    // or lane 0 exits → (X,3) → (X,4) → (X,X): 8 states, 8 transitions.
    // Every state stored (EXIT priority and acceleration would shorten lane 1's MOV and EXIT).
    const its = runListing(text, 'its', { reduce: { exitPriority: false, accelerate: false } });
    expect(its.result.verdict).toBe('terminates');
    expect(its.result.states).toBe(8);
    expect(its.result.transitions).toBe(8);
    checkReplays(its.machine, its.result);
    // EXIT priority (groupPriority.ts): at (4,3) lane 0 waits at an unguarded EXIT, so it exits
    // alone: (4,4) is never reached — 7 states, 6 transitions (the left-out MOV is no transition).
    const reduced = runListing(text, 'its', { reduce: { accelerate: false } });
    expect([reduced.result.states, reduced.result.transitions]).toEqual([7, 6]);
    // Two warp states pick an exiting group: (4,3), and (X,4) where lane 1's exit is the only step.
    expect(reduced.result.exitPriority?.applied).toBe(2);
    checkReplays(reduced.machine, reduced.result);
    // simt-stack: one path. The taken lane is already at the IPDOM (L) and is not pushed.
    const simt = runListing(text, 'simt-stack', { reduce: { accelerate: false } });
    expect(simt.result.states).toBe(6);
  });
});

describe('livelock: a loop that never exits', () => {
  const loop = [
    '// @warpcheck warp-size=2',
    'MOV R1, 0x0', // 0
    'loop:',
    'LOP3.LUT R1, R1, 0x1, RZ, 0x3c, !PT', // 1: R1 ^= 1
    'BRA loop', // 2
  ].join('\n');

  it('deadlock/livelock with a lasso whose cycle returns to its start', () => {
    for (const mech of ['its', 'simt-stack']) {
      // Every state stored (acceleration.test.ts counts the accelerated search).
      const { machine, result } = runListing(loop, mech, { reduce: { accelerate: false } });
      expect(result.verdict, mech).toBe('deadlock');
      expect(result.kind, mech).toBe('livelock');
      // R1 never reaches control (no branch reads it: liveness.ts, relevance), so a state is its
      // PC alone: pc0, pc1, pc2, then pc1 again.
      expect(result.states, mech).toBe(3);
      const f = result.findings[0]!;
      expect(f.loop).toBe(1); // one step (the MOV) into the cycle
      expect(f.schedule).toHaveLength(1 + 2); // the only cycle has 2 states
      checkReplays(machine, result);
    }
  });
});

/** Lane 0 (or warp 0) spins on [0x100]; lane 1 (or warp 1) sets it. */
const spin = (header: string, sreg: string) =>
  [
    `// @warpcheck ${header}`,
    `        S2R R0, ${sreg}`, // 0
    '        ISETP.EQ.AND P0, PT, R0, RZ, PT', // 1: thread 0 waits
    '   @P0  BRA wait', // 2
    '        MOV R2, 0x1', // 3: the setter
    '        STS [0x100], R2', // 4
    '        EXIT', // 5
    'wait:',
    '        LDS R1, [0x100]', // 6
    '        ISETP.EQ.AND P1, PT, R1, RZ, PT', // 7
    '   @P1  BRA wait', // 8
    '        EXIT', // 9
  ].join('\n');

describe('fairness: spinning on a flag that another lane or warp sets', () => {
  const lanes = spin('warp-size=2', 'SR_LANEID');

  it('its terminates although a cycle exists: the setter lane is ready and never taken in it', () => {
    const { machine, result } = runListing(lanes, 'its');
    expect(result.verdict).toBe('terminates');
    expect(result.findings.map((f) => f.verdict)).toEqual(['terminates']);
    checkReplays(machine, result);
    // The unfair cycle: after the branch, choice 1 is lane 0 (pc 6..8 > pc 3). Three spins of
    // lane 0 after the first (which sets P1) return to the same state; lane 1 waits at pc 3.
    const { states } = replay(machine, [0, 0, 0, 1, 1, 1, 1, 1, 1]);
    expect(machine.key(states[6]!)).toBe(machine.key(states[9]!));
    for (const s of states.slice(6))
      expect(machine.successors(s).map((t) => t.issue)).toContainEqual({ pc: 3, mask: 0b10 });
  });

  it('simt-stack, taken-first: the waiter runs first and spins forever (livelock)', () => {
    const { machine, result } = runListing(lanes, 'simt-stack');
    expect(result.verdict).toBe('deadlock');
    expect(result.kind).toBe('livelock');
    checkReplays(machine, result);
    // Every step of the cycle issues lane 0 alone.
    const f = result.findings[0]!;
    const { states } = replay(machine, f.schedule);
    for (let i = f.loop!; i < f.schedule.length; i++)
      expect(machine.successors(states[i]!)[f.schedule[i]!]!.issue.mask).toBe(0b01);
  });

  it('simt-stack, not-taken-first: the setter runs first; terminates', () => {
    const { result } = runListing(lanes, 'simt-stack', { options: { order: 'not-taken-first' } });
    expect(result.verdict).toBe('terminates');
  });

  it('two warps under simt-stack: warp fairness lets the setter warp run; terminates', () => {
    const warps = spin('warp-size=1 warps=2', 'SR_TID.X');
    for (const mech of ['simt-stack', 'its']) {
      const { machine, result } = runListing(warps, mech);
      expect(result.verdict, mech).toBe('terminates');
      checkReplays(machine, result);
    }
  });
});

describe('unknown branch outcomes are fair (SEMANTICS §5)', () => {
  it('a loop that exits on an unknown value is not a livelock', () => {
    const text = [
      '// @warpcheck warp-size=1',
      'loop:',
      'FADD R1, R2, R3', // unknown
      'ISETP.GT.AND P0, PT, R1, RZ, PT',
      '@P0 BRA loop',
      'EXIT',
    ].join('\n');
    for (const mech of ['its', 'simt-stack']) {
      const { result } = runListing(text, mech);
      expect(result.verdict, mech).toBe('terminates');
      expect(result.notes.length, mech).toBeGreaterThan(0);
    }
  });

  it('a loop that repeats whichever way its unknown branch goes is a livelock', () => {
    const text = [
      '// @warpcheck warp-size=1',
      'loop:',
      'FADD R1, R2, R3',
      'ISETP.GT.AND P0, PT, R1, RZ, PT',
      '@P0 BRA skip',
      'NOP',
      'skip:',
      'BRA loop',
    ].join('\n');
    const { machine, result } = runListing(text, 'its');
    expect(result.verdict).toBe('deadlock');
    expect(result.kind).toBe('livelock');
    checkReplays(machine, result);
  });

  // Lane 0 sets and clears a flag until lane 1 says it is done; lane 1 spins while the flag is
  // clear and, when it sees it set, takes an unknown branch: back to the spin, or out to say done.
  // Derived by hand: lane 1 may read the flag only while it is clear, forever, while lane 0 goes
  // round — both lanes issue on that cycle (weakly fair) and it takes no unknown branch at all, so
  // it is a livelock under SEMANTICS §5. It shares its strongly connected component with the
  // unknown branch, whose "done" outcome leaves the component: judging the component whole
  // (before the fix) dropped the cycle and reported `terminates`.
  const besideUnknown = [
    '// @warpcheck warp-size=2 mem[0x100]=0 mem[0x200]=0',
    '        S2R R0, SR_LANEID',
    '        ISETP.EQ.AND P3, PT, R0, RZ, PT',
    '   @!P3 BRA spin_or_stop',
    '        MOV R5, 0x1',
    'toggle:',
    '        STS [0x100], R5', // the flag set
    '        STS [0x100], RZ', // and cleared
    '        LDS R6, [0x200]',
    '        ISETP.EQ.AND P2, PT, R6, RZ, PT',
    '   @P2  BRA toggle', // until lane 1 is done
    '        EXIT',
    'spin_or_stop:',
    '        FADD R1, R2, R3', // unknown
    '        ISETP.GT.AND P0, PT, R1, RZ, PT',
    '   @P0  BRA spin', // unknown: spin again, or
    '        MOV R7, 0x1',
    '        STS [0x200], R7', // say done
    '        EXIT',
    'spin:',
    '        LDS R8, [0x100]',
    '        ISETP.EQ.AND P1, PT, R8, RZ, PT',
    '   @P1  BRA spin', // while the flag is clear
    '        BRA spin_or_stop',
  ].join('\n');

  for (const [name, reduce] of [
    ['every reduction', undefined],
    ['no reduction', noReductions],
  ] as const)
    it(`a fair cycle beside an unknown branch that leaves its component is a livelock (${name})`, () => {
      const { machine, result } = runListing(besideUnknown, 'its', reduce ? { reduce } : {});
      expect(result.verdict).toBe('deadlock');
      expect(result.kind).toBe('livelock');
      checkReplays(machine, result);
      // The lasso's cycle takes no unknown branch: it is fair whichever way they go.
      const f = result.findings.find((x) => x.loop !== null)!;
      let s = machine.initial();
      f.schedule.forEach((choice, i) => {
        const t = machine.successors(s)[choice]!;
        if (i >= f.loop!) expect(t.unknownChoice, `step ${i}`).toBe(false);
        s = t.next!;
      });
      // Terminating runs remain (lane 1 says done): both outcomes are reported.
      expect(result.findings.map((x) => x.verdict)).toContain('terminates');
    });
});

/** Lane 0 writes the flag; lane 1 reads it and traps if it is already set. */
const race = [
  '// @warpcheck warp-size=2',
  '        S2R R0, SR_LANEID', // 0
  '        ISETP.EQ.AND P0, PT, R0, RZ, PT', // 1
  '   @P0  BRA first', // 2
  '        LDS R1, [0x100]', // 3
  '        ISETP.NE.AND P1, PT, R1, RZ, PT', // 4
  '   @P1  BPT.TRAP 0x1', // 5
  '        EXIT', // 6
  'first:',
  '        MOV R2, 0x1', // 7
  '        STS [0x100], R2', // 8
  '        EXIT', // 9
].join('\n');

describe('verdict priority and shortest schedules', () => {
  it('some interleavings trap, others terminate: trap', () => {
    // Shortest schedules of the plain search; EXIT priority (on by default) exits lane 0 right
    // after its STS, which makes the trap's schedule one step longer (9).
    const { machine, result } = runListing(race, 'its', { reduce: { exitPriority: false } });
    expect(result.verdict).toBe('trap');
    expect(result.findings.map((f) => f.verdict)).toEqual(['trap', 'terminates']);
    checkReplays(machine, result);
    // Shortest: 3 common steps, lane 0's MOV and STS, lane 1's LDS, ISETP and the trap = 8.
    expect(result.findings[0]!.schedule).toHaveLength(8);
    // Shortest termination: 3 + lane 0's 3 + lane 1's 4 (PCs never coincide again) = 10.
    expect(result.findings[1]!.schedule).toHaveLength(10);
  });

  it('simt-stack: the path order decides (taken-first writes first: trap)', () => {
    expect(runListing(race, 'simt-stack').result.verdict).toBe('trap');
    expect(
      runListing(race, 'simt-stack', { options: { order: 'not-taken-first' } }).result.verdict,
    ).toBe('terminates');
  });

  it('undefined behavior ranks before trap', () => {
    // As `race`, but lane 1 jumps to offset 4 (not an instruction) when it does not trap.
    const text = race.replace(
      '        EXIT', // the first EXIT: lane 1's
      '        MOV R8, 0x4\n        BRX R8',
    );
    const { machine, result } = runListing(text, 'its');
    expect(result.verdict).toBe('undefined-behavior');
    expect(result.findings.map((f) => f.verdict)).toEqual(['undefined-behavior', 'trap']);
    checkReplays(machine, result);
  });

  it('BPT.TRAP on every path', () => {
    const { machine, result } = runListing(
      '// @warpcheck warp-size=2\nNOP\nBPT.TRAP 0x1\nEXIT',
      'its',
    );
    expect(result.verdict).toBe('trap');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]!.schedule).toEqual([0, 0]);
    checkReplays(machine, result);
  });

  it('a violation ranks before termination', () => {
    // Lanes 0, 1 may reach the WARPSYNC while lanes 2, 3 are still live (taken-first).
    const text = [
      '// @warpcheck warp-size=4',
      'S2R R0, SR_LANEID',
      'ISETP.LT.AND P0, PT, R0, 0x2, PT',
      '@P0 BRA then',
      'EXIT',
      'then:',
      'WARPSYNC 0xf',
      'EXIT',
    ].join('\n');
    const { machine, result } = runListing(text, 'simt-stack');
    expect(result.verdict).toBe('violation');
    expect(result.findings[0]).toMatchObject({ property: 'warpsync-check' });
    checkReplays(machine, result);
  });
});

describe('lassos are fair cycles', () => {
  it('its grouping=single, two lanes looping: the cycle issues both lanes', () => {
    const text = '// @warpcheck warp-size=2\nloop:\nNOP\nBRA loop';
    const { machine, result } = runListing(text, 'its', { options: { grouping: 'single' } });
    expect(result.verdict).toBe('deadlock');
    expect(result.kind).toBe('livelock');
    // Each lane is at pc 0 or 1, independently: 4 states, all in one cycle.
    expect(result.states).toBe(4);
    checkReplays(machine, result);
  });

  it('two warps looping forever under simt-stack: the cycle issues both warps', () => {
    const text = '// @warpcheck warp-size=2 warps=2\nloop:\nNOP\nBRA loop';
    const { machine, result } = runListing(text, 'simt-stack');
    expect(result.kind).toBe('livelock');
    // Each warp at NOP or BRA: 4 states; with warp symmetry (default) the two mixed ones are one.
    expect(result.states).toBe(3);
    checkReplays(machine, result);
  });
});

describe('the spinlock of seed 000 Fig. 3 (§III: SIMT-induced deadlock; §IV: terminates under ITS)', () => {
  const spinlock = [
    '// @warpcheck warp-size=4 mem[0x100]=0 mem[0x200]=0',
    '        MOV R2, 0x100',
    '        MOV R3, 0x1',
    '.L_acquire:',
    '        ATOMS.CAS R0, [R2], RZ, R3',
    '        ISETP.NE.AND P0, PT, R0, RZ, PT',
    '   @P0  BRA `(.L_acquire)',
    '        MOV R4, 0x200',
    '        ATOMS.ADD R5, [R4], R3',
    '        ATOMS.EXCH RZ, [R2], RZ',
    '        EXIT',
  ].join('\n');

  it('its terminates, and every lane got the lock once (counter = 4)', () => {
    for (const atomicOrder of ['ascending', 'explore'] as const) {
      const { machine, result } = runListing(spinlock, 'its', { atomicOrder });
      expect(result.verdict, atomicOrder).toBe('terminates');
      checkReplays(machine, result);
      const { states } = replay(machine, result.findings[0]!.schedule);
      expect(readWord(states.at(-1)!.memory, 0x200)).toBe(4);
      expect(readWord(states.at(-1)!.memory, 0x100)).toBe(0);
    }
  });

  it('simt-stack livelocks with every path order: the lock holder waits at the IPDOM', () => {
    for (const order of ['taken-first', 'not-taken-first', 'majority-first', 'minority-first']) {
      const { machine, result } = runListing(spinlock, 'simt-stack', { options: { order } });
      expect(result.verdict, order).toBe('deadlock');
      expect(result.kind, order).toBe('livelock');
      checkReplays(machine, result);
    }
  });
});

describe('budgets', () => {
  it('too few states: bound-reached, never terminates', () => {
    const { result } = runListing(race, 'its', { budget: { maxStates: 5 } });
    expect(result.verdict).toBe('bound-reached');
    expect(result.bound).toBe('states');
  });

  it('too shallow: bound-reached (depth)', () => {
    const text = '// @warpcheck warp-size=1\nNOP\nNOP\nNOP\nNOP\nEXIT';
    // Without acceleration every NOP is a level (with it, the NOPs are one chain: 2 levels).
    const plain = { reduce: { accelerate: false } } as const;
    const { result } = runListing(text, 'its', { budget: { maxDepth: 3 }, ...plain });
    expect(result.verdict).toBe('bound-reached');
    expect(result.bound).toBe('depth');
    expect(runListing(text, 'its', { budget: { maxDepth: 5 }, ...plain }).result.verdict).toBe(
      'terminates',
    );
    expect(runListing(text, 'its', { budget: { maxDepth: 3 } }).result.verdict).toBe('terminates');
  });

  it('no time: bound-reached (time)', () => {
    const { result } = runListing(race, 'its', { budget: { timeoutMs: -1 } });
    expect(result.verdict).toBe('bound-reached');
    expect(result.bound).toBe('time');
  });

  it('a worse finding before the bound keeps its verdict', () => {
    // The trap is 8 steps deep; termination needs 10. With depth 8 the trap is found.
    const { result } = runListing(race, 'its', {
      budget: { maxDepth: 8 },
      reduce: { exitPriority: false, accelerate: false },
    });
    expect(result.bound).toBe('depth');
    expect(result.verdict).toBe('trap');
  });
});
