/**
 * `npm run bench:speed` (issue 10 §3, §4): the explorer's raw speed and `check` on every core.
 *
 * - States per CPU-second of the exhaustive search on the spinlock (`scenarios/spinlock.sass`),
 *   `its`, W = 32, K = 2, without the search's reductions — lane symmetry, partial-order
 *   reduction, EXIT and BSYNC priority, lone groups, warp symmetry and chains off; only dead values
 *   left out of keys, as when issue 10 set the target —: the first 2,000,000 states (the whole
 *   space is about 10.5 M states), measured in this process with `process.cpuUsage` (GC threads
 *   included). With the reductions on, the whole space is about 15,000 states: no speed figure.
 * - `check` on every law × mechanism pair, `--runs R` kernels each (default 20), through the
 *   compiled CLI (`dist/`, `npm run build` first) with `--workers 1` and `--workers 2`: kernels per
 *   wall second and per CPU-second (the child's user + system time, worker threads included), and
 *   the projection for 10,000 kernels per pair on two cores.
 *
 * Writes the table into `bench/RESULTS.md` between its markers (`--no-write`: print only). About a
 * minute and a half on an idle two-core machine; `--runs R`, `--max-states N` make it shorter.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { explore, noReductions } from '../model/explore/exhaustive.ts';
import { writeResultsSection } from './cli.ts';
import { spinlockMachine } from './spinlock.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = ROOT + 'bench/RESULTS.md';
const BEGIN = '<!-- speed:begin (written by `npm run bench:speed`; do not edit) -->';
const END = '<!-- speed:end -->';

const argv = process.argv.slice(2);
const at = (flag: string, d: number) => {
  const i = argv.indexOf(flag);
  return i >= 0 ? Number(argv[i + 1]) || d : d;
};
const write = !argv.includes('--no-write');
const runs = at('--runs', 20);
const maxStates = at('--max-states', 2_000_000);

/** States per CPU-second of the search, in this process. */
function rawSpeed(): { states: number; transitions: number; cpuS: number; wallS: number } {
  const m = spinlockMachine({ mechanism: 'its', warpSize: 32, warps: 2 }).withoutSymmetry();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = explore(m, { maxStates, maxDepth: 100_000, timeoutMs: 60_000 }, undefined, {
    // Dead values stay on (as this row has always been measured); every other reduction is off.
    reduce: { ...noReductions, deadValues: true },
  });
  const c = process.cpuUsage(c0);
  return {
    states: r.states,
    transitions: r.transitions,
    cpuS: (c.user + c.system) / 1e6,
    wallS: (performance.now() - t0) / 1000,
  };
}

interface CheckRun {
  readonly workers: number;
  readonly pairs: number;
  readonly kernels: number;
  readonly wallS: number;
  readonly cpuS: number;
}

/** One `check` campaign through the compiled CLI, timed from outside (wall, child CPU). */
function checkRun(workers: number): CheckRun {
  const bin = ROOT + 'bin/warpcheck.mjs';
  const args = ['check', '--runs', String(runs), '--seed', '1', '--no-save', '--json'];
  const t0 = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%U %S', process.execPath, bin, ...args, '--workers', String(workers)],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const wallS = (performance.now() - t0) / 1000;
  const times = /([\d.]+) ([\d.]+)\s*$/.exec(r.stderr ?? '');
  const doc = JSON.parse(r.stdout) as { pairs: number; results: { runs: number }[] };
  return {
    workers,
    pairs: doc.pairs,
    kernels: doc.results.reduce((a, x) => a + x.runs, 0),
    wallS,
    cpuS: times ? Number(times[1]) + Number(times[2]) : NaN,
  };
}

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

if (!existsSync(ROOT + 'dist/cli/main.js')) {
  console.error('bench:speed: run `npm run build` first (the check rows time the compiled CLI)');
  process.exit(2);
}
const raw = rawSpeed();
const checks = [checkRun(1), checkRun(2)];
const [one, two] = checks as [CheckRun, CheckRun];
const projection = (c: CheckRun) => ((10_000 * c.pairs) / (c.kernels / c.wallS) / 60).toFixed(1);
const load = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(', ');
const table = [
  `- date: ${new Date().toISOString()}; machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB; Node ${process.version}; load average at the end ${load} (a shared machine: CPU-seconds are steadier than wall time)`,
  '',
  '| workload | figure |',
  '| --- | --- |',
  `| spinlock, its, W = 32, K = 2, no reductions but dead values, first ${fmt(raw.states)} states (${fmt(raw.transitions)} transitions) | ${fmt(raw.states / raw.cpuS / 1e6, 3)} M states per CPU-second (${fmt(raw.cpuS, 2)} CPU-s, ${fmt(raw.wallS, 2)} s wall) |`,
  ...checks.map(
    (c) =>
      `| \`check --runs ${runs} --seed 1\`, ${c.pairs} law × mechanism pairs, ${fmt(c.kernels)} kernels, \`--workers ${c.workers}\` | ${fmt(c.kernels / c.wallS, 1)} kernels/s wall, ${fmt(c.kernels / c.cpuS, 1)} per CPU-second (${fmt(c.wallS, 1)} s wall, ${fmt(c.cpuS, 1)} CPU-s); 10,000 kernels × ${c.pairs} pairs at this rate: ${projection(c)} min (an upper bound: each pair's shrinking and each thread's warm-up are paid once, not per kernel) |`,
  ),
  `| speed-up of 2 workers over 1 (wall) | ×${(one.wallS / two.wallS).toFixed(2)} |`,
].join('\n');
console.log(table);
if (write) {
  await writeResultsSection(
    RESULTS,
    BEGIN,
    END,
    'Raw speed and every core (issue 10 §3, §4)',
    table,
  );
}
