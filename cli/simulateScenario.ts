import { createCore, type CoreConfig } from '../model/core/core.ts';
import { followSchedule, type FollowEnd, type FollowResult } from '../model/core/followSchedule.ts';
import type { Latencies } from '../model/core/latency.ts';
import type { CollectorKind } from '../model/core/operandCollector.ts';
import type { ScoreboardKind } from '../model/core/scoreboard.ts';
import { parseScenario } from '../model/scenario/files.ts';
import { coreConfigOf } from '../model/scenario/replayCore.ts';
import { scenarioMachine } from '../model/scenario/session.ts';
import { colourVerdict, millis, reportDiagnostics, table, thousands, type Io } from './output.ts';

export interface SimulateScenarioArgs {
  readonly file: string;
  readonly text: string;
  readonly scoreboards: readonly ScoreboardKind[];
  readonly collectors: readonly CollectorKind[];
  readonly latencies: Latencies;
  /** The command line set no core setting: a scenario's own `core` settings apply. */
  readonly coreDefaults: boolean;
  readonly banks?: number;
  readonly units?: number;
  readonly maxCycles: number;
  readonly turns: number;
  readonly json: boolean;
}

/** The verdict a timed run of a schedule shows, in `replay`'s words (SEMANTICS §6). */
export function followVerdict(e: FollowEnd): { verdict: string; kind: string | null } {
  switch (e.kind) {
    case 'terminated':
      return { verdict: 'terminates', kind: null };
    case 'blocked':
      return { verdict: 'deadlock', kind: 'blocked' };
    case 'livelock':
      return { verdict: 'deadlock', kind: 'livelock' };
    case 'stop':
      return { verdict: e.stop.verdict, kind: e.stop.property ?? null };
    case 'schedule-end':
      return { verdict: 'incomplete', kind: null };
    case 'cannot-follow':
      return { verdict: 'cannot-follow', kind: null };
    case 'bound-reached':
      return { verdict: 'bound-reached', kind: 'cycles' };
  }
}

const endText = (e: FollowEnd): string => {
  const v = followVerdict(e);
  if (e.kind === 'livelock') return `deadlock/livelock (${e.turns} turns)`;
  if (e.kind === 'cannot-follow') return `cannot follow step ${e.step}`;
  return v.kind ? `${v.verdict}/${v.kind}` : v.verdict;
};

/** The last turn of a livelock (the steady state once the scoreboards repeat), or null. */
const lastTurn = (r: FollowResult) => r.turns[r.turns.length - 1] ?? null;

/**
 * `warpcheck simulate SCENARIO.json` (issue 15): the scenario's program, launch, mechanism and
 * options on the issue core, its schedule deciding every choice (`followSchedule`); one row per
 * scoreboard × collector. Exit status: 0 the timed run shows the scenario's expected verdict, 1 it
 * does not (or the core cannot follow a step), 2 bad input.
 */
export function runSimulateScenario(a: SimulateScenarioArgs, io: Io): number {
  const parsed = parseScenario(a.text, a.file);
  if (!parsed.ok) return reportDiagnostics(io, parsed.error);
  const sc = parsed.value;
  const m = scenarioMachine(sc, a.file);
  if (!m.ok) return reportDiagnostics(io, m.error);
  const machine = m.machine;
  const own = sc.core && a.coreDefaults ? coreConfigOf(sc.core) : null;
  const configs: CoreConfig[] = own
    ? [{ ...own, issueWidth: 1 }]
    : a.scoreboards.flatMap((scoreboard) =>
        a.collectors.map((collector) => ({
          scheduler: 'lrr' as const,
          scoreboard,
          latencies: a.latencies,
          issueWidth: 1,
          collector,
          ...(a.banks !== undefined ? { banks: a.banks } : {}),
          ...(a.units !== undefined ? { collectorUnits: a.units } : {}),
        })),
      );
  const loop = sc.loop ?? null;
  const rows = configs.map((config) => {
    const t0 = performance.now();
    const result = followSchedule(createCore(machine, config), sc.schedule, loop, {
      maxCycles: sc.core?.maxCycles ?? a.maxCycles,
      turns: a.turns,
    });
    return { config, result, timeMs: performance.now() - t0 };
  });
  const exp = sc.expect;
  const matches = (r: FollowResult) => {
    const v = followVerdict(r.end);
    return (
      v.verdict === exp.verdict &&
      (exp.kind == null || exp.kind === v.kind) &&
      (exp.property == null || exp.property === v.kind)
    );
  };
  const ok = rows.every((r) => matches(r.result));
  const showCollector = configs.some((c) => (c.collector ?? 'none') !== 'none');
  const launch = machine.launch;
  if (a.json) {
    io.out(
      JSON.stringify(
        {
          file: a.file,
          scenario: sc.name,
          mechanism: sc.mechanism,
          options: machine.options,
          launch: { warpSize: launch.warpSize, warps: launch.warps },
          schedule: { steps: sc.schedule.length, loop },
          expected: exp,
          ok,
          results: rows.map(({ config, result: r, timeMs }) => {
            const t = lastTurn(r);
            return {
              core: config,
              end: r.end,
              ...followVerdict(r.end),
              ...r.counters,
              ipc: r.ipc,
              simdEfficiency: r.simdEfficiency,
              held: r.held,
              steps: r.steps,
              turns: r.turns,
              ...(t
                ? {
                    cyclesPerTurn: t.cycles,
                    turnIpc: t.issued / t.cycles,
                    turnSimdEfficiency: t.activeLanes / (t.issued * launch.warpSize),
                  }
                : {}),
              timeMs: Math.round(timeMs * 10) / 10,
            };
          }),
        },
        null,
        2,
      ) + '\n',
    );
    return ok ? 0 : 1;
  }
  const c = io.colour;
  const opts = Object.entries(machine.options)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const l = configs[0]!.latencies;
  io.out(`${c.bold(sc.name)}\n`);
  io.out(
    `${a.file}: ${sc.mechanism}${opts ? ` (${opts})` : ''}, ${launch.warps} warp${launch.warps > 1 ? 's' : ''} of ${launch.warpSize} lanes; ` +
      (loop === null
        ? `its schedule of ${sc.schedule.length} steps`
        : `its schedule (${loop} steps, then ${a.turns} turns of its ${sc.schedule.length - loop}-step cycle)`) +
      ` decides every choice of the core (warp, path, atomic winner)${own ? '; core settings from the scenario' : ''}\n` +
      `latencies alu ${l.alu}, sfu ${l.sfu}, shared ${l.shared}, global ${l.global}; one issue per cycle\n\n`,
  );
  io.out(
    table(
      c,
      [
        'scoreboard',
        ...(showCollector ? ['collector'] : []),
        'end',
        'cycles',
        'issued',
        'IPC',
        'SIMD eff.',
        'idle',
        'stalls',
        'held',
        'time',
      ],
      rows.map(({ config, result: r, timeMs }) => [
        config.scoreboard,
        ...(showCollector ? [config.collector ?? 'none'] : []),
        colourVerdict(c, endText(r.end)),
        thousands(r.counters.cycles),
        thousands(r.counters.issued),
        r.ipc.toFixed(3),
        `${(r.simdEfficiency * 100).toFixed(1)} %`,
        thousands(r.counters.idle),
        thousands(r.counters.stalls),
        thousands(r.held),
        millis(timeMs),
      ]),
    ),
  );
  io.out(
    c.dim(
      'held: cycles in which the scheduled step waited while the core could have issued another warp or path\n',
    ),
  );
  for (const { config, result: r } of rows) {
    const who = `${config.scoreboard} scoreboard${showCollector ? `, ${config.collector ?? 'none'} collector` : ''}`;
    const e = r.end;
    if (e.kind === 'livelock') {
      const t = lastTurn(r);
      if (t)
        io.out(
          `\n${who}: one turn of the livelock (${t.issued} issues) costs ${c.bold(`${t.cycles} cycles`)} ` +
            `(turns: ${r.turns.map((x) => x.cycles).join(', ')}); it burns IPC ${(t.issued / t.cycles).toFixed(3)} ` +
            `at SIMD efficiency ${((100 * t.activeLanes) / (t.issued * launch.warpSize)).toFixed(1)} % and never lets a waiting lane exit\n`,
        );
    } else if (e.kind === 'stop')
      io.out(`\n${who}: step ${e.step}: ${colourVerdict(c, e.stop.verdict)}: ${e.stop.message}\n`);
    else if (e.kind === 'cannot-follow')
      io.out(
        `\n${who}: ${c.red(`the core cannot follow step ${e.step} of the schedule`)}: ${e.reason}\n`,
      );
    else if (e.kind === 'bound-reached')
      io.out(`\n${who}: the cycle budget (${e.maxCycles}) ran out after ${r.steps} steps\n`);
  }
  io.out(
    `\nexpected: ${exp.verdict}${exp.kind ? ` (${exp.kind})` : ''}${exp.property ? ` of ${exp.property}` : ''} — ${ok ? c.green('the timed run shows it') : c.red('the timed run does NOT show it')}\n`,
  );
  return ok ? 0 : 1;
}
