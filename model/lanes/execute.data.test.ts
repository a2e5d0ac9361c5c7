/**
 * The data subset through `execute` (SEMANTICS §1–2, §5): every expected value is worked out by
 * hand from the instruction's meaning, with the arithmetic in the comments.
 */
import { describe, expect, it } from 'vitest';
import {
  execOne,
  exec,
  lanePreds,
  laneRegs,
  lanesFor,
  maskOf,
  runStraight,
} from '../testing/run.ts';
import { readWord, UNKNOWN } from './index.ts';

describe('arithmetic wraps modulo 2^32', () => {
  const l = lanesFor(
    [
      '// @warpcheck warp-size=2 R1=0xffffffff R2=0x12345678 R3=0x9abcdef0',
      'IADD3 R4, R1, 0x2, RZ',
      'IADD3 R5, R1, R1, R1',
      'IMAD R6, R1, R1, RZ',
      'IMAD R7, R2, R3, 0x5',
      'IMAD.MOV.U32 R8, RZ, RZ, 0x7',
      'IMAD.SHL.U32 R9, R1, 0x10, RZ',
      'IADD3 R10, RZ, -0x1, RZ',
      'IMAD R11, R1, 0x2, R1',
      'EXIT',
    ].join('\n'),
  );
  const { data } = runStraight(l);

  it('IADD3', () => {
    expect(laneRegs(l, data, 4)).toEqual([1, 1]); // 0xffffffff + 2 = 2^32 + 1
    expect(laneRegs(l, data, 5)).toEqual([0xfffffffd, 0xfffffffd]); // 3·(2^32 − 1) = −3
    expect(laneRegs(l, data, 10)).toEqual([0xffffffff, 0xffffffff]); // 0 + (−1)
  });

  it('IMAD: the low 32 bits of the full product', () => {
    expect(laneRegs(l, data, 6)).toEqual([1, 1]); // (−1)·(−1)
    // Exact product in BigInt, then mod 2^32: an independent reference for Math.imul-style code.
    const expected = Number((0x12345678n * 0x9abcdef0n + 5n) & 0xffffffffn);
    expect(laneRegs(l, data, 7)).toEqual([expected, expected]);
    expect(laneRegs(l, data, 8)).toEqual([7, 7]);
    expect(laneRegs(l, data, 9)).toEqual([0xfffffff0, 0xfffffff0]); // (2^32 − 1)·16 = −16
    expect(laneRegs(l, data, 11)).toEqual([0xfffffffd, 0xfffffffd]); // 2·(−1) + (−1)
  });
});

describe('negated register operands and dropped carry-outs', () => {
  // `-Rn` is the two's complement of Rn (IADD3, IMAD's addend and factors); a carry-out into PT
  // (`IADD3 Rd, PT, PT, …`, as sm_90 and later print it) is dropped. Before, both made the result
  // unknown: `IADD3 R9, -R8, c[0x0][0x184], RZ` — a loop count `n - n % 4` — split the lanes of a
  // warp on a bound every lane shares (cudad sm89 `batched_sgemv`).
  const l = lanesFor(
    [
      '// @warpcheck warp-size=2 R1=0x9 R2=0x5 c[0x0][0x184]=0x9',
      'LOP3.LUT R8, R1, 0x3, RZ, 0xc0, !PT',
      'IADD3 R9, -R8, c[0x0][0x184], RZ',
      'IADD3 R10, PT, PT, R1, 0x1, -R2',
      'IMAD.MOV R11, RZ, RZ, -R2',
      'IMAD.IADD R12, R2, 0x1, -R1',
      'IADD3 R13, -RZ, R2, RZ',
      'IMAD R14, -R2, R1, RZ',
      'VIADD R15, R1, 0xfffffffe',
      'VIADD R16, -R2, R1',
      'EXIT',
    ].join('\n'),
  );
  const { data } = runStraight(l);

  it('computes -Rn as 2^32 - Rn', () => {
    expect(laneRegs(l, data, 9)).toEqual([8, 8]); // 9 - (9 & 3) = 9 - 1
    expect(laneRegs(l, data, 10)).toEqual([5, 5]); // 9 + 1 - 5
    expect(laneRegs(l, data, 11)).toEqual([0xfffffffb, 0xfffffffb]); // -5
    expect(laneRegs(l, data, 12)).toEqual([0xfffffffc, 0xfffffffc]); // 5·1 - 9 = -4
    expect(laneRegs(l, data, 13)).toEqual([5, 5]); // -0 + 5
    expect(laneRegs(l, data, 14)).toEqual([0xffffffd3, 0xffffffd3]); // -5 · 9 = -45
    expect(laneRegs(l, data, 15)).toEqual([7, 7]); // VIADD (sm_90+): 9 + (2^32 - 2) = 7
    expect(laneRegs(l, data, 16)).toEqual([4, 4]); // -5 + 9
  });

  it('keeps an unknown operand unknown', () => {
    const u = lanesFor(
      [
        '// @warpcheck warp-size=1',
        'LDG.E R8, desc[UR4][R2.64]',
        'IADD3 R9, -R8, 0x1, RZ',
        'EXIT',
      ].join('\n'),
    );
    const r = runStraight(u);
    expect(laneRegs(u, r.data, 9)).toEqual([UNKNOWN]); // a loaded word the model cannot know
  });
});

describe('ISETP', () => {
  it('signed vs .U32: 0xffffffff is −1 signed and the largest word unsigned', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=1 R1=0xffffffff',
        'ISETP.LT.AND P0, PT, R1, RZ, PT',
        'ISETP.LT.U32.AND P1, PT, R1, RZ, PT',
        'ISETP.GT.U32.AND P2, PT, R1, 0x7fffffff, PT',
        'ISETP.GT.AND P3, PT, R1, 0x7fffffff, PT',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(lanePreds(l, data, 0)).toEqual([true]); // −1 < 0
    expect(lanePreds(l, data, 1)).toEqual([false]); // 2^32−1 < 0 is false
    expect(lanePreds(l, data, 2)).toEqual([true]); // 2^32−1 > 2^31−1
    expect(lanePreds(l, data, 3)).toEqual([false]); // −1 > 2^31−1 is false
  });

  it('every comparison, lane by lane (lane id against 1)', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=3',
        'S2R R0, SR_LANEID',
        'ISETP.EQ.AND P0, PT, R0, 0x1, PT',
        'ISETP.NE.AND P1, PT, R0, 0x1, PT',
        'ISETP.LT.AND P2, PT, R0, 0x1, PT',
        'ISETP.LE.AND P3, PT, R0, 0x1, PT',
        'ISETP.GT.AND P4, PT, R0, 0x1, PT',
        'ISETP.GE.AND P5, PT, R0, 0x1, PT',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    // lanes 0, 1, 2 compared with 1
    expect(lanePreds(l, data, 0)).toEqual([false, true, false]);
    expect(lanePreds(l, data, 1)).toEqual([true, false, true]);
    expect(lanePreds(l, data, 2)).toEqual([true, false, false]);
    expect(lanePreds(l, data, 3)).toEqual([true, true, false]);
    expect(lanePreds(l, data, 4)).toEqual([false, false, true]);
    expect(lanePreds(l, data, 5)).toEqual([false, true, true]);
  });

  it('second destination and the .AND/.OR/.XOR combine with C', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_LANEID',
        'ISETP.LT.AND P0, P1, R0, 0x2, PT', // P0 = lanes 0,1; P1 = !(lt) AND PT = lanes 2,3
        'ISETP.EQ.AND P2, PT, R0, 0x1, PT', // lane 1
        'ISETP.LT.AND P3, PT, R0, 0x3, P2', // (lanes 0,1,2) AND lane 1 = lane 1
        'ISETP.LT.OR P4, PT, R0, 0x1, P2', // lane 0 OR lane 1
        'ISETP.LT.XOR P5, PT, R0, 0x2, P2', // (lanes 0,1) XOR lane 1 = lane 0
        'ISETP.GE.AND P6, PT, R0, 0x2, !P2', // lanes 2,3 AND not lane 1 = lanes 2,3
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(lanePreds(l, data, 0)).toEqual([true, true, false, false]);
    expect(lanePreds(l, data, 1)).toEqual([false, false, true, true]);
    expect(lanePreds(l, data, 3)).toEqual([false, true, false, false]);
    expect(lanePreds(l, data, 4)).toEqual([true, true, false, false]);
    expect(lanePreds(l, data, 5)).toEqual([true, false, false, false]);
    expect(lanePreds(l, data, 6)).toEqual([false, false, true, true]);
  });

  it('the short form ISETP.NE P0, R2, 0', () => {
    const l = lanesFor('// @warpcheck warp-size=2 R2@1=5\nISETP.NE P0, R2, 0\nEXIT');
    expect(lanePreds(l, runStraight(l).data, 0)).toEqual([false, true]);
  });
});

describe('LOP3, AND/OR/XOR and shifts on registers', () => {
  it('compute per lane', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=1 R1=0x12345678 R2=0xffff0000 R3=0x0f0f0f0f',
        'LOP3.LUT R4, R1, R2, R3, 0xc0, !PT',
        'LOP3.LUT R5, R1, R2, R3, 0xfc, !PT',
        'LOP3.LUT R6, R1, R2, R3, 0x3c, !PT',
        'LOP3.LUT R7, R1, R2, R3, 0x96, !PT',
        'AND R8, R1, 0xff',
        'OR R9, R1, R3',
        'XOR R10, R1, R1',
        'SHF.L.U32 R11, R1, 0x4, RZ',
        'SHF.R.S32.HI R12, RZ, 0x1f, R2',
        'SHL R13, R1, 0x8',
        'SHR R14, R2, 0x10',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    const r = (n: number) => laneRegs(l, data, n)[0];
    expect(r(4)).toBe(0x12340000); // a & b
    expect(r(5)).toBe(0xffff5678); // a | b
    expect(r(6)).toBe(0xedcb5678); // a ^ b
    expect(r(7)).toBe(0xe2c45977); // 0xedcb5678 ^ 0x0f0f0f0f
    expect(r(8)).toBe(0x78);
    expect(r(9)).toBe(0x1f3f5f7f); // 0x12345678 | 0x0f0f0f0f
    expect(r(10)).toBe(0);
    expect(r(11)).toBe(0x23456780);
    expect(r(12)).toBe(0xffffffff); // sign of 0xffff0000
    expect(r(13)).toBe(0x34567800);
    expect(r(14)).toBe(0x0000ffff);
  });
});

describe('S2R', () => {
  it('SR_TID.X = k·W + l and SR_LANEID = l (SEMANTICS §1)', () => {
    const l = lanesFor(
      '// @warpcheck warp-size=4 warps=2\nS2R R0, SR_TID.X\nS2R R1, SR_LANEID\nEXIT',
    );
    const w0 = runStraight(l, { warp: 0 }).data;
    const w1 = runStraight(l, { warp: 1 }).data;
    expect(laneRegs(l, w0, 0)).toEqual([0, 1, 2, 3]);
    expect(laneRegs(l, w1, 0)).toEqual([4, 5, 6, 7]);
    expect(laneRegs(l, w1, 1)).toEqual([0, 1, 2, 3]);
  });
});

describe('predication of data instructions', () => {
  it('only lanes whose guard holds write; the others keep their value and move on', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4 R1=9',
        'S2R R0, SR_LANEID',
        'ISETP.LT.AND P0, PT, R0, 0x2, PT',
        '@P0 MOV R1, 0x5',
        '@!P0 IADD3 R2, R1, 0x1, RZ',
        'EXIT',
      ].join('\n'),
    );
    const { data, outcomes } = runStraight(l);
    expect(laneRegs(l, data, 1)).toEqual([5, 5, 9, 9]);
    expect(laneRegs(l, data, 2)).toEqual([0, 0, 10, 10]);
    // Guarded instructions still move every active lane to pc+1.
    expect(outcomes[2]!.groups).toEqual([{ pc: 3, mask: 0b1111 }]);
  });

  it('lanes outside the active mask are untouched', () => {
    const l = lanesFor('// @warpcheck warp-size=4 R1=9\nMOV R1, 0x1\nEXIT');
    const r = execOne(l, 0, l.data(), l.memory(), maskOf(1, 3));
    expect(laneRegs(l, r.data, 1)).toEqual([9, 1, 9, 1]);
    expect(r.outcome).toEqual({
      groups: [{ pc: 1, mask: 0b1010 }],
      exited: 0,
      event: { kind: 'none' },
    });
  });
});

describe('loads and stores', () => {
  it('per-lane addresses [R4+0x100]; a load reads back what was stored', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_LANEID',
        'IMAD.SHL.U32 R4, R0, 0x4, RZ', // lane·4
        'IADD3 R3, R0, 0x10, RZ', // lane + 16
        'STS [R4+0x100], R3',
        'LDS R5, [R4+0x100]',
        'LDS R6, [0x104]',
        'EXIT',
      ].join('\n'),
    );
    const { data, memory } = runStraight(l);
    expect([0x100, 0x104, 0x108, 0x10c, 0x110].map((a) => readWord(memory, a))).toEqual([
      16, 17, 18, 19, 0,
    ]);
    expect(laneRegs(l, data, 5)).toEqual([16, 17, 18, 19]);
    expect(laneRegs(l, data, 6)).toEqual([17, 17, 17, 17]);
  });

  it('stores to one address apply in ascending lane order: the highest lane is last', () => {
    const l = lanesFor('// @warpcheck warp-size=4 R2=0x100\nS2R R0, SR_LANEID\nSTS [R2], R0\nEXIT');
    expect(readWord(runStraight(l).memory, 0x100)).toBe(3);
    // Only lanes 0 and 2 active: lane 2 is last.
    const d = execOne(l, 0, l.data(), l.memory(), 0b1111).data;
    expect(readWord(execOne(l, 1, d, l.memory(), maskOf(0, 2)).memory, 0x100)).toBe(2);
  });

  it('[R2.64] is the 64-bit address R3:R2; reusing R3 for data moves the pointer', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=1 R2=0x100 R3=0x1 R5=0x2a mem[0x100]=7',
        'STG.E [R2.64], R5', // writes 0x1_00000100
        'LDG.E R6, [R2.64]',
        'MOV R3, RZ', // now the pointer is 0x100
        'LDG.E R7, [R2.64]',
        'STG.E [R2.64+0x4], R5',
        'EXIT',
      ].join('\n'),
    );
    const { data, memory } = runStraight(l);
    expect(readWord(memory, 0x1_0000_0100)).toBe(0x2a);
    expect(readWord(memory, 0x100)).toBe(7);
    expect(readWord(memory, 0x104)).toBe(0x2a);
    expect(laneRegs(l, data, 6)).toEqual([0x2a]);
    expect(laneRegs(l, data, 7)).toEqual([7]);
  });
});

describe('constant banks (SEMANTICS §5)', () => {
  const text = 'MOV R1, c[0x0][0x160]\nIADD3 R2, R1, 0x1, RZ\nMOV R3, c[0x0][0x164]\nEXIT';
  it('a word the launch gives reads as its value', () => {
    const l = lanesFor(`// @warpcheck warp-size=2 c[0x0][0x160]=0x100\n${text}`);
    const { data } = runStraight(l);
    expect(laneRegs(l, data, 1)).toEqual([0x100, 0x100]);
    expect(laneRegs(l, data, 2)).toEqual([0x101, 0x101]);
    expect(laneRegs(l, data, 3)).toEqual([UNKNOWN, UNKNOWN]); // not given
  });
  it('a missing word is unknown, and arithmetic on it is unknown', () => {
    const l = lanesFor(`// @warpcheck warp-size=2\n${text}`);
    const { data } = runStraight(l);
    expect(laneRegs(l, data, 1)).toEqual([UNKNOWN, UNKNOWN]);
    expect(laneRegs(l, data, 2)).toEqual([UNKNOWN, UNKNOWN]);
  });
});

describe('unknown values (abstract mode, SEMANTICS §5)', () => {
  it('an opaque instruction writes unknown to its destinations; unknown spreads', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=2 R2=1 R3=2',
        'FADD R1, R2, R3',
        'ISETP.GT.AND P0, PT, R1, RZ, PT',
        'LOP3.LUT R4, R1, 0x0, RZ, 0xc0, !PT', // R1 & 0: still unknown in this model
        'MOV R5, R2',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(laneRegs(l, data, 1)).toEqual([UNKNOWN, UNKNOWN]);
    expect(lanePreds(l, data, 0)).toEqual(['unknown', 'unknown']);
    expect(laneRegs(l, data, 4)).toEqual([UNKNOWN, UNKNOWN]);
    expect(laneRegs(l, data, 2)).toEqual([1, 1]); // sources untouched
    expect(laneRegs(l, data, 5)).toEqual([1, 1]);
  });

  it('PLOP3.LUT: each destination is its truth table at the three source predicates', () => {
    // The table is indexed as LOP3's: bit a·4 + b·2 + c (a the first source). By hand:
    // 0x80 at (PT, PT, PT) = bit 7 = 1 (the compiler's `P0 = true`); 0x08 there = bit 7 = 0
    // (`P0 = false`); 0x08 at (P1, PT, PT) = bit 3 when P1 is false (1), bit 7 when true (0): !P1;
    // 0xa8 = bits 3, 5, 7 at (P1, P2, PT) = P1 | P2; a second table 0x08 at (P1, P2, PT) into P4:
    // bit 3 only, P1 false and P2 true. Lanes: tid 0..3, P1 = tid & 1, P2 = tid ≥ 2.
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_TID.X',
        'LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT',
        'ISETP.NE.AND P1, PT, R1, RZ, PT',
        'ISETP.GE.AND P2, PT, R0, 0x2, PT',
        'PLOP3.LUT P0, PT, PT, PT, PT, 0x80, 0x0',
        'PLOP3.LUT P3, PT, PT, PT, PT, 0x8, 0x0',
        'PLOP3.LUT P5, PT, P1, PT, PT, 0x8, 0x0',
        'PLOP3.LUT P6, P4, P1, P2, PT, 0xa8, 0x8',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(lanePreds(l, data, 0)).toEqual([true, true, true, true]);
    expect(lanePreds(l, data, 3)).toEqual([false, false, false, false]);
    expect(lanePreds(l, data, 5)).toEqual([true, false, true, false]);
    expect(lanePreds(l, data, 6)).toEqual([false, true, true, true]);
    expect(lanePreds(l, data, 4)).toEqual([false, false, true, false]);
  });

  it('PLOP3.LUT with an unknown source: known where both values give the same result', () => {
    // P1 unknown (a loaded word), P2 = tid ≥ 2. 0xa8 = P1 | P2: true where P2 holds, unknown
    // elsewhere; 0x08 at (P1, PT, PT) = !P1: unknown everywhere; 0xf0 at (P2, PT, PT) = P2.
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_TID.X',
        'LDG.E R3, desc[UR4][R4.64]',
        'ISETP.NE.AND P1, PT, R3, RZ, PT',
        'ISETP.GE.AND P2, PT, R0, 0x2, PT',
        'PLOP3.LUT P0, PT, P1, P2, PT, 0xa8, 0x0',
        'PLOP3.LUT P3, PT, P1, PT, PT, 0x8, 0x0',
        'PLOP3.LUT P4, PT, P2, PT, PT, 0xf0, 0x0',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(lanePreds(l, data, 0)).toEqual(['unknown', 'unknown', true, true]);
    expect(lanePreds(l, data, 3)).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
    // 0xf0 = a: a known source alone decides, whatever the others.
    expect(lanePreds(l, data, 4)).toEqual([false, false, true, true]);
  });

  it('LOP3.LUT P0, RZ, R0, UR4, …: lanes with R0 ≠ 0 know P0 whatever UR4 holds', () => {
    // power_series: `if (threadIdx.x | blockIdx.x) return;` with the uniform UR4 not modelled.
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_TID.X',
        'LOP3.LUT P0, RZ, R0, UR4, RZ, 0xfc, !PT', // tid | ? ≠ 0 for tid = 1, 2, 3
        'LOP3.LUT P1, R2, R0, UR4, RZ, 0xc0, !PT', // tid & ?: 0 for tid = 0, unknown otherwise
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(lanePreds(l, data, 0)).toEqual(['unknown', true, true, true]);
    expect(lanePreds(l, data, 1)).toEqual([false, 'unknown', 'unknown', 'unknown']);
    expect(laneRegs(l, data, 2)).toEqual([UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]); // the word: unknown
  });

  it('an unknown guard makes the written value unknown in that lane only', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=2 R1@1=1 R2=4',
        'ISETP.NE.AND P1, PT, R1, RZ, PT', // lane 1
        '@P1 FADD R3, R2, R2', // R3 unknown in lane 1
        'ISETP.GT.AND P0, PT, R3, RZ, PT', // lane 0: 0 > 0 false; lane 1 unknown
        '@P0 MOV R2, 0x9', // lane 1 may or may not write: unknown
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(lanePreds(l, data, 0)).toEqual([false, 'unknown']);
    expect(laneRegs(l, data, 2)).toEqual([4, UNKNOWN]);
  });

  it('an opaque store havocs memory; a store to an unknown address too', () => {
    const l = lanesFor('// @warpcheck warp-size=1 mem[0x100]=5\nSTG.E.64 [R2.64], R4\nEXIT');
    expect(readWord(runStraight(l).memory, 0x100)).toBe(UNKNOWN);
    const l2 = lanesFor(
      '// @warpcheck warp-size=1 mem[0x100]=5\nFADD R2, R1, R1\nSTS [R2], R1\nEXIT',
    );
    expect(readWord(runStraight(l2).memory, 0x100)).toBe(UNKNOWN);
  });
});

describe('atomics (SEMANTICS §1: ascending lane order unless explored)', () => {
  const cas = [
    '// @warpcheck warp-size=4 R2=0x100 R3=1 mem[0x100]=0',
    'ATOMS.CAS R0, [R2], RZ, R3',
    'EXIT',
  ].join('\n');

  it('CAS on a free lock: exactly the lowest participating lane wins', () => {
    const l = lanesFor(cas);
    const all = execOne(l, 0, l.data(), l.memory(), 0b1111);
    // Lane 0 sees the old 0 (and takes the lock); the others see 1.
    expect(laneRegs(l, all.data, 0)).toEqual([0, 1, 1, 1]);
    expect(readWord(all.memory, 0x100)).toBe(1);
    const some = execOne(l, 0, l.data(), l.memory(), maskOf(1, 3));
    expect(laneRegs(l, some.data, 0)).toEqual([0, 0, 0, 1]); // lane 1 wins; lanes 0, 2 untouched (0)
  });

  it('descending order: the highest lane wins', () => {
    const l = lanesFor(cas, {}, { atomicOrder: 'descending', strict: false });
    const r = execOne(l, 0, l.data(), l.memory(), 0b1111);
    expect(laneRegs(l, r.data, 0)).toEqual([1, 1, 1, 0]);
  });

  it('explored order: one alternative per lane, each with that lane winning', () => {
    const l = lanesFor(cas, {}, { atomicOrder: 'explore', strict: false });
    const rs = exec(l, 0, l.data(), l.memory(), 0b1111);
    expect(rs).toHaveLength(4);
    const winners = rs.map((r) => {
      if (r.kind !== 'step') return expect.fail('stop');
      const v = laneRegs(l, r.data, 0);
      expect(v.filter((x) => x === 0)).toHaveLength(1); // exactly one winner
      expect(v.filter((x) => x === 1)).toHaveLength(3);
      expect(readWord(r.memory, 0x100)).toBe(1);
      expect(r.choice).toEqual(expect.any(String));
      return v.indexOf(0);
    });
    expect([...winners].sort()).toEqual([0, 1, 2, 3]);
  });

  it('ADD and EXCH return the old word lane after lane', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4 R3=1 mem[0x100]=5 mem[0x200]=7',
        'S2R R4, SR_LANEID',
        'ATOMS.ADD R5, [0x100], R3',
        'ATOMS.EXCH R6, [0x200], R4',
        'RED.E.ADD.STRONG.GPU [0x300], R4',
        'EXIT',
      ].join('\n'),
    );
    const { data, memory } = runStraight(l);
    expect(laneRegs(l, data, 5)).toEqual([5, 6, 7, 8]);
    expect(readWord(memory, 0x100)).toBe(9);
    // EXCH: lane 0 gets the initial 7, lane l > 0 gets lane l−1's id; lane 3's id stays.
    expect(laneRegs(l, data, 6)).toEqual([7, 0, 1, 2]);
    expect(readWord(memory, 0x200)).toBe(3);
    expect(readWord(memory, 0x300)).toBe(0 + 1 + 2 + 3);
  });

  it('CAS that does not match leaves memory as it was', () => {
    const l = lanesFor(
      '// @warpcheck warp-size=1 R3=1 R4=2 mem[0x100]=5\nATOMS.CAS R0, [0x100], R3, R4\nEXIT',
    );
    const { data, memory } = runStraight(l);
    expect(laneRegs(l, data, 0)).toEqual([5]);
    expect(readWord(memory, 0x100)).toBe(5);
  });
});

describe('VOTE', () => {
  it('VOTE.ANY: the ballot of active lanes whose predicate holds, and any()', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_LANEID',
        'LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT', // lane & 1
        'ISETP.EQ.AND P0, PT, R1, RZ, PT', // even lanes 0, 2
        'VOTE.ANY R2, P1, P0',
        'VOTE.ALL R3, P2, P0',
        'ISETP.GE.AND P3, PT, R0, RZ, PT', // every lane
        'VOTE.ALL R4, P4, P3',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(laneRegs(l, data, 2)).toEqual([0b0101, 0b0101, 0b0101, 0b0101]);
    expect(lanePreds(l, data, 1)).toEqual([true, true, true, true]);
    expect(lanePreds(l, data, 2)).toEqual([false, false, false, false]);
    expect(lanePreds(l, data, 4)).toEqual([true, true, true, true]);
  });

  it('only active lanes vote', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_LANEID',
        'ISETP.NE.AND P0, PT, R0, 0x1, PT', // lanes 0, 2, 3
        'VOTE.ANY R2, P1, P0',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l, { until: 2 });
    const r = execOne(l, 2, data, l.memory(), maskOf(0, 1));
    expect(laneRegs(l, r.data, 2).slice(0, 2)).toEqual([0b0001, 0b0001]);
  });
});
