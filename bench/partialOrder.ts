/**
 * `npm run bench:por` (issue 10): the search with and without partial-order reduction, side by
 * side in one process, on
 * - the spinlock (`scenarios/spinlock.sass`) on every mechanism at W = 32, K = 2, 3, 4 warps;
 * - the per-thread spinlock (`its`, `grouping=single`) at 4, 6, 8, 10, 12 threads in one warp.
 * and writes the table into `bench/RESULTS.md` between its markers (`--no-write`: print only).
 * With `--warp-symmetry` it compares instead the search without and with warp symmetry (issue 10
 * item 2, both with partial-order reduction) on the spinlock rows, into its own section.
 * Budgets per search: `--timeout S` seconds (default 10) and 2,000,000 states; `--warps 2,3`
 * narrows the rows; `--no-plain` skips the unreduced searches (the slow half).
 */
import { fileURLToPath } from 'node:url';
import { MECHANISMS } from '../model/mechanisms/index.ts';
import { publish, machineLine } from './cli.ts';
import { benchArgs, spinlockMachine, timedExplore } from './spinlock.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = ROOT + 'bench/RESULTS.md';
const wsym = process.argv.includes('--warp-symmetry');
const BEGIN = wsym
  ? '<!-- wsym:begin (written by `npm run bench:wsym`; do not edit) -->'
  : '<!-- por:begin (written by `npm run bench:por`; do not edit) -->';
const END = wsym ? '<!-- wsym:end -->' : '<!-- por:end -->';

const { value: arg, has } = benchArgs();
const write = !has('--no-write');
const plainToo = !has('--no-plain');
const timeoutS = Number(arg('--timeout') ?? 10) || 10;
const warpCounts = (arg('--warps') ?? '2,3,4').split(',').map(Number);
const threadCounts = (arg('--threads') ?? '4,6,8,10,12').split(',').map(Number);

interface Run {
  readonly verdict: string;
  readonly states: number;
  readonly cpuS: number;
}

function run(
  mechanism: string,
  options: Record<string, string>,
  w: number,
  k: number,
  por: boolean,
  warpSymmetry = false,
): Run {
  const m = spinlockMachine({ mechanism, options, warpSize: w, warps: k, symmetric: true });
  const { r, verdict, cpuS } = timedExplore(
    m,
    { maxStates: 2_000_000, maxDepth: 100_000, timeoutMs: timeoutS * 1000 },
    { reduce: { partialOrder: por, warpSymmetry } },
  );
  return { verdict, states: r.states, cpuS };
}

const fmt = (r: Run | null): string =>
  r ? `${r.verdict} | ${r.states.toLocaleString('en-US')} | ${r.cpuS.toFixed(2)}` : '— | — | —';

const lines: string[] = [];
lines.push(
  machineLine(),
  `- budgets per search: ${timeoutS} s, 2,000,000 states; lane symmetry on; CPU seconds of this process (user + system)`,
  '',
  wsym
    ? '| rows | mechanism | W | K | POR verdict | POR states | POR CPU s | POR + warp symmetry verdict | states | CPU s |'
    : '| rows | mechanism | W | K | plain verdict | plain states | plain CPU s | POR verdict | POR states | POR CPU s |',
  '| --- | --- | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: |',
);
const row = (label: string, mech: string, w: number, k: number, plain: Run | null, por: Run) => {
  const line = `| ${label} | ${mech} | ${w} | ${k} | ${fmt(plain)} | ${fmt(por)} |`;
  lines.push(line);
  process.stderr.write(line + '\n');
};
let total = 0;
for (const k of warpCounts) {
  let sum = 0;
  for (const { id } of MECHANISMS) {
    const por = wsym ? run(id, {}, 32, k, true, true) : run(id, {}, 32, k, true);
    const plain = !plainToo ? null : wsym ? run(id, {}, 32, k, true) : run(id, {}, 32, k, false);
    sum += por.cpuS;
    row('spinlock', id, 32, k, plain, por);
  }
  lines.push(
    `| spinlock, all mechanisms | (${wsym ? 'symmetric' : 'POR'} total) | 32 | ${k} | | | | | | ${sum.toFixed(2)} |`,
  );
  total += sum;
}
for (const t of wsym ? [] : threadCounts) {
  const por = run('its', { grouping: 'single' }, t, 1, true);
  const plain = plainToo ? run('its', { grouping: 'single' }, t, 1, false) : null;
  row('per-thread spinlock', 'its grouping=single', t, 1, plain, por);
}
process.stderr.write(`POR CPU s over the spinlock rows: ${total.toFixed(2)}\n`);
const table = lines.join('\n');
await publish(
  write,
  RESULTS,
  BEGIN,
  END,
  wsym ? 'Warp symmetry (issue 10 item 2)' : 'Partial-order reduction (issue 10)',
  table,
);
