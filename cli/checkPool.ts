/**
 * Campaigns on every core (issue 10 §4): `check --workers N` hands law × mechanism campaigns to N
 * worker threads, one campaign at a time to whichever is free. Each campaign is a pure function of
 * (law, mechanism, runs, seed) — fast-check draws every kernel from the seed — so the results are
 * those of one thread, and they are returned in the order of `jobs` whatever order they finish in.
 *
 * The worker runs the same code as the caller: the compiled `checkWorker.js` next to this file
 * under `dist/`, or `checkWorker.ts` through tsx's loader when this module itself runs from source
 * (tsx, vitest).
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { findLaw, runCampaign, type CampaignResult } from '../properties/laws/index.ts';

/** One campaign to run: a law on a mechanism, `index` its place in the caller's list. */
export interface CampaignJob {
  readonly index: number;
  readonly law: string;
  readonly mechanism: string;
  readonly runs: number;
  readonly seed: number;
  readonly maxTimeMs?: number;
}

export type ToWorker =
  { readonly tag: 'run'; readonly job: CampaignJob } | { readonly tag: 'stop' };

export type FromWorker =
  | { readonly tag: 'progress'; readonly index: number; readonly done: number }
  | { readonly tag: 'result'; readonly index: number; readonly result: CampaignResult }
  | { readonly tag: 'error'; readonly index: number; readonly message: string };

/** The default of `--workers`: the processors this process may use. */
export const defaultWorkers = (): number => availableParallelism();

/** Kernels generated so far by campaign `index`. */
export type OnProgress = (index: number, done: number) => void;

/**
 * Runs every job and returns their results in job order. With `workers <= 1`, or a single job, in
 * this thread (no worker started); otherwise on `min(workers, jobs)` worker threads.
 */
export async function runCampaigns(
  jobs: readonly CampaignJob[],
  workers: number,
  onProgress: OnProgress = () => {},
): Promise<CampaignResult[]> {
  if (workers <= 1 || jobs.length <= 1) return jobs.map((j) => runHere(j, onProgress));
  const results: (CampaignResult | undefined)[] = new Array(jobs.length);
  const threads = Array.from({ length: Math.min(workers, jobs.length) }, startWorker);
  let next = 0;
  try {
    await Promise.all(
      threads.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const feed = () => {
              if (next === jobs.length) {
                resolve();
                return;
              }
              w.postMessage({ tag: 'run', job: jobs[next++]! } satisfies ToWorker);
            };
            w.on('message', (m: FromWorker) => {
              if (m.tag === 'progress') onProgress(m.index, m.done);
              else if (m.tag === 'error')
                reject(
                  new Error(
                    `campaign ${jobs[m.index]!.law} × ${jobs[m.index]!.mechanism}: ${m.message}`,
                  ),
                );
              else {
                results[m.index] = m.result;
                feed();
              }
            });
            w.on('error', reject);
            w.on('exit', (code) => {
              if (code !== 0) reject(new Error(`a check worker exited with status ${code}`));
            });
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(threads.map((w) => w.terminate()));
  }
  return results as CampaignResult[];
}

function runHere(job: CampaignJob, onProgress: OnProgress): CampaignResult {
  const law = findLaw(job.law);
  if (!law) throw new Error(`unknown law '${job.law}'`);
  return runCampaign(law, job.mechanism, {
    runs: job.runs,
    seed: job.seed,
    ...(job.maxTimeMs !== undefined ? { maxTimeMs: job.maxTimeMs } : {}),
    onRun: (done) => onProgress(job.index, done),
  });
}

/**
 * A worker on the compiled script, or on the source when this file is source: the worker then
 * registers tsx's loader itself before importing the script (a worker does not inherit the hooks
 * `bin/warpcheck.mjs` registers, nor does `--import` in `execArgv` reach it on every Node 20).
 */
function startWorker(): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const script = new URL(fromSource ? './checkWorker.ts' : './checkWorker.js', import.meta.url);
  if (!fromSource) return new Worker(script);
  // tsx's ESM API ('tsx/esm/api' under the import condition), found from its package root.
  const root = createRequire(import.meta.url).resolve('tsx/package.json');
  const api = new URL('dist/esm/api/index.mjs', pathToFileURL(root)).href;
  const boot = `import(${JSON.stringify(api)}).then((t) => { t.register(); return import(${JSON.stringify(script.href)}); });`;
  return new Worker(boot, { eval: true });
}
