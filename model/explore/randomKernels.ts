/**
 * Test support for the explorer's reductions and keys: small random kernels, as listing text, that
 * touch everything a reduction could get wrong — registers written and read (or left dead),
 * guarded writes, predicates (both ISETP outputs, VOTE), lane and thread ids, shared memory with
 * loads, stores and every atomic, unknown values from opaque instructions, loops, CALL/RET,
 * WARPSYNC and YIELD — over one or two warps of one to three lanes. Only tests import this module.
 */
import fc from 'fast-check';

export interface RandomKernel {
  readonly text: string;
  readonly warpSize: number;
  readonly warps: number;
}

const reg = fc.integer({ min: 0, max: 5 }).map((r) => `R${r}`);
const pred = fc.integer({ min: 0, max: 2 }).map((p) => `P${p}`);
const small = fc.constantFrom('0x0', '0x1', '0x2', '0x3');
const cmp = fc.constantFrom('EQ', 'NE', 'LT', 'GE');
const guard = fc.option(
  fc.tuple(fc.boolean(), pred).map(([neg, p]) => `@${neg ? '!' : ''}${p} `),
  { nil: '', freq: 3 },
);

/** One instruction; `%T` stands for a branch target label, filled in by `render`. */
const instruction: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(guard, reg, small).map(([g, d, v]) => `${g}MOV ${d}, ${v}`) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(reg, fc.constantFrom('SR_LANEID', 'SR_TID.X'))
      .map(([d, s]) => `S2R ${d}, ${s}`),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(guard, reg, reg, fc.oneof(reg, small))
      .map(([g, d, a, b]) => `${g}IADD3 ${d}, ${a}, ${b}, RZ`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(reg, reg, reg)
      .map(([d, a, b]) => `LOP3.LUT ${d}, ${a}, ${b}, RZ, 0xc0, !PT`),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(guard, cmp, pred, reg, fc.oneof(reg, small))
      .map(([g, c, p, a, b]) => `${g}ISETP.${c}.AND ${p}, PT, ${a}, ${b}, PT`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(cmp, pred, pred, reg, reg, pred)
      .map(([c, p, q, a, b, r]) => `ISETP.${c}.OR ${p}, ${q}, ${a}, ${b}, ${r}`),
  },
  { weight: 4, arbitrary: guard.map((g) => `${g}BRA %T`) },
  { weight: 1, arbitrary: fc.constant('BRA.DIV %T') },
  { weight: 1, arbitrary: pred.map((p) => `@${p} EXIT`) },
  {
    weight: 2,
    arbitrary: fc.tuple(guard, reg, reg).map(([g, d, a]) => `${g}LDS ${d}, [${a}+0x100]`),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(guard, reg, reg).map(([g, a, b]) => `${g}STS [${a}+0x100], ${b}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(guard, fc.oneof(reg, fc.constant('RZ')), reg, reg, reg)
      .map(([g, d, a, b, c]) => `${g}ATOMS.CAS ${d}, [${a}+0x100], ${b}, ${c}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('ADD', 'EXCH'), fc.oneof(reg, fc.constant('RZ')), reg, reg)
      .map(([o, d, a, b]) => `ATOMS.${o} ${d}, [${a}+0x100], ${b}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('ANY', 'ALL'), reg, pred, pred)
      .map(([m, d, p, q]) => `VOTE.${m} ${d}, ${p}, ${q}`),
  },
  { weight: 1, arbitrary: fc.tuple(reg, reg, reg).map(([d, a, b]) => `FADD ${d}, ${a}, ${b}`) },
  {
    weight: 1,
    arbitrary: fc.tuple(pred, reg).map(([p, a]) => `FSETP.GT.AND ${p}, PT, ${a}, RZ, PT`),
  },
  { weight: 1, arbitrary: fc.constant('CALL %C') },
  { weight: 1, arbitrary: fc.constantFrom('YIELD', 'NOP', 'WARPSYNC 0x3') },
);

/** A kernel of 1..maxLength instructions, then EXIT and a subroutine `SUB` that CALL reaches. */
export function randomKernel(
  options: {
    readonly maxLength?: number;
    readonly maxWarpSize?: number;
    readonly maxWarps?: number;
  } = {},
): fc.Arbitrary<RandomKernel> {
  return fc
    .record({
      body: fc.array(fc.tuple(instruction, fc.nat()), {
        minLength: 1,
        maxLength: options.maxLength ?? 9,
      }),
      warpSize: fc.integer({ min: 1, max: options.maxWarpSize ?? 3 }),
      warps: fc.integer({ min: 1, max: options.maxWarps ?? 2 }),
      mem: fc.tuple(fc.nat(3), fc.nat(3)),
    })
    .map(({ body, warpSize, warps, mem }) => ({
      warpSize,
      warps,
      text: render(body, warpSize, warps, mem),
    }));
}

function render(
  body: readonly (readonly [string, number])[],
  warpSize: number,
  warps: number,
  mem: readonly [number, number],
): string {
  const n = body.length;
  const lines = [
    `// @warpcheck warp-size=${warpSize} warps=${warps} mem[0x100]=${mem[0]} mem[0x101]=${mem[1]}`,
    '\tFunction : kernel',
  ];
  body.forEach(([ins, t], i) => {
    lines.push(`L${i}:`);
    if (ins === 'CALL %C') {
      // The return address is the next instruction's offset (SEMANTICS §2: the program sets it).
      lines.push(`        MOV R20, \`(RET${i})`, '        CALL.REL.NOINC `(SUB)', `RET${i}:`);
      return;
    }
    lines.push(`        ${ins.replace('%T', `\`(L${t % (n + 1)})`)} ;`);
  });
  lines.push(`L${n}:`, '        EXIT ;', 'SUB:', '        IADD3 R5, R5, 0x1, RZ ;');
  lines.push('        RET.REL.NODEC R20 0x0 ;');
  return lines.join('\n') + '\n';
}
