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
import { fileURLToPath } from 'node:url';
import { publish, machineLine } from './cli.ts';
import { benchArgs, spinlockMachine, timedExplore } from './spinlock.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = ROOT + 'bench/RESULTS.md';
const BEGIN =
  '<!-- exit-priority:begin (written by `npm run bench:exit-priority`; do not edit) -->';
const END = '<!-- exit-priority:end -->';

const { value: arg, has } = benchArgs();
const write = !has('--no-write');
const plainWarps = has('--no-plain') ? 0 : Number(arg('--plain-warps') ?? 2);
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
  const m = spinlockMachine({ mechanism: 'its', warpSize: w, warps: k, symmetric: true });
  const { r, verdict, cpuS } = timedExplore(
    m,
    { maxStates: 20_000_000, maxDepth: 100_000, timeoutMs: timeout * 1000 },
    { reduce: { exitPriority } },
  );
  return { verdict, states: r.states, cpuS, applied: r.exitPriority?.applied ?? null };
}

const fmt = (r: Run | null): string =>
  r ? `${r.verdict} | ${r.states.toLocaleString('en-US')} | ${r.cpuS.toFixed(2)}` : '— | — | —';

const lines: string[] = [];
lines.push(
  machineLine(),
  `- \`its\` (maximal groups) on scenarios/spinlock.sass; lane symmetry and POR over warps on in both columns; budgets: 20,000,000 states, one warp 60 s, K > 1 ${timeoutS} s; CPU seconds of this process (user + system)`,
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
await publish(
  write,
  RESULTS,
  BEGIN,
  END,
  'EXIT priority among lane groups of an its warp (issues 10, 16)',
  table,
);
