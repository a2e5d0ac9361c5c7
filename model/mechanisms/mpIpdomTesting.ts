/**
 * Test helpers of the multi-path mechanisms (`mp-ipdom`, `dual-path`, `lcp`); only tests import
 * this module. Per-lane traces (the PCs each lane issues at, in order) and an exhaustive walk of
 * the reachable states.
 */
import type { Machine, MachineState } from '../machine/machine.ts';

/**
 * Runs `m` from its initial state, taking at each step the choice `pick(step, n)` of the `n`
 * offered, until nothing can issue or `maxSteps` steps; returns each lane's PCs in issue order and
 * whether the run ended (every lane exited or blocked) rather than hitting the step bound.
 */
export function laneTraces(
  m: Machine,
  pick: (step: number, n: number) => number,
  maxSteps = 2000,
): { traces: number[][]; ended: boolean; final: MachineState } {
  const traces: number[][] = Array.from({ length: m.launch.warpSize }, () => []);
  let s = m.initial();
  for (let i = 0; i < maxSteps; i++) {
    const succ = m.successors(s);
    if (succ.length === 0) return { traces, ended: true, final: s };
    const t = succ[pick(i, succ.length)]!;
    if (!t.next) throw new Error(`step ${i} stopped: ${t.stop?.verdict}: ${t.stop?.message}`);
    for (let l = 0; l < traces.length; l++)
      if ((t.issue.mask >>> l) & 1) traces[l]!.push(t.issue.pc);
    s = t.next;
  }
  return { traces, ended: false, final: s };
}

/** Every state reachable from the initial one, breadth-first, at most `limit`. */
export function reachableStates(m: Machine, limit = 3000): MachineState[] {
  const seen = new Set<string>([m.key(m.initial())]);
  const queue = [m.initial()];
  for (let i = 0; i < queue.length && queue.length < limit; i++)
    for (const t of m.successors(queue[i]!))
      if (t.next) {
        const k = m.key(t.next);
        if (!seen.has(k)) {
          seen.add(k);
          queue.push(t.next);
        }
      }
  return queue;
}

/** Whether `a` is a prefix of `b` or `b` of `a`. */
export const prefixCompatible = (a: readonly number[], b: readonly number[]): boolean => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
};
