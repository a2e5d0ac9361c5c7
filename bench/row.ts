/**
 * One benchmark row, run in its own process (so that peak RSS and the JIT state belong to this row
 * alone): explores the spinlock on one mechanism and sends the result to the parent as JSON.
 * Arguments: a JSON `RowSpec`.
 */
import { explore } from '../model/explore/exhaustive.ts';
import { spinlockMachine, type Workload } from './spinlock.ts';

export interface RowSpec extends Workload {
  readonly maxStates: number;
  readonly timeoutMs: number;
  /** Another listing than the spinlock (profiling runs of a bundled copy point back at it). */
  readonly file?: string;
}

export interface RowResult {
  readonly spec: RowSpec;
  readonly verdict: string;
  readonly bound: string | null;
  readonly states: number;
  readonly transitions: number;
  readonly depth: number;
  readonly timeMs: number;
  /** CPU time of the process during the search (user + system), ms: steadier than wall time on a shared machine. */
  readonly cpuMs: number;
  /** Peak resident set of the whole process, MB. */
  readonly peakRssMb: number;
  /** Largest V8 heap seen at a progress report or at the end, MB. */
  readonly peakHeapMb: number;
  readonly notes: readonly string[];
}

export function runRow(spec: RowSpec): RowResult {
  const machine = spinlockMachine(spec, spec.file);
  let peakHeap = 0;
  const sample = () => {
    const h = process.memoryUsage().heapUsed;
    if (h > peakHeap) peakHeap = h;
  };
  const cpu0 = process.cpuUsage();
  const r = explore(
    machine,
    { maxStates: spec.maxStates, maxDepth: 1_000_000, timeoutMs: spec.timeoutMs },
    sample,
    spec.reduce ? { reduce: spec.reduce } : undefined,
  );
  sample();
  const cpu = process.cpuUsage(cpu0);
  return {
    spec,
    verdict: r.verdict + (r.kind ? `/${r.kind}` : ''),
    bound: r.bound,
    states: r.states,
    transitions: r.transitions,
    depth: r.depth,
    timeMs: r.timeMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapMb: peakHeap / 2 ** 20,
    notes: r.notes,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  const spec = JSON.parse(process.argv[2]!) as RowSpec;
  const result = runRow(spec);
  if (process.send) process.send(result);
  else console.log(JSON.stringify(result));
}
