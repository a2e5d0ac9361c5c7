/**
 * seed 001 §2, Fig. 1: `if(A && B) C; else D; E;` with thread 0 going A B C E, thread 1 A D E and
 * threads 2 and 3 A B D E, under each path-list traversal order. Fig. 1 is an image in our copy:
 * every expected value below is derived by hand from the prose of §2.1–2.4 and the caption (the
 * derivations are in the notes of the seed001-fig1.<mechanism>.json scenarios), not from a run.
 * Masks are written lane 3 first (thread 0 = 0001, thread 1 = 0010, threads 2 and 3 = 1100).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Machine, MachineState } from '../model/machine/machine.ts';
import type { PathListState } from '../model/mechanisms/pathList.ts';
import { machineOf, runDeterministic } from '../model/testing/run.ts';

const here = new URL('.', import.meta.url).pathname;
const PLAIN = readFileSync(join(here, 'seed001-fig1.sass'), 'utf8');
const GCN = readFileSync(join(here, 'seed001-fig1-gcn.sass'), 'utf8');

/** The list state in a compact form: `active | (saved) [region mask/joined@resume]`, or `-`. */
function compact(m: Machine, s: MachineState): string {
  const st = s.warps[0]!.mech as PathListState;
  const f = m.fmt;
  const parts: string[] = [st.active ? `${f.pc(st.active.pc)}:${f.mask(st.active.mask)}` : '-'];
  for (const e of st.list)
    parts.push(
      e.kind === 'path'
        ? `(${f.pc(e.pc)}:${f.mask(e.mask)})`
        : `[${f.mask(e.mask)}/${f.mask(e.joined)}@${e.resume >= 0 ? f.pc(e.resume) : '-'}]`,
    );
  return parts.join(' ');
}

/**
 * The blocks the warp issues, in order, with their masks: consecutive issues of one block fold. A
 * JOIN is the region's synchronisation point (Fig. 1's brackets), not part of block E.
 */
function blocks(m: Machine, states: readonly MachineState[]): string[] {
  const out: string[] = [];
  const block = (pc: number) => {
    let name = '';
    for (const l of m.program.labels) if (l.pc <= pc && l.name.length === 1) name = l.name;
    return name;
  };
  let last = '';
  for (const s of states) {
    const a = (s.warps[0]!.mech as PathListState).active;
    if (!a || m.program.instructions[a.pc]!.opcode === 'JOIN') continue;
    const here = `${block(a.pc)}${m.fmt.mask(a.mask)}`;
    // A new block entry: another block, or the same block entered at its label again.
    const entering = m.program.labels.some((l) => l.pc === a.pc);
    if (here !== last || entering) out.push(here);
    last = here;
  }
  return out;
}

const DFS_STATES = [
  'A:1111',
  '0x0010:1111',
  'B:1101 (D:0010)', // divergent forward branch: push the target, run the fall-through
  '0x0030:1101 (D:0010)',
  'C:0001 (D:1110)', // the pushed D merges with the top D (same PC)
  '0x0050:0001 (D:1110)',
  'D:1110 (E:0001)', // uniform forward branch past the top: swap ("from C to D")
  'E:1111', // "When the PC is equal to the top of the stack PC ... merged (case of D)"
  '0x0080:1111',
  '-',
];

describe('seed 001 Fig. 1: traversal orders and list states, step by step', () => {
  it('Fig. 1b dfs-minpc: A B C D E', () => {
    const m = machineOf(PLAIN, 'dfs-minpc');
    const states = runDeterministic(m);
    expect(states.map((s) => compact(m, s))).toEqual(DFS_STATES);
    expect(blocks(m, states)).toEqual(['A1111', 'B1101', 'C0001', 'D1110', 'E1111']);
  });

  it('Fig. 1c gcn: A D B C D E — minority first, block D traversed twice', () => {
    const m = machineOf(GCN, 'gcn');
    const states = runDeterministic(m);
    expect(states.map((s) => compact(m, s))).toEqual([
      'A:1111',
      '0x0010:1111',
      '0x0020:1111 [1111/0000@-]', // FORK: a marker with the active mask
      'D:0010 (B:1101) [1111/0000@-]', // majority (0,2,3 to B) pushed, minority (1 to D) runs
      'E:0010 (B:1101) [1111/0000@-]',
      'B:1101 [1111/0010@0x0090]', // JOIN: thread 1 waits after it; B popped
      '0x0040:1101 [1111/0010@0x0090]',
      'C:0001 (D:1100) [1111/0010@0x0090]', // majority (2,3 to D) pushed, minority (0 to C) runs
      '0x0060:0001 (D:1100) [1111/0010@0x0090]',
      'E:0001 (D:1100) [1111/0010@0x0090]',
      'D:1100 [1111/0011@0x0090]', // JOIN: D popped — D runs a second time
      'E:1100 [1111/0011@0x0090]',
      '0x0090:1111', // JOIN at the marker: the initial mask continues after the JOIN
      '0x00a0:1111',
      '-',
    ]);
    expect(blocks(m, states)).toEqual(['A1111', 'D0010', 'B1101', 'C0001', 'D1100', 'E1111']);
  });

  it('gcn without FORK/JOIN (one implicit region to EXIT): no merging at all, E runs per path', () => {
    const m = machineOf(PLAIN, 'gcn');
    expect(blocks(m, runDeterministic(m))).toEqual([
      'A1111',
      'D0010',
      'E0010',
      'B1101',
      'C0001',
      'E0001',
      'D1100',
      'E1100',
    ]);
  });

  it('Fig. 1d bfs: A B D C E — a queue, a path runs to the end of its block', () => {
    const m = machineOf(PLAIN, 'bfs');
    const states = runDeterministic(m);
    expect(states.map((s) => compact(m, s))).toEqual([
      'A:1111',
      '0x0010:1111',
      'B:1101 (D:0010)', // end of A: B then D queued (ascending PC), the head B runs
      '0x0030:1101 (D:0010)',
      'D:1110 (C:0001)', // end of B: C queued, threads 2,3 merge into the queued D; D is the head
      'C:0001 (E:1110)', // end of D: E to the tail; C runs
      '0x0050:0001 (E:1110)',
      'E:1111', // C's jump to E merges with the queued E
      '0x0080:1111',
      '-',
    ]);
    expect(blocks(m, states)).toEqual(['A1111', 'B1101', 'D1110', 'C0001', 'E1111']);
  });

  it("§2.4 sorted (Simty: deepest call, then smallest PC): one function, so Fig. 1b's order", () => {
    const m = machineOf(PLAIN, 'sorted');
    expect(runDeterministic(m).map((s) => compact(m, s))).toEqual(DFS_STATES);
  });

  it('§2.4 the DWF orders', () => {
    const order = (o: string) => {
      const m = machineOf(PLAIN, 'sorted', { options: { order: o } });
      return blocks(m, runDeterministic(m));
    };
    expect(order('minpc')).toEqual(['A1111', 'B1101', 'C0001', 'D1110', 'E1111']);
    // Most lanes first: D (threads 1,2,3 once merged) before C, and E (1110) before C too.
    expect(order('majority')).toEqual(['A1111', 'B1101', 'D1110', 'E1110', 'C0001', 'E0001']);
    // Fewest lanes first: each single-thread path runs to its EXIT before the larger ones.
    expect(order('minority')).toEqual([
      'A1111',
      'D0010',
      'E0010',
      'B1101',
      'C0001',
      'E0001',
      'D1100',
      'E1100',
    ]);
  });
});
