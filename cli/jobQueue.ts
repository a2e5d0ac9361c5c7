/**
 * The order in which a worker pool hands out jobs (`workerPool.ts`): which job a free worker takes
 * next. It decides only where and when a job runs, never its result (jobs are pure functions of
 * their input), so any order gives the output of one thread.
 *
 * Two aims on a pool of a few workers:
 * - **Affinity.** Jobs of one group (e.g. the campaigns of one law, which share a per-thread cache
 *   of the reference mechanism's results, `properties/laws/termination.ts`) run on one worker as
 *   long as there is other work for the others, so a cache is filled once, not once per worker.
 * - **Balance.** The longest groups start first (longest-processing-time-first, by an estimated
 *   cost); a worker with no group left takes the last job of the group with the most estimated
 *   work remaining (work stealing from the back), so the pool ends together rather than waiting
 *   for one long job started last.
 */
export interface JobOrder<J> {
  /** Jobs with the same group key prefer one worker (default: every job its own group). */
  readonly group?: (job: J) => string;
  /** Estimated relative cost of a job (default 1); only compared, never a unit. */
  readonly cost?: (job: J) => number;
}

interface Group {
  /** Job indices not yet handed out, in job order. */
  readonly jobs: number[];
  /** Estimated cost of `jobs`. */
  left: number;
}

/** Hands out the indices of `jobs` to workers `0 … n-1` (see the module comment). */
export class JobQueue<J> {
  /** Groups nobody has started, longest first. */
  private readonly fresh: Group[];
  /** Groups some worker has started (and may still hold jobs). */
  private readonly started: Group[] = [];
  /** Per worker, the group it works through. */
  private readonly current = new Map<number, Group>();
  private readonly costs: number[];

  constructor(jobs: readonly J[], order: JobOrder<J> = {}) {
    const groupOf = order.group ?? ((_j: J) => null);
    this.costs = jobs.map((j) => order.cost?.(j) ?? 1);
    const byKey = new Map<string, Group>();
    const groups: Group[] = [];
    jobs.forEach((j, i) => {
      const key = groupOf(j);
      let g = key === null ? undefined : byKey.get(key);
      if (!g) {
        g = { jobs: [], left: 0 };
        groups.push(g);
        if (key !== null) byKey.set(key, g);
      }
      g.jobs.push(i);
      g.left += this.costs[i]!;
    });
    // Stable: equal estimates keep job order.
    this.fresh = groups
      .map((g, i) => ({ g, i }))
      .sort((a, b) => b.g.left - a.g.left || a.i - b.i)
      .map(({ g }) => g);
  }

  /** The next job index for `worker`, or null when every job has been handed out. */
  next(worker: number): number | null {
    let g = this.current.get(worker);
    if (!g || g.jobs.length === 0) {
      g = this.fresh.shift();
      if (g) this.started.push(g);
      else {
        // Steal: the started group with the most estimated work left gives up its last job.
        let best: Group | undefined;
        for (const s of this.started)
          if (s.jobs.length > 0 && (!best || s.left > best.left)) best = s;
        if (!best) return null;
        const i = best.jobs.pop()!;
        best.left -= this.costs[i]!;
        return i;
      }
      this.current.set(worker, g);
    }
    const i = g.jobs.shift()!;
    g.left -= this.costs[i]!;
    return i;
  }
}
