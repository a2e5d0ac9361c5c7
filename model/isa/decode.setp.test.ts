import { describe, expect, it } from 'vitest';
import { decodeInstruction } from './decode.ts';
import { parseSass } from './parseSass.ts';
import { readWord } from '../lanes/index.ts';
import { lanesFor, runStraight, laneRegs } from '../testing/run.ts';

const op = (text: string) => {
  const r = parseSass(text);
  if (!r.ok) throw new Error('parse');
  return decodeInstruction(r.value.program, 0);
};

describe('opaque set-predicate instructions mark a source register as written', () => {
  it('FSETP P0, P1, R2, R3, PT writes P0 and P1 only (R2, R3 are sources)', () => {
    expect(op('FSETP.GT.AND P0, P1, R2, R3, PT')).toMatchObject({
      kind: 'opaque',
      regs: [],
      preds: [0, 1],
    });
  });
  it('ISETP.EX (64-bit compare high half) writes P0 only, not its source R3', () => {
    expect(op('ISETP.GE.U32.AND.EX P0, PT, R3, RZ, PT, P0')).toMatchObject({
      kind: 'opaque',
      regs: [],
      preds: [0],
    });
  });
});
describe('PLOP3.LUT decodes its destinations, sources and truth tables', () => {
  it('PLOP3.LUT P0, PT, P1, P2, PT, 0x80, 0x0 writes P0 only (its sources are read)', () => {
    expect(op('PLOP3.LUT P0, PT, P1, P2, PT, 0x80, 0x0')).toMatchObject({
      kind: 'plop3',
      dst: { index: 0, negated: false },
      dst2: { index: 7 },
      srcs: [{ index: 1 }, { index: 2 }, { index: 7 }],
      lut: 0x80,
      lut2: 0,
    });
  });
  it('a form without its two tables stays opaque and writes its first two predicates', () => {
    expect(op('PLOP3.AND P0, P3, P1, P2')).toMatchObject({
      kind: 'opaque',
      regs: [],
      preds: [0, 3],
    });
  });
});

describe('consequence: a 64-bit null check makes the pointer unknown and havocs memory', () => {
  it('the store through [R4.64] writes 0x100 only; 0x200 keeps its value', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=1 R4=0x100 R5=0x0 R6=7 mem[0x200]=5',
        'ISETP.NE.U32.AND P0, PT, R4, RZ, PT',
        'ISETP.NE.AND.EX P0, PT, R5, RZ, PT, P0', // pointer R5:R4 != null (opaque: .EX)
        'STG.E [R4.64], R6',
        'EXIT',
      ].join('\n'),
    );
    const { data, memory } = runStraight(l);
    expect(laneRegs(l, data, 5)).toEqual([0]); // R5 is only read
    expect(readWord(memory, 0x100)).toBe(7);
    expect(readWord(memory, 0x200)).toBe(5); // actual: UNKNOWN (whole memory havocked)
  });
});
