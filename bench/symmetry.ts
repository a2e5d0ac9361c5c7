/**
 * `npm run bench:symmetry` (issue 16): the search with and without lane symmetry, side by side in
 * one process, on
 * - the spinlock (`scenarios/spinlock.sass`) on `its` at W = 2 … 32, one warp;
 * - three unknown branches in a loop (`scenarios/unknown-branches.sass`) on `simt-stack` and
 *   `hanoi` at W = 4, 8, 16, 32;
 * and writes the table into `bench/RESULTS.md` between its markers (`--no-write`: print only).
 * Budgets per row: 30 s and 2,000,000 states (`--timeout S`). The real listings' rows (the other
 * bench of issue 16) are `npm run findings -- --warp-size 32` and `-- --warp-size 4`, which write
 * `docs/findings.md`.
 */
import { fileURLToPath } from 'node:url';
import { publish, machineLine } from './cli.ts';
import { spinlockMachine, timedExplore } from './spinlock.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = ROOT + 'bench/RESULTS.md';
const BEGIN = '<!-- symmetry:begin (written by `npm run bench:symmetry`; do not edit) -->';
const END = '<!-- symmetry:end -->';

const argv = process.argv.slice(2);
const write = !argv.includes('--no-write');
const timeoutS = Number(argv[argv.indexOf('--timeout') + 1] ?? 30) || 30;

interface Case {
  readonly file: string;
  readonly mechanism: string;
  readonly warpSizes: readonly number[];
}
const CASES: readonly Case[] = [
  { file: 'scenarios/spinlock.sass', mechanism: 'its', warpSizes: [2, 4, 8, 16, 32] },
  { file: 'scenarios/unknown-branches.sass', mechanism: 'simt-stack', warpSizes: [4, 8, 16, 32] },
  { file: 'scenarios/unknown-branches.sass', mechanism: 'hanoi', warpSizes: [4, 8, 16, 32] },
];

function run(c: Case, w: number, symmetric: boolean) {
  const m = spinlockMachine(
    { mechanism: c.mechanism, warpSize: w, warps: 1, symmetric },
    ROOT + c.file,
  );
  const { r, verdict, cpuS } = timedExplore(m, {
    maxStates: 2_000_000,
    maxDepth: 100_000,
    timeoutMs: timeoutS * 1000,
  });
  return { verdict, states: r.states, cpuS };
}

const lines: string[] = [];
lines.push(
  machineLine(),
  `- budgets per row: ${timeoutS} s, 2,000,000 states; CPU seconds of this process (user + system) per search`,
  '',
  '| listing | mechanism | W | plain verdict | plain states | plain CPU s | symmetric verdict | symmetric states | symmetric CPU s |',
  '| --- | --- | ---: | --- | ---: | ---: | --- | ---: | ---: |',
);
for (const c of CASES)
  for (const w of c.warpSizes) {
    const plain = run(c, w, false);
    const sym = run(c, w, true);
    const row = `| \`${c.file.replace('scenarios/', '')}\` | ${c.mechanism} | ${w} | ${plain.verdict} | ${plain.states.toLocaleString('en-US')} | ${plain.cpuS.toFixed(2)} | ${sym.verdict} | ${sym.states.toLocaleString('en-US')} | ${sym.cpuS.toFixed(2)} |`;
    lines.push(row);
    process.stderr.write(row + '\n');
  }
const table = lines.join('\n');
await publish(write, RESULTS, BEGIN, END, 'Lane symmetry (issue 16)', table);
