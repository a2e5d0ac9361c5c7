/**
 * A campaign: one law on one mechanism over `runs` generated kernels, with a fixed seed. Expected
 * failures (`expectations.ts`) are counted and one of them is shrunk (so it can be saved); an
 * unexpected failure ends the run and is shrunk by fast-check; a declared failure that never shows
 * is reported as missing.
 */
import fc from 'fast-check';
import { findMechanism, resolveOptions } from '../../model/mechanisms/registry.ts';
import { declaredFailures, expectedFailures, type Expectation } from './expectations.ts';
import { expectationClasses, findSource } from './kernels.ts';
import { sharedArbitrary } from './sharedArbitrary.ts';
import type { CheckOptions, GeneratedKernel, Law, LawFinding, LawOutcome } from './types.ts';

/**
 * Options the laws run each mechanism with, where they differ from its defaults. Hanoi takes
 * WARPSYNC registers from the top: the default (lowest free) clashes with compiler-allocated ones,
 * a known finding (scenarios/finding-hanoi-warpsync-register.sass) that would otherwise mask
 * everything else on code with `__syncwarp`.
 */
export const LAW_OPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  hanoi: { 'warpsync-alloc': 'highest' },
};

/** The full option map a law runs `mechanism` with (defaults, then `LAW_OPTIONS`, then `given`). */
export function lawOptions(
  mechanism: string,
  given: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const f = findMechanism(mechanism);
  if (!f) throw new Error(`unknown mechanism '${mechanism}'`);
  const r = resolveOptions(f, { ...LAW_OPTIONS[mechanism], ...given });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.options;
}

export const DEFAULT_BUDGET: CheckOptions['budget'] = {
  maxStates: 20_000,
  maxDepth: 2_000,
  timeoutMs: 10_000,
};

/** A failing kernel after shrinking, with everything needed to reproduce it. */
export interface Counterexample {
  readonly kernel: GeneratedKernel;
  readonly finding: LawFinding;
  /** Declared failures that cover it; empty for an unexpected failure. */
  readonly expected: readonly Expectation[];
  readonly seed: number;
  /** fast-check's replay path of the shrunk case (`fc.check(…, { seed, path })`). */
  readonly path: string;
  readonly shrinks: number;
}

export interface CampaignResult {
  readonly law: string;
  readonly mechanism: string;
  readonly source: string;
  readonly seed: number;
  /** Kernels generated and checked (shrinking not counted). */
  readonly runs: number;
  /** Kernels the law had nothing to say about (a budget ran out, the reference failed). */
  readonly skipped: number;
  readonly expectedFailures: number;
  readonly unexpectedFailures: number;
  /** Declared failures that never showed. */
  readonly missing: readonly Expectation[];
  /** Shrunk: the unexpected failure (first) and one expected failure. */
  readonly counterexamples: readonly Counterexample[];
  readonly shrinks: number;
  readonly timeMs: number;
  /** Per measure (e.g. `discrepancy`): how many kernels reported it, the sum and the largest. */
  readonly measures: Readonly<Record<string, { count: number; sum: number; max: number }>>;
  /** fast-check stopped early on `maxTimeMs`. */
  readonly interrupted: boolean;
}

export interface CampaignOptions {
  readonly runs: number;
  readonly seed: number;
  readonly budget?: CheckOptions['budget'];
  /** Mechanism options beyond `LAW_OPTIONS`. */
  readonly options?: Readonly<Record<string, string>>;
  /** Stop generating after this long (fast-check `interruptAfterTimeLimit`). */
  readonly maxTimeMs?: number;
  /** Generators to use instead of the law's own (`kernels.ts` ids). */
  readonly sources?: readonly string[];
  /** Called after every generated kernel (not during shrinking). */
  readonly onRun?: (done: number) => void;
}

export function runCampaign(law: Law, mechanism: string, o: CampaignOptions): CampaignResult {
  const t0 = performance.now();
  const ids = o.sources ?? law.sources(mechanism);
  const id = ids.join('+');
  // One generator per source mix, shared by every campaign of the process (`sharedArbitrary.ts`).
  const source = {
    id,
    arbitrary: sharedArbitrary(id, () =>
      ids.length === 1
        ? findSource(ids[0]!).arbitrary
        : fc.oneof(...ids.map((i) => findSource(i).arbitrary)),
    ),
  };
  const check: CheckOptions = {
    options: lawOptions(mechanism, o.options),
    budget: o.budget ?? DEFAULT_BUDGET,
  };
  let runs = 0;
  let skipped = 0;
  let expected = 0;
  let shrinking = false;
  let firstExpected: number | null = null;
  const seenClasses = new Set<string>();
  const measures: Record<string, { count: number; sum: number; max: number }> = {};
  const note = (m: Readonly<Record<string, number>> | undefined) => {
    for (const [k, v] of Object.entries(m ?? {})) {
      const e = (measures[k] ??= { count: 0, sum: 0, max: 0 });
      e.count++;
      e.sum += v;
      e.max = Math.max(e.max, v);
    }
  };
  const verdictOf = (k: GeneratedKernel): { out: LawOutcome; expect: readonly Expectation[] } => {
    const out = law.check(k, mechanism, check);
    const expect =
      out.ok === false ? expectedFailures(law.id, mechanism, expectationClasses(k)) : [];
    return { out, expect };
  };
  // Phase 1: only unexpected failures fail the property; expected ones are counted.
  const phase1 = fc.property(source.arbitrary, (k) => {
    const { out, expect } = verdictOf(k);
    if (!shrinking) {
      runs++;
      o.onRun?.(runs);
      if (out.ok === 'skip') skipped++;
      if (out.ok === true) note(out.measures);
      if (out.ok === false) note(out.finding.measures);
      if (out.ok === false && expect.length > 0) {
        expected++;
        firstExpected ??= runs - 1;
        for (const e of expect) seenClasses.add(e.class);
      }
    }
    if (out.ok === false && expect.length === 0) {
      shrinking = true;
      return false;
    }
    return true;
  });
  const r1 = fc.check(phase1, {
    seed: o.seed,
    numRuns: o.runs,
    ...(o.maxTimeMs ? { interruptAfterTimeLimit: o.maxTimeMs } : {}),
  });
  const counterexamples: Counterexample[] = [];
  let shrinks = 0;
  if (r1.failed && r1.counterexample && r1.counterexamplePath) {
    const k = r1.counterexample[0] as GeneratedKernel;
    const { out } = verdictOf(k);
    if (out.ok === false)
      counterexamples.push({
        kernel: k,
        finding: out.finding,
        expected: [],
        seed: o.seed,
        path: r1.counterexamplePath,
        shrinks: r1.numShrinks,
      });
    shrinks += r1.numShrinks;
  } else if (r1.failed && r1.errorInstance) {
    // The check itself threw (a generator or model bug): report it, do not hide it.
    throw r1.errorInstance;
  }
  // Phase 2: shrink the first expected failure (any failure of the law fails the property).
  if (firstExpected !== null) {
    shrinking = true;
    const anyFailure = fc.property(source.arbitrary, (k) => verdictOf(k).out.ok !== false);
    const r2 = fc.check(anyFailure, { seed: o.seed, path: String(firstExpected) });
    if (r2.failed && r2.counterexample && r2.counterexamplePath) {
      const k = r2.counterexample[0] as GeneratedKernel;
      const { out, expect } = verdictOf(k);
      if (out.ok === false)
        counterexamples.push({
          kernel: k,
          finding: out.finding,
          expected: expect,
          seed: o.seed,
          path: r2.counterexamplePath,
          shrinks: r2.numShrinks,
        });
      shrinks += r2.numShrinks;
    }
  }
  const unexpected = r1.failed ? 1 : 0;
  const missing =
    unexpected > 0 || r1.interrupted
      ? [] // the run ended early: absence proves nothing
      : declaredFailures(law.id, mechanism).filter(
          (e) => !seenClasses.has(e.class) && runs >= (e.minRuns ?? 0),
        );
  return {
    law: law.id,
    mechanism,
    source: source.id,
    seed: o.seed,
    runs,
    skipped,
    expectedFailures: expected,
    unexpectedFailures: unexpected,
    missing,
    counterexamples,
    shrinks,
    timeMs: performance.now() - t0,
    measures,
    interrupted: r1.interrupted,
  };
}
