import { createCore, type CoreConfig } from '../model/core/core.ts';
import { parseLatencies } from '../model/core/latency.ts';
import { SCHEDULERS, type SchedulerKind } from '../model/core/scheduler.ts';
import { SCOREBOARD_KINDS, type ScoreboardKind } from '../model/core/scoreboard.ts';
import { simulate, type SimulationResult } from '../model/core/simulate.ts';
import { exploreCore, type CoreSearchResult } from '../model/core/exploreCore.ts';
import type { Latencies } from '../model/core/latency.ts';
import type { Machine } from '../model/machine/machine.ts';
import { COLLECTOR_KINDS, type CollectorKind } from '../model/core/operandCollector.ts';
import { colourVerdict, millis, table, thousands, type Io } from './output.ts';
import { prepareMachines, type PrepareArgs } from './prepare.ts';
import { looksLikeScenario } from '../model/scenario/files.ts';
import { runSimulateScenario } from './simulateScenario.ts';
import { readInput } from './output.ts';

export interface SimulateArgs extends PrepareArgs {
  /** `lrr`, `gto`, a comma list, or `all`. */
  readonly scheduler: string;
  /** `warp`, `mask`, a comma list, or `all`. */
  readonly scoreboard: string;
  readonly latency: string;
  /** Operand collector: `none`, `in-order`, `out-of-order`, a comma list, or `all` (default none). */
  readonly collector?: string;
  /** Register banks and collector units of the operand collector (defaults 4 and 2). */
  readonly banks?: number;
  readonly units?: number;
  readonly issueWidth: number;
  readonly maxCycles: number;
  readonly timeout: number;
  readonly json: boolean;
  /** Search every scheduler choice (`exploreCore`) instead of simulating one scheduler. */
  readonly explore?: boolean;
  readonly maxStates?: number;
  /** A scenario's livelock: turns of its cycle to run (default 3). */
  readonly turns?: number;
}

/** A comma list of allowed values, or `all`; errors name the allowed values. */
function listOf<T extends string>(flag: string, text: string, allowed: readonly T[]): T[] | string {
  const items = text === 'all' ? [...allowed] : text.split(',').map((s) => s.trim());
  const bad = items.filter((x) => !allowed.includes(x as T));
  return bad.length
    ? `${flag} ${bad.join(',')}: expected ${allowed.join(', ')} or all`
    : (items as T[]);
}

const endText = (r: SimulationResult): string => {
  switch (r.end.kind) {
    case 'terminated':
      return 'terminates';
    case 'blocked':
      return 'deadlock/blocked';
    case 'stop':
      return r.end.stop.verdict;
    case 'bound-reached':
      return `bound-reached (${r.end.bound})`;
  }
};

/**
 * `warpcheck simulate`: the issue core (SEMANTICS §4) on a listing — one row per mechanism ×
 * scheduler × scoreboard with cycles, IPC, SIMD efficiency and idle issue cycles.
 */
export function runSimulate(a: SimulateArgs, io: Io): number {
  const schedulers = listOf('--scheduler', a.scheduler, SCHEDULERS);
  const scoreboards = listOf('--scoreboard', a.scoreboard, SCOREBOARD_KINDS);
  const latencies = parseLatencies(a.latency);
  const collectors = listOf('--collector', a.collector ?? 'none', COLLECTOR_KINDS);
  const problems = [
    ...(typeof collectors === 'string' ? [collectors] : []),
    ...(typeof schedulers === 'string' ? [schedulers] : []),
    ...(typeof scoreboards === 'string' ? [scoreboards] : []),
    ...(latencies.ok ? [] : [latencies.error]),
    ...(Number.isInteger(a.issueWidth) && a.issueWidth >= 1
      ? []
      : [`--issue-width ${a.issueWidth}: expected a positive integer`]),
  ];
  if (
    problems.length ||
    typeof schedulers === 'string' ||
    typeof scoreboards === 'string' ||
    typeof collectors === 'string' ||
    !latencies.ok
  ) {
    for (const p of problems) io.err(`${p}\n`);
    return 2;
  }
  // A scenario file (recognised by its content, never parsed as SASS): its schedule drives the core.
  const text = readInput(io, a.file);
  if (text === null) return 2;
  if (looksLikeScenario(text)) {
    if (a.issueWidth !== 1 || a.explore) {
      io.err(
        `${a.file}: a scenario's schedule is one issue at a time: --issue-width and --explore apply to listings only\n`,
      );
      return 2;
    }
    return runSimulateScenario(
      {
        file: a.file,
        text,
        scoreboards,
        collectors,
        latencies: latencies.value,
        coreDefaults:
          a.scoreboard === 'warp' && (a.collector ?? 'none') === 'none' && a.latency.trim() === '',
        ...(a.banks !== undefined ? { banks: a.banks } : {}),
        ...(a.units !== undefined ? { units: a.units } : {}),
        maxCycles: a.maxCycles,
        turns: a.turns ?? 3,
        json: a.json,
      },
      io,
    );
  }
  const prepared = prepareMachines(a, io);
  if (typeof prepared === 'number') return prepared;
  if (a.explore) return runCoreSearch(a, io, prepared.machines, scoreboards, latencies.value);
  const rows: {
    mechanism: string;
    scheduler: SchedulerKind;
    scoreboard: ScoreboardKind;
    collector: CollectorKind;
    result: SimulationResult;
  }[] = [];
  for (const { id, machine } of prepared.machines)
    for (const scheduler of schedulers)
      for (const scoreboard of scoreboards)
        for (const collector of collectors) {
          const config: CoreConfig = {
            scheduler,
            scoreboard,
            latencies: latencies.value,
            issueWidth: a.issueWidth,
            collector,
            ...(a.banks !== undefined ? { banks: a.banks } : {}),
            ...(a.units !== undefined ? { collectorUnits: a.units } : {}),
          };
          const result = simulate(createCore(machine, config), {
            maxCycles: a.maxCycles,
            timeoutMs: a.timeout * 1000,
          });
          rows.push({ mechanism: id, scheduler, scoreboard, collector, result });
        }
  // The collector column only when a collector was asked for (the default output is unchanged).
  const showCollector = collectors.some((c) => c !== 'none');
  if (a.json) {
    io.out(
      JSON.stringify(
        {
          file: a.file,
          launch: { warpSize: prepared.launch.warpSize, warps: prepared.launch.warps },
          latencies: latencies.value,
          issueWidth: a.issueWidth,
          results: rows.map((r) => ({
            mechanism: r.mechanism,
            scheduler: r.scheduler,
            scoreboard: r.scoreboard,
            ...(showCollector ? { collector: r.collector } : {}),
            end: r.result.end,
            ...r.result.counters,
            ipc: r.result.ipc,
            simdEfficiency: r.result.simdEfficiency,
            timeMs: Math.round(r.result.timeMs * 10) / 10,
          })),
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    const l = latencies.value;
    io.out(
      `${a.file}: ${prepared.launch.warps} warp${prepared.launch.warps > 1 ? 's' : ''} of ${prepared.launch.warpSize} lanes; ` +
        `latencies alu ${l.alu}, sfu ${l.sfu}, shared ${l.shared}, global ${l.global}; issue width ${a.issueWidth}\n\n`,
    );
    io.out(
      table(
        io.colour,
        [
          'mechanism',
          'scheduler',
          'scoreboard',
          ...(showCollector ? ['collector'] : []),
          'end',
          'cycles',
          'issued',
          'IPC',
          'SIMD eff.',
          'idle',
          'stalls',
          'false stalls',
          'time',
        ],
        rows.map((r) => [
          r.mechanism,
          r.scheduler,
          r.scoreboard,
          ...(showCollector ? [r.collector] : []),
          colourVerdict(io.colour, endText(r.result)),
          thousands(r.result.counters.cycles),
          thousands(r.result.counters.issued),
          r.result.ipc.toFixed(3),
          `${(r.result.simdEfficiency * 100).toFixed(1)} %`,
          thousands(r.result.counters.idle),
          thousands(r.result.counters.stalls),
          thousands(r.result.counters.falseStalls),
          millis(r.result.timeMs),
        ]),
      ),
    );
    for (const r of rows)
      if (r.result.end.kind === 'stop')
        io.out(
          `${r.mechanism} (${r.scheduler}, ${r.scoreboard}${showCollector ? `, ${r.collector}` : ''}): ${r.result.end.stop.message}\n`,
        );
  }
  // A run that ends in a finding (a violation such as war-hazard, undefined behaviour, a blocked
  // warp) makes the exit status 1, as for other commands; a cycle budget is not a finding.
  return rows.some((r) => r.result.end.kind === 'stop' || r.result.end.kind === 'blocked') ? 1 : 0;
}

/**
 * `simulate --explore`: every scheduler choice instead of one scheduler (model/core/exploreCore.ts);
 * one row per mechanism × scoreboard. Exit 1 when some schedule blocks or stops.
 */
function runCoreSearch(
  a: SimulateArgs,
  io: Io,
  machines: readonly { readonly id: string; readonly machine: Machine }[],
  scoreboards: readonly ScoreboardKind[],
  latencies: Latencies,
): number {
  const rows: { mechanism: string; scoreboard: ScoreboardKind; result: CoreSearchResult }[] = [];
  for (const { id, machine } of machines)
    for (const scoreboard of scoreboards) {
      if (scoreboard === 'dual') continue;
      const core = createCore(machine, {
        scheduler: 'lrr',
        scoreboard,
        latencies,
        issueWidth: 1,
      });
      rows.push({
        mechanism: id,
        scoreboard,
        result: exploreCore(core, {
          maxStates: a.maxStates ?? 200_000,
          maxDepth: a.maxCycles,
          timeoutMs: a.timeout * 1000,
        }),
      });
    }
  if (a.json)
    io.out(
      JSON.stringify(
        {
          file: a.file,
          latencies,
          results: rows.map((r) => ({
            mechanism: r.mechanism,
            scoreboard: r.scoreboard,
            ...r.result,
            verdictText: coreSearchVerdictText(r.result),
          })),
        },
        null,
        2,
      ) + '\n',
    );
  else {
    io.out(
      `${a.file}: every scheduler choice, issue width 1 (the dual scoreboard and operand collectors are not searched)\n\n`,
    );
    io.out(
      table(
        io.colour,
        ['mechanism', 'scoreboard', 'verdict', 'states', 'message'],
        rows.map((r) => [
          r.mechanism,
          r.scoreboard,
          colourVerdict(io.colour, coreSearchVerdictText(r.result)),
          thousands(r.result.states),
          r.result.message,
        ]),
      ),
    );
  }
  return rows.some((r) => r.result.verdict === 'blocked' || r.result.verdict === 'stop') ? 1 : 0;
}

/**
 * A core search verdict in `explore`'s words (issue 14: `simulate --explore` said "cycle" where
 * `explore` says "deadlock/livelock"): `blocked` is `deadlock/blocked`; `cycle` is
 * `deadlock/livelock (unfair)` — a schedule that repeats forever, found without a fairness check
 * (the core's choices may starve a path, model/core/exploreCore.ts), so it says so; `stop` is the
 * machine verdict that ended the run.
 */
export function coreSearchVerdictText(r: { verdict: string; message: string }): string {
  if (r.verdict === 'blocked') return 'deadlock/blocked';
  if (r.verdict === 'cycle') return 'deadlock/livelock (unfair)';
  if (r.verdict === 'stop') return r.message.split(':')[0]!;
  return r.verdict;
}
