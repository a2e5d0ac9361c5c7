/**
 * The SASS lowering of a ballot program (law P9), in the layout of the reconvergence cases of
 * `../shared/cases/reconvergence/`: R0 = lane id, R2 = the lane's bit, R3 = the bits below it,
 * R1 = the lane's log pointer (`ballotLog.ts`); a ballot is `VOTE.ANY` stored at [R1]; an if is
 * `@P0 BRA` over its then part (P0 = the condition is false), with `BRA end` before its else
 * part; a loop `head: test; body; cont: continue block; i++; BRA head; exit:`; break and continue
 * jump to `exit` and `cont`; return is EXIT in main and RET in a function; a switch is a compare
 * chain. Plain code: no barrier instruction (the Turing pass adds them).
 */
import type { BallotProgram, Block, Cond, Stmt } from './program.ts';
import { STORE_TAG } from './ballotLog.ts';

/** The comment line that carries the structured program in a lowered listing. */
export const PROGRAM_TAG = '// p9-program:';

/** The structured program a lowered listing carries, or null. */
export function ballotProgramOf(text: string): BallotProgram | null {
  const line = text.split('\n').find((l) => l.startsWith(PROGRAM_TAG));
  if (line === undefined) return null;
  try {
    return JSON.parse(line.slice(PROGRAM_TAG.length)) as BallotProgram;
  } catch {
    return null;
  }
}

const hex = (n: number): string => `0x${(n >>> 0).toString(16)}`;

/** The listing of `p`, with its `// @warpcheck` header. */
export function lowerBallotProgram(p: BallotProgram): string {
  const out: string[] = [
    // The structured program rides along, so a saved counterexample can be checked again from
    // its listing alone (scenarios.test.ts re-runs the law on it).
    `${PROGRAM_TAG} ${JSON.stringify(p)}`,
    `// @warpcheck warp-size=${p.warpSize} warps=1`,
  ];
  let label = 0;
  const fresh = (what: string): string => `.L_${what}${label++}`;
  const log = (value: string): string[] => [
    ...(value === 'R4' ? [] : [`        MOV R4, ${value} ;`]),
    '        STS [R1], R4 ;',
    '        IADD3 R1, R1, 0x1, RZ ;',
  ];
  interface Loop {
    readonly counter: number;
    readonly cont: string;
    readonly exit: string;
  }
  /** Sets P0 to "the condition does not hold". */
  const test = (c: Cond, loop: Loop | null): string[] => {
    switch (c.kind) {
      case 'mask':
        return [
          `        LOP3.LUT R7, R2, ${hex(c.mask)}, RZ, 0xc0, !PT ;`,
          '        ISETP.EQ.AND P0, PT, R7, RZ, PT ;',
        ];
      case 'lt':
        return [`        ISETP.GE.U32.AND P0, PT, R0, ${hex(c.n)}, PT ;`];
      case 'eq-counter':
        return loop === null
          ? ['        ISETP.EQ.AND P0, PT, RZ, RZ, PT ;']
          : [`        ISETP.NE.AND P0, PT, R0, R${loop.counter}, PT ;`];
      case 'uniform':
        return [
          `        MOV R9, ${hex(c.value ? 1 : 0)} ;`,
          '        ISETP.EQ.AND P0, PT, R9, RZ, PT ;',
        ];
      case 'elect':
        return [
          '        VOTE.ANY R7, PT, PT ;',
          '        LOP3.LUT R7, R7, R3, RZ, 0xc0, !PT ;',
          '        ISETP.NE.AND P0, PT, R7, RZ, PT ;',
        ];
    }
  };
  const block = (b: Block, loop: Loop | null, fn: number | null, depth: number): void => {
    for (const s of b) stmt(s, loop, fn, depth);
  };
  const stmt = (s: Stmt, loop: Loop | null, fn: number | null, depth: number): void => {
    switch (s.kind) {
      case 'ballot':
        out.push('        VOTE.ANY R4, PT, PT ;', ...log('R4'));
        return;
      case 'store':
        out.push(...log(hex(STORE_TAG + s.value)));
        return;
      case 'break':
        if (loop) out.push(`        BRA \`(${loop.exit}) ;`);
        return;
      case 'continue':
        if (loop) out.push(`        BRA \`(${loop.cont}) ;`);
        return;
      case 'return':
        out.push(fn === null ? '        EXIT ;' : `        RET.REL.NODEC R${50 + fn} 0x0 ;`);
        return;
      case 'call': {
        const ret = fresh('ret');
        out.push(
          `        MOV R${50 + s.fn}, ${ret} ;`,
          `        CALL.REL.NOINC \`(f${s.fn}) ;`,
          `${ret}:`,
        );
        return;
      }
      case 'if': {
        const elseL = fresh('else');
        const end = fresh('endif');
        const hasElse = s.else.length > 0;
        out.push(...test(s.cond, loop), `   @P0  BRA \`(${hasElse ? elseL : end}) ;`);
        block(s.then, loop, fn, depth + 1);
        if (hasElse) {
          out.push(`        BRA \`(${end}) ;`, `${elseL}:`);
          block(s.else, loop, fn, depth + 1);
        }
        out.push(`${end}:`);
        return;
      }
      case 'switch': {
        const end = fresh('endsw');
        const labels = s.cases.map(() => fresh('case'));
        out.push('        LOP3.LUT R9, R0, 0x3, RZ, 0xc0, !PT ;');
        s.cases.forEach((c, i) =>
          out.push(
            `        ISETP.EQ.AND P0, PT, R9, ${hex(c.value)}, PT ;`,
            `   @P0  BRA \`(${labels[i]}) ;`,
          ),
        );
        out.push(`        BRA \`(${end}) ;`);
        s.cases.forEach((c, i) => {
          out.push(`${labels[i]}:`);
          block(c.body, loop, fn, depth + 1);
          if (i < s.cases.length - 1) out.push(`        BRA \`(${end}) ;`);
        });
        out.push(`${end}:`);
        return;
      }
      case 'loop': {
        // Counters and trip bounds per nesting depth (R10+, R30+): a callee's loops use their own.
        const d = depth + (fn === null ? 0 : 4 * (fn + 1));
        const inner: Loop = { counter: 10 + d, cont: fresh('cont'), exit: fresh('exit') };
        const head = fresh('head');
        out.push(`        MOV R${inner.counter}, RZ ;`);
        if (s.trip?.kind === 'lane')
          out.push(
            `        LOP3.LUT R${30 + d}, R0, ${hex(s.trip.mask)}, RZ, 0xc0, !PT ;`,
            `        IADD3 R${30 + d}, R${30 + d}, ${hex(s.trip.add)}, RZ ;`,
          );
        out.push(`${head}:`);
        if (s.trip !== null)
          out.push(
            `        ISETP.GE.U32.AND P0, PT, R${inner.counter}, ${s.trip.kind === 'uniform' ? hex(s.trip.n) : `R${30 + d}`}, PT ;`,
            `   @P0  BRA \`(${inner.exit}) ;`,
          );
        block(s.body, inner, fn, depth + 1);
        out.push(`${inner.cont}:`);
        if (s.continueBallot) out.push('        VOTE.ANY R4, PT, PT ;', ...log('R4'));
        out.push(
          `        IADD3 R${inner.counter}, R${inner.counter}, 0x1, RZ ;`,
          `        BRA \`(${head}) ;`,
          `${inner.exit}:`,
        );
        return;
      }
    }
  };
  out.push(
    '\tFunction : main',
    '        S2R R0, SR_LANEID ;',
    '        MOV R2, 0x1 ;',
    '        SHF.L.U32 R2, R2, R0, RZ ;',
    '        IADD3 R3, R2, -0x1, RZ ;',
    '        SHF.L.U32 R1, R0, 0xc, RZ ;',
    '        IADD3 R1, R1, 0x10000, RZ ;',
  );
  block(p.main, null, null, 0);
  out.push('        EXIT ;');
  p.functions.forEach((f, k) => {
    out.push(`\tFunction : f${k}`);
    block(f, null, k, 0);
    out.push(`        RET.REL.NODEC R${50 + k} 0x0 ;`);
  });
  return out.join('\n') + '\n';
}
