/**
 * fast-check arbitraries for control-flow graphs: small random `Program`s whose instructions are
 * plain data, branches to random PCs of their function, and exits (with `rich`, also BRA.DIV,
 * BRX without targets, CALL into the function and RET). The last instruction is an EXIT.
 * Instructions are built directly as values, so these do not depend on the parser.
 */
import fc from 'fast-check';
import type { Instruction, Operand, PredRef, Program } from '../../model/isa/program.ts';

/** Options of `cfgProgram`. */
export interface CfgProgramOptions {
  /** Most instructions, EXIT included (at least 1). Default 30. */
  readonly maxLength?: number;
  /** Also generate BRA.DIV, BRX without targets, in-function CALL and RET. Default false. */
  readonly rich?: boolean;
}

type Body = Omit<Instruction, 'offset'>;

const target = (pc: number): Operand => ({ kind: 'target', pc });
const plain: Body = {
  guard: null,
  opcode: 'IADD3',
  modifiers: [],
  operands: [{ kind: 'reg', index: 1, reuse: false }],
};
const guardArb: fc.Arbitrary<PredRef> = fc.record({
  index: fc.integer({ min: 0, max: 6 }),
  negated: fc.boolean(),
});
const control = (opcode: string, operands: readonly Operand[], guard: PredRef | null = null) => ({
  guard,
  opcode: opcode.split('.')[0]!,
  modifiers: opcode.split('.').slice(1),
  operands,
});

/** One instruction (not the last) of a function of `n` instructions. */
function instructionArb(n: number, rich: boolean): fc.Arbitrary<Body> {
  const pcArb = fc.integer({ min: 0, max: n - 1 });
  const basic: fc.WeightedArbitrary<Body>[] = [
    { weight: 4, arbitrary: fc.constant(plain) },
    { weight: 2, arbitrary: pcArb.map((t) => control('BRA', [target(t)])) },
    {
      weight: 4,
      arbitrary: fc.tuple(pcArb, guardArb).map(([t, g]) => control('BRA', [target(t)], g)),
    },
    { weight: 1, arbitrary: fc.constant(control('EXIT', [])) },
    { weight: 1, arbitrary: guardArb.map((g) => control('EXIT', [], g)) },
  ];
  const extra: fc.WeightedArbitrary<Body>[] = [
    { weight: 1, arbitrary: pcArb.map((t) => control('BRA.DIV', [target(t)])) },
    {
      weight: 1,
      arbitrary: fc
        .option(guardArb, { nil: null })
        .map((g) => control('BRX', [{ kind: 'reg', index: 6, reuse: false }], g)),
    },
    { weight: 1, arbitrary: pcArb.map((t) => control('CALL', [target(t)])) },
    {
      weight: 1,
      arbitrary: fc
        .option(guardArb, { nil: null })
        .map((g) => control('RET', [{ kind: 'reg', index: 20, reuse: false }], g)),
    },
  ];
  return fc.oneof(...basic, ...(rich ? extra : []));
}

/** A one-function program `kernel` of 1..maxLength instructions ending in EXIT. */
export function cfgProgram(options: CfgProgramOptions = {}): fc.Arbitrary<Program> {
  const maxLength = Math.max(1, options.maxLength ?? 30);
  const rich = options.rich ?? false;
  return fc
    .integer({ min: 1, max: maxLength })
    .chain((n) => fc.array(instructionArb(n, rich), { minLength: n - 1, maxLength: n - 1 }))
    .map((body) => {
      const all = [...body, control('EXIT', [])];
      return {
        functions: [{ name: 'kernel', start: 0, end: all.length }],
        instructions: all.map((ins, pc) => ({ ...ins, offset: pc * 16 })),
        labels: [],
      };
    });
}
