/** nvdisasm's declared targets of an indirect branch (SEMANTICS §2: "Targets may be declared"). */
import { describe, expect, it } from 'vitest';
import { parseSass } from './parseSass.ts';
import { printProgram } from './printProgram.ts';

const listing = [
  'Function : k',
  '  S2R R0, SR_LANEID ;',
  '  BRX R0 -0x20 (*"BRANCH_TARGETS .L_1,.L_2"*) ;',
  '.L_1:',
  '  EXIT ;',
  '.L_2:',
  '  EXIT ;',
].join('\n');

describe('BRANCH_TARGETS', () => {
  it('become target operands (pcs 2 and 3, counted by hand)', () => {
    const r = parseSass(listing);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const brx = r.value.program.instructions[1]!;
    expect(brx.operands).toEqual([
      { kind: 'reg', index: 0, reuse: false },
      { kind: 'imm', value: -0x20 },
      { kind: 'target', pc: 2 },
      { kind: 'target', pc: 3 },
    ]);
  });
  it('print back as the annotation and read back to the same program', () => {
    const r = parseSass(listing);
    if (!r.ok) throw new Error('parse');
    const text = printProgram(r.value.program);
    expect(text).toContain('(*"BRANCH_TARGETS .L_1,.L_2"*)');
    const again = parseSass(text);
    if (!again.ok) throw new Error(JSON.stringify(again.error));
    expect(again.value.program).toEqual(r.value.program);
  });
  it('an unknown name is an error at the annotation', () => {
    const r = parseSass(listing.replace('.L_2"', '.L_9"'));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error[0]!.line).toBe(3);
      expect(r.error[0]!.message).toMatch(/BRANCH_TARGETS names '\.L_9'/);
    }
  });
});
