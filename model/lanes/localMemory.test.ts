/**
 * Local memory (LDL/STL) is each thread's own (the CUDA C++ Programming Guide's section on local
 * memory: one copy per thread; docs/semantics.md §13 "Local memory", a decision). The
 * real listings spill callee-saved registers to `[R1+off]` with R1 the same in every lane (the
 * stack pointer from `c[0x0][0x28]`), so one shared map would make the lanes' frames alias: a
 * reload would read the last lane's spill, and the spill would be a race between lanes. Expected
 * values are worked out by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { isLocalStep, laneLocalOp } from '../machine/footprint.ts';
import { execOne, laneRegs, lanesFor, runStraight } from '../testing/run.ts';
import { orderedLanes } from './execute.ts';
import { memoryOf, readWord, UNKNOWN } from './index.ts';
import { forgetDifferingWords, havocMemory } from './memory.ts';
import type { Machine, MachineState } from '../machine/machine.ts';
import { loadProgram, resolveLaunch } from '../scenario/loadProgram.ts';
import { machineFor } from '../scenario/session.ts';

const spillReload = [
  '// @warpcheck warp-size=4 R1=0xfffc00',
  'S2R R0, SR_LANEID',
  'IADD3 R2, R0, 0x10, RZ', // R2 = lane + 16: a different value per lane
  'STL [R1+0x8], R2', // every lane spills to the same local address
  'MOV R2, RZ', // clobber
  'LDL R3, [R1+0x8]', // reload
  'EXIT',
].join('\n');

describe('LDL/STL: each lane its own local memory', () => {
  it('a lane reloads its own spill, not the last lane’s', () => {
    const l = lanesFor(spillReload);
    const { data, memory } = runStraight(l);
    // Lane l spilled l + 16; with one shared map every lane would read 3 + 16 = 19.
    expect(laneRegs(l, data, 3)).toEqual([16, 17, 18, 19]);
    // The block's memory is untouched.
    expect(readWord(memory, 0xfffc08)).toBe(0);
  });

  it('lanes storing different values to one local address do not race (the order of lanes does not matter)', () => {
    const l = lanesFor(spillReload);
    let d = l.data();
    for (let pc = 0; pc < 2; pc++) d = execOne(l, pc, d, l.memory(), 0b1111).data;
    expect(orderedLanes(l.ctx, l.ops[2]!, d, 0b1111)).toBe(0);
    // A shared-memory store of the same shape is a race of all four lanes.
    const shared = lanesFor(spillReload.replace('STL [R1+0x8]', 'STS [R1+0x8]'));
    let ds = shared.data();
    for (let pc = 0; pc < 2; pc++) ds = execOne(shared, pc, ds, shared.memory(), 0b1111).data;
    expect(orderedLanes(shared.ctx, shared.ops[2]!, ds, 0b1111)).toBe(0b1111);
  });

  it('a store to an unknown local address havocs only the storing lanes’ local memory', () => {
    const l = lanesFor(
      [
        '// @warpcheck warp-size=2 R1=0x100 R4=0x7',
        'STL [R1], R4', // both lanes: local[0x100] = 7
        'S2R R0, SR_LANEID',
        'ISETP.NE.AND P0, PT, R0, RZ, PT',
        'S2R R5, SR_CLOCKLO', // unknown in abstract mode
        '@P0 STL [R5], R4', // lane 1 only, at an unknown address
        'LDL R6, [R1]',
        'EXIT',
      ].join('\n'),
    );
    const { data } = runStraight(l);
    expect(laneRegs(l, data, 6)).toEqual([7, UNKNOWN]);
  });

  it('partial-order reduction and chains may take LDL/STL as lane-local steps', () => {
    const l = lanesFor(spillReload);
    expect(laneLocalOp(l.ops[2]!)).toBe(true); // STL
    expect(laneLocalOp(l.ops[4]!)).toBe(true); // LDL
    const mem = l.memory();
    const r = execOne(l, 2, l.data(), mem, 0b1111);
    expect(r.memory).toBe(mem);
    const step = {
      issue: { pc: 2, mask: 0b1111 },
      group: 0,
      choice: null,
      unknownChoice: false,
      warp: null,
      memory: mem,
      stop: null,
    };
    expect(isLocalStep(l.ops, step, mem)).toBe(true);
    // STS is not.
    const shared = lanesFor(spillReload.replace('STL [R1+0x8]', 'STS [R1+0x8]'));
    expect(laneLocalOp(shared.ops[2]!)).toBe(false);
    expect(isLocalStep(shared.ops, step, mem)).toBe(false);
  });
});

describe('local memory in the keys', () => {
  // Lanes that spill an unknown value and branch on its reload: the spill decides control.
  const text = [
    '// @warpcheck warp-size=2 R1=0x100',
    '\tFunction : k',
    '        S2R R0, SR_CLOCKLO ;',
    '        STL [R1], R0 ;',
    '        LDL R2, [R1] ;',
    '        ISETP.NE.AND P0, PT, R2, 0x5, PT ;',
    '   @P0  EXIT ;',
    '        EXIT ;',
  ].join('\n');
  const machines = (laneSymmetry: boolean) => {
    const loaded = loadProgram(text, 'k.sass');
    if (!loaded.ok) throw new Error(loaded.error[0]!.message);
    const launch = resolveLaunch(loaded.value.header, {});
    if (!launch.ok) throw new Error(launch.error.join());
    const m = machineFor(
      loaded.value,
      launch.value,
      'its',
      {},
      'ascending',
      false,
      true,
      laneSymmetry,
    );
    if (!m.ok) throw new Error(m.error.join());
    return m.value;
  };
  const withLocal = (m: Machine, a: number, b: number): MachineState => {
    const s = m.initial();
    const w = s.warps[0]!;
    const local = [memoryOf([[0x100, a]]), memoryOf([[0x100, b]])];
    return { ...s, warps: [{ ...w, data: { ...w.data, local } }] };
  };

  it('states that differ only in a lane’s local memory have different keys', () => {
    for (const sym of [false, true]) {
      const m = machines(sym);
      expect(m.key(withLocal(m, 5, 6))).not.toBe(m.key(withLocal(m, 5, 7)));
      expect(m.behaviourKey(withLocal(m, 5, 6))).not.toBe(m.behaviourKey(withLocal(m, 5, 7)));
    }
  });

  it('under lane symmetry a lane’s local memory moves with the lane', () => {
    const sym = machines(true);
    expect(sym.symmetric).toBe(true);
    // Lane 0 holds 5 and lane 1 holds 6, or the other way round: one state up to renumbering.
    expect(sym.key(withLocal(sym, 5, 6))).toBe(sym.key(withLocal(sym, 6, 5)));
    const plain = machines(false);
    expect(plain.key(withLocal(plain, 5, 6))).not.toBe(plain.key(withLocal(plain, 6, 5)));
  });
});

describe('forgetDifferingWords (a symbolic split forgets what tells lanes apart)', () => {
  it('words the split lanes disagree on become unknown; agreed words and other lanes stay', () => {
    const a = memoryOf([
      [0x100, 5],
      [0x104, 7],
    ]);
    const b = memoryOf([
      [0x100, 6],
      [0x104, 7],
    ]);
    const c = memoryOf([[0x100, 9]]);
    const out = forgetDifferingWords([a, b, c], [0, 1])!;
    expect(out).not.toBeNull();
    for (const l of [0, 1]) {
      expect(readWord(out[l]!, 0x100)).toBe(UNKNOWN);
      expect(readWord(out[l]!, 0x104)).toBe(7);
    }
    expect(out[2]).toBe(c);
    // A word one lane wrote and another did not (reads 0 there) also differs.
    const d = forgetDifferingWords([a, c], [0, 1])!;
    expect(readWord(d[0]!, 0x104)).toBe(UNKNOWN);
    expect(readWord(d[1]!, 0x104)).toBe(UNKNOWN);
    expect(readWord(d[1]!, 0x100)).toBe(UNKNOWN);
  });

  it('agreeing lanes give null; a havoc in one lane havocs all the split lanes', () => {
    const a = memoryOf([[0x100, 5]]);
    expect(forgetDifferingWords([a, memoryOf([[0x100, 5]])], [0, 1])).toBeNull();
    const h = forgetDifferingWords([a, havocMemory()], [0, 1])!;
    expect(h[0]!.havoc && h[1]!.havoc).toBe(true);
  });
});
