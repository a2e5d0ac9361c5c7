/** The order of jobs on a worker pool (`jobQueue.ts`), derived by hand from its rules. */
import { describe, expect, it } from 'vitest';
import { JobQueue } from './jobQueue.ts';

/** Hands out every job, workers asking in the given order; returns [worker, job] pairs. */
function drain<J>(q: JobQueue<J>, asks: readonly number[]): [number, number | null][] {
  return asks.map((w) => [w, q.next(w)]);
}

describe('job queue', () => {
  it('without groups or costs, hands out jobs in order', () => {
    const q = new JobQueue(['a', 'b', 'c']);
    expect(drain(q, [0, 1, 0, 1])).toEqual([
      [0, 0],
      [1, 1],
      [0, 2],
      [1, null],
    ]);
  });

  it('starts the longest group first, keeps a group on its worker, steals from the back', () => {
    // Groups: x = jobs 0, 1, 2 (cost 1 + 1 + 1 = 3), y = job 3 (cost 10).
    const jobs = [
      { g: 'x', c: 1 },
      { g: 'x', c: 1 },
      { g: 'x', c: 1 },
      { g: 'y', c: 10 },
    ];
    const q = new JobQueue(jobs, { group: (j) => j.g, cost: (j) => j.c });
    // Worker 0 takes y (longest), worker 1 starts x at its first job; worker 0, with y done and
    // no fresh group, steals x's last job; worker 1 goes on with x's second; nothing is left.
    expect(drain(q, [0, 1, 0, 1, 0, 1])).toEqual([
      [0, 3],
      [1, 0],
      [0, 2],
      [1, 1],
      [0, null],
      [1, null],
    ]);
  });

  it('hands out each job exactly once, whatever the asking order', () => {
    const jobs = Array.from({ length: 23 }, (_, i) => ({ g: `g${i % 4}`, c: (i * 7) % 5 }));
    const q = new JobQueue(jobs, { group: (j) => j.g, cost: (j) => j.c });
    const got: number[] = [];
    for (let k = 0; ; k++) {
      const i = q.next(k % 3 === 0 ? 0 : k % 3 === 1 ? 1 : 2);
      if (i === null) {
        if ([0, 1, 2].every((w) => q.next(w) === null)) break;
        continue;
      }
      got.push(i);
    }
    expect(got.sort((a, b) => a - b)).toEqual(jobs.map((_, i) => i));
  });
});
