import { basename } from 'node:path';
import { explore, type ExploreResult } from '../model/explore/exhaustive.ts';
import type { AtomicOrder } from '../model/lanes/execContext.ts';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { saveScenario } from '../model/scenario/files.ts';
import { loadProgram, resolveLaunch } from '../model/scenario/loadProgram.ts';
import { machineFor, scenarioFromFinding } from '../model/scenario/session.ts';
import {
  colourVerdict,
  millis,
  reportDiagnostics,
  table,
  thousands,
  type Io,
  readInput,
} from './output.ts';
import { VERSION } from './version.ts';

export interface ExploreArgs {
  readonly file: string;
  readonly mechanism: string;
  readonly warpSize?: number;
  readonly warps?: number;
  readonly maxStates: number;
  readonly maxDepth: number;
  readonly timeout: number;
  readonly save: string | false;
  readonly json: boolean;
  readonly strict: boolean;
  /** Check every issue against the reference (`refines-its`). */
  readonly refine: boolean;
  readonly atomicOrder: AtomicOrder;
  readonly entry?: string;
  /** `mechanism.option=value` settings. */
  readonly option: readonly string[];
}

interface Row {
  readonly mechanism: string;
  readonly result: ExploreResult;
  readonly expected: string | null;
  readonly saved: string[];
}

/** `warpcheck explore`: every mechanism on one listing, a verdict row each, failures saved. */
export function runExplore(a: ExploreArgs, io: Io): number {
  const text = readInput(io, a.file);
  if (text === null) return 2;
  const loaded = loadProgram(text, a.file, {
    strict: a.strict,
    ...(a.entry ? { entry: a.entry } : {}),
  });
  if (!loaded.ok) return reportDiagnostics(io, loaded.error);
  const launch = resolveLaunch(loaded.value.header, { warpSize: a.warpSize, warps: a.warps });
  if (!launch.ok) {
    for (const p of launch.error) io.err(`${a.file}: ${p}\n`);
    return 2;
  }
  const ids =
    a.mechanism === 'all'
      ? MECHANISMS.map((m) => m.id)
      : a.mechanism.split(',').map((s) => s.trim());
  const options = parseOptionSettings(a.option, ids);
  if (!options.ok) {
    for (const p of options.error) io.err(`${p}\n`);
    return 2;
  }
  const machines = [];
  for (const id of ids) {
    const m = machineFor(
      loaded.value,
      launch.value,
      id,
      options.value[id] ?? {},
      a.atomicOrder,
      a.strict,
      a.refine,
    );
    if (!m.ok) {
      for (const p of m.error) io.err(`${p}\n`);
      return 2;
    }
    machines.push({ id, machine: m.value });
  }
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
          entry: a.entry ?? loaded.value.header.entry,
          strict: a.strict,
          refine: a.refine,
          launch: launch.value,
          mechanism: id,
          options: machine.options,
          atomicOrder: a.atomicOrder,
          finding: f,
          found: {
            by: `warpcheck ${VERSION} explore`,
            search: 'exhaustive breadth-first (shortest schedule)',
            source: a.file,
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
    rows.push({ mechanism: id, result, expected: loaded.value.header.expect[id] ?? null, saved });
  }
  const mismatched = rows.filter(
    (r) => r.expected !== null && r.expected !== verdictText(r.result),
  );
  if (a.json) {
    io.out(
      JSON.stringify(
        {
          file: a.file,
          launch: { warpSize: launch.value.warpSize, warps: launch.value.warps },
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
          warnings: loaded.value.warnings,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    io.out(
      `${a.file}: ${launch.value.warps} warp${launch.value.warps > 1 ? 's' : ''} of ${launch.value.warpSize} lanes\n\n`,
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
    for (const w of loaded.value.warnings) io.out(`warning: ${w}\n`);
  }
  return mismatched.length > 0 ? 1 : 0;
}

/** `terminates`, `deadlock/livelock`, … — the spelling of header expectations. */
export const verdictText = (r: { verdict: string; kind: string | null }): string =>
  r.kind ? `${r.verdict}/${r.kind}` : r.verdict;

function parseOptionSettings(
  settings: readonly string[],
  ids: readonly string[],
): { ok: true; value: Record<string, Record<string, string>> } | { ok: false; error: string[] } {
  const value: Record<string, Record<string, string>> = {};
  const error: string[] = [];
  for (const s of settings) {
    const m = /^([a-z0-9-]+)\.([a-z0-9-]+)=(\S+)$/.exec(s);
    if (!m) {
      error.push(
        `--option ${s}: expected MECHANISM.OPTION=VALUE, e.g. simt-stack.order=not-taken-first`,
      );
      continue;
    }
    const [, mech, name, v] = m;
    if (!ids.includes(mech!)) {
      error.push(`--option ${s}: mechanism '${mech}' is not being explored (${ids.join(', ')})`);
      continue;
    }
    (value[mech!] ??= {})[name!] = v!;
  }
  return error.length ? { ok: false, error } : { ok: true, value };
}
