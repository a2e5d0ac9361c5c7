/**
 * Shared unknowns (`shared.ts`, docs/semantics.md §13 "Shared unknowns").
 * - By hand: a loop that counts a kernel parameter down keeps the lanes of a warp together (no
 *   state has two PCs); a sum with each lane's own id ties nothing; widening keeps a counter the
 *   lanes hold equal as one unknown; a fresh tag avoids the tags other lanes hold.
 * - The law (soundness): on random kernels that mix kernel parameters, lane ids, each lane's own
 *   unknowns, arithmetic (negated sources too), comparisons, branches, loops, WARPSYNC, VOTE and
 *   traps, every outcome of a run with the parameters given (each of several values) is an outcome
 *   of the search with them unknown — livelocks excepted, as in the widening law (an unknown
 *   branch is assumed fair, SEMANTICS §5). It fails on a planted bug that ties unknowns the lanes
 *   compute each of their own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explore, type Budget, type ExploreResult } from '../explore/exhaustive.ts';
import { bsyncLoops } from '../testing/groupKernels.ts';
import { outcomesButLivelocks } from '../testing/outcomes.ts';
import { machineOf, reachable } from '../testing/run.ts';
import { freshTag } from './shared.ts';
import { shared, UNKNOWN } from './values.ts';

const budget: Budget = { maxStates: 6_000, maxDepth: 2_000, timeoutMs: 20_000 };
const mechanisms = ['its', 'simt-stack', 'hanoi'] as const;

const outcomes = outcomesButLivelocks;

/** The PCs of the live lanes of warp 0 in every reachable state, as sets. */
function pcSets(text: string, mech: string, sharedUnknowns?: 'off'): number[] {
  const m = machineOf(text, mech, { widen: 2, ...(sharedUnknowns ? { sharedUnknowns } : {}) });
  const most = reachable(m, 20_000).map((s) => {
    const pcs = new Set<number>();
    m.mechanism.lanePcs!(s.warps[0]!.mech, (pc, mask) => {
      if ((mask & ~s.warps[0]!.data.exited) !== 0 && pc >= 0) pcs.add(pc);
    });
    return pcs.size;
  });
  return most;
}

describe('shared unknowns, by hand', () => {
  // `n = c[0x0][0x184]`, `r = n - n % 4`, then `while (r > 0) r -= 4`: every lane computes the
  // same r from the same parameter, so every test of r goes the same way in all of them.
  const countDown = [
    '// @warpcheck warp-size=4 warps=1',
    'IMAD.MOV.U32 R8, RZ, RZ, c[0x0][0x184]',
    'LOP3.LUT R2, R8, 0x3, RZ, 0xc0, !PT',
    'IADD3 R9, -R2, c[0x0][0x184], RZ',
    'loop:',
    'ISETP.GT.AND P0, PT, R9, RZ, PT',
    '@!P0 BRA done',
    'IADD3 R9, R9, -0x4, RZ',
    'BRA loop',
    'done:',
    'EXIT',
  ].join('\n');

  it('keeps the lanes together in a loop that counts a kernel parameter down', () => {
    for (const mech of mechanisms) {
      // Every reachable state has the live lanes at one PC (or none live).
      expect(Math.max(...pcSets(countDown, mech)), mech).toBeLessThanOrEqual(1);
      // Each lane its own unknown (as before): the lanes split at the first test.
      expect(Math.max(...pcSets(countDown, mech, 'off')), mech).toBe(2);
      const r = explore(machineOf(countDown, mech, { widen: 2 }), budget);
      expect(r.verdict, mech).toBe('terminates');
    }
  });

  it('ties nothing where a source differs between lanes', () => {
    // r = n + laneid: a different word in every lane, so the lanes may split at `r > 2`.
    const text = [
      '// @warpcheck warp-size=4 warps=1',
      'S2R R0, SR_LANEID',
      'IADD3 R9, R0, c[0x0][0x184], RZ',
      'ISETP.GT.AND P0, PT, R9, 0x2, PT',
      '@!P0 BRA done',
      'NOP',
      'done:',
      'EXIT',
    ].join('\n');
    expect(Math.max(...pcSets(text, 'its'))).toBe(2);
  });

  it('keeps a tie through widening but makes none there', () => {
    // R9 = n counted down (a tie, made again each turn) and k counted up from 0 in every lane;
    // the exit tests R9 (a choice, which flags the loop), so after two turns widening forgets
    // what the loop writes: R9 is unknown already and keeps its tie, k becomes each lane's own
    // unknown (no tie is made there: docs/semantics.md §13). A test of R9 after the loop keeps
    // the lanes together; a test of k may split them.
    const body = (test: string) =>
      [
        '// @warpcheck warp-size=3 warps=1',
        'LDC R9, c[0x0][0x160]',
        'MOV R1, RZ',
        'loop:',
        'IADD3 R1, R1, 0x1, RZ',
        'IADD3 R9, R9, -0x1, RZ',
        'ISETP.GT.AND P0, PT, R9, RZ, PT',
        '@P0 BRA loop',
        `ISETP.EQ.AND P1, PT, ${test}, 0x7, PT`,
        '@P1 BRA done',
        'NOP',
        'done:',
        'EXIT',
      ].join('\n');
    expect(Math.max(...pcSets(body('R9'), 'its'))).toBeLessThanOrEqual(1);
    expect(Math.max(...pcSets(body('R1'), 'its'))).toBeGreaterThanOrEqual(2);
  });

  it('takes a fresh tag that no other lane holds', () => {
    const col = [shared(0), shared(0), shared(2), UNKNOWN];
    expect(freshTag(col, 0b1100)).toBe(shared(0)); // lanes 2, 3 hold tag 2 and no tag
    expect(freshTag(col, 0b0101)).toBe(shared(1)); // lane 0 holds tag 0, lane 2 tag 2
    expect(freshTag(col, 0b1111)).toBe(shared(1));
  });
});

/** Trap iff the active lanes disagree on P0 (the law's probe, below, as a list). */
const probeLines = [
  'VOTE.ANY R4, P5, P0',
  'VOTE.ALL R4, P6, P0',
  '@!P5 BRA END',
  '@P6 BRA END',
  'BPT.TRAP 0x1',
  'END:',
  'EXIT',
];

/**
 * A review's kernels (2026-11-28), each of which a one-line unsound change of a rule let through
 * the law as it first stood: with the parameters given each one traps (worked out in its comment),
 * and the search with them unknown must find that trap too.
 */
const reviewKernels: Record<
  string,
  { w: number; params: [number, number]; widen?: number; body: string[]; extra?: string }
> = {
  // Both operands shared: 2 > 1, P0 true, trap. Needs the stand-in pair (1, 0).
  'both operands shared': {
    w: 2,
    params: [2, 1],
    body: [
      'LDC R1, c[0x0][0x160]',
      'ISETP.GT.AND P0, PT, R1, c[0x0][0x164], PT',
      '@P0 BPT.TRAP 0x1',
      'EXIT',
    ],
  },
  // Lanes 0, 1 load the parameter 1, lanes 2, 3 the other, 0: two issues, two words, so two tags.
  // P0 = (R2 == 1) is true in lanes 0, 1 only: they disagree, trap.
  'two issues, two tags': {
    w: 4,
    params: [1, 0],
    body: [
      'S2R R0, SR_LANEID',
      'ISETP.LT.AND P1, PT, R0, 0x2, PT',
      '@P1 LDC R2, c[0x0][0x160]',
      '@!P1 LDC R2, c[0x0][0x164]',
      'ISETP.EQ.AND P0, PT, R2, 0x1, PT',
      ...probeLines,
    ],
  },
  // R5 = laneid + 0 = laneid, P1 true in lane 1 only; lane 1 loads 1, lane 0 keeps 0: P0 = (R2 ==
  // 0) true in lane 0 only, trap. With the parameter unknown P1 is each lane's own, so the LDC's
  // guard is unknown and no tie may be made.
  'unknown guard, no tie': {
    w: 2,
    params: [1, 0],
    body: [
      'S2R R0, SR_LANEID',
      'IADD3 R5, R0, c[0x0][0x164], RZ',
      'ISETP.EQ.AND P1, PT, R5, 0x1, PT',
      'MOV R2, RZ',
      '@P1 LDC R2, c[0x0][0x160]',
      'ISETP.EQ.AND P0, PT, R2, RZ, PT',
      ...probeLines,
    ],
  },
  // R2 = 1·1 + laneid: 1 in lane 0, 2 in lane 1; P0 = (R2 == 1) in lane 0 only, trap. IMAD's
  // addend differs between lanes: no tie.
  'IMAD addend per lane': {
    w: 2,
    params: [1, 0],
    body: [
      'S2R R0, SR_LANEID',
      'LDC R1, c[0x0][0x160]',
      'IMAD R2, R1, 0x1, R0',
      'ISETP.EQ.AND P0, PT, R2, 0x1, PT',
      ...probeLines,
    ],
  },
  // R1 = laneid + 16 after 16 turns: 16 in lane 0, 17 in lane 1; P0 in lane 0 only, trap.
  // Widening forgets R1, which the lanes hold apart: no tie.
  'widening, lanes apart': {
    w: 2,
    params: [16, 0],
    widen: 2,
    body: [
      'S2R R0, SR_LANEID',
      'MOV R2, RZ',
      'MOV R1, R0',
      'loop:',
      'IADD3 R2, R2, 0x1, RZ',
      'IADD3 R1, R1, 0x1, RZ',
      'ISETP.LT.AND P1, PT, R2, c[0x0][0x160], PT',
      '@P1 BRA loop',
      'ISETP.EQ.AND P0, PT, R1, 0x10, PT',
      ...probeLines,
    ],
  },
};

describe('shared unknowns: kernels from the review', () => {
  for (const [name, k] of Object.entries(reviewKernels)) {
    it(`covers the concrete trap: ${name}`, () => {
      const text = (extra: string) =>
        [`// @warpcheck warp-size=${k.w} warps=1${extra}`, ...k.body].join('\n');
      const given = text(` c[0x0][0x160]=${k.params[0]} c[0x0][0x164]=${k.params[1]}`);
      const concrete = outcomes(explore(machineOf(given, 'its'), budget));
      expect([...concrete], given).toContain('trap//'); // by hand, above
      for (const setup of [{}, { laneSymmetry: true, skipDeadWrites: true }]) {
        const r = explore(machineOf(text(''), 'its', { widen: k.widen ?? 0, ...setup }), budget);
        expect(r.bound).toBeNull();
        expect([...outcomes(r)], JSON.stringify(setup)).toContain('trap//');
      }
    });
  }
});

const reg = fc.integer({ min: 0, max: 4 }).map((r) => `R${r}`);
const pred = fc.integer({ min: 0, max: 1 }).map((p) => `P${p}`);
const small = fc.constantFrom('0x0', '0x1', '0x2');
const param = fc.constantFrom('c[0x0][0x160]', 'c[0x0][0x164]');
const cmp = fc.constantFrom('EQ', 'NE', 'LT', 'GT');
const guard = fc.option(
  fc.tuple(fc.boolean(), pred).map(([neg, p]) => `@${neg ? '!' : ''}${p} `),
  { nil: '', freq: 2 },
);

/** One instruction; `%T` is a branch target label. */
const instruction: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(reg, param).map(([d, c]) => `LDC ${d}, ${c}`) },
  { weight: 1, arbitrary: reg.map((d) => `S2R ${d}, SR_LANEID`) },
  // Each lane's own unknown (an opaque conversion).
  { weight: 1, arbitrary: fc.tuple(reg, reg).map(([d, a]) => `I2F ${d}, ${a}`) },
  { weight: 1, arbitrary: fc.tuple(guard, reg, small).map(([g, d, v]) => `${g}MOV ${d}, ${v}`) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(guard, reg, fc.boolean(), reg, fc.oneof(reg, small, param))
      .map(([g, d, neg, a, b]) => `${g}IADD3 ${d}, ${neg ? '-' : ''}${a}, ${b}, RZ`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(reg, reg, fc.oneof(reg, small), fc.constantFrom('0xc0', '0x3c', '0xfc'))
      .map(([d, a, b, lut]) => `LOP3.LUT ${d}, ${a}, ${b}, RZ, ${lut}, !PT`),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(guard, cmp, pred, reg, fc.oneof(reg, small, param))
      .map(([g, c, p, a, b]) => `${g}ISETP.${c}.AND ${p}, PT, ${a}, ${b}, PT`),
  },
  { weight: 4, arbitrary: guard.map((g) => `${g}BRA %T`) },
  { weight: 1, arbitrary: pred.map((p) => `@${p} EXIT`) },
  { weight: 1, arbitrary: pred.map((p) => `@${p} BPT.TRAP 0x1`) },
  { weight: 1, arbitrary: fc.constant('WARPSYNC.ALL') },
  { weight: 1, arbitrary: fc.tuple(reg, pred).map(([d, p]) => `VOTE.ANY ${d}, PT, ${p}`) },
  // A loop that counts R3 (a kernel parameter, set before the body) down to zero.
  {
    weight: 2,
    arbitrary: fc.constant(
      'IADD3 R3, R3, -0x1, RZ ;\n        ISETP.GT.AND P1, PT, R3, RZ, PT ;\n        @P1 BRA %T',
    ),
  },
);

/**
 * The end of every kernel: a trap exactly when the active lanes disagree on P0 — how a tie that
 * does not hold (two lanes' own unknowns taken as one) would show: it could never trap.
 */
const probe = [
  'VOTE.ANY R4, P5, P0 ;',
  'VOTE.ALL R4, P6, P0 ;',
  '@!P5 BRA `(END) ;',
  '@P6 BRA `(END) ;',
  'BPT.TRAP 0x1 ;',
  'END:',
  'EXIT ;',
];

const kernel = fc
  .record({
    w: fc.integer({ min: 2, max: 3 }),
    body: fc.array(fc.tuple(instruction, fc.nat()), { minLength: 2, maxLength: 9 }),
  })
  .map(({ w, body }) => {
    const n = body.length;
    const lines = body.flatMap(([ins, t], i) => [
      `L${i}:`,
      `        ${ins.replace('%T', `\`(L${t % (n + 1)})`)} ;`,
    ]);
    const text = ['LDC R3, c[0x0][0x160] ;', ...lines, `L${n}:`, ...probe];
    return { w, text: text.join('\n') };
  });

const cases = fc.record({
  k: kernel,
  mech: fc.constantFrom(...mechanisms),
  values: fc.array(fc.tuple(fc.nat(4), fc.nat(4)), { minLength: 2, maxLength: 3 }),
});

/**
 * Checks one case: every concrete outcome is an abstract one. Returns null when a search ran
 * out of budget, else whether the abstract search stored fewer states than with each lane its own
 * unknown (sharing at work).
 */
function covers(
  c: { k: { w: number; text: string }; mech: string; values: [number, number][] },
  plant: boolean,
): boolean | null {
  const head = (extra: string) => `// @warpcheck warp-size=${c.k.w} warps=1${extra}\n`;
  const abstract = explore(
    machineOf(head('') + c.k.text, c.mech, {
      widen: 2,
      ...(plant ? { sharedUnknowns: 'plant' as const } : {}),
    }),
    budget,
  );
  if (abstract.bound !== null) return null;
  const got = outcomes(abstract);
  for (const [a, b] of c.values) {
    const text = head(` c[0x0][0x160]=${a} c[0x0][0x164]=${b}`) + c.k.text;
    const concrete = explore(machineOf(text, c.mech), budget);
    if (concrete.bound !== null) continue;
    for (const o of outcomes(concrete)) expect(got, text).toContain(o);
  }
  const off = explore(
    machineOf(head('') + c.k.text, c.mech, { widen: 2, sharedUnknowns: 'off' }),
    budget,
  );
  return off.bound === null && abstract.states < off.states;
}

describe('shared unknowns: the law', () => {
  it('covers every run with the kernel parameters given (soundness)', () => {
    let compared = 0;
    let smaller = 0;
    fc.assert(
      fc.property(cases, (c) => {
        const r = covers(c, false);
        if (r === null) return;
        compared++;
        if (r) smaller++;
      }),
      { seed: 20261128, numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(250);
    // The kernels must make sharing act: searches it makes smaller.
    expect(smaller).toBeGreaterThan(50); // seed 20261128: 300 compared, 75 smaller
  }, 240_000);

  it('fails on a planted bug: unknowns each lane computes of its own tied together', () => {
    // Seed 20261128 shrinks to `I2F R0, R0; ISETP.EQ.AND P0, PT, R0, R0, PT` on `its`: with the
    // tie, P0 is one value in both lanes and the probe never traps; given the parameters, the
    // lanes' own unknowns may disagree on P0 (the model does not know R0 = R0) and it traps.
    expect(() =>
      fc.assert(
        fc.property(cases, (c) => {
          covers(c, true);
        }),
        { seed: 20261128, numRuns: 300 },
      ),
    ).toThrow();
  }, 240_000);
});

/** `bsyncLoops` with a kernel parameter in R8 and R9 = R8 + R5 made in the loop. */
const tiedLoops = bsyncLoops.map((text) =>
  text
    .replace('        MOV R5, RZ ;', '        MOV R5, RZ ;\n        LDC R8, c[0x0][0x160] ;')
    .replace(
      'L:\n        IADD3 R5, R5, 0x1, RZ ;',
      'L:\n        IADD3 R5, R5, 0x1, RZ ;\n        IADD3 R9, R8, R5, RZ ;',
    )
    .replace('J:\n', 'J:\n        ISETP.EQ.AND P6, PT, R9, R8, PT ;\n   @P6  BPT.TRAP 0x3 ;\n'),
);

/** One search of `text` with every summary checked against its walked chain; null past the budget. */
function verified(text: string, plant?: 'ignore-tags'): ExploreResult | null {
  // Widening after four turns: the lanes that leave at different turns carry different tags.
  const m = machineOf(text, 'its', { widen: 4, laneSymmetry: true });
  const r = explore(m, budget, undefined, {
    verifySummaries: true,
    ...(plant ? { plantUnsoundSummaries: plant } : {}),
  });
  if (r.bound !== null) return null;
  expect(r.chainSummaries?.mismatches ?? 0, text).toBe(0);
  return r;
}

describe('shared unknowns in summaries of chains (its)', () => {
  // Lanes that leave a loop at different turns and meet at its BSYNC (`bsyncLoops`), where
  // summaries apply, with a kernel parameter in R8 (a tag in every lane) and R9 = R8 + R5 made in
  // the loop (a fresh tag per turn, tied among the lanes still running; the lanes that left keep
  // theirs) and compared after the BSYNC. Verify mode walks every chain a summary answers.
  it('each summary answers a chain as walking it does, with tags made inside the chain', () => {
    let hits = 0;
    fc.assert(
      fc.property(tiedLoops, fc.nat(3), (text, c) => {
        const abstract = verified(text);
        if (abstract === null) return;
        hits += abstract.chainSummaries?.hits ?? 0;
        const given = text.replace('warps=1', `warps=1 c[0x0][0x160]=${c}`);
        const concrete = explore(machineOf(given, 'its'), budget);
        if (concrete.bound !== null) return;
        const got = outcomes(abstract);
        for (const o of outcomes(concrete)) expect(got, given).toContain(o);
      }),
      { seed: 20261128, numRuns: 30 },
    );
    // seed 20261128: 238 summary hits, each checked.
    expect(hits).toBeGreaterThan(150);
  }, 240_000);

  it('fails on a planted bug: a key without the tags the other lanes hold (ignore-tags)', () => {
    expect(() =>
      fc.assert(
        fc.property(tiedLoops, (text) => {
          verified(text, 'ignore-tags');
        }),
        { seed: 20261128, numRuns: 60 },
      ),
    ).toThrow();
  }, 240_000);
});
