/**
 * The printer's layout: cuobjdump columns with the guard right-aligned, labels on their own line,
 * target spelling (label, function name, hex offset), float and trailing-operand forms.
 */
import { describe, expect, it } from 'vitest';
import { formatFloat } from './printOperand.ts';
import { printProgram } from './printProgram.ts';
import type { Instruction, Program } from './program.ts';
import { breg, imm, parseOk, pred, reg, symbol, target } from './parseTestUtil.ts';

const at = (
  offset: number,
  opcode: string,
  operands: Instruction['operands'],
  guard: Instruction['guard'] = null,
): Instruction => ({
  offset,
  guard,
  opcode: opcode.split('.')[0]!,
  modifiers: opcode.split('.').slice(1),
  operands,
});

const program: Program = {
  functions: [
    { name: 'main', start: 0, end: 6 },
    { name: 'helper', start: 6, end: 8 },
  ],
  instructions: [
    at(0x00, 'BSSY', [breg(0), target(4)]),
    at(0x10, 'BRA', [pred(1), target(3)], { index: 0, negated: true }),
    at(0x20, 'CALL.ABS.NOINC', [target(6)], { index: 0, negated: false }),
    at(0x30, 'BSYNC', [breg(0)]),
    at(0x40, 'CALL.ABS.NOINC', [symbol('vprintf')]),
    at(0x50, 'BRX', [reg(8), imm(-0x60)], { index: 7, negated: true }),
    at(0x00, 'FADD', [reg(2), reg(3, true), { kind: 'float', value: 1 }]),
    at(0x10, 'RET.REL.NODEC', [reg(2), imm(0)]),
  ],
  labels: [{ name: '.L_x_0', pc: 4 }],
};

describe('printProgram', () => {
  it('prints cuobjdump columns, right-aligned guards and labels', () => {
    expect(printProgram(program)).toBe(
      [
        '\t\tFunction : main',
        '        /*0000*/                   BSSY B0, `(.L_x_0) ;',
        '        /*0010*/              @!P0 BRA P1, 0x30 ;',
        '        /*0020*/               @P0 CALL.ABS.NOINC `(helper) ;',
        '        /*0030*/                   BSYNC B0 ;',
        '.L_x_0:',
        '        /*0040*/                   CALL.ABS.NOINC `(vprintf) ;',
        '        /*0050*/              @!PT BRX R8 -0x60 ;',
        '\t\t..........',
        '',
        '',
        '\t\tFunction : helper',
        '        /*0000*/                   FADD R2, R3.reuse, 1.0 ;',
        '        /*0010*/                   RET.REL.NODEC R2 0x0 ;',
        '\t\t..........',
        '',
      ].join('\n'),
    );
    expect(parseOk(printProgram(program)).program).toEqual(program);
  });

  it('prints a target at the end of the current function as the next offset', () => {
    const p: Program = {
      functions: [{ name: 'k', start: 0, end: 2 }],
      instructions: [at(0, 'BRA', [target(2)]), at(0x10, 'EXIT', [])],
      labels: [],
    };
    expect(printProgram(p)).toContain('BRA 0x20 ;');
    expect(parseOk(printProgram(p)).program).toEqual(p);
  });

  it('prints floats so that they read back and do not look like integers', () => {
    expect([1, 0.5, 1e-5, -0, 100, 1e21, -2.5e-7, 5e-324].map(formatFloat)).toEqual([
      '1.0',
      '0.5',
      '0.00001',
      '-0.0',
      '100.0',
      '1e+21',
      '-2.5e-7',
      '5e-324',
    ]);
  });
});
