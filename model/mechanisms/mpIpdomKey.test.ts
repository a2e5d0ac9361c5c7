/**
 * The canonical `mp-ipdom` key (issue 14): Reconvergence Table entries are numbered by creation
 * order, so the same state reached by two interleavings used to count twice. Checked against a
 * brute-force canonical form (the least serialisation over every renumbering of the RT), which
 * shares no code with `mpIpdomKey.ts`.
 */
import { describe, expect, it } from 'vitest';
import { KeyWriter } from '../machine/key.ts';
import type { MachineState } from '../machine/machine.ts';
import { machineOf, reachable } from '../testing/run.ts';
import type { MpIpdomState, RtEntry, Split } from './mpIpdom.ts';

// W=4: lanes 2,3 go RIGHT, lanes 0,1 stay; each side diverges again (lane 0 / lane 2 jump), so
// the two inner RT entries (at L1 and RR) are created in either order, whichever split runs first.
const text = [
  '// @warpcheck warp-size=4',
  '        S2R R0, SR_LANEID',
  '        ISETP.GE.AND P0, PT, R0, 0x2, PT',
  '        ISETP.EQ.AND P1, PT, R0, RZ, PT',
  '        ISETP.EQ.AND P2, PT, R0, 0x2, PT',
  '   @P0  BRA RIGHT',
  '   @P1  BRA L1',
  '        NOP',
  'L1:',
  '        NOP',
  '        BRA JOIN',
  'RIGHT:',
  '   @P2  BRA RR',
  '        NOP',
  'RR:',
  '        NOP',
  'JOIN:',
  '        EXIT',
].join('\n');

const keyOf = (m: ReturnType<typeof machineOf>, s: MpIpdomState) => {
  const w = new KeyWriter();
  m.mechanism.key(s, w);
  return w.finish();
};

function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((p) =>
    Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]),
  );
}

/** The least JSON text of `s` over every renumbering of its RT (perm[old] = new index). */
function bruteCanonical(s: MpIpdomState): string {
  let best: string | null = null;
  for (const perm of permutations(s.rt.length)) {
    const at = (i: number) => (i < 0 ? i : perm[i]!);
    const rt = new Array<RtEntry>(s.rt.length);
    s.rt.forEach((e, i) => (rt[perm[i]!] = { ...e, parent: at(e.parent) }));
    const st: Split[] = s.st.map((sp) => ({ ...sp, r: at(sp.r) }));
    const text = JSON.stringify({ st, rt });
    if (best === null || text < best) best = text;
  }
  return best!;
}

describe('mp-ipdom: the state key is canonical in the numbering of RT entries', () => {
  const m = machineOf(text, 'mp-ipdom');
  const root: RtEntry = { pc: 9, rec: 0b1111, pending: 0b1111, parent: -1, frame: false };
  const left: RtEntry = { pc: 7, rec: 0b0011, pending: 0b0011, parent: 0, frame: false };
  const right: RtEntry = { pc: 12, rec: 0b1100, pending: 0b1100, parent: 0, frame: false };
  const st = (l: number, r: number): Split[] => [
    { pc: 6, mask: 0b0010, r: l },
    { pc: 7, mask: 0b0001, r: l },
    { pc: 11, mask: 0b1000, r: r },
    { pc: 12, mask: 0b0100, r: r },
  ];
  it('two numberings of the same tables give one key', () => {
    const a: MpIpdomState = { st: st(1, 2), rt: [root, left, right] };
    const b: MpIpdomState = { st: st(2, 1), rt: [root, right, left] };
    expect(keyOf(m, a)).toBe(keyOf(m, b));
  });
  it('different tables still give different keys', () => {
    // The splits point at the wrong entries: not a renumbering of `a`.
    const a: MpIpdomState = { st: st(1, 2), rt: [root, left, right] };
    const c: MpIpdomState = { st: st(2, 1), rt: [root, left, right] };
    expect(keyOf(m, a)).not.toBe(keyOf(m, c));
  });
  it('the explorer counts each state once: as many keys as brute-force canonical forms', () => {
    const states = reachable(m);
    const rest = (s: MachineState) =>
      JSON.stringify({ data: s.warps.map((w) => [w.data, w.ref ?? null]), memory: s.memory });
    const canonical = new Set(
      states.map((s) => bruteCanonical(s.warps[0]!.mech as MpIpdomState) + rest(s)),
    );
    // Some reachable state has an RT of two or more entries built in either order.
    expect(states.some((s) => (s.warps[0]!.mech as MpIpdomState).rt.length >= 3)).toBe(true);
    expect(states.length).toBe(canonical.size);
  });
});
