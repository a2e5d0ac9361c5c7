/**
 * `its` (SEMANTICS §3.1): per-lane PCs; a step issues all ready lanes at one PC together
 * (maximal groups), or one lane (`grouping=single`). Expected candidates are worked out by hand.
 */
import { describe, expect, it } from 'vitest';
import { machineOf, regsOf, replay, runListing } from '../testing/run.ts';

/** Lanes 0, 1 take the branch to `then` (pc 5); lanes 2, 3 fall through to pc 3. */
const ifElse = [
  '// @warpcheck warp-size=4',
  '        S2R R0, SR_LANEID', // 0
  '        ISETP.LT.AND P0, PT, R0, 0x2, PT', // 1
  '   @P0  BRA then', // 2
  '        MOV R1, 0x2', // 3  0x0030
  '        BRA join', // 4  0x0040
  'then:',
  '        MOV R1, 0x1', // 5
  'join:',
  '        EXIT', // 6
].join('\n');

const pcsOf = (m: ReturnType<typeof machineOf>, s: ReturnType<typeof m.initial>) =>
  (m.mechanism.view(s.warps[0]!.mech, m.fmt).data as { pcs: (string | null)[] }).pcs;

describe('its: maximal grouping (default)', () => {
  it('converged lanes issue together', () => {
    const m = machineOf(ifElse, 'its');
    expect(m.successors(m.initial()).map((t) => t.issue)).toEqual([{ pc: 0, mask: 0b1111 }]);
  });

  it('after divergence the candidates are the distinct PCs, each with all its ready lanes', () => {
    const m = machineOf(ifElse, 'its');
    const { states } = replay(m, [0, 0, 0]);
    const s = states.at(-1)!;
    expect(pcsOf(m, s)).toEqual(['then', 'then', '0x0030', '0x0030']);
    expect(m.successors(s).map((t) => t.issue)).toEqual([
      { pc: 3, mask: 0b1100 },
      { pc: 5, mask: 0b0011 },
    ]);
  });

  it('lanes that meet at one PC issue together again', () => {
    const m = machineOf(ifElse, 'its');
    // Lanes 2, 3 run MOV and BRA join (choice 0 twice: pc 3, then pc 4 < pc 5), then lanes 0, 1
    // run MOV (their PC 5 is now the only one besides join at 6: choice 0 is pc 5).
    const { states } = replay(m, [0, 0, 0, 0, 0, 0]);
    const s = states.at(-1)!;
    expect(pcsOf(m, s)).toEqual(['join', 'join', 'join', 'join']);
    expect(m.successors(s).map((t) => t.issue)).toEqual([{ pc: 6, mask: 0b1111 }]);
  });

  it('exited lanes are never candidates', () => {
    const m = machineOf(
      '// @warpcheck warp-size=2\nS2R R0, SR_LANEID\nISETP.EQ.AND P0, PT, R0, RZ, PT\n@P0 EXIT\nEXIT',
      'its',
    );
    const { states } = replay(m, [0, 0, 0]);
    const s = states.at(-1)!;
    expect(pcsOf(m, s)).toEqual([null, '0x0030']);
    expect(m.successors(s).map((t) => t.issue)).toEqual([{ pc: 3, mask: 0b10 }]);
    expect(m.live(s)).toEqual([0b10]);
  });
});

describe('its: grouping=single', () => {
  it('one candidate per ready lane, even when they share a PC', () => {
    const m = machineOf(ifElse, 'its', { options: { grouping: 'single' } });
    expect(m.successors(m.initial()).map((t) => t.issue)).toEqual([
      { pc: 0, mask: 0b0001 },
      { pc: 0, mask: 0b0010 },
      { pc: 0, mask: 0b0100 },
      { pc: 0, mask: 0b1000 },
    ]);
  });

  it('straight-line code has the same outcome under both groupings', () => {
    const text = '// @warpcheck warp-size=2\nS2R R0, SR_LANEID\nIADD3 R1, R0, 0x5, RZ\nEXIT';
    for (const grouping of ['maximal', 'single']) {
      const { result } = runListing(text, 'its', { options: { grouping } });
      expect(result.verdict, grouping).toBe('terminates');
      expect(result.terminalStates, grouping).toBe(1);
    }
  });
});

describe('its: foreign instructions', () => {
  it('with barriers=reject (as a pre-Volta mechanism treats them), BSSY/BSYNC are unsupported', () => {
    const text = [
      '// @warpcheck warp-size=2',
      'BSSY B0, join',
      'NOP',
      'BSYNC B0',
      'join:',
      'EXIT',
    ].join('\n');
    expect(runListing(text, 'its', { options: { barriers: 'reject' } }).result.verdict).toBe(
      'unsupported',
    );
    // Natively (the default), the BSSY region reconverges and the warp exits.
    expect(runListing(text, 'its').result.verdict).toBe('terminates');
  });

  it('a Fermi stack instruction is unsupported', () => {
    const text = '// @warpcheck warp-size=2\nSSY join\nNOP\nSYNC\njoin:\nEXIT';
    expect(runListing(text, 'its').result.verdict).toBe('unsupported');
  });
});

describe('choices the machine offers (SEMANTICS §6)', () => {
  it('an explored atomic race: one transition per winning lane, one issue group, not an unknown choice', () => {
    const m = machineOf(
      '// @warpcheck warp-size=4 R3=1\nATOMS.CAS R0, [0x100], RZ, R3\nEXIT',
      'its',
      { atomicOrder: 'explore' },
    );
    const succ = m.successors(m.initial());
    expect(succ).toHaveLength(4);
    expect(new Set(succ.map((t) => t.group)).size).toBe(1);
    expect(succ.every((t) => t.issue.pc === 0 && t.issue.mask === 0b1111)).toBe(true);
    expect(succ.every((t) => !t.unknownChoice && t.choice !== null)).toBe(true);
    // Exactly one lane got the old 0 in each alternative, a different lane each time.
    const winners = succ.map((t) => {
      const r0 = regsOf(m, t.next!, 0);
      expect(r0.filter((v) => v === 0)).toHaveLength(1);
      return r0.indexOf(0);
    });
    expect([...winners].sort()).toEqual([0, 1, 2, 3]);
  });

  it('a branch on an unknown predicate: alternatives marked as unknown choices', () => {
    const m = machineOf(
      '// @warpcheck warp-size=2\nFADD R1, R2, R3\nISETP.GT.AND P0, PT, R1, RZ, PT\n@P0 BRA L\nNOP\nL:\nEXIT',
      'its',
    );
    const { states } = replay(m, [0, 0]);
    const succ = m.successors(states.at(-1)!);
    expect(succ).toHaveLength(4);
    expect(succ.every((t) => t.unknownChoice && t.group === 0)).toBe(true);
  });

  it("several warps: each warp's candidates, warp 0 first", () => {
    const m = machineOf('// @warpcheck warp-size=2 warps=3\nEXIT', 'its');
    expect(
      m.successors(m.initial()).map((t) => [t.warp, t.issue.pc, t.issue.mask, t.group]),
    ).toEqual([
      [0, 0, 0b11, 0],
      [1, 0, 0b11, 1],
      [2, 0, 0b11, 2],
    ]);
  });
});
