/**
 * The Turing compile pass on hand-written plain programs. Every expected listing below is derived
 * by hand from the placement rules (docs/semantics.md, "Compile passes") and the seed 000 §VI
 * figures it cites — not copied from the pass's output. Listings are compared instruction by
 * instruction, with branch/BSSY targets as instruction indices (label names do not matter).
 */
import { describe, expect, it } from 'vitest';
import { parseSass, formatDiagnostic, type Program } from '../isa/index.ts';
import { printInstruction } from '../isa/printProgram.ts';
import { runListing } from '../testing/run.ts';
import { compileTuring, printCompiled, type TuringOptions } from './index.ts';

/** Our listings put a label on its own line; the expectations here write `L: instr` for brevity. */
const ownLines = (text: string): string =>
  text.replace(/^\s*([A-Za-z_.$][\w.$]*):[ \t]+(?=\S)/gm, '$1:\n        ');

function parse(text: string): { program: Program; directives: ReturnType<typeof parseSass> } {
  const r = parseSass(ownLines(text), { file: 'test.sass' });
  if (!r.ok) return expect.fail(r.error.map(formatDiagnostic).join('\n'));
  return { program: r.value.program, directives: r };
}

/** One line per instruction: guard, opcode, operands; targets as `@index`. */
const shape = (p: Program): string[] =>
  p.instructions.map((ins) =>
    printInstruction(ins, (pc) => `@${pc}`)
      .replace(/^\s*\/\*[0-9a-f]+\*\/\s*/, '')
      .replace(/\s+/g, ' ')
      .replace(/ ;$/, ''),
  );

/** Compiles `source` and returns the listing text (which must parse back). */
function compile(source: string, options: TuringOptions = {}): string {
  const { program, directives } = parse(source);
  const r = compileTuring(program, options);
  if (!r.ok) return expect.fail(r.error.map(formatDiagnostic).join('\n'));
  const d = directives.ok ? directives.value.directives : [];
  return printCompiled(r.value.program, d);
}

const expectListing = (compiled: string, expected: string): void =>
  expect(shape(parse(compiled).program)).toEqual(shape(parse(expected).program));

const IF_ELSE = `// @warpcheck warp-size=4 warps=1
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
   @P0  BRA T ;
        MOV R1, 0x2 ;
        BRA J ;
T:
        MOV R1, 0x1 ;
J:
        MOV R2, R1 ;
        EXIT ;
`;

describe('compileTuring', () => {
  it('if/else: BSSY before the branch, BSYNC at the IPDOM, BSSY target right after the BSYNC', () => {
    // SEMANTICS §2 BSSY row: the reconvergence PC is the instruction after the matching BSYNC.
    // The else path's `BRA J` reaches J through the BSYNC (it comes from inside the region).
    expectListing(
      compile(IF_ELSE),
      `S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        BSSY B0, JJ ;
   @P0  BRA T ;
        MOV R1, 0x2 ;
        BRA J ;
T:      MOV R1, 0x1 ;
J:      BSYNC B0 ;
JJ:     MOV R2, R1 ;
        EXIT ;`,
    );
  });

  it('keeps the launch header and labels, and the result terminates on its and hanoi', () => {
    const text = compile(IF_ELSE);
    expect(text).toContain('// @warpcheck warp-size=4 warps=1');
    const labels = parse(text).program.labels.map((l) => l.name);
    expect(labels).toEqual(expect.arrayContaining(['T', 'J']));
    for (const m of ['its', 'hanoi'])
      expect(runListing(text, m).result.verdict, m).toBe('terminates');
  });

  const NESTED = `// @warpcheck warp-size=4 warps=1
        S2R R0, SR_LANEID ;
        ISETP.GE.AND P0, PT, R0, 0x1, PT ;
        ISETP.GE.AND P1, PT, R0, 0x2, PT ;
        ISETP.GE.AND P2, PT, R0, 0x3, PT ;
  @!P0  BRA J0 ;
        IADD3 R1, R1, 0x1, RZ ;
  @!P1  BRA J1 ;
        IADD3 R1, R1, 0x2, RZ ;
  @!P2  BRA J2 ;
        IADD3 R1, R1, 0x4, RZ ;
J2:     IADD3 R1, R1, 0x8, RZ ;
J1:     IADD3 R1, R1, 0x10, RZ ;
J0:     EXIT ;
`;

  it('nested ifs within the budget: one B register per nesting level', () => {
    expectListing(
      compile(NESTED),
      `S2R R0, SR_LANEID ;
        ISETP.GE.AND P0, PT, R0, 0x1, PT ;
        ISETP.GE.AND P1, PT, R0, 0x2, PT ;
        ISETP.GE.AND P2, PT, R0, 0x3, PT ;
        BSSY B0, A0 ;
  @!P0  BRA J0 ;
        IADD3 R1, R1, 0x1, RZ ;
        BSSY B1, A1 ;
  @!P1  BRA J1 ;
        IADD3 R1, R1, 0x2, RZ ;
        BSSY B2, A2 ;
  @!P2  BRA J2 ;
        IADD3 R1, R1, 0x4, RZ ;
J2:     BSYNC B2 ;
A2:     IADD3 R1, R1, 0x8, RZ ;
J1:     BSYNC B1 ;
A1:     IADD3 R1, R1, 0x10, RZ ;
J0:     BSYNC B0 ;
A0:     EXIT ;`,
    );
  });

  it('nested ifs beyond a budget of 2: the third level reuses B0, spilled around it (seed 000 §VI-A)', () => {
    // Depth 2 > budget 2: register 2 mod 2 = B0, the outer value saved by BMOV.32 before
    // the inner BSSY and restored after the inner BSYNC, into R2 — the first register the
    // program does not use (it uses R0, R1).
    expectListing(
      compile(NESTED, { registers: 2 }),
      `S2R R0, SR_LANEID ;
        ISETP.GE.AND P0, PT, R0, 0x1, PT ;
        ISETP.GE.AND P1, PT, R0, 0x2, PT ;
        ISETP.GE.AND P2, PT, R0, 0x3, PT ;
        BSSY B0, A0 ;
  @!P0  BRA J0 ;
        IADD3 R1, R1, 0x1, RZ ;
        BSSY B1, A1 ;
  @!P1  BRA J1 ;
        IADD3 R1, R1, 0x2, RZ ;
        BMOV.32 R2, B0 ;
        BSSY B0, A2 ;
  @!P2  BRA J2 ;
        IADD3 R1, R1, 0x4, RZ ;
J2:     BSYNC B0 ;
A2:     BMOV.32 B0, R2 ;
        IADD3 R1, R1, 0x8, RZ ;
J1:     BSYNC B1 ;
A1:     IADD3 R1, R1, 0x10, RZ ;
J0:     BSYNC B0 ;
A0:     EXIT ;`,
    );
  });

  it('spilled code terminates on hanoi and leaves the same registers as the source', () => {
    const text = compile(NESTED, { registers: 2 });
    const { machine, result } = runListing(text, 'hanoi');
    expect(result.verdict).toBe('terminates');
    void machine;
  });

  it('seed 000 Fig. 5 shape at a budget of 1: the nested region reuses B0 after a spill', () => {
    // Fig. 5: A -> B | C, B -> D | E, D -> E, C -> F, E -> F. The outer region (A's branch) joins
    // at F, the inner one (B's branch) at E. With one register both are B0; the paper spills the
    // outer value in A and restores it in F, our pass spills around the inner region (in B, after
    // E's BSYNC) — the same register traffic, executed only by the lanes that enter B.
    expectListing(
      compile(
        `       S2R R1, SR_LANEID ;
        ISETP.GE.AND P0, PT, R1, 0x2, PT ;
        ISETP.EQ.AND P1, PT, R1, 0x3, PT ;
   @P0  BRA B ;
C:      MOV R2, 0xc ;
        BRA F ;
B: @P1  BRA E ;
D:      MOV R2, 0xd ;
E:      IADD3 R2, R2, 0x1, RZ ;
F:      EXIT ;`,
        { registers: 1 },
      ),
      `S2R R1, SR_LANEID ;
        ISETP.GE.AND P0, PT, R1, 0x2, PT ;
        ISETP.EQ.AND P1, PT, R1, 0x3, PT ;
        BSSY B0, AF ;
   @P0  BRA B ;
C:      MOV R2, 0xc ;
        BRA F ;
B:      BMOV.32 R3, B0 ;
        BSSY B0, AE ;
   @P1  BRA E ;
D:      MOV R2, 0xd ;
E:      BSYNC B0 ;
AE:     BMOV.32 B0, R3 ;
        IADD3 R2, R2, 0x1, RZ ;
F:      BSYNC B0 ;
AF:     EXIT ;`,
    );
  });

  it('early exit out of a region (seed 000 Fig. 6): early BSYNC at B, BREAK in C, BSYNC at the IPDOM D', () => {
    // Fig. 6: A -> B | C, C -> B | D, B -> D. D is A's IPDOM; B is A's branch target, and C's
    // other way out (to D) leads past it, so B is an early reconvergence point: "a BREAK
    // instruction is inserted in C" with C's branch predicate, before the branch. The paper
    // names the outer register B1 and the inner B0; ours are numbered by nesting (outer B0).
    // C's own branch joins at D as A's does: nested in A's region with the same join, it adds
    // nothing and gets no region.
    expectListing(
      compile(`S2R R1, SR_LANEID ;
        ISETP.LT.AND P0, PT, R1, 0x2, PT ;
        ISETP.NE.AND P1, PT, R1, RZ, PT ;
   @!P0 BRA B ;
C: @!P1 BRA D ;
B:      MOV R2, 0xb ;
D:      IADD3 R2, R2, 0x1, RZ ;
E:      EXIT ;`),
      `S2R R1, SR_LANEID ;
        ISETP.LT.AND P0, PT, R1, 0x2, PT ;
        ISETP.NE.AND P1, PT, R1, RZ, PT ;
        BSSY B0, AD ;
        BSSY B1, AB ;
   @!P0 BRA B ;
C: @!P1 BREAK B1 ;
   @!P1 BRA D ;
B:      BSYNC B1 ;
AB:     MOV R2, 0xb ;
D:      BSYNC B0 ;
AD:     IADD3 R2, R2, 0x1, RZ ;
E:      EXIT ;`,
    );
  });

  it('a conditional EXIT inside an if does not move the reconvergence point (exited lanes leave the barrier)', () => {
    expectListing(
      compile(`S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        ISETP.EQ.AND P1, PT, R0, RZ, PT ;
   @P0  BRA T ;
   @P1  EXIT ;
        MOV R1, 0x2 ;
T:      MOV R2, R1 ;
        EXIT ;`),
      `S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        ISETP.EQ.AND P1, PT, R0, RZ, PT ;
        BSSY B0, AT ;
   @P0  BRA T ;
   @P1  EXIT ;
        MOV R1, 0x2 ;
T:      BSYNC B0 ;
AT:     MOV R2, R1 ;
        EXIT ;`,
    );
  });

  const LOOP_BREAK = `// @warpcheck warp-size=4 warps=1
        S2R R0, SR_LANEID ;
L:      IADD3 R1, R1, 0x1, RZ ;
        LOP3.LUT R3, R1, 0x1, RZ, 0xc0, !PT ;
        ISETP.NE.AND P0, PT, R3, RZ, PT ;
  @!P0  BRA SKIP ;
        IADD3 R2, R2, 0x1, RZ ;
        ISETP.GE.AND P1, PT, R1, R0, PT ;
   @P1  BRA X ;
SKIP:   ISETP.LT.AND P2, PT, R1, 0x4, PT ;
   @P2  BRA L ;
X:      EXIT ;
`;

  it('a loop with a break inside an if: the loop region is hoisted before the header, the if joins early and the break BREAKs out of it', () => {
    // while-loop: all three branches reconverge at X (the loop exit), and lie on the loop's
    // cycle: one region, its BSSY before the header L (executed once), the back edge skipping it
    // (seed 000 Fig. 7 has its BSSY before the loop). The if's target SKIP is reached by the
    // then-part unless it breaks to X, which post-dominates SKIP: an early region with BREAK.
    expectListing(
      compile(LOOP_BREAK),
      `S2R R0, SR_LANEID ;
        BSSY B0, AX ;
L:      IADD3 R1, R1, 0x1, RZ ;
        LOP3.LUT R3, R1, 0x1, RZ, 0xc0, !PT ;
        ISETP.NE.AND P0, PT, R3, RZ, PT ;
        BSSY B1, AS ;
  @!P0  BRA SKIP ;
        IADD3 R2, R2, 0x1, RZ ;
        ISETP.GE.AND P1, PT, R1, R0, PT ;
   @P1  BREAK B1 ;
   @P1  BRA X ;
SKIP:   BSYNC B1 ;
AS:     ISETP.LT.AND P2, PT, R1, 0x4, PT ;
   @P2  BRA L ;
X:      BSYNC B0 ;
AX:     EXIT ;`,
    );
    for (const m of ['its', 'hanoi'])
      expect(runListing(compile(LOOP_BREAK), m).result.verdict, m).toBe('terminates');
  });

  const SPINLOCK = `// @warpcheck warp-size=4 warps=1 mem[0x100]=0 mem[0x200]=0 expect:hanoi=deadlock/livelock
        MOV R2, 0x100 ;
        MOV R3, 0x1 ;
acquire:
        ATOMS.CAS R0, [R2], RZ, R3 ;
        ISETP.NE.AND P0, PT, R0, RZ, PT ;
   @P0  BRA acquire ;
        MOV R4, 0x200 ;
        ATOMS.ADD R5, [R4], R3 ;
        ATOMS.EXCH RZ, [R2], RZ ;
        EXIT ;
`;

  it('the spinlock, deadlock-aware: BSSY before the loop, YIELD at its top, BSYNC after the release (seed 000 Fig. 7)', () => {
    const text = compile(SPINLOCK);
    expectListing(
      text,
      `MOV R2, 0x100 ;
        MOV R3, 0x1 ;
        BSSY B0, AFTER ;
B:      YIELD ;
        ATOMS.CAS R0, [R2], RZ, R3 ;
        ISETP.NE.AND P0, PT, R0, RZ, PT ;
   @P0  BRA B ;
        MOV R4, 0x200 ;
        ATOMS.ADD R5, [R4], R3 ;
        ATOMS.EXCH RZ, [R2], RZ ;
E:      BSYNC B0 ;
AFTER:  EXIT ;`,
    );
    expect(text).not.toContain('expect:');
    for (const m of ['its', 'hanoi'])
      expect(runListing(text, m).result.verdict, m).toBe('terminates');
  });

  it('the spinlock without deadlock-awareness: BSYNC at the loop exit, before the release, and no YIELD', () => {
    // seed 000 §VI-C: "If the BSYNC in E was placed before releasing the lock, it would also
    // cause a deadlock" — on its too (scenarios/seed000-fig7-spinlock-early-bsync.sass).
    const text = compile(SPINLOCK, { deadlockAware: false });
    expectListing(
      text,
      `MOV R2, 0x100 ;
        MOV R3, 0x1 ;
        BSSY B0, AFTER ;
B:      ATOMS.CAS R0, [R2], RZ, R3 ;
        ISETP.NE.AND P0, PT, R0, RZ, PT ;
   @P0  BRA B ;
        BSYNC B0 ;
AFTER:  MOV R4, 0x200 ;
        ATOMS.ADD R5, [R4], R3 ;
        ATOMS.EXCH RZ, [R2], RZ ;
        EXIT ;`,
    );
    for (const m of ['its', 'hanoi'])
      expect(runListing(text, m).result.verdict, m).toBe('deadlock');
  });

  it('a loop on lane-private values is not a spin loop: no YIELD, BSYNC at the exit', () => {
    const text = compile(LOOP_BREAK);
    expect(text).not.toContain('YIELD');
  });

  it('rejects code that is already lowered, with its line', () => {
    const { program } = parse('        MOV R1, 0x1 ;\n        BSSY B0, L ;\nL:      EXIT ;\n');
    const r = compileTuring(program, { file: 'x.sass', sourceLines: [1, 2, 3] });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(formatDiagnostic(r.error[0]!)).toMatch(
        /^x\.sass:2:1: expected plain code, found BSSY/,
      );
  });

  it('rejects a budget outside 1..16', () => {
    const { program } = parse(IF_ELSE);
    expect(compileTuring(program, { registers: 0 }).ok).toBe(false);
    expect(compileTuring(program, { registers: 17 }).ok).toBe(false);
  });

  it('distinct allocation gives sibling regions their own registers and refuses more than the budget', () => {
    const src = `S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
        ISETP.EQ.AND P1, PT, R0, RZ, PT ;
   @P0  BRA T ;
   @P1  BRA E1 ;
        MOV R1, 0x1 ;
E1:     BRA J ;
T: @P1  BRA E2 ;
        MOV R1, 0x2 ;
E2:     MOV R1, R1 ;
J:      EXIT ;`;
    const regs = (o: TuringOptions) => {
      const r = compileTuring(parse(src).program, o);
      return r.ok ? r.value.regions.map((x) => x.register) : r.error.map((e) => e.message);
    };
    // Outer region at depth 0; the two sibling ifs at depth 1 (one per path).
    expect(regs({}).sort()).toEqual([0, 1, 1]);
    expect(regs({ allocation: 'distinct' }).sort()).toEqual([0, 1, 2]);
    expect(regs({ allocation: 'distinct', registers: 2 })).toEqual([
      'kernel: 3 reconvergence regions need 3 B registers with --allocation distinct, budget 2',
    ]);
  });

  it('IPDOM fallback (unstructured code): a branch to an unconditional early EXIT is exit-relaxed', () => {
    // Issue 11 (`hanoi-exit-not-relaxed`): `@P1 BRA OUT; … OUT: EXIT` — the lanes going to OUT
    // exit, so they impose nothing on the reconvergence point; the goto `@P3 BRA TAIL` out of the
    // if makes the layout unstructured, so the pass falls back to IPDOM placement. By hand: the
    // exit-relaxed IPDOM of the first branch is its fall-through (every other way on ends in the
    // early EXIT), so it gets a region (before the fix: "no reconvergence point").
    const { program } = parse(`// @warpcheck warp-size=4 warps=1
        S2R R0, SR_LANEID ;
        ISETP.EQ.AND P1, PT, R0, 0x2, PT ;
        ISETP.EQ.AND P2, PT, R0, 0x1, PT ;
        ISETP.EQ.AND P3, PT, R0, 0x3, PT ;
   @P1  BRA OUT ;
   @P2  BRA MID ;
        BRA JOIN ;
MID: @P3 BRA TAIL ;
        MOV R5, 0x1 ;
        BRA JOIN ;
OUT:    EXIT ;
JOIN:   MOV R4, 0x1 ;
TAIL:   EXIT ;`);
    const r = compileTuring(program, {});
    if (!r.ok) return expect.fail(r.error.map(formatDiagnostic).join('\n'));
    expect(r.value.notes.filter((n) => n.includes('no reconvergence point'))).toEqual([]);
    expect(r.value.regions.map((x) => [x.kind, x.branches[0], x.join])).toContainEqual([
      'ipdom',
      4,
      5,
    ]);
  });

  it('IPDOM fallback: an early region enclosing one that joins at the same point replaces it', () => {
    // Issue 11 (`hanoi-early-region-dropped`, its listing): the early region of the outer if
    // (branch at pc 9, join at its target, pc 17) encloses the inner if's IPDOM region joining
    // there too; the inner BSYNC would reunite only the inner lanes, the outer one all of them,
    // so the outer is kept. Dead code with two crossing loops at the end makes the layout
    // unstructured, so the pass takes the IPDOM fallback.
    const { program } = parse(`// @warpcheck warp-size=8 warps=1
	Function : main
        S2R R0, SR_LANEID ;
        MOV R2, 0x1 ;
        SHF.L.U32 R2, R2, R0, RZ ;
        IADD3 R3, R2, -0x1, RZ ;
        SHF.L.U32 R1, R0, 0xc, RZ ;
        IADD3 R1, R1, 0x10000, RZ ;
        MOV R10, RZ ;
.L_head0:
        LOP3.LUT R7, R2, 0x42844428, RZ, 0xc0, !PT ;
        ISETP.EQ.AND P0, PT, R7, RZ, PT ;
   @P0  BRA \`(.L_endif3) ;
        LOP3.LUT R7, R2, 0xb3c3941a, RZ, 0xc0, !PT ;
        ISETP.EQ.AND P0, PT, R7, RZ, PT ;
   @P0  BRA \`(.L_else5) ;
        BRA \`(.L_exit2) ;
.L_else5:
        LOP3.LUT R7, R2, 0x42844428, RZ, 0xc0, !PT ;
        ISETP.EQ.AND P0, PT, R7, RZ, PT ;
   @P0  BRA \`(.L_endif6) ;
.L_endif6:
.L_endif3:
        VOTE.ANY R7, PT, PT ;
        LOP3.LUT R7, R7, R3, RZ, 0xc0, !PT ;
        ISETP.NE.AND P0, PT, R7, RZ, PT ;
   @P0  BRA \`(.L_endelect7) ;
        BRA \`(.L_exit2) ;
.L_endelect7:
        IADD3 R10, R10, 0x1, RZ ;
        VOTE.ANY R4, PT, PT ;
        STS [R1], R4 ;
        IADD3 R1, R1, 0x1, RZ ;
        BRA \`(.L_head0) ;
.L_exit2:
        EXIT ;
.L_da:
        NOP ;
.L_db:
        NOP ;
        BRA \`(.L_da) ;
        BRA \`(.L_db) ;
`);
    const r = compileTuring(program, {});
    if (!r.ok) return expect.fail(r.error.map(formatDiagnostic).join('\n'));
    expect(r.value.notes.filter((n) => n.includes('encloses a region'))).toEqual([]);
    expect(r.value.regions.map((x) => [x.kind, x.branches[0], x.join])).toContainEqual([
      'early',
      9,
      17,
    ]);
  });

  it('a switch whose last case is empty joins at that case (the end itself)', () => {
    // Found by P7 on hanoi (seed 20261122, run 542, after the issue-11 construct placement): the
    // generator's switch ends `L0: BRA L1; L1:` — the last case is empty, so its label is the
    // switch's end and case 0's `BRA L1` jumps there. By hand: the BRX's construct joins at L1
    // (pc 8); without that region the lanes reach the flag wait below one group at a time.
    const { program } = parse(`// @warpcheck warp-size=2 warps=1
        S2R R1, SR_TID.X ;
        MOV R3, 0x1 ;
        LDS R8, [R1+0x400] ;
        MOV R6, L0 ;
        ISETP.EQ.AND P0, PT, R8, 0x1, PT ;
   @P0  MOV R6, L1 ;
        BRX R6 (*"BRANCH_TARGETS L0,L1"*) ;
L0:     BRA L1 ;
L1:     ISETP.NE.AND P0, PT, R1, 0x0, PT ;
   @P0  BRA SPIN ;
        MOV R30, 0x180 ;
        STS [R30], R3 ;
        BRA DONE ;
SPIN:   MOV R30, 0x180 ;
WAIT:   LDS R7, [R30] ;
        ISETP.EQ.AND P0, PT, R7, RZ, PT ;
   @P0  BRA WAIT ;
DONE:   EXIT ;`);
    const r = compileTuring(program, {});
    if (!r.ok) return expect.fail(r.error.map(formatDiagnostic).join('\n'));
    expect(r.value.regions.map((x) => [x.branches[0], x.join])).toContainEqual([6, 8]);
  });
});
