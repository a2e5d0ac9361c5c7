import { describe, expect, it } from 'vitest';
import { lcs } from './lcs.ts';

/**
 * seed 002 §4.4, Fig. 37: the LCS table of blocks B and C. The CFG is an image in our copy; the
 * opcode streams and the table are transcribed from the text of the figure (rows: the right path
 * ld st add add ld st add; columns: the left path mul ld st mad mul add ld st). Memory opcodes are
 * part of the alignment here, as in the figure.
 */
const left = ['mul', 'ld', 'st', 'mad', 'mul', 'add', 'ld', 'st'];
const right = ['ld', 'st', 'add', 'add', 'ld', 'st', 'add'];
const eq = (a: string, b: string) => a === b;

describe('lcs (seed 002 Fig. 37)', () => {
  it('fills the table of Fig. 37, memory opcodes included', () => {
    // Transcribed from Fig. 37 (row 0 and column 0 are the empty prefixes).
    const fig37 = [
      [0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 1, 1, 1, 1, 1, 1, 1],
      [0, 0, 1, 2, 2, 2, 2, 2, 2],
      [0, 0, 1, 2, 2, 2, 3, 3, 3],
      [0, 0, 1, 2, 2, 2, 3, 3, 3],
      [0, 0, 1, 2, 2, 2, 3, 4, 4],
      [0, 0, 1, 2, 2, 2, 3, 4, 5],
      [0, 0, 1, 2, 2, 2, 3, 4, 5],
    ];
    expect(lcs(right, left, eq).table).toEqual(fig37);
  });

  it('traces back the common instructions ld st add ld st (the diagonal arrows)', () => {
    const { pairs } = lcs(right, left, eq);
    expect(pairs.map(([i]) => right[i])).toEqual(['ld', 'st', 'add', 'ld', 'st']);
    // Worked by hand with the documented tie-break (diagonal, else drop the row's element): the
    // second add of the right path (row 4) pairs with the add of the left path (column 6).
    expect(pairs).toEqual([
      [0, 1],
      [1, 2],
      [3, 5],
      [4, 6],
      [5, 7],
    ]);
  });

  it('is symmetric in length, and empty inputs give an empty alignment', () => {
    expect(lcs(left, right, eq).pairs).toHaveLength(5);
    expect(lcs([], right, eq).pairs).toEqual([]);
    expect(lcs(left, [], eq).table).toEqual(left.map(() => [0]).concat([[0]]));
  });

  it('never matches elements the predicate calls different (null = never equal)', () => {
    const a = ['x', null, 'y'];
    const b = [null, 'x', 'y'];
    const { pairs } = lcs(a, b, (p, q) => p !== null && p === q);
    expect(pairs).toEqual([
      [0, 1],
      [2, 2],
    ]);
  });
});
