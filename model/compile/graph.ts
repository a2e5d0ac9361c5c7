/**
 * The instruction-level control-flow graph of one function, as the compile passes need it: every
 * PC is a node, with its outgoing edges labelled `taken` (a branch operand), `fall` (to pc+1) or
 * `exit` (to the virtual exit), and immediate post-dominators computed on the *exit-relaxed*
 * graph, where a conditional EXIT/KILL/trap keeps only its fall-through (exited lanes leave every
 * barrier, SEMANTICS §2 `EXIT`, so a path that exits imposes nothing on a reconvergence point).
 * Natural loops come from `buildCfg` (model/cfg), mapped from blocks to PCs.
 */
import { buildCfg } from '../cfg/buildCfg.ts';
import { immediateDominators, reversed, type LocalGraph } from '../cfg/dominators.ts';
import { controlOf } from '../isa/control.ts';
import type { FunctionInfo, Program } from '../isa/program.ts';

/** The virtual exit, as a PC. */
export const EXIT_NODE = -1;

/** One outgoing edge of an instruction. `to` is a PC of the function or `EXIT_NODE`. */
export interface Edge {
  readonly kind: 'taken' | 'fall' | 'exit';
  readonly to: number;
}

/** A natural loop, as PCs. */
export interface PcLoop {
  readonly header: number;
  readonly body: ReadonlySet<number>;
}

/** The graph of one function. Invariant: every `to` is in `[fn.start, fn.end)` or `EXIT_NODE`. */
export interface FnGraph {
  readonly program: Program;
  readonly fn: FunctionInfo;
  readonly fnIndex: number;
  /** `succs[pc - fn.start]`. */
  readonly succs: readonly (readonly Edge[])[];
  /** `preds[pc - fn.start]`: PCs with an edge to pc. */
  readonly preds: readonly (readonly number[])[];
  /** PCs reachable from the function's roots (its start and in-function CALL targets). */
  readonly reachable: ReadonlySet<number>;
  /** Natural loops, in `buildCfg` order (outer loops before the loops they contain is not promised). */
  readonly loops: readonly PcLoop[];
  /** PCs that lie in an irreducible cycle. */
  readonly irreducible: ReadonlySet<number>;
  /**
   * Immediate post-dominator of `pc` in the exit-relaxed graph: a PC, `EXIT_NODE`, or null when
   * no path from `pc` reaches the exit (an infinite loop).
   */
  ipdom(pc: number): number | null;
}

/** Edges of the instruction at `pc` (SEMANTICS §2; `controlOf` is the static view). */
function edgesOf(program: Program, fn: FunctionInfo, pc: number): Edge[] {
  const c = controlOf(program, pc);
  const inFn = (t: number): boolean => t >= fn.start && t < fn.end;
  const next: Edge = { kind: 'fall', to: pc + 1 < fn.end ? pc + 1 : EXIT_NODE };
  const out: Edge[] = [];
  switch (c.kind) {
    case 'none':
    case 'call':
      return [next];
    case 'branch':
    case 'indirect':
      for (const t of c.targets) out.push({ kind: 'taken', to: inFn(t) ? t : EXIT_NODE });
      if (c.unknownTargets) out.push({ kind: 'exit', to: EXIT_NODE });
      if (c.conditional) out.push(next);
      return out;
    case 'return':
    case 'exit':
    case 'trap':
      out.push({ kind: 'exit', to: EXIT_NODE });
      if (c.conditional) out.push(next);
      return out;
  }
}

/** Builds the instruction graph of function `fnIndex`. */
export function functionGraph(program: Program, fnIndex: number): FnGraph {
  const fn = program.functions[fnIndex]!;
  const n = fn.end - fn.start;
  const succs = Array.from({ length: n }, (_, i) => edgesOf(program, fn, fn.start + i));
  const preds: number[][] = Array.from({ length: n }, () => []);
  succs.forEach((es, i) => {
    for (const e of es) if (e.to !== EXIT_NODE) preds[e.to - fn.start]!.push(fn.start + i);
  });

  // Exit-relaxed local graph: nodes 0..n-1, n = virtual exit. Only EXIT/KILL/trap edges are
  // relaxed: a lane that RETurns early lives on in the caller and must not be waited for.
  // An unconditional EXIT that is not the function's last one is an early exit too (issue 11,
  // `hanoi-exit-not-relaxed`: `if (c) { return; }` in main is `@P BRA L; … L: EXIT`): code from
  // which every way on ends in an early exit is *dead*, and a node with another way on drops its
  // edges into dead code, so the lanes going there impose nothing on the reconvergence point.
  const uncondExit = (i: number): boolean => {
    const c = controlOf(program, fn.start + i);
    return (c.kind === 'exit' || c.kind === 'trap') && !c.conditional;
  };
  /** An edge to the virtual exit ends the function normally: RET, falling off, the last EXIT. */
  const normalEnd = (i: number): boolean => {
    const k = controlOf(program, fn.start + i).kind;
    return (k !== 'exit' && k !== 'trap') || i === last;
  };
  let last = -1;
  for (let i = 0; i < n; i++) if (uncondExit(i)) last = i;
  const alive = new Array<boolean>(n).fill(false);
  for (let changed = true; changed;) {
    changed = false;
    for (let i = n - 1; i >= 0; i--) {
      if (alive[i]) continue;
      const early = uncondExit(i) && i !== last;
      const ok =
        !early &&
        succs[i]!.some((e) => (e.to === EXIT_NODE ? normalEnd(i) : alive[e.to - fn.start]));
      if (ok) {
        alive[i] = true;
        changed = true;
      }
    }
  }
  const relaxed = succs.map((es, i) => {
    const kind = controlOf(program, fn.start + i).kind;
    const exits = kind === 'exit' || kind === 'trap';
    const real = es.filter((e) => e.to !== EXIT_NODE);
    let keep = real.length > 0 && exits ? real : es;
    const live = keep.filter((e) => e.to !== EXIT_NODE && alive[e.to - fn.start]);
    if (live.length > 0 && live.length < keep.length && keep.every((e) => e.to !== EXIT_NODE))
      keep = live;
    return [...new Set(keep.map((e) => (e.to === EXIT_NODE ? n : e.to - fn.start)))];
  });
  relaxed.push([]);
  const rpreds: number[][] = relaxed.map(() => []);
  relaxed.forEach((out, v) => out.forEach((w) => rpreds[w]!.push(v)));
  const g: LocalGraph = { size: n + 1, succs: relaxed, preds: rpreds };
  const pdom = immediateDominators(reversed(g), n);

  const cfg = buildCfg(program);
  const fcfg = cfg.functions[fnIndex]!;
  const pcsOf = (blocks: readonly number[]): Set<number> => {
    const s = new Set<number>();
    for (const b of blocks) {
      const blk = cfg.blocks[b]!;
      for (let pc = blk.start; pc < blk.end; pc++) s.add(pc);
    }
    return s;
  };
  const loops = fcfg.loops.map((l) => ({
    header: cfg.blocks[l.header]!.start,
    body: pcsOf(l.body),
  }));
  const irreducible = new Set<number>();
  for (const c of fcfg.irreducibleCycles) for (const pc of pcsOf(c.body)) irreducible.add(pc);
  const reachable = new Set<number>();
  for (const r of fcfg.roots) {
    const work = [cfg.blocks[r]!.start];
    while (work.length > 0) {
      const pc = work.pop()!;
      if (reachable.has(pc)) continue;
      reachable.add(pc);
      for (const e of succs[pc - fn.start]!) if (e.to !== EXIT_NODE) work.push(e.to);
    }
  }

  return {
    program,
    fn,
    fnIndex,
    succs,
    preds,
    reachable,
    loops,
    irreducible,
    ipdom(pc) {
      const d = pdom[pc - fn.start]!;
      if (d === -1) return null;
      return d === n ? EXIT_NODE : fn.start + d;
    },
  };
}

/** Successor edges of `pc`. */
export const edgesFrom = (g: FnGraph, pc: number): readonly Edge[] => g.succs[pc - g.fn.start]!;

/** The post-dominator chain of `pc` (exit-relaxed graph), `pc` excluded, up to and without the exit. */
export function postDominatorChain(g: FnGraph, pc: number): number[] {
  const chain: number[] = [];
  for (let d = g.ipdom(pc); d !== null && d !== EXIT_NODE; d = g.ipdom(d)) chain.push(d);
  return chain;
}
