/**
 * The per-lane log layout of `ballotLog.ts`, by hand: lane `t`'s `i`-th entry at word
 * `LOG_BASE + t · LOG_STRIDE + i`, a log ending at its first unwritten word.
 */
import { describe, expect, it } from 'vitest';
import { memoryOf } from '../../model/lanes/memory.ts';
import { ballotLogs, LOG_BASE, LOG_STRIDE, logProgress, STORE_TAG } from './ballotLog.ts';

const at = (t: number, i: number) => LOG_BASE + t * LOG_STRIDE + i;

describe('ballot logs', () => {
  // Lane 0 logged 0x3 then store(2); lane 1 logged 0x3; a word below the logs and one past the
  // two lanes' slices (lane 2's) are not part of a two-lane reading.
  const memory = memoryOf([
    [16, 99],
    [at(0, 0), 0x3],
    [at(0, 1), STORE_TAG + 2],
    [at(1, 0), 0x3],
    [at(2, 0), 0x4],
  ]);

  it('reads each lane up to its first unwritten word', () => {
    expect(ballotLogs(memory, 2)).toEqual([[0x3, STORE_TAG + 2], [0x3]]);
    // A word past a gap (lane 0's third entry, after an unwritten second) is ignored.
    const gap = memoryOf([
      [at(0, 0), 0x1],
      [at(0, 2), 0x1],
    ]);
    expect(ballotLogs(gap, 1)).toEqual([[0x1]]);
  });

  it('tells a prefix, a complete log and a divergence apart without building the logs', () => {
    expect(logProgress(memory, [[0x3, STORE_TAG + 2], [0x3]])).toBe('complete');
    expect(logProgress(memory, [[0x3, STORE_TAG + 2, 0x1], [0x3]])).toBe('prefix');
    expect(
      logProgress(memory, [
        [0x3, STORE_TAG + 2],
        [0x3, 0x2],
      ]),
    ).toBe('prefix');
    // Lane 1's first entry differs; then lane 0 longer than wanted.
    expect(logProgress(memory, [[0x3, STORE_TAG + 2], [0x1]])).toBe('diverged');
    expect(logProgress(memory, [[0x3], [0x3]])).toBe('diverged');
    // Past a gap nothing counts, even a word that would diverge.
    const gap = memoryOf([
      [at(0, 0), 0x1],
      [at(0, 2), 0x7],
    ]);
    expect(logProgress(gap, [[0x1, 0x2]])).toBe('prefix');
    expect(logProgress(memoryOf([]), [[]])).toBe('complete');
  });
});
