/**
 * Our own hand-written listings (no addresses, bare labels, optional `;`, comments, the
 * `// @warpcheck` launch header) and target resolution: labels, function names, hex offsets,
 * external symbols, and incomplete listings (excerpts, truncated files).
 */
import { describe, expect, it } from 'vitest';
import { breg, imm, parseOk, pred, reg, symbol, target } from './parseTestUtil.ts';

describe('hand-written listings', () => {
  const listing = [
    '// @warpcheck warps=1 lanes=4',
    '//   @warpcheck   memory 0x10=0',
    '/* a block comment',
    '   over two lines */',
    '    S2R R0, SR_TID.X',
    '    ISETP.NE.AND P0, PT, R0, 0x0, PT ;   // lane 0 takes the branch',
    '    BSSY B0, join',
    'loop:',
    '    @P0 BRA loop ;',
    '    @!P0 BRA `(join)',
    '    BRA 0x50 /* the BSYNC */',
    '    BSYNC B0',
    'join:',
    '    EXIT ;',
  ].join('\n');

  it('puts instructions before any header into an implicit function "kernel"', () => {
    const { program } = parseOk(listing);
    expect(program.functions).toEqual([{ name: 'kernel', start: 0, end: 8 }]);
  });

  it('assigns offsets at a 16-byte stride and resolves bare, backquoted and hex targets', () => {
    const { program, sourceLines } = parseOk(listing);
    expect(program.instructions.map((i) => i.offset)).toEqual([0, 16, 32, 48, 64, 80, 96, 112]);
    expect(program.labels).toEqual([
      { name: 'loop', pc: 3 },
      { name: 'join', pc: 7 },
    ]);
    const ops = program.instructions.map((i) => i.operands);
    expect(ops[0]).toEqual([reg(0), { kind: 'sreg', name: 'SR_TID.X' }]);
    expect(ops[1]).toEqual([pred(0), pred(7), reg(0), imm(0), pred(7)]);
    expect(ops[2]).toEqual([breg(0), target(7)]); // forward reference
    expect(ops[3]).toEqual([target(3)]);
    expect(ops[4]).toEqual([target(7)]);
    expect(ops[5]).toEqual([target(5)]);
    expect(sourceLines).toEqual([5, 6, 7, 9, 10, 11, 12, 14]);
  });

  it('keeps // @warpcheck lines as directives with the column of their text', () => {
    const { directives } = parseOk(listing);
    expect(directives).toEqual([
      { line: 1, column: 15, text: 'warps=1 lanes=4' },
      { line: 2, column: 19, text: 'memory 0x10=0' },
    ]);
  });

  it('reads an empty listing as an empty program', () => {
    expect(parseOk('').program).toEqual({ functions: [], instructions: [], labels: [] });
    expect(parseOk('// nothing\n\n').program.instructions).toEqual([]);
  });

  it('normalises @PT to no guard', () => {
    expect(parseOk('@PT EXIT').program.instructions[0]!.guard).toBeNull();
  });
});

describe('targets', () => {
  it('a label after the last instruction of a function is its end', () => {
    const { program } = parseOk(
      [
        '\t\tFunction : f',
        '    BRA done',
        '    EXIT',
        'done:',
        '\t\tFunction : g',
        '    EXIT',
      ].join('\n'),
    );
    expect(program.labels).toEqual([{ name: 'done', pc: 2 }]);
    expect(program.instructions[0]!.operands).toEqual([target(2)]);
  });

  it('a function name targets its first instruction; a label elsewhere is found if unique', () => {
    const { program } = parseOk(
      [
        '\t\tFunction : main',
        '    CALL.ABS.NOINC `(helper)',
        '    CALL.ABS.NOINC `(inner)',
        '    EXIT',
        '\t\tFunction : helper',
        '    NOP',
        'inner:',
        '    RET.ABS.NODEC R20 0x0',
      ].join('\n'),
    );
    expect(program.instructions[0]!.operands).toEqual([target(3)]);
    expect(program.instructions[1]!.operands).toEqual([target(4)]);
  });

  it('resolves the Fermi token-stack targets (SSY, PBK, PCNT, PRET)', () => {
    const { program } = parseOk(
      ['    SSY 0x40', '    PBK brk', '    PCNT 0x0', '    PRET `(brk)', 'brk:', '    EXIT'].join(
        '\n',
      ),
    );
    expect(program.instructions.slice(0, 4).map((i) => i.operands)).toEqual([
      [target(4)],
      [target(4)],
      [target(0)],
      [target(4)],
    ]);
  });

  it('names and addresses outside the program are symbols on JMP and CALL', () => {
    const { program } = parseOk(
      [
        '        /*0000*/                   CALL.ABS.NOINC `(vprintf) ;',
        '        /*0010*/                   CALL.ABS.NOINC 0x7f1200000000 ;',
        '        /*0020*/                   JMP 0x7fbb52fc3000 ;',
        '        /*0030*/                   CALL.ABS.NOINC puts ;',
        '        /*0040*/                   EXIT ;',
      ].join('\n'),
    );
    expect(program.instructions.slice(0, 4).map((i) => i.operands)).toEqual([
      [symbol('vprintf')],
      [symbol('0x7f1200000000')],
      [symbol('0x7fbb52fc3000')],
      [symbol('puts')],
    ]);
  });

  it('in an excerpt (not starting at /*0000*/), targets outside the listed code are symbols', () => {
    const { program } = parseOk(
      [
        '        /*2660*/   BRA.DIV 0x5390 ;                                ; divergent branch handler',
        '        /*2670*/  @P2 BRA 0x2660 ;',
        '        /*2680*/  @!P0 BRA.U 0x24c0 ;',
        '        /*2690*/   BRA 0x2690 ;',
      ].join('\n'),
    );
    expect(program.instructions.map((i) => i.operands[0])).toEqual([
      symbol('0x5390'),
      target(0),
      symbol('0x24c0'),
      target(3),
    ]);
  });

  it('in a listing cut off mid-function, unknown labels are symbols', () => {
    const { program } = parseOk(
      [
        '.text._Z13verify_kernelPbPKhS1_mS1_Ph:',
        '        /*0000*/                   BSSY B0, `(.L_x_11) ;',
        '        /*0010*/               @P1 BRA `(.L_x_12) ;',
        '        /*0020*/                   IMAD.MOV.U32 R8, RZ, RZ, R4 ;',
      ].join('\n'),
    );
    expect(program.instructions[0]!.operands).toEqual([breg(0), symbol('.L_x_11')]);
    expect(program.instructions[1]!.operands).toEqual([symbol('.L_x_12')]);
  });
});
