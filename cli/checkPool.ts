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
  );
}
