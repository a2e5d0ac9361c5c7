/**
 * The opcode-convergent compile pass (seed 002 §4.4, §4.7, §4.9; SEMANTICS §3.8): finds two-way
 * divergent structures, aligns the opcode streams of their two sides by longest common
 * subsequence (`lcs.ts`), and describes each merged region as data the `opcode-convergent`
 * mechanism runs: a sequence of slots, each naming the instruction the taken group runs and the
 * one the not-taken group runs (or null). A slot with both is a merged instruction: one issue, each
 * lane with its own path's operands (§4.5). The program itself is not rewritten — the thesis's
 * extended ISA (two operand sets per instruction) is this table.
 */
import { buildCfg } from '../cfg/buildCfg.ts';
import { dominates } from '../cfg/dominance.ts';
import { ipdomOf } from '../cfg/ipdom.ts';
import { VIRTUAL_EXIT, type ProgramCfg } from '../cfg/programCfg.ts';
import { isLaneLocalDataOp, type Op } from '../isa/op.ts';
import type { Program } from '../isa/program.ts';
import { lcs } from './lcs.ts';

/**
 * What one group does in a slot: run the instruction at `pc`, or (`sub`) run the code from the
 * branch at `from` up to its IPDOM `to` as an ordinary SIMT-stack region — a nested structure
 * that is not merged (§4.9: only one level is).
 */
export type Unit =
  | { readonly kind: 'pc'; readonly pc: number }
  | { readonly kind: 'sub'; readonly from: number; readonly to: number };

/** One row of a merged region. Invariant: at least one side is set; both are `pc` units when both are set. */
export interface Slot {
  readonly taken: Unit | null;
  readonly notTaken: Unit | null;
}

/** A merged two-way structure, keyed by the PC of the conditional branch that heads it. */
export interface MergedRegion {
  /** PC of the conditional BRA at the end of the IDOM block (block A of Fig. 34). */
  readonly branch: number;
  /** First PC of the taken side and of the not-taken (fall-through) side. */
  readonly takenStart: number;
  readonly notTakenStart: number;
  /** The IPDOM of the branch (block D), where both groups reconverge. */
  readonly ipdom: number;
  readonly slots: readonly Slot[];
  /** Merged slots: instructions issued once instead of twice. */
  readonly saved: number;
  /** Units of each side (instructions, and nested structures counted as one unit each). */
  readonly takenLength: number;
  readonly notTakenLength: number;
}

/**
 * `align` (default, SEMANTICS §3.8): the LCS aligns memory opcodes too (Fig. 37's table does) and
 * merging then leaves aligned memory pairs as two one-sided slots (§5.1: "not merge memory
 * instructions"). `skip`: memory opcodes never match in the LCS, so the alignment maximises the
 * instructions that are actually merged. Both readings are plausible; `align` follows the thesis.
 */
export type MemoryAlignment = 'align' | 'skip';

export interface OpcodeConvergentOptions {
  readonly memory: MemoryAlignment;
}

/** The pass's result: the regions chosen (at most one per nest, §4.9) and every candidate found. */
export interface OpcodeConvergentPlan {
  /** Chosen regions by branch PC. */
  readonly regions: ReadonlyMap<number, MergedRegion>;
  /** Every two-way structure whose sides could be laid out, chosen or not, by branch PC. */
  readonly candidates: ReadonlyMap<number, MergedRegion>;
}

/** Instructions that touch memory: aligned by the LCS but never merged (§5.1). */
export const isMemoryOp = (op: Op): boolean =>
  op.kind === 'load' ||
  op.kind === 'store' ||
  op.kind === 'atomic' ||
  (op.kind === 'opaque' && op.havoc);

/**
 * Instructions that may run merged: data instructions whose effect on a lane reads only that
 * lane's operands. Not memory (§5.1), not control or barrier instructions (they move lanes), and
 * not VOTE (its result depends on which lanes are active — a **decision**).
 */
export const isMergeableOp = isLaneLocalDataOp;

/** The opcode a merged instruction shares: mnemonic and modifiers (`ISETP.GE.AND`), not operands or guard. */
export const opcodeKey = (program: Program, pc: number): string => {
  const ins = program.instructions[pc]!;
  return [ins.opcode, ...ins.modifiers].join('.');
};

/**
 * The units a group runs from `start` until it reaches `ipdom`, or null when that is not a
 * single-entry straight walk: every block on it must be dominated by the side's first block (no
 * entry from elsewhere, no loop back out of the side); a block ending in anything but a data
 * instruction or an unconditional BRA becomes a `sub` unit up to its own IPDOM.
 */
function sideUnits(
  cfg: ProgramCfg,
  ops: readonly Op[],
  start: number,
  ipdom: number,
): Unit[] | null {
  const first = cfg.blockOf[start]!;
  const units: Unit[] = [];
  const seen = new Set<number>();
  let pc = start;
  while (pc !== ipdom) {
    const b = cfg.blockOf[pc];
    if (b === undefined || b < 0 || seen.has(b) || !dominates(cfg, first, b)) return null;
    seen.add(b);
    const block = cfg.blocks[b]!;
    for (let p = block.start; p < block.end - 1; p++) units.push({ kind: 'pc', pc: p });
    const last = block.end - 1;
    const op = ops[last]!;
    const plainBra =
      op.kind === 'bra' && op.cond === 'none' && op.guard === null && op.pred2 === null;
    const straight = block.succs.length === 1 && block.succs[0] !== VIRTUAL_EXIT;
    if (straight && (plainBra || isMergeableOp(op) || isMemoryOp(op) || op.kind === 'nop')) {
      units.push({ kind: 'pc', pc: last });
      pc = cfg.blocks[block.succs[0]!]!.start;
      continue;
    }
    const to = ipdomOf(cfg, last);
    if (to === VIRTUAL_EXIT) return null;
    units.push({ kind: 'sub', from: last, to });
    pc = to;
  }
  return units;
}

/** The two-way structure headed by the branch at `pc`, laid out and aligned, or null. */
function regionAt(
  cfg: ProgramCfg,
  program: Program,
  ops: readonly Op[],
  pc: number,
  options: OpcodeConvergentOptions,
): MergedRegion | null {
  const op = ops[pc]!;
  if (op.kind !== 'bra' || op.cond !== 'none' || (op.guard === null && op.pred2 === null))
    return null;
  const a = cfg.blocks[cfg.blockOf[pc]!]!;
  if (a.end - 1 !== pc || a.succs.length !== 2) return null;
  const ipdom = ipdomOf(cfg, pc);
  if (ipdom === VIRTUAL_EXIT) return null;
  const takenStart = op.target;
  const notTakenStart = pc + 1;
  // seed 002 §4.4: two blocks may diverge "if they share the same IDOM and the same IPDOM" —
  // both sides start in blocks whose IDOM is the branch's block, and neither side is empty.
  const sides = [takenStart, notTakenStart].map((s) => cfg.blocks[cfg.blockOf[s]!]!);
  if (sides.some((s) => s.start === ipdom || s.idom !== a.id)) return null;
  const t = sideUnits(cfg, ops, takenStart, ipdom);
  const n = sideUnits(cfg, ops, notTakenStart, ipdom);
  if (!t || !n) return null;
  const key = (u: Unit): string | null => {
    if (u.kind !== 'pc') return null;
    const o = ops[u.pc]!;
    if (isMergeableOp(o)) return opcodeKey(program, u.pc);
    if (isMemoryOp(o) && options.memory === 'align') return opcodeKey(program, u.pc);
    return null;
  };
  const tk = t.map(key);
  const nk = n.map(key);
  const { pairs } = lcs(tk, nk, (x, y) => x !== null && x === y);
  // Slots in order: between two matched pairs, the taken side's own units, then the not-taken
  // side's (a **decision**, as simt-stack's default taken-first; Fig. 42 runs one side's
  // leftovers before the other's too). Matched memory pairs stay two one-sided slots (§5.1).
  const slots: Slot[] = [];
  let i = 0;
  let j = 0;
  let saved = 0;
  const flush = (ti: number, nj: number) => {
    for (; i < ti; i++) slots.push({ taken: t[i]!, notTaken: null });
    for (; j < nj; j++) slots.push({ taken: null, notTaken: n[j]! });
  };
  for (const [pi, pj] of pairs) {
    flush(pi, pj);
    const tu = t[pi]!;
    if (tu.kind === 'pc' && isMergeableOp(ops[tu.pc]!)) {
      slots.push({ taken: tu, notTaken: n[pj]! });
      saved++;
    } else {
      slots.push({ taken: tu, notTaken: null }, { taken: null, notTaken: n[pj]! });
    }
    i = pi + 1;
    j = pj + 1;
  }
  flush(t.length, n.length);
  return {
    branch: pc,
    takenStart,
    notTakenStart,
    ipdom,
    slots,
    saved,
    takenLength: t.length,
    notTakenLength: n.length,
  };
}

/** Blocks between a region's branch and its IPDOM: reachable from either side without passing it. */
function bodyOf(cfg: ProgramCfg, r: MergedRegion): Set<number> {
  const stop = cfg.blockOf[r.ipdom]!;
  const body = new Set<number>();
  const work = [cfg.blockOf[r.takenStart]!, cfg.blockOf[r.notTakenStart]!];
  while (work.length > 0) {
    const b = work.pop()!;
    if (b === stop || b === VIRTUAL_EXIT || body.has(b)) continue;
    body.add(b);
    work.push(...cfg.blocks[b]!.succs);
  }
  return body;
}

/**
 * The pass. Candidates are every conditional BRA heading a two-way structure whose sides lay out;
 * of nested candidates only one level is merged (seed 002 §4.9: "we decided not to merge
 * instructions from more than two paths"): a region is kept when it saves at least as many
 * instructions as the best choice among the regions nested in it ("the compiler prioritize
 * merging at the outer level" on a tie), applied bottom-up. Regions that save nothing are dropped.
 */
export function opcodeConvergentPlan(
  program: Program,
  ops: readonly Op[],
  options: OpcodeConvergentOptions = { memory: 'align' },
  cfg: ProgramCfg = buildCfg(program),
): OpcodeConvergentPlan {
  const candidates = new Map<number, MergedRegion>();
  for (let pc = 0; pc < ops.length; pc++) {
    const r = regionAt(cfg, program, ops, pc, options);
    if (r) candidates.set(pc, r);
  }
  const list = [...candidates.values()];
  const bodies = new Map(list.map((r) => [r.branch, bodyOf(cfg, r)]));
  // Parent = the innermost candidate whose body holds this one's branch block.
  const parent = new Map<number, number | null>();
  for (const r of list) {
    const b = cfg.blockOf[r.branch]!;
    let best: number | null = null;
    for (const o of list) {
      if (o === r || !bodies.get(o.branch)!.has(b)) continue;
      if (best === null || bodies.get(o.branch)!.size < bodies.get(best)!.size) best = o.branch;
    }
    parent.set(r.branch, best);
  }
  const children = new Map<number | null, number[]>();
  for (const r of list) {
    const p = parent.get(r.branch)!;
    children.set(p, [...(children.get(p) ?? []), r.branch]);
  }
  const chosen = new Map<number, MergedRegion>();
  /** Best saving within region `b`'s nest, adding its choice to `pick`. */
  const best = (b: number, pick: MergedRegion[]): number => {
    const inner: MergedRegion[] = [];
    const innerSaved = (children.get(b) ?? []).reduce((s, c) => s + best(c, inner), 0);
    const r = candidates.get(b)!;
    if (r.saved >= innerSaved) {
      pick.push(r);
      return r.saved;
    }
    pick.push(...inner);
    return innerSaved;
  };
  const picked: MergedRegion[] = [];
  for (const root of children.get(null) ?? []) best(root, picked);
  for (const r of picked) if (r.saved > 0) chosen.set(r.branch, r);
  return { regions: chosen, candidates };
}
