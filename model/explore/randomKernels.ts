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

/**
 * An instruction of a generated subroutine (`subroutines`): any of the body's but CALL, with
 * branches inside the subroutine, plus a guarded rewrite of the return address R20 to a label
 * of the body — a RET that leaves the graph of calls and returns (`explore/offGraph.ts`) — and a
 * comparison with an unknown constant (a choice among stand-ins, `lanes/uniformCompare.ts`).
 */
const subInstruction: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: instruction.filter((i) => i !== 'CALL %C') },
  { weight: 1, arbitrary: guard.map((g) => `${g}MOV R20, %L`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(cmp, pred, reg)
      .map(([c, p, a]) => `ISETP.${c}.AND ${p}, PT, ${a}, c[0x0][0x160], PT`),
  },
);

/**
 * An instruction of a body that calls a generated subroutine: the body's, or a test and a trap, so
 * that what the callee leaves in a register shows in the outcomes (a trap when it holds a value).
 */
const callerInstruction: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: instruction },
  {
    weight: 1,
    arbitrary: fc
      .tuple(reg, small)
      .map(([r, v]) => `ISETP.EQ.AND P2, PT, ${r}, ${v}, PT ;\n        @P2 BPT.TRAP 0x1`),
  },
);

/**
 * A kernel of 1..maxLength instructions, then EXIT and a subroutine `SUB` that CALL reaches:
 * `IADD3 R5, R5, 0x1; RET`, or with `subroutines` 0..4 random instructions before the RET
 * (`subInstruction`) — values the caller reads or not after the call, branches and loops inside
 * the callee, and now and then a return elsewhere.
 */
export function randomKernel(
  options: {
    readonly maxLength?: number;
    readonly maxWarpSize?: number;
    readonly maxWarps?: number;
    readonly subroutines?: boolean;
  } = {},
): fc.Arbitrary<RandomKernel> {
  const shape = {
    warpSize: fc.integer({ min: 1, max: options.maxWarpSize ?? 3 }),
    warps: fc.integer({ min: 1, max: options.maxWarps ?? 2 }),
    mem: fc.tuple(fc.nat(3), fc.nat(3)),
  };
  const bodyOf = (ins: fc.Arbitrary<string>) =>
    fc.array(fc.tuple(ins, fc.nat()), { minLength: 1, maxLength: options.maxLength ?? 9 });
  // Without `subroutines`, the record the laws' fixed seeds were calibrated on, unchanged.
  if (!options.subroutines)
    return fc
      .record({ body: bodyOf(instruction), ...shape })
      .map(({ body, warpSize, warps, mem }) => ({
        warpSize,
        warps,
        text: render(body, warpSize, warps, mem),
      }));
  return fc
    .record({
      body: bodyOf(callerInstruction),
      sub: fc.array(fc.tuple(subInstruction, fc.nat()), { minLength: 0, maxLength: 4 }),
      callAt: fc.nat(2),
      ...shape,
    })
    .map(({ body, sub, callAt, warpSize, warps, mem }) => ({
      warpSize,
      warps,
      // One CALL more among the first three places of the body, so every kernel calls and most
      // read what the call leaves.
      text: render(
        [...body.slice(0, callAt), ['CALL %C', 0] as const, ...body.slice(callAt)],
        warpSize,
        warps,
        mem,
        sub,
      ),
    }));
}

function render(
  body: readonly (readonly [string, number])[],
  warpSize: number,
  warps: number,
  mem: readonly [number, number],
  sub: readonly (readonly [string, number])[] | null = null,
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
  lines.push(`L${n}:`, '        EXIT ;', 'SUB:');
  if (sub === null) lines.push('        IADD3 R5, R5, 0x1, RZ ;');
  else {
    sub.forEach(([ins, t], i) => {
      lines.push(`S${i}:`);
      const line = ins
        .replace('%T', `\`(S${t % (sub.length + 1)})`)
        .replace('%L', `%OFF(L${t % (n + 1)})`);
      lines.push(`        ${line} ;`);
    });
    lines.push(`S${sub.length}:`);
  }
  lines.push('        RET.REL.NODEC R20 0x0 ;');
  // A label as an operand of MOV reads as an unknown value (a structured return); a return
  // elsewhere needs the label's byte offset: 16 bytes per instruction from the function's start.
  const flat = lines.join('\n').split('\n');
  const offsets = new Map<string, number>();
  let index = 0;
  for (const l of flat.slice(2)) {
    if (/^\w+:$/.test(l)) offsets.set(l.slice(0, -1), index * 16);
    else index++;
  }
  return (
    flat
      .map((l) =>
        l.replace(/%OFF\((\w+)\)/, (_, label: string) => `0x${offsets.get(label)!.toString(16)}`),
      )
      .join('\n') + '\n'
  );
}
