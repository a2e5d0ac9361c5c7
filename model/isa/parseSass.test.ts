/**
 * One test per line form of SYNTAX.md §1–2 (short lines of our own, modelled on the catalogue),
 * with the parsed structure checked by hand.
 */
import { describe, expect, it } from 'vitest';
import { breg, imm, parseOk, pred, reg, target } from './parseTestUtil.ts';

describe('line anatomy (SYNTAX.md §1)', () => {
  it('reads an address, a right-aligned guard and the encoding comments', () => {
    const { program } = parseOk(
      [
        '        /*0000*/                   ISETP.GE.AND P0, PT, R0, c[0x0][0x184], PT ;   /* 0x0000610000007a0c */',
        '                                                                                   /* 0x001fda0003f06270 */',
        '        /*0010*/               @P0 EXIT ;                                          /* 0x000000000000094d */',
        '        /*0020*/              @!P1 BRA 0x0 ;',
        '        /*0030*/              @!PT LDS RZ, [RZ] ;',
      ].join('\n'),
    );
    expect(program.instructions).toEqual([
      {
        offset: 0,
        guard: null,
        opcode: 'ISETP',
        modifiers: ['GE', 'AND'],
        operands: [
          pred(0),
          pred(7),
          reg(0),
          { kind: 'cbank', bank: 0, offset: 0x184, offsetReg: null },
          pred(7),
        ],
      },
      {
        offset: 0x10,
        guard: { index: 0, negated: false },
        opcode: 'EXIT',
        modifiers: [],
        operands: [],
      },
      {
        offset: 0x20,
        guard: { index: 1, negated: true },
        opcode: 'BRA',
        modifiers: [],
        operands: [target(0)],
      },
      {
        offset: 0x30,
        guard: { index: 7, negated: true },
        opcode: 'LDS',
        modifiers: [],
        operands: [reg(255), { kind: 'mem', base: 255, wide: false, ureg: null, offset: 0 }],
      },
    ]);
  });

  it('accepts every terminator form: " ;", ";", none, and a remark after ";"', () => {
    const { program } = parseOk(
      [
        '        /*0000*/                   NOP;',
        '        /*0010*/                   BMOV.32 R4, OPT_STACK;',
        '        /*0020*/                   LDC R4, c[0x0][0x1880];  changed      /* 0x00062000ff047b82 */',
        '        /*0030*/   YIELD ;                                         ; hint scheduler...',
        '        /*0040*/                   EXIT',
      ].join('\n'),
    );
    expect(program.instructions.map((i) => i.opcode)).toEqual([
      'NOP',
      'BMOV',
      'LDC',
      'YIELD',
      'EXIT',
    ]);
    expect(program.instructions[1]!.operands).toEqual([
      reg(4),
      { kind: 'sreg', name: 'OPT_STACK' },
    ]);
    expect(program.instructions[2]!.operands[1]).toEqual({
      kind: 'cbank',
      bank: 0,
      offset: 0x1880,
      offsetReg: null,
    });
  });

  it('drops sm_120 scheduling annotations before the ";"', () => {
    const { program } = parseOk(
      [
        '        /*0000*/               @P0 EXIT                      &req={0}                 ?trans5;',
        '        /*0010*/                   BSSY.RECONVERGENT B0, 0x30            ?trans1;',
        '        /*0020*/              @!P0 BRA 0x30             &req={1,0}               ?WAIT5_END_GROUP;  /* 0x0 */',
        '        /*0030*/                   LDC R1, c[0x0][0x37c]     &wr=0x0     ?trans8;',
      ].join('\n'),
    );
    expect(program.instructions[0]!.operands).toEqual([]);
    expect(program.instructions[1]).toMatchObject({
      opcode: 'BSSY',
      modifiers: ['RECONVERGENT'],
      operands: [breg(0), target(3)],
    });
    expect(program.instructions[2]!.operands).toEqual([target(3)]);
    expect(program.instructions[3]!.operands).toHaveLength(2);
  });

  it('splits space-separated trailing operands', () => {
    const { program } = parseOk(
      [
        '        /*0000*/                   RET.ABS.NODEC R20 0x0 ;',
        '        /*0010*/                   BRX R8 -0x200 ;',
        '        /*0020*/                   CALL.REL.NOINC R6 `(kernel) ;',
        '        /*0030*/                   RET.REL.NODEC R20 `(kernel) ;',
      ].join('\n'),
    );
    const ops = program.instructions.map((i) => i.operands);
    expect(ops[0]).toEqual([reg(20), imm(0)]);
    // BRX's immediate is added to the register (SEMANTICS §1): it is not a target.
    expect(ops[1]).toEqual([reg(8), imm(-0x200)]);
    // A CALL through a register is relative to the named function: no direct target.
    expect(ops[2]).toEqual([reg(6), { kind: 'text', text: '`(kernel)' }]);
    expect(ops[3]).toEqual([reg(20), { kind: 'text', text: '`(kernel)' }]);
  });

  it('keeps the second predicate as the first operand', () => {
    const { program } = parseOk(
      [
        '        /*0000*/              @!P0 BRA P1, 0x20 ;',
        '        /*0010*/              @!P1 BRA !P3, 0x0 ;',
        '        /*0020*/                   BRA.U P4, 0x10 ;',
        '        /*0030*/                   NANOSLEEP !PT, 0x0;',
      ].join('\n'),
    );
    const ops = program.instructions.map((i) => i.operands);
    expect(ops).toEqual([
      [pred(1), target(2)],
      [pred(3, true), target(0)],
      [pred(4), target(1)],
      [pred(7, true), imm(0)],
    ]);
    expect(program.instructions[2]!.modifiers).toEqual(['U']);
  });

  it('reads .reuse on source registers', () => {
    const { program } = parseOk('ISETP.GT.AND P1, PT, R2.reuse, 0xff, PT ;');
    expect(program.instructions[0]!.operands[2]).toEqual(reg(2, true));
  });

  it('ignores the "@" margin marker of hand-edited listings', () => {
    const { program } = parseOk(
      [
        '        @ /*0000*/                   BSSY B0, 0x20 ;                          /* 0x0000027000007945 */',
        '        @                                                                      /* 0x000fe40003800000 */',
        '        /*0010*/                   BSYNC B0 ;',
        '        /*0020*/                   EXIT ;',
      ].join('\n'),
    );
    expect(program.instructions[0]!.operands).toEqual([breg(0), target(2)]);
  });

  it('strips CuAssembler control words', () => {
    const { program } = parseOk(
      [
        '      [B------:R-:W-:-:S01]         /*0140*/                   BMOV.32.CLEAR RZ, B0 ;',
        '      [B------:R-:W-:-:S01]         /*0150*/                   BSSY B0, `(.L_x_1) ;',
        '      [B0-----:R-:W-:Y:S04]         /*0160*/                   FMUL R9, R10, 0.34999999403953552246 ;',
        '  .L_x_1:',
        '      [B------:R-:W-:Y:S00]         /*0170*/                   EXIT ;',
      ].join('\n'),
    );
    expect(program.instructions.map((i) => i.offset)).toEqual([0x140, 0x150, 0x160, 0x170]);
    expect(program.instructions[1]!.operands).toEqual([breg(0), target(3)]);
    expect(program.instructions[2]!.operands[2]).toEqual({
      kind: 'float',
      value: 0.34999999403953552246,
    });
    expect(program.labels).toEqual([{ name: '.L_x_1', pc: 3 }]);
  });
});
