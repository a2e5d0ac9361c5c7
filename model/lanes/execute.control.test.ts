/**
 * Control flow through `execute` (SEMANTICS §1–2): the per-lane outcome a mechanism sees — next
 * PCs grouped by PC, exited lanes, the event — and the verdicts a single instruction can end a run
 * with. PCs in comments are instruction indices; offsets are 16 bytes apart.
 */
import { describe, expect, it } from 'vitest';
import { exec, execOne, lanesFor, maskOf, runStraight } from '../testing/run.ts';
import type { ExecResult } from './index.ts';

const steps = (rs: readonly ExecResult[]) =>
  rs.map((r) => {
    if (r.kind !== 'step') return expect.fail(`stopped: ${r.verdict}`);
    return r;
  });

describe('EXIT', () => {
  it('participating lanes exit; the others fall through', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_LANEID',
        'ISETP.LT.AND P0, PT, R0, 0x2, PT', // lanes 0, 1
        '@P0 EXIT',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l, { until: 2 });
    const r = execOne(l, 2, data, l.memory(), 0b1111);
    expect(r.outcome).toEqual({
      groups: [{ pc: 3, mask: 0b1100 }],
      exited: 0b0011,
      event: { kind: 'none' },
    });
    const last = execOne(l, 3, r.data, r.memory, 0b1100);
    expect(last.outcome).toEqual({ groups: [], exited: 0b1100, event: { kind: 'none' } });
  });
});

describe('BRA', () => {
  const text = [
    '// @warpcheck warp-size=4',
    'S2R R0, SR_LANEID', // 0
    'ISETP.LT.AND P0, PT, R0, 0x2, PT', // 1: P0 = lanes 0, 1
    'ISETP.LT.AND P2, PT, R0, 0x3, PT', // 2: lanes 0, 1, 2
    'ISETP.GE.AND P1, PT, R0, 0x1, P2', // 3: P1 = lanes 1, 2
    '@P0 BRA !P1, L', // 4
    '@P0 BRA L', // 5
    'BRA L', // 6
    'NOP', // 7
    'L:',
    'EXIT', // 8
  ].join('\n');
  const l = lanesFor(text);
  const { data } = runStraight(l, { until: 4 });

  it('a lane participates when the guard and the second predicate both hold', () => {
    // P0 ∧ ¬P1 = {0,1} ∧ {0,3} = lane 0.
    const r = execOne(l, 4, data, l.memory(), 0b1111);
    expect(r.outcome.groups).toEqual([
      { pc: 5, mask: 0b1110 },
      { pc: 8, mask: 0b0001 },
    ]);
    expect(r.outcome.exited).toBe(0);
    expect(r.data).toEqual(data); // a branch changes no thread state
  });

  it('guarded branch: taken lanes jump, the rest fall through; unguarded: all jump', () => {
    expect(execOne(l, 5, data, l.memory(), 0b1111).outcome.groups).toEqual([
      { pc: 6, mask: 0b1100 },
      { pc: 8, mask: 0b0011 },
    ]);
    expect(execOne(l, 6, data, l.memory(), 0b0110).outcome.groups).toEqual([
      { pc: 8, mask: 0b0110 },
    ]);
  });
});

describe('BRA.DIV / BRA.CONV (SEMANTICS §2, a decision)', () => {
  // pcs: 0 EXIT, 1 BRA.DIV L, 2 BRA.CONV L, 3 NOP, 4 (L) EXIT
  const l = lanesFor(
    ['// @warpcheck warp-size=4', 'EXIT', 'BRA.DIV L', 'BRA.CONV L', 'NOP', 'L:', 'EXIT'].join(
      '\n',
    ),
  );
  const d = l.data();
  const m = l.memory();

  it('converged warp (active = every live lane): .DIV falls through, .CONV is taken', () => {
    expect(execOne(l, 1, d, m, 0b1111).outcome.groups).toEqual([{ pc: 2, mask: 0b1111 }]);
    expect(execOne(l, 2, d, m, 0b1111).outcome.groups).toEqual([{ pc: 4, mask: 0b1111 }]);
  });

  it('diverged warp: .DIV is taken, .CONV falls through', () => {
    expect(execOne(l, 1, d, m, 0b0011).outcome.groups).toEqual([{ pc: 4, mask: 0b0011 }]);
    expect(execOne(l, 2, d, m, 0b0011).outcome.groups).toEqual([{ pc: 3, mask: 0b0011 }]);
  });

  it('exited lanes do not count: the rest of the warp is converged', () => {
    const exited = execOne(l, 0, d, m, 0b1100).data; // lanes 2, 3 exit
    expect(execOne(l, 1, exited, m, 0b0011).outcome.groups).toEqual([{ pc: 2, mask: 0b0011 }]);
    expect(execOne(l, 2, exited, m, 0b0011).outcome.groups).toEqual([{ pc: 4, mask: 0b0011 }]);
  });
});

describe('branches on unknown predicates (SEMANTICS §5)', () => {
  const text = [
    '// @warpcheck warp-size=2',
    'FADD R1, R2, R3', // 0: R1 unknown
    'ISETP.GT.AND P0, PT, R1, RZ, PT', // 1: P0 unknown in both lanes
    '@P0 BRA L', // 2
    'NOP', // 3
    'L:',
    'EXIT', // 4
  ].join('\n');

  it('one alternative per subset of the unknown lanes (2 lanes → 4), each labelled', () => {
    const l = lanesFor(text);
    const { data } = runStraight(l, { until: 2 });
    const rs = steps(exec(l, 2, data, l.memory(), 0b11));
    expect(rs).toHaveLength(4);
    const outcomes = rs.map((r) => JSON.stringify(r.outcome.groups)).sort();
    const expected = [
      [{ pc: 3, mask: 0b11 }], // nobody takes it
      [
        { pc: 3, mask: 0b10 },
        { pc: 4, mask: 0b01 },
      ], // lane 0 takes it
      [
        { pc: 3, mask: 0b01 },
        { pc: 4, mask: 0b10 },
      ], // lane 1 takes it
      [{ pc: 4, mask: 0b11 }], // both
    ]
      .map((g) => JSON.stringify(g))
      .sort();
    expect(outcomes).toEqual(expected);
    const labels = rs.map((r) => r.choice);
    for (const c of labels) expect(c).toMatch(/^unknown/);
    expect(new Set(labels).size).toBe(4);
  });

  it('lanes with a known predicate go their own way in every alternative', () => {
    // Lane 0 has a known R1 (MOV), lane 1 an unknown one: 2 alternatives, lane 0 always falls through.
    const l = lanesFor(
      [
        '// @warpcheck warp-size=2 R5@1=1',
        'ISETP.NE.AND P1, PT, R5, RZ, PT', // lane 1
        '@P1 FADD R1, R2, R3', // R1 unknown in lane 1, 0 in lane 0
        'ISETP.GT.AND P0, PT, R1, RZ, PT', // lane 0 false, lane 1 unknown
        '@P0 BRA L',
        'NOP',
        'L:',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l, { until: 3 });
    const rs = steps(exec(l, 3, data, l.memory(), 0b11));
    expect(rs).toHaveLength(2);
    for (const r of rs) expect(r.outcome.groups.find((g) => g.mask & 1)?.pc).toBe(4);
  });
});

describe('BRX (SEMANTICS §1: BRX R8 -0x200 lands on function start + R8)', () => {
  // Offsets from the listing's own addresses; the BRX is at 0x1f0, the next instruction at 0x200.
  const listing = (r8: string) =>
    [
      `// @warpcheck warp-size=2 ${r8}`,
      '        /*0000*/                   NOP ;',
      '        /*0040*/                   MOV R1, 0x1 ;',
      '        /*0050*/                   EXIT ;',
      '        /*01f0*/                   BRX R8 -0x200 ;',
      '        /*0200*/                   EXIT ;',
    ].join('\n');

  it('R8 = 0x40: 0x40 − 0x200 + 0x200 = 0x40, the MOV (pc 1)', () => {
    const l = lanesFor(listing('R8=0x40'));
    const r = execOne(l, 3, l.data(), l.memory(), 0b11);
    expect(r.outcome.groups).toEqual([{ pc: 1, mask: 0b11 }]);
  });

  it('per-lane targets diverge', () => {
    const l = lanesFor(listing('R8@0=0x40 R8@1=0x50'));
    const r = execOne(l, 3, l.data(), l.memory(), 0b11);
    expect(r.outcome.groups).toEqual([
      { pc: 1, mask: 0b01 },
      { pc: 2, mask: 0b10 },
    ]);
  });

  it('a target that is not an instruction boundary is undefined behavior', () => {
    const l = lanesFor(listing('R8=0x44'));
    const rs = exec(l, 3, l.data(), l.memory(), 0b11);
    expect(rs).toHaveLength(1);
    expect(rs[0]).toMatchObject({ kind: 'stop', verdict: 'undefined-behavior' });
    const gap = lanesFor(listing('R8=0x100')); // inside the gap 0x60..0x1e0
    expect(exec(gap, 3, gap.data(), gap.memory(), 0b11)[0]).toMatchObject({
      kind: 'stop',
      verdict: 'undefined-behavior',
    });
  });

  it('BRX without an immediate jumps to the offset in the register', () => {
    const l = lanesFor('// @warpcheck warp-size=1 R8=0x20\nBRX R8\nNOP\nEXIT');
    expect(execOne(l, 0, l.data(), l.memory(), 1).outcome.groups).toEqual([{ pc: 2, mask: 1 }]);
  });
});

describe('BRX with declared targets (nvdisasm BRANCH_TARGETS)', () => {
  // pcs: 0 NOP (0x00), 1 BRX (0x10), 2 .L_1 (0x20), 3 .L_2 (0x30), 4 NOP (0x40, not declared).
  // BRX R8 -0x20 lands on R8 - 0x20 + 0x20 = R8.
  const listing = (r8: string) =>
    [
      `// @warpcheck warp-size=1 ${r8}`,
      'Function : k',
      '  NOP ;',
      '  BRX R8 -0x20 (*"BRANCH_TARGETS .L_1,.L_2"*) ;',
      '.L_1:',
      '  EXIT ;',
      '.L_2:',
      '  EXIT ;',
      '  NOP ;',
      '  EXIT ;',
    ].join('\n');

  it('decodes the declared targets', () => {
    expect(lanesFor(listing('R8=0x20')).ops[1]).toMatchObject({ kind: 'brx', targets: [2, 3] });
  });

  it('a declared target is taken', () => {
    const l = lanesFor(listing('R8=0x30'));
    expect(execOne(l, 1, l.data(), l.memory(), 1).outcome.groups).toEqual([{ pc: 3, mask: 1 }]);
  });

  it('an instruction that is not declared is undefined behavior', () => {
    const l = lanesFor(listing('R8=0x40'));
    expect(exec(l, 1, l.data(), l.memory(), 1)).toEqual([
      expect.objectContaining({ kind: 'stop', verdict: 'undefined-behavior' }),
    ]);
  });
});

describe('CALL / RET with a return-address register', () => {
  const text = [
    '// @warpcheck warp-size=4',
    'MOV R2, ret_label', // 0: R2 = 0x20
    'CALL.REL.NOINC func', // 1
    'ret_label:',
    'EXIT', // 2
    'func:',
    'MOV R1, 0x7', // 3
    'RET.REL.NODEC R2 0x0', // 4
  ].join('\n');

  it('CALL jumps to the callee with a call event; RET comes back to the label in R2', () => {
    const l = lanesFor(text);
    const mov = execOne(l, 0, l.data(), l.memory(), 0b1111);
    const call = execOne(l, 1, mov.data, mov.memory, 0b1111);
    expect(call.outcome).toEqual({
      groups: [{ pc: 3, mask: 0b1111 }],
      exited: 0,
      event: { kind: 'call', mask: 0b1111, returnPc: 2 },
    });
    const body = execOne(l, 3, call.data, call.memory, 0b1111);
    const ret = execOne(l, 4, body.data, body.memory, 0b1111);
    expect(ret.outcome).toEqual({
      groups: [{ pc: 2, mask: 0b1111 }],
      exited: 0,
      event: { kind: 'ret', mask: 0b1111 },
    });
  });

  it('a guarded CALL: callers enter the callee, the others fall through to the return PC', () => {
    const l = lanesFor(text.replace('CALL.REL.NOINC func', '@P0 CALL.REL.NOINC func'));
    // P0 is false everywhere: nobody calls.
    const none = execOne(l, 1, l.data(), l.memory(), 0b1111);
    expect(none.outcome).toEqual({
      groups: [{ pc: 2, mask: 0b1111 }],
      exited: 0,
      event: { kind: 'none' },
    });
  });

  it('RET to an offset that is not an instruction is undefined behavior', () => {
    const l = lanesFor(text.replace('MOV R2, ret_label', 'MOV R2, 0x24'));
    const mov = execOne(l, 0, l.data(), l.memory(), 0b1111);
    const call = execOne(l, 1, mov.data, mov.memory, 0b1111);
    const body = execOne(l, 3, call.data, call.memory, 0b1111);
    expect(exec(l, 4, body.data, body.memory, 0b1111)).toEqual([
      expect.objectContaining({ kind: 'stop', verdict: 'undefined-behavior' }),
    ]);
  });
});

describe('BPT.TRAP', () => {
  it('participating lanes end the run with trap; a guard that holds nowhere falls through', () => {
    const l = lanesFor('// @warpcheck warp-size=2\nBPT.TRAP 0x1\n@P0 BPT.TRAP 0x1\nEXIT');
    expect(exec(l, 0, l.data(), l.memory(), 0b11)).toEqual([
      expect.objectContaining({ kind: 'stop', verdict: 'trap' }),
    ]);
    expect(execOne(l, 1, l.data(), l.memory(), 0b11).outcome.groups).toEqual([
      { pc: 2, mask: 0b11 },
    ]);
  });
});

describe('events of the non-branching control instructions', () => {
  it('WARPSYNC reports the participating lanes and the mask they name', () => {
    const l = lanesFor(
      '// @warpcheck warp-size=4 R4=0x3\nWARPSYNC 0x5\nWARPSYNC R4\nWARPSYNC.ALL\nYIELD\nEXIT',
    );
    const d = l.data();
    const m = l.memory();
    expect(execOne(l, 0, d, m, maskOf(0, 2)).outcome.event).toEqual({
      kind: 'warpsync',
      mask: 0b0101,
      named: 0b0101,
      masks: [0b0101, 0, 0b0101, 0],
    });
    expect(execOne(l, 1, d, m, 0b0011).outcome.event).toEqual({
      kind: 'warpsync',
      mask: 0b0011,
      named: 0b0011,
      masks: [0b0011, 0b0011, 0, 0],
    });
    expect(execOne(l, 2, d, m, 0b1111).outcome.event).toEqual({
      kind: 'warpsync',
      mask: 0b1111,
      named: 0b1111,
      masks: [0b1111, 0b1111, 0b1111, 0b1111],
    });
    expect(execOne(l, 3, d, m, 0b1111).outcome).toEqual({
      groups: [{ pc: 4, mask: 0b1111 }],
      exited: 0,
      event: { kind: 'yield' },
    });
  });

  it('lanes naming different masks: named is null', () => {
    const l = lanesFor('// @warpcheck warp-size=2 R4@0=0x3 R4@1=0x2\nWARPSYNC R4\nEXIT');
    expect(execOne(l, 0, l.data(), l.memory(), 0b11).outcome.event).toEqual({
      kind: 'warpsync',
      mask: 0b11,
      named: null,
      masks: [0x3, 0x2],
    });
  });
});
