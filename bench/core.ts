/**
 * `npm run core-compare`: the comparisons the papers make, measured with our issue core
 * (issue 6 item 5), by running `warpcheck simulate --json` and writing the tables into
 * docs/core.md between the markers.
 *
 *   npm run core-compare               regenerate the tables in docs/core.md
 *   npm run core-compare -- --no-write print only
 *
 * Cycle counts are deterministic (the core has no randomness), so the tables are reproducible.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli, withSection, writeFormatted } from './cli.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CORE_DOC = join(ROOT, 'docs', 'core.md');
export const BEGIN = '<!-- core:begin (written by `npm run core-compare`; do not edit) -->';
export const END = '<!-- core:end -->';

interface SimRow {
  readonly mechanism: string;
  readonly scheduler: string;
  readonly scoreboard: string;
  readonly end: { kind: string };
  readonly cycles: number;
  readonly issued: number;
  readonly idle: number;
  readonly stalls: number;
  readonly falseStalls: number;
  readonly ipc: number;
  readonly simdEfficiency: number;
}

async function simulateJson(args: readonly string[]): Promise<SimRow[]> {
  const r = await cli(['simulate', ...args, '--json']);
  if (r.code !== 0) throw new Error(`warpcheck simulate ${args.join(' ')}: ${r.err}`);
  return (JSON.parse(r.out) as { results: SimRow[] }).results;
}

const ratio = (x: number, base: number) => (base === 0 ? '–' : (x / base).toFixed(2));
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** The markdown of every comparison, with the command behind each table. */
export async function coreTables(): Promise<string> {
  const out: string[] = [];
  const loads = 'scenarios/core/divergent-loads.sass';

  // 1. Multi-path against the SIMT stack on divergent code with long-latency loads.
  out.push(
    '### Multi-path mechanisms against the SIMT stack (divergent code, long-latency loads)',
    '',
    `\`warpcheck simulate ${loads} --mechanism simt-stack,mp-ipdom,dual-path --scoreboard all --warps K\``,
    '(loose round robin; latencies alu 4, sfu 20, shared 30, global 200). Ratios are against',
    '`simt-stack` with the same K and scoreboard.',
    '',
    '| K | mechanism | scoreboard | cycles | cycles / simt-stack | issued | idle cycles | IPC | IPC / simt-stack | false stalls |',
    '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const k of [1, 2, 4]) {
    const rows = await simulateJson([
      join(ROOT, loads),
      '--mechanism',
      'simt-stack,mp-ipdom,dual-path',
      '--scoreboard',
      'all',
      '--warps',
      String(k),
    ]);
    for (const r of rows) {
      const base = rows.find((x) => x.mechanism === 'simt-stack' && x.scoreboard === r.scoreboard)!;
      out.push(
        `| ${k} | \`${r.mechanism}\` | ${r.scoreboard} | ${r.cycles} | ${ratio(r.cycles, base.cycles)} | ${r.issued} | ${r.idle} | ${r.ipc.toFixed(3)} | ${ratio(r.ipc, base.ipc)} | ${r.falseStalls} |`,
      );
    }
  }

  // 2. Opcode-convergent threads against the SIMT stack.
  out.push(
    '',
    '### Opcode-convergent threads against the SIMT stack',
    '',
    '`warpcheck simulate FILE --mechanism simt-stack,opcode-convergent --scoreboard all`',
    '',
    '| program | mechanism | scoreboard | issued | issued / simt-stack | cycles | cycles / simt-stack | SIMD efficiency |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const file of ['scenarios/seed002-opcode-convergent.sass', loads]) {
    const rows = await simulateJson([
      join(ROOT, file),
      '--mechanism',
      'simt-stack,opcode-convergent',
      '--scoreboard',
      'all',
    ]);
    for (const r of rows) {
      const base = rows.find((x) => x.mechanism === 'simt-stack' && x.scoreboard === r.scoreboard)!;
      out.push(
        `| \`${file}\` | \`${r.mechanism}\` | ${r.scoreboard} | ${r.issued} | ${ratio(r.issued, base.issued)} | ${r.cycles} | ${ratio(r.cycles, base.cycles)} | ${pct(r.simdEfficiency)} |`,
      );
    }
  }

  // 3. Per-warp against lane-mask scoreboard: false stalls.
  out.push(
    '',
    '### Per-warp against lane-mask scoreboard (false stalls)',
    '',
    `\`warpcheck simulate FILE --mechanism all --scoreboard all\` (K = 1); a false stall is a cycle in`,
    'which the per-warp scoreboard held a warp whose candidate shares no lane with the pending writes.',
    '',
    '| program | mechanism | warp: cycles | warp: stalls | warp: false stalls | mask: cycles | mask: stalls |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const file of [loads, 'scenarios/seed000-fig1-if-else.sass']) {
    const rows = await simulateJson([
      join(ROOT, file),
      '--mechanism',
      'simt-stack,mp-ipdom,dual-path,opcode-convergent',
      '--scoreboard',
      'all',
    ]);
    for (const mech of [...new Set(rows.map((r) => r.mechanism))]) {
      const w = rows.find((r) => r.mechanism === mech && r.scoreboard === 'warp')!;
      const m = rows.find((r) => r.mechanism === mech && r.scoreboard === 'mask')!;
      out.push(
        `| \`${file}\` | \`${mech}\` | ${w.cycles} | ${w.stalls} | ${w.falseStalls} | ${m.cycles} | ${m.stalls} |`,
      );
    }
  }
  return out.join('\n') + '\n';
}

async function run(argv: readonly string[]): Promise<number> {
  const t = await coreTables();
  process.stdout.write(t);
  if (!argv.includes('--no-write')) {
    await writeFormatted(CORE_DOC, withSection(readFileSync(CORE_DOC, 'utf8'), BEGIN, END, t));
    process.stderr.write(`wrote ${CORE_DOC}\n`);
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`core-compare: ${e.message}\n`);
      process.exit(2);
    },
  );
