/**
 * Test helpers for the parser's tests: parse a listing that must be valid, and operand builders.
 * Only tests import this module.
 */
import { expect } from 'vitest';
import { parseSass, type ParsedListing } from './parseSass.ts';
import type { Operand } from './program.ts';
import { validateProgram } from './validateProgram.ts';

/** Parses `text`, failing the test with every diagnostic if it does not parse or is malformed. */
export function parseOk(text: string): ParsedListing {
  const r = parseSass(text, { file: 'test.sass' });
  if (!r.ok) expect.fail(r.error.map((d) => `${d.line}:${d.column}: ${d.message}`).join('\n'));
  expect(validateProgram(r.value.program)).toEqual([]);
  return r.value;
}

/** Parses `text`, which must fail, and returns its diagnostics as `line:column: message`. */
export function parseErrors(text: string): string[] {
  const r = parseSass(text, { file: 'bad.sass' });
  if (r.ok) expect.fail('expected the listing to be rejected');
  return r.error.map((d) => `${d.line}:${d.column}: ${d.message}`);
}

export const reg = (index: number, reuse = false): Operand => ({ kind: 'reg', index, reuse });
export const imm = (value: number): Operand => ({ kind: 'imm', value });
export const target = (pc: number): Operand => ({ kind: 'target', pc });
export const symbol = (name: string): Operand => ({ kind: 'symbol', name });
export const breg = (index: number): Operand => ({ kind: 'breg', index });
export const pred = (index: number, negated = false): Operand => ({
  kind: 'pred',
  pred: { index, negated },
});
