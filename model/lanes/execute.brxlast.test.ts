import { describe, expect, it } from 'vitest';
import { execOne, lanesFor } from '../testing/run.ts';

// BRX R8 -0x200 as the last instruction of a function (at 0x1f0): the next instruction's offset
// is 0x200 (SEMANTICS §1; SYNTAX.md), so R8 = 0x40 lands on the function's offset 0x40.
const text = [
  '// @warpcheck warp-size=1 R8=0x40',
  '\t\tFunction : k',
  '        /*0000*/                   NOP ;',
  '        /*0040*/                   EXIT ;',
  '        /*01f0*/                   BRX R8 -0x200 ;',
  '\t\t..........',
  '\t\tFunction : other',
  '        /*0000*/                   EXIT ;',
  '\t\t..........',
].join('\n');

describe('relative BRX at the end of a function', () => {
  it("uses offset + 16 as the next offset, not the next function's first offset", () => {
    const l = lanesFor(text);
    expect(execOne(l, 2, l.data(), l.memory(), 1).outcome.groups).toEqual([{ pc: 1, mask: 1 }]);
  });
});
