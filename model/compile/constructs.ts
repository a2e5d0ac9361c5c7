/**
 * Regions at the end of each *construct* of structured code (maximal reconvergence, issue 11):
 * lanes that took the same path through an if/else, a switch or a loop iteration run together
 * again at its end, and a lane elected in one iteration never waits for lanes of another
 * (the Vulkan/WebGPU "maximal reconvergence" rule, which NVIDIA's compiler meets).
 *
 * **Decision** (docs/semantics.md, "Compile passes"): constructs are read off the *layout*, as
 * every structured code generator lays them out (and as the listings of `../shared/sass` and the
 * generators of this project do): a loop is a backward edge `latch → header` and spans
 * `[header, latch]`, its merge is `latch + 1`; an if is a forward conditional branch `p → T`, with
 * an else part when `T - 1` is an unconditional forward `BRA E` within the enclosing construct and
 * nothing else in the then part jumps to `T` (join `E`), else join `T`; a BRX joins where its case
 * bodies jump to. Edges that leave a construct other than at its join — EXIT, RET, break (out of
 * the loop), continue (to the loop's continue block) — are *escapes*: the lanes taking them
 * BREAK out (`emit.ts`), so the join waits only for lanes still on the construct's paths. That is
 * where this differs from the IPDOM, which an escape moves (simt-stack-*-escape cases).
 *
 * A function whose layout is not structured (loops that cross, or a loop entered other than at its
 * header) gets null: `regions.ts` then falls back to IPDOM placement.
 */
import { controlOf } from '../isa/control.ts';
import type { Program } from '../isa/program.ts';
import { EXIT_NODE, edgesFrom, type FnGraph } from './graph.ts';

/** A loop of the layout: a backward edge `latch → header`. */
export interface LayoutLoop {
  readonly header: number;
  readonly latch: number;
}

/** A construct's region, before spin-loop placement (see `regions.ts`). */
export interface Construct {
  readonly kind: 'construct' | 'loop' | 'iteration';
  /** BSSY position: the branch (if/switch) or the loop header (loop, iteration). */
  readonly entry: number;
  readonly join: number;
  readonly body: ReadonlySet<number>;
  readonly branches: readonly number[];
  readonly loop: LayoutLoop | null;
}

const isUnconditionalBra = (g: FnGraph, pc: number): number | null => {
  const c = controlOf(g.program, pc);
  if (c.kind !== 'branch' || c.conditional || c.targets.length !== 1) return null;
  return c.targets[0]!;
};

/** Layout loops, innermost last among equals; null when they cross or have a side entry. */
export function layoutLoops(g: FnGraph): LayoutLoop[] | null {
  const loops: LayoutLoop[] = [];
  // Unreachable back edges count too: a loop whose every iteration breaks is still a loop
  // construct (its latch is dead code, its merge is where the breaks go).
  for (let pc = g.fn.start; pc < g.fn.end; pc++) {
    for (const e of edgesFrom(g, pc))
      if (e.kind === 'taken' && e.to !== EXIT_NODE && e.to <= pc)
        if (!loops.some((l) => l.header === e.to && l.latch === pc))
          loops.push({ header: e.to, latch: pc });
  }
  for (const a of loops) {
    for (const b of loops) {
      const nested =
        (a.header >= b.header && a.latch <= b.latch) ||
        (b.header >= a.header && b.latch <= a.latch);
      const disjoint = a.latch < b.header || b.latch < a.header;
      if (!nested && !disjoint) return null;
    }
    // Single entry: nothing outside [header, latch] jumps past the header into it.
    for (let v = a.header + 1; v <= a.latch; v++)
      for (const u of g.preds[v - g.fn.start]!)
        if (g.reachable.has(u) && (u < a.header || u > a.latch)) return null;
  }
  return loops;
}

/** Divergent branches: conditional direct branches (not .DIV/.CONV) and BRX with declared targets. */
function divergent(g: FnGraph, pc: number): boolean {
  const c = controlOf(g.program, pc);
  const ins = g.program.instructions[pc]!;
  const uniform = ins.modifiers.includes('DIV') || ins.modifiers.includes('CONV');
  if (c.kind === 'branch') return c.conditional && !uniform;
  return c.kind === 'indirect' && !c.unknownTargets && c.targets.length > 1;
}

/**
 * The function at `target` (or one it calls) has a conditional branch, BRX or conditional
 * RET/EXIT: its lanes may come back at different times.
 */
function calleeMayDiverge(program: Program, target: number, seen: Set<number>): boolean {
  const fi = program.functions.findIndex((f) => target >= f.start && target < f.end);
  if (fi === -1 || seen.has(fi)) return false;
  seen.add(fi);
  const fn = program.functions[fi]!;
  for (let pc = fn.start; pc < fn.end; pc++) {
    const c = controlOf(program, pc);
    if (c.kind === 'call' && c.targets.some((t) => calleeMayDiverge(program, t, seen))) return true;
    if (c.kind !== 'none' && c.kind !== 'call' && c.conditional) return true;
    if (c.kind === 'indirect') return true;
  }
  return false;
}

/** PCs reachable from `from` inside `[lo, hi)` without entering `stop`. */
function reachIn(
  g: FnGraph,
  from: readonly number[],
  stop: number,
  lo: number,
  hi: number,
): Set<number> {
  const seen = new Set<number>();
  const work = [...from];
  while (work.length > 0) {
    const pc = work.pop()!;
    if (pc === stop || pc < lo || pc >= hi || seen.has(pc)) continue;
    seen.add(pc);
    for (const e of edgesFrom(g, pc)) if (e.to !== EXIT_NODE) work.push(e.to);
  }
  return seen;
}

/** The constructs of one function, or null when its layout is not structured. */
export function constructs(g: FnGraph): { constructs: Construct[]; notes: string[] } | null {
  const loops = layoutLoops(g);
  if (loops === null) return null;
  const notes: string[] = [];
  const out: Construct[] = [];
  const innermost = (pc: number): LayoutLoop | null =>
    loops
      .filter((l) => l.header <= pc && pc <= l.latch)
      .sort((a, b) => a.latch - a.header - (b.latch - b.header) || b.header - a.header)[0] ?? null;
  /**
   * Structured escapes from `u`: a break to the merge of a loop holding `u`, or a continue to a
   * later point of such a loop (EXIT and RET go to the virtual exit). Any other jump out of a
   * construct is a goto: the layout is not structured.
   */
  const escapeOk = (u: number, v: number): boolean =>
    loops.some(
      (l) => l.header <= u && u <= l.latch && (v === l.latch + 1 || (v > u && v <= l.latch)),
    );
  // If/switch constructs, outermost first (layout order), each bounded by the enclosing one.
  const open: { join: number; from: number }[] = [];
  for (let p = g.fn.start; p < g.fn.end; p++) {
    if (!g.reachable.has(p) || !divergent(g, p)) continue;
    while (open.length > 0 && open[open.length - 1]!.join <= p) open.pop();
    const loop = innermost(p);
    const bounds = [g.fn.end, ...(loop ? [loop.latch] : [])];
    for (const o of open) if (o.from < p) bounds.push(o.join);
    const bound = Math.min(...bounds);
    const c = controlOf(g.program, p);
    const targets = c.targets;
    // Loop control (an exit or a back edge) is served by the loop's own region.
    if (targets.some((t) => t <= p || (loop !== null && t > loop.latch))) continue;
    // Beyond the enclosing construct: an escape (a conditional break/continue), no region.
    if (targets.some((t) => t > bound)) {
      if (targets.some((t) => t > bound && !escapeOk(p, t))) return null;
      continue;
    }
    let join: number | null;
    if (c.kind === 'branch') {
      const t = targets[0]!;
      if (t === p + 1) continue;
      const e = isUnconditionalBra(g, t - 1);
      const intoElse = (): boolean => {
        for (let u = p + 1; u < t - 1; u++)
          if (edgesFrom(g, u).some((x) => x.to === t)) return true;
        return false;
      };
      join = e !== null && e > t && e <= bound && !intoElse() ? e : t;
    } else {
      // BRX: the case bodies end in `BRA end` (the last one falls through to it, and is the end
      // itself when empty); failing that, the IPDOM when it lies inside the enclosing construct.
      const sorted = [...new Set(targets)].sort((a, b) => a - b);
      const ends = sorted
        .slice(1)
        .map((t) => isUnconditionalBra(g, t - 1))
        .filter((e): e is number => e !== null && e >= sorted[sorted.length - 1]! && e <= bound);
      const q = g.ipdom(p);
      join =
        ends.length > 0
          ? Math.max(...ends)
          : q !== null && q !== EXIT_NODE && q > p && q <= bound
            ? q
            : null;
      if (join === null) {
        notes.push(`${g.fn.name}: BRX at pc ${p}: no common end of its cases; no region`);
        continue;
      }
    }
    const body = reachIn(
      g,
      edgesFrom(g, p).map((e) => e.to),
      join,
      p + 1,
      join,
    );
    for (const u of body)
      for (const e of edgesFrom(g, u))
        if (e.to !== EXIT_NODE && e.to !== join && !body.has(e.to) && !escapeOk(u, e.to))
          return null;
    open.push({ join, from: p });
    out.push({ kind: 'construct', entry: p, join, body, branches: [p], loop });
  }
  // Calls: the lanes that call together run on together after the return, however the callee
  // diverged and returned (BSSY before the CALL, BSYNC where it returns; the callee's own
  // regions take registers above this one, `compileTuring.ts`).
  for (let pc = g.fn.start; pc + 1 < g.fn.end; pc++)
    if (
      g.reachable.has(pc) &&
      controlOf(g.program, pc).kind === 'call' &&
      controlOf(g.program, pc).targets.some((t) => calleeMayDiverge(g.program, t, new Set()))
    )
      out.push({
        kind: 'construct',
        entry: pc,
        join: pc + 1,
        body: new Set(),
        branches: [pc],
        loop: innermost(pc),
      });
  // Loops holding divergence: BSSY before the header (once), BSYNC at the merge.
  for (const l of loops) {
    const merge = l.latch + 1;
    if (merge >= g.fn.end) continue;
    const inside: number[] = [];
    for (let pc = l.header; pc <= l.latch; pc++)
      if (g.reachable.has(pc) && divergent(g, pc)) inside.push(pc);
    if (inside.length === 0) continue;
    const body = reachIn(g, [l.header], merge, l.header, merge);
    out.push({ kind: 'loop', entry: l.header, join: merge, body, branches: inside, loop: l });
  }
  // Continue blocks: an escape from an if into its own loop, past the if's end, is a continue;
  // the lanes of one iteration then meet at that block before the next one (BSSY every iteration).
  for (const l of loops) {
    const conts = new Set<number>();
    for (const k of out) {
      if (k.kind !== 'construct' || k.loop !== l) continue;
      for (const u of k.body)
        for (const e of edgesFrom(g, u))
          if (e.to > k.join && e.to > l.header && e.to <= l.latch && !k.body.has(e.to))
            conts.add(e.to);
    }
    if (conts.size === 0) continue;
    const c = Math.max(...conts);
    const body = reachIn(g, [l.header], c, l.header, c);
    out.push({ kind: 'iteration', entry: l.header, join: c, body, branches: [...conts], loop: l });
  }
  return { constructs: out, notes };
}
