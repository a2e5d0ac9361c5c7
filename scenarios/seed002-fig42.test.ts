/**
 * seed 002 §4.5–4.7, Fig. 39 and 42 on the thesis's 8-lane example (`seed002-fig42.sass`; the state
 * by state replay is `seed002-fig42.opcode-convergent.json`). Fig. 39: a merged instruction "can
 * read 4 operands and write to 2 different registers" — each lane uses its own path's operands.
 * Expected values worked by hand from the listing: lanes 0-2 run B (R1 = lane, R2 = lane + 1,
 * R3 = 2 (lane + 1), R4 = R3, R5 = 9, R6 = R4 >> 1, R8 = R6), lane 3 runs C (R2 = 3 + 5 = 8,
 * R4 = R2, R5 = lane id 3, R6 = 8 >> 1 = 4, R8 = R6).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machineOf, regsOf, runDeterministic } from '../model/testing/run.ts';

const here = new URL('.', import.meta.url).pathname;
const TEXT = readFileSync(join(here, 'seed002-fig42.sass'), 'utf8');

describe('seed 002 Fig. 42: merged blocks B∩C1-3 on eight lanes', () => {
  it('each lane of a merged issue reads and writes its own path registers (Fig. 39)', () => {
    const m = machineOf(TEXT, 'opcode-convergent');
    const states = runDeterministic(m);
    const last = states[states.length - 1]!;
    const lanes = (r: number) => regsOf(m, last, r).slice(0, 4);
    expect(lanes(4)).toEqual([2, 4, 6, 8]); // B∩C2: R3 on B, R2 on C
    expect(lanes(6)).toEqual([1, 2, 3, 4]); // B∩C3: R4 >> 1 on both sides
    expect(lanes(5)).toEqual([9, 9, 9, 3]); // B3 and C2 are one-sided
    expect(lanes(8)).toEqual([1, 2, 3, 4]);
  });

  it('three instructions saved: 18 issues against the SIMT stack 21', () => {
    // simt-stack: ENTRY 3, OTHER 1, A 2, B 8 (with its BRA), C 5, D 2 = 21; the three merged
    // pairs issue once each.
    const issues = (mech: string) => runDeterministic(machineOf(TEXT, mech)).length - 1;
    expect(issues('simt-stack')).toBe(21);
    expect(issues('opcode-convergent')).toBe(18);
  });
});
