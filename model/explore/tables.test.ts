/**
 * The explorer's visited sets (`tables.ts`) against a `Map` of string keys: same ids in the same
 * order, no merging of distinct keys (also when hashes collide), and growth through many rehashes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeNumbers, encodeNumber } from './numberCodes.ts';
import { TupleTable, VectorTable } from './tables.ts';

describe('VectorTable', () => {
  it('gives equal vectors equal dense ids and distinct vectors distinct ones', () => {
    const value = fc.oneof(
      fc.integer({ min: -2, max: 5 }),
      fc.constantFrom(0xffffffff, -1, 2 ** 40 + 1, 2 ** 40, 0.5),
    );
    fc.assert(
      fc.property(fc.array(fc.array(value, { maxLength: 6 }), { maxLength: 300 }), (vectors) => {
        const table = new VectorTable();
        const reference = new Map<string, number>();
        const buf = new Float64Array(8);
        for (const v of vectors) {
          buf.set(v);
          const id = table.intern(buf, v.length);
          const key = JSON.stringify(v);
          const expected = reference.get(key) ?? reference.size;
          reference.set(key, expected);
          expect(id).toBe(expected);
          expect(Array.from(table.get(id))).toEqual(v);
        }
        expect(table.size).toBe(reference.size);
      }),
      { seed: 20261129, numRuns: 200 },
    );
  });

  it('keeps 0xffffffff and -1 apart although they hash alike, and a prefix apart from the whole', () => {
    const t = new VectorTable();
    const v = (...xs: number[]) => Float64Array.from(xs);
    const a = t.intern(v(0xffffffff), 1);
    const b = t.intern(v(-1), 1);
    const c = t.intern(v(1, 2), 1);
    const d = t.intern(v(1, 2), 2);
    expect(new Set([a, b, c, d]).size).toBe(4);
    expect(t.intern(v(-1), 1)).toBe(b);
  });

  it('survives many rehashes', () => {
    const t = new VectorTable();
    const buf = new Float64Array(3);
    for (let i = 0; i < 100_000; i++) {
      buf[0] = i;
      buf[1] = i % 7;
      buf[2] = -i;
      expect(t.intern(buf, 3)).toBe(i);
    }
    for (let i = 0; i < 100_000; i += 997) {
      buf[0] = i;
      buf[1] = i % 7;
      buf[2] = -i;
      expect(t.intern(buf, 3)).toBe(i);
    }
  });
});

describe('VectorTable codes (encodeNumber)', () => {
  // The boundaries of each form of the code (tables.ts): one byte below 64, base-128 digits to
  // 2^32, the short negatives, other negative 32-bit integers, and floats.
  const edges = [
    0,
    1,
    63,
    64,
    127,
    128,
    16383,
    16384,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 32 - 1,
    2 ** 32,
    -1,
    -2,
    -0.5,
    0.5,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 40 + 1,
    -6.5,
    1e300,
  ];
  const value = fc.oneof(
    fc.constantFrom(...edges),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    fc.double({ noNaN: true }),
  );

  it('reads every number back, and gives distinct numbers distinct codes', () => {
    fc.assert(
      fc.property(value, value, (x, y) => {
        const a = new Uint8Array(9);
        const b = new Uint8Array(9);
        const la = encodeNumber(x, a, 0);
        const lb = encodeNumber(y, b, 0);
        expect(Array.from(decodeNumbers(a, 0, la))).toEqual([x === 0 ? 0 : x]);
        const same = la === lb && a.subarray(0, la).every((v, i) => v === b[i]);
        expect(same).toBe(x === y);
      }),
      { seed: 20261124, numRuns: 2000 },
    );
  });

  it('takes one byte for 0..63 and -1, two for 64..127 and 128, five for 2^32 - 1', () => {
    const len = (x: number) => encodeNumber(x, new Uint8Array(9), 0);
    expect([0, 63, -1, -0.5].map(len)).toEqual([1, 1, 1, 1]);
    expect([64, 127, 128, 2 ** 32 - 1, -2, 0.5].map(len)).toEqual([2, 2, 2, 5, 2, 9]);
  });

  it('keeps vectors whose codes would run together apart (a code ends by itself)', () => {
    const t = new VectorTable();
    const v = (...xs: number[]) => Float64Array.from(xs);
    // [64] is 0xc0 0x00, [-64] is NEG_INT 0xc0 0x00: a prefix byte, not a value of its own.
    const ids = [v(64), v(0, 64), v(64, 0), v(-2), v(-1, 0), v(-64)].map((x) =>
      t.intern(x, x.length),
    );
    expect(new Set(ids).size).toBe(6);
    expect(Array.from(t.get(ids[1]!))).toEqual([0, 64]);
  });

  it('stores long vectors across chunks without losing any', () => {
    const t = new VectorTable();
    const n = 4000;
    const buf = new Float64Array(n);
    for (let k = 0; k < 600; k++) {
      for (let i = 0; i < n; i++) buf[i] = k * 100_000 + i;
      expect(t.intern(buf, n)).toBe(k);
    }
    for (let k = 0; k < 600; k += 37) {
      for (let i = 0; i < n; i++) buf[i] = k * 100_000 + i;
      expect(t.intern(buf, n)).toBe(k);
      expect(t.get(k)[n - 1]).toBe(k * 100_000 + n - 1);
    }
  });
});

describe('TupleTable', () => {
  it('matches a Map on random tuples, through the recent-entry cache and the main table', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.array(fc.integer({ min: -3, max: 40 }), { minLength: 4, maxLength: 4 }), {
          maxLength: 2000,
        }),
        (width, rows) => {
          const table = new TupleTable(width);
          const reference = new Map<string, number>();
          const t = new Int32Array(width);
          for (const row of rows) {
            for (let i = 0; i < width; i++) t[i] = row[i]!;
            const key = row.slice(0, width).join(',');
            const expected = reference.get(key) ?? reference.size;
            reference.set(key, expected);
            const id = table.intern(t);
            expect(id).toBe(expected);
            for (let i = 0; i < width; i++) expect(table.at(id, i)).toBe(row[i]);
          }
          expect(table.size).toBe(reference.size);
        },
      ),
      { seed: 20261130, numRuns: 100 },
    );
  });

  it('grows through many rehashes and finds every tuple again', () => {
    const table = new TupleTable(3);
    const t = new Int32Array(3);
    const fill = (i: number) => {
      t[0] = i % 1009;
      t[1] = (i / 1009) | 0;
      t[2] = i & 3;
    };
    const n = 300_000;
    for (let i = 0; i < n; i++) {
      fill(i);
      expect(table.intern(t)).toBe(i);
    }
    const out = new Int32Array(3);
    for (let i = 0; i < n; i += 101) {
      fill(i);
      expect(table.intern(t)).toBe(i);
      table.copy(i, out);
      expect(Array.from(out)).toEqual(Array.from(t));
    }
    expect(table.size).toBe(n);
  });
});
