/**
 * Jobs on every core (issue 10 §4): a small pool of `node:worker_threads` workers shared by
 * `check --workers` (`checkPool.ts`) and `explore --workers` (`exploreWorker.ts`). Jobs go one at
 * a time to whichever worker is free, in the order `jobQueue.ts` picks (longest groups first, a
 * group kept on one worker, stealing at the end); results come back in job order whatever order
 * they finish in, so a caller whose jobs are pure functions of their input prints what one thread
 * prints.
 *
 * A worker runs the same code as its caller: the compiled `<name>.js` next to this file under
 * `dist/`, or `<name>.ts` through tsx's loader when this module itself runs from source (tsx,
 * vitest).
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parentPort, Worker } from 'node:worker_threads';
import { JobQueue, type JobOrder } from './jobQueue.ts';

type ToWorker<J> = { readonly index: number; readonly job: J };

type FromWorker<R, P> =
  | { readonly tag: 'progress'; readonly index: number; readonly progress: P }
  | { readonly tag: 'result'; readonly index: number; readonly result: R }
  | { readonly tag: 'error'; readonly index: number; readonly message: string };

/** The default of `--workers`: the processors this process may use. */
export const defaultWorkers = (): number => availableParallelism();

/**
 * Runs `jobs` on `min(workers, jobs.length)` workers started from script `name` (a sibling of this
 * file that calls `serveJobs`) and returns the results in job order. Rejects with the first job's
 * error, naming it with `label`. `order` groups and weighs the jobs for `JobQueue`.
 */
export async function runOnWorkers<J, R, P>(
  name: string,
  jobs: readonly J[],
  workers: number,
  label: (job: J) => string,
  onProgress: (index: number, progress: P) => void = () => {},
  order: JobOrder<J> = {},
  /** Each worker's JavaScript heap limit in MB (V8's default, about 4 GB, when absent). */
  heapMb?: number,
): Promise<R[]> {
  const results: R[] = new Array(jobs.length);
  const threads = Array.from({ length: Math.max(1, Math.min(workers, jobs.length)) }, () =>
    startWorker(name, heapMb),
  );
  const queue = new JobQueue(jobs, order);
  try {
    await Promise.all(
      threads.map(
        (w, worker) =>
          new Promise<void>((resolve, reject) => {
            const feed = () => {
              const index = queue.next(worker);
              if (index === null) resolve();
              else w.postMessage({ index, job: jobs[index]! } satisfies ToWorker<J>);
            };
            w.on('message', (m: FromWorker<R, P>) => {
              if (m.tag === 'progress') onProgress(m.index, m.progress);
              else if (m.tag === 'error')
                reject(new Error(`${label(jobs[m.index]!)}: ${m.message}`));
              else {
                results[m.index] = m.result;
                feed();
              }
            });
            w.on('error', reject);
            w.on('exit', (code) => reject(new Error(`a worker thread exited (status ${code})`)));
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(threads.map((w) => w.terminate()));
  }
  return results;
}

/**
 * The worker side: answers each job with `run(job, progress)`'s result (an exception becomes an
 * error message). Call once at the top level of a worker script.
 */
export function serveJobs<J, R, P>(run: (job: J, progress: (p: P) => void) => R): void {
  const port = parentPort;
  if (!port) throw new Error('serveJobs runs in a worker thread');
  port.on('message', ({ index, job }: ToWorker<J>) => {
    const progress = (p: P) =>
      port.postMessage({ tag: 'progress', index, progress: p } satisfies FromWorker<R, P>);
    let reply: FromWorker<R, P>;
    try {
      reply = { tag: 'result', index, result: run(job, progress) };
    } catch (e) {
      reply = { tag: 'error', index, message: (e as Error).message };
    }
    port.postMessage(reply);
  });
}

/**
 * A worker on the compiled script, or on the source when this file is source: the worker then
 * registers tsx's loader itself before importing the script (a worker does not inherit the hooks
 * `bin/warpcheck.mjs` registers, nor does `--import` in `execArgv` reach it on every Node 20).
 */
function startWorker(name: string, heapMb?: number): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const script = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, import.meta.url);
  const resourceLimits = heapMb === undefined ? undefined : { maxOldGenerationSizeMb: heapMb };
  if (!fromSource) return new Worker(script, { resourceLimits });
  // tsx's ESM API ('tsx/esm/api' under the import condition), found from its package root.
  const root = createRequire(import.meta.url).resolve('tsx/package.json');
  const api = new URL('dist/esm/api/index.mjs', pathToFileURL(root)).href;
  const boot = `import(${JSON.stringify(api)}).then((t) => { t.register(); return import(${JSON.stringify(script.href)}); });`;
  return new Worker(boot, { eval: true, resourceLimits });
}
