/**
 * The GCN lowering (seed 001 §2.2; SEMANTICS §3.5): "the compiler delimits a single-entry,
 * single-exit region using a Fork instruction at entry and a Join instruction at exit". This pass
 * places `FORK` right before each potentially divergent branch that opens a region and `JOIN` at
 * the branch's immediate post-dominator (IPDOM, `model/cfg`), for the `gcn` mechanism.
 *
 * Rules (decisions, docs/semantics.md "Path lists"):
 * - Potentially divergent: a conditional BRA (guard, second predicate, `.DIV`/`.CONV`) or an
 *   indirect branch (BRX/JMX). CALL/RET and EXIT are not branches here.
 * - Branches with the same IPDOM share one region when one of them dominates the others and they
 *   lie in its region (the `if (A && B)` of Fig. 1: one FORK before A's branch, one JOIN at E) —
 *   two JOINs at one point would close two regions whose lanes wait at different PCs.
 * - Left to the mechanism (no FORK/JOIN; the `gcn` mechanism's `outside` option decides): a branch
 *   whose IPDOM is the virtual exit; one on a cycle that does not pass its IPDOM — "this technique
 *   ... excludes non-trivial loops" (§2.2) — such as the spinlock's loop; one whose region's JOIN
 *   could be reached from outside the region (it does not dominate its IPDOM); IPDOMs shared by
 *   several regions no branch dominates.
 * - Jumps to the branch, and to the IPDOM, now land on the FORK and the JOIN (the labels move with
 *   them), so every way into the region executes its FORK and every way out its JOIN.
 * - A program that already holds FORK or JOIN is returned unchanged.
 * Offsets are renumbered per function with the program's stride; code addresses held in registers
 * as numbers (not labels) are not rewritten.
 */
import { buildCfg } from '../cfg/buildCfg.ts';
import { dominates } from '../cfg/dominance.ts';
import { ipdomOf } from '../cfg/ipdom.ts';
import { VIRTUAL_EXIT, type ProgramCfg } from '../cfg/programCfg.ts';
import { controlOf } from '../isa/control.ts';
import {
  ok,
  type Diagnostic,
  type Instruction,
  type Operand,
  type Program,
  type Result,
} from '../isa/program.ts';

export interface GcnCompileOptions {
  /** `error`: a branch the pass cannot delimit is an error instead of a note. Default `skip`. */
  readonly onSkip?: 'skip' | 'error';
  /** File name for diagnostics. */
  readonly file?: string;
}

/** What the pass did: the regions it opened and the branches it left alone, and why. */
export interface GcnCompiled {
  readonly program: Program;
  /** (branch PC, IPDOM PC) of each region, in the input's PCs. */
  readonly regions: readonly { readonly branch: number; readonly join: number }[];
  readonly notes: readonly string[];
}

const marker = (opcode: 'FORK' | 'JOIN'): Instruction => ({
  offset: 0,
  guard: null,
  opcode,
  modifiers: [],
  operands: [],
});

/** Blocks reachable from `from`'s successors without entering `stop`. */
function regionOf(cfg: ProgramCfg, from: number, stop: number): Set<number> {
  const seen = new Set<number>();
  const work = [...cfg.blocks[from]!.succs];
  while (work.length > 0) {
    const b = work.pop()!;
    if (b === stop || b < 0 || seen.has(b)) continue;
    seen.add(b);
    work.push(...cfg.blocks[b]!.succs);
  }
  return seen;
}

/** The pass with its report; `compileGcn` returns just the program. */
export function compileGcnReport(
  program: Program,
  options: GcnCompileOptions = {},
): Result<GcnCompiled> {
  const has = program.instructions.some((i) => i.opcode === 'FORK' || i.opcode === 'JOIN');
  if (has) return ok({ program, regions: [], notes: ['the program has FORK/JOIN: unchanged'] });
  const cfg = buildCfg(program);
  const notes: string[] = [];
  const at = (pc: number) =>
    `pc ${pc} (0x${(program.instructions[pc]?.offset ?? 0).toString(16).padStart(4, '0')})`;
  // Candidates: potentially divergent branches, with their IPDOM and region.
  const cands: {
    pc: number;
    block: number;
    join: number;
    joinBlock: number;
    region: Set<number>;
  }[] = [];
  for (let pc = 0; pc < program.instructions.length; pc++) {
    const block = cfg.blockOf[pc]!;
    if (block < 0 || !cfg.blocks[block]!.reachable) continue;
    const c = controlOf(program, pc);
    if (!((c.kind === 'branch' && c.conditional) || c.kind === 'indirect')) continue;
    const join = ipdomOf(cfg, pc);
    if (join === VIRTUAL_EXIT) {
      notes.push(`${at(pc)}: its IPDOM is the exit, no JOIN to place`);
      continue;
    }
    const joinBlock = cfg.blockOf[join]!;
    const region = regionOf(cfg, block, joinBlock);
    if (region.has(block)) {
      notes.push(`${at(pc)}: on a loop that does not pass its IPDOM ${at(join)} (§2.2: no loops)`);
      continue;
    }
    cands.push({ pc, block, join, joinBlock, region });
  }
  // Roots: branches not inside the region of another branch with the same IPDOM that dominates it.
  const roots = cands.filter(
    (b) =>
      !cands.some(
        (o) =>
          o !== b && o.join === b.join && o.region.has(b.block) && dominates(cfg, o.block, b.block),
      ),
  );
  const regions: { branch: number; join: number }[] = [];
  const byJoin = new Map<number, number[]>();
  for (const r of roots) {
    if (!dominates(cfg, r.block, r.joinBlock)) {
      notes.push(`${at(r.pc)}: its IPDOM ${at(r.join)} is reachable from outside its region`);
      continue;
    }
    byJoin.set(r.join, [...(byJoin.get(r.join) ?? []), r.pc]);
  }
  for (const [join, branches] of byJoin) {
    if (branches.length > 1) {
      notes.push(
        `branches at ${branches.map(at).join(', ')} share the IPDOM ${at(join)} and none dominates the others: left unlowered`,
      );
      continue;
    }
    regions.push({ branch: branches[0]!, join });
  }
  if (options.onSkip === 'error' && notes.length > 0) {
    const file = options.file ?? '<program>';
    const error: Diagnostic[] = notes.map((message) => ({ file, line: 0, column: 0, message }));
    return { ok: false, error };
  }
  regions.sort((a, b) => a.branch - b.branch);
  // Per input PC, what goes before it: JOINs first (a region may end where another begins).
  const before = new Map<number, Instruction[]>();
  const add = (pc: number, i: Instruction) => before.set(pc, [...(before.get(pc) ?? []), i]);
  for (const r of regions) add(r.join, marker('JOIN'));
  for (const r of regions) add(r.branch, marker('FORK'));
  return ok({ program: insertBefore(program, before), regions, notes });
}

/**
 * Places FORK before each potentially divergent branch that opens a region and JOIN at its IPDOM
 * (see the file comment); `onSkip: 'error'` fails on branches it cannot delimit.
 */
export function compileGcn(program: Program, options: GcnCompileOptions = {}): Result<Program> {
  const r = compileGcnReport(program, options);
  return r.ok ? ok(r.value.program) : r;
}

/**
 * `program` with `before.get(pc)` inserted before each `pc`. Every target and label that named
 * `pc` now names the first inserted instruction; offsets are renumbered per function.
 */
function insertBefore(program: Program, before: ReadonlyMap<number, Instruction[]>): Program {
  const n = program.instructions.length;
  // landing[pc]: the new PC a jump to old `pc` reaches (its first inserted instruction, if any).
  const landing = new Array<number>(n + 1);
  const instructions: Instruction[] = [];
  const origin: number[] = []; // new pc -> old function index
  const fnOf = (pc: number) => program.functions.findIndex((f) => pc >= f.start && pc < f.end);
  for (let pc = 0; pc <= n; pc++) {
    landing[pc] = instructions.length;
    if (pc === n) break;
    const fn = fnOf(pc);
    for (const i of before.get(pc) ?? []) {
      instructions.push(i);
      origin.push(fn);
    }
    instructions.push(program.instructions[pc]!);
    origin.push(fn);
  }
  const retarget = (o: Operand): Operand =>
    o.kind === 'target' ? { kind: 'target', pc: landing[o.pc]! } : o;
  const functions = program.functions.map((f) => ({
    ...f,
    start: landing[f.start]!,
    end: landing[f.end]!,
  }));
  const renumbered = instructions.map((ins, pc) => {
    const f = functions[origin[pc]!]!;
    const first = program.instructions[program.functions[origin[pc]!]!.start];
    const second = program.instructions[program.functions[origin[pc]!]!.start + 1];
    const stride = first && second ? second.offset - first.offset || 16 : 16;
    return {
      ...ins,
      offset: (first?.offset ?? 0) + (pc - f.start) * stride,
      operands: ins.operands.map(retarget),
    };
  });
  return {
    functions,
    instructions: renumbered,
    labels: program.labels.map((l) => ({ ...l, pc: landing[l.pc]! })),
  };
}
