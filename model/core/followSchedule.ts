import type { MachineState, Stop } from '../machine/machine.ts';
import {
  scheduleOf,
  type Core,
  type CoreCounters,
  type CoreState,
  type IssueRecord,
} from './core.ts';

/**
 * The issue core driven by a saved schedule (issue 15): where the core has a choice — which warp
 * gets the slot, which of a warp's paths issues, which lane wins an atomic — the scenario's
 * schedule decides, so the timed run is the counterexample's interleaving with cycles attached.
 * Timing still decides *when*: a scheduled step whose registers are not ready waits (the cycle
 * stalls; the other warps are held back so that the order stays the schedule's), and every issue
 * is the machine's own step, so the run reaches the scenario's states (checked against the core's
 * trail). One issue per cycle: a schedule is a total order of issues.
 *
 * A livelock (`loop` set: a lasso) runs its prefix, then `turns` turns of the cycle, then the
 * first step of one more turn, so that every turn is timed from the issue of its first step to the
 * issue of the next turn's first step.
 */
export interface FollowOptions {
  readonly maxCycles: number;
  /** Turns of a livelock's cycle to run (default 3). */
  readonly turns?: number;
  /**
   * Cycles a scheduled step may wait for its registers before the run stops as one the core
   * cannot follow (default: 4 × the longest configured latency + 64; a pending write always
   * retires within the longest latency, so only a core that never lets the step issue reaches it).
   */
  readonly maxWait?: number;
  /** Keep every issue record. */
  readonly record?: boolean;
}

export type FollowEnd =
  | { readonly kind: 'terminated' }
  /** Lanes remain and nothing can issue: a blocked deadlock. */
  | { readonly kind: 'blocked' }
  /** The schedule ended with lanes still running (a law counterexample cut in a running state). */
  | { readonly kind: 'schedule-end' }
  /** A lasso: `turns` turns of its cycle were run (it would go on forever). */
  | { readonly kind: 'livelock'; readonly turns: number }
  /** The step (1-based) ended the run with a machine verdict or a timing violation. */
  | { readonly kind: 'stop'; readonly step: number; readonly stop: Stop }
  /** The core cannot take step `step` (1-based) of the schedule. */
  | { readonly kind: 'cannot-follow'; readonly step: number; readonly reason: string }
  | { readonly kind: 'bound-reached'; readonly maxCycles: number };

/** One turn of a livelock's cycle on the core. */
export interface TurnTiming {
  /** 1-based. */
  readonly turn: number;
  /** Cycle in which the turn's first step issued. */
  readonly start: number;
  /** Cycles to the issue of the next turn's first step. */
  readonly cycles: number;
  readonly issued: number;
  /** Sum of active lanes over the turn's issues. */
  readonly activeLanes: number;
}

export interface FollowResult {
  readonly end: FollowEnd;
  readonly state: CoreState;
  readonly counters: CoreCounters;
  readonly ipc: number;
  readonly simdEfficiency: number;
  /** Schedule steps issued (a step that issued and then showed a timing violation counts). */
  readonly steps: number;
  /**
   * Cycles in which the scheduled step waited although the core could have issued another
   * (warp, path): what following the schedule cost against the core's own scheduler.
   */
  readonly held: number;
  /** A livelock's turns, in order (empty otherwise). */
  readonly turns: readonly TurnTiming[];
  readonly issues: readonly IssueRecord[];
}

/** The (warp, index in `warpSteps`) of machine choice `c` in state `ms`, or how many choices exist. */
function locate(core: Core, ms: MachineState, c: number): { warp: number; step: number } | number {
  const m = core.machine;
  let base = 0;
  for (let k = 0; k < m.launch.warps; k++) {
    const n = m.warpSteps(k, ms.warps[k]!, ms.memory).steps.length;
    if (c < base + n) return { warp: k, step: c - base };
    base += n;
  }
  return base;
}

/** Runs `schedule` (with `loop`, a lasso) on `core`; see the module comment. */
export function followSchedule(
  core: Core,
  schedule: readonly number[],
  loop: number | null,
  options: FollowOptions,
): FollowResult {
  const turns = loop === null ? 0 : Math.max(1, options.turns ?? 3);
  const cycleLen = loop === null ? 0 : schedule.length - loop;
  if (loop !== null && cycleLen <= 0)
    throw new Error(`followSchedule: loop ${loop} leaves no cycle in ${schedule.length} steps`);
  // The steps to issue: the schedule, or a lasso's prefix, `turns` turns and one more first step.
  const steps: number[] =
    loop === null
      ? [...schedule]
      : [
          ...schedule.slice(0, loop),
          ...Array.from({ length: turns }, () => schedule.slice(loop)).flat(),
          schedule[loop]!,
        ];
  const l = core.config.latencies;
  const maxWait = options.maxWait ?? 4 * Math.max(l.alu, l.sfu, l.shared, l.global) + 64;
  let s = core.initial();
  const issues: IssueRecord[] = [];
  const starts: { cycle: number; issued: number; activeLanes: number }[] = [];
  let held = 0;
  let waited = 0;
  let i = 0;
  let end: FollowEnd | null = null;
  while (end === null && i < steps.length) {
    if (s.cycle >= options.maxCycles) {
      end = { kind: 'bound-reached', maxCycles: options.maxCycles };
      break;
    }
    const status = core.machine.status(s.machine);
    if (status !== 'running') {
      end = {
        kind: 'cannot-follow',
        step: i + 1,
        reason: `the run has already ${status === 'terminated' ? 'terminated (every lane exited)' : 'blocked (nothing can issue)'}, but the schedule goes on`,
      };
      break;
    }
    const at = locate(core, s.machine, steps[i]!);
    if (typeof at === 'number') {
      end = {
        kind: 'cannot-follow',
        step: i + 1,
        reason: `choice ${steps[i]} does not exist (the state offers ${at}); the scenario does not fit this program, mechanism or launch`,
      };
      break;
    }
    const before = s;
    const r = core.stepCycle(s, at);
    s = r.state;
    if (r.kind === 'stop') {
      if (options.record && r.issued) issues.push(...r.issued);
      end = { kind: 'stop', step: i + 1, stop: r.stop };
      // A timing violation (war-hazard) stops after its step issued; a machine stop before.
      if (r.issued && r.issued.length > 0) i++;
      break;
    }
    if (r.kind !== 'running') {
      // stepCycle ends a run only when the machine status says so, checked above.
      end = { kind: r.kind === 'terminated' ? 'terminated' : 'blocked' };
      break;
    }
    if (r.issued.length === 0) {
      // The scheduled step waits on the scoreboard (or a collector unit).
      if (core.options(before).length > 0) held++;
      if (++waited > maxWait) {
        end = {
          kind: 'cannot-follow',
          step: i + 1,
          reason: `warp ${at.warp} was offered the slot for ${maxWait} cycles and never issued the scheduled step (the core never lets it issue)`,
        };
        break;
      }
      continue;
    }
    waited = 0;
    if (options.record) issues.push(...r.issued);
    if (loop !== null && i >= loop && (i - loop) % cycleLen === 0)
      starts.push({
        cycle: r.issued[0]!.cycle,
        issued: before.counters.issued,
        activeLanes: before.counters.activeLanes,
      });
    i++;
  }
  if (end === null) {
    const status = core.machine.status(s.machine);
    end =
      loop !== null
        ? { kind: 'livelock', turns }
        : status === 'terminated'
          ? { kind: 'terminated' }
          : status === 'blocked'
            ? { kind: 'blocked' }
            : { kind: 'schedule-end' };
  }
  // Sanity: the core took exactly the scheduled machine steps (timing never changes what issues).
  const took = scheduleOf(s);
  if (took.some((c, k) => c !== steps[k]))
    throw new Error(`followSchedule: the core took [${took.join(', ')}], not the schedule`);
  const timed: TurnTiming[] = [];
  for (let t = 0; t + 1 < starts.length; t++)
    timed.push({
      turn: t + 1,
      start: starts[t]!.cycle,
      cycles: starts[t + 1]!.cycle - starts[t]!.cycle,
      issued: starts[t + 1]!.issued - starts[t]!.issued,
      activeLanes: starts[t + 1]!.activeLanes - starts[t]!.activeLanes,
    });
  const c = s.counters;
  return {
    end,
    state: s,
    counters: c,
    ipc: c.cycles === 0 ? 0 : c.issued / c.cycles,
    simdEfficiency:
      c.issued === 0
        ? 0
        : c.activeLanes / (c.issued * (core.machine.blockLaunch ?? core.machine.launch).warpSize),
    steps: i,
    held,
    turns: timed,
    issues,
  };
}
