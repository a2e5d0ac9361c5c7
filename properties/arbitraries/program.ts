/**
 * fast-check arbitrary for whole `Program` values as the parser produces them: a few functions
 * with unique names, instructions at a 16-byte stride from 0 in each function, random guards,
 * every control-flow opcode of SEMANTICS §2 and common data opcodes with modifiers, operands of
 * every structured kind, and labels (sorted by PC, unique names).
 *
 * Every generated program prints unambiguously (`printProgram`) and so reads back equal:
 * - targets only on opcodes whose last operand the parser resolves, and only to PCs that print
 *   by name or offset: labelled PCs, other functions' starts, or PCs in `[start, end]` of the
 *   same function;
 * - symbols only on JMP/CALL; text operands only from forms that the parser keeps as text;
 * - no `@PT` guard (the parser reads it as no guard), no empty function.
 */
import fc from 'fast-check';
import type { Instruction, Label, Operand, PredRef, Program } from '../../model/isa/program.ts';

/** Options of `programArbitrary`. */
export interface ProgramArbitraryOptions {
  /** Most functions (at least 1). Default 3. */
  readonly maxFunctions?: number;
  /** Most instructions per function (at least 1). Default 8. */
  readonly maxInstructions?: number;
  /** Most labels. Default 5. */
  readonly maxLabels?: number;
}

type Body = Omit<Instruction, 'offset'>;

const FUNCTION_NAMES = ['kernel', '_Z3fooPi', '_Z6helperv', 'child', 'entry_0x7fac32f6ac00'];
const LABEL_STYLES = ['.L_x_', 'loop_', 'done', '$L__BB0_'];
const SYMBOLS = ['vprintf', 'sqrt', '__internal_accurate_pow', '0x7f1200000000', '0x7fbb52fc3000'];
const SREGS = ['SR_TID.X', 'SR_LANEID', 'SR_CTAID.X', 'MACTIVE', 'OPT_STACK', 'SRZ', 'SR_CgaCtaId'];
const TEXTS = [
  '-R2',
  '|R4|',
  'R2.H1',
  '~R3',
  '32@lo((dummy + .L_x_0@srel))',
  '+INF',
  '-QNAN',
  'desc[UR4][R2.64+0x8]',
  '[R13.X4+0x4c]',
  '-c[0x0][0x180]',
  '|R0|.reuse',
  'PR',
  '2D',
];
const DATA_OPCODES = ['MOV', 'IADD3', 'ISETP', 'LOP3', 'LDG', 'STS', 'S2R', 'FADD', 'VOTE', 'NOP'];
const DATA_MODIFIERS = ['U32', 'AND', 'E', '64', 'NE', 'LUT', 'ANY', 'CAS', 'STRONG', 'GPU'];

const predArb: fc.Arbitrary<PredRef> = fc.record({
  index: fc.integer({ min: 0, max: 7 }),
  negated: fc.boolean(),
});
/** A guard: never `@PT`, which is not printed. */
const guardArb = fc.option(
  predArb.filter((p) => p.index !== 7 || p.negated),
  { nil: null },
);
const reg = fc.record({
  kind: fc.constant('reg' as const),
  index: fc.integer({ min: 0, max: 255 }),
  reuse: fc.boolean(),
});
const breg = fc.record({
  kind: fc.constant('breg' as const),
  index: fc.integer({ min: 0, max: 15 }),
});
const imm = fc.record({
  kind: fc.constant('imm' as const),
  value: fc.oneof(fc.integer({ min: -0x1000, max: 0x1000 }), fc.maxSafeInteger(), fc.integer()),
});
const pred = predArb.map((p): Operand => ({ kind: 'pred', pred: p }));
const text = fc.constantFrom(...TEXTS).map((t): Operand => ({ kind: 'text', text: t }));

/** Any operand except `target` and `symbol`. */
const dataOperand: fc.Arbitrary<Operand> = fc.oneof(
  reg,
  fc.record({ kind: fc.constant('ureg' as const), index: fc.integer({ min: 0, max: 63 }) }),
  pred,
  predArb.map((p): Operand => ({ kind: 'upred', pred: p })),
  breg,
  fc.constantFrom(...SREGS).map((name): Operand => ({ kind: 'sreg', name })),
  imm,
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .map((value): Operand => ({ kind: 'float', value })),
  fc.record({
    kind: fc.constant('cbank' as const),
    bank: fc.integer({ min: 0, max: 17 }),
    offset: fc.integer({ min: -0x100, max: 0x10000 }),
    offsetReg: fc.option(fc.integer({ min: 0, max: 255 }), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('mem' as const),
    base: fc.integer({ min: 0, max: 255 }),
    wide: fc.boolean(),
    ureg: fc.option(fc.integer({ min: 0, max: 63 }), { nil: null }),
    offset: fc.integer({ min: -0x1000, max: 0xffffff }),
  }),
  text,
);

const mods = (...options: string[][]) => fc.constantFrom(...options);

/** One instruction whose targets are drawn from `pcs`. */
function instructionArb(pcs: readonly number[]): fc.Arbitrary<Body> {
  const target = fc.constantFrom(...pcs).map((pc): Operand => ({ kind: 'target', pc }));
  const symbol = fc.constantFrom(...SYMBOLS).map((name): Operand => ({ kind: 'symbol', name }));
  const maybePred = fc.option(pred, { nil: null }).map((p) => (p === null ? [] : [p]));
  const fnText = fc
    .constantFrom(...FUNCTION_NAMES)
    .map((n): Operand => ({ kind: 'text', text: `\`(${n})` }));
  const body = (
    opcode: string,
    modifiers: fc.Arbitrary<string[]>,
    operands: fc.Arbitrary<readonly Operand[]>,
  ): fc.Arbitrary<Body> =>
    fc
      .tuple(guardArb, modifiers, operands)
      .map(([guard, m, ops]) => ({ guard, opcode, modifiers: m, operands: ops }));
  const none = fc.constant([] as const);
  const control: fc.Arbitrary<Body>[] = [
    body(
      'BRA',
      mods([], ['U'], ['DIV'], ['CONV']),
      fc.tuple(maybePred, target).map(([p, t]) => [...p, t]),
    ),
    body('BSSY', mods([], ['RECONVERGENT']), fc.tuple(breg, target)),
    body('BSYNC', mods([], ['RECONVERGENT']), fc.tuple(breg)),
    body('BREAK', mods([], ['RELIABLE']), fc.tuple(breg)),
    body(
      'BMOV',
      mods(['32'], ['32', 'CLEAR'], ['64']),
      fc.tuple(fc.oneof(reg, breg), fc.oneof(reg, breg, imm)),
    ),
    body('WARPSYNC', mods([]), fc.tuple(imm)),
    body('WARPSYNC', mods(['ALL']), none),
    body('YIELD', mods([]), none),
    body(
      'NANOSLEEP',
      mods([]),
      fc.tuple(maybePred, imm).map(([p, i]) => [...p, i]),
    ),
    body('EXIT', mods([], ['PREEMPTED', 'NO_ATEXIT']), none),
    body('KILL', mods([]), none),
    body(
      'BPT',
      mods(['TRAP'], ['DRAIN']),
      fc.option(imm, { nil: null }).map((i) => (i ? [i] : [])),
    ),
    body(
      'RET',
      mods(['REL', 'NODEC'], ['ABS', 'NODEC'], ['ABS']),
      fc.tuple(maybePred, reg, fc.oneof(imm, fnText)).map(([p, r, o]) => [...p, r, o]),
    ),
    body(
      'JMP',
      mods([], ['U']),
      fc.oneof(target, symbol).map((t) => [t]),
    ),
    body(
      'CALL',
      mods(['REL', 'NOINC'], ['ABS', 'NOINC'], ['ABS']),
      fc.oneof(target, symbol).map((t) => [t]),
    ),
    body('CALL', mods(['REL', 'NOINC']), fc.tuple(reg, fc.oneof(imm, fnText))),
    ...['BRX', 'JMX', 'BRXU', 'JMXU'].map((op) =>
      body(
        op,
        mods([]),
        fc.tuple(reg, fc.option(imm, { nil: null })).map(([r, i]) => (i ? [r, i] : [r])),
      ),
    ),
    ...['SSY', 'PBK', 'PCNT', 'PRET'].map((op) => body(op, mods([]), fc.tuple(target))),
    ...['SYNC', 'BRK', 'CONT', 'FORK', 'JOIN'].map((op) => body(op, mods([]), none)),
  ];
  const data = fc
    .tuple(
      guardArb,
      fc.constantFrom(...DATA_OPCODES),
      fc.subarray(DATA_MODIFIERS, { maxLength: 3 }),
      fc.array(dataOperand, { maxLength: 5 }),
    )
    .map(([guard, opcode, modifiers, operands]): Body => ({ guard, opcode, modifiers, operands }));
  return fc.oneof({ weight: 3, arbitrary: fc.oneof(...control) }, { weight: 2, arbitrary: data });
}

/** Programs for print/parse round trips and for any layer that needs varied syntax. */
export function programArbitrary(options: ProgramArbitraryOptions = {}): fc.Arbitrary<Program> {
  const { maxFunctions = 3, maxInstructions = 8, maxLabels = 5 } = options;
  const sizes = fc.array(fc.integer({ min: 1, max: maxInstructions }), {
    minLength: 1,
    maxLength: maxFunctions,
  });
  return sizes.chain((lengths) => {
    const total = lengths.reduce((a, b) => a + b, 0);
    const names = fc.shuffledSubarray(FUNCTION_NAMES, {
      minLength: lengths.length,
      maxLength: lengths.length,
    });
    const labelArb = fc.array(
      fc.tuple(fc.integer({ min: 0, max: total }), fc.constantFrom(...LABEL_STYLES)),
      { maxLength: maxLabels },
    );
    return fc.tuple(names, labelArb).chain(([fnNames, rawLabels]) => {
      const starts = lengths.map((_, i) => lengths.slice(0, i).reduce((a, b) => a + b, 0));
      const functions = lengths.map((n, i) => ({
        name: fnNames[i]!,
        start: starts[i]!,
        end: starts[i]! + n,
      }));
      const labels: Label[] = rawLabels
        .map(([pc, style], k) => ({ name: `${style}${k}`, pc }))
        .sort((a, b) => a.pc - b.pc);
      const labelled = labels.map((l) => l.pc);
      const bodies = functions.map((f) => {
        const own = Array.from({ length: f.end - f.start + 1 }, (_, k) => f.start + k);
        const others = functions.filter((g) => g !== f).map((g) => g.start);
        const pcs = [...new Set([...own, ...others, ...labelled])];
        return fc.array(instructionArb(pcs), {
          minLength: f.end - f.start,
          maxLength: f.end - f.start,
        });
      });
      return fc.tuple(...bodies).map((perFunction): Program => ({
        functions,
        instructions: perFunction.flatMap((list) => list.map((b, k) => ({ offset: 16 * k, ...b }))),
        labels,
      }));
    });
  });
}
