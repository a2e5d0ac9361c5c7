/**
 * seed 003 Fig. 2 on `token-stack`, every step (the scenario file checks the rows Fig. 2c lists;
 * this test also checks the "....." rows in between). Expected contents are Fig. 2c's, read with
 * the prose of §II (derived by hand, not from the tool): nothing between two listed rows touches the
 * stack, so each row holds until the next one. Masks lane 7 first: 0xF0 = 11110000.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScenario } from '../model/scenario/files.ts';
import { scenarioMachine } from '../model/scenario/session.ts';
import { replay } from '../model/testing/run.ts';

const here = new URL('.', import.meta.url).pathname;
const FF = '11111111';
const SSY = { type: 'SSY', mask: FF, pc: '0x00f0' };
const DIV = { type: 'DIV', mask: '11110000', pc: '0x00b8' };

/** Fig. 2c, by active PC: [first PC, last PC, active mask, tokens top first]. */
const ROWS: [number, number, string, object[]][] = [
  [0x00, 0x20, FF, []], // 0x00, 0x20 "Before SSY"
  [0x28, 0x90, FF, [SSY]], // "After SSY" … "Before Branch" (the "..... 0xF0" row read as 0xFF)
  [0x98, 0xb0, '00001111', [DIV, SSY]], // "After Branch" … "Before ST.S"
  [0xb8, 0xe8, '11110000', [SSY]], // "After ST.S" … "NOP.S instruction"
  [0xf0, 0x140, FF, []], // reconverged, "Go Till Exit"
];

/** The PCs the warp runs, in order: Fig. 2b's not-taken path first, then the taken path (§II). */
const RUN = [
  ...Array.from({ length: 0x90 / 8 + 1 }, (_, i) => i * 8),
  0x98,
  0xa0,
  0xa8,
  0xb0,
  ...Array.from({ length: 7 }, (_, i) => 0xb8 + i * 8),
  ...Array.from({ length: 11 }, (_, i) => 0xf0 + i * 8),
];

const hex = (pc: number) => '0x' + pc.toString(16).padStart(4, '0');

describe('seed 003 Fig. 2c: the token stack at every PC of Fig. 2b', () => {
  const file = join(here, 'seed003-fig2.json');
  const s = readScenario(file);
  if (!s.ok) throw new Error(s.error.map((d) => d.message).join('\n'));
  const m = scenarioMachine(s.value, file);
  if (!m.ok) throw new Error(m.error.map((d) => d.message).join('\n'));
  const machine = m.machine;
  const { states, last } = replay(machine, s.value.schedule);

  it('runs the PCs of Fig. 2b in the paper order and every lane exits', () => {
    expect(last?.stop ?? null).toBeNull();
    expect(states.length).toBe(RUN.length + 1);
    expect(machine.status(states[RUN.length]!)).toBe('terminated');
  });

  for (let i = 0; i < RUN.length; i++) {
    const pc = RUN[i]!;
    const [, , mask, tokens] = ROWS.find(([a, b]) => pc >= a && pc <= b)!;
    it(`at ${hex(pc)}: active ${mask}, ${tokens.length} token(s)`, () => {
      const view = machine.mechanism.view(states[i]!.warps[0]!.mech, machine.fmt);
      expect(view.data).toEqual({ active: { pc: hex(pc), mask }, tokens });
    });
  }

  it('the view prints Fig. 2c layout: PC, Active Mask, TOS, TOS-1, TOS-2', () => {
    const view = machine.mechanism.view(states[19]!.warps[0]!.mech, machine.fmt);
    expect(view.tables[0]!.columns).toEqual(['PC', 'Active Mask', 'TOS', 'TOS-1', 'TOS-2']);
    expect(view.tables[0]!.rows).toEqual([
      ['0x0098', '00001111', 'DIV, 11110000, 0x00b8', 'SSY, 11111111, 0x00f0', 'Empty'],
    ]);
  });
});
