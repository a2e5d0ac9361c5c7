import { createCore, scheduleOf, type CoreConfig, type CoreState } from '../core/core.ts';
import { DEFAULT_LATENCIES } from '../core/latency.ts';
import type { Board } from '../core/scoreboard.ts';
import { issuedText } from './issuedText.ts';
import type { Machine } from '../machine/machine.ts';
import type { Scenario } from './schema.ts';

/** One issue on the core: cycle, warp, PC, lanes, instruction, and its write-back cycle. */
export interface CoreIssueRow {
  readonly cycle: number;
  readonly warp: number;
  readonly pc: string;
  readonly mask: string;
  readonly instruction: string;
  readonly ready: number;
}

/** One cycle of a core replay: what issued, which warps waited, and the scoreboards after it. */
export interface CoreCycle {
  readonly cycle: number;
  readonly issued: readonly CoreIssueRow[];
  /** Warps offered the slot that waited on the scoreboard: warp and the PCs they wanted. */
  readonly stalled: readonly { readonly warp: number; readonly pcs: readonly string[] }[];
  /** Per warp, the pending writes after the cycle: `R1 0011 @39` (register, lanes, ready cycle). */
  readonly pending: readonly (readonly string[])[];
}

export interface CoreReplayRun {
  readonly config: CoreConfig;
  readonly cycles: readonly CoreCycle[];
  readonly verdict: string;
  readonly property: string | null;
  readonly message: string;
  readonly counters: CoreState['counters'];
  readonly mismatches: readonly string[];
  /** Set when the replay stopped at its time limit (`timeoutMs`) before the run ended. */
  readonly limit?: string;
}

/** The core settings of a scenario, over the defaults (lrr, warp, default latencies, no collector). */
export function coreConfigOf(core: NonNullable<Scenario['core']>): CoreConfig {
  return {
    scheduler: core.scheduler ?? 'lrr',
    scoreboard: core.scoreboard ?? 'warp',
    latencies: { ...DEFAULT_LATENCIES, ...core.latencies },
    issueWidth: core.issueWidth ?? 1,
    collector: core.collector ?? 'none',
    ...(core.banks !== undefined ? { banks: core.banks } : {}),
    ...(core.units !== undefined ? { collectorUnits: core.units } : {}),
  };
}

const keyName = (key: number): string =>
  key >= 512 ? `B${key - 512}` : key >= 256 ? `P${key - 256}` : `R${key}`;

/**
 * Replays a scenario with a `core` field on the issue core, cycle by cycle (issue 6: "replay shows
 * the per-cycle issue decisions and scoreboard contents"), and checks the expected verdict and that
 * the machine schedule the core takes is the scenario's `schedule`. Deterministic: the core has no
 * free choice (schedulers and the first ready candidate decide).
 */
export function replayCore(
  machine: Machine,
  scenario: Scenario,
  limits: { readonly timeoutMs?: number } = {},
): CoreReplayRun {
  const deadline = limits.timeoutMs === undefined ? Infinity : Date.now() + limits.timeoutMs;
  let limit: string | undefined;
  const config = coreConfigOf(scenario.core!);
  const core = createCore(machine, config);
  const fmt = machine.fmt;
  const maxCycles = scenario.core!.maxCycles ?? 100_000;
  const printed = (pc: number) => issuedText(machine.program, pc, fmt.pc);
  const entries = (b: Board, prefix = '') =>
    b.map((p) => `${prefix}${keyName(p.key)} ${fmt.mask(p.mask)} @${p.ready}`);
  // The dual scoreboard shows its two boards while a split is open (side 0 / side 1).
  const pending = (st: CoreState) =>
    st.boards.map((b, w) => {
      const d = st.duals?.[w];
      if (!d || d.split === null) return entries(b);
      return [...entries(d.boards[0], 'side0 '), ...entries(d.boards[1], 'side1 ')];
    });
  let s = core.initial();
  const cycles: CoreCycle[] = [];
  let verdict = 'incomplete';
  let property: string | null = null;
  let message = `no end within ${maxCycles} cycles`;
  while (s.cycle < maxCycles) {
    // The time limit (issue 14, fault 5), checked every 1024 cycles.
    if ((s.cycle & 1023) === 1023 && Date.now() > deadline) {
      limit = `the replay stopped at cycle ${s.cycle}: time limit of ${limits.timeoutMs! / 1000} s`;
      message = limit;
      break;
    }
    const r = core.stepCycle(s);
    const issued = (
      r.kind === 'running' ? r.issued : r.kind === 'stop' ? (r.issued ?? []) : []
    ).map((i) => ({
      cycle: i.cycle,
      warp: i.warp,
      pc: i.merged ? `${fmt.pc(i.pc)} ∩ ${fmt.pc(i.merged.pc)}` : fmt.pc(i.pc),
      mask: fmt.mask(i.merged ? (i.mask | i.merged.mask) >>> 0 : i.mask),
      instruction: i.merged ? `${printed(i.pc)} ∩ ${printed(i.merged.pc)}` : printed(i.pc),
      ready: i.cycle + i.latency,
    }));
    if (r.kind === 'running' || (r.kind === 'stop' && issued.length > 0))
      cycles.push({
        cycle: s.cycle,
        issued,
        stalled:
          r.kind === 'running'
            ? r.stalled.map((x) => ({ warp: x.warp, pcs: x.candidates.map((c) => fmt.pc(c.pc)) }))
            : [],
        pending: pending(r.state),
      });
    s = r.state;
    if (r.kind === 'running') continue;
    if (r.kind === 'stop') {
      verdict = r.stop.verdict;
      property = r.stop.property ?? null;
      message = r.stop.message;
    } else if (r.kind === 'terminated') {
      verdict = 'terminates';
      message = 'every lane exited';
    } else {
      verdict = 'deadlock';
      message = 'nothing can issue while lanes remain';
    }
    break;
  }
  const mismatches: string[] = [];
  const exp = scenario.expect;
  if (verdict !== exp.verdict || (exp.property != null && exp.property !== property))
    mismatches.push(
      `expected ${exp.verdict}${exp.property ? ` of ${exp.property}` : ''}, got ${verdict}${property ? ` of ${property}` : ''}: ${message}`,
    );
  if (JSON.stringify(scheduleOf(s)) !== JSON.stringify(scenario.schedule))
    mismatches.push(
      `the core took the machine schedule [${scheduleOf(s).join(', ')}], the scenario says [${scenario.schedule.join(', ')}]`,
    );
  return {
    config,
    cycles,
    verdict,
    property,
    message,
    counters: s.counters,
    mismatches,
    ...(limit ? { limit } : {}),
  };
}
