import { readFileSync } from 'node:fs';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { LAWS, saveCounterexample, type Law } from '../properties/laws/index.ts';
import { runCampaigns, type CampaignJob } from './checkPool.ts';
import {
  inShard,
  mergeReports,
  parseReport,
  printReport,
  reportStatus,
  rowOf,
  type CheckReport,
} from './checkReport.ts';
import { millis, type Io } from './output.ts';
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
  /** Worker threads (1: everything in this thread). */
  readonly workers: number;
  /** Run only shard `index` of `count` of the law × mechanism pairs (`checkReport.ts`). */
  readonly shard?: { readonly index: number; readonly count: number };
  /** Warp symmetry in the laws' searches (`--no-warp-symmetry`: false). */
  readonly warpSymmetry?: boolean;
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
 *
 * Campaigns run on `workers` threads (`checkPool.ts`) with the same results, in the same order, as
 * on one; `shard` keeps only its slice of the pairs, and `runMerge` puts shards back together.
 */
export async function runCheck(a: CheckArgs, io: Io): Promise<number> {
  const laws = pick(a.property, LAWS, (l) => [l.id, l.tag], 'property');
  const mechs = pick(a.mechanism, MECHANISMS, (m) => [m.id], 'mechanism');
  for (const r of [laws, mechs])
    if (!r.ok) {
      io.err(`warpcheck check: ${r.error}\n`);
      return 2;
    }
  if (!laws.ok || !mechs.ok) return 2;
  const seed = a.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const all: { law: Law; mechanism: string; pair: number }[] = [];
  for (const law of laws.value)
    for (const m of mechs.value)
      if (law.appliesTo(m.id)) all.push({ law, mechanism: m.id, pair: all.length });
  if (all.length === 0) {
    io.err(
      `warpcheck check: none of the chosen properties applies to ${mechs.value.map((m) => m.id).join(', ')}\n`,
    );
    return 2;
  }
  const shard = a.shard;
  const pairs = shard ? all.filter((p) => inShard(p.pair, shard)) : all;
  const shardNote = shard
    ? `; shard ${shard.index}/${shard.count}: ${pairs.length} of ${all.length} pairs`
    : '';
  if (!a.json)
    io.out(
      `seed ${seed}  (${all.length} law × mechanism pairs, ${a.runs} runs each${shardNote})\n`,
    );
  else io.err(`seed ${seed}${shardNote}\n`);
  const total = pairs.length * a.runs;
  const t0 = performance.now();
  let lastDraw = 0;
  const doneOf = new Array<number>(pairs.length).fill(0);
  let doneAll = 0;
  const progress = (i: number, done: number) => {
    doneAll += done - doneOf[i]!;
    doneOf[i] = done;
    if (!io.interactive) return;
    const now = performance.now();
    if (now - lastDraw < 100 && doneAll < total) return;
    lastDraw = now;
    const frac = Math.min(1, doneAll / total);
    const width = 24;
    const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '-');
    const { law, mechanism } = pairs[i]!;
    io.err(
      `\r[${bar}] ${(frac * 100).toFixed(0).padStart(3)}%  ${law.id} × ${mechanism}  ${done}/${a.runs}  ${millis(now - t0)}   \u001b[K`,
    );
  };
  const jobs: CampaignJob[] = pairs.map(({ law, mechanism }) => ({
    law: law.id,
    mechanism,
    runs: a.runs,
    seed,
    ...(a.maxTime ? { maxTimeMs: a.maxTime * 1000 } : {}),
    ...(a.warpSymmetry === false ? { warpSymmetry: false } : {}),
  }));
  const results = await runCampaigns(jobs, a.workers, progress);
  // Saved here, in pair order, whichever thread ran the campaign.
  const rows = results.map((result, i) => {
    const { law, mechanism, pair } = pairs[i]!;
    const saved =
      a.save === false
        ? []
        : result.counterexamples.map((c) =>
            saveCounterexample(
              a.save as string,
              law.id,
              mechanism,
              c,
              `warpcheck ${VERSION} check --property ${law.id} --mechanism ${mechanism} --runs ${a.runs} --seed ${seed}${a.warpSymmetry === false ? ' --no-warp-symmetry' : ''}`,
            ),
          );
    return rowOf(pair, result, saved);
  });
  if (io.interactive) io.err('\r\u001b[K');
  const report: CheckReport = {
    seed,
    runs: a.runs,
    property: a.property,
    mechanism: a.mechanism,
    pairs: all.length,
    ...(shard ? { shard } : {}),
    results: rows,
  };
  if (a.json) io.out(JSON.stringify(report, null, 2) + '\n');
  else {
    printReport(report, io);
    const shardArg = shard ? ` --shard ${shard.index}/${shard.count}` : '';
    io.out(
      `\nseed ${seed}; reproduce with: warpcheck check --property ${a.property} --mechanism ${a.mechanism} --runs ${a.runs} --seed ${seed}${shardArg}${a.warpSymmetry === false ? ' --no-warp-symmetry' : ''}\n`,
    );
  }
  return reportStatus(report);
}

/**
 * `warpcheck check --merge a.json b.json …`: the `--json` documents of the shards of one campaign
 * merged into the table (or, with `json`, the document) that the unsharded run prints. Exit status
 * as for a run, 2 when a file is unreadable, of another campaign, or a shard is missing.
 */
export function runMerge(files: readonly string[], json: boolean, io: Io): number {
  const parts: { file: string; report: CheckReport }[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      io.err(`warpcheck check --merge: cannot read ${file}: ${(e as Error).message}\n`);
      return 2;
    }
    const r = parseReport(text, file);
    if (typeof r === 'string') {
      io.err(`warpcheck check --merge: ${r}\n`);
      return 2;
    }
    parts.push({ file, report: r });
  }
  const merged = mergeReports(parts);
  if (typeof merged === 'string') {
    io.err(`warpcheck check --merge: ${merged}\n`);
    return 2;
  }
  if (json) io.out(JSON.stringify(merged, null, 2) + '\n');
  else {
    io.out(
      `seed ${merged.seed}  (${merged.pairs} law × mechanism pairs, ${merged.runs} runs each; merged from ${files.length} file${files.length > 1 ? 's' : ''})\n`,
    );
    printReport(merged, io);
    io.out(
      `\nseed ${merged.seed}; reproduce with: warpcheck check --property ${merged.property} --mechanism ${merged.mechanism} --runs ${merged.runs} --seed ${merged.seed}\n`,
    );
  }
  return reportStatus(merged);
}
