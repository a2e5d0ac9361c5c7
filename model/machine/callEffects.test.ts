/**
 * What a CALL may leave changed (`callEffects.ts`), on listings whose effects are derived by hand:
 * a register is unchanged when every path from the callee's entry to a RET adds up to zero on it
 * (`IADD3 Rd, Rd, k, RZ`, `MOV Rd, Rd`) and writes it no other way.
 */
import { describe, expect, it } from 'vitest';
import { registerLayout } from '../lanes/laneData.ts';
import { load } from '../testing/run.ts';
import { callEffects } from './callEffects.ts';
import { liveness } from './liveness.ts';

/** The registers (`R<n>`) and predicates (`P<n>`) a CALL to `label`'s PC may change. */
function changed(text: string, entry: number, plant = false): string[] {
  const { ops } = load(text);
  const layout = registerLayout(ops);
  const lv = liveness(ops, layout, () => 'native');
  const e = callEffects(ops, lv, layout, () => 'native', plant)(entry);
  const out: string[] = [];
  for (let r = 0; r < 255; r++) {
    const s = layout.slot[r]!;
    if (s >= 0 && (e.changed[s >>> 5]! >>> (s & 31)) & 1) out.push(`R${r}`);
  }
  for (let p = 0; p < 7; p++) if ((e.preds >> p) & 1) out.push(`P${p}`);
  return out;
}

/** A callee with the stack prologue, limit check and epilogue of the real listings. */
const stackFrame = (epilogue: string, body: string[] = []) => [
  'MOV R20, `(back)', // 0
  'CALL.REL.NOINC `(f)', // 1
  'back:',
  'EXIT', // 2
  'f:',
  'IADD3 R1, R1, -0x10, RZ', // 3
  'S2R R0, SR_LMEMHIOFF', // 4
  'ISETP.GE.U32.AND P0, PT, R1, R0, PT', // 5
  '@P0 BRA ok', // 6
  'BPT.TRAP 0x1', // 7: the failing check ends the lane
  'ok:',
  ...body,
  epilogue,
  'RET.REL.NODEC R20 0x0',
];

describe('call effects', () => {
  it('a balanced stack frame leaves R1 as the call found it (cuda-test-snippets celer-rng)', () => {
    // R0 is loaded from SR_LMEMHIOFF and P0 set by the check; R1 goes -0x10 then +0x10; R20 is
    // only read (by RET).
    expect(changed(stackFrame('IADD3 R1, R1, 0x10, RZ').join('\n'), 3)).toEqual(['R0', 'P0']);
  });

  it('an unbalanced epilogue changes R1', () => {
    expect(changed(stackFrame('IADD3 R1, R1, 0x8, RZ').join('\n'), 3)).toEqual(['R0', 'R1', 'P0']);
  });

  it('a restore on one path only changes R1 (paths meet at the RET)', () => {
    const text = stackFrame('IADD3 R1, R1, 0x10, RZ', [
      'ISETP.EQ.AND P1, PT, R0, RZ, PT',
      '@P1 BRA skip',
      'IADD3 R1, R1, 0x4, RZ',
      'skip:',
    ]).join('\n');
    expect(changed(text, 3)).toEqual(['R0', 'R1', 'P0', 'P1']);
  });

  it('any other write to R1 changes it, even one that happens to restore it', () => {
    // MOV R1, R2 after saving R1 in R2 restores it in value, but the analysis tracks offsets only.
    const text = stackFrame('MOV R1, R2', ['IADD3 R2, R1, 0x10, RZ']).join('\n');
    expect(changed(text, 3)).toEqual(['R0', 'R1', 'R2', 'P0']);
  });

  it('a guarded write may or may not happen: it changes the register', () => {
    const text = stackFrame('@P0 IADD3 R1, R1, 0x10, RZ').join('\n');
    expect(changed(text, 3)).toEqual(['R0', 'R1', 'P0']);
  });

  it('a nested call composes: the inner frame is balanced, the outer one too', () => {
    const text = [
      'MOV R20, `(back)', // 0
      'CALL.REL.NOINC `(f)', // 1
      'back:',
      'EXIT', // 2
      'f:',
      'IADD3 R1, R1, -0x8, RZ', // 3
      'MOV R21, R20', // 4
      'MOV R20, `(fback)', // 5
      'CALL.REL.NOINC `(g)', // 6
      'fback:',
      'MOV R20, R21', // 7
      'IADD3 R1, R1, 0x8, RZ', // 8
      'RET.REL.NODEC R20 0x0', // 9
      'g:',
      'IADD3 R1, R1, -0x4, RZ', // 10
      'IADD3 R5, R5, 0x1, RZ', // 11: a counter the caller keeps
      'IADD3 R1, R1, 0x4, RZ', // 12
      'RET.REL.NODEC R20 0x0', // 13
    ].join('\n');
    expect(changed(text, 10)).toEqual(['R5']);
    expect(changed(text, 3)).toEqual(['R5', 'R20', 'R21']);
  });

  it('recursion changes everything', () => {
    const text = [
      'MOV R20, `(back)', // 0
      'CALL.REL.NOINC `(f)', // 1
      'back:',
      'EXIT', // 2
      'f:',
      'IADD3 R1, R1, -0x8, RZ', // 3
      'CALL.REL.NOINC `(f)', // 4
      'IADD3 R1, R1, 0x8, RZ', // 5
      'RET.REL.NODEC R20 0x0', // 6
    ].join('\n');
    expect(changed(text, 3)).toEqual(['R1', 'R20', 'P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6']);
  });

  it('the planted bug claims nothing changes', () => {
    expect(changed(stackFrame('IADD3 R1, R1, 0x8, RZ').join('\n'), 3, true)).toEqual([]);
  });
});
