/**
 * The explorer's reductions and keys against plain searches (DESIGN.md: "check each reduction by
 * comparing verdicts with and without it"):
 * - the dead-value reduction never changes a verdict (kind and property included) on random
 *   kernels, on every mechanism and atomic order, and what it reports still replays — lassos
 *   return to exactly the state where their cycle starts;
 * - without reductions the explorer visits exactly the states and transitions of a naive
 *   breadth-first search over `Machine.successors` and `Machine.key`;
 * - exact keys are injective on reachable states (distinct states, distinct keys).
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { AtomicOrder } from '../lanes/execContext.ts';
import type { Machine, MachineState } from '../machine/machine.ts';
import { machineOf, replay } from '../testing/run.ts';
import { explore, type Budget, type ExploreResult } from './exhaustive.ts';
import { randomKernel } from './randomKernels.ts';
import { expectSameOutcomes, outcomes, verdictOf } from '../testing/outcomes.ts';

const budget: Budget = { maxStates: 20_000, maxDepth: 10_000, timeoutMs: 20_000 };
/**
 * Each reduction is checked alone: partial-order reduction, EXIT priority and warp symmetry have
 * their own laws (partialOrder.test.ts, groupPriority.test.ts, warpSymmetry.test.ts).
 */
const noPor = {
  reduce: { partialOrder: false, exitPriority: false, aloneGroups: false, warpSymmetry: false },
};

const configs: readonly { mech: string; options: Record<string, string> }[] = [
  { mech: 'its', options: {} },
  { mech: 'its', options: { grouping: 'single' } },
  { mech: 'simt-stack', options: {} },
  { mech: 'simt-stack', options: { order: 'majority-first', warpsync: 'nop' } },
];

/** Every distinct outcome a search reports (verdict, kind, property), sorted. */
/** Every finding replays to its outcome; a lasso returns to its exact start and is fair. */
function checkFindings(machine: Machine, result: ExploreResult): void {
  for (const f of result.findings) {
    const { states, last } = replay(machine, f.schedule);
    const end = states.at(-1)!;
    if (f.loop !== null) {
      expect(machine.behaviourKey(states[f.loop]!)).toBe(machine.behaviourKey(end));
      const cycle = states.slice(f.loop, -1);
      const steps = f.schedule.slice(f.loop);
      for (let w = 0; w < machine.launch.warps; w++) {
        let always = true;
        let ready = 0xffffffff;
        let issued = 0;
        let lanes = 0;
        cycle.forEach((s, i) => {
          const succ = machine.successors(s);
          if (!succ.some((t) => t.warp === w)) always = false;
          ready &= machine.mechanism.ready(s.warps[w]!.mech);
          const t = succ[steps[i]!]!;
          if (t.warp === w) {
            issued++;
            lanes |= t.issue.mask;
          }
        });
        if (always)
          expect(issued, `warp ${w} is enabled throughout but never issues`).toBeGreaterThan(0);
        if (machine.mechanism.laneFairness)
          expect((ready & ~lanes) >>> 0, `lanes of warp ${w} ready throughout never issue`).toBe(0);
      }
    } else if (f.verdict === 'terminates') expect(machine.status(end)).toBe('terminated');
    else if (f.verdict === 'deadlock') expect(machine.status(end)).toBe('blocked');
    else expect(last?.stop?.verdict, f.message).toBe(f.verdict);
  }
}

describe('dead-value reduction', () => {
  it('gives the verdict of the unreduced search on random kernels, and its findings replay', () => {
    let compared = 0;
    let smaller = 0;
    let smallerLivelocks = 0;
    fc.assert(
      fc.property(
        randomKernel({ maxLength: 12 }),
        fc.constantFrom(...configs),
        fc.constantFrom<AtomicOrder>('ascending', 'explore'),
        (k, { mech, options }, atomicOrder) => {
          const machine = machineOf(k.text, mech, { options, atomicOrder });
          const plain = explore(machine, budget, undefined, {
            reduce: {
              deadValues: false,
              partialOrder: false,
              exitPriority: false,
              warpSymmetry: false,
              accelerate: false,
            },
          });
          const reduced = explore(machine, budget, undefined, {
            reduce: { deadValues: true, partialOrder: false, warpSymmetry: false },
          });
          if (plain.bound !== null || reduced.bound !== null) return;
          compared++;
          expect(verdictOf(reduced), k.text).toBe(verdictOf(plain));
          expect(reduced.states).toBeLessThanOrEqual(plain.states);
          if (reduced.states < plain.states) smaller++;
          if (reduced.states < plain.states && plain.kind === 'livelock') smallerLivelocks++;
          // Every distinct outcome the plain search finds, the reduced one finds too.
          expect(outcomes(reduced)).toEqual(outcomes(plain));
          checkFindings(machine, reduced);
        },
      ),
      { seed: 20261122, numRuns: 1000 },
    );
    // The kernels must exercise the reduction, not only pass through it.
    // (seed 20261122: 964 compared, 111 smaller, 60 of them livelocks.)
    expect(compared).toBeGreaterThan(800);
    expect(smaller).toBeGreaterThan(80);
    expect(smallerLivelocks).toBeGreaterThan(30);
    // 1,000 kernels × two searches: ~25 s alone, over a minute on a shared machine.
  }, 240_000);

  it('fails on a planted unsound relevance (BRA not counted as reading its guard)', () => {
    expect(() =>
      fc.assert(
        fc.property(
          randomKernel({ maxLength: 12 }),
          fc.constantFrom(...configs),
          ({ text }, { mech, options }) => {
            const machine = machineOf(text, mech, { options, plantUnsoundRelevance: true });
            const plain = explore(machine, budget, undefined, {
              reduce: {
                deadValues: false,
                partialOrder: false,
                exitPriority: false,
                warpSymmetry: false,
                accelerate: false,
              },
            });
            const reduced = explore(machine, budget, undefined, {
              reduce: { deadValues: true, partialOrder: false, warpSymmetry: false },
            });
            if (plain.bound !== null || reduced.bound !== null) return;
            expectSameOutcomes(reduced, plain);
          },
        ),
        { seed: 20261122, numRuns: 1000 },
      ),
    ).toThrow();
  });

  it('shrinks the spinlock from ~60k to ~8k states at W = 4, K = 2 and keeps its verdicts', () => {
    const text = [
      '// @warpcheck warp-size=4 warps=2 mem[0x100]=0 mem[0x200]=0',
      'MOV R2, 0x100',
      'MOV R3, 0x1',
      'acquire:',
      'ATOMS.CAS R0, [R2], RZ, R3',
      'ISETP.NE.AND P0, PT, R0, RZ, PT',
      '@P0 BRA acquire',
      'MOV R4, 0x200',
      'ATOMS.ADD R5, [R4], R3',
      'ATOMS.EXCH RZ, [R2], RZ',
      'EXIT',
    ].join('\n');
    const its = machineOf(text, 'its');
    const plain = explore(its, { ...budget, maxStates: 200_000 }, undefined, {
      reduce: {
        deadValues: false,
        partialOrder: false,
        exitPriority: false,
        aloneGroups: false,
        warpSymmetry: false,
      },
    });
    const reduced = explore(its, budget, undefined, noPor);
    expect(plain.verdict).toBe('terminates');
    expect(reduced.verdict).toBe('terminates');
    expect(plain.states).toBe(60_237);
    expect(reduced.states).toBe(7_717);
    const stack = machineOf(text, 'simt-stack');
    const r = explore(stack, budget, undefined, noPor);
    expect(`${r.verdict}/${r.kind}`).toBe('deadlock/livelock');
    checkFindings(stack, r);
  });
});

describe('the explorer without reductions', () => {
  /** Naive breadth-first search: `Map` of exact string keys, `successors` of every state. */
  function naive(machine: Machine, limit: number) {
    const ids = new Map<string, number>();
    const queue: MachineState[] = [machine.initial()];
    ids.set(machine.key(queue[0]!), 0);
    let transitions = 0;
    const outcomes = new Set<string>();
    for (let i = 0; i < queue.length && ids.size < limit; i++) {
      const s = queue[i]!;
      const status = machine.status(s);
      if (status === 'terminated') outcomes.add('terminates//');
      if (status === 'blocked') outcomes.add('deadlock/blocked/');
      if (status !== 'running') continue;
      for (const t of machine.successors(s)) {
        transitions++;
        if (t.stop) outcomes.add(`${t.stop.verdict}//${t.stop.property ?? ''}`);
        else {
          const key = machine.key(t.next!);
          if (!ids.has(key)) {
            ids.set(key, queue.length);
            queue.push(t.next!);
          }
        }
      }
    }
    return { states: ids.size, transitions, outcomes, complete: ids.size < limit };
  }

  it('visits the states and transitions of a naive breadth-first search', () => {
    fc.assert(
      fc.property(randomKernel(), fc.constantFrom(...configs), (k, { mech, options }) => {
        const machine = machineOf(k.text, mech, { options });
        const n = naive(machine, 5_000);
        if (!n.complete) return;
        const r = explore(machine, budget, undefined, {
          reduce: {
            deadValues: false,
            partialOrder: false,
            exitPriority: false,
            warpSymmetry: false,
            accelerate: false,
          },
        });
        expect(r.states).toBe(n.states);
        expect(r.transitions).toBe(n.transitions);
        const found = new Set(
          r.findings
            .filter((f) => f.kind !== 'livelock')
            .map((f) => `${f.verdict}/${f.kind ?? ''}/${f.property ?? ''}`),
        );
        expect([...found].sort()).toEqual([...n.outcomes].sort());
      }),
      { seed: 20261127, numRuns: 200 },
    );
  });
});

describe('exact state keys', () => {
  it('distinct reachable states have distinct keys, equal states equal keys', () => {
    fc.assert(
      fc.property(randomKernel(), fc.constantFrom(...configs), (k, { mech, options }) => {
        const machine = machineOf(k.text, mech, { options });
        // Walk the state graph without deduplicating by key: states are told apart by value.
        const byKey = new Map<string, MachineState>();
        const queue = [machine.initial()];
        for (let i = 0; i < queue.length && i < 400; i++) {
          const s = queue[i]!;
          const key = machine.key(s);
          const seen = byKey.get(key);
          if (seen) {
            expect(isDeepStrictEqual(canonical(seen), canonical(s)), 'two states share a key').toBe(
              true,
            );
            continue;
          }
          byKey.set(key, s);
          for (const t of machine.successors(s)) if (t.next) queue.push(t.next);
        }
        // And no two distinct keys hold equal states.
        const values = new Set([...byKey.values()].map((s) => JSON.stringify(canonical(s))));
        expect(values.size).toBe(byKey.size);
      }),
      { seed: 20261128, numRuns: 200 },
    );
  });
});

/** A state as plain data with sorted object keys, for value comparison. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}
