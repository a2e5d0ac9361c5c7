/**
 * `parseSass` never throws: on arbitrary strings, and on real-looking listings (printed generated
 * programs and lines in every SYNTAX.md form) with random corruption. Every diagnostic it returns
 * points into the text (1-based line within the input, column ≥ 1), there are at most 20, and none
 * is the parser's own "internal error" fallback.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { programArbitrary } from '../../properties/arbitraries/program.ts';
import { parseSass } from './parseSass.ts';
import { printProgram } from './printProgram.ts';
import { validateProgram } from './validateProgram.ts';

const REAL_LINES = [
  '\tcode for sm_70',
  '\t\tFunction : _Z12loss_scalingPKdPd',
  '\t.headerflags    @"EF_CUDA_SM70 EF_CUDA_PTX_SM(EF_CUDA_SM70)"',
  '        /*0120*/               @P0 BRA 0x150 ;                                        /* 0x0000002000000947 */',
  '                                                                                      /* 0x000fea0003800000 */',
  '        /*0130*/              @!P0 BRA P1, 0xff0 ;',
  '        /*0140*/                   BSSY B2, `(.L_x_6) ;',
  '.L_x_6:',
  '        /*0150*/                   RET.REL.NODEC R20 `(_Z7argtestPiS_S_) ;',
  '        /*0160*/                   CALL.REL.NOINC R6 `(_Z7argtestPiS_S_) ;',
  '        /*0170*/                   MOV R20, 32@lo((dummy + .L_x_0@srel)) ;',
  '        /*0180*/                   LDG.E.64 R4, desc[UR6][R4.64+-0x8] ;',
  '        /*0190*/               @P0 EXIT                      &req={0}                 ?trans5;',
  '      [B------:R-:W-:-:S01]         /*01a0*/                   BMOV.32.CLEAR RZ, B0 ;',
  '        @ /*01b0*/                   BSYNC B0 ;',
  '\t.section\t.text._Z8shortcutiPi,"ax",@progbits',
  '.text._Z8shortcutiPi:',
  '\t//## File "/workspace/warp.cu", line 40',
  '// @warpcheck warps=2',
  '\t\t..........',
  'Fatbin elf code:',
  'arch = sm_70',
  '    @P0 BRA loop',
  'loop:',
  '/* open',
  'close */ EXIT',
];

/** A random edit of a text: delete, insert or replace a character, or duplicate/drop a line. */
const edit = fc.tuple(
  fc.constantFrom('delete', 'insert', 'replace', 'dupLine', 'dropLine'),
  fc.nat(),
  fc.constantFrom(...'[](){}`,;:/*@!.+-x0RPB \t\n'.split('')),
);

function corrupt(text: string, edits: readonly [string, number, string][]): string {
  let s = text;
  for (const [kind, at, c] of edits) {
    const i = s.length === 0 ? 0 : at % s.length;
    if (kind === 'delete') s = s.slice(0, i) + s.slice(i + 1);
    else if (kind === 'insert') s = s.slice(0, i) + c + s.slice(i);
    else if (kind === 'replace') s = s.slice(0, i) + c + s.slice(i + 1);
    else {
      const lines = s.split('\n');
      const k = at % Math.max(1, lines.length);
      lines.splice(k, 1, ...(kind === 'dupLine' ? [lines[k] ?? '', lines[k] ?? ''] : []));
      s = lines.join('\n');
    }
  }
  return s;
}

function checkNeverThrows(text: string): void {
  const r = parseSass(text, { file: 'fuzz.sass' });
  if (r.ok) {
    expect(validateProgram(r.value.program)).toEqual([]);
    return;
  }
  const lines = text.split(/\r\n|\r|\n/).length;
  expect(r.error.length).toBeGreaterThan(0);
  expect(r.error.length).toBeLessThanOrEqual(20);
  for (const d of r.error) {
    expect(d.file).toBe('fuzz.sass');
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.line).toBeLessThanOrEqual(lines);
    expect(d.column).toBeGreaterThanOrEqual(1);
    expect(d.message).not.toMatch(/^internal error/);
  }
}

describe('parseSass never throws', () => {
  it('on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), checkNeverThrows), {
      numRuns: 1000,
    });
  });

  it('on strings over the characters of SASS', () => {
    const alphabet = fc.constantFrom(
      ...'RPBUZTX0123456789abcdefx@!.,;:[](){}`/*-+|~ \t\n&?=$_'.split(''),
    );
    fc.assert(fc.property(fc.string({ unit: alphabet, maxLength: 300 }), checkNeverThrows), {
      numRuns: 1000,
    });
  });

  it('on real-looking lines with random corruption', () => {
    const lines = fc.array(fc.constantFrom(...REAL_LINES), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(lines, fc.array(edit, { maxLength: 6 }), (ls, edits) =>
        checkNeverThrows(corrupt(ls.join('\n'), edits)),
      ),
      { numRuns: 1000 },
    );
  });

  it('on printed programs with random corruption', () => {
    fc.assert(
      fc.property(programArbitrary(), fc.array(edit, { minLength: 1, maxLength: 6 }), (p, edits) =>
        checkNeverThrows(corrupt(printProgram(p), edits)),
      ),
      { numRuns: 500 },
    );
  });
});
