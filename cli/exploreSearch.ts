/**
 * One search of `warpcheck explore` — a kernel on a mechanism, exhaustive or `--random` — under its
 * per-run and total budgets, and the same searches side by side on worker threads for
 * `--workers N` (issue 10 §4: one search per worker; a search itself stays on one thread).
 * A search is a pure function of the listing, the options and the budgets, so each worker returns
 * what this thread would (times aside, and the total `--time-limit` counted from the command's
 * start on every thread).
 */
import { getHeapStatistics } from 'node:v8';
import type { Machine } from '../model/machine/machine.ts';
import { explore, type ExploreResult, type Progress } from '../model/explore/exhaustive.ts';
import { exploreRandom } from '../model/explore/random.ts';
import type { ExploreArgs } from './explore.ts';
import { noColour, type Io } from './output.ts';
import { prepareMachines } from './prepare.ts';
import { runOnWorkers } from './workerPool.ts';

/** A search to run: `kernel` of `args.file` on mechanism `id`. */
export interface SearchJob {
  readonly args: SearchArgs;
  readonly kernel: string;
  readonly id: string;
  /** The end of the total time budget, as `Date.now()` (clocks of threads differ otherwise). */
  readonly deadline: number;
}

/** What a search needs of `explore`'s arguments (plain data: it crosses to a worker). */
export type SearchArgs = Omit<ExploreArgs, 'failOn' | 'html' | 'save' | 'json'>;

/** Searches `machine` with what is left of the total budget (`leftMs`, > 0). */
export function searchMachine(
  a: SearchArgs,
  machine: Machine,
  leftMs: number,
  onProgress?: (p: Progress) => void,
): ExploreResult {
  return a.random
    ? exploreRandom(machine, { ...a.random, timeoutMs: Math.min(a.timeout * 1000, leftMs) })
    : explore(
        machine,
        {
          maxStates: a.maxStates,
          maxDepth: a.maxDepth,
          timeoutMs: Math.min(a.timeout * 1000, leftMs),
          maxMemoryMb: a.maxMemory,
        },
        onProgress,
        {
          reduce: {
            partialOrder: a.partialOrder !== false,
            exitPriority: a.exitPriority !== false,
            aloneGroups: a.aloneGroups !== false,
            bsyncPriority: a.bsyncPriority !== false,
            warpSymmetry: a.warpSymmetry !== false,
            accelerate: a.accelerate !== false,
            chainSummaries: a.chainSummaries !== false,
            frozenLanes: a.frozenLanes !== false,
          },
        },
      );
}

const silent: Io = { out: () => {}, err: () => {}, interactive: false, colour: noColour };

/** Runs one job in this thread (the worker's side); `null` when its time budget is spent. */
export function runSearchJob(job: SearchJob): ExploreResult | null {
  const left = job.deadline - Date.now();
  if (left <= 0) return null;
  const prepared = prepareMachines({ ...job.args, entry: job.kernel }, silent);
  if (typeof prepared === 'number') throw new Error(`${job.args.file} no longer loads`);
  const found = prepared.machines.find((m) => m.id === job.id);
  if (!found) throw new Error(`no mechanism '${job.id}'`);
  return searchMachine(job.args, found.machine, left);
}

/**
 * Every job on `workers` threads, results in job order (`null`: the total budget was spent before
 * the job started). Each thread's heap may grow to the memory budget (`--max-memory`): the budget
 * the user sets is then the one that binds, not V8's default heap limit of about 4 GB
 * (`model/explore/memoryBudget.ts`; the budget counts the whole process, all threads).
 */
export async function searchAll(
  jobs: readonly SearchJob[],
  workers: number,
): Promise<(ExploreResult | null)[]> {
  // Never below V8's own default (this thread's limit): a small budget stops the search anyway.
  const budgetMb = jobs[0]?.args.maxMemory ?? 0;
  const heapMb = budgetMb > getHeapStatistics().heap_size_limit / 1048576 ? budgetMb : undefined;
  return runOnWorkers<SearchJob, ExploreResult | null, never>(
    'exploreWorker',
    jobs,
    workers,
    (j) => `${j.kernel} on ${j.id}`,
    undefined,
    undefined,
    heapMb,
  );
}

/** Only what a search reads of the command's arguments. */
export function searchArgs(a: ExploreArgs): SearchArgs {
  const { failOn: _f, html: _h, save: _s, json: _j, ...rest } = a;
  return rest;
}
