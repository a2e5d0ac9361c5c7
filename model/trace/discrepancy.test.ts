import { describe, expect, it } from 'vitest';
import { discrepancy, firstDifference, levenshtein, sideBySide } from './discrepancy.ts';
import type { WarpIssue } from './traceReplay.ts';

/** Issues from a string: one character per issue, its code as the PC, mask 1. */
const s = (text: string): WarpIssue[] => [...text].map((c) => ({ pc: c.charCodeAt(0), mask: 1 }));

describe('levenshtein over (pc, mask) issues', () => {
  it('the textbook cases', () => {
    // kitten → sitting: substitute k→s, e→i, insert g (3).
    expect(levenshtein(s('kitten'), s('sitting'))).toBe(3);
    // flaw → lawn: delete f, insert n (2).
    expect(levenshtein(s('flaw'), s('lawn'))).toBe(2);
    expect(levenshtein(s(''), s('abc'))).toBe(3);
    expect(levenshtein(s('abc'), s(''))).toBe(3);
    expect(levenshtein(s('abc'), s('abc'))).toBe(0);
    // Two blocks swapped: keep the longer (ccc), move ab: 2 deletes + 2 inserts.
    expect(levenshtein(s('abccc'), s('cccab'))).toBe(4);
  });

  it('a different mask at the same PC is a different issue', () => {
    const a = [
      { pc: 0, mask: 0xf },
      { pc: 16, mask: 0x3 },
    ];
    const b = [
      { pc: 0, mask: 0xf },
      { pc: 16, mask: 0xc },
    ];
    expect(levenshtein(a, b)).toBe(1);
    // 0xffffffff and -1 are the same 32-bit mask.
    expect(levenshtein([{ pc: 0, mask: 0xffffffff }], [{ pc: 0, mask: -1 }])).toBe(0);
  });
});

describe('firstDifference, discrepancy, sideBySide', () => {
  it('first index where the traces differ; a prefix differs where it ends', () => {
    expect(firstDifference(s('abc'), s('abc'))).toBeNull();
    expect(firstDifference(s('abc'), s('abd'))).toBe(2);
    expect(firstDifference(s('ab'), s('abc'))).toBe(2);
    expect(firstDifference(s(''), s(''))).toBeNull();
  });

  it('ratio = distance / hardware length', () => {
    // hardware 'kitten' (6), model 'sitting': 3 / 6.
    expect(discrepancy(s('kitten'), s('sitting'))).toEqual({
      hardwareLength: 6,
      modelLength: 7,
      distance: 3,
      ratio: 0.5,
      first: 0,
    });
    expect(discrepancy([], []).ratio).toBe(0);
  });

  it('a window around an index, clipped to the traces', () => {
    const rows = sideBySide(s('abcd'), s('abxde'), 2, 1);
    expect(rows.map((r) => [r.index, r.hardware?.pc ?? null, r.model?.pc ?? null, r.same])).toEqual(
      [
        [1, 98, 98, true],
        [2, 99, 120, false],
        [3, 100, 100, true],
      ],
    );
    const tail = sideBySide(s('ab'), s('abcd'), 2, 5);
    expect(tail.map((r) => [r.index, r.hardware, r.same])).toEqual([
      [0, { pc: 97, mask: 1 }, true],
      [1, { pc: 98, mask: 1 }, true],
      [2, null, false],
      [3, null, false],
    ]);
  });
});
