import { MECHANISMS } from '../model/mechanisms/registry.ts';
import {
  LAWS,
  runCampaign,
  saveCounterexample,
  type CampaignResult,
  type Law,
} from '../properties/laws/index.ts';
import { millis, table, thousands, type Io } from './output.ts';
import { VERSION } from './version.ts';

export interface CheckArgs {
  /** Comma-separated law ids or tags (P1…), or 'all'. */
  readonly property: string;
  /** Comma-separated mechanisms, or 'all'. */
  readonly mechanism: string;
  readonly runs: number;
  /** fast-check seed; drawn at random (and printed) when absent. */
  readonly seed?: number;
  readonly save: string | false;
  readonly json: boolean;
  /** Stop generating for one law × mechanism after this many seconds. */
  readonly maxTime?: number;
}

interface Row {
  readonly result: CampaignResult;
  readonly saved: readonly string[];
}

/** Resolves a comma list against known ids; 'all' is every one. */
function pick<T>(
  spec: string,
  all: readonly T[],
  id: (t: T) => string[],
  what: string,
): { ok: true; value: T[] } | { ok: false; error: string } {
  if (spec === 'all') return { ok: true, value: [...all] };
  const out: T[] = [];
  for (const name of spec.split(',').map((s) => s.trim().toLowerCase())) {
    const t = all.find((x) => id(x).some((i) => i.toLowerCase() === name));
    if (!t)
      return {
        ok: false,
        error: `unknown ${what} '${name}' (known: ${all.map((x) => id(x)[0]).join(', ')}, or all)`,
      };
    out.push(t);
  }
  return { ok: true, value: out };
}

/**
 * `warpcheck check`: property campaigns. Every chosen law runs on every chosen mechanism it applies
 * to, over `runs` generated kernels from one seed (printed first, always); failures are shrunk by
 * fast-check and saved as scenarios under `<save>/<law>/`; a final table gives, per law × mechanism,
 * runs, failures (expected / unexpected), expected failures that did not occur, shrink steps and
 * time. Exit status 1 when a failure is not declared in `properties/laws/expectations.ts`.
 */
export function runCheck(a: CheckArgs, io: Io): number {
  const laws = pick(a.property, LAWS, (l) => [l.id, l.tag], 'property');
  const mechs = pick(a.mechanism, MECHANISMS, (m) => [m.id], 'mechanism');
  for (const r of [laws, mechs])
    if (!r.ok) {
      io.err(`warpcheck check: ${r.error}\n`);
      return 2;
    }
  if (!laws.ok || !mechs.ok) return 2;
  const seed = a.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const pairs: { law: Law; mechanism: string }[] = [];
  for (const law of laws.value)
    for (const m of mechs.value) if (law.appliesTo(m.id)) pairs.push({ law, mechanism: m.id });
  if (pairs.length === 0) {
    io.err(
      `warpcheck check: none of the chosen properties applies to ${mechs.value.map((m) => m.id).join(', ')}\n`,
    );
    return 2;
  }
  if (!a.json)
    io.out(`seed ${seed}  (${pairs.length} law × mechanism pairs, ${a.runs} runs each)\n`);
  else io.err(`seed ${seed}\n`);
  const total = pairs.length * a.runs;
  const t0 = performance.now();
  let lastDraw = 0;
  const rows: Row[] = [];
  for (const [i, { law, mechanism }] of pairs.entries()) {
    const progress = (done: number) => {
      if (!io.interactive) return;
      const now = performance.now();
      if (now - lastDraw < 100 && done < a.runs) return;
      lastDraw = now;
      const frac = Math.min(1, (i * a.runs + done) / total);
      const width = 24;
      const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '-');
      io.err(
        `\r[${bar}] ${(frac * 100).toFixed(0).padStart(3)}%  ${law.id} × ${mechanism}  ${done}/${a.runs}  ${millis(now - t0)}   \u001b[K`,
      );
    };
    const result = runCampaign(law, mechanism, {
      runs: a.runs,
      seed,
      onRun: progress,
      ...(a.maxTime ? { maxTimeMs: a.maxTime * 1000 } : {}),
    });
    const saved =
      a.save === false
        ? []
        : result.counterexamples.map((c) =>
            saveCounterexample(
              a.save as string,
              law.id,
              mechanism,
              c,
              `warpcheck ${VERSION} check --property ${law.id} --mechanism ${mechanism} --runs ${a.runs} --seed ${seed}`,
            ),
          );
    rows.push({ result, saved });
  }
  if (io.interactive) io.err('\r\u001b[K');
  const unexpected = rows.filter((r) => r.result.unexpectedFailures > 0);
  if (a.json) {
    io.out(
      JSON.stringify(
        {
          seed,
          runs: a.runs,
          results: rows.map(({ result: r, saved }) => ({
            law: r.law,
            mechanism: r.mechanism,
            generator: r.source,
            runs: r.runs,
            skipped: r.skipped,
            expectedFailures: r.expectedFailures,
            unexpectedFailures: r.unexpectedFailures,
            missing: r.missing.map((e) => ({ class: e.class, reason: e.reason })),
            shrinks: r.shrinks,
            timeMs: Math.round(r.timeMs),
            runsPerSecond: Math.round((r.runs / Math.max(1, r.timeMs)) * 1000 * 10) / 10,
            interrupted: r.interrupted,
            measures: r.measures,
            counterexamples: r.counterexamples.map((c, i) => ({
              expected: c.expected.map((e) => e.class),
              message: c.finding.message,
              verdict: c.finding.verdict,
              kind: c.finding.kind,
              path: c.path,
              shrinks: c.shrinks,
              warpSize: c.kernel.warpSize,
              instructions: instructionCount(c.kernel.text),
              saved: saved[i] ?? null,
            })),
          })),
        },
        null,
        2,
      ) + '\n',
    );
    return unexpected.length ? 1 : 0;
  }
  const c = io.colour;
  io.out(
    '\n' +
      table(
        c,
        [
          'law',
          'mechanism',
          'runs',
          'skipped',
          'expected',
          'unexpected',
          'missing',
          'shrinks',
          'time',
          'runs/s',
        ],
        rows.map(({ result: r }) => [
          `${lawTag(r.law)} ${r.law}`,
          r.mechanism,
          thousands(r.runs),
          thousands(r.skipped),
          r.expectedFailures ? c.yellow(thousands(r.expectedFailures)) : '0',
          r.unexpectedFailures ? c.red(String(r.unexpectedFailures)) : '0',
          r.missing.length ? c.red(String(r.missing.length)) : '0',
          thousands(r.shrinks),
          millis(r.timeMs),
          ((r.runs / Math.max(1, r.timeMs)) * 1000).toFixed(1),
        ]),
      ),
  );
  for (const { result: r, saved } of rows) {
    const disc = r.measures['discrepancy'];
    if (disc)
      io.out(
        `${r.law} on ${r.mechanism}: warp-trace discrepancy vs simt-stack mean ${(disc.sum / disc.count).toFixed(3)}, max ${disc.max.toFixed(3)} over ${disc.count} kernels\n`,
      );
    r.counterexamples.forEach((cx, i) => {
      const how = cx.expected.length
        ? c.yellow(`expected (${cx.expected.map((e) => e.class).join(', ')})`)
        : c.red('UNEXPECTED');
      io.out(
        `${r.law} on ${r.mechanism}: ${how} — shrunk in ${cx.shrinks} steps to ${cx.kernel.warpSize} lane${cx.kernel.warpSize > 1 ? 's' : ''}, ${instructionCount(cx.kernel.text)} instructions (fast-check path ${cx.path})\n  ${cx.finding.message}\n`,
      );
      if (saved[i]) io.out(`  saved ${saved[i]}  (replay: warpcheck replay ${saved[i]})\n`);
      else io.out(indent(cx.kernel.text));
    });
    for (const e of r.missing)
      io.out(
        c.red(`${r.law} on ${r.mechanism}: expected failure did not occur in ${r.runs} runs`) +
          ` — class ${e.class}: ${e.reason}\n`,
      );
    if (r.interrupted)
      io.out(`${r.law} on ${r.mechanism}: stopped by --max-time after ${r.runs} runs\n`);
  }
  io.out(
    `\nseed ${seed}; reproduce with: warpcheck check --property ${a.property} --mechanism ${a.mechanism} --runs ${a.runs} --seed ${seed}\n`,
  );
  return unexpected.length ? 1 : 0;
}

const lawTag = (id: string) => LAWS.find((l) => l.id === id)?.tag ?? '';
const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n') + '\n';

/** Instructions of a listing: lines that are not comments, labels, headers or blank. */
export function instructionCount(text: string): number {
  return text
    .split('\n')
    .map((l) => l.replace(/\/\/.*$/, '').trim())
    .filter((l) => l && !l.endsWith(':') && !l.startsWith('Function')).length;
}
