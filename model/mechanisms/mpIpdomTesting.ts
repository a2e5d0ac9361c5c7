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

/** Whether `a` is a prefix of `b` or `b` of `a`. */
export const prefixCompatible = (a: readonly number[], b: readonly number[]): boolean => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * A flag wait across the two paths of one branch: lane 0 raises a flag at 0x100 that the other
 * lanes spin on (the waiters take the branch). Terminates under path or split fairness; on the
 * SIMT stack with the taken path (the spinners) first, the flag is never raised.
 */
export const FLAG_WAIT = [
  '// @warpcheck warp-size=4 mem[0x100]=0',
  '        S2R R0, SR_LANEID ;',
  '        MOV R2, 0x100 ;',
  '        MOV R3, 0x1 ;',
  '        ISETP.NE.AND P0, PT, R0, RZ, PT ;',
  '   @P0  BRA wait ;',
  '        STS [R2], R3 ;',
  '        BRA done ;',
  'wait:',
  '        LDS R4, [R2] ;',
  '        ISETP.EQ.AND P1, PT, R4, RZ, PT ;',
  '   @P1  BRA wait ;',
  'done:',
  '        EXIT ;',
].join('\n');
