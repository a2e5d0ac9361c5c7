/**
 * Structured programs with ballots, in the style of the Vulkan/WebGPU "correct reconvergence"
 * tests (issue 11): if/else on lane masks, lane ids, the loop counter and uniform values; `for`
 * loops with uniform and lane-varying trip counts; infinite loops left through an elected lane;
 * break, continue, return, calls and switch. `break`/`continue` always name the innermost loop
 * (also inside a switch case), and end their block.
 */
import fc from 'fast-check';

export type Cond =
  /** Lane `sid` has bit `sid` of `mask`. */
  | { readonly kind: 'mask'; readonly mask: number }
  /** `sid < n`. */
  | { readonly kind: 'lt'; readonly n: number }
  /** `sid == i`, the innermost loop's iteration counter (false outside loops). */
  | { readonly kind: 'eq-counter' }
  /** A value every lane sees the same. */
  | { readonly kind: 'uniform'; readonly value: boolean }
  /** `subgroupElect()`: the lowest active lane. */
  | { readonly kind: 'elect' };

export type Trip =
  | { readonly kind: 'uniform'; readonly n: number }
  /** `(sid & mask) + add` iterations. */
  | { readonly kind: 'lane'; readonly mask: number; readonly add: number };

export type Stmt =
  | { readonly kind: 'ballot' }
  | { readonly kind: 'store'; readonly value: number }
  | { readonly kind: 'if'; readonly cond: Cond; readonly then: Block; readonly else: Block }
  /** `trip: null`: an infinite loop, its body ending in `if (subgroupElect()) break`. */
  | {
      readonly kind: 'loop';
      readonly trip: Trip | null;
      readonly body: Block;
      /** A ballot in the continue block (`continuing { ballot(); }`). */
      readonly continueBallot: boolean;
    }
  /** `switch (sid & 3)`: the listed case values; other lanes skip. */
  | { readonly kind: 'switch'; readonly cases: readonly { value: number; body: Block }[] }
  | { readonly kind: 'break' }
  | { readonly kind: 'continue' }
  | { readonly kind: 'return' }
  | { readonly kind: 'call'; readonly fn: number };

export type Block = readonly Stmt[];

export interface BallotProgram {
  readonly warpSize: number;
  readonly main: Block;
  /** Function `k` may call only functions `> k` (no recursion). */
  readonly functions: readonly Block[];
}

interface Ctx {
  readonly depth: number;
  /** Inside a loop of this function (break/continue allowed). */
  readonly inLoop: boolean;
  /** Inside an infinite loop, not inside a nested loop: no continue (it would skip the exit). */
  readonly infinite: boolean;
  /** Functions this code may call. */
  readonly callable: readonly number[];
}

const cond: fc.Arbitrary<Cond> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: 0, max: 0xffffffff })
      .map((mask) => ({ kind: 'mask' as const, mask })),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 1, max: 31 }).map((n) => ({ kind: 'lt' as const, n })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'eq-counter' as const }) },
  { weight: 1, arbitrary: fc.boolean().map((value) => ({ kind: 'uniform' as const, value })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'elect' as const }) },
);

const trip: fc.Arbitrary<Trip> = fc.oneof(
  fc.integer({ min: 1, max: 3 }).map((n) => ({ kind: 'uniform' as const, n })),
  fc
    .record({ mask: fc.constantFrom(1, 3), add: fc.integer({ min: 0, max: 1 }) })
    .map((t) => ({ kind: 'lane' as const, ...t })),
);

/** A block: statements, then possibly one that ends it (break, continue, return). */
function block(c: Ctx, size: number): fc.Arbitrary<Block> {
  if (size <= 0) return fc.constant([]);
  const enders: fc.Arbitrary<Stmt>[] = [fc.constant({ kind: 'return' as const })];
  if (c.inLoop) enders.push(fc.constant({ kind: 'break' as const }));
  if (c.inLoop && !c.infinite) enders.push(fc.constant({ kind: 'continue' as const }));
  return (
    fc
      .tuple(
        fc.array(stmt(c, size - 1), { minLength: 0, maxLength: 3 }),
        // A quarter of the blocks end in an escape (one in four of those a return, when a loop
        // offers break/continue): enough escapes, and code after the constructs they leave.
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(null) },
          {
            weight: 1,
            arbitrary: fc.oneof(
              ...enders.map((e, i) => ({
                weight: i === 0 && enders.length > 1 ? 1 : 3,
                arbitrary: e,
              })),
            ),
          },
        ),
      )
      // A ballot after every construct: what the construct's end merged is observed right there
      // (the CTS programs ballot as often).
      .map(([body, end]) => {
        const out = body.flatMap((s): Stmt[] =>
          s.kind === 'if' || s.kind === 'switch' || s.kind === 'loop'
            ? [s, { kind: 'ballot' }]
            : [s],
        );
        return end === null ? out : [...out, end];
      })
  );
}

function stmt(c: Ctx, size: number): fc.Arbitrary<Stmt> {
  const leaf = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ kind: 'ballot' as const }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 0, max: 9 }).map((value) => ({ kind: 'store' as const, value })),
    },
    ...c.callable.map((fn) => ({
      weight: 1,
      arbitrary: fc.constant({ kind: 'call' as const, fn }),
    })),
  );
  if (size <= 0 || c.depth >= 3) return leaf;
  const inner: Ctx = { ...c, depth: c.depth + 1 };
  const loopCtx = (infinite: boolean): Ctx => ({ ...inner, inLoop: true, infinite });
  // The CTS shape where IPDOM and maximal reconvergence part: an escape in an if nested in an
  // if (`if (a) { if (b) { break; } } else { … }`), the outer if's paths merging after it.
  const escapes: Stmt[] = [
    { kind: 'return' },
    ...(c.inLoop ? [{ kind: 'break' as const }] : []),
    ...(c.inLoop && !c.infinite ? [{ kind: 'continue' as const }] : []),
  ];
  const nestedEscape = fc
    .tuple(cond, cond, fc.constantFrom(...escapes), block(inner, size - 1))
    .map(([a, b, e, other]): Stmt => ({
      kind: 'if',
      cond: a,
      then: [{ kind: 'if', cond: b, then: [e], else: [] }],
      else: other,
    }));
  return fc.oneof(
    { weight: 2, arbitrary: nestedEscape },
    { weight: 2, arbitrary: leaf },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          cond,
          block(inner, size - 1),
          fc.oneof(
            { weight: 1, arbitrary: fc.constant([]) },
            { weight: 2, arbitrary: block(inner, size - 1) },
          ),
        )
        .map(([k, t, e]) => ({ kind: 'if' as const, cond: k, then: t, else: e })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(trip, block(loopCtx(false), size - 1), fc.boolean())
        .map(([t, body, cb]) => ({ kind: 'loop' as const, trip: t, body, continueBallot: cb })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(block(loopCtx(true), size - 1), fc.boolean()).map(([body, cb]) => ({
        kind: 'loop' as const,
        trip: null,
        // Left through an elected lane: one lane leaves per iteration at least.
        body: [
          ...body.filter((s) => s.kind !== 'break' && s.kind !== 'return'),
          {
            kind: 'if' as const,
            cond: { kind: 'elect' as const },
            then: [{ kind: 'break' as const }],
            else: [],
          },
        ],
        continueBallot: cb,
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .uniqueArray(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 3 })
        .chain((vs) =>
          fc.tuple(...vs.sort((a, b) => a - b).map(() => block(inner, size - 1))).map((bodies) => ({
            kind: 'switch' as const,
            cases: vs.map((value, i) => ({ value, body: bodies[i]! })),
          })),
        ),
    },
  );
}

/**
 * Programs for warps of `warpSizes` lanes (one warp), with two functions (f0 may call f1; an
 * unused one costs nothing). No `chain`: every part shrinks on its own (fast-check shrinks a
 * chained arbitrary poorly), conditions do not depend on the warp size (`sid < n` with n up to 31).
 */
export function ballotProgram(
  warpSizes: readonly number[] = [4, 8, 32],
  size = 3,
): fc.Arbitrary<BallotProgram> {
  const fnCtx = (callable: number[]): Ctx => ({
    depth: 1,
    inLoop: false,
    infinite: false,
    callable,
  });
  const mainCtx: Ctx = { depth: 0, inLoop: false, infinite: false, callable: [0, 1] };
  return fc
    .record({
      warpSize: fc.constantFrom(...warpSizes),
      main: block(mainCtx, size),
      f0: block(fnCtx([1]), size - 1),
      f1: block(fnCtx([]), size - 1),
    })
    .map(({ warpSize, main, f0, f1 }) => ({ warpSize, main, functions: [f0, f1] }));
}
