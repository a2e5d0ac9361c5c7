/**
 * The Fermi lowering for the `token-stack` mechanism (seed 003 §II, Fig. 2, Table I;
 * SEMANTICS §3.3; docs/semantics.md "token-stack"): SSY before potentially divergent branches,
 * a SYNC pop at their immediate post-dominator (IPDOM, `model/cfg`), PBK/BRK for loops with breaks.
 *
 * Rules (decisions; seed 003 shows only Fig. 2's if/else):
 * - Potentially divergent: a BRA with a guard or second predicate (`.DIV`/`.CONV` too), not
 *   `BRA.U` (Table I: "Uniform Branch"), or a BRX/JMX with declared targets. A branch whose IPDOM is
 *   the virtual exit gets nothing: its lanes run on (to EXIT, or to an enclosing region's SYNC),
 *   and an empty active mask pops its DIV token.
 * - `SSY p'` goes right before the branch, and `SYNC` right before its IPDOM p (jumps to p land
 *   on the SYNC); p' is the instruction after the SYNC. Fig. 2 pops with a `.S` flag on the last
 *   instruction of each path; a SYNC instruction (the Kepler spelling, SEMANTICS §2) does the same
 *   at one place for every path, so no path needs its own last instruction.
 * - A branch on a loop that does not contain p (the spinlock's backward branch, a loop exit) gets
 *   its SSY before the header of the outermost such loop, entered only from outside the loop —
 *   an SSY inside the loop would push a token every iteration.
 * - Branches with the same IPDOM share the SSY of the one whose SSY dominates the others.
 * - A region gets no SSY/SYNC (its lanes then reconverge at an enclosing SYNC, or at the end — the
 *   per-lane paths are the same, only later reconvergence) when: lanes could enter it other than
 *   through its SSY (the SSY's block must dominate every block of the region); several regions end
 *   at one IPDOM without one dominating the others; or some way into a PC would run its inserted
 *   instructions out of turn — e.g. an IPDOM that is a loop header, where the region's lanes
 *   would run the loop's PBK again after the SYNC (`misentered`).
 * - Loops with breaks (`loops: 'pbk'`, the default): a natural loop whose exits all lead to one
 *   block e, with more than one exit edge or an exit from a block that is not a latch, gets
 *   `PBK e'` before its header (entered from outside); each exit becomes a BRK — `@P BRA e` turns
 *   into `@P BRK`, a fall-through exit gets a `BRK` that only the falling-through lanes run — and
 *   its branches whose IPDOM is e need no SSY. e' is the instruction after those BRKs.
 * - A loop exit that cannot become a BRK (a BRX, a modified BRA) leaves the loop to SSY/SYNC.
 * - A program that already holds Fermi stack instructions is an error.
 * The SYNC runs for the lanes that come from inside the region (jumps from elsewhere to the IPDOM,
 * such as a loop's back edge, land after it); a push hoisted to a loop header runs for lanes from
 * outside the loop.
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
  /** BRK (0), SYNC (1), SSY (2), PBK (3): BRKs first, then the SYNC, then pushes (see the sort). */
  readonly rank: number;
  /** `resume(pc, rank)`: the new PC after the inserts of rank below `rank` before source `pc`. */
  readonly make: (resume: (pc: number, rank: number) => number) => Instruction;
  /** Whether lanes coming from block `from` to `at` run this instruction (jumps and fall-through). */
  readonly enters: (from: number) => boolean;
  /** Run only by the fall-through into `at` (the BRK of a loop's fall-through exit). */
  readonly fallThroughOnly: boolean;
  /** Blocks of the loop whose body skips a push hoisted to its header (0 otherwise): outer first. */
  readonly outer: number;
  /** For an SSY and its SYNC: the region they belong to. */
  readonly region?: Region;
}

/** An SSY region: the branch, its IPDOM, where the SSY goes and the blocks in between. */
interface Region {
  readonly branch: number;
  readonly join: number;
  /** Where the SSY goes: the branch, or the header of the outermost loop it leaves. */
  readonly at: number;
  readonly loop: NaturalLoop | null;
  /** Blocks reachable from the SSY's block without passing the IPDOM's block. */
  readonly blocks: ReadonlySet<number>;
}

const ins = (opcode: string, operands: Operand[] = [], guard: Instruction['guard'] = null) =>
  ({ offset: 0, guard, opcode, modifiers: [], operands }) as Instruction;

/** Loops of a function containing block `b`, innermost first. */
function loopsOf(loops: readonly NaturalLoop[], b: number): NaturalLoop[] {
  return loops.filter((l) => l.body.includes(b)).sort((x, y) => x.body.length - y.body.length);
}

/** Instruction `pc` can fall through to `pc + 1`. */
function fallsThrough(program: Program, pc: number): boolean {
  const c = controlOf(program, pc);
  return c.conditional || !['branch', 'indirect', 'exit', 'return', 'trap'].includes(c.kind);
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
      const e = cfg.blocks[exits[0]!.to]!.start;
      const header = cfg.blocks[loop.header]!.start;
      const body = new Set(loop.body);
      // A header entered by falling through from its own body cannot hold the PBK.
      if (header > 0 && body.has(blockOf(header - 1)) && fallsThrough(program, header - 1))
        continue;
      const plan: (() => void)[] = [];
      for (const edge of exits) {
        const from = cfg.blocks[edge.from]!;
        const last = from.end - 1;
        const c = controlOf(program, last);
        const src = program.instructions[last]!;
        if (
          c.kind === 'branch' &&
          c.targets.length === 1 &&
          c.targets[0] === e &&
          src.modifiers.length === 0 &&
          !(c.conditional && from.end === e)
        ) {
          // `@P BRA e` → `@P BRK` (seed 003 Table I: "BRK; or @P0 BRK;").
          const p2 = secondPredicate(src);
          plan.push(() =>
            replaced.set(last, ins('BRK', p2 ? [{ kind: 'pred', pred: p2 }] : [], src.guard)),
          );
        } else if (
          from.end === e &&
          (c.kind === 'none' || (c.kind === 'branch' && c.conditional))
        ) {
          // A fall-through exit: a BRK only the falling-through lanes run.
          plan.push(() =>
            inserts.push({
              at: e,
              rank: 0,
              make: () => ins('BRK'),
              enters: () => false,
              fallThroughOnly: true,
              outer: 0,
            }),
          );
        } else plan.length = 0;
        if (plan.length === 0) break;
      }
      if (plan.length !== exits.length) continue; // an exit that cannot become a BRK: SSY instead
      for (const step of plan) step();
      inserts.push({
        at: header,
        rank: 3,
        // Its lanes resume after the BRKs: a SYNC there belongs to a region around the loop.
        make: (t) => ins('PBK', [{ kind: 'target', pc: t(e, 1) }]),
        enters: (u) => !body.has(u),
        fallThroughOnly: false,
        outer: body.size,
      });
      pbkLoops.push({ exit: e, body });
    }
  }

  // ---- SSY regions ----
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
    if (fc.irreducibleCycles.some((cy) => cy.body.includes(b))) continue;
    // The outermost loop around the branch that does not contain the IPDOM.
    const outside = loopsOf(fc.loops, b).filter((l) => !l.body.includes(blockOf(join)));
    const loop = outside.length > 0 ? outside[outside.length - 1]! : null;
    const at = loop ? cfg.blocks[loop.header]!.start : pc;
    const blocks = new Set<number>();
    const work = [blockOf(at)];
    while (work.length > 0) {
      const u = work.pop()!;
      if (u === VIRTUAL_EXIT || u === blockOf(join) || blocks.has(u)) continue;
      blocks.add(u);
      work.push(...cfg.blocks[u]!.succs);
    }
    // Every lane that runs the SYNC must have run the SSY: no way into the region but its start.
    if ([...blocks].some((u) => !dominates(cfg, blockOf(at), u))) continue;
    regions.push({ branch: pc, join, at, loop, blocks });
  }
  // Branches with one IPDOM share the SSY that dominates the others; regions that do not nest
  // get none (their lanes then reconverge at an enclosing SYNC or not at all — still correct).
  const byJoin = new Map<number, Region[]>();
  for (const r of regions) byJoin.set(r.join, [...(byJoin.get(r.join) ?? []), r]);
  let kept: Region[] = [];
  for (const rs of byJoin.values()) {
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
    if (roots.length === 1) kept.push(roots[0]!);
  }

  // Lay out the inserts; drop a region whose SYNC or SSY some lanes would run out of turn, until
  // every way into a PC runs exactly a suffix of what is inserted before it (checked below).
  for (;;) {
    const all = [...inserts];
    for (const r of kept) {
      all.push({
        at: r.join,
        rank: 1,
        make: () => ins('SYNC'),
        enters: (u) => r.blocks.has(u),
        fallThroughOnly: false,
        outer: 0,
        region: r,
      });
      const body = r.loop ? new Set(r.loop.body) : null;
      all.push({
        at: r.at,
        rank: 2,
        make: (t) => ins('SSY', [{ kind: 'target', pc: t(r.join, 2) }]),
        enters: (u) => body === null || !body.has(u),
        fallThroughOnly: false,
        outer: body?.size ?? 0,
        region: r,
      });
    }
    // Order at one PC: BRKs, the SYNC, then pushes — hoisted over the larger loop first (a jump
    // from inside a loop skips the pushes of the loops it is in: a prefix), an SSY before a PBK
    // on the same loop (its region ends later), the later-ending SSY first.
    const before = new Map<number, Insert[]>();
    for (const i of all) before.set(i.at, [...(before.get(i.at) ?? []), i]);
    for (const list of before.values())
      list.sort((a, b) => {
        if (a.rank < 2 || b.rank < 2) return a.rank - b.rank;
        if (a.outer !== b.outer) return b.outer - a.outer;
        if (a.rank !== b.rank) return a.rank - b.rank;
        const ja = a.region?.join;
        const jb = b.region?.join;
        if (ja === undefined || jb === undefined || ja === jb) return 0;
        return postDominates(cfg, blockOf(ja), blockOf(jb)) ? -1 : 1;
      });
    const wrong = misentered(program, cfg, before);
    if (wrong === null) return ok(layout(program, cfg, before, replaced));
    if (wrong.region === undefined) return fail([`pc ${wrong.at}: cannot place the PBK here`]);
    kept = kept.filter((r) => r !== wrong.region);
  }
}

/**
 * The first insert that some way into its PC would run out of turn: every predecessor block must
 * run a suffix of the inserts (a jump: from the first one it enters; the fall-through: all but
 * none it skips), else null.
 */
function misentered(
  program: Program,
  cfg: ProgramCfg,
  before: ReadonlyMap<number, readonly Insert[]>,
): Insert | null {
  for (const [pc, list] of before) {
    const b = cfg.blocks[cfg.blockOf[pc]!]!;
    for (const u of b.preds) {
      const from = cfg.blocks[u]!;
      const last = from.end - 1;
      const fall = from.end === pc && fallsThrough(program, last);
      const jump = program.instructions[last]!.operands.some(
        (o) => o.kind === 'target' && o.pc === pc,
      );
      if (fall) for (const i of list) if (!i.fallThroughOnly && !i.enters(u)) return i;
      if (jump) {
        let k = list.findIndex((i) => !i.fallThroughOnly && i.enters(u));
        if (k < 0) continue;
        for (; k < list.length; k++) if (!list[k]!.enters(u)) return list[k]!;
      }
    }
  }
  return null;
}

/** Lays the program out with the inserts; see `Insert.enters` for where jumps land. */
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
  /** Where a jump from block `from` to source PC `pc` lands: the first insert it enters. */
  const land = (from: number, pc: number): number => {
    const list = before.get(pc) ?? [];
    for (let k = 0; k < list.length; k++)
      if (!list[k]!.fallThroughOnly && list[k]!.enters(from)) return first[pc]! + k;
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
