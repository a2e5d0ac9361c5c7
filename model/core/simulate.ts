import type { Stop } from '../machine/machine.ts';
import type { Core, CoreCounters, CoreState, IssueRecord, StallRecord } from './core.ts';

/** How a simulation ended (SEMANTICS §6 verdicts; a cycle budget is `bound-reached`, never `terminates`). */
export type SimulationEnd =
  | { readonly kind: 'terminated' }
  | { readonly kind: 'blocked' }
  | { readonly kind: 'stop'; readonly stop: Stop }
  | { readonly kind: 'bound-reached'; readonly bound: 'cycles' | 'time' };

export interface SimulationResult {
  readonly end: SimulationEnd;
  readonly state: CoreState;
  readonly counters: CoreCounters;
  /** Issued instructions per cycle. */
  readonly ipc: number;
  /** Mean active lanes per issued instruction / warp size. */
  readonly simdEfficiency: number;
  /** Every issue, when `record` was asked for. */
  readonly issues: readonly IssueRecord[];
  /** Every stall, when `record` was asked for. */
  readonly stalls: readonly StallRecord[];
  readonly timeMs: number;
}

export interface SimulationBudget {
  readonly maxCycles: number;
  readonly timeoutMs: number;
  readonly record?: boolean;
}

export const DEFAULT_SIMULATION_BUDGET: SimulationBudget = {
  maxCycles: 1_000_000,
  timeoutMs: 30_000,
};

/** Runs the core cycle by cycle until every lane exits, the warps block, a stop, or a budget. */
export function simulate(
  core: Core,
  budget: SimulationBudget = DEFAULT_SIMULATION_BUDGET,
): SimulationResult {
  const t0 = performance.now();
  let s = core.initial();
  const issues: IssueRecord[] = [];
  const stalls: StallRecord[] = [];
  let end: SimulationEnd | null = null;
  while (end === null) {
    if (s.cycle >= budget.maxCycles) {
      end = { kind: 'bound-reached', bound: 'cycles' };
      break;
    }
    if ((s.cycle & 1023) === 0 && performance.now() - t0 > budget.timeoutMs) {
      end = { kind: 'bound-reached', bound: 'time' };
      break;
    }
    const r = core.stepCycle(s);
    s = r.state;
    switch (r.kind) {
      case 'running':
        if (budget.record) {
          issues.push(...r.issued);
          stalls.push(...r.stalled);
        }
        break;
      case 'terminated':
        end = { kind: 'terminated' };
        break;
      case 'blocked':
        end = { kind: 'blocked' };
        break;
      case 'stop':
        if (budget.record && r.issued) issues.push(...r.issued);
        end = { kind: 'stop', stop: r.stop };
        break;
    }
  }
  const c = s.counters;
  // A block mechanism's formed warps are W lanes wide, though its block view has K·W lanes.
  const w = (core.machine.blockLaunch ?? core.machine.launch).warpSize;
  return {
    end,
    state: s,
    counters: c,
    ipc: c.cycles === 0 ? 0 : c.issued / c.cycles,
    simdEfficiency: c.issued === 0 ? 0 : c.activeLanes / (c.issued * w),
    issues,
    stalls,
    timeMs: performance.now() - t0,
  };
}
