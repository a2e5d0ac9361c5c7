/** The worker-thread side of `explore --workers N` (`exploreSearch.ts`): one search per job. */
import { runSearchJob } from './exploreSearch.ts';
import { serveJobs } from './workerPool.ts';

serveJobs(runSearchJob);
