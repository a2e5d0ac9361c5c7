import { formatThreads } from '../mechanisms/threadMask.ts';
import { isDeepStrictEqual } from 'node:util';
import type { Machine, MachineState, Stop } from '../machine/machine.ts';
import type { StateView } from '../mechanisms/mechanism.ts';
import type { DeadlockKind, Verdict } from '../explore/verdict.ts';
import { issuedText } from './issuedText.ts';
import type { Scenario } from './schema.ts';

/** One replayed step: who issued what, which choice, and every warp's state after it. */
export interface ReplayStep {
  /** 1-based step number. */
  readonly step: number;
  readonly choice: number;
  /** How many choices the state offered. */
  readonly choices: number;
  readonly warp: number;
  readonly pc: string;
  readonly mask: string;
  readonly issueMask: number;
  readonly instruction: string;
  /** Data alternative (unknown predicate outcome, atomic winner), if any. */
  readonly alternative: string | null;
  readonly views: readonly StateView[];
  readonly stop: Stop | null;
}

export interface ReplayRun {
  readonly initial: readonly StateView[];
  readonly steps: readonly ReplayStep[];
  /** The verdict the schedule shows; `incomplete` when it ends with lanes still running. */
  readonly verdict: Verdict | 'incomplete';
  readonly kind: DeadlockKind | null;
  readonly property: string | null;
  readonly message: string;
  /** Every way the run differs from the scenario's expectations; empty when it matches. */
  readonly mismatches: readonly string[];
  /** Set when the replay stopped at its time limit (`timeoutMs`) before the schedule ended. */
  readonly limit?: string;
}

/**
 * Replays a scenario's schedule on a machine, step by step (DESIGN.md: `replay` takes the file
 * alone). Deterministic: every choice is an index into `machine.successors`, in a fixed order.
 */
export function replay(
  machine: Machine,
  scenario: Scenario,
  limits: { readonly timeoutMs?: number } = {},
): ReplayRun {
  const deadline = limits.timeoutMs === undefined ? Infinity : Date.now() + limits.timeoutMs;
  let limit: string | undefined;
  const fmt = machine.fmt;
  // Each warp's mechanism view, then (when refinement is checked) the reference's, as an extra table.
  const views = (s: MachineState) =>
    s.warps.map((w) => {
      const v = machine.mechanism.view(w.mech, fmt);
      const r = machine.referenceView(w);
      return r
        ? {
            ...v,
            tables: [
              ...v.tables,
              ...r.tables.map((t) => ({ ...t, title: `reference (its): ${t.title}` })),
            ],
          }
        : v;
    });
  let state = machine.initial();
  const initial = views(state);
  const steps: ReplayStep[] = [];
  const keys: string[] = [machine.behaviourKey(state)];
  const statesSeen: MachineState[] = [state];
  const mismatches: string[] = [];
  let stop: Stop | null = null;
  let diverged: string | null = null;
  for (let i = 0; i < scenario.schedule.length; i++) {
    const c = scenario.schedule[i]!;
    // The time limit (issue 14, fault 5), checked every 256 steps.
    if ((i & 255) === 255 && Date.now() > deadline) {
      limit = `the replay stopped after ${i} of ${scenario.schedule.length} steps: time limit of ${limits.timeoutMs! / 1000} s`;
      diverged = limit;
      break;
    }
    const succ = machine.successors(state);
    if (c >= succ.length) {
      diverged = `step ${i + 1}: choice ${c} does not exist (the state offers ${succ.length}); the scenario does not fit this program or mechanism`;
      break;
    }
    const t = succ[c]!;
    // A merged issue (`Issue.merged`, opcode-convergent) prints as `pc ∩ pc2` with the union mask.
    const merged = t.issue.merged;
    const printed = (pc: number) => issuedText(machine.program, pc, fmt.pc);
    if (t.next) {
      state = t.next;
      keys.push(machine.behaviourKey(state));
      statesSeen.push(state);
    }
    steps.push({
      step: i + 1,
      choice: c,
      choices: succ.length,
      warp: t.warp,
      pc: merged ? `${fmt.pc(t.issue.pc)} ∩ ${fmt.pc(merged.pc)}` : fmt.pc(t.issue.pc),
      // On the block machine (K·W > 32) an issue names its threads (`Issue.threads`).
      mask:
        t.issue.threads && machine.blockLaunch
          ? formatThreads(
              { warps: machine.blockLaunch.warps, warpSize: machine.blockLaunch.warpSize },
              t.issue.threads,
            )
          : fmt.mask(merged ? (t.issue.mask | merged.mask) >>> 0 : t.issue.mask),
      issueMask: merged ? (t.issue.mask | merged.mask) >>> 0 : t.issue.mask,
      instruction: merged ? `${printed(t.issue.pc)} ∩ ${printed(merged.pc)}` : printed(t.issue.pc),
      alternative: t.choice,
      views: views(state),
      stop: t.stop,
    });
    if (t.stop) {
      stop = t.stop;
      if (i !== scenario.schedule.length - 1)
        diverged = `step ${i + 1} ends the run, but the schedule goes on`;
      break;
    }
  }
  let verdict: ReplayRun['verdict'];
  let kind: DeadlockKind | null = null;
  let property: string | null = null;
  let message: string;
  const loop = scenario.loop ?? null;
  if (diverged) {
    verdict = 'incomplete';
    message = diverged;
  } else if (stop) {
    verdict = stop.verdict;
    property = stop.property ?? null;
    message = stop.message;
  } else if (loop !== null) {
    const cycle = cycleCheck(machine, statesSeen, keys, loop, steps);
    verdict = cycle === null ? 'deadlock' : 'incomplete';
    kind = cycle === null ? 'livelock' : null;
    message =
      cycle ??
      `the cycle from step ${loop} returns to the same state (equal in every value that can still reach control) and is fair: it can repeat forever`;
  } else {
    const status = machine.status(state);
    verdict =
      status === 'terminated' ? 'terminates' : status === 'blocked' ? 'deadlock' : 'incomplete';
    kind = status === 'blocked' ? 'blocked' : null;
    message =
      status === 'terminated'
        ? 'every lane exited'
        : status === 'blocked'
          ? 'nothing can issue while lanes remain'
          : 'the schedule ended while lanes were still running';
  }
  const exp = scenario.expect;
  if (
    verdict !== exp.verdict ||
    (exp.kind ?? null) !== kind ||
    (exp.property != null && exp.property !== property)
  )
    mismatches.push(
      `expected ${exp.verdict}${exp.kind ? ` (${exp.kind})` : ''}${exp.property ? ` of ${exp.property}` : ''}, got ${verdict}${kind ? ` (${kind})` : ''}${property ? ` of ${property}` : ''}: ${message}`,
    );
  for (const e of exp.states ?? []) {
    const at = e.step === 0 ? { views: initial } : steps[e.step - 1];
    if (!at) {
      mismatches.push(
        `expected state at step ${e.step}, but the replay has only ${steps.length} steps`,
      );
      continue;
    }
    const s = e.step === 0 ? null : steps[e.step - 1]!;
    if (e.issue && s && (s.pc !== e.issue.pc || s.mask !== e.issue.mask))
      mismatches.push(
        `step ${e.step}: expected issue ${e.issue.pc} ${e.issue.mask}, got ${s.pc} ${s.mask}`,
      );
    const view = at.views[e.warp ?? 0];
    if (e.state !== undefined && !isDeepStrictEqual(view?.data, e.state))
      mismatches.push(
        `step ${e.step}: expected state ${JSON.stringify(e.state)}, got ${JSON.stringify(view?.data)}`,
      );
  }
  return {
    initial,
    steps,
    verdict,
    kind,
    property,
    message,
    mismatches,
    ...(limit ? { limit } : {}),
  };
}

/**
 * Checks a lasso: the state after the last step equals the state at `loop`, and the cycle is fair
 * (every warp — and for lane-fair mechanisms every lane — enabled throughout is taken in it).
 * Returns null when it holds, else why not.
 */
function cycleCheck(
  machine: Machine,
  states: readonly MachineState[],
  keys: readonly string[],
  loop: number,
  steps: readonly ReplayStep[],
): string | null {
  if (loop >= keys.length - 1) return `the loop index ${loop} leaves no cycle`;
  if (keys[keys.length - 1] !== keys[loop])
    return `the cycle from step ${loop} does not return to the state it started in`;
  const mech = machine.mechanism;
  const cycleStates = states.slice(loop, states.length - 1);
  const cycleSteps = steps.slice(loop);
  for (let w = 0; w < machine.launch.warps; w++) {
    const always = cycleStates.every((s) => mech.candidates(s.warps[w]!.mech).length > 0);
    if (always && !cycleSteps.some((st) => st.warp === w))
      return `the cycle is unfair: warp ${w} could always issue but never does`;
    if (mech.laneFairness) {
      let ready = 0xffffffff;
      for (const s of cycleStates) ready &= mech.ready(s.warps[w]!.mech);
      for (const st of cycleSteps) if (st.warp === w) ready &= ~st.issueMask;
      if (ready >>> 0 !== 0)
        return `the cycle is unfair: lanes ${machine.fmt.mask(ready >>> 0)} of warp ${w} were always ready but never issued`;
    }
  }
  return null;
}
