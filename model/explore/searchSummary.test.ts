/**
 * The headline's message when the time budget runs out: a command's `--time-limit` leaves a
 * search the rest of its time, a fraction of a millisecond, which the message rounds (it printed
 * `599892.871981 ms` before).
 */
import { describe, expect, it } from 'vitest';
import { headline } from './searchSummary.ts';

const budget = (timeoutMs: number) => ({ maxStates: 1_000, maxDepth: 100, timeoutMs });

describe('headline', () => {
  it('says how much time ran out in seconds past one, whole milliseconds below', () => {
    expect(headline([], 'time', null, budget(599_892.871981)).message).toBe(
      'time budget ran out (599.9 s) before the search finished',
    );
    expect(headline([], 'time', null, budget(60_000)).message).toBe(
      'time budget ran out (60 s) before the search finished',
    );
    expect(headline([], 'time', null, budget(250.4)).message).toBe(
      'time budget ran out (250 ms) before the search finished',
    );
    expect(headline([], 'time', null, budget(60_000)).verdict).toBe('bound-reached');
  });
});
