/**
 * Operand forms (SYNTAX.md §1, §3): each structured kind of `program.ts`, the forms kept as text,
 * and the splitting of an operand field at commas and at top-level spaces.
 */
import { describe, expect, it } from 'vitest';
import { parseOperand } from './parseOperand.ts';
import { splitOperands } from './parseOperandList.ts';
import type { Operand } from './program.ts';

const cases: [string, Operand][] = [
  ['R0', { kind: 'reg', index: 0, reuse: false }],
  ['R254', { kind: 'reg', index: 254, reuse: false }],
  ['RZ', { kind: 'reg', index: 255, reuse: false }],
  ['R9.reuse', { kind: 'reg', index: 9, reuse: true }],
  ['UR4', { kind: 'ureg', index: 4 }],
  ['URZ', { kind: 'ureg', index: 63 }],
  ['P0', { kind: 'pred', pred: { index: 0, negated: false } }],
  ['!P3', { kind: 'pred', pred: { index: 3, negated: true } }],
  ['PT', { kind: 'pred', pred: { index: 7, negated: false } }],
  ['!PT', { kind: 'pred', pred: { index: 7, negated: true } }],
  ['UP0', { kind: 'upred', pred: { index: 0, negated: false } }],
  ['!UPT', { kind: 'upred', pred: { index: 7, negated: true } }],
  ['B0', { kind: 'breg', index: 0 }],
  ['B15', { kind: 'breg', index: 15 }],
  ['SR_TID.X', { kind: 'sreg', name: 'SR_TID.X' }],
  ['SR_LANEID', { kind: 'sreg', name: 'SR_LANEID' }],
  ['SR_CTAID.X', { kind: 'sreg', name: 'SR_CTAID.X' }],
  ['MACTIVE', { kind: 'sreg', name: 'MACTIVE' }],
  ['OPT_STACK', { kind: 'sreg', name: 'OPT_STACK' }],
  ['THREAD_STATE_ENUM.4', { kind: 'sreg', name: 'THREAD_STATE_ENUM.4' }],
  ['TRAP_RETURN_PC.LO', { kind: 'sreg', name: 'TRAP_RETURN_PC.LO' }],
  ['SRZ', { kind: 'sreg', name: 'SRZ' }],
  ['0x10', { kind: 'imm', value: 16 }],
  ['-0x200', { kind: 'imm', value: -512 }],
  ['0xffffffff', { kind: 'imm', value: 0xffffffff }],
  ['0x7f1200000000', { kind: 'imm', value: 0x7f1200000000 }],
  ['5', { kind: 'imm', value: 5 }],
  ['-24', { kind: 'imm', value: -24 }],
  ['0.125', { kind: 'float', value: 0.125 }],
  ['-0.052303962409496307373', { kind: 'float', value: -0.052303962409496307373 }],
  ['1.1102230246251565404e-16', { kind: 'float', value: 1.1102230246251565404e-16 }],
  ['1e-05', { kind: 'float', value: 1e-5 }],
  ['1.0', { kind: 'float', value: 1 }],
  ['c[0x0][0x160]', { kind: 'cbank', bank: 0, offset: 0x160, offsetReg: null }],
  ['c[0x3][R2]', { kind: 'cbank', bank: 3, offset: 0, offsetReg: 2 }],
  ['c[0x2][R8+0xc]', { kind: 'cbank', bank: 2, offset: 0xc, offsetReg: 8 }],
  ['c[0x0][RZ]', { kind: 'cbank', bank: 0, offset: 0, offsetReg: 255 }],
  ['[R2]', { kind: 'mem', base: 2, wide: false, ureg: null, offset: 0 }],
  ['[R2.64]', { kind: 'mem', base: 2, wide: true, ureg: null, offset: 0 }],
  ['[R2+0x10]', { kind: 'mem', base: 2, wide: false, ureg: null, offset: 0x10 }],
  ['[R2.64+UR4+0x8]', { kind: 'mem', base: 2, wide: true, ureg: 4, offset: 8 }],
  ['[UR4]', { kind: 'mem', base: 255, wide: false, ureg: 4, offset: 0 }],
  ['[UR6+0x10]', { kind: 'mem', base: 255, wide: false, ureg: 6, offset: 0x10 }],
  ['[0x10]', { kind: 'mem', base: 255, wide: false, ureg: null, offset: 0x10 }],
  ['[0xffffd0]', { kind: 'mem', base: 255, wide: false, ureg: null, offset: 0xffffd0 }],
  ['[R2+-0x4]', { kind: 'mem', base: 2, wide: false, ureg: null, offset: -4 }],
  ['[R2.64+-0x4]', { kind: 'mem', base: 2, wide: true, ureg: null, offset: -4 }],
  ['[R3+UR4]', { kind: 'mem', base: 3, wide: false, ureg: 4, offset: 0 }],
  ['[RZ]', { kind: 'mem', base: 255, wide: false, ureg: null, offset: 0 }],
];

const texts = [
  '-R2',
  '|R4|',
  '|R0|.reuse',
  'R2.H1',
  '~R3',
  '-RZ',
  '32@lo((dummy + .L_x_0@srel))',
  'INF',
  '+INF',
  '+QNAN',
  '-c[0x0][0x180]',
  'desc[UR6][R6.64+0x4]',
  '[R13.X4+0x4c]',
  'c[`(__internal_accurate_pow.const2.0.8)]',
  '`(vprintf)',
  'PR',
  'Rpc.LO',
  '2D',
  '0x1ffffffffffffff', // beyond 2^53: kept exact as text
];

describe('parseOperand', () => {
  it.each(cases)('%s', (text, operand) => {
    expect(parseOperand(text)).toEqual({ ok: true, operand });
  });

  it.each(texts)('%s stays text', (text) => {
    expect(parseOperand(text)).toEqual({ ok: true, operand: { kind: 'text', text } });
  });

  it.each([
    ['R255', 'register'],
    ['R300', 'register'],
    ['UR63', 'uniform register'],
    ['P7', 'predicate'],
    ['UP9', 'predicate'],
    ['B16', 'barrier register'],
    ['[R999+0x4]', 'register'],
  ])('%s is out of range', (text, what) => {
    const r = parseOperand(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(`${what} '`);
  });
});

describe('splitOperands', () => {
  const texts = (field: string) => {
    const r = splitOperands(field, 1);
    return r.ok ? r.operands.map((o) => o.text) : r.errors;
  };

  it('splits at commas and keeps columns', () => {
    expect(splitOperands('R1, RZ,c[0x0][0x28]', 10)).toEqual({
      ok: true,
      operands: [
        { text: 'R1', column: 10 },
        { text: 'RZ', column: 14 },
        { text: 'c[0x0][0x28]', column: 17 },
      ],
    });
  });

  it('splits the space-separated trailing operand', () => {
    expect(texts('R20 0x0')).toEqual(['R20', '0x0']);
    expect(texts('R8 -0x200')).toEqual(['R8', '-0x200']);
    expect(texts('R6 `(_Z7argtestPiS_S_)')).toEqual(['R6', '`(_Z7argtestPiS_S_)']);
  });

  it('keeps separators inside brackets and parentheses', () => {
    expect(texts('R20, 32@lo((dummy + .L_x_0@srel))')).toEqual([
      'R20',
      '32@lo((dummy + .L_x_0@srel))',
    ]);
    expect(texts('R4, [R2 + 0x10]')).toEqual(['R4', '[R2 + 0x10]']);
  });

  it('tolerates a space before a comma', () => {
    expect(texts('P0, PT, R6, +INF , PT')).toEqual(['P0', 'PT', 'R6', '+INF', 'PT']);
  });

  it('reports empty operands and unbalanced brackets with columns', () => {
    expect(texts('R1, , R2')).toEqual([{ column: 3, message: "expected an operand after ','" }]);
    expect(texts('R1,')).toEqual([{ column: 3, message: "expected an operand after ','" }]);
    expect(texts(', R1')).toEqual([{ column: 1, message: "expected an operand before ','" }]);
    expect(texts('R2, [R4.64')).toEqual([{ column: 5, message: "unterminated '[' (missing ']')" }]);
    expect(texts('R2, R4]')).toEqual([{ column: 7, message: "unexpected ']'" }]);
  });
});
