/**
 * Function and section delimiting (SYNTAX.md §2): cuobjdump `Function :` blocks with fatbin
 * headers, nvdisasm sections with their directives and labels, CuAssembler data sections, unnamed
 * cuobjdump blocks with entry points.
 */
import { describe, expect, it } from 'vitest';
import { breg, parseOk, reg, symbol, target } from './parseTestUtil.ts';

describe('cuobjdump (SYNTAX.md §2a)', () => {
  const listing = [
    '',
    'Fatbin elf code:',
    '================',
    'arch = sm_70',
    'code version = [1,7]',
    'producer = <unknown>',
    'host = linux',
    'compile_size = 64bit',
    '',
    '\tcode for sm_70',
    '\t.target\tsm_70',
    '\t\tFunction : _Z3fooPi',
    '\t.headerflags    @"EF_CUDA_SM70 EF_CUDA_PTX_SM(EF_CUDA_SM70)"',
    '        /*0000*/                   BSSY B0, 0x30 ;',
    '',
    '        /*0010*/                   CALL.REL.NOINC 0x40 ;',
    '',
    '        /*0020*/                   BSYNC B0 ;',
    '        /*0030*/                   EXIT ;',
    '        /*0040*/                   RET.REL.NODEC R2 0x0 ;',
    '        /*0050*/                   BRA 0x50;',
    '\t\t..........',
    '',
    '',
    '\t\tFunction : _Z3barv',
    '\t.headerflags\t@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM89 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM89)"',
    '        /*0000*/                   EXIT ;',
    '\t\t..........',
    '',
    'Fatbin ptx code:',
    '================',
    'arch = sm_70',
    'compressed',
    '.version 7.0',
    'ld.param.u64 %rd1, [_Z3fooPi_param_0];',
  ].join('\n');

  it('reads headers, offsets restarting per function, and skips the PTX part', () => {
    const { program, sourceLines } = parseOk(listing);
    expect(program.functions).toEqual([
      { name: '_Z3fooPi', start: 0, end: 6 },
      { name: '_Z3barv', start: 6, end: 7 },
    ]);
    expect(program.instructions.map((i) => i.offset)).toEqual([0, 0x10, 0x20, 0x30, 0x40, 0x50, 0]);
    expect(program.instructions[0]!.operands).toEqual([breg(0), target(3)]);
    expect(program.instructions[1]!.operands).toEqual([target(4)]);
    expect(program.instructions[5]!.operands).toEqual([target(5)]);
    expect(sourceLines).toEqual([14, 16, 18, 19, 20, 21, 27]);
  });

  it('keeps functions of the same name from several code-for blocks apart', () => {
    const block = (arch: string) =>
      [
        `\tcode for ${arch}`,
        '\t\tFunction : k',
        '        /*0000*/                   EXIT ;',
        '\t\t..........',
      ].join('\n');
    const { program } = parseOk([block('sm_70'), block('sm_75')].join('\n\n'));
    expect(program.functions).toEqual([
      { name: 'k', start: 0, end: 1 },
      { name: 'k', start: 1, end: 2 },
    ]);
  });

  it('names unnamed blocks, drops empty ones, and resolves CALL.ABS to an entry point', () => {
    const { program } = parseOk(
      [
        '\tcode for sm_86',
        '',
        '\tcode for sm_86',
        '\t\tFunction : trap_handler',
        '                Entry Point : 0x7fac32f69a00',
        '        /*0000*/                   CALL.ABS 0x7fac32f6ac00;',
        '        /*0010*/                   JMP.U 0x7fac32f75200;',
        '\t\t..........',
        '\tcode for sm_86',
        '                Entry Point : 0x7fac32f6ac00',
        '// function name: do_read_trap_reason',
        '        /*0000*/                   RET.ABS R12 0x20;',
        '\t\t..........',
        '\tcode for sm_86',
        '                Entry Point : 0x7fac32f6de00',
        '                Function Name: do_pause',
        '        /*0000*/                   BPT.PAUSE;',
        '\t\t..........',
      ].join('\n'),
    );
    expect(program.functions.map((f) => f.name)).toEqual([
      'trap_handler',
      'entry_0x7fac32f6ac00',
      'do_pause',
    ]);
    expect(program.instructions[0]!.operands).toEqual([target(2)]);
    expect(program.instructions[1]!.operands).toEqual([symbol('0x7fac32f75200')]);
  });
});

describe('nvdisasm (SYNTAX.md §2b)', () => {
  const listing = [
    '\t.headerflags\t@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"',
    '\t.elftype\t@"ET_EXEC"',
    '',
    '//--------------------- .text._Z4leafv            --------------------------',
    '\t.section\t.text._Z4leafv,"ax",@progbits',
    '\t.sectioninfo\t@"SHI_REGISTERS=24"',
    '\t.align\t128',
    '.text._Z4leafv:',
    '        .weak           _Z4leafv',
    '        .type           _Z4leafv,@function',
    '        .size           _Z4leafv,(.L_x_9 - _Z4leafv)',
    '_Z4leafv:',
    '        /*0000*/                   RET.ABS.NODEC R20 0x0 ;',
    '.L_x_8:',
    '        /*0010*/                   BRA `(.L_x_8);',
    '.L_x_9:',
    '',
    '//--------------------- .text._Z8shortcutiPi      --------------------------',
    '\t.section\t.text._Z8shortcutiPi,"ax",@progbits',
    '\t.sectionflags\t@"SHF_BARRIERS=1"',
    '\t.align\t128',
    '        .global         _Z8shortcutiPi',
    '        .type           _Z8shortcutiPi,@function',
    '        .size           _Z8shortcutiPi,(.L_x_23 - _Z8shortcutiPi)',
    '        .other          _Z8shortcutiPi,@"STO_CUDA_ENTRY STV_DEFAULT"',
    '_Z8shortcutiPi:',
    '.text._Z8shortcutiPi:',
    '\t//## File "/workspace/warp.cu", line 40',
    '        /*0000*/                   BSSY B2, `(.L_x_6) ;',
    '        /*0010*/               @P0 BRA `(.L_x_7) ;',
    '        /*0020*/                   MOV R20, 32@lo((_Z8shortcutiPi + .L_x_5@srel)) ;',
    '        /*0030*/                   CALL.ABS.NOINC `(_Z4leafv) ;',
    '.L_x_5:',
    '        /*0040*/                   CALL.ABS.NOINC `(vprintf) ;',
    '.L_x_7:',
    '        /*0050*/                   BSYNC B2 ;',
    '.L_x_6:',
    '        /*0060*/                   EXIT ;',
    '.L_x_23:',
    '',
    '',
    '//--------------------- SYMBOLS --------------------------',
    '',
    '\t.type\t\tvprintf,@function',
  ].join('\n');

  it('reads sections, directives, labels (forward and closing) and backquoted targets', () => {
    const { program } = parseOk(listing);
    expect(program.functions).toEqual([
      { name: '_Z4leafv', start: 0, end: 2 },
      { name: '_Z8shortcutiPi', start: 2, end: 9 },
    ]);
    expect(program.labels).toEqual([
      { name: '.L_x_8', pc: 1 },
      { name: '.L_x_9', pc: 2 }, // closing label: the end of _Z4leafv
      { name: '.L_x_5', pc: 6 },
      { name: '.L_x_7', pc: 7 },
      { name: '.L_x_6', pc: 8 },
      { name: '.L_x_23', pc: 9 },
    ]);
    const ops = program.instructions.map((i) => i.operands);
    expect(ops[1]).toEqual([target(1)]);
    expect(ops[2]).toEqual([breg(2), target(8)]);
    expect(ops[3]).toEqual([target(7)]);
    expect(ops[4]).toEqual([
      reg(20),
      { kind: 'text', text: '32@lo((_Z8shortcutiPi + .L_x_5@srel))' },
    ]);
    expect(ops[5]).toEqual([target(0)]); // a function name: its first instruction
    expect(ops[6]).toEqual([symbol('vprintf')]);
  });

  it('starts a function at a bare .text.NAME: label', () => {
    const { program } = parseOk('.text._Z1fv:\n        /*0000*/                   EXIT ;\n');
    expect(program.functions).toEqual([{ name: '_Z1fv', start: 0, end: 1 }]);
  });
});

describe('CuAssembler (SYNTAX.md §2c)', () => {
  it('ignores data sections, their labels and .byte lines; keeps local function labels', () => {
    const { program } = parseOk(
      [
        '\t.section  ".shstrtab", 0, SHT_STRTAB',
        '\t.__section_name         0x1 \t// offset in .shstrtab',
        '    /*0000*/ .byte 0x00',
        '\t.section\t.nv.constant3,"a",@progbits',
        '  C1:',
        '  .L_3:',
        '          /*0048*/ \t.dword\t_Z7argtestPiS_S_',
        '\t.section\t.text._Z7argtestPiS_S_,"ax",@progbits',
        '  _Z7argtestPiS_S_:',
        '  .text._Z7argtestPiS_S_:',
        '      [B------:R-:W-:-:S05]         /*0000*/                   EXIT ;',
        '  $_Z7argtestPiS_S_$_Z2f1ii:',
        '      [B------:R-:W-:-:S05]         /*0010*/                   RET.REL.NODEC R20 `(_Z7argtestPiS_S_) ;',
        '  .CUASM_OFFSET_LABEL._Z7argtestPiS_S_.EIATTR_COOP_GROUP_INSTR_OFFSETS.#:',
        '      [B------:R-:W-:-:S05]         /*0020*/                   NOP ;',
        '\t.section\t.nv.global,"aw",@nobits',
        '  GlobalC1:',
      ].join('\n'),
    );
    expect(program.functions).toEqual([{ name: '_Z7argtestPiS_S_', start: 0, end: 3 }]);
    expect(program.labels).toEqual([
      { name: '$_Z7argtestPiS_S_$_Z2f1ii', pc: 1 },
      { name: '.CUASM_OFFSET_LABEL._Z7argtestPiS_S_.EIATTR_COOP_GROUP_INSTR_OFFSETS.#', pc: 2 },
    ]);
  });
});
