/**
 * The worked examples of the CFG tests, written as instructions. Each comment gives the PC layout;
 * the expected blocks, edges and post-dominators are derived by hand in the tests that use them.
 */
import type { Program } from '../../isa/program.ts';
import { ins, kernel, op, p, program, reg, tgt } from './programs.ts';

/**
 * seed 000 §II Fig. 1a: an if/else whose two paths reconverge at the IPDOM (line 9 there).
 * ```
 * 0  S2R R0, SR_TID.X          A
 * 1  ISETP P0, …
 * 2  @P0 BRA 5                 taken → else
 * 3  IADD3                     then
 * 4  BRA 6                     jump over else
 * 5  IADD3                     else
 * 6  IADD3                     join (the IPDOM)
 * 7  EXIT
 * ```
 */
export const ifElse: Program = kernel(
  op('S2R'),
  op('ISETP'),
  ins('BRA', [tgt(5)], { guard: p(0) }),
  op(),
  ins('BRA', [tgt(6)]),
  op(),
  op(),
  ins('EXIT'),
);

/**
 * seed 002 §2.3 Fig. 6–8: the PTX of Fig. 7, one instruction per line, plus a final EXIT.
 * ```
 * 0  A: mul.lo            IMAD
 * 1     add               IADD3
 * 2     ld.global         LDG
 * 3     mov               MOV
 * 4     setp.eq p1        ISETP
 * 5     @p1 bra F         @P1 BRA 13
 * 6  B: ld.global         LDG
 * 7     setp.eq p2        ISETP
 * 8     @p2 bra D         @P2 BRA 11
 * 9  C: add x             IADD3
 * 10    bra E             BRA 12
 * 11 D: add y             IADD3
 * 12 E: bra G             BRA 14
 * 13 F: add z             IADD3
 * 14 G: add l             IADD3
 * 15    setp.le p3        ISETP
 * 16    @p3 bra A         @P3 BRA 0
 * 17    (exit)            EXIT
 * ```
 */
export const nestedIfInLoop: Program = kernel(
  op('IMAD'),
  op(),
  op('LDG'),
  op('MOV'),
  op('ISETP'),
  ins('BRA', [tgt(13)], { guard: p(1) }),
  op('LDG'),
  op('ISETP'),
  ins('BRA', [tgt(11)], { guard: p(2) }),
  op(),
  ins('BRA', [tgt(12)]),
  op(),
  ins('BRA', [tgt(14)]),
  op(),
  op(),
  op('ISETP'),
  ins('BRA', [tgt(0)], { guard: p(3) }),
  ins('EXIT'),
);

/**
 * seed 000 §III Fig. 3: `while (atomicCAS(mutex, 0, 1) != 0); critical; *mutex = 0;`
 * ```
 * 0  MOV R2, …
 * 1  loop: ATOMS.CAS R0, [R2], RZ, 1
 * 2  ISETP.NE P0, PT, R0, RZ, PT
 * 3  @P0 BRA 1                 backward branch
 * 4  IADD3                     critical section
 * 5  STS [R2], RZ              release
 * 6  EXIT
 * ```
 */
export const spinlock: Program = kernel(
  op('MOV'),
  op('ATOMS.CAS'),
  op('ISETP.NE'),
  ins('BRA', [tgt(1)], { guard: p(0) }),
  op(),
  op('STS'),
  ins('EXIT'),
);

/**
 * An early exit inside an if.
 * ```
 * 0  ISETP P0
 * 1  @P0 BRA 5                 skip the if body
 * 2  ISETP P1
 * 3  @P1 EXIT                  early exit
 * 4  IADD3
 * 5  IADD3                     join
 * 6  EXIT
 * ```
 */
export const earlyExit: Program = kernel(
  op('ISETP'),
  ins('BRA', [tgt(5)], { guard: p(0) }),
  op('ISETP'),
  ins('EXIT', [], { guard: p(1) }),
  op(),
  op(),
  ins('EXIT'),
);

/**
 * A subroutine inside the caller's function, reached by CALL and left by RET (as nvcc lays out
 * the slow path of a division: `cudad__sm89_control_flow_kernels.sass`, `dispatch_ops`).
 * ```
 * 0  MOV R20, 2                return address
 * 1  CALL 5
 * 2  IADD3
 * 3  EXIT
 * 4  BRA 4                     padding
 * 5  sub: ISETP P0
 * 6  @P0 BRA 8
 * 7  IADD3
 * 8  RET R20
 * ```
 */
export const subroutine: Program = kernel(
  op('MOV'),
  ins('CALL', [tgt(5)]),
  op(),
  ins('EXIT'),
  ins('BRA', [tgt(4)]),
  op('ISETP'),
  ins('BRA', [tgt(8)], { guard: p(0) }),
  op(),
  ins('RET', [reg(20)]),
);

/** `0 ISETP; 1 @P0 EXIT; 2 EXIT; 3 EXIT`: consecutive exits, the last one unreachable. */
export const consecutiveExits: Program = kernel(
  op('ISETP'),
  ins('EXIT', [], { guard: p(0) }),
  ins('EXIT'),
  ins('EXIT'),
);

/**
 * A BRX without declared targets (every real listing):
 * ```
 * 0  ISETP P0
 * 1  @P0 BRA 4
 * 2  BRX R6                    unknown successors
 * 3  IADD3                     a jump-table case: only BRX leads here
 * 4  IADD3                     join
 * 5  EXIT
 * ```
 */
export const brxUnknown: Program = kernel(
  op('ISETP'),
  ins('BRA', [tgt(4)], { guard: p(0) }),
  ins('BRX', [reg(6), { kind: 'imm', value: -0x30 }]),
  op(),
  op(),
  ins('EXIT'),
);

/** `0 IADD3; 1 EXIT; 2 BRA 2; 3 NOP; 4 NOP`: the padding loop and NOPs after the final EXIT. */
export const padding: Program = kernel(
  op(),
  ins('EXIT'),
  ins('BRA', [tgt(2)]),
  op('NOP'),
  op('NOP'),
);

/**
 * A `while (true)` spin with no way out:
 * ```
 * 0  IADD3
 * 1  loop: LDS
 * 2  ISETP P0
 * 3  @P0 BRA 1
 * 4  BRA 1
 * 5  EXIT                      unreachable
 * ```
 */
export const spinForever: Program = kernel(
  op(),
  op('LDS'),
  op('ISETP'),
  ins('BRA', [tgt(1)], { guard: p(0) }),
  ins('BRA', [tgt(1)]),
  ins('EXIT'),
);

/**
 * An irreducible loop: a two-block cycle entered at both blocks.
 * ```
 * 0  ISETP P0
 * 1  @P0 BRA 4                 enter at b
 * 2  a: IADD3                  enter at a (fall through)
 * 3  ISETP P1                  a falls into b
 * 4  b: IADD3
 * 5  @P1 BRA 2                 b → a
 * 6  EXIT
 * ```
 */
export const irreducible: Program = kernel(
  op('ISETP'),
  ins('BRA', [tgt(4)], { guard: p(0) }),
  op(),
  op('ISETP'),
  op(),
  ins('BRA', [tgt(2)], { guard: p(1) }),
  ins('EXIT'),
);

/**
 * An irreducible cycle nested inside a natural loop:
 * ```
 * 0  h: ISETP
 * 1  @P0 BRA 4                 h → b (and falls to a)
 * 2  a: ISETP
 * 3  @P1 BRA 0                 a → h (the back edge), falls to b
 * 4  b: ISETP
 * 5  @P2 BRA 2                 b → a, falls to the exit
 * 6  EXIT
 * ```
 */
export const irreducibleInLoop: Program = kernel(
  op('ISETP'),
  ins('BRA', [tgt(4)], { guard: p(0) }),
  op('ISETP'),
  ins('BRA', [tgt(0)], { guard: p(1) }),
  op('ISETP'),
  ins('BRA', [tgt(2)], { guard: p(2) }),
  ins('EXIT'),
);

/**
 * Two functions: `f` branches into `g` and falls off its own end; `g` calls `f`.
 * ```
 * f: 0  ISETP
 *    1  @P0 BRA 4              target in g: outside f
 *    2  IADD3                  last of f: falls through past the end
 * g: 3  CALL 0
 *    4  EXIT
 * ```
 */
export const twoFunctions: Program = program(
  ['f', [op('ISETP'), ins('BRA', [tgt(4)], { guard: p(0) }), op()]],
  ['g', [ins('CALL', [tgt(0)]), ins('EXIT')]],
);

/**
 * A CALL used as a loop exit, as nvcc emits `@P6 CALL.REL.NOINC` (cudad sm89
 * `box_blur_variable_radius` +0x1100): the callee reaches EXIT, never a RET.
 * ```
 * 0  loop: IADD3
 * 1  ISETP P6
 * 2  @P6 CALL 4                leaves the loop
 * 3  BRA 0
 * 4  IADD3                     after the loop
 * 5  EXIT
 * ```
 */
export const callAsLoopExit: Program = kernel(
  op(),
  op('ISETP'),
  ins('CALL', [tgt(4)], { guard: p(6) }),
  ins('BRA', [tgt(0)]),
  op(),
  ins('EXIT'),
);

/**
 * Calls that never return, found by a fixpoint: B exits, so A (which calls B unconditionally
 * before its RET) never returns either.
 * ```
 * 0  CALL 3                    main calls A
 * 1  EXIT
 * 2  BRA 2
 * 3  A: CALL 6                 A calls B
 * 4  RET R20
 * 5  BRA 5
 * 6  B: IADD3
 * 7  EXIT
 * ```
 */
export const noReturnChain: Program = kernel(
  ins('CALL', [tgt(3)]),
  ins('EXIT'),
  ins('BRA', [tgt(2)]),
  ins('CALL', [tgt(6)]),
  ins('RET', [reg(20)]),
  ins('BRA', [tgt(5)]),
  op(),
  ins('EXIT'),
);
