/**
 * seed 002 §3.11, Fig. 30: the SIMT stack with likely convergence points, step by step. Fig. 29
 * and 30 are images in our copy (a few of Fig. 30's stack rows survive as text); every expected
 * stack below is derived by hand from the prose — "three entries are added ... the first one is the
 * likely point of convergence"; "when the execution reaches the LPC, the entry of E is removed";
 * "when thread 3 and thread 4 reaches block F, the stack is popped"; "then block B executes and its
 * entry is popped once the PC = LPC"; "the likely convergence entry is executed until it reaches
 * the IPDOM" — and the rules of SEMANTICS §3.7. Threads 1-4 are lanes 0-3; masks print lane 3
 * first. The figure's moments between reaching the RPC/LPC and the pop are folded into one step.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Machine, MachineState } from '../model/machine/machine.ts';
import { machineOf, regsOf, replay } from '../model/testing/run.ts';

const text = readFileSync(
  join(new URL('.', import.meta.url).pathname, 'seed002-fig30.sass'),
  'utf8',
);

interface Row {
  pc: string | null;
  rpc: string | null;
  lpc: string | null;
  lpos: number | null;
  mask: string;
}
const rows = (m: Machine, s: MachineState) =>
  (m.mechanism.view(s.warps[0]!.mech, m.fmt).data as { stack: Row[] }).stack;
const r = (
  pc: string,
  rpc: string | null,
  lpc: string | null,
  lpos: number | null,
  mask: string,
): Row => ({
  pc,
  rpc,
  lpc,
  lpos,
  mask,
});

describe('seed 002 Fig. 30 on lcp', () => {
  const m = machineOf(text, 'lcp');
  const { states } = replay(m, Array(16).fill(0));
  const F = r('F', null, null, null, '1111');
  const lcpE = (mask: string) => r('E', 'F', null, null, mask);

  it('the stack after every step from the divergence at A', () => {
    expect(states.slice(5).map((s) => rows(m, s))).toEqual([
      // (2) A diverges: IPDOM entry F, LCP entry E (empty), B (thread 1), C (threads 2-4) on top.
      [r('C', 'F', 'E', 1, '1110'), r('B', 'F', 'E', 1, '0001'), lcpE('0000'), F],
      [r('0x0090', 'F', 'E', 1, '1110'), r('B', 'F', 'E', 1, '0001'), lcpE('0000'), F],
      // (4) C diverges (IPDOM F = its RPC): replaced by D (3, 4) and E (2); (5) E is at its LPC:
      // thread 2 merges into the LCP entry, E's entry is removed.
      [r('D', 'F', 'E', 1, '1100'), r('B', 'F', 'E', 1, '0001'), lcpE('0010'), F],
      [r('0x00b0', 'F', 'E', 1, '1100'), r('B', 'F', 'E', 1, '0001'), lcpE('0010'), F],
      // (7) threads 3, 4 reach F: popped.
      [r('B', 'F', 'E', 1, '0001'), lcpE('0010'), F],
      [r('0x0060', 'F', 'E', 1, '0001'), lcpE('0010'), F],
      [r('0x0070', 'F', 'E', 1, '0001'), lcpE('0010'), F],
      // B reaches PC = LPC: thread 1 merges; the LCP entry holds threads 1 and 2.
      [lcpE('0011'), F],
      [r('0x00d0', 'F', null, null, '0011'), F],
      // The LCP entry reaches the IPDOM F: popped; all four threads at F.
      [F],
      [r('0x00f0', null, null, null, '1111')],
      [],
    ]);
    expect(m.status(states.at(-1)!)).toBe('terminated');
  });

  it('each thread followed its own path: R1 = B+E (9), C+E (10), C+D (6), C+D (6)', () => {
    expect(regsOf(m, states.at(-1)!, 1)).toEqual([9, 10, 6, 6]);
    expect(regsOf(m, states.at(-1)!, 2)).toEqual([0x109, 0x10a, 0x106, 0x106]);
  });

  it('block E issues once for threads 1 and 2 together; simt-stack issues it once per path', () => {
    // E's first instruction is pc 12. simt-stack, by the same derivation: thread 2's E path runs
    // under C's divergence (IPDOM F), thread 1's later under A's: two issues, 18 steps in all; lcp
    // shares E's two instructions: 16 steps.
    const issuesAt = (mech: string) => {
      const mm = machineOf(text, mech);
      let s = mm.initial();
      const atE: number[] = [];
      let n = 0;
      for (let t = mm.successors(s); t.length > 0; t = mm.successors(s)) {
        if (t[0]!.issue.pc === 12) atE.push(t[0]!.issue.mask);
        s = t[0]!.next!;
        n++;
      }
      return { n, atE };
    };
    expect(issuesAt('lcp')).toEqual({ n: 16, atE: [0b0011] });
    expect(issuesAt('simt-stack')).toEqual({ n: 18, atE: [0b0010, 0b0001] });
  });
});
