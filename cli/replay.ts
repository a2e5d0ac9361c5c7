import type { StateView } from '../model/mechanisms/mechanism.ts';
import { readScenario } from '../model/scenario/files.ts';
import { replay } from '../model/scenario/replay.ts';
import { REPLAY_TIMEOUT_S } from '../model/scenario/limits.ts';
import { replayCore } from '../model/scenario/replayCore.ts';
import { EXIT } from './exitCodes.ts';
import { printable } from './printable.ts';
import { scenarioMachine } from '../model/scenario/session.ts';
import { runExportTrace } from './exportTrace.ts';
import { writeReplayHtml } from './html/writeReplayHtml.ts';
import { colourVerdict, reportDiagnostics, table, type Io } from './output.ts';

export interface ReplayArgs {
  readonly scenario: string;
  readonly json: boolean;
  /** Print only the final verdict and mismatches. */
  readonly quiet: boolean;
  /** Write the run as Accel-Sim trace files into this folder instead of printing it. */
  readonly traceg?: string;
  /** Turns of a livelock's cycle written to the trace (default 3). */
  readonly turns?: number;
  /** Also write the replay as a self-contained HTML page to this file (`cli/html/`). */
  readonly html?: string;
  /** Time limit in seconds (default REPLAY_TIMEOUT_S). */
  readonly timeout?: number;
}

/**
 * `warpcheck replay`: runs a scenario's schedule step by step and prints each issue (warp, PC,
 * mask, instruction) and the mechanism's state after it, in the layout of the papers' figures.
 * Exit status: 0 when the run shows the expected verdict and states, 1 when it does not, 2 when
 * the file cannot be used.
 */
export function runReplay(a: ReplayArgs, io: Io): number {
  const s = readScenario(a.scenario);
  if (!s.ok) return reportDiagnostics(io, s.error);
  const m = scenarioMachine(s.value, a.scenario);
  if (!m.ok) return reportDiagnostics(io, m.error);
  if (a.traceg !== undefined)
    return runExportTrace(
      { scenario: a.scenario, dir: a.traceg, turns: a.turns ?? 3, json: a.json },
      io,
      s.value,
      m.machine,
    );
  if (a.html !== undefined) {
    const written = writeReplayHtml(a.html, m.machine, s.value, io);
    if (written !== 0) return written;
  }
  const timeoutMs = (a.timeout ?? REPLAY_TIMEOUT_S) * 1000;
  if (s.value.core) return runReplayCore(a, io, s.value, m.machine, timeoutMs);
  const run = replay(m.machine, s.value, { timeoutMs });
  if (run.limit) return overLimit(io, a.scenario, run.limit);
  const ok = run.mismatches.length === 0;
  if (a.json) {
    io.out(
      JSON.stringify(
        {
          scenario: a.scenario,
          mechanism: s.value.mechanism,
          options: m.machine.options,
          verdict: run.verdict,
          kind: run.kind,
          property: run.property,
          message: run.message,
          expected: s.value.expect,
          ok,
          mismatches: run.mismatches,
          initial: run.initial.map((v) => v.data),
          steps: run.steps.map((st) => ({
            step: st.step,
            choice: st.choice,
            choices: st.choices,
            warp: st.warp,
            pc: st.pc,
            mask: st.mask,
            instruction: st.instruction,
            alternative: st.alternative,
            state: st.views.map((v) => v.data),
            stop: st.stop,
          })),
        },
        null,
        2,
      ) + '\n',
    );
    return ok ? 0 : 1;
  }
  const launch = m.machine.launch;
  const opts = Object.entries(m.machine.options)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  io.out(`${io.colour.bold(printable(s.value.name))}\n`);
  if (s.value.source) io.out(`source: ${printable(s.value.source)}\n`);
  io.out(
    `mechanism: ${s.value.mechanism}${opts ? ` (${opts})` : ''}; ` +
      (m.machine.blockLaunch
        ? `block mechanism: ${m.machine.blockLaunch.warps} warp(s) of ${m.machine.blockLaunch.warpSize} threads, run ${launch.warpSize < m.machine.blockLaunch.warps * m.machine.blockLaunch.warpSize ? 'on the block machine (lanes per home warp)' : 'as one block view'}; masks are written thread ${m.machine.blockLaunch.warps * m.machine.blockLaunch.warpSize - 1} first, home warps apart (warp 0 on the right)\n`
        : `${launch.warps} warp(s) of ${launch.warpSize} lanes; masks are written lane ${launch.warpSize - 1} first\n`),
  );
  if (!a.quiet) {
    io.out(`\n${io.colour.dim('initial state')}\n`);
    printViews(io, run.initial);
    const loop = s.value.loop ?? null;
    for (const st of run.steps) {
      if (loop !== null && st.step === loop + 1)
        io.out(
          `\n${io.colour.cyan(`-- cycle starts here (returns to the state after step ${loop}) --`)}\n`,
        );
      const alt = st.alternative ? io.colour.dim(`  [${st.alternative}]`) : '';
      io.out(
        `\n${io.colour.bold(`#${st.step}`)}  warp ${st.warp}  ${st.pc}  ${st.mask}  ${st.instruction}${alt}${st.choices > 1 ? io.colour.dim(`  (choice ${st.choice} of ${st.choices})`) : ''}\n`,
      );
      if (st.stop) io.out(`   ${colourVerdict(io.colour, st.stop.verdict)}: ${st.stop.message}\n`);
      else printViews(io, st.views);
    }
  }
  io.out(
    `\nverdict: ${colourVerdict(io.colour, run.kind ? `${run.verdict} (${run.kind})` : run.verdict)} — ${run.message}\n`,
  );
  const exp = s.value.expect;
  io.out(
    `expected: ${exp.verdict}${exp.kind ? ` (${exp.kind})` : ''} — ${ok ? io.colour.green('matches') : io.colour.red('does NOT match')}\n`,
  );
  for (const mm of run.mismatches) io.out(`  ${io.colour.red('mismatch')}: ${mm}\n`);
  return ok ? 0 : 1;
}

/** A replay stopped by its limit: bad input (exit 2), with the limit and how to raise it. */
function overLimit(io: Io, file: string, limit: string): number {
  io.err(`${file}: ${limit} (raise it with --timeout S)\n`);
  return EXIT.badInput;
}

function printViews(io: Io, views: readonly StateView[]): void {
  views.forEach((v, w) => {
    for (const t of v.tables) {
      io.out(`   ${views.length > 1 ? `warp ${w} ` : ''}${io.colour.dim(t.title)}\n`);
      io.out(table(io.colour, t.columns, t.rows, '     '));
    }
  });
}

/**
 * A scenario with `core`: the issue core cycle by cycle — issues (cycle, warp, PC, lanes,
 * instruction, write-back cycle), the warps that waited on the scoreboard, and every warp's pending
 * writes after the cycle — then the timed run's verdict against the expected one.
 */
function runReplayCore(
  a: ReplayArgs,
  io: Io,
  scenario: Parameters<typeof replayCore>[1],
  machine: Parameters<typeof replayCore>[0],
  timeoutMs: number,
): number {
  const run = replayCore(machine, scenario, { timeoutMs });
  if (run.limit) return overLimit(io, a.scenario, run.limit);
  const ok = run.mismatches.length === 0;
  if (a.json) {
    io.out(
      JSON.stringify(
        {
          scenario: a.scenario,
          mechanism: scenario.mechanism,
          core: run.config,
          verdict: run.verdict,
          property: run.property,
          message: run.message,
          expected: scenario.expect,
          ok,
          mismatches: run.mismatches,
          counters: run.counters,
          cycles: run.cycles,
        },
        null,
        2,
      ) + '\n',
    );
    return ok ? 0 : 1;
  }
  const c = run.config;
  const l = c.latencies;
  io.out(`${io.colour.bold(printable(scenario.name))}\n`);
  if (scenario.source) io.out(`source: ${printable(scenario.source)}\n`);
  io.out(
    `mechanism: ${scenario.mechanism}; ${machine.launch.warps} warp(s) of ${machine.launch.warpSize} lanes; ` +
      `core: ${c.scheduler}, ${c.scoreboard} scoreboard, collector ${c.collector ?? 'none'}` +
      `${c.collector && c.collector !== 'none' ? ` (${c.banks ?? 4} banks, ${c.collectorUnits ?? 2} units)` : ''}; ` +
      `latencies alu ${l.alu}, sfu ${l.sfu}, shared ${l.shared}, global ${l.global}\n`,
  );
  if (!a.quiet) {
    const rows: string[][] = [];
    for (const cy of run.cycles) {
      const pending = cy.pending
        .map((p, w) => (p.length ? `w${w}: ${p.join(', ')}` : ''))
        .filter(Boolean)
        .join('; ');
      const waits = cy.stalled.map((x) => `w${x.warp} ${x.pcs.join('/')}`).join(', ');
      if (cy.issued.length === 0)
        rows.push([
          String(cy.cycle),
          '',
          '',
          '',
          io.colour.dim(waits ? `(waits: ${waits})` : '(idle)'),
          '',
          pending,
        ]);
      for (const i of cy.issued)
        rows.push([
          String(cy.cycle),
          String(i.warp),
          i.pc,
          i.mask,
          i.instruction,
          String(i.ready),
          pending,
        ]);
    }
    io.out(
      '\n' +
        table(
          io.colour,
          [
            'cycle',
            'warp',
            'pc',
            'mask',
            'instruction',
            'write-back',
            'pending writes (reg lanes @ready)',
          ],
          rows,
          '  ',
        ),
    );
  }
  io.out(
    `\nverdict: ${colourVerdict(io.colour, run.verdict)}${run.property ? ` (${run.property})` : ''} — ${run.message}\n`,
  );
  const exp = scenario.expect;
  io.out(
    `expected: ${exp.verdict}${exp.property ? ` (${exp.property})` : ''} — ${ok ? io.colour.green('matches') : io.colour.red('does NOT match')}\n`,
  );
  for (const mm of run.mismatches) io.out(`  ${io.colour.red('mismatch')}: ${mm}\n`);
  return ok ? 0 : 1;
}
