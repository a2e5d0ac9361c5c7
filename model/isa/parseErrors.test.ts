/**
 * Malformed listings: each gives a diagnostic at the line and column of the offending token, with a
 * message a person can act on. Several errors are reported at once, at most twenty.
 */
import { describe, expect, it } from 'vitest';
import { parseSass } from './parseSass.ts';
import { parseErrors } from './parseTestUtil.ts';

describe('diagnostics', () => {
  it('unknown label', () => {
    expect(parseErrors('\t\tFunction : _Z3foo\n    @P0 BRA `(.L_x_9) ;\n    EXIT')).toEqual([
      "2:13: unknown label '.L_x_9' (no label or function of that name in function _Z3foo)",
    ]);
    expect(parseErrors('    BSSY B0, nowhere\n    EXIT')).toEqual([
      "1:14: unknown label 'nowhere' (no label or function of that name in function kernel)",
    ]);
  });

  it('hex target that is no instruction of the function', () => {
    expect(
      parseErrors('        /*0000*/                   BRA 0x18 ;\n        /*0010*/ EXIT ;'),
    ).toEqual([
      '1:40: no instruction at offset 0x18 in function kernel (a target must be the address of one of its instructions)',
    ]);
    expect(parseErrors('    BRA 0x100\n    EXIT')).toHaveLength(1);
  });

  it('bad operands', () => {
    expect(parseErrors('    IADD3 R1, R300, RZ, RZ')).toEqual([
      "1:15: register 'R300' out of range (R0..R254 or RZ)",
    ]);
    expect(parseErrors('    ISETP.NE.AND P9, PT, R0, RZ, PT')).toEqual([
      "1:18: predicate 'P9' out of range (P0..P6 or PT)",
    ]);
    expect(parseErrors('    BSSY B16, 0x0')).toEqual([
      "1:10: barrier register 'B16' out of range (B0..B15)",
    ]);
    expect(parseErrors('    IADD3 R1, , RZ')).toEqual(["1:13: expected an operand after ','"]);
    expect(parseErrors('    BRA R2')).toEqual([
      "1:9: BRA target must be a label, a function name or a hex offset, not 'R2'",
    ]);
    expect(parseErrors('    @P0 BRA ;')).toEqual([
      '1:9: BRA needs a target: a label, a function name or a hex offset',
    ]);
  });

  it('unterminated bracket', () => {
    expect(parseErrors('    LDG.E R2, [R4.64 ;')).toEqual(["1:15: unterminated '[' (missing ']')"]);
    expect(parseErrors('    BRA `(loop\nloop:\n    EXIT')).toEqual([
      "1:10: unterminated '(' (missing ')')",
    ]);
    expect(parseErrors('    MOV R1, c[0x0]]0x4] ;')).toEqual(["1:19: unexpected ']'"]);
  });

  it('address going backwards or repeating', () => {
    const listing = [
      '        /*0040*/                   NOP ;',
      '        /*0050*/                   NOP ;',
      '        /*0040*/                   NOP ;',
      '        /*0040*/                   EXIT ;',
    ].join('\n');
    expect(parseErrors(listing)).toEqual([
      '3:9: address /*0040*/ goes backwards (previous was /*0050*/)',
      '4:9: address /*0040*/ repeats the previous address /*0040*/',
    ]);
  });

  it('bad guards, lower-case opcodes, unreadable lines, duplicate labels', () => {
    expect(parseErrors('    @P9 EXIT')).toEqual([
      "1:5: bad guard '@P9' (expected @P0..@P6 or @PT, optionally negated: @!P0)",
    ]);
    expect(parseErrors('    bra loop\nloop:\n    EXIT')).toEqual([
      "1:5: opcode 'bra' must be upper case ('BRA')",
    ]);
    expect(parseErrors('    = 3')).toEqual([
      "1:5: cannot read '=': expected an instruction, a label (name:), or a directive",
    ]);
    expect(parseErrors('        /*0000*/   ')).toEqual([
      '1:9: expected an instruction after the address',
    ]);
    expect(parseErrors('a:\n    NOP\na:\n    EXIT')).toEqual([
      "3:1: label 'a' is already defined in function kernel (line 1)",
    ]);
  });

  it('reports every error, in line order, with the file name, and stops after 20', () => {
    const r = parseSass('    BRA nowhere\n    IADD3 R1, R300\n    EXIT', { file: 'k.sass' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.map((d) => [d.file, d.line])).toEqual([
        ['k.sass', 1],
        ['k.sass', 2],
      ]);
    }
    const many = parseSass(Array.from({ length: 50 }, () => '    BRA R1').join('\n'));
    expect(many.ok === false && many.error.length).toBe(20);
    const structural = parseSass(Array.from({ length: 50 }, () => '    NOP R999').join('\n'));
    expect(structural.ok === false && structural.error.length).toBe(20);
  });
});
