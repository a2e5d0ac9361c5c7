/**
 * The shapes of the law registry (DESIGN.md: reusable law checks applied to every mechanism).
 * A law is data plus one pure check; which (law, mechanism, kernel class) combinations are expected
 * to fail is data too (`expectations.ts`).
 */
import type fc from 'fast-check';
import type { DeadlockKind, Verdict } from '../../model/explore/verdict.ts';

import type { GeneratedKernel, KernelClass } from '../arbitraries/kernel.ts';

export type { GeneratedKernel, KernelClass };

/**
 * Classes the expectation table may name besides the generators' own: `spin-without-yield` (busy
 * waiting — a spin loop or a lock taken inside an if — with no YIELD anywhere: seed 000 §VI-C says only YIELD lets Turing switch paths before
 * reconvergence), `yield` (a YIELD anywhere), `barriers` (hand-placed or compiled BSSY/BSYNC), `any` (every kernel).
 */
export type ExpectationClass = KernelClass | 'spin-without-yield' | 'yield' | 'barriers' | 'any';

/** A schedule that shows a law failing, in the explorer's terms, so it can be saved as a scenario. */
export interface LawFinding {
  /** What the replayed schedule ends with; `incomplete` when the law broke in a running state. */
  readonly verdict: Verdict | 'incomplete';
  readonly kind: DeadlockKind | null;
  readonly property: string | null;
  /** What broke, for people. */
  readonly message: string;
  /** Choice indices from the initial state (a lasso from `loop` on, for a livelock). */
  readonly schedule: readonly number[];
  readonly loop: number | null;
  /** The options of the mechanism that ran `schedule` (may differ from the campaign's, e.g. P7). */
  readonly options: Readonly<Record<string, string>>;
  /** The run checked each issue against the reference (`refines-its`); replay must do the same. */
  readonly refine: boolean;
  /** Figures the law reports beside pass/fail (e.g. the Levenshtein discrepancy of two traces). */
  readonly measures?: Readonly<Record<string, number>>;
  /**
   * The listing `schedule` runs on, when the law checks a transformation of the kernel (P8: the
   * compiled program); absent: the kernel's own text.
   */
  readonly program?: string;
}

export type LawOutcome =
  | { readonly ok: true; readonly measures?: Readonly<Record<string, number>> }
  /** The law does not speak about this kernel (a budget ran out, the reference itself fails). */
  | { readonly ok: 'skip'; readonly reason: string }
  | { readonly ok: false; readonly finding: LawFinding };

export interface CheckOptions {
  /** Mechanism options (defaults filled in by the registry). */
  readonly options: Readonly<Record<string, string>>;
  /** Exploration budget per search. */
  readonly budget: {
    readonly maxStates: number;
    readonly maxDepth: number;
    readonly timeoutMs: number;
    /** Warp symmetry (docs/semantics.md §15); on unless false (`check --no-warp-symmetry`). */
    readonly warpSymmetry?: boolean;
  };
}

/** A generator a law runs on, by name (so a saved counterexample can say where it came from). */
export interface KernelSource {
  readonly id: string;
  readonly description: string;
  readonly arbitrary: fc.Arbitrary<GeneratedKernel>;
}

export interface Law {
  /** Stable name: `termination`, `no-lane-lost`, … (used in `counterexamples/<law>/`). */
  readonly id: string;
  /** P1…P8 of issue 4. */
  readonly tag: string;
  /** What it says, with its source (seed §, SEMANTICS §). */
  readonly description: string;
  /** The generators it runs on for a mechanism (ids of `kernels.ts`; several are mixed). */
  sources(mechanism: string): readonly string[];
  /** Whether the law means something for a mechanism (by registered id). */
  appliesTo(mechanism: string): boolean;
  check(kernel: GeneratedKernel, mechanism: string, o: CheckOptions): LawOutcome;
}
