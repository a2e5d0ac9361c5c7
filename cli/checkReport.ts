/**
 * What `warpcheck check` reports, as data: the `--json` document, the table printed from it, and
 * the merge of shard documents (`--shard i/n`, `--merge`). The text table of a run and of a merge
 * of its shards come from the same rows, so they agree line for line (times aside).
 */
import { z } from 'zod';
import { LAWS, type CampaignResult } from '../properties/laws/index.ts';
import { millis, table, thousands, type Io } from './output.ts';

const counterexampleSchema = z.object({
  expected: z.array(z.string()),
  message: z.string(),
  verdict: z.string(),
  kind: z.string().nullable(),
  path: z.string(),
  shrinks: z.number(),
  warpSize: z.number(),
  instructions: z.number(),
  saved: z.string().nullable(),
  /** The shrunk kernel's listing (printed when it was not saved). */
  text: z.string(),
});

const rowSchema = z.object({
  /** Place of this law × mechanism pair in the whole (unsharded) campaign. */
  pair: z.number().int().nonnegative(),
  law: z.string(),
  mechanism: z.string(),
  generator: z.string(),
  runs: z.number(),
  skipped: z.number(),
  expectedFailures: z.number(),
  unexpectedFailures: z.number(),
  missing: z.array(z.object({ class: z.string(), reason: z.string() })),
  shrinks: z.number(),
  timeMs: z.number(),
  runsPerSecond: z.number(),
  interrupted: z.boolean(),
  measures: z.record(z.string(), z.object({ count: z.number(), sum: z.number(), max: z.number() })),
  counterexamples: z.array(counterexampleSchema),
});

const reportSchema = z.object({
  seed: z.number(),
  runs: z.number(),
  property: z.string(),
  mechanism: z.string(),
  /** Law × mechanism pairs of the whole campaign. */
  pairs: z.number().int().nonnegative(),
  /** Present on a shard's document: shard `index` (1-based) of `count`. */
  shard: z.object({ index: z.number().int(), count: z.number().int() }).optional(),
  results: z.array(rowSchema),
});

export type CheckRow = z.infer<typeof rowSchema>;
export type CheckReport = z.infer<typeof reportSchema>;

/** The report row of one campaign; `saved[i]` is where counterexample i was saved, if it was. */
export function rowOf(pair: number, r: CampaignResult, saved: readonly string[]): CheckRow {
  return {
    pair,
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
      text: c.kernel.text,
    })),
  };
}

/** Exit status of a report: 1 when some failure is not declared in `expectations.ts`. */
export const reportStatus = (r: CheckReport): number =>
  r.results.some((x) => x.unexpectedFailures > 0) ? 1 : 0;

/** Prints the law × mechanism table and each row's counterexamples, missing failures and notes. */
export function printReport(report: CheckReport, io: Io): void {
  const c = io.colour;
  const rows = report.results;
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
        rows.map((r) => [
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
  for (const r of rows) {
    const disc = r.measures['discrepancy'];
    if (disc)
      io.out(
        `${r.law} on ${r.mechanism}: warp-trace discrepancy vs simt-stack mean ${(disc.sum / disc.count).toFixed(3)}, max ${disc.max.toFixed(3)} over ${disc.count} kernels\n`,
      );
    for (const cx of r.counterexamples) {
      const how = cx.expected.length
        ? c.yellow(`expected (${cx.expected.join(', ')})`)
        : c.red('UNEXPECTED');
      io.out(
        `${r.law} on ${r.mechanism}: ${how} — shrunk in ${cx.shrinks} steps to ${cx.warpSize} lane${cx.warpSize > 1 ? 's' : ''}, ${cx.instructions} instructions (fast-check path ${cx.path})\n  ${cx.message}\n`,
      );
      if (cx.saved) io.out(`  saved ${cx.saved}  (replay: warpcheck replay ${cx.saved})\n`);
      else io.out(indent(cx.text));
    }
    for (const e of r.missing)
      io.out(
        c.red(`${r.law} on ${r.mechanism}: expected failure did not occur in ${r.runs} runs`) +
          ` — class ${e.class}: ${e.reason}\n`,
      );
    if (r.interrupted)
      io.out(`${r.law} on ${r.mechanism}: stopped by --max-time after ${r.runs} runs\n`);
  }
}

/** Reads one `check --json` document, or says what is wrong with it (`file: …`). */
export function parseReport(text: string, file: string): CheckReport | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return `${file}: not JSON (${(e as Error).message})`;
  }
  const r = reportSchema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    return `${file}: not a 'warpcheck check --json' document (${issue.path.join('.') || 'top level'}: ${issue.message})`;
  }
  return r.data;
}

/**
 * Merges the documents of the shards of one campaign into the document the unsharded run prints:
 * same seed, runs, laws and mechanisms, every pair exactly once, in campaign order.
 */
export function mergeReports(
  parts: readonly { file: string; report: CheckReport }[],
): CheckReport | string {
  const first = parts[0];
  if (!first) return 'nothing to merge';
  const { seed, runs, property, mechanism, pairs } = first.report;
  for (const { file, report: r } of parts)
    if (r.seed !== seed || r.runs !== runs || r.property !== property || r.mechanism !== mechanism)
      return `${file}: another campaign (seed ${r.seed}, --runs ${r.runs}, --property ${r.property}, --mechanism ${r.mechanism}) than ${first.file} (seed ${seed}, --runs ${runs}, --property ${property}, --mechanism ${mechanism})`;
  const byPair = new Map<number, { file: string; row: CheckRow }>();
  for (const { file, report } of parts)
    for (const row of report.results) {
      const seen = byPair.get(row.pair);
      if (seen)
        return `${file}: ${row.law} × ${row.mechanism} is also in ${seen.file} (a shard given twice?)`;
      byPair.set(row.pair, { file, row });
    }
  const missing: number[] = [];
  for (let i = 0; i < pairs; i++) if (!byPair.has(i)) missing.push(i);
  if (missing.length > 0) {
    const shards = new Set(parts.map((p) => p.report.shard?.count));
    const n = shards.size === 1 ? [...shards][0] : undefined;
    const lost = n ? [...new Set(missing.map((i) => (i % n) + 1))] : [];
    const which = n
      ? ` (shard${lost.length > 1 ? 's' : ''} ${lost.map((s) => `${s}/${n}`).join(', ')} missing)`
      : '';
    return `${missing.length} of ${pairs} law × mechanism pairs are in none of the files${which}`;
  }
  const results = [...byPair.values()].map((x) => x.row).sort((a, b) => a.pair - b.pair);
  return { seed, runs, property, mechanism, pairs, results };
}

/** Shard `index` of `count` (1-based) takes the pairs whose place is `index - 1` modulo `count`. */
export const inShard = (pair: number, shard: { index: number; count: number }): boolean =>
  pair % shard.count === shard.index - 1;

/** Parses `i/n` (1 ≤ i ≤ n), the vitest and Playwright convention. */
export function parseShard(s: string): { index: number; count: number } | string {
  const m = /^(\d+)\/(\d+)$/.exec(s.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count)
    return `--shard must be i/n with 1 ≤ i ≤ n (e.g. 1/2), not '${s}'`;
  return { index, count };
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
