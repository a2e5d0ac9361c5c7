/**
 * The unstructured CFG generator: listings load in strict mode, every lane's run is bounded (by the
 * fuel construction in unstructured.ts) and terminates on its, irreducible cycles occur and are
 * classed exactly as model/cfg finds them, and failures shrink to small graphs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explore } from '../../model/explore/exhaustive.ts';
import { load, machineOf } from '../../model/testing/run.ts';
import { instructionCount, laneTraces, type GeneratedKernel } from './kernel.ts';
import { cycleShape, unstructuredKernel } from './unstructured.ts';

const budget = { maxStates: 20_000, maxDepth: 5_000, timeoutMs: 5_000 };
const sample = (n: number, seed: number): GeneratedKernel[] =>
  fc.sample(unstructuredKernel(), { numRuns: n, seed });

describe('unstructuredKernel', () => {
  it('every listing loads in strict mode', () => {
    for (const k of sample(300, 201)) load(k.text, { strict: true });
  });

  it('loop and irreducible classes agree with model/cfg (natural loops, irreducible cycles)', () => {
    let irreducible = 0;
    for (const k of sample(300, 202)) {
      const fns = load(k.text, { strict: true }).cfg.functions;
      const irr = fns.some((f) => f.irreducibleCycles.length > 0);
      const cyc = fns.some((f) => f.loops.length + f.irreducibleCycles.length > 0);
      expect(k.classes.has('irreducible'), k.text).toBe(irr);
      expect(k.classes.has('loop'), k.text).toBe(cyc);
      if (irr) irreducible++;
    }
    // Irreducible graphs actually occur (about a third carry the two-entry motif).
    expect(irreducible).toBeGreaterThanOrEqual(50);
  });

  it('cycleShape: hand-made graphs (a two-entry cycle is irreducible, a natural loop is not)', () => {
    // 0 → 1, 0 → 2, 1 ⇄ 2: the cycle {1, 2} is entered at 1 and at 2.
    expect(cycleShape([[1, 2], [2], [1, 3], []])).toEqual({ cyclic: true, irreducible: true });
    // 0 → 1 → 2 → 1, 2 → 3: a natural loop with header 1.
    expect(cycleShape([[1], [2], [1, 3], []])).toEqual({ cyclic: true, irreducible: false });
    expect(cycleShape([[1, 2], [2], [3], []])).toEqual({ cyclic: false, irreducible: false });
    // An irreducible part that cannot be reached does not count.
    expect(cycleShape([[3], [2], [1], []])).toEqual({ cyclic: false, irreducible: false });
  });

  it('every lane runs at most (F + 1) · n instructions (F ≤ 3 its fuel, n the listing), on any schedule', () => {
    for (const k of sample(150, 203)) {
      const m = machineOf(k.text, 'its', { strict: true });
      const n = m.program.instructions.length;
      for (const choose of [() => 0, (c: number) => c - 1]) {
        const run = laneTraces(m, choose);
        expect(run.end, k.text).toBe('terminated');
        for (const t of run.traces) expect(t.length).toBeLessThanOrEqual(4 * n);
      }
    }
  });

  it('lanes never communicate: per-lane traces do not depend on the schedule', () => {
    for (const k of sample(100, 204)) {
      const a = laneTraces(machineOf(k.text, 'its'), () => 0);
      const b = laneTraces(
        machineOf(k.text, 'its', { options: { grouping: 'single' } }),
        (c) => c - 1,
      );
      expect(b.traces, k.text).toEqual(a.traces);
    }
  });

  it('terminates on its within a modest budget; bound-reached is rare', () => {
    let bounds = 0;
    for (const k of sample(100, 205)) {
      const r = explore(machineOf(k.text, 'its', { strict: true }), budget);
      if (r.bound !== null) bounds++;
      else expect(r.verdict, k.text).toBe('terminates');
    }
    expect(bounds).toBeLessThanOrEqual(10);
  });

  it('shrinks: "irreducible with two or more lanes" ends at 2 lanes, one warp, ≤ 12 instructions', () => {
    const out = fc.check(
      fc.property(unstructuredKernel(), (k) => !(k.classes.has('irreducible') && k.warpSize >= 2)),
      { seed: 206, numRuns: 300 },
    );
    expect(out.failed).toBe(true);
    const k = out.counterexample![0];
    expect(k.warpSize).toBe(2);
    expect(k.warps).toBe(1);
    expect(instructionCount(k.text), k.text).toBeLessThanOrEqual(12);
  });

  it('distribution over 1,000 samples', () => {
    const counts = new Map<string, number>();
    const sizes: number[] = [];
    for (const k of fc.sample(unstructuredKernel(), { numRuns: 1000, seed: 207 })) {
      for (const c of k.classes) counts.set(c, (counts.get(c) ?? 0) + 1);
      sizes.push(instructionCount(k.text));
    }
    sizes.sort((a, b) => a - b);
    console.log(
      'unstructuredKernel, 1,000 samples:',
      JSON.stringify({
        classes: Object.fromEntries([...counts].sort()),
        instructions: { median: sizes[500], p90: sizes[900], max: sizes[999] },
      }),
    );
    for (const c of ['loop', 'irreducible', 'early-exit', 'multi-warp'])
      expect(counts.get(c) ?? 0, c).toBeGreaterThanOrEqual(50);
  });
});
