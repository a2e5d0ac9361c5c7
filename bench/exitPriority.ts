/**
 * `npm run bench:exit-priority` (issues 10 and 16): the spinlock (`scenarios/spinlock.sass`) on
 * `its` with and without EXIT priority among one warp's lane groups (`groupPriority.ts`), side by
 * side in one process:
 * - one warp at W = 2, 4, 8, 16, 32 (issue 16 wants states at most linear in W);
 * - W = 32 at K = 2, 3, 4 warps (issue 10), with a time budget per search.
 * Lane symmetry and the partial-order reduction over warps are on in both columns; only EXIT
 * priority differs. Writes the table into `bench/RESULTS.md` between its markers (`--no-write`:
 * print only). `--timeout S` (default 60) bounds each multi-warp search; `--warps 2,3` narrows the
 * rows; without EXIT priority only K ≤ `--plain-warps` (default 2) is searched at W = 32 (it runs
 * out of time there already; `--no-plain`: none).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { explore } from '../model/explore/exhaustive.ts';
import { loadProgram, resolveLaunch } from '../model/scenario/loadProgram.ts';
import { machineFor } from '../model/scenario/session.ts';
import { writeResultsSection, machineLine } from './cli.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = ROOT + 'bench/RESULTS.md';
const BEGIN =
  '<!-- exit-priority:begin (written by `npm run bench:exit-priority`; do not edit) -->';
const END = '<!-- exit-priority:end -->';
const FILE = 'scenarios/spinlock.sass';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
};
const write = !argv.includes('--no-write');
const plainWarps = argv.includes('--no-plain') ? 0 : Number(arg('--plain-warps') ?? 2);
const timeoutS = Number(arg('--timeout') ?? 60) || 60;
const warpCounts = (arg('--warps') ?? '2,3,4').split(',').map(Number);
const widths = [2, 4, 8, 16, 32];

interface Run {
  readonly verdict: string;
  readonly states: number;
  readonly cpuS: number;
  /** Distinct warp states in which an exiting group was expanded alone. */
  readonly applied: number | null;
}

function run(w: number, k: number, exitPriority: boolean, timeout: number): Run {
  const text = readFileSync(ROOT + FILE, 'utf8');
  const loaded = loadProgram(text, FILE);
  if (!loaded.ok) throw new Error(loaded.error[0]!.message);
  const launch = resolveLaunch(loaded.value.header, { warpSize: w, warps: k });
  if (!launch.ok) throw new Error(launch.error.join());
  const m = machineFor(loaded.value, launch.value, 'its', {}, 'ascending', false, true, true);
  if (!m.ok) throw new Error(m.error.join());
  const t0 = process.cpuUsage();
  const r = explore(
    m.value,
    { maxStates: 20_000_000, maxDepth: 100_000, timeoutMs: timeout * 1000 },
    undefined,
    { reduce: { exitPriority } },
  );
  const cpu = process.cpuUsage(t0);
  const verdict = r.verdict + (r.kind ? `/${r.kind}` : '') + (r.bound ? ` (${r.bound})` : '');
  return {
    verdict,
    states: r.states,
    cpuS: (cpu.user + cpu.system) / 1e6,
    applied: r.exitPriority?.applied ?? null,
  };
}

const fmt = (r: Run | null): string =>
  r ? `${r.verdict} | ${r.states.toLocaleString('en-US')} | ${r.cpuS.toFixed(2)}` : '— | — | —';

const lines: string[] = [];
lines.push(
  machineLine(),
  `- \`its\` (maximal groups) on ${FILE}; lane symmetry and POR over warps on in both columns; budgets: 20,000,000 states, one warp 60 s, K > 1 ${timeoutS} s; CPU seconds of this process (user + system)`,
  '',
  '| W | K | without: verdict | states | CPU s | EXIT priority: verdict | states | CPU s | states / W |',
  '| ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |',
);
const row = (w: number, k: number, plain: Run | null, reduced: Run) => {
  const line = `| ${w} | ${k} | ${fmt(plain)} | ${fmt(reduced)} | ${k === 1 ? (reduced.states / w).toFixed(1) : '—'} |`;
  lines.push(line);
  process.stderr.write(line + '\n');
};
for (const w of widths) row(w, 1, run(w, 1, false, 60), run(w, 1, true, 60));
for (const k of warpCounts) {
  const reduced = run(32, k, true, timeoutS);
  const plain = k <= plainWarps ? run(32, k, false, timeoutS) : null;
  row(32, k, plain, reduced);
}
const table = lines.join('\n');
if (!write) console.log(table);
else {
  await writeResultsSection(
    RESULTS,
    BEGIN,
    END,
    'EXIT priority among lane groups of an its warp (issues 10, 16)',
    table,
  );
  console.log(`wrote ${RESULTS}`);
}
