/**
 * Issue-core throughput for `npm run bench`: cycles simulated per second by `simulate`
 * (model/core) on three workloads, best of three runs each.
 */
import { fileURLToPath } from 'node:url';
import { createCore, DEFAULT_CORE } from '../model/core/core.ts';
import { simulate } from '../model/core/simulate.ts';
import { spinlockMachine } from './spinlock.ts';

const LOADS = fileURLToPath(new URL('../scenarios/core/divergent-loads.sass', import.meta.url));

export interface CoreBench {
  readonly workload: string;
  readonly mechanism: string;
  readonly warpSize: number;
  readonly warps: number;
  readonly end: string;
  readonly cycles: number;
  readonly issued: number;
  readonly timeMs: number;
}

export const CORE_HEADER = [
  'workload',
  'mechanism',
  'W',
  'K',
  'end',
  'cycles',
  'issued',
  'time',
  'cycles/s',
  'issues/s',
];

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export const coreCells = (c: CoreBench): string[] => [
  c.workload,
  c.mechanism,
  String(c.warpSize),
  String(c.warps),
  c.end,
  fmt(c.cycles),
  fmt(c.issued),
  `${c.timeMs.toFixed(1)} ms`,
  fmt(c.cycles / (c.timeMs / 1000)),
  fmt(c.issued / (c.timeMs / 1000)),
];

export function runCoreBench(quick: boolean): CoreBench[] {
  const rows: { workload: string; file?: string; mechanism: string; w: number; k: number }[] = [
    { workload: 'spinlock', mechanism: 'its', w: 32, k: quick ? 2 : 8 },
    { workload: 'divergent loads', file: LOADS, mechanism: 'simt-stack', w: 32, k: quick ? 4 : 8 },
    { workload: 'divergent loads', file: LOADS, mechanism: 'mp-ipdom', w: 32, k: quick ? 4 : 8 },
  ];
  return rows.map((r) => {
    const machine = spinlockMachine({ mechanism: r.mechanism, warpSize: r.w, warps: r.k }, r.file);
    const core = createCore(machine, DEFAULT_CORE);
    let best: ReturnType<typeof simulate> | null = null;
    for (let i = 0; i < 3; i++) {
      const res = simulate(core, { maxCycles: 10_000_000, timeoutMs: 60_000 });
      if (!best || res.timeMs < best.timeMs) best = res;
    }
    return {
      workload: r.workload,
      mechanism: r.mechanism,
      warpSize: r.w,
      warps: r.k,
      end: best!.end.kind,
      cycles: best!.counters.cycles,
      issued: best!.counters.issued,
      timeMs: best!.timeMs,
    };
  });
}
