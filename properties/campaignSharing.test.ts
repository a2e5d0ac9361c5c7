/**
 * What `check` shares between the campaigns of one law (issue 10 §4, speed): kernels generated once
 * per seed (`laws/sharedArbitrary.ts`) and searches run once per machine and budget
 * (`laws/lawExplore.ts`, `laws/machine.ts`). Sharing must not change a result: the values, the
 * failing case and its shrink path are those of the generator without sharing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPINLOCK_W2 } from '../model/core/coreTesting.ts';
import { lawOptions } from './laws/campaign.ts';
import { kernelOfText } from './laws/kernels.ts';
import { lawExplore } from './laws/lawExplore.ts';
import { build, walk } from './laws/machine.ts';
import { sharedArbitrary } from './laws/sharedArbitrary.ts';

/** Arrays of small integers, counting how often fast-check asks for a fresh one. */
function counted() {
  const calls = { n: 0 };
  const arb = fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 8 }).map((xs) => {
    calls.n++;
    return xs;
  });
  return { arb, calls };
}

/** The values a property sees, and fast-check's verdict, for a property failing on large sums. */
function campaign(arb: fc.Arbitrary<number[]>, seed: number) {
  const seen: number[][] = [];
  const r = fc.check(
    fc.property(arb, (xs) => {
      seen.push(xs);
      return xs.reduce((a, b) => a + b, 0) < 2500;
    }),
    { seed, numRuns: 60 },
  );
  return {
    seen,
    failed: r.failed,
    counterexample: r.counterexample,
    path: r.counterexamplePath,
    shrinks: r.numShrinks,
  };
}

describe('sharedArbitrary', () => {
  it('gives the same values, counterexample and shrink path as the generator itself', () => {
    const plain = campaign(counted().arb, 7);
    const shared = campaign(
      sharedArbitrary('test: same values', () => counted().arb),
      7,
    );
    // The property does fail for this seed (a large sum), so shrinking is compared too.
    expect(plain.failed).toBe(true);
    expect(shared).toEqual(plain);
  });

  it('generates each value once for two campaigns with the same seed', () => {
    const { arb, calls } = counted();
    const shared = sharedArbitrary('test: once per seed', () => arb);
    const first = fc.sample(arb, { seed: 3, numRuns: 1 }).length; // the mapper runs once here
    calls.n -= first;
    const check = () =>
      fc.check(
        fc.property(shared, () => true),
        { seed: 11, numRuns: 50 },
      );
    check();
    const once = calls.n;
    expect(once).toBe(50);
    check();
    expect(calls.n).toBe(once); // the second campaign drew every kernel from the cache
    fc.check(
      fc.property(shared, () => true),
      { seed: 12, numRuns: 50 },
    );
    expect(calls.n).toBe(100); // another seed: new kernels
  });
});

describe('searches shared between laws', () => {
  const kernel = kernelOfText(SPINLOCK_W2);
  const budget = { maxStates: 20_000, maxDepth: 2_000, timeoutMs: 10_000 };

  it('one machine for {} and the mechanism defaults spelled out', () => {
    const a = build(kernel, 'its', {}, false).machine;
    expect(build(kernel, 'its', lawOptions('its'), false).machine).toBe(a);
    // Other options, or refinement on, are another machine.
    expect(build(kernel, 'its', { grouping: 'single' }, false).machine).not.toBe(a);
    expect(build(kernel, 'hanoi', {}, true).machine).not.toBe(build(kernel, 'hanoi', {}, false));
  });

  it('a search on the same machine and budget is run once', () => {
    const m = build(kernel, 'simt-stack', {}, false).machine;
    const r = lawExplore(m, budget);
    // The spinlock is the SIMT deadlock of seed 000 Fig. 3 on a pre-Volta stack: a real search.
    expect(r.verdict).toBe('deadlock');
    expect(lawExplore(m, budget)).toBe(r);
    const other = lawExplore(m, { ...budget, warpSymmetry: false });
    expect(other).not.toBe(r);
    expect(other.verdict).toBe('deadlock');
  });

  it('a search stopped by its time limit is not kept (it depends on the load)', () => {
    const m = build(kernel, 'its', {}, false).machine;
    const tiny = { ...budget, timeoutMs: -1 };
    const r = lawExplore(m, tiny);
    expect(r.bound).toBe('time');
    expect(lawExplore(m, tiny)).not.toBe(r);
  });
});

describe('walk over new states only (P2)', () => {
  const m = build(
    kernelOfText(SPINLOCK_W2.replace('warps=1', 'warps=2')),
    'simt-stack',
    {},
    true,
  ).machine;

  it('visits one transition per state met after the first, and fewer than the full walk', () => {
    let full = 0;
    let fresh = 0;
    const keys = new Set<string>([m.key(m.initial())]);
    walk(m, 10_000, () => (full++, null));
    walk(
      m,
      10_000,
      ({ post }) => {
        fresh++;
        expect(keys.has(m.key(post))).toBe(false); // each visited post is new
        keys.add(m.key(post));
        return null;
      },
      true,
    );
    expect(fresh).toBe(keys.size - 1);
    expect(fresh).toBeLessThan(full);
  });

  it('a law about states breaks at the same transition, with the same schedule', () => {
    // Break at each of the first states met, one after the other: both walks must agree.
    const order: string[] = [];
    walk(m, 10_000, ({ post }) => (order.push(m.key(post)), null), true);
    expect(order.length).toBeGreaterThan(4);
    for (const target of order.slice(0, 12)) {
      const bad = ({ post }: { post: Parameters<typeof m.key>[0] }) =>
        m.key(post) === target ? 'hit' : null;
      expect(walk(m, 10_000, bad, true)).toEqual(walk(m, 10_000, bad));
    }
  });
});
