/**
 * CALL/RET frames on the SIMT stack (SEMANTICS §3.2): edge cases found by review — a CALL whose
 * callee is the next instruction, and a RET to somewhere other than the CALL's return point.
 */
import { describe, expect, it } from 'vitest';
import { runListing } from '../testing/run.ts';

describe('simt-stack CALL/RET edge cases', () => {
  it('a CALL to the next instruction runs the callee in a frame and returns to pc+1', () => {
    // pc 1 CALLs pc 2; the callee returns through R2 = offset of `ret` = 0x20 = pc 2 itself,
    // i.e. the CALL's return point: the frame pops and the caller's entry resumes there. The
    // second pass through pc 2..3 runs with an empty call stack: RET ends the thread (docs/semantics.md).
    const text = [
      '// @warpcheck warp-size=2',
      '        MOV R2, ret',
      '        CALL.REL.NOINC f',
      'ret:',
      'f:',
      '        MOV R1, 0x7',
      '        RET.REL.NODEC R2 0x0',
    ].join('\n');
    expect(runListing(text, 'its').result.verdict).toBe('terminates');
    expect(runListing(text, 'simt-stack').result.verdict).toBe('terminates');
  });
  it('a RET that does not go back to its CALL is unsupported on the stack, with a message (no crash)', () => {
    const text = [
      '// @warpcheck warp-size=2',
      '        MOV R2, back',
      '        CALL.REL.NOINC f',
      'f:',
      '        MOV R1, 0x7',
      '        RET.REL.NODEC R2 0x0',
      'back:',
      '        EXIT',
    ].join('\n');
    expect(runListing(text, 'its').result.verdict).toBe('terminates');
    const r = runListing(text, 'simt-stack').result;
    expect(r.verdict).toBe('unsupported');
    expect(r.message).toMatch(/not to their CALL's return point/);
  });
  it('a RET with no open CALL ends the thread, as returning from the entry function', () => {
    const text = [
      '// @warpcheck warp-size=2',
      '        MOV R1, 0x1',
      '        RET.REL.NODEC R20 0x0',
    ].join('\n');
    expect(runListing(text, 'its').result.verdict).toBe('terminates');
    expect(runListing(text, 'simt-stack').result.verdict).toBe('terminates');
  });
});
