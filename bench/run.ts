/**
 * `npm run bench`: exhaustive exploration of the spinlock (`scenarios/spinlock.sass`, seed 000
 * Fig. 3) on `its` and `simt-stack`, W = 4, 8, 16, 32 lanes and K = 1, 2 warps, each row in its own
 * process with a time and a state budget; then the dead-value reduction switched off for
 * comparison, and micro-benchmarks of the inner loop. Prints a table and writes
 * `bench/RESULTS.md` with the machine and the date.
 *
 *   npm run bench                      the full run (about 10 minutes), writes bench/RESULTS.md
 *   npm run bench -- --quick           W = 4, 8 and 10 s budgets; prints only (add --write to write)
 *   npm run bench -- --timeout 30      per-row time budget in seconds (default 60)
 *   npm run bench -- --no-write        print only
 *   npm run bench -- --render          rewrite bench/RESULTS.md from bench/results.json (no run),
 *                                      e.g. after editing the analysis in bench/NOTES.md
 */
import { fork } from 'node:child_process';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { writeFormatted } from './cli.ts';
import { runMicro, type MicroResult } from './micro.ts';
import { coreCells, CORE_HEADER, runCoreBench, type CoreBench } from './coreBench.ts';
import type { RowResult, RowSpec } from './row.ts';
import { MECHANISMS } from '../model/mechanisms/registry.ts';

interface Args {
  readonly quick: boolean;
  readonly write: boolean;
  readonly timeoutS: number;
  readonly maxStates: number;
  /** Sections to run; the others are kept from bench/results.json. */
  readonly sections: readonly Section[];
}

const SECTIONS = ['spinlock', 'plain', 'turing', 'mechanisms', 'core', 'micro'] as const;
type Section = (typeof SECTIONS)[number];

function parseArgs(argv: readonly string[]): Args {
  const quick = argv.includes('--quick');
  const at = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? Number(argv[i + 1]) : null;
  };
  return {
    quick,
    write: argv.includes('--write') || (!quick && !argv.includes('--no-write')),
    timeoutS: at('--timeout') ?? (quick ? 10 : 60),
    maxStates: at('--max-states') ?? 60_000_000,
    sections: sectionsOf(argv),
  };
}

/** `--sections mechanisms,core`: only those (validated); default every section. */
function sectionsOf(argv: readonly string[]): Section[] {
  const i = argv.indexOf('--sections');
  if (i < 0) return [...SECTIONS];
  const asked = (argv[i + 1] ?? '').split(',');
  const bad = asked.filter((x) => !SECTIONS.includes(x as Section));
  if (bad.length) {
    console.error(`--sections ${bad.join(',')}: expected some of ${SECTIONS.join(', ')}`);
    process.exit(2);
  }
  return asked as Section[];
}

const ROW = fileURLToPath(new URL('./row.ts', import.meta.url));
const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const RAW = fileURLToPath(new URL('./results.json', import.meta.url));
const LOADS = fileURLToPath(new URL('../scenarios/core/divergent-loads.sass', import.meta.url));
const FIG7 = fileURLToPath(
  new URL('../scenarios/seed000-fig7-spinlock-yield.sass', import.meta.url),
);

type Outcome = RowResult | { spec: RowSpec; error: string };

/** Everything a report is made of, kept as JSON so that it can be re-rendered. */
interface Raw {
  readonly info: readonly string[];
  readonly args: Args;
  readonly results: readonly Outcome[];
  readonly plain: readonly Outcome[];
  /** The Turing spinlock (seed 000 Fig. 7) on `hanoi` and `its`; absent in older results. */
  readonly turing?: readonly Outcome[];
  /** Every registered mechanism on the divergent-loads kernel; absent in older results. */
  readonly mechanisms?: readonly Outcome[];
  /** Cycles simulated per second by the issue core; absent in older results. */
  readonly core?: readonly CoreBench[];
  readonly micro: readonly MicroResult[];
}

/** Runs one row in a child process (its own heap, its own peak RSS). */
function runChild(spec: RowSpec): Promise<RowResult | { spec: RowSpec; error: string }> {
  return new Promise((resolve) => {
    const child = fork(ROW, [JSON.stringify(spec)], {
      execArgv: ['--import', 'tsx', '--max-old-space-size=16384'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let err = '';
    let done = false;
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    // The search stops itself at its budget; this only guards against a hung child.
    const guard = setTimeout(() => child.kill('SIGKILL'), spec.timeoutMs + 300_000);
    child.on('message', (m) => {
      done = true;
      clearTimeout(guard);
      resolve(m as RowResult);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      if (!done)
        resolve({
          spec,
          error: `exited ${signal ?? code}: ${err.trim().split('\n').slice(-3).join(' ')}`,
        });
    });
  });
}

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtMs = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

function rowCells(r: RowResult | { spec: RowSpec; error: string }): string[] {
  const s = r.spec;
  const head = [s.mechanism, String(s.warpSize), String(s.warps)];
  if ('error' in r) return [...head, `error: ${r.error}`, '', '', '', '', '', ''];
  return [
    ...head,
    r.verdict + (r.bound ? ` (${r.bound} budget)` : ''),
    fmtInt(r.states),
    fmtInt(r.transitions),
    fmtInt(r.states / (r.timeMs / 1000)),
    fmtMs(r.timeMs),
    fmtMs(r.cpuMs),
    `${fmtInt(r.peakRssMb)} MB`,
  ];
}

const HEADER = [
  'mechanism',
  'W',
  'K',
  'verdict',
  'states',
  'transitions',
  'states/s',
  'time to verdict',
  'CPU',
  'peak RSS',
];

function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function machineInfo(): string[] {
  const cpu =
    readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ??
    os.cpus()[0]?.model;
  let nproc = String(os.availableParallelism());
  try {
    nproc = execSync('nproc').toString().trim();
  } catch {
    // os.availableParallelism() it is
  }
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
  return [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${nproc} cores (\`nproc\`), CPU \`${cpu}\`, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}`,
    `- Node ${process.version}, sources run through tsx (as \`bin/warpcheck.mjs\` does); one row per child process`,
    `- load average when the run started: ${load} (the machine is shared; CPU time is steadier than wall time)`,
  ];
}

async function main(): Promise<void> {
  if (process.argv.includes('--render')) {
    const raw = JSON.parse(readFileSync(RAW, 'utf8')) as Raw;
    await writeFormatted(RESULTS, report(raw));
    console.log(`wrote ${RESULTS} from ${RAW}`);
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  const info = [
    ...machineInfo(),
    ...(args.sections.length < SECTIONS.length
      ? [
          `- sections measured in this run: ${args.sections.join(', ')}; the others are kept from an earlier run (bench/results.json)`,
        ]
      : []),
  ];
  console.log(info.join('\n') + '\n');
  const widths = args.quick ? [4, 8] : [4, 8, 16, 32];
  const specs: RowSpec[] = [];
  for (const mechanism of ['its', 'simt-stack'])
    for (const warps of [1, 2])
      for (const warpSize of widths)
        specs.push({
          mechanism,
          warpSize,
          warps,
          maxStates: args.maxStates,
          timeoutMs: args.timeoutS * 1000,
        });
  // The dead-value reduction switched off, on the rows where it matters.
  const unreducedWidths = args.quick ? [4] : [4, 8, 16];
  const unreduced: RowSpec[] = unreducedWidths.flatMap((warpSize) =>
    [1, 2].map((warps) => ({
      mechanism: 'its',
      warpSize,
      warps,
      maxStates: args.maxStates,
      timeoutMs: args.timeoutS * 1000,
      reduce: { deadValues: false },
    })),
  );
  const previous: Partial<Raw> = (() => {
    try {
      return JSON.parse(readFileSync(RAW, 'utf8')) as Raw;
    } catch {
      return {};
    }
  })();
  const want = (x: Section) => args.sections.includes(x);
  const runRows = async (title: string, rowSpecs: readonly RowSpec[]): Promise<Outcome[]> => {
    console.log(`\n${title}:`);
    const out: Outcome[] = [];
    for (const spec of rowSpecs) {
      const r = await runChild(spec);
      out.push(r);
      console.log(rowCells(r).join('  '));
    }
    return out;
  };
  const results = want('spinlock') ? await runRows('spinlock', specs) : (previous.results ?? []);
  const plain = want('plain')
    ? await runRows('without the dead-value reduction', unreduced)
    : (previous.plain ?? []);
  // The spinlock as compiled for Turing (seed 000 Fig. 7: BSSY, YIELD at the loop top, BSYNC
  // after the release) on hanoi and on its with its barrier semantics.
  const turing = want('turing')
    ? await runRows(
        'Turing spinlock (seed 000 Fig. 7) on hanoi and its',
        ['hanoi', 'its'].flatMap((mechanism) =>
          [1, 2].flatMap((warps) =>
            widths.map((warpSize) => ({
              mechanism,
              warpSize,
              warps,
              maxStates: args.maxStates,
              timeoutMs: args.timeoutS * 1000,
              file: FIG7,
            })),
          ),
        ),
      )
    : previous.turing;
  // Every registered mechanism on one workload that every one of them runs to the end.
  const mechanisms = want('mechanisms')
    ? await runRows(
        'every mechanism: divergent loads, W = 4, K = 4',
        MECHANISMS.map((f) => ({
          mechanism: f.id,
          warpSize: 4,
          warps: 4,
          maxStates: args.maxStates,
          timeoutMs: args.timeoutS * 1000,
          file: LOADS,
        })),
      )
    : previous.mechanisms;
  const core = want('core') ? runCoreBench(args.quick) : previous.core;
  if (want('core')) {
    console.log('\nissue core:');
    for (const c of core ?? []) console.log(coreCells(c).join('  '));
  }
  const micro = want('micro') ? runMicro(args.quick) : (previous.micro ?? []);
  if (want('micro')) {
    console.log('\nmicro-benchmarks:');
    for (const m of micro)
      console.log(`${m.nsPerOp.toFixed(0).padStart(8)} ns/${m.unit}  ${m.name}`);
  }
  if (args.write) {
    const raw: Raw = {
      info,
      args,
      results,
      plain,
      ...(turing ? { turing } : {}),
      ...(mechanisms ? { mechanisms } : {}),
      ...(core ? { core } : {}),
      micro,
    };
    await writeFormatted(RAW, JSON.stringify(raw));
    await writeFormatted(RESULTS, report(raw));
    console.log(`\nwrote ${RESULTS} and ${RAW}`);
  }
}

function report({ info, args, results, plain, turing, mechanisms, core, micro }: Raw): string {
  const microRows = micro.map((m) => [m.name, `${m.nsPerOp.toFixed(0)} ns per ${m.unit}`]);
  const notes = readNotes();
  return [
    '# Benchmark results',
    '',
    '`npm run bench` — exhaustive breadth-first exploration of `scenarios/spinlock.sass` (seed 000',
    'Fig. 3: every lane takes a CAS spinlock, increments a counter, releases the lock) on `its` and',
    '`simt-stack`, atomics in ascending lane order (the default), default mechanism options.',
    `Budgets per row: ${args.timeoutS} s and ${fmtInt(args.maxStates)} states. Time to verdict is`,
    'wall time including the fair-cycle (livelock) analysis; states/s is states over that time;',
    "CPU is the child process's user + system time over the same span (GC threads included).",
    '',
    ...info,
    '',
    '## Spinlock, default reductions (dead values)',
    '',
    markdownTable(HEADER, results.map(rowCells)),
    '',
    '## Spinlock on `its` without the dead-value reduction',
    '',
    markdownTable(HEADER, plain.map(rowCells)),
    '',
    ...(turing
      ? [
          '## The Turing spinlock (seed 000 Fig. 7) on `hanoi` and `its`',
          '',
          '`scenarios/seed000-fig7-spinlock-yield.sass`: BSSY before the loop, YIELD at the loop top,',
          'the BSYNC after the release; `hanoi` with its default options (majority first, 16 B',
          'registers) and refinement against `its` checked at every step; `its` with the barrier',
          'semantics of SEMANTICS §3.1.',
          '',
          markdownTable(HEADER, turing.map(rowCells)),
          '',
        ]
      : []),
    ...(mechanisms
      ? [
          '## Every mechanism (states per second)',
          '',
          '`scenarios/core/divergent-loads.sass` (a two-way branch, two dependent global loads per',
          'path; every mechanism runs it to the end) with W = 4 lanes and K = 4 warps: the state',
          'space is the interleavings of the warps, so its size depends on how many steps each',
          'mechanism takes and how many paths it lets run (its, mp-ipdom, dual-path). Default',
          'options, refinement against `its` checked at every step.',
          '',
          markdownTable(HEADER, mechanisms.map(rowCells)),
          '',
        ]
      : []),
    ...(core
      ? [
          '## Issue core (cycles simulated per second)',
          '',
          '`simulate` (model/core) run to the end, best of three; loose round robin, default',
          'latencies. Cycles per second counts simulated cycles, most of them idle on these',
          'latency-bound kernels; issues per second counts issued instructions.',
          '',
          markdownTable(CORE_HEADER, core.map(coreCells)),
          '',
        ]
      : []),
    '## Micro-benchmarks',
    '',
    'Best of three rounds; states sampled breadth-first from the spinlock.',
    '',
    markdownTable(['operation', 'cost'], microRows),
    '',
    notes,
  ].join('\n');
}

/** Writes a file as the repository's prettier config formats it (CI checks formatting). */

/** The hand-written analysis kept below the generated tables (`bench/NOTES.md`). */
function readNotes(): string {
  try {
    return readFileSync(fileURLToPath(new URL('./NOTES.md', import.meta.url)), 'utf8');
  } catch {
    return '';
  }
}

await main();
