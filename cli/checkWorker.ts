/**
 * The worker-thread side of `check --workers N` (`checkPool.ts`): it receives campaigns (one law on
 * one mechanism, with the run's seed), runs each with `runCampaign` exactly as the main thread
 * would, and posts back the result, plus the number of generated kernels as they go (progress).
 */
import { parentPort } from 'node:worker_threads';
import { findLaw, runCampaign } from '../properties/laws/index.ts';
import type { CampaignJob, FromWorker, ToWorker } from './checkPool.ts';

function run(job: CampaignJob): FromWorker {
  const law = findLaw(job.law);
  if (!law) return { tag: 'error', index: job.index, message: `unknown law '${job.law}'` };
  let last = 0;
  const result = runCampaign(law, job.mechanism, {
    runs: job.runs,
    seed: job.seed,
    ...(job.maxTimeMs !== undefined ? { maxTimeMs: job.maxTimeMs } : {}),
    onRun: (done) => {
      // A message per kernel would cost more than the kernel: every 16th, and the last.
      if (done - last >= 16 || done === job.runs) {
        last = done;
        parentPort!.postMessage({ tag: 'progress', index: job.index, done } satisfies FromWorker);
      }
    },
  });
  return { tag: 'result', index: job.index, result };
}

parentPort!.on('message', (m: ToWorker) => {
  if (m.tag === 'stop') {
    parentPort!.close();
    return;
  }
  let reply: FromWorker;
  try {
    reply = run(m.job);
  } catch (e) {
    reply = { tag: 'error', index: m.job.index, message: (e as Error).message };
  }
  parentPort!.postMessage(reply);
});
