/**
 * The Fermi lowering for the `token-stack` mechanism (seed 003 §II, Fig. 2, Table I;
 * SEMANTICS §3.3; docs/semantics.md "token-stack"): SSY before potentially divergent branches,
 * a SYNC pop at their immediate post-dominator (IPDOM, `model/cfg`), PBK/BRK for loops with breaks.
 *
 * Rules (decisions; seed 003 shows only Fig. 2's if/else):
 * - Potentially divergent: a BRA with a guard or second predicate (`.DIV`/`.CONV` too), not
 *   `BRA.U` (Table I: "Uniform Branch"), or a BRX/JMX with declared targets. A branch whose IPDOM is
 *   the virtual exit needs nothing: its paths end in EXIT, and an empty active mask pops.
 * - `SSY p'` goes right before the branch, and `SYNC` right before its IPDOM p (jumps to p land
 *   on the SYNC); p' is the instruction after the SYNC. Fig. 2 pops with a `.S` flag on the last
 *   instruction of each path; a SYNC instruction (the Kepler spelling, SEMANTICS §2) does the same
 *   at one place for every path, so no path needs its own last instruction.
 * - A branch on a loop that does not contain p (the spinlock's backward branch, a loop exit) gets
 *   its SSY before the header of the outermost such loop, entered only from outside the loop —
 *   an SSY inside the loop would push a token every iteration.
 * - Branches with the same IPDOM share the SSY of the one whose SSY dominates the others; two
 *   SSYs for one IPDOM that do not nest are an error (one SYNC could not pop both).
 * - Loops with breaks (`loops: 'pbk'`, the default): a natural loop whose exits all lead to one
 *   block e, with more than one exit edge or an exit from a block that is not a latch, gets
 *   `PBK e'` before its header (entered from outside); each exit becomes a BRK — `@P BRA e` turns
 *   into `@P BRK`, a fall-through exit gets a `BRK` that only the falling-through lanes run — and
 *   its branches whose IPDOM is e need no SSY. e' is the instruction after those BRKs.
 * - A program that already holds Fermi stack instructions is an error.
 * Offsets are renumbered per function with the program's stride; code addresses held in registers
 * as numbers (not labels) are not rewritten.
 */
import { buildCfg } from '../cfg/buildCfg.ts';
import { dominates, postDominates } from '../cfg/dominance.ts';
import { ipdomOf } from '../cfg/ipdom.ts';
import { VIRTUAL_EXIT, type NaturalLoop, type ProgramCfg } from '../cfg/programCfg.ts';
import { controlOf, secondPredicate } from '../isa/control.ts';
import {
  err,
  ok,
  type Diagnostic,
  type Instruction,
  type Operand,
  type Program,
  type Result,
} from '../isa/program.ts';

export interface FermiCompileOptions {
  /** Loops with breaks: PBK/BRK (default), or SSY/SYNC like every other branch. */
  readonly loops?: 'pbk' | 'ssy';
  /** File name for diagnostics. */
  readonly file?: string;
}

export interface FermiCompiled {
  readonly program: Program;
  /** `origin[newPc]`: the source PC, or null for an inserted instruction (a BRK that replaces a BRA keeps the BRA's PC). */
  readonly origin: readonly (number | null)[];
}

const STACK_OPCODES = new Set(['SSY', 'SYNC', 'PBK', 'BRK', 'PCNT', 'CONT', 'PRET']);

/** An instruction inserted before source PC `at`. */
interface Insert {
  readonly at: number;
  /** Order among the inserts at one PC: BRK (0), SYNC (1), SSY (2), PBK (3); see `order`. */
  readonly rank: number;
  /** `resume(pc, rank)`: the new PC after the inserts of rank below `rank` before source `pc`. */
  readonly make: (resume: (pc: number, rank: number) => number) => Instruction;
  /** For an SSY: its region's IPDOM. */
  readonly join?: number;
  /** Blocks whose jumps to `at` skip this instruction (a loop body for a push at its header); `all` for fall-through only. */
  readonly skip: ReadonlySet<number> | 'all';
}

const ins = (opcode: string, operands: Operand[] = [], guard: Instruction['guard'] = null) =>
  ({ offset: 0, guard, opcode, modifiers: [], operands }) as Instruction;

/** Loops of a function containing block `b`, innermost first. */
function loopsOf(loops: readonly NaturalLoop[], b: number): NaturalLoop[] {
  return loops.filter((l) => l.body.includes(b)).sort((x, y) => x.body.length - y.body.length);
}

/** Places SSY/SYNC and PBK/BRK (see the file comment); returns the program and a PC map. */
export function compileFermiMapped(
  program: Program,
  options: FermiCompileOptions = {},
): Result<FermiCompiled> {
  const file = options.file ?? '<program>';
  const fail = (messages: string[]) =>
    err(messages.map((message): Diagnostic => ({ file, line: 0, column: 0, message })));
  const n = program.instructions.length;
  for (let pc = 0; pc < n; pc++)
    if (STACK_OPCODES.has(program.instructions[pc]!.opcode))
      return fail([`pc ${pc}: the program already has Fermi stack instructions`]);
  const cfg: ProgramCfg = buildCfg(program);
  const blockOf = (pc: number) => cfg.blockOf[pc]!;
  const inserts: Insert[] = [];
  const replaced = new Map<number, Instruction>();
  const problems: string[] = [];

  // ---- loops with breaks: PBK before the header, BRK at every exit ----
  /** Per PBK loop: its exit block's start and its body. */
  const pbkLoops: { exit: number; body: ReadonlySet<number> }[] = [];
  for (const fc of cfg.functions) {
    if (options.loops === 'ssy') break;
    for (const loop of fc.loops) {
      const exits = loop.exits.filter((e) => e.to !== VIRTUAL_EXIT);
      const targets = new Set(exits.map((e) => e.to));
      if (targets.size !== 1) continue;
      const breaks = exits.length > 1 || exits.some((e) => !loop.latches.includes(e.from));
      if (!breaks) continue;
      const exitBlock = cfg.blocks[exits[0]!.to]!;
      const e = exitBlock.start;
      const body = new Set(loop.body);
      for (const edge of exits) {
        const from = cfg.blocks[edge.from]!;
        const last = from.end - 1;
        const c = controlOf(program, last);
        const src = program.instructions[last]!;
        if (c.kind === 'branch' && c.targets.includes(e)) {
          if (
            c.targets.length !== 1 ||
            src.modifiers.length > 0 ||
            (c.conditional && from.end === e)
          ) {
            problems.push(`pc ${last}: a loop exit the pass cannot turn into BRK`);
            continue;
          }
          // `@P BRA e` → `@P BRK` (seed 003 Table I: "BRK; or @P0 BRK;").
          const p2 = secondPredicate(src);
          replaced.set(last, ins('BRK', p2 ? [{ kind: 'pred', pred: p2 }] : [], src.guard));
        } else if (from.end === e && (c.kind === 'none' || c.conditional)) {
          // A fall-through exit: a BRK only the falling-through lanes run.
          inserts.push({ at: e, rank: 0, make: () => ins('BRK'), skip: 'all' });
        } else {
          problems.push(`pc ${last}: a loop exit the pass cannot turn into BRK`);
        }
      }
      inserts.push({
        at: cfg.blocks[loop.header]!.start,
        rank: 3,
        // Its lanes resume after the BRKs: a SYNC there belongs to a region around the loop.
        make: (t) => ins('PBK', [{ kind: 'target', pc: t(e, 1) }]),
        skip: body,
      });
      pbkLoops.push({ exit: e, body });
    }
  }
  // Where a PBK's or SSY's lanes resume: after the BRKs (and SYNC) inserted before `e`.

  // ---- SSY regions ----
  interface Region {
    readonly branch: number;
    readonly join: number;
    /** Where the SSY goes, and the loop whose body skips it (if hoisted). */
    readonly at: number;
    readonly loop: NaturalLoop | null;
  }
  const regions: Region[] = [];
  for (let pc = 0; pc < n; pc++) {
    const b = blockOf(pc);
    if (b < 0 || !cfg.blocks[b]!.reachable || replaced.has(pc)) continue;
    const c = controlOf(program, pc);
    const src = program.instructions[pc]!;
    const divergent =
      (c.kind === 'branch' && c.conditional && !src.modifiers.includes('U')) ||
      (c.kind === 'indirect' && !c.unknownTargets);
    if (!divergent) continue;
    const join = ipdomOf(cfg, pc);
    if (join === VIRTUAL_EXIT) continue;
    if (pbkLoops.some((l) => l.exit === join && l.body.has(b))) continue;
    const fc = cfg.functions[cfg.blocks[b]!.fn]!;
    if (fc.irreducibleCycles.some((cy) => cy.body.includes(b))) {
      problems.push(`pc ${pc}: a divergent branch on an irreducible cycle`);
      continue;
    }
    // The outermost loop around the branch that does not contain the IPDOM.
    const outside = loopsOf(fc.loops, b).filter((l) => !l.body.includes(blockOf(join)));
    const loop = outside.length > 0 ? outside[outside.length - 1]! : null;
    regions.push({ branch: pc, join, at: loop ? cfg.blocks[loop.header]!.start : pc, loop });
  }
  // Branches with one IPDOM share the SSY that dominates the others.
  const byJoin = new Map<number, Region[]>();
  for (const r of regions) byJoin.set(r.join, [...(byJoin.get(r.join) ?? []), r]);
  const kept: Region[] = [];
  for (const [join, rs] of byJoin) {
    const seen = new Set<number>();
    const roots = rs.filter((r) => {
      if (seen.has(r.at)) return false;
      seen.add(r.at);
      return !rs.some(
        (o) =>
          o.at !== r.at &&
          dominates(cfg, blockOf(o.at), blockOf(r.at)) &&
          (blockOf(o.at) !== blockOf(r.at) || o.at < r.at),
      );
    });
    if (roots.length > 1) {
      problems.push(
        `branches at pcs ${rs.map((r) => r.branch).join(', ')} reconverge at pc ${join} but their SSYs do not nest`,
      );
      continue;
    }
    kept.push(roots[0]!);
  }
  if (problems.length > 0) return fail(problems);
  for (const r of kept) {
    inserts.push({ at: r.join, rank: 1, make: () => ins('SYNC'), skip: new Set() });
    inserts.push({
      at: r.at,
      rank: 2,
      make: (t) => ins('SSY', [{ kind: 'target', pc: t(r.join, 2) }]),
      skip: r.loop ? new Set(r.loop.body) : new Set(),
      join: r.join,
    });
  }
  // Order at one PC: BRKs, the SYNC, then pushes — those skipped by the larger loop body first
  // (a jump from inside a loop must skip exactly a prefix of the pushes: the outer ones), an SSY
  // before a PBK on the same loop (its region ends later), then the later-ending SSY first.
  const skipSize = (i: Insert) => (i.skip === 'all' ? Infinity : i.skip.size);
  const before = new Map<number, Insert[]>();
  for (const i of inserts) before.set(i.at, [...(before.get(i.at) ?? []), i]);
  for (const list of before.values())
    list.sort((a, b) => {
      if (a.rank < 2 || b.rank < 2) return a.rank - b.rank;
      if (skipSize(a) !== skipSize(b)) return skipSize(b) - skipSize(a);
      if (a.rank !== b.rank) return a.rank - b.rank;
      if (a.join === undefined || b.join === undefined || a.join === b.join) return 0;
      return postDominates(cfg, blockOf(a.join), blockOf(b.join)) ? -1 : 1;
    });
  // A push skipped by a loop body must not be reached by falling through from that body.
  for (const [pc, list] of before)
    for (const i of list) {
      if (i.skip === 'all' || pc === 0) continue;
      const prev = blockOf(pc - 1);
      const c = controlOf(program, pc - 1);
      const falls =
        c.conditional || !['branch', 'indirect', 'exit', 'return', 'trap'].includes(c.kind);
      if (i.skip.has(prev) && falls)
        return fail([`pc ${pc}: a loop header entered by falling through from its own body`]);
    }
  return ok(layout(program, cfg, before, replaced));
}

/** Lays the program out with the inserts; see `Insert.skip` for where jumps land. */
function layout(
  program: Program,
  cfg: ProgramCfg,
  before: ReadonlyMap<number, readonly Insert[]>,
  replaced: ReadonlyMap<number, Instruction>,
): FermiCompiled {
  const n = program.instructions.length;
  /** first[pc]: new PC of the first insert before `pc`; at[pc]: new PC of `pc` itself. */
  const first = new Array<number>(n + 1);
  const at = new Array<number>(n + 1);
  const slots: { pc: number; insert: Insert | null }[] = [];
  for (let pc = 0; pc <= n; pc++) {
    first[pc] = slots.length;
    for (const i of before.get(pc) ?? []) slots.push({ pc, insert: i });
    at[pc] = slots.length;
    if (pc < n) slots.push({ pc, insert: null });
  }
  /** Where a jump from block `from` to source PC `pc` lands: the first insert it does not skip. */
  const land = (from: number, pc: number): number => {
    const list = before.get(pc) ?? [];
    for (let k = 0; k < list.length; k++) {
      const s = list[k]!.skip;
      if (s !== 'all' && !s.has(from)) return first[pc]! + k;
    }
    return at[pc]!;
  };
  /** Where a token for source PC `pc` resumes its lanes: after the inserts of rank below `rank`. */
  const resume = (pc: number, rank: number): number => {
    const list = before.get(pc) ?? [];
    let k = 0;
    while (k < list.length && list[k]!.rank < rank) k++;
    return first[pc]! + k;
  };
  const fnIndex = (pc: number) => cfg.blocks[cfg.blockOf[pc]!]?.fn ?? 0;
  const instructions: Instruction[] = [];
  const origin: (number | null)[] = [];
  const fnOfNew: number[] = [];
  for (const s of slots) {
    const fn = fnIndex(Math.min(s.pc, n - 1));
    fnOfNew.push(fn);
    if (s.insert) {
      instructions.push(s.insert.make(resume));
      origin.push(null);
      continue;
    }
    const src = replaced.get(s.pc) ?? program.instructions[s.pc]!;
    const from = cfg.blockOf[s.pc]!;
    instructions.push({
      ...src,
      operands: src.operands.map((o) =>
        o.kind === 'target' ? { kind: 'target', pc: land(from, o.pc) } : o,
      ),
    });
    origin.push(s.pc);
  }
  const functions = program.functions.map((f) => ({
    ...f,
    start: first[f.start]!,
    end: first[f.end]!,
  }));
  const renumbered = instructions.map((i, pc) => {
    const fi = fnOfNew[pc]!;
    const old = program.functions[fi]!;
    const a = program.instructions[old.start];
    const b = program.instructions[old.start + 1];
    const stride = a && b && old.end - old.start > 1 ? b.offset - a.offset || 16 : 16;
    return { ...i, offset: (a?.offset ?? 0) + (pc - functions[fi]!.start) * stride };
  });
  return {
    program: {
      functions,
      instructions: renumbered,
      labels: program.labels.map((l) => ({ ...l, pc: l.pc < n ? land(-1, l.pc) : first[n]! })),
    },
    origin,
  };
}

/** The Fermi lowering (see the file comment): SSY/SYNC and PBK/BRK for the `token-stack` mechanism. */
export function compileFermi(program: Program, options: FermiCompileOptions = {}): Result<Program> {
  const r = compileFermiMapped(program, options);
  return r.ok ? ok(r.value.program) : r;
}
