/**
 * Loop widening and device-function calls (issue 16, `machine/widening.ts`,
 * `machine/callEffects.ts`, docs/semantics.md §13). The real listings' idiom (cuda-test-snippets
 * celer-rng-uniform, `../shared/sass/`): a callee lowers the stack pointer, checks it against the
 * stack limit, and restores it before RET:
 *
 *     IADD3 R1, R1, -0x10, RZ ; S2R R0, SR_LMEMHIOFF ; ISETP.GE.U32.AND P0, PT, R1, R0, PT ;
 *     @P0 BRA ok ; BPT.TRAP 0x1 ; ok: … IADD3 R1, R1, 0x10, RZ ; RET.ABS.NODEC R20 0x0
 *
 * With the launch's plausible stack pointer and limit (docs/semantics.md §13) the check always
 * passes: every concrete run of these kernels ends with every lane exited, never at the trap.
 * Widening used to make R1 unknown — for a loop that calls (a CALL counted as writing every
 * register) and after a CALL to a function placed before its caller (a CALL to a lower PC counted
 * as a loop turn) — and reported a *possible* trap hardware never takes.
 */
import { describe, expect, it } from 'vitest';
import { machineOf } from '../testing/run.ts';
import { explore, type Budget } from './exhaustive.ts';

const budget: Budget = { maxStates: 20_000, maxDepth: 5_000, timeoutMs: 20_000 };
const mechanisms = ['its', 'hanoi', 'simt-stack'] as const;

/** The callee: stack prologue, limit check, epilogue (the listing's idiom above). */
const callee = [
  'f:',
  'IADD3 R1, R1, -0x10, RZ',
  'S2R R0, SR_LMEMHIOFF',
  'ISETP.GE.U32.AND P0, PT, R1, R0, PT',
  '@P0 BRA ok',
  'BPT.TRAP 0x1',
  'ok:',
  'IADD3 R1, R1, 0x10, RZ',
  'RET.REL.NODEC R20 0x0',
];

/** A loop whose trip count is a loaded (unknown) value: the plain search never ends. */
const head = [
  '// @warpcheck warp-size=2 warps=1',
  'MOV R1, c[0x0][0x28]', // the stack pointer, from the driver's constant bank
  'LDG.E R4, desc[UR4][R2.64]',
  'MOV R6, 0x0',
];

/** Kernel A: the loop calls the callee, placed after the kernel. */
const callInLoop = [
  ...head,
  'loop:',
  'MOV R20, `(back)',
  'CALL.REL.NOINC `(f)',
  'back:',
  'IADD3 R6, R6, 0x1, RZ',
  'ISETP.LT.AND P0, PT, R6, R4, PT',
  '@P0 BRA loop',
  'EXIT',
  ...callee,
].join('\n');

/** Kernel B: the callee placed before the kernel's code, called once after the loop. */
const callAfterLoop = [
  ...head,
  'BRA main',
  ...callee,
  'main:',
  'IADD3 R6, R6, 0x1, RZ',
  'ISETP.LT.AND P0, PT, R6, R4, PT',
  '@P0 BRA main',
  'MOV R20, `(back)',
  'CALL.REL.NOINC `(f)',
  'back:',
  'EXIT',
].join('\n');

/** Kernel C: the loop's counter is incremented by the callee only. */
const counterInCallee = [
  ...head,
  'loop:',
  'MOV R20, `(back)',
  'CALL.REL.NOINC `(inc)',
  'back:',
  'ISETP.LT.AND P0, PT, R6, R4, PT',
  '@P0 BRA loop',
  'EXIT',
  'inc:',
  'IADD3 R6, R6, 0x1, RZ',
  'RET.REL.NODEC R20 0x0',
].join('\n');

describe('loop widening keeps what a loop turn restores', () => {
  for (const [name, text] of [
    ['a loop that calls a function with a balanced stack frame', callInLoop],
    ['a call to a function placed before its caller, after a widened loop', callAfterLoop],
  ] as const)
    for (const mech of mechanisms)
      it(`${name} (${mech}): terminates, no possible stack-limit trap`, () => {
        // Without widening the unknown trip count makes the search endless.
        expect(explore(machineOf(text, mech), budget).bound).not.toBeNull();
        for (const widen of [1, 2]) {
          const r = explore(machineOf(text, mech, { widen }), budget);
          expect(r.bound, `widen ${widen}`).toBeNull();
          expect(r.verdict, `widen ${widen}`).toBe('terminates');
        }
      });

  for (const mech of mechanisms)
    it(`a counter the callee increments is still forgotten (${mech}); the plant keeps it`, () => {
      const r = explore(machineOf(counterInCallee, mech, { widen: 2 }), budget);
      expect(r.bound).toBeNull();
      expect(r.verdict).toBe('terminates');
      // Planted: no CALL changes a register, so R6 grows every turn and the loop never repeats.
      const planted = explore(
        machineOf(counterInCallee, mech, { widen: 2, plantUnsoundWidening: 'keep-call-writes' }),
        budget,
      );
      expect(planted.bound).not.toBeNull();
    });
});
