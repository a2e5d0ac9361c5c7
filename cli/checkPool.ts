/**
 * Campaigns on every core (issue 10 §4): `check --workers N` hands law × mechanism campaigns to N
 * worker threads (`workerPool.ts`, script `checkWorker.ts`). Each campaign is a pure function of
 * (law, mechanism, runs, seed) — fast-check draws every kernel from the seed — so the results are
 * those of one thread, returned in the order of `jobs`.
 */
import {
  DEFAULT_BUDGET,
  findLaw,
  runCampaign,
  type CampaignResult,
} from '../properties/laws/index.ts';
import type { JobOrder } from './jobQueue.ts';
import { runOnWorkers } from './workerPool.ts';

/** One campaign to run: a law on a mechanism. */
export interface CampaignJob {
  readonly law: string;
  readonly mechanism: string;
  readonly runs: number;
  readonly seed: number;
  readonly maxTimeMs?: number;
  /** False: the laws' searches run without warp symmetry (`check --no-warp-symmetry`). */
  readonly warpSymmetry?: boolean;
}

/**
 * Estimated milliseconds per generated kernel of a law's campaign on `its` and on the other
 * mechanisms (averaged), measured on `check --runs 40 --seed 1 --workers 1` (2-core machine,
 * 2026-11-24). Only the order of jobs on worker threads uses it (`jobQueue.ts`: longest first),
 * never a result. `termination` on `its` fills the reference cache the other mechanisms read.
 */
const COST_PER_RUN: Readonly<Record<string, { readonly its: number; readonly other: number }>> = {
  'maximal-reconvergence': { its: 120, other: 9 },
  termination: { its: 63, other: 3 },
  'compile-preserves': { its: 4, other: 12 },
  'priority-independence': { its: 9, other: 9 },
  'trace-equivalence': { its: 6, other: 6 },
  'no-lane-lost': { its: 5, other: 2 },
  'break-bmov': { its: 4, other: 2 },
  reconvergence: { its: 3, other: 1.3 },
  warpsync: { its: 2, other: 2 },
};

/**
 * How `check --workers N` orders its campaigns: the campaigns of one law form a group (kept on one
 * worker: `termination` and the compile laws cache `its` results per kernel per thread), the
 * estimated cost of a campaign is `COST_PER_RUN` × runs (5 ms a run for a law not listed).
 */
export const CAMPAIGN_ORDER: JobOrder<CampaignJob> = {
  group: (j) => j.law,
  cost: (j) => {
    const c = COST_PER_RUN[j.law];
    return (c ? (j.mechanism === 'its' ? c.its : c.other) : 5) * j.runs;
  },
};

/** Kernels generated so far by campaign `index`. */
export type OnProgress = (index: number, done: number) => void;

/** Runs one campaign in this thread; `onRun` hears the kernels generated so far. */
export function runJob(job: CampaignJob, onRun: (done: number) => void): CampaignResult {
  const law = findLaw(job.law);
  if (!law) throw new Error(`unknown law '${job.law}'`);
  return runCampaign(law, job.mechanism, {
    runs: job.runs,
    seed: job.seed,
    ...(job.maxTimeMs !== undefined ? { maxTimeMs: job.maxTimeMs } : {}),
    ...(job.warpSymmetry === false ? { budget: { ...DEFAULT_BUDGET, warpSymmetry: false } } : {}),
    onRun,
  });
}

/**
 * Runs every job and returns their results in job order. With `workers <= 1`, or a single job, in
 * this thread (no worker started); otherwise on `min(workers, jobs)` worker threads.
 */
export async function runCampaigns(
  jobs: readonly CampaignJob[],
  workers: number,
  onProgress: OnProgress = () => {},
): Promise<CampaignResult[]> {
  if (workers <= 1 || jobs.length <= 1)
    return jobs.map((j, i) => runJob(j, (done) => onProgress(i, done)));
  return runOnWorkers<CampaignJob, CampaignResult, number>(
    'checkWorker',
    jobs,
    workers,
    (j) => `campaign ${j.law} × ${j.mechanism}`,
    onProgress,
    CAMPAIGN_ORDER,
  );
}
