/**
 * `npm run findings`: explores the kernel entries of every real listing in `../shared/sass/` that
 * `INDEX.json` does not flag (hand-edited, excerpt, trap handler) on `its` and `hanoi`, in abstract
 * mode (SEMANTICS §5), and writes the table into `docs/findings.md` between the markers.
 *
 *   npm run findings                       W = 4, one warp, 200 k states and 10 s per run
 *   npm run findings -- --max-states N --timeout S --warp-size W
 *   npm run findings -- --only NAME        only files whose name contains NAME (prints, no write)
 *   npm run findings -- --no-write         print only
 *   npm run findings -- --shard 1/2        every second kernel from the first (prints, no write):
 *                                          shards run side by side on a machine's cores
 *
 * Kernel entries: an nvdisasm listing marks them (`.other NAME,@"STO_CUDA_ENTRY …"`); a listing
 * without those marks (cuobjdump, fragments) is taken to have a kernel in every function that holds
 * an EXIT (cuobjdump's `Function :` blocks of device functions end in RET and never EXIT); a
 * listing with neither has every function explored.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { explore, verdictPossible, type ExploreResult } from '../model/explore/exhaustive.ts';
import { loadProgram, resolveLaunch } from '../model/scenario/loadProgram.ts';
import { machineFor } from '../model/scenario/session.ts';
import { kernelEntries } from '../model/scenario/kernels.ts';

const SASS = fileURLToPath(new URL('../../shared/sass/', import.meta.url));
const DOC = fileURLToPath(new URL('../docs/findings.md', import.meta.url));
const BEGIN = (w: number) =>
  `<!-- findings:table:begin W=${w} (written by \`npm run findings -- --warp-size ${w}\`; do not edit) -->`;
const END = (w: number) => `<!-- findings:table:end W=${w} -->`;
const MECHANISMS = ['its', 'hanoi'] as const;

interface Args {
  readonly maxStates: number;
  readonly timeoutS: number;
  readonly warpSize: number;
  readonly only: string | null;
  readonly write: boolean;
  /** Kernel k (in file and function order, from 0) runs when k mod `of` = `index` − 1. */
  readonly shard: { readonly index: number; readonly of: number } | null;
}

function parseArgs(argv: readonly string[]): Args {
  const at = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1]! : null;
  };
  const only = at('--only');
  const shardArg = at('--shard');
  const shardMatch = shardArg === null ? null : /^(\d+)\/(\d+)$/.exec(shardArg);
  const shard = shardMatch ? { index: Number(shardMatch[1]), of: Number(shardMatch[2]) } : null;
  if (shardArg !== null && !(shard && shard.index >= 1 && shard.index <= shard.of)) {
    console.error(`--shard takes i/n with 1 ≤ i ≤ n (e.g. 1/2), not ${shardArg}`);
    process.exit(2);
  }
  return {
    maxStates: Number(at('--max-states') ?? 200_000),
    timeoutS: Number(at('--timeout') ?? 10),
    warpSize: Number(at('--warp-size') ?? 4),
    only,
    write: only === null && shard === null && !argv.includes('--no-write'),
    shard,
  };
}

interface IndexEntry {
  readonly file: string;
  readonly note?: string;
}

/** Why INDEX.json says a file is not plain compiler output, or null. */
function flagOf(note: string): string | null {
  if (/hand-edited/i.test(note)) return 'hand-edited';
  if (/excerpt/i.test(note)) return 'excerpt';
  if (/trap[- ]handler/i.test(note)) return 'trap handler';
  return null;
}

interface Row {
  readonly file: string;
  readonly fn: string;
  readonly rule: string;
  readonly results: Record<string, ExploreResult | { error: string }>;
}

const short = (file: string) => file.replace(/\.sass$/, '');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const possibleOf = (r: ExploreResult | { error: string }) => !('error' in r) && verdictPossible(r);
const verdictOf = (r: ExploreResult | { error: string }) =>
  'error' in r
    ? 'error'
    : r.verdict + (r.kind ? `/${r.kind}` : '') + (r.bound ? ` (${r.bound})` : '');
/** A verdict other than unsupported or bound-reached (the bench target of issue 16). */
const answered = (r: ExploreResult | { error: string }) =>
  !('error' in r) && r.verdict !== 'unsupported' && r.verdict !== 'bound-reached';
const statesOf = (r: ExploreResult | { error: string }) =>
  'error' in r ? '-' : r.states.toLocaleString('en-US');
const messageOf = (r: ExploreResult | { error: string }) =>
  'error' in r
    ? r.error
    : r.verdict === 'terminates' || r.verdict === 'bound-reached'
      ? ''
      : r.message;

function runAll(a: Args): { rows: Row[]; skipped: { file: string; flag: string }[] } {
  const index = JSON.parse(readFileSync(SASS + 'INDEX.json', 'utf8')) as {
    entries: IndexEntry[];
  };
  const rows: Row[] = [];
  /** Kernels met so far, in file and function order (`--shard`). */
  let kernel = 0;
  const skipped: { file: string; flag: string }[] = [];
  const files = index.entries
    .filter((e) => e.file.endsWith('.sass'))
    .sort((x, y) => x.file.localeCompare(y.file));
  for (const e of files) {
    if (a.only !== null && !e.file.includes(a.only)) continue;
    const flag = flagOf(e.note ?? '');
    if (flag) {
      skipped.push({ file: e.file, flag });
      continue;
    }
    const text = readFileSync(SASS + e.file, 'utf8');
    const first = loadProgram(text, e.file);
    if (!first.ok) {
      rows.push({
        file: e.file,
        fn: '-',
        rule: '-',
        results: { its: { error: first.error[0]!.message }, hanoi: { error: '' } },
      });
      continue;
    }
    const prog = first.value.program;
    const { names, rule } = kernelEntries(text, prog);
    for (const fn of names) {
      const k = kernel++;
      if (a.shard && k % a.shard.of !== a.shard.index - 1) continue;
      const loaded = loadProgram(text, e.file, { entry: fn });
      const results: Row['results'] = {};
      for (const id of MECHANISMS) {
        if (!loaded.ok) {
          results[id] = { error: loaded.error[0]!.message };
          continue;
        }
        const launch = resolveLaunch(loaded.value.header, { warpSize: a.warpSize, warps: 1 });
        if (!launch.ok) {
          results[id] = { error: launch.error.join('; ') };
          continue;
        }
        // As `warpcheck explore` runs by default: lane symmetry, loop widening and dead writes
        // (issue 16).
        const m = machineFor(
          loaded.value,
          launch.value,
          id,
          {},
          'ascending',
          false,
          true,
          true,
          2,
          {
            skipDeadWrites: true,
          },
        );
        if (!m.ok) {
          results[id] = { error: m.error.join('; ') };
          continue;
        }
        results[id] = explore(m.value, {
          maxStates: a.maxStates,
          maxDepth: 100_000,
          timeoutMs: a.timeoutS * 1000,
          maxMemoryMb: 8192,
        });
      }
      const row = { file: e.file, fn, rule, results };
      rows.push(row);
      process.stderr.write(
        `${short(e.file)} ${fn}: ${MECHANISMS.map((id) => `${id} ${verdictOf(results[id]!)}`).join(', ')}\n`,
      );
    }
  }
  return { rows, skipped };
}

function render(a: Args, rows: readonly Row[], skipped: readonly { file: string; flag: string }[]) {
  const out: string[] = [];
  const date = new Date().toISOString().slice(0, 10);
  out.push(
    `Regenerate: \`npm run findings\` (= \`node --import tsx bench/findings.ts\`; W = ${a.warpSize}, one warp, ` +
      `abstract mode, default options, lane symmetry, loop widening and dead writes on as in \`explore\`, ${a.maxStates.toLocaleString('en-US')} states and ${a.timeoutS} s per run). ` +
      `Generated ${date}.`,
    '',
    'Kernel column: `entry` = marked `STO_CUDA_ENTRY` by nvdisasm; `exit` = a listing without those ' +
      'marks, every function that holds an EXIT; `all` = neither, every function.',
    '',
    '`possible`: the verdict is reached only through a branch on an unknown value or a widened loop (real inputs may never take it).',
    '',
    '| file | function | kernel | its | possible | its states | hanoi | possible | hanoi states | message |',
    '| --- | --- | --- | --- | --- | ---: | --- | --- | ---: | --- |',
  );
  for (const r of rows) {
    const its = r.results['its']!;
    const hanoi = r.results['hanoi']!;
    const msgs = MECHANISMS.map((id) => [id, messageOf(r.results[id]!)] as const)
      .filter(([, m]) => m !== '')
      .map(([id, m]) => `${id}: ${m.length > 160 ? m.slice(0, 157) + '…' : m}`);
    out.push(
      `| ${cell(short(r.file))} | ${cell(r.fn.length > 40 ? r.fn.slice(0, 37) + '…' : r.fn)} | ${r.rule} | ` +
        `${verdictOf(its)} | ${possibleOf(its) ? 'possible' : ''} | ${statesOf(its)} | ${verdictOf(hanoi)} | ${possibleOf(hanoi) ? 'possible' : ''} | ${statesOf(hanoi)} | ${cell(msgs.join('; '))} |`,
    );
  }
  const tally = (id: string) => {
    const c = new Map<string, number>();
    for (const r of rows) {
      const v = verdictOf(r.results[id]!).replace(/ \(.*\)$/, '');
      c.set(v, (c.get(v) ?? 0) + 1);
    }
    return [...c].map(([v, n]) => `${v} ${n}`).join(', ');
  };
  out.push(
    '',
    `Totals over ${rows.length} functions — its: ${tally('its')}; hanoi: ${tally('hanoi')}. ` +
      `Rows with a verdict other than unsupported or bound-reached: ${rows.filter((r) => answered(r.results['its']!)).length + rows.filter((r) => answered(r.results['hanoi']!)).length} of ${rows.length * 2}.`,
    '',
    `Skipped (flagged in INDEX.json): ${skipped.map((s) => `\`${short(s.file)}\` (${s.flag})`).join(', ')}.`,
  );
  return out.join('\n');
}

const args = parseArgs(process.argv.slice(2));
const { rows, skipped } = runAll(args);
const table = render(args, rows, skipped);
if (!args.write) {
  console.log(table);
} else {
  const doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : `# Findings on real listings\n`;
  const begin = BEGIN(args.warpSize);
  const end = END(args.warpSize);
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  const text =
    i < 0 || j < i
      ? `${doc.trimEnd()}\n\n## W = ${args.warpSize}\n\n${begin}\n\n${table}\n\n${end}\n`
      : doc.slice(0, i + begin.length) + '\n\n' + table + '\n\n' + doc.slice(j);
  // CI checks formatting: write the document as prettier would.
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(DOC)) ?? {};
  writeFileSync(DOC, await prettier.format(text, { ...config, filepath: DOC }));
  console.log(`wrote ${DOC} (${rows.length} functions)`);
}
