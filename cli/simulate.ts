import { createCore, type CoreConfig } from '../model/core/core.ts';
import { parseLatencies } from '../model/core/latency.ts';
import { SCHEDULERS, type SchedulerKind } from '../model/core/scheduler.ts';
import { SCOREBOARD_KINDS, type ScoreboardKind } from '../model/core/scoreboard.ts';
import { simulate, type SimulationResult } from '../model/core/simulate.ts';
import { COLLECTOR_KINDS, type CollectorKind } from '../model/core/operandCollector.ts';
import { colourVerdict, millis, table, thousands, type Io } from './output.ts';
import { prepareMachines, type PrepareArgs } from './prepare.ts';

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
  const prepared = prepareMachines(a, io);
  if (typeof prepared === 'number') return prepared;
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
