/**
 * The issue core driven by a saved schedule (issue 15). Cycle counts are derived by hand from the
 * core's rules (write-back at issue + latency; one issue per cycle; a scheduled step with a hazard
 * waits), with the latencies set in each test.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScenario } from '../scenario/files.ts';
import { coreConfigOf } from '../scenario/replayCore.ts';
import { scenarioMachine } from '../scenario/session.ts';
import { machineOf, replay } from '../testing/run.ts';
import { createCore } from './core.ts';
import { coreConfig, SPINLOCK_W2 } from './coreTesting.ts';
import { followSchedule } from './followSchedule.ts';

const root = join(new URL('.', import.meta.url).pathname, '..', '..');
const jsonIn = (dir: string): string[] =>
  readdirSync(join(root, dir)).flatMap((f) => {
    const path = join(root, dir, f);
    if (statSync(path).isDirectory()) return jsonIn(join(dir, f));
    return f.endsWith('.json') ? [path] : [];
  });

/** The spinlock on simt-stack with lane 0 winning: the lasso the explorer saves (loop at 5). */
const SPIN_SCHEDULE = [0, 0, 0, 0, 0, 0, 0, 0];

describe('followSchedule: a livelock costs cycles per turn', () => {
  it('one turn of the SIMT-stack spinlock = CAS latency + ISETP latency + 1 (BRA) cycles', () => {
    // Per turn: CAS issues at t (R0 ready at t + shared); ISETP waits for R0 and issues at
    // t + shared (P0 ready at t + shared + alu); @P0 BRA waits for P0 and issues at
    // t + shared + alu; the next CAS issues the cycle after (R0's write has retired).
    for (const [shared, alu] of [
      [30, 4],
      [10, 2],
    ] as const) {
      const machine = machineOf(SPINLOCK_W2, 'simt-stack');
      const core = createCore(
        machine,
        coreConfig({ latencies: { alu, sfu: 20, shared, global: 200 } }),
      );
      const r = followSchedule(core, SPIN_SCHEDULE, 5, { maxCycles: 10_000, turns: 4 });
      expect(r.end).toEqual({ kind: 'livelock', turns: 4 });
      expect(r.turns.map((t) => t.cycles)).toEqual([1, 2, 3, 4].map(() => shared + alu + 1));
      // Three issues per turn, by the one spinning lane of two.
      expect(r.turns.every((t) => t.issued === 3 && t.activeLanes === 3)).toBe(true);
    }
  });
});

describe('followSchedule: the schedule decides, timing only delays', () => {
  it('two warps run in the schedule order; the slot is held while the other warp could issue', () => {
    // Warp 0 runs MOV, IADD3, EXIT, then warp 1 does (schedule index 0 is warp 0 while it lives).
    // alu = 4: c0 w0 MOV; c1–c3 w0 waits for R1 while w1 could issue (held 3); c4 IADD3; c5 EXIT;
    // c6 w1 MOV; c7–c9 wait (nothing else can issue: not held); c10 IADD3; c11 EXIT: 12 cycles.
    const text = `// @warpcheck warp-size=1 warps=2
	Function : chain
        MOV R1, 0x1 ;
        IADD3 R2, R1, 0x1, RZ ;
        EXIT ;
`;
    const core = createCore(machineOf(text, 'simt-stack'), coreConfig());
    const r = followSchedule(core, [0, 0, 0, 0, 0, 0], null, { maxCycles: 1000, record: true });
    expect(r.end).toEqual({ kind: 'terminated' });
    expect(r.counters.cycles).toBe(12);
    expect(r.counters.idle).toBe(6);
    expect(r.held).toBe(3);
    expect(r.issues.map((i) => [i.cycle, i.warp])).toEqual([
      [0, 0],
      [4, 0],
      [5, 0],
      [6, 1],
      [10, 1],
      [11, 1],
    ]);
  });

  it('follows an atomic winner the core would not pick itself (a later alternative)', () => {
    // With atomicOrder explore, the CAS offers one step per winning lane; the schedule takes the
    // last, so lane 1 gets the lock, not the core's default lane 0.
    const machine = machineOf(SPINLOCK_W2, 'its', { atomicOrder: 'explore' });
    const schedule: number[] = [];
    let s = machine.initial();
    let later = 0;
    for (let i = 0; i < 40 && machine.status(s) === 'running'; i++) {
      const succ = machine.successors(s);
      const c = succ.length - 1;
      if (c > 0 && succ[c]!.group === succ[0]!.group) later++;
      schedule.push(c);
      s = succ[c]!.next!;
    }
    expect(later).toBeGreaterThan(0);
    const r = followSchedule(createCore(machine, coreConfig()), schedule, null, {
      maxCycles: 10_000,
    });
    expect(r.steps).toBe(schedule.length);
    expect(machine.key(r.state.machine)).toBe(machine.key(s));
  });

  it('every saved scenario: the timed run reaches the state the schedule reaches', () => {
    const files = [...jsonIn('scenarios'), ...jsonIn('counterexamples')];
    expect(files.length).toBeGreaterThan(30);
    for (const file of files) {
      const sc = readScenario(file);
      if (!sc.ok) throw new Error(file);
      const m = scenarioMachine(sc.value, file);
      if (!m.ok) throw new Error(file);
      const config = sc.value.core ? coreConfigOf(sc.value.core) : coreConfig();
      const loop = sc.value.loop ?? null;
      const r = followSchedule(createCore(m.machine, config), sc.value.schedule, loop, {
        maxCycles: 100_000,
        turns: 2,
      });
      expect(r.end.kind, file).not.toBe('cannot-follow');
      const steps =
        loop === null
          ? sc.value.schedule
          : [...sc.value.schedule, ...sc.value.schedule.slice(loop), sc.value.schedule[loop]!];
      const { states } = replay(m.machine, steps.slice(0, r.steps));
      expect(m.machine.key(r.state.machine), file).toBe(m.machine.key(states[states.length - 1]!));
    }
  });
});

describe('followSchedule: where the core cannot follow, it says at which step', () => {
  it('a choice the state does not offer', () => {
    const core = createCore(machineOf(SPINLOCK_W2, 'simt-stack'), coreConfig());
    const r = followSchedule(core, [0, 7], null, { maxCycles: 100 });
    expect(r.end).toMatchObject({ kind: 'cannot-follow', step: 2 });
    expect(r.end.kind === 'cannot-follow' && r.end.reason).toMatch(/choice 7 does not exist/);
    expect(r.steps).toBe(1);
  });
  it('a schedule that goes on after every lane exited', () => {
    const text = `// @warpcheck warp-size=1 warps=1
	Function : one
        EXIT ;
`;
    const core = createCore(machineOf(text, 'simt-stack'), coreConfig());
    const r = followSchedule(core, [0, 0], null, { maxCycles: 100 });
    expect(r.end).toMatchObject({ kind: 'cannot-follow', step: 2 });
    expect(r.end.kind === 'cannot-follow' && r.end.reason).toMatch(/already terminated/);
  });
});
