/**
 * fast-check arbitrary for unstructured kernels (issue 4, item 1): random control-flow graphs of
 * basic blocks with gotos and conditional branches anywhere (into the middle of loops too, so
 * irreducible cycles with two entries occur), early exits, conditions on the lane id and on
 * per-lane counters.
 *
 * Boundedness, by construction. Blocks are laid out in order 0..n-1, then a final EXIT block n. An
 * edge to a block at or before its source (a *back edge in layout order*) is only taken while the
 * lane's fuel lasts: the branch first decrements the per-lane fuel register R5 and is taken only
 * when R5 is still positive (`ISETP.GT.AND P1, PT, R5, RZ, P0` folds the fuel test into the
 * branch condition); otherwise the lane falls through to the next block. Every cycle of the graph
 * has at least one edge that goes back in layout order, so a lane that runs forever would take
 * infinitely many such edges, each after a decrement — impossible once R5 reaches 0. A lane
 * therefore runs at most (F + 1) · n blocks, F its initial fuel (0..3). Lanes never communicate
 * (no memory, no WARPSYNC), so termination on `its` holds under any schedule.
 */
import fc from 'fast-check';
import type { GeneratedKernel, KernelClass } from './kernel.ts';
import { biased } from './structuredTree.ts';

/** Lane-id tests (static) or tests of the per-lane counters R4 (visits) and R5 (fuel). */
export type UCond =
  | { readonly src: 'lane'; readonly test: 'lt' | 'eq' | 'bit'; readonly k: number }
  | { readonly src: 'visits'; readonly k: number }
  | { readonly src: 'fuel'; readonly k: number };

export type Terminator =
  | { readonly kind: 'fall' }
  | { readonly kind: 'goto'; readonly to: number }
  | { readonly kind: 'branch'; readonly cond: UCond; readonly to: number }
  | { readonly kind: 'exit' }
  | { readonly kind: 'exit-if'; readonly cond: UCond };

export interface UBlock {
  /** Additions to the accumulator R2 (0..2 instructions). */
  readonly work: readonly number[];
  /** Count the visit in R4. */
  readonly count: boolean;
  /** Targets are taken modulo n + 1 (n = number of blocks; n is the final EXIT). */
  readonly term: Terminator;
}

export type Fuel =
  | { readonly src: 'const'; readonly k: number }
  | { readonly src: 'lane'; readonly mask: number }
  | { readonly src: 'thread'; readonly values: readonly number[] };

export interface UnstructuredAst {
  readonly warpSize: number;
  readonly warps: number;
  /**
   * The blocks. With the irreducible motif, the first three are `0: if (c1) goto 2; 1: work;
   * 2: if (c2) goto 1` — the cycle {1, 2} is entered at 1 and at 2 — and the random blocks follow.
   */
  readonly blocks: readonly UBlock[];
  readonly fuel: Fuel;
}

export interface UnstructuredOptions {
  readonly minWarpSize?: number;
  /** Default 8 (at most 32). */
  readonly maxWarpSize?: number;
  /** Default 3. */
  readonly maxWarps?: number;
  /** Most basic blocks before the final EXIT. Default 8. */
  readonly maxBlocks?: number;
}

const cond: fc.Arbitrary<UCond> = fc.oneof(
  { withCrossShrink: true },
  {
    weight: 3,
    arbitrary: fc.record({
      src: fc.constant('lane' as const),
      test: fc.constantFrom('lt' as const, 'eq' as const, 'bit' as const),
      k: fc.nat(3),
    }),
  },
  { weight: 1, arbitrary: fc.record({ src: fc.constant('visits' as const), k: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ src: fc.constant('fuel' as const), k: fc.nat(3) }) },
);

const terminator = (maxBlocks: number): fc.Arbitrary<Terminator> => {
  const to = fc.nat(maxBlocks);
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 2, arbitrary: fc.constant<Terminator>({ kind: 'fall' }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('branch' as const), cond, to }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('goto' as const), to }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('exit-if' as const), cond }) },
    { weight: 1, arbitrary: fc.constant<Terminator>({ kind: 'exit' }) },
  );
};

/** The tree of an unstructured kernel. */
export function unstructuredTree(options: UnstructuredOptions = {}): fc.Arbitrary<UnstructuredAst> {
  const maxW = Math.min(32, Math.max(1, options.maxWarpSize ?? 8));
  const minW = Math.min(maxW, Math.max(1, options.minWarpSize ?? 1));
  const maxK = Math.max(1, options.maxWarps ?? 3);
  const maxBlocks = Math.max(1, options.maxBlocks ?? 8);
  const block: fc.Arbitrary<UBlock> = fc.record({
    work: fc.array(fc.nat(7), { maxLength: 2 }),
    count: fc.boolean(),
    term: terminator(maxBlocks),
  });
  const threads = maxW * maxK;
  const fuel: fc.Arbitrary<Fuel> = fc.oneof(
    { withCrossShrink: true },
    { weight: 2, arbitrary: fc.record({ src: fc.constant('const' as const), k: fc.nat(3) }) },
    {
      weight: 1,
      arbitrary: fc.record({ src: fc.constant('lane' as const), mask: fc.constantFrom(1, 3) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        src: fc.constant('thread' as const),
        values: fc.array(fc.nat(3), { minLength: threads, maxLength: threads }),
      }),
    },
  );
  // Random graphs of a few blocks are rarely irreducible (about 5 %), so one kernel in three
  // starts with a cycle that has two entries.
  const motif = fc.oneof(
    { withCrossShrink: true },
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ c1: cond, c2: cond, k: fc.nat(7) }) },
  );
  return fc
    .record({
      warpSize: biased(minW, maxW, 3),
      warps: biased(1, maxK, 1),
      motif,
      blocks: fc.array(block, { minLength: 1, maxLength: maxBlocks }),
      fuel,
    })
    .map(({ motif: m, blocks, ...rest }) => ({
      ...rest,
      blocks:
        m === null
          ? blocks
          : [
              { work: [], count: false, term: { kind: 'branch', cond: m.c1, to: 2 } } as const,
              { work: [m.k], count: true, term: { kind: 'fall' } } as const,
              { work: [], count: false, term: { kind: 'branch', cond: m.c2, to: 1 } } as const,
              ...blocks,
            ],
    }));
}

/**
 * Successors of every block (n = the final EXIT block), exactly as the listing branches, and the
 * entry. A block without instructions that falls through is the same PC as the next block: it is
 * merged into it (left without edges, unreachable), as the CFG of the listing merges them.
 */
export function unstructuredGraph(ast: UnstructuredAst): { succs: number[][]; entry: number } {
  const n = ast.blocks.length;
  const empty = (b: UBlock) => b.work.length === 0 && !b.count && b.term.kind === 'fall';
  const canon: number[] = new Array<number>(n + 1);
  canon[n] = n;
  for (let i = n - 1; i >= 0; i--) canon[i] = empty(ast.blocks[i]!) ? canon[i + 1]! : i;
  const to = (i: number) => canon[i]!;
  const succs: number[][] = ast.blocks.map((b, i) => {
    if (canon[i] !== i) return [];
    const t = b.term;
    switch (t.kind) {
      case 'fall':
        return [to(i + 1)];
      case 'exit':
        return [];
      case 'exit-if':
        return [to(i + 1)];
      case 'goto': {
        const target = t.to % (n + 1);
        // A goto backwards falls through when the fuel is out.
        return target > i ? [to(target)] : [...new Set([to(target), to(i + 1)])];
      }
      case 'branch':
        return [...new Set([to(t.to % (n + 1)), to(i + 1)])];
    }
  });
  succs.push([]);
  return { succs, entry: canon[0]! };
}

/**
 * Whether the part of a graph reachable from `entry` has a cycle, and whether it is irreducible:
 * a graph is reducible iff removing its dominator back edges (u → h with h dominating u) leaves it
 * acyclic (Hecht and Ullman). Independent of model/cfg, which the tests compare it with.
 */
export function cycleShape(
  succs: readonly (readonly number[])[],
  entry = 0,
): {
  cyclic: boolean;
  irreducible: boolean;
} {
  const N = succs.length;
  const reach = new Array<boolean>(N).fill(false);
  const stack = [entry];
  reach[entry] = true;
  while (stack.length)
    for (const s of succs[stack.pop()!]!) if (!reach[s]) ((reach[s] = true), stack.push(s));
  const preds: number[][] = succs.map(() => []);
  succs.forEach((ss, u) => reach[u] && ss.forEach((v) => preds[v]!.push(u)));
  // Dominator sets by iteration (graphs have at most a few dozen nodes).
  const all = new Set(succs.map((_, i) => i).filter((i) => reach[i]));
  const dom: Set<number>[] = succs.map((_, i) => (i === entry ? new Set([entry]) : new Set(all)));
  for (let changed = true; changed;) {
    changed = false;
    for (const v of all) {
      if (v === entry) continue;
      let d: number[] | null = null;
      for (const p of preds[v]!) {
        const dp: Set<number> = dom[p]!;
        d = d === null ? [...dp] : d.filter((x) => dp.has(x));
      }
      const next = new Set<number>([...(d ?? []), v]);
      if (next.size !== dom[v]!.size) {
        dom[v] = next;
        changed = true;
      }
    }
  }
  const acyclic = (keep: (u: number, v: number) => boolean): boolean => {
    const state = new Array<number>(N).fill(0);
    const visit = (u: number): boolean => {
      state[u] = 1;
      for (const v of succs[u]!) {
        if (!keep(u, v)) continue;
        if (state[v] === 1) return false;
        if (state[v] === 0 && !visit(v)) return false;
      }
      state[u] = 2;
      return true;
    };
    return visit(entry);
  };
  const cyclic = !acyclic(() => true);
  const irreducible = cyclic && !acyclic((u, v) => !dom[u]!.has(v));
  return { cyclic, irreducible };
}

const hex = (n: number): string => `0x${n.toString(16)}`;

/** Renders the tree as a listing and computes its classes. */
export function renderUnstructured(ast: UnstructuredAst): {
  text: string;
  classes: Set<KernelClass>;
} {
  const W = ast.warpSize;
  const K = ast.warps;
  const n = ast.blocks.length;
  const classes = new Set<KernelClass>();
  if (K > 1) classes.add('multi-warp');
  let lane = false;
  const label = (i: number) => `.L_b${i}`;
  const condInto = (out: string[], c: UCond): void => {
    switch (c.src) {
      case 'lane':
        lane = true;
        if (c.test === 'bit') {
          out.push(`        LOP3.LUT R7, R0, ${hex(1 << c.k)}, RZ, 0xc0, !PT ;`);
          out.push('        ISETP.NE.AND P0, PT, R7, RZ, PT ;');
        } else
          out.push(
            `        ISETP.${c.test === 'lt' ? 'LT' : 'EQ'}.AND P0, PT, R0, ${hex(c.k)}, PT ;`,
          );
        return;
      case 'visits':
        out.push(`        ISETP.GE.AND P0, PT, R4, ${hex(c.k)}, PT ;`);
        return;
      case 'fuel':
        out.push(`        ISETP.EQ.AND P0, PT, R5, ${hex(c.k)}, PT ;`);
        return;
    }
  };
  const body: string[] = [];
  ast.blocks.forEach((b, i) => {
    body.push(`${label(i)}:`);
    for (const k of b.work) body.push(`        IADD3 R2, R2, ${hex(k + 1)}, RZ ;`);
    if (b.count) body.push('        IADD3 R4, R4, 0x1, RZ ;');
    const t = b.term;
    switch (t.kind) {
      case 'fall':
        return;
      case 'exit':
        body.push('        EXIT ;');
        classes.add('early-exit');
        return;
      case 'exit-if':
        condInto(body, t.cond);
        body.push('   @P0  EXIT ;');
        classes.add('early-exit');
        return;
      case 'goto':
      case 'branch': {
        const to = t.to % (n + 1);
        if (t.kind === 'branch') condInto(body, t.cond);
        if (to > i) {
          body.push(`   ${t.kind === 'branch' ? '@P0 ' : '    '} BRA \`(${label(to)}) ;`);
          return;
        }
        // Back in layout order: spend one unit of fuel, and go only while some is left.
        body.push('        IADD3 R5, R5, -0x1, RZ ;');
        body.push(`        ISETP.GT.AND P1, PT, R5, RZ, ${t.kind === 'branch' ? 'P0' : 'PT'} ;`);
        body.push(`   @P1  BRA \`(${label(to)}) ;`);
        return;
      }
    }
  });
  body.push(`${label(n)}:`, '        EXIT ;');
  const graph = unstructuredGraph(ast);
  const shape = cycleShape(graph.succs, graph.entry);
  if (shape.cyclic) classes.add('loop');
  if (shape.irreducible) classes.add('irreducible');
  const f = ast.fuel;
  const prologue: string[] = [];
  const header = [`// @warpcheck warp-size=${W} warps=${K}`];
  if (f.src === 'lane') lane = true;
  if (lane) prologue.push('        S2R R0, SR_LANEID ;');
  if (f.src === 'const') prologue.push(`        MOV R5, ${hex(f.k)} ;`);
  else if (f.src === 'lane')
    prologue.push(`        LOP3.LUT R5, R0, ${hex(f.mask)}, RZ, 0xc0, !PT ;`);
  else {
    const byValue = new Map<number, number[]>();
    for (let t = 0; t < W * K; t++) {
      const v = f.values[t] ?? 0;
      if (v !== 0) byValue.set(v, [...(byValue.get(v) ?? []), t]);
    }
    if (byValue.size)
      header.push(
        `// @warpcheck ${[...byValue].map(([v, ts]) => `R5@${ts.join(',')}=${v}`).join(' ')}`,
      );
  }
  const text = [...header, '\tFunction : unstructured', ...prologue, ...body].join('\n') + '\n';
  return { text, classes };
}

/** Unstructured kernels; see `UnstructuredOptions`. */
export function unstructuredKernel(
  options: UnstructuredOptions = {},
): fc.Arbitrary<GeneratedKernel> {
  return unstructuredTree(options).map((ast) => {
    const { text, classes } = renderUnstructured(ast);
    return { text, warpSize: ast.warpSize, warps: ast.warps, classes, ast };
  });
}
