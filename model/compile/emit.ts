/**
 * Lays out the compiled program: every source instruction keeps its place and is preceded by a
 * *pre-sequence* of groups — the BSYNCs of the regions joining there (innermost first, each with
 * its BMOV restore), then the BSSYs of the regions entering there (outermost first, each after its
 * BMOV spill), then a YIELD at a spin-loop header. An edge u → v enters v's pre-sequence at the
 * first group it needs: a BSYNC when u is inside that region, a BSSY when u is outside it, a YIELD
 * always. Invariant checked here: what an edge needs is a suffix of the sequence (else the regions
 * involved are reported as conflicts and the caller drops one). There is one BSYNC per region, so
 * on Hanoi the lanes reconverged by it resume at the one instruction after it — the BSSY target
 * (SEMANTICS §2 BSSY row: the instruction right after the BSYNC, as in every real listing).
 *
 * Lanes that leave a region by an edge that is neither into it nor to its join BREAK out of it
 * first (seed 000 §VI-B): before a branch, a BREAK with the branch's own guard and second
 * predicate (Fig. 6's `BREAK !P1, B0` before `@!P1 BRA D`); on a fall-through, an unconditional
 * BREAK placed after the instruction, which only the falling-through lanes reach.
 */
import { controlOf, secondPredicate } from '../isa/control.ts';
import type { Instruction, Label, Operand, Program } from '../isa/program.ts';
import { EXIT_NODE, edgesFrom, type FnGraph } from './graph.ts';
import type { Placed } from './allocate.ts';
import { inRegion } from './regions.ts';

/** What a function's layout needs: its graph, placed regions and YIELD headers. */
export interface FunctionPlan {
  readonly graph: FnGraph;
  readonly placed: readonly Placed[];
  readonly yields: ReadonlySet<number>;
}

export interface Emitted {
  readonly program: Program;
  /** `origin[newPc]`: the source PC, or null for an inserted instruction. */
  readonly origin: readonly (number | null)[];
}

type Group =
  | { readonly kind: 'bsync'; readonly p: Placed }
  | { readonly kind: 'bssy'; readonly p: Placed }
  | { readonly kind: 'yield' };

const OUTSIDE = -2;

/** One instruction to emit, with symbolic targets. */
interface Slot {
  readonly ins: Instruction;
  readonly origin: number | null;
  /** Operand index → symbolic position key. */
  readonly targets: ReadonlyMap<number, string>;
}

const breg = (index: number): Operand => ({ kind: 'breg', index });
const reg = (index: number): Operand => ({ kind: 'reg', index, reuse: false });
const make = (
  opcode: string,
  operands: Operand[],
  extra: Partial<Instruction> = {},
): Instruction => ({
  offset: 0,
  guard: null,
  opcode: opcode.split('.')[0]!,
  modifiers: opcode.split('.').slice(1),
  operands,
  ...extra,
});

function groupsAt(plan: FunctionPlan, v: number): Group[] {
  const joins = plan.placed.filter((p) => p.region.join === v).sort((a, b) => b.depth - a.depth);
  const entries = plan.placed.filter((p) => p.region.entry === v).sort((a, b) => a.depth - b.depth);
  return [
    ...joins.map((p) => ({ kind: 'bsync' as const, p })),
    ...entries.map((p) => ({ kind: 'bssy' as const, p })),
    ...(plan.yields.has(v) ? [{ kind: 'yield' as const }] : []),
  ];
}

const needs = (g: Group, u: number): boolean =>
  g.kind === 'yield'
    ? true
    : g.kind === 'bsync'
      ? inRegion(g.p.region, u)
      : !g.p.region.body.has(u);

/** Regions a lane leaves without reaching their join, on the edge u → v. */
const breaksOn = (plan: FunctionPlan, u: number, v: number): Placed[] =>
  v === EXIT_NODE
    ? []
    : plan.placed
        .filter((p) => inRegion(p.region, u) && !p.region.body.has(v) && v !== p.region.join)
        .sort((a, b) => b.depth - a.depth);

/**
 * Emits the program. Returns the conflicting regions (by id) instead when some edge's needs are
 * not a suffix of its target's pre-sequence, or a multi-target branch would need a BREAK.
 */
export function emit(
  program: Program,
  plans: readonly FunctionPlan[],
  spill: { readonly clear: boolean } = { clear: false },
): { ok: true; value: Emitted } | { ok: false; conflicts: number[] } {
  const conflicts = new Set<number>();
  const slots: Slot[][] = [];
  /** Symbolic position → (function index, index in the function's slots). */
  const positionKeys = new Map<string, readonly [number, number]>();
  const groupCache = new Map<number, Group[]>();
  const planOf = (pc: number): FunctionPlan | undefined =>
    plans.find((p) => pc >= p.graph.fn.start && pc < p.graph.fn.end);
  const groups = (pc: number): Group[] => {
    let gs = groupCache.get(pc);
    if (gs === undefined) {
      const plan = planOf(pc);
      gs = plan ? groupsAt(plan, pc) : [];
      groupCache.set(pc, gs);
    }
    return gs;
  };
  /** The key of the position an edge u → v enters (u = OUTSIDE for roots, calls, code addresses). */
  const entryKey = (u: number, v: number): string => {
    if (v >= program.instructions.length) return 'end';
    const gs = groups(v);
    const first = gs.findIndex((g) => needs(g, u));
    const k = first === -1 ? gs.length : first;
    for (let j = k + 1; j < gs.length; j++) {
      const g = gs[j]!;
      if (!needs(g, u) && g.kind !== 'yield') {
        const a = gs[k]!;
        // Drop the deeper of the two regions (the inner one).
        conflicts.add(a.kind !== 'yield' && a.p.depth > g.p.depth ? a.p.id : g.p.id);
      }
    }
    return `pre:${v}:${k}`;
  };

  program.functions.forEach((fn, fi) => {
    const plan = plans[fi]!;
    const out: Slot[] = [];
    slots.push(out);
    for (let v = fn.start; v < fn.end; v++) {
      const gs = groups(v);
      gs.forEach((g, k) => {
        const mark = (ins: Instruction, targets = new Map<number, string>()): void => {
          out.push({ ins, origin: null, targets });
        };
        positionKeys.set(`pre:${v}:${k}`, [fi, out.length]);
        if (g.kind === 'yield') mark(make('YIELD', []));
        else if (g.kind === 'bsync') {
          mark(make('BSYNC', [breg(g.p.reg)]));
          positionKeys.set(`after:${g.p.id}`, [fi, out.length]);
          if (g.p.spill !== null) mark(make('BMOV.32', [breg(g.p.reg), reg(g.p.spill)]));
        } else {
          if (g.p.spill !== null)
            mark(make(spill.clear ? 'BMOV.32.CLEAR' : 'BMOV.32', [reg(g.p.spill), breg(g.p.reg)]));
          mark(
            make('BSSY', [breg(g.p.reg), { kind: 'target', pc: -1 }]),
            new Map([[1, `after:${g.p.id}`]]),
          );
        }
      });
      positionKeys.set(`pre:${v}:${gs.length}`, [fi, out.length]);
      const ins = program.instructions[v]!;
      const edges = edgesFrom(plan.graph, v);
      const taken = edges.filter((e) => e.kind === 'taken' && e.to !== EXIT_NODE);
      // BREAKs of the taken edge, with the branch's own predicates.
      for (const e of taken) {
        const bs = breaksOn(plan, v, e.to);
        if (bs.length > 0 && taken.length > 1) for (const b of bs) conflicts.add(b.id);
        const second = secondPredicate(ins);
        for (const b of bs)
          out.push({
            ins: make(
              'BREAK',
              [...(second ? [{ kind: 'pred' as const, pred: second }] : []), breg(b.reg)],
              {
                guard: ins.guard,
              },
            ),
            origin: null,
            targets: new Map(),
          });
      }
      // A RET leaves every region of the function it is in (a `return` inside an if of a called
      // function, issue 11): unlike EXIT, a returning lane stays in the barriers, so it BREAKs.
      if (controlOf(program, v).kind === 'return')
        for (const b of plan.placed
          .filter((p) => inRegion(p.region, v))
          .sort((a, b) => b.depth - a.depth)) {
          const second = secondPredicate(ins);
          out.push({
            ins: make(
              'BREAK',
              [...(second ? [{ kind: 'pred' as const, pred: second }] : []), breg(b.reg)],
              { guard: ins.guard },
            ),
            origin: null,
            targets: new Map(),
          });
        }
      // The instruction itself, its targets retargeted.
      const targets = new Map<number, string>();
      ins.operands.forEach((o, i) => {
        if (o.kind !== 'target') return;
        const inside = o.pc >= fn.start && o.pc < fn.end;
        const isBranchTarget = taken.some((e) => e.to === o.pc) && inside;
        targets.set(i, isBranchTarget ? entryKey(v, o.pc) : entryKey(OUTSIDE, o.pc));
      });
      out.push({ ins, origin: v, targets });
      // Fall-through fix-up: BREAKs, then a jump into the pre-sequence if it does not start there.
      const fall = edges.find((e) => e.kind === 'fall' && e.to !== EXIT_NODE);
      if (fall !== undefined) {
        for (const b of breaksOn(plan, v, fall.to))
          out.push({ ins: make('BREAK', [breg(b.reg)]), origin: null, targets: new Map() });
        const key = entryKey(v, fall.to);
        if (key !== `pre:${fall.to}:0`)
          out.push({
            ins: make('BRA', [{ kind: 'target', pc: -1 }]),
            origin: null,
            targets: new Map([[0, key]]),
          });
      }
    }
    positionKeys.set(`fnend:${fi}`, [fi, out.length]);
  });
  if (conflicts.size > 0) return { ok: false, conflicts: [...conflicts] };
  return { ok: true, value: assemble(program, slots, positionKeys) };
}

/** Resolves symbolic targets to PCs, sets offsets and labels. */
function assemble(
  program: Program,
  slots: readonly Slot[][],
  positionKeys: ReadonlyMap<string, readonly [number, number]>,
): Emitted {
  const starts: number[] = [];
  let total = 0;
  for (const s of slots) {
    starts.push(total);
    total += s.length;
  }
  const pcOf = (key: string): number => {
    if (key === 'end') return total;
    const at = positionKeys.get(key);
    if (at === undefined) throw new Error(`compile: unresolved position ${key}`);
    return starts[at[0]]! + at[1];
  };
  const taken = new Set(program.labels.map((l) => l.name));
  const labels: Label[] = program.labels.map((l) => ({
    name: l.name,
    pc: l.pc >= program.instructions.length ? total : pcOf(`pre:${l.pc}:0`),
  }));
  const labelled = new Set(labels.map((l) => l.pc));
  let fresh = 0;
  const labelAt = (pc: number): void => {
    if (labelled.has(pc) || pc >= total) return;
    let name: string;
    do name = `.L_wc_${fresh++}`;
    while (taken.has(name));
    taken.add(name);
    labels.push({ name, pc });
    labelled.add(pc);
  };
  const instructions: Instruction[] = [];
  const origin: (number | null)[] = [];
  slots.forEach((s) => {
    s.forEach((slot, i) => {
      const operands = slot.ins.operands.map((o, j): Operand => {
        const key = slot.targets.get(j);
        if (key === undefined) return o;
        const pc = pcOf(key);
        // Inserted jumps and BSSY targets get a label so the listing reads like nvdisasm's.
        if (slot.origin === null || !key.endsWith(':0')) labelAt(pc);
        return { kind: 'target', pc };
      });
      instructions.push({ ...slot.ins, operands, offset: i * 16 });
      origin.push(slot.origin);
    });
  });
  const functions = program.functions.map((f, i) => ({
    name: f.name,
    start: starts[i]!,
    end: starts[i]! + slots[i]!.length,
  }));
  labels.sort((a, b) => a.pc - b.pc);
  return { program: { functions, instructions, labels }, origin };
}
