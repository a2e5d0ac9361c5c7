/**
 * Test-only helpers: `Program` values built by hand, since the CFG tests must not depend on the
 * parser (written in parallel). Not exported from `model/cfg/index.ts`.
 */
import type { Instruction, Operand, PredRef, Program } from '../../isa/program.ts';

/** An instruction without its offset; `program` assigns offsets (16-byte stride, SEMANTICS §1). */
export type Ins = Omit<Instruction, 'offset'>;

/** `P0`..`P6` as guards: `p(0)` is `@P0`, `np(0)` is `@!P0`. */
export const p = (index: number): PredRef => ({ index, negated: false });
export const np = (index: number): PredRef => ({ index, negated: true });

/** A code target operand. */
export const tgt = (pc: number): Operand => ({ kind: 'target', pc });
/** A general register operand. */
export const reg = (index: number): Operand => ({ kind: 'reg', index, reuse: false });

/**
 * `ins('BRA', [tgt(5)], { guard: p(0) })` is `@P0 BRA <pc 5>`; `ins('ATOMS.CAS', …)` splits the
 * modifiers off the opcode.
 */
export function ins(
  name: string,
  operands: readonly Operand[] = [],
  opts: { readonly guard?: PredRef } = {},
): Ins {
  const [opcode, ...modifiers] = name.split('.');
  return { guard: opts.guard ?? null, opcode: opcode!, modifiers, operands };
}

/** A plain data instruction (control kind `none`). */
export const op = (name = 'IADD3'): Ins => ins(name, [reg(1), reg(1), reg(2)]);

/** A program of one or more functions laid out one after another, PCs global. */
export function program(...functions: readonly (readonly [string, readonly Ins[]])[]): Program {
  const instructions: Instruction[] = [];
  const infos = functions.map(([name, body]) => {
    const start = instructions.length;
    body.forEach((i, k) => instructions.push({ ...i, offset: k * 16 }));
    return { name, start, end: instructions.length };
  });
  return { functions: infos, instructions, labels: [] };
}

/** A single-function program named `kernel`. */
export const kernel = (...body: readonly Ins[]): Program => program(['kernel', body]);
