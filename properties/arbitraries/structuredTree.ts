/**
 * The tree of a structured kernel and its fast-check arbitrary. Every node is plain data; the
 * generator knows its context (inside a loop, a function, a critical section) so that it only
 * produces nodes that make sense there. Built from `fc.record`, `fc.array` and `fc.oneof` with
 * `withCrossShrink` (leaves first), so fast-check shrinks structurally: blocks lose statements,
 * compound statements shrink into leaves, numbers shrink towards 0, warp size towards 1, warps
 * towards 1.
 */
import fc from 'fast-check';

/**
 * A branch condition, computed into P0 right before its branch. `lane`, `tid`, `reg` and `mem`
 * conditions are *static*: their value per thread is known when rendering (lane id, thread id, the
 * per-thread input register R9 and input word mem[0x400 + tid], both set by the header), so the
 * renderer knows exactly which lanes take each side. `counter` (the innermost loop's counter) is
 * dynamic.
 */
export type Cond =
  | { readonly src: 'lane'; readonly test: 'lt' | 'eq' | 'bit'; readonly k: number }
  | { readonly src: 'tid'; readonly k: number }
  | { readonly src: 'reg'; readonly k: number }
  | { readonly src: 'mem'; readonly k: number }
  | { readonly src: 'counter'; readonly test: 'lt' | 'eq'; readonly k: number };

/** Where a per-thread count (loop trip count, recursion depth, switch selector) comes from. */
export type Count =
  | { readonly src: 'const'; readonly k: number }
  | { readonly src: 'lane'; readonly mask: number }
  | { readonly src: 'reg' }
  | { readonly src: 'mem' };

export type Stmt =
  | { readonly kind: 'work'; readonly k: number }
  /** A store to the thread's private output word (no other thread reads it). */
  | { readonly kind: 'store' }
  /** A protected increment of a shared counter: only inside critical sections. */
  | { readonly kind: 'shared-inc' }
  | {
      readonly kind: 'if';
      readonly cond: Cond;
      readonly then: readonly Stmt[];
      readonly else: readonly Stmt[];
      /** Both sides end in a WARPSYNC naming every lane that reached the if (when well-formed). */
      readonly syncBoth: boolean;
    }
  | {
      readonly kind: 'loop';
      readonly trip: Count;
      readonly body: readonly Stmt[];
      /** Rotated (guard, do-while) as compilers emit, or top-tested. */
      readonly rotated: boolean;
    }
  | { readonly kind: 'break'; readonly cond: Cond }
  | { readonly kind: 'continue'; readonly cond: Cond }
  | { readonly kind: 'exit'; readonly cond: Cond }
  | { readonly kind: 'return'; readonly cond: Cond }
  /** Calls function `fn` modulo the callable ones (later functions only; none: nothing). */
  | { readonly kind: 'call'; readonly fn: number; readonly depth: Count }
  | { readonly kind: 'switch'; readonly sel: Count; readonly cases: readonly (readonly Stmt[])[] }
  | { readonly kind: 'warpsync'; readonly full: boolean }
  /** A WARPSYNC whose lowest reaching lane is not named in its mask (SEMANTICS §2: UB). */
  | { readonly kind: 'bad-warpsync' }
  /**
   * `atomicAdd(counter, 1)`; with `branch`, the old value decides an if (order-dependent), else
   * the result is discarded (order-independent).
   */
  | {
      readonly kind: 'atomic';
      readonly branch: boolean;
      readonly then: readonly Stmt[];
      readonly else: readonly Stmt[];
    }
  /** Every thread stores its id to one shared word, reads it back and branches on it. */
  | { readonly kind: 'race'; readonly then: readonly Stmt[]; readonly else: readonly Stmt[] }
  | {
      readonly kind: 'spinlock';
      readonly global: boolean;
      readonly release: 'exch' | 'store';
      readonly crit: readonly Stmt[];
    }
  | { readonly kind: 'ticket'; readonly crit: readonly Stmt[] }
  | {
      readonly kind: 'flag';
      /** `setter-first`/`spin-first`: an if/else; `sequential`: the wait comes before the set. */
      readonly shape: 'setter-first' | 'spin-first' | 'sequential';
      readonly work: readonly Stmt[];
    }
  | { readonly kind: 'lock-in-if'; readonly crit: readonly Stmt[] };

export interface Fn {
  readonly body: readonly Stmt[];
  /** The function calls itself `depth` times (its caller's `depth` count) before its body. */
  readonly recursive: boolean;
}

export interface StructuredAst {
  readonly warpSize: number;
  readonly warps: number;
  readonly main: readonly Stmt[];
  readonly fns: readonly Fn[];
  /** Per thread id: the input register R9 (0..3). */
  readonly regInit: readonly number[];
  /** Per thread id: the input word mem[0x400 + tid] (0..3). */
  readonly memInit: readonly number[];
  readonly deterministic: boolean;
}

/** Constructs that can be switched off. */
export type Idiom =
  | 'if'
  | 'loop'
  | 'break'
  | 'continue'
  | 'exit'
  | 'call'
  | 'recursion'
  | 'switch'
  | 'syncwarp'
  | 'spinlock'
  | 'ticket-lock'
  | 'flag-wait'
  | 'lock-in-if'
  | 'atomics'
  | 'memory-race';

export const IDIOMS: readonly Idiom[] = [
  'if',
  'loop',
  'break',
  'continue',
  'exit',
  'call',
  'recursion',
  'switch',
  'syncwarp',
  'spinlock',
  'ticket-lock',
  'flag-wait',
  'lock-in-if',
  'atomics',
  'memory-race',
];

export interface StructuredOptions {
  /** Smallest and largest warp size. Default 1..8 (at most 32). */
  readonly minWarpSize?: number;
  readonly maxWarpSize?: number;
  /** Most warps per block. Default 3. */
  readonly maxWarps?: number;
  /** Most nesting of compound statements. Default 2. */
  readonly maxDepth?: number;
  /** Most statements per block. Default 3. */
  readonly maxStatements?: number;
  /** Most functions besides the kernel. Default 2. */
  readonly maxFunctions?: number;
  /** Constructs allowed (default all). */
  readonly idioms?: readonly Idiom[];
  /**
   * No races, no spin idioms, atomics only with discarded results: per-lane traces do not depend
   * on the schedule. Default false.
   */
  readonly deterministic?: boolean;
  /** Also generate ill-formed WARPSYNC masks (class `ill-formed-syncwarp`). Default false. */
  readonly illFormedSyncwarp?: boolean;
}

interface Gen {
  readonly allow: ReadonlySet<Idiom>;
  readonly det: boolean;
  readonly ill: boolean;
  readonly maxStatements: number;
  readonly fns: boolean;
}

interface Where {
  readonly loop: boolean;
  readonly fn: boolean;
}

const staticCond: fc.Arbitrary<Cond> = fc.oneof(
  { withCrossShrink: true },
  {
    weight: 4,
    arbitrary: fc.record({
      src: fc.constant('lane' as const),
      test: fc.constantFrom('lt' as const, 'eq' as const, 'bit' as const),
      k: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ src: fc.constant('tid' as const), k: fc.nat(8) }) },
  {
    weight: 1,
    arbitrary: fc.record({ src: fc.constant('reg' as const), k: fc.integer({ min: 1, max: 3 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ src: fc.constant('mem' as const), k: fc.integer({ min: 1, max: 3 }) }),
  },
);

const condIn = (w: Where): fc.Arbitrary<Cond> =>
  w.loop
    ? fc.oneof(
        { withCrossShrink: true },
        { weight: 3, arbitrary: staticCond },
        {
          weight: 1,
          arbitrary: fc.record({
            src: fc.constant('counter' as const),
            test: fc.constantFrom('eq' as const, 'lt' as const),
            k: fc.nat(2),
          }),
        },
      )
    : staticCond;

const count: fc.Arbitrary<Count> = fc.oneof(
  { withCrossShrink: true },
  { weight: 2, arbitrary: fc.record({ src: fc.constant('const' as const), k: fc.nat(3) }) },
  {
    weight: 2,
    arbitrary: fc.record({ src: fc.constant('lane' as const), mask: fc.constantFrom(1, 3) }),
  },
  { weight: 1, arbitrary: fc.record({ src: fc.constant('reg' as const) }) },
  { weight: 1, arbitrary: fc.record({ src: fc.constant('mem' as const) }) },
);

/** A critical section: short straight code and ifs on static conditions; never waits or leaves. */
const critical: fc.Arbitrary<readonly Stmt[]> = (() => {
  const leaf = fc.oneof(
    { withCrossShrink: true },
    { weight: 2, arbitrary: fc.constant<Stmt>({ kind: 'shared-inc' }) },
    { weight: 1, arbitrary: fc.nat(7).map((k): Stmt => ({ kind: 'work', k })) },
    { weight: 1, arbitrary: fc.constant<Stmt>({ kind: 'store' }) },
  );
  const iff = fc.record({
    kind: fc.constant('if' as const),
    cond: staticCond,
    then: fc.array(leaf, { maxLength: 2 }),
    else: fc.array(leaf, { maxLength: 1 }),
    syncBoth: fc.constant(false),
  });
  return fc.array(
    fc.oneof(
      { withCrossShrink: true },
      { weight: 4, arbitrary: leaf },
      { weight: 1, arbitrary: iff },
    ),
    { maxLength: 2 },
  );
})();

function leafArbs(g: Gen, w: Where): fc.WeightedArbitrary<Stmt>[] {
  const a = g.allow;
  const out: fc.WeightedArbitrary<Stmt>[] = [
    { weight: 6, arbitrary: fc.nat(7).map((k): Stmt => ({ kind: 'work', k })) },
    { weight: 1, arbitrary: fc.constant<Stmt>({ kind: 'store' }) },
  ];
  const cond = condIn(w);
  if (a.has('exit') && !w.fn)
    out.push({ weight: 1, arbitrary: cond.map((c): Stmt => ({ kind: 'exit', cond: c })) });
  if (a.has('exit') && w.fn)
    out.push({ weight: 1, arbitrary: cond.map((c): Stmt => ({ kind: 'return', cond: c })) });
  if (a.has('break') && w.loop)
    out.push({ weight: 2, arbitrary: cond.map((c): Stmt => ({ kind: 'break', cond: c })) });
  if (a.has('continue') && w.loop)
    out.push({ weight: 2, arbitrary: cond.map((c): Stmt => ({ kind: 'continue', cond: c })) });
  if (a.has('syncwarp'))
    out.push({
      weight: 2,
      arbitrary: fc.boolean().map((full): Stmt => ({ kind: 'warpsync', full })),
    });
  if (g.ill && a.has('syncwarp'))
    out.push({ weight: 1, arbitrary: fc.constant<Stmt>({ kind: 'bad-warpsync' }) });
  if (a.has('call') && g.fns)
    out.push({
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('call' as const), fn: fc.nat(3), depth: count }),
    });
  if (a.has('atomics') && g.det)
    out.push({
      weight: 1,
      arbitrary: fc.constant<Stmt>({ kind: 'atomic', branch: false, then: [], else: [] }),
    });
  if (!g.det) {
    if (a.has('spinlock'))
      out.push({
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('spinlock' as const),
          global: fc.boolean(),
          release: fc.constantFrom('exch' as const, 'store' as const),
          crit: critical,
        }),
      });
    if (a.has('ticket-lock'))
      out.push({
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('ticket' as const), crit: critical }),
      });
    if (a.has('flag-wait') && !w.fn)
      out.push({
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('flag' as const),
          shape: fc.constantFrom(
            'setter-first' as const,
            'spin-first' as const,
            'sequential' as const,
          ),
          work: critical,
        }),
      });
    if (a.has('lock-in-if'))
      out.push({
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('lock-in-if' as const), crit: critical }),
      });
  }
  return out;
}

/** The statement and block arbitraries for one generation setting, memoised per depth and place. */
function statements(g: Gen): (depth: number, w: Where) => fc.Arbitrary<readonly Stmt[]> {
  const memo = new Map<string, fc.Arbitrary<readonly Stmt[]>>();
  const block = (
    depth: number,
    w: Where,
    maxLength = g.maxStatements,
  ): fc.Arbitrary<readonly Stmt[]> => {
    const key = `${depth}|${w.loop}|${w.fn}|${maxLength}`;
    const hit = memo.get(key);
    if (hit) return hit;
    const leaves = leafArbs(g, w);
    const compounds: fc.WeightedArbitrary<Stmt>[] = [];
    if (depth > 0) {
      // Nested blocks are one statement shorter than the top level: the size of the state space
      // grows with the product of what lanes may be doing at once.
      const innerLength = Math.max(1, g.maxStatements - 1);
      const inner = block(depth - 1, w, innerLength);
      const a = g.allow;
      if (a.has('if'))
        compounds.push({
          weight: 4,
          arbitrary: fc.record({
            kind: fc.constant('if' as const),
            cond: condIn(w),
            then: inner,
            else: inner,
            syncBoth: a.has('syncwarp') ? fc.boolean() : fc.constant(false),
          }),
        });
      if (a.has('loop'))
        compounds.push({
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant('loop' as const),
            trip: count,
            body: block(depth - 1, { ...w, loop: true }, innerLength),
            rotated: fc.boolean(),
          }),
        });
      if (a.has('switch'))
        compounds.push({
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant('switch' as const),
            sel: count,
            cases: fc.array(inner, { minLength: 2, maxLength: 4 }),
          }),
        });
      if (!g.det && a.has('atomics'))
        compounds.push({
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant('atomic' as const),
            branch: fc.constant(true),
            then: inner,
            else: inner,
          }),
        });
      if (!g.det && a.has('memory-race'))
        compounds.push({
          weight: 1,
          arbitrary: fc.record({ kind: fc.constant('race' as const), then: inner, else: inner }),
        });
    }
    const stmt = fc.oneof({ withCrossShrink: true }, ...leaves, ...compounds);
    const arb = fc.array(stmt, { maxLength });
    memo.set(key, arb);
    return arb;
  };
  return block;
}

/**
 * An integer in [min, max], four times in five at most `small`: exhaustive exploration grows
 * exponentially with the number of threads, so most kernels stay small while the whole range is
 * still covered. Shrinks towards `min`.
 */
export const biased = (min: number, max: number, small: number): fc.Arbitrary<number> =>
  fc.oneof(
    { withCrossShrink: true },
    { weight: 4, arbitrary: fc.integer({ min, max: Math.max(min, Math.min(max, small)) }) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
  );

/** The tree of a structured kernel. */
export function structuredTree(options: StructuredOptions = {}): fc.Arbitrary<StructuredAst> {
  const maxW = Math.min(32, Math.max(1, options.maxWarpSize ?? 8));
  const minW = Math.min(maxW, Math.max(1, options.minWarpSize ?? 1));
  const maxK = Math.max(1, options.maxWarps ?? 3);
  const maxDepth = Math.max(0, options.maxDepth ?? 2);
  const maxFns = Math.max(0, options.maxFunctions ?? 2);
  const allow = new Set(options.idioms ?? IDIOMS);
  const det = options.deterministic ?? false;
  const g: Gen = {
    allow,
    det,
    ill: options.illFormedSyncwarp ?? false,
    maxStatements: Math.max(1, options.maxStatements ?? 3),
    fns: allow.has('call') && maxFns > 0,
  };
  const block = statements(g);
  const fnArb: fc.Arbitrary<Fn> = fc.record({
    body: block(Math.max(0, maxDepth - 1), { loop: false, fn: true }),
    recursive: allow.has('recursion') ? fc.boolean() : fc.constant(false),
  });
  const threads = maxW * maxK;
  const inputs = fc.array(fc.nat(3), { minLength: threads, maxLength: threads });
  return fc.record({
    warpSize: biased(minW, maxW, 3),
    warps: biased(1, maxK, 1),
    main: block(maxDepth, { loop: false, fn: false }).filter((b) => b.length > 0),
    fns: g.fns ? fc.array(fnArb, { maxLength: maxFns }) : fc.constant([]),
    regInit: inputs,
    memInit: inputs,
    deterministic: fc.constant(det),
  });
}
