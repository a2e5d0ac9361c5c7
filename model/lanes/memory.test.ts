/**
 * Block-shared memory (SEMANTICS §1): a map from address to word, 0 where never written; havoc
 * (an opaque store, or a store to an unknown address) makes every word not written since unknown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyMemory,
  havocMemory,
  memoryEntries,
  memoryOf,
  readWord,
  writeMemoryKey,
  writeWord,
  UNKNOWN,
} from './index.ts';

const keyOf = (m: Parameters<typeof writeMemoryKey>[0]): number[] => {
  const out: number[] = [];
  writeMemoryKey(m, out);
  return out;
};

describe('memory', () => {
  it('reads 0 where nothing was written, and the last write elsewhere', () => {
    let m = writeWord(emptyMemory, 0x100, 7);
    m = writeWord(m, 0x104, 8);
    m = writeWord(m, 0x100, 9);
    expect(readWord(m, 0x100)).toBe(9);
    expect(readWord(m, 0x104)).toBe(8);
    expect(readWord(m, 0x108)).toBe(0);
    expect(readWord(emptyMemory, 0)).toBe(0);
  });

  it('is immutable: a write returns a new memory', () => {
    const a = memoryOf([[0x10, 1]]);
    const b = writeWord(a, 0x10, 2);
    expect(readWord(a, 0x10)).toBe(1);
    expect(readWord(b, 0x10)).toBe(2);
  });

  it('memoryOf: later pairs win', () => {
    expect(
      readWord(
        memoryOf([
          [4, 1],
          [8, 2],
          [4, 3],
        ]),
        4,
      ),
    ).toBe(3);
  });

  it('equal contents give equal memories whatever the order of writes (state keys rely on it)', () => {
    const a = memoryOf([
      [0x200, 1],
      [0x100, 2],
      [0x300, 3],
    ]);
    const b = memoryOf([
      [0x300, 3],
      [0x100, 2],
      [0x200, 1],
    ]);
    expect(a).toEqual(b);
    expect(writeWord(writeWord(emptyMemory, 5, 1), 1, 5)).toEqual(
      writeWord(writeWord(emptyMemory, 1, 5), 5, 1),
    );
  });

  it('64-bit addresses are distinct words', () => {
    const m = writeWord(emptyMemory, 0x1_0000_0100, 42);
    expect(readWord(m, 0x1_0000_0100)).toBe(42);
    expect(readWord(m, 0x100)).toBe(0);
  });

  it('havoc: every word unknown until written again', () => {
    const h = havocMemory();
    expect(readWord(h, 0)).toBe(UNKNOWN);
    expect(readWord(h, 0x100)).toBe(UNKNOWN);
    const w = writeWord(h, 0x100, 5);
    expect(readWord(w, 0x100)).toBe(5);
    expect(readWord(w, 0x104)).toBe(UNKNOWN);
  });

  it('an unknown address: a read is unknown, a write havocs everything', () => {
    const m = memoryOf([[0x100, 1]]);
    expect(readWord(m, UNKNOWN)).toBe(UNKNOWN);
    const w = writeWord(m, UNKNOWN, 3);
    expect(readWord(w, 0x100)).toBe(UNKNOWN);
    expect(readWord(w, 0x999)).toBe(UNKNOWN);
  });

  it('agrees with a Map on any sequence of writes', () => {
    const addr = fc.integer({ min: 0, max: 40 }).map((a) => a * 4);
    fc.assert(
      fc.property(fc.array(fc.tuple(addr, fc.integer({ min: 0, max: 0xffffffff }))), (writes) => {
        const ref = new Map<number, number>();
        let m = emptyMemory;
        for (const [a, v] of writes) {
          ref.set(a, v);
          m = writeWord(m, a, v);
        }
        for (let a = 0; a <= 160; a += 4) expect(readWord(m, a)).toBe(ref.get(a) ?? 0);
        expect(m).toEqual(memoryOf([...ref.entries()]));
      }),
    );
  });

  it('equal contents give equal keys, however they were built (the explorer hashes memory so)', () => {
    const addr = fc.integer({ min: 0, max: 2000 }).map((a) => a * 4);
    fc.assert(
      fc.property(fc.array(fc.tuple(addr, fc.integer({ min: 0, max: 9 }))), (writes) => {
        let m = memoryOf([
          [0x40, 1],
          [0x1000, 2],
        ]);
        const ref = new Map<number, number>([
          [0x40, 1],
          [0x1000, 2],
        ]);
        for (const [a, v] of writes) {
          m = writeWord(m, a, v);
          ref.set(a, v);
        }
        const sorted = [...ref.entries()].sort((x, y) => x[0] - y[0]);
        expect(memoryEntries(m)).toEqual(sorted);
        expect(keyOf(m)).toEqual(keyOf(memoryOf([...sorted].reverse())));
        expect(keyOf(m)).toEqual([0, sorted.length * 2, ...sorted.flat()]);
      }),
    );
  });

  it('is persistent: a write shares every word it does not touch (issue 14, fault 6)', () => {
    const words = Array.from({ length: 16_000 }, (_, i) => [0x1000 + 4 * i, i] as const);
    const t0 = performance.now();
    let m = memoryOf(words);
    const base = m;
    for (let i = 0; i < 2_000; i++) m = writeWord(m, 0x1000 + 4 * ((i * 37) % 16_000), i);
    const ms = performance.now() - t0;
    // The flat array took 36 s to build and 1.8 ms a write here; a bound 20x what this takes.
    expect(ms).toBeLessThan(2_000);
    expect(readWord(base, 0x1000 + 4 * 37)).toBe(37); // the old memory is unchanged
    expect(readWord(m, 0x1000 + 4 * 37)).toBe(1);
    const one = writeWord(base, 0x1000, 99);
    const shared = one.buckets.filter((b, i) => b === base.buckets[i]).length;
    expect(shared).toBe(base.buckets.length - 1);
  });
});
