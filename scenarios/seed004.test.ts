/**
 * seed 004 (Multi-Path IPDOM) step by step: the two scenario files are replayed through the test
 * helpers and their Split/Reconvergence Tables read from the mechanism's view after every step;
 * every schedule of the basic workflow is enumerated; the reuse rule ("if the new recovergence PC
 * is not equal to the last recovergence PC, add a new recovergence item") gets its own listing.
 * Figures are images in our copy: every expected table is derived by hand from the prose of seed
 * 004 and the rules of SEMANTICS §3.6, as the comments say.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Machine, MachineState } from '../model/machine/machine.ts';
import { machineOf, regsOf, replay } from '../model/testing/run.ts';

const here = new URL('.', import.meta.url).pathname;
const listing = (name: string) => readFileSync(join(here, name), 'utf8');

interface StRow {
  pc: string;
  mask: string;
  r: number | null;
}
interface RtRow {
  pc: string;
  rpc: string | null;
  rec: string;
  pending: string;
  parent: number | null;
  frame?: true;
}
const tables = (m: Machine, s: MachineState) =>
  m.mechanism.view(s.warps[0]!.mech, m.fmt).data as { st: StRow[]; rt: RtRow[] };
const sp = (pc: string, mask: string, r: number | null): StRow => ({ pc, mask, r });
const rt = (
  pc: string,
  rpc: string | null,
  rec: string,
  pending: string,
  parent: number | null,
): RtRow => ({
  pc,
  rpc,
  rec,
  pending,
  parent,
});

describe('seed 004 basic workflow (steps 1-5), every step', () => {
  const m = machineOf(listing('seed004-basic.sass'), 'mp-ipdom');
  // B, C, B (B reaches D first, Step3A), then C three times to D (Step4A, Step5), then D, EXIT.
  const schedule = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
  const { states } = replay(m, schedule);

  it('ST and RT after each step', () => {
    const D = rt('D', null, '1111', '1111', null);
    expect(states.map((s) => tables(m, s))).toEqual([
      // Step1: one entry, RT empty.
      { st: [sp('A', '1111', null)], rt: [] },
      { st: [sp('0x0010', '1111', null)], rt: [] },
      { st: [sp('0x0020', '1111', null)], rt: [] },
      { st: [sp('0x0030', '1111', null)], rt: [] },
      // Step2: A1111 moves to the RT at the RPC D with both masks 1111; splits B0101, C1010 → R 0.
      { st: [sp('B', '0101', 0), sp('C', '1010', 0)], rt: [D] },
      { st: [sp('0x0050', '0101', 0), sp('C', '1010', 0)], rt: [D] },
      { st: [sp('0x0050', '0101', 0), sp('0x0070', '1010', 0)], rt: [D] },
      // Step3: B reaches D, is invalidated; pending 1111 & ~0101 = 1010.
      { st: [sp('0x0070', '1010', 0)], rt: [{ ...D, pending: '1010' }] },
      { st: [sp('0x0080', '1010', 0)], rt: [{ ...D, pending: '1010' }] },
      { st: [sp('0x0090', '1010', 0)], rt: [{ ...D, pending: '1010' }] },
      // Step4+5: C reaches D, pending 0000, the entry moves back to the ST as D1111.
      { st: [sp('D', '1111', null)], rt: [] },
      { st: [sp('0x00b0', '1111', null)], rt: [] },
      { st: [], rt: [] },
    ]);
    expect(m.status(states.at(-1)!)).toBe('terminated');
  });

  it('each lane computes its own side: in + 10000 + 1 (B, even lanes) or in + 400 + 1 (C, odd lanes)', () => {
    expect(regsOf(m, states.at(-1)!, 2)).toEqual([10001, 402, 10003, 404]);
  });

  it('B and C are both schedulable after the divergence: two candidates, in ST order', () => {
    expect(m.successors(states[4]!).map((t) => t.issue)).toEqual([
      { pc: 4, mask: 0b0101 },
      { pc: 6, mask: 0b1010 },
    ]);
  });

  it('every schedule issues block D exactly once, with all four lanes (reconvergence at the IPDOM)', () => {
    // Depth-first over all schedules (the state space is tiny): B's 2 and C's 4 instructions
    // interleave in C(6, 2) = 15 ways.
    let runs = 0;
    const walk = (s: MachineState, dIssues: number[]): void => {
      const succ = m.successors(s);
      if (succ.length === 0) {
        runs++;
        expect(dIssues).toEqual([0b1111]);
        return;
      }
      for (const t of succ) walk(t.next!, t.issue.pc === 10 ? [...dIssues, t.issue.mask] : dIssues);
    };
    walk(m.initial(), []);
    expect(runs).toBe(15);
  });
});

describe('seed 004 nested divergence, every step', () => {
  const m = machineOf(listing('seed004-nested.sass'), 'mp-ipdom');
  const { states } = replay(m, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);

  it('ST and RT after each step', () => {
    const G = rt('G', null, '1111', '1111', null);
    const F = rt('F', 'G', '1100', '1100', 0);
    expect(states.slice(4).map((s) => tables(m, s))).toEqual([
      // A diverges: C1100, B0011 → RT 0 (G).
      { st: [sp('C', '1100', 0), sp('B', '0011', 0)], rt: [G] },
      // Step 3->4: C diverges; F ≠ G, so a new entry F-G; B, D and E run in parallel.
      { st: [sp('E', '1000', 1), sp('D', '0100', 1), sp('B', '0011', 0)], rt: [G, F] },
      // D reaches F.
      { st: [sp('E', '1000', 1), sp('B', '0011', 0)], rt: [G, { ...F, pending: '1000' }] },
      { st: [sp('0x0060', '1000', 1), sp('B', '0011', 0)], rt: [G, { ...F, pending: '1000' }] },
      // Step 6->7: E reaches F; the F-G item leaves the RT and runs as split F (R 0).
      { st: [sp('F', '1100', 0), sp('B', '0011', 0)], rt: [G] },
      { st: [sp('0x0090', '1100', 0), sp('B', '0011', 0)], rt: [G] },
      { st: [sp('B', '0011', 0)], rt: [{ ...G, pending: '0011' }] },
      { st: [sp('G', '1111', null)], rt: [] },
      { st: [sp('0x00c0', '1111', null)], rt: [] },
      { st: [], rt: [] },
    ]);
  });

  it('three paths are schedulable at once after step 3->4', () => {
    expect(m.successors(states[5]!).length).toBe(3);
  });
});

describe('seed 004: reuse of the entry when the new RPC equals the current one', () => {
  // if (lane < 2) { if (lane == 0) X; else Y; } else Z;  — written so that both branches have the
  // same IPDOM J: the inner branch adds no RT entry, its splits point at the outer entry.
  const text = [
    '// @warpcheck warp-size=4',
    'A:',
    '        S2R R0, SR_LANEID',
    '        ISETP.LT.AND P0, PT, R0, 0x2, PT',
    '        ISETP.EQ.AND P1, PT, R0, RZ, PT',
    '   @!P0 BRA Z', // 3: IPDOM J
    '   @P1  BRA X', // 4: IPDOM J as well
    'Y:',
    '        MOV R1, 0x2',
    '        BRA J',
    'X:',
    '        MOV R1, 0x1',
    '        BRA J',
    'Z:',
    '        MOV R1, 0x3',
    'J:',
    '        EXIT',
  ].join('\n');
  it('the inner divergence keeps one RT entry with its pending mask unchanged', () => {
    const m = machineOf(text, 'mp-ipdom');
    // S2R, ISETP, ISETP, BRA (outer: lanes 0,1 → 0x0040, lanes 2,3 → Z), then the inner BRA.
    const { states } = replay(m, [0, 0, 0, 0, 0]);
    const J = rt('J', null, '1111', '1111', null);
    expect(tables(m, states[4]!)).toEqual({
      st: [sp('0x0040', '0011', 0), sp('Z', '1100', 0)],
      rt: [J],
    });
    // Inner branch at 0x0040: IPDOM J = the PC of its own entry: reuse, no new entry.
    expect(tables(m, states[5]!)).toEqual({
      st: [sp('Y', '0010', 0), sp('X', '0001', 0), sp('Z', '1100', 0)],
      rt: [J],
    });
  });
});
