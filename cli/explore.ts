import { basename } from 'node:path';
import { explore, type ExploreResult } from '../model/explore/exhaustive.ts';
import { saveScenario } from '../model/scenario/files.ts';
import { scenarioFromFinding } from '../model/scenario/session.ts';
import { EXIT } from './exitCodes.ts';
import { failsOn, type FailOn } from './failOn.ts';
import { colourVerdict, millis, table, thousands, type Io } from './output.ts';
import { prepareMachines, type PrepareArgs } from './prepare.ts';
import { savedSource } from './saveDir.ts';
import { VERSION } from './version.ts';

export interface ExploreArgs extends PrepareArgs {
  readonly maxStates: number;
  readonly maxDepth: number;
  readonly timeout: number;
  readonly save: string | false;
  readonly json: boolean;
  /** `--fail-on`: verdicts that make the run exit 1 (cli/failOn.ts). */
  readonly failOn?: FailOn;
}

interface Row {
  readonly mechanism: string;
  readonly result: ExploreResult;
  readonly expected: string | null;
  readonly saved: string[];
}

/** `warpcheck explore`: every mechanism on one listing, a verdict row each, failures saved. */
export function runExplore(a: ExploreArgs, io: Io): number {
  const prepared = prepareMachines(a, io);
  if (typeof prepared === 'number') return prepared;
  const { text, loaded, launch, machines } = prepared;
  const rows: Row[] = [];
  for (const { id, machine } of machines) {
    const progress = (p: { states: number; depth: number; elapsedMs: number }) => {
      if (io.interactive)
        io.err(
          `\r  exploring ${id}: ${thousands(p.states)} states, depth ${p.depth}, ${millis(p.elapsedMs)}   `,
        );
    };
    const result = explore(
      machine,
      { maxStates: a.maxStates, maxDepth: a.maxDepth, timeoutMs: a.timeout * 1000 },
      progress,
    );
    if (io.interactive) io.err('\r\u001b[K');
    const saved: string[] = [];
    if (a.save !== false) {
      for (const f of result.findings) {
        if (f.verdict === 'terminates') continue;
        const scenario = scenarioFromFinding({
          name: `${basename(a.file)} on ${id}: ${f.verdict}${f.kind ? ` (${f.kind})` : ''}`,
          programText: text,
          entry: a.entry ?? loaded.header.entry,
          strict: a.strict,
          refine: a.refine,
          launch: launch,
          mechanism: id,
          options: machine.options,
          atomicOrder: a.atomicOrder,
          finding: f,
          found: {
            by: `warpcheck ${VERSION} explore`,
            search: 'exhaustive breadth-first (shortest schedule)',
            source: savedSource(a.file),
          },
        });
        saved.push(
          saveScenario(
            a.save,
            `${basename(a.file).replace(/\.[^.]*$/, '')}.${id}.${f.verdict}${f.kind ? `-${f.kind}` : ''}`,
            scenario,
          ),
        );
      }
    }
    rows.push({ mechanism: id, result, expected: loaded.header.expect[id] ?? null, saved });
  }
  const mismatched = rows.filter(
    (r) => r.expected !== null && r.expected !== verdictText(r.result),
  );
  if (a.json) {
    io.out(
      JSON.stringify(
        {
          file: a.file,
          launch: { warpSize: launch.warpSize, warps: launch.warps },
          results: rows.map((r) => ({
            mechanism: r.mechanism,
            verdict: r.result.verdict,
            kind: r.result.kind,
            message: r.result.message,
            states: r.result.states,
            transitions: r.result.transitions,
            depth: r.result.depth,
            timeMs: Math.round(r.result.timeMs * 10) / 10,
            bound: r.result.bound,
            findings: r.result.findings.map((f) => ({
              verdict: f.verdict,
              kind: f.kind,
              property: f.property,
              message: f.message,
              steps: f.schedule.length,
            })),
            expected: r.expected,
            saved: r.saved,
            notes: r.result.notes,
          })),
          warnings: loaded.warnings,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    io.out(
      `${a.file}: ${launch.warps} warp${launch.warps > 1 ? 's' : ''} of ${launch.warpSize} lanes\n\n`,
    );
    const hasExpect = rows.some((r) => r.expected !== null);
    io.out(
      table(
        io.colour,
        [
          'mechanism',
          'verdict',
          'states',
          'transitions',
          'depth',
          'time',
          ...(hasExpect ? ['expected'] : []),
        ],
        rows.map((r) => [
          r.mechanism,
          colourVerdict(io.colour, verdictText(r.result)),
          thousands(r.result.states),
          thousands(r.result.transitions),
          String(r.result.depth),
          millis(r.result.timeMs),
          ...(hasExpect
            ? [
                r.expected === null
                  ? ''
                  : r.expected === verdictText(r.result)
                    ? 'yes'
                    : `NO (${r.expected})`,
              ]
            : []),
        ]),
      ),
    );
    io.out('\n');
    for (const r of rows) {
      io.out(`${r.mechanism}: ${r.result.message}\n`);
      for (const n of r.result.notes) io.out(`  note: ${n}\n`);
      for (const p of r.saved) io.out(`  saved ${p}  (replay: warpcheck replay ${p})\n`);
    }
    for (const w of loaded.warnings) io.out(`warning: ${w}\n`);
  }
  const failed = rows.filter((r) =>
    [r.result, ...r.result.findings].some((o) => failsOn(a.failOn ?? [], o)),
  );
  return mismatched.length > 0 || failed.length > 0 ? EXIT.finding : EXIT.ok;
}

/** `terminates`, `deadlock/livelock`, … — the spelling of header expectations. */
export const verdictText = (r: { verdict: string; kind: string | null }): string =>
  r.kind ? `${r.verdict}/${r.kind}` : r.verdict;
