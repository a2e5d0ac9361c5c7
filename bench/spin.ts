/**
 * `npm run bench:spin` (issue 10, "per-thread spinlock"): warpcheck's per-thread semantics (`its`,
 * `grouping=single`) on `scenarios/spinlock.sass` against SPIN on the same spinlock written in
 * Promela (`bench/spinlock.pml`, one statement per live SASS instruction), at 8, 10 and 12 threads
 * (`--threads 6,8`), one after the other in this process.
 *
 * - warpcheck: the exhaustive search with its defaults (partial-order reduction, lane symmetry,
 *   chains), in this process: verdict, states, CPU seconds of the search.
 * - SPIN (where `spin` and `gcc` are on the PATH; `apt-get install spin` — the row says so when it
 *   is absent): `spin -a`, `gcc -O2`, then `pan` twice — safety (`-DSAFETY`: deadlocks, invalid
 *   end states) and liveness (`ltl terminates { <> (done == N) }` under weak fairness, `pan -a -f`,
 *   compiled with `-DNFAIR` large enough for N threads and the never claim),
 *   with SPIN's own partial-order reduction: states stored and pan's own elapsed time (the search,
 *   not the compile), each with a time budget (`--timeout S`, default 120).
 *
 * Writes the table into `bench/RESULTS.md` between its markers (`--no-write`: print only).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, publish } from './cli.ts';
import { benchArgs, spinlockMachine, timedExplore } from './spinlock.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = ROOT + 'bench/RESULTS.md';
const BEGIN = '<!-- spin:begin (written by `npm run bench:spin`; do not edit) -->';
const END = '<!-- spin:end -->';

const { value: arg, has: flag } = benchArgs();
const write = !flag('--no-write');
const timeoutS = Number(arg('--timeout') ?? 120) || 120;
const threads = (arg('--threads') ?? '8,10,12').split(',').map(Number);

/** warpcheck's search on `t` threads: verdict, states, CPU seconds. */
function warpcheck(t: number): string {
  const m = spinlockMachine({
    mechanism: 'its',
    options: { grouping: 'single' },
    warpSize: t,
    warps: 1,
    symmetric: true,
  });
  const budget = { maxStates: 20_000_000, maxDepth: 100_000, timeoutMs: timeoutS * 1000 };
  const { r, verdict, cpuS } = timedExplore(m, budget);
  return `${verdict} | ${r.states.toLocaleString('en-US')} | ${cpuS.toFixed(2)}`;
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const spinPresent = has('spin') && has('gcc');

/** One pan run: "states | seconds" from its report, or what stopped it. */
function pan(dir: string, defines: string[], args: string[]): string {
  const cc = spawnSync('gcc', ['-O2', ...defines, '-o', 'pan', 'pan.c'], { cwd: dir });
  if (cc.status !== 0) return `gcc failed | —`;
  const r = spawnSync('./pan', args, { cwd: dir, encoding: 'utf8', timeout: timeoutS * 1000 });
  const out = r.stdout ?? '';
  const states = /(\d+) states, stored/.exec(out)?.[1];
  const secs = /pan: elapsed time ([\d.e+]+) seconds/.exec(out)?.[1];
  const errors = /errors: (\d+)/.exec(out)?.[1];
  if (r.error || r.signal) return `stopped at ${timeoutS} s | —`;
  if (!states || !secs) {
    const why = /pan: error: ([^\n]*)/.exec(out)?.[1] ?? `exit ${r.status}`;
    return `no report (${why}) | —`;
  }
  return `${Number(states).toLocaleString('en-US')}${errors !== '0' ? ` (${errors} errors)` : ''} | ${Number(secs).toFixed(2)}`;
}

/** SPIN on `t` threads: safety and liveness columns. */
function spin(t: number): string {
  if (!spinPresent) return 'SPIN absent (apt-get install spin) | — | — | —';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'warpcheck-spin-'));
  try {
    const model = readFileSync(ROOT + 'bench/spinlock.pml', 'utf8').replace(
      /^#define N \d+$/m,
      `#define N ${t}`,
    );
    writeFileSync(path.join(dir, 'spinlock.pml'), model);
    const gen = spawnSync('spin', ['-a', 'spinlock.pml'], { cwd: dir });
    if (gen.status !== 0) return 'spin -a failed | — | — | —';
    return `${pan(dir, ['-DSAFETY'], ['-m100000'])} | ${pan(dir, [`-DNFAIR=${Math.max(3, Math.ceil((t + 2) / 4) + 1)}`], ['-a', '-f', '-m100000'])}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const spinVersion = spinPresent
  ? (spawnSync('spin', ['-V'], { encoding: 'utf8' }).stdout ?? '').trim()
  : 'absent';
const lines = [
  machineLine(),
  `- warpcheck: \`its\`, \`grouping=single\`, defaults (partial-order reduction, lane symmetry, chains), CPU seconds of the search in this process; SPIN: ${spinVersion}, \`bench/spinlock.pml\`, pan's elapsed time of the search (after \`spin -a\` and \`gcc -O2\`); budgets ${timeoutS} s per search`,
  '',
  '| threads | warpcheck verdict | states | CPU s | SPIN safety states | s | SPIN liveness (weak fairness) states | s |',
  '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
];
for (const t of threads) {
  const line = `| ${t} | ${warpcheck(t)} | ${spin(t)} |`;
  lines.push(line);
  process.stderr.write(line + '\n');
}
const table = lines.join('\n');
await publish(write, RESULTS, BEGIN, END, 'Per-thread spinlock against SPIN (issue 10)', table);
