/**
 * Lane data of the seed 000 figure scenarios, which the scenario format (mechanism view data only)
 * cannot check: the R0 spill of Fig. 5b and the lock order of Fig. 7b. Each test replays the
 * scenario's own schedule on the scenario's machine. Expected values derived by hand from the
 * prose of seed 000 §VI, as the scenarios' notes say.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWord } from '../model/lanes/memory.ts';
import type { Machine, MachineState } from '../model/machine/machine.ts';
import { readScenario } from '../model/scenario/files.ts';
import { scenarioMachine } from '../model/scenario/session.ts';
import { regsOf, replay } from '../model/testing/run.ts';

const here = new URL('.', import.meta.url).pathname;

/** The machine of a scenario in this folder, and the states its schedule visits (states[i] = after i steps). */
function replayed(name: string): { machine: Machine; states: MachineState[] } {
  const file = join(here, name);
  const s = readScenario(file);
  if (!s.ok) throw new Error(s.error.map((d) => d.message).join('\n'));
  const m = scenarioMachine(s.value, file);
  if (!m.ok) throw new Error(m.error.map((d) => d.message).join('\n'));
  const { states, last } = replay(m.machine, s.value.schedule);
  expect(last?.stop ?? null).toBeNull();
  expect(states.length).toBe(s.value.schedule.length + 1);
  return { machine: m.machine, states };
}

describe('seed 000 Fig. 5b: BMOV spills B0 to R0 and restores it', () => {
  for (const name of ['seed000-fig5-nested-bmov.hanoi.json', 'seed000-fig5-nested-bmov.its.json'])
    it(name, () => {
      const { machine, states } = replayed(name);
      // Before (2), R0 is untouched (0 in every lane).
      expect(regsOf(machine, states[4]!, 0)).toEqual([0, 0, 0, 0]);
      // (2) BMOV B0 -> R0 in A, with all four threads active after (1) BSSY B0 = 1111: every lane
      // holds the reconvergence mask 1111 (the prose: all active threads read the same value).
      expect(regsOf(machine, states[5]!, 0)).toEqual([0b1111, 0b1111, 0b1111, 0b1111]);
      // R0 keeps 1111 until F's BMOV R0 -> B0 reads it back (4, 5), and to the end: the BSSY B0
      // in B (3) changes B0, never R0.
      for (let i = 5; i < states.length; i++)
        expect(regsOf(machine, states[i]!, 0), `after step ${i}`).toEqual([15, 15, 15, 15]);
    });
});

describe('seed 000 Fig. 7b: the spinlock hands the lock from thread 3 down to thread 0', () => {
  it('seed000-fig7-spinlock-yield.hanoi.json', () => {
    const { machine, states } = replayed('seed000-fig7-spinlock-yield.hanoi.json');
    const end = states[states.length - 1]!;
    // Each holder adds 1 to the counter at 0x200 in the critical section and keeps the old value
    // in R5: thread 3 first (0), then thread 2 (1) — the prose's order — then 1 and 0.
    expect(regsOf(machine, end, 5)).toEqual([3, 2, 1, 0]);
    expect(readWord(end.memory, 0x200)).toBe(4);
    // The lock is free at the end.
    expect(readWord(end.memory, 0x100)).toBe(0);
    // (4): thread 2 has entered the critical section after step 17 (its ATOMS.ADD), while
    // threads 0 and 1 have not.
    expect(readWord(states[17]!.memory, 0x200)).toBe(2);
  });
});
