/**
 * The Fermi lowering (`compileFermi`): expected listings derived by hand from the rules in
 * fermi.ts (SSY before a divergent branch or before the loop it leaves, SYNC at the IPDOM,
 * PBK/BRK for loops with breaks), and per-lane traces of each compiled program on `token-stack`
 * equal to the source's on `its`, with the inserted instructions left out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore } from '../explore/exhaustive.ts';
import type { Instruction, Program } from '../isa/program.ts';
import { printProgram } from '../isa/printProgram.ts';
import type { Machine } from '../machine/machine.ts';
import { load, machineOf } from '../testing/run.ts';
import { compileFermi, compileFermiMapped } from './fermi.ts';

const root = join(new URL('.', import.meta.url).pathname, '..', '..');
const HEAD = '// @warpcheck warp-size=4 warps=1\n\tFunction : t\n';

/** Instructions without offsets, for comparing listings laid out differently. */
const shape = (p: Program) => p.instructions.map(({ offset: _o, ...i }: Instruction) => i);

function compiled(src: string, loops: 'pbk' | 'ssy' = 'pbk') {
  const r = compileFermiMapped(load(src).program, { loops });
  if (!r.ok) return expect.fail(r.error.map((d) => d.message).join('\n'));
  return r.value;
}

/** Per-lane traces (source PCs) of a run that always takes the first choice until it ends. */
function laneTraces(m: Machine, origin?: readonly (number | null)[]): number[][] {
  const traces: number[][] = Array.from({ length: m.launch.warpSize }, () => []);
  let s = m.initial();
  for (let step = 0; step < 5000 && m.status(s) === 'running'; step++) {
    const t = m.successors(s)[0]!;
    if (t.stop) return expect.fail(`step ${step}: ${t.stop.verdict}: ${t.stop.message}`);
    const pc = origin ? origin[t.issue.pc]! : t.issue.pc;
    if (pc !== null)
      for (let l = 0; l < traces.length; l++) if ((t.issue.mask >>> l) & 1) traces[l]!.push(pc);
    s = t.next!;
  }
  expect(m.status(s)).toBe('terminated');
  return traces;
}

const IF_ELSE = `${HEAD}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
   @P0  BRA TAKEN ;
        MOV R1, 0x2 ;
        BRA IPDOM ;
TAKEN:
        MOV R1, 0x1 ;
IPDOM:
        MOV R2, R1 ;
        EXIT ;
`;

// if (A && B) C; else D; E;  — two branches, one IPDOM (E).
const AND_AND = `${HEAD}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x3, PT ;
        ISETP.GT.AND P1, PT, R0, 0x0, PT ;
  @!P0  BRA D ;
  @!P1  BRA D ;
        MOV R1, 0x1 ;
        BRA E ;
D:
        MOV R1, 0x2 ;
E:
        MOV R2, R1 ;
        EXIT ;
`;

// A loop with a break (lanes leave in iterations 1, 1, 2 and by the bottom test in 2).
const BREAK_LOOP = `${HEAD}
        S2R R0, SR_LANEID ;
        MOV R1, 0x0 ;
HEADER:
        IADD3 R1, R1, 0x1, RZ ;
        ISETP.GE.AND P0, PT, R1, R0, PT ;
   @P0  BRA OUT ;
        ISETP.LT.AND P1, PT, R1, 0x2, PT ;
   @P1  BRA HEADER ;
OUT:
        MOV R2, R1 ;
        EXIT ;
`;

// A while loop (exit at the top) with an if inside; lane l runs l iterations.
const WHILE_IF = `${HEAD}
        S2R R0, SR_LANEID ;
        MOV R1, 0x0 ;
H:
        ISETP.GE.AND P0, PT, R1, R0, PT ;
   @P0  BRA X ;
        ISETP.EQ.AND P1, PT, R1, 0x1, PT ;
   @P1  BRA S ;
        IADD3 R4, R4, 0x1, RZ ;
S:
        IADD3 R1, R1, 0x1, RZ ;
        BRA H ;
X:
        MOV R2, R1 ;
        EXIT ;
`;

describe('compileFermi: listings (expected ones written by hand from the rules)', () => {
  it('if/else: SSY before the branch, SYNC at the IPDOM, jumps to the IPDOM land on the SYNC', () => {
    const expected = `${HEAD}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        SSY J ;
   @P0  BRA TAKEN ;
        MOV R1, 0x2 ;
        BRA IPDOM ;
TAKEN:
        MOV R1, 0x1 ;
IPDOM:
        SYNC ;
J:
        MOV R2, R1 ;
        EXIT ;
`;
    const c = compiled(IF_ELSE);
    expect(shape(c.program)).toEqual(shape(load(expected).program));
    expect(c.origin).toEqual([0, 1, null, 2, 3, 4, 5, null, 6, 7]);
  });

  it('if (A && B): one SSY for both branches (the first dominates the second)', () => {
    const expected = `${HEAD}
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x3, PT ;
        ISETP.GT.AND P1, PT, R0, 0x0, PT ;
        SSY J ;
  @!P0  BRA D ;
  @!P1  BRA D ;
        MOV R1, 0x1 ;
        BRA E ;
D:
        MOV R1, 0x2 ;
E:
        SYNC ;
J:
        MOV R2, R1 ;
        EXIT ;
`;
    expect(shape(compiled(AND_AND).program)).toEqual(shape(load(expected).program));
  });

  it('loop with a break: PBK before the header, @P BRA OUT becomes @P BRK, the fall-through exit gets a BRK', () => {
    const expected = `${HEAD}
        S2R R0, SR_LANEID ;
        MOV R1, 0x0 ;
        PBK OUT ;
HEADER:
        IADD3 R1, R1, 0x1, RZ ;
        ISETP.GE.AND P0, PT, R1, R0, PT ;
   @P0  BRK ;
        ISETP.LT.AND P1, PT, R1, 0x2, PT ;
   @P1  BRA HEADER ;
        BRK ;
OUT:
        MOV R2, R1 ;
        EXIT ;
`;
    const c = compiled(BREAK_LOOP);
    expect(shape(c.program)).toEqual(shape(load(expected).program));
    // The BRK that replaces the BRA keeps its source PC; the others are new.
    expect(c.origin).toEqual([0, 1, null, 2, 3, 4, 5, 6, null, 7, 8]);
  });

  it('loops=ssy: the same loop gets an SSY before its header and a SYNC at its exit', () => {
    const expected = `${HEAD}
        S2R R0, SR_LANEID ;
        MOV R1, 0x0 ;
        SSY J ;
HEADER:
        IADD3 R1, R1, 0x1, RZ ;
        ISETP.GE.AND P0, PT, R1, R0, PT ;
   @P0  BRA OUT ;
        ISETP.LT.AND P1, PT, R1, 0x2, PT ;
   @P1  BRA HEADER ;
OUT:
        SYNC ;
J:
        MOV R2, R1 ;
        EXIT ;
`;
    expect(shape(compiled(BREAK_LOOP, 'ssy').program)).toEqual(shape(load(expected).program));
  });

  it('while loop with an if: PBK outside, the inner SSY/SYNC inside, the back edge skips the PBK', () => {
    const expected = `${HEAD}
        S2R R0, SR_LANEID ;
        MOV R1, 0x0 ;
        PBK X ;
H:
        ISETP.GE.AND P0, PT, R1, R0, PT ;
   @P0  BRK ;
        ISETP.EQ.AND P1, PT, R1, 0x1, PT ;
        SSY T ;
   @P1  BRA S ;
        IADD3 R4, R4, 0x1, RZ ;
S:
        SYNC ;
T:
        IADD3 R1, R1, 0x1, RZ ;
        BRA H ;
X:
        MOV R2, R1 ;
        EXIT ;
`;
    expect(shape(compiled(WHILE_IF).program)).toEqual(shape(load(expected).program));
  });

  it('the spinlock: SSY before the loop (an SSY inside would push every iteration), SYNC after it', () => {
    const text = readFileSync(join(root, 'scenarios', 'spinlock.sass'), 'utf8');
    const expected = `${HEAD}
        MOV R2, 0x100 ;
        MOV R3, 0x1 ;
        SSY J ;
A:
        ATOMS.CAS R0, [R2], RZ, R3 ;
        ISETP.NE.AND P0, PT, R0, RZ, PT ;
   @P0  BRA A ;
        SYNC ;
J:
        MOV R4, 0x200 ;
        ATOMS.ADD R5, [R4], R3 ;
        ATOMS.EXCH RZ, [R2], RZ ;
        EXIT ;
L:
        BRA L ;
`;
    const c = compileFermi(load(text).program);
    if (!c.ok) return expect.fail('did not compile');
    expect(shape(c.value)).toEqual(shape(load(expected).program));
  });

  it('a program that already has stack instructions is an error', () => {
    const r = compileFermi(load(`${HEAD}\n        SSY L ;\nL:\n        EXIT ;\n`).program);
    expect(r.ok).toBe(false);
  });
});

describe('compileFermi: per-lane traces on token-stack equal the source on its', () => {
  const cases: [string, string, 'pbk' | 'ssy'][] = [
    ['if/else', IF_ELSE, 'pbk'],
    ['if (A && B)', AND_AND, 'pbk'],
    ['loop with a break (PBK/BRK)', BREAK_LOOP, 'pbk'],
    ['loop with a break (SSY/SYNC)', BREAK_LOOP, 'ssy'],
    ['while loop with an if', WHILE_IF, 'pbk'],
    ['while loop with an if (SSY/SYNC)', WHILE_IF, 'ssy'],
  ];
  for (const [name, src, loops] of cases)
    for (const order of ['not-taken-first', 'taken-first'])
      it(`${name}, ${order}`, () => {
        const c = compiled(src, loops);
        const source = laneTraces(machineOf(src, 'its'));
        const text = `// @warpcheck warp-size=4 warps=1\n${printProgram(c.program)}`;
        const lowered = laneTraces(
          machineOf(text, 'token-stack', { options: { order } }),
          c.origin,
        );
        expect(lowered).toEqual(source);
        // The traces are not trivial: some lanes differ from others.
        expect(new Set(source.map((t) => t.join())).size).toBeGreaterThan(1);
      });
});

describe('the spinlock compiled for Fermi on token-stack (seed 000 §III)', () => {
  it('is a SIMT-induced deadlock, as on simt-stack: the lock holder waits in the SSY token', () => {
    const text = readFileSync(join(root, 'scenarios', 'spinlock.sass'), 'utf8');
    const c = compileFermi(load(text).program);
    if (!c.ok) return expect.fail('did not compile');
    const lowered = `// @warpcheck warp-size=4 warps=1 mem[0x100]=0 mem[0x200]=0\n${printProgram(c.value)}`;
    for (const order of ['not-taken-first', 'taken-first']) {
      const r = explore(machineOf(lowered, 'token-stack', { options: { order } }), {
        maxStates: 100_000,
        maxDepth: 10_000,
        timeoutMs: 10_000,
      });
      expect(`${r.verdict}/${r.kind}`).toBe('deadlock/livelock');
    }
  });
});
