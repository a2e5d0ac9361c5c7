/**
 * Print → parse round trip over generated programs (`programArbitrary`): the parsed program equals
 * the original exactly, offsets included, and satisfies the invariants of `program.ts`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { programArbitrary } from '../../properties/arbitraries/program.ts';
import { parseSass } from './parseSass.ts';
import { printProgram } from './printProgram.ts';
import { validateProgram } from './validateProgram.ts';

describe('printProgram / parseSass round trip', () => {
  it('generated programs are well formed', () => {
    fc.assert(
      fc.property(programArbitrary(), (program) => {
        expect(validateProgram(program)).toEqual([]);
      }),
    );
  });

  it('parse(print(p)) equals p', () => {
    fc.assert(
      fc.property(programArbitrary(), (program) => {
        const text = printProgram(program);
        const parsed = parseSass(text, { file: 'printed.sass' });
        if (!parsed.ok) expect.fail(`${parsed.error.map((d) => d.message).join('\n')}\n${text}`);
        expect(parsed.value.program).toEqual(program);
        expect(validateProgram(parsed.value.program)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('printing is stable: print(parse(print(p))) equals print(p)', () => {
    fc.assert(
      fc.property(programArbitrary({ maxFunctions: 4, maxInstructions: 12 }), (program) => {
        const text = printProgram(program);
        const parsed = parseSass(text);
        expect(parsed.ok && printProgram(parsed.value.program)).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});
