/**
 * The worker-thread side of `check --workers N` (`checkPool.ts`): runs each campaign it is sent
 * exactly as the main thread would, reporting kernels generated as it goes (every 16th and the
 * last: a message per kernel would cost more than the kernel).
 */
import { runJob, type CampaignJob } from './checkPool.ts';
import { serveJobs } from './workerPool.ts';

serveJobs((job: CampaignJob, progress: (done: number) => void) => {
  let last = 0;
  return runJob(job, (done) => {
    if (done - last >= 16 || done === job.runs) {
      last = done;
      progress(done);
    }
  });
});
