import type { DeadlockKind, Finding, Verdict } from './verdict.ts';
import type { PlantUnsoundPor } from './partialOrder.ts';
import type { PlantUnsoundAlone } from './aloneGroups.ts';
import type { PlantUnsoundBsync } from './bsyncPriority.ts';
import type { PlantUnsoundGroups } from './groupPriority.ts';
import type { PlantUnsoundWarpSymmetry } from './warpSymmetry.ts';
import type { PlantUnsoundAccel } from './acceleration.ts';
import type { PlantUnsoundSummaries } from './laneChains.ts';
import type { PlantUnsoundFrozen } from './frozenLanes.ts';

/**
 * What a search takes and gives (`exhaustive.ts`, `random.ts`): budgets, progress, the result,
 * and the reductions with their switches and planted bugs.
 */

/** Every search has a budget (DESIGN.md) and says which one it hit. */
export interface Budget {
  readonly maxStates: number;
  readonly maxDepth: number;
  readonly timeoutMs: number;
  /** Resident memory of the process, in MB, past which the search stops (`bound: 'memory'`). */
  readonly maxMemoryMb?: number;
}

export const defaultBudget: Budget = { maxStates: 2_000_000, maxDepth: 100_000, timeoutMs: 60_000 };

export interface Progress {
  readonly states: number;
  readonly transitions: number;
  readonly depth: number;
  readonly elapsedMs: number;
}

export interface ExploreResult {
  readonly verdict: Verdict;
  readonly kind: DeadlockKind | null;
  readonly message: string;
  /** Distinct states reached (including ones left unexpanded at a bound). */
  readonly states: number;
  readonly transitions: number;
  /** Deepest BFS level reached. */
  readonly depth: number;
  readonly timeMs: number;
  /** The budget that ran out, if any. */
  readonly bound: 'states' | 'depth' | 'time' | 'branching' | 'memory' | 'random' | null;
  /** The search ran with lane symmetry (its machine's `symmetric`): schedules replay only so. */
  readonly laneSymmetry: boolean;
  /** The search ran with partial-order reduction over warps (`partialOrder.ts`). */
  readonly partialOrder?: boolean;
  /**
   * The search ran with EXIT priority among one warp's lane groups (`groupPriority.ts`), and in
   * how many distinct warp states it expanded an exiting group alone.
   */
  readonly exitPriority?: { readonly applied: number };
  /**
   * The search ran with groups that run alone (`aloneGroups.ts`), and in how many distinct warp
   * states it expanded such a group alone.
   */
  readonly aloneGroups?: { readonly applied: number };
  /**
   * The search ran with BSYNC priority among one warp's lane groups (`bsyncPriority.ts`), and in
   * how many distinct warp states it expanded a group arriving at a BSYNC alone.
   */
  readonly bsyncPriority?: { readonly applied: number };
  /** The search ran with warp symmetry (`warpSymmetry.ts`): states up to permuting free warps. */
  readonly warpSymmetry?: boolean;
  /**
   * Steps run inside accelerated chains and not stored (`acceleration.ts`), past each chain's
   * first step; 0 when acceleration was off or never applied. A verdict with a nonzero count
   * rests on acceleration (the notes say so).
   */
  readonly accelerated?: number;
  /**
   * Accelerated chains that passed a step a group rule picked (a group that runs alone, or one
   * that starts to wait at a BSYNC first: `Chains.followForced`), memo hits included.
   */
  readonly forcedChains?: number;
  /**
   * Summaries of chains by their running lanes (`laneChains.ts`): chains answered from a summary
   * (`hits`) and chains recorded as one; null when they were off or do not apply (a mechanism
   * without `moveLanes`).
   */
  readonly chainSummaries?: {
    readonly hits: number;
    readonly recorded: number;
    /** With `verifySummaries`: summaries whose end differed from the walked chain's. */
    readonly mismatches: number;
  } | null;
  /**
   * Summaries of frozen lanes (`frozenLanes.ts`): states given the exits of a summary instead of
   * their interior (`hits`), summaries recorded, projections refused, and (verify mode) macro
   * expansions that differed from their own closure; null when off or not applicable.
   */
  readonly frozenLanes?: {
    readonly hits: number;
    readonly recorded: number;
    readonly refused: number;
    readonly mismatches: number;
  } | null;
  /**
   * Warp objects the search dropped and computed again from their origins (`VisitedStates`,
   * docs/semantics.md §14.6): memory only, the same states.
   */
  readonly recomputedWarps?: number;
  /** The first (shortest) finding of every distinct outcome, best-ranked first. */
  readonly findings: readonly Finding[];
  /** Terminal states in which every lane exited. */
  readonly terminalStates: number;
  readonly notes: readonly string[];
}

/** Which sound reductions the search applies; each can be switched off (all on by default). */
export interface Reductions {
  /**
   * Dead-value reduction: states that differ only in lane registers or predicates that no lane can
   * read again before overwriting them are one state (`machine/liveness.ts`). They are bisimilar
   * with the same issue labels, so every verdict — fair cycles included — is unchanged; only state
   * counts shrink. Applies when the mechanism reports `lanePcs`.
   */
  readonly deadValues: boolean;
  /**
   * Partial-order reduction over warps (`partialOrder.ts`, docs/semantics.md): a warp whose steps
   * are all local is expanded alone, with the cycle proviso; deadlocks, stops and fair cycles are
   * preserved. Applies with two or more warps; redone without it when a step resolves an unknown.
   */
  readonly partialOrder: boolean;
  /**
   * EXIT priority inside one `its` warp under maximal grouping, or one `dws` warp
   * (`groupPriority.ts`, docs/semantics.md §14.1): ready lanes at an unguarded EXIT that ends no
   * run exit before any other group (split) moves. Deadlocks, stops, terminal states and fair
   * cycles are preserved.
   */
  readonly exitPriority: boolean;
  /**
   * Groups that run alone inside one `its` warp under maximal grouping (`aloneGroups.ts`,
   * docs/semantics.md §14.3): a group at a lane-local instruction off every control-flow cycle,
   * which no other lane of the warp may reach or meet, issues before any other group moves.
   * Deadlocks, stops, terminal states and fair cycles are preserved.
   */
  readonly aloneGroups: boolean;
  /**
   * BSYNC priority inside one `its` warp under maximal grouping (`bsyncPriority.ts`,
   * docs/semantics.md §14.4): ready lanes at an unguarded BSYNC off every control-flow cycle whose
   * arrival releases nothing, while no other lane may re-arm the barrier or issue where its
   * waiters land, start to wait before any other group moves. Deadlocks, stops, terminal states
   * and fair cycles are preserved.
   */
  readonly bsyncPriority: boolean;
  /**
   * Warp symmetry (`warpSymmetry.ts`, docs/semantics.md §15): states equal up to a permutation
   * of warps that can no longer read their own index are one state; livelocks are decided with
   * each warp tracked through the permutations (`trackedFairness.ts`). Applies with two or more
   * warps on a per-warp mechanism.
   */
  readonly warpSymmetry: boolean;
  /**
   * Chain acceleration (`acceleration.ts`, docs/semantics.md §14.2): a path of states that each
   * expand one local data step issuing all of its warp's ready lanes is followed without storing
   * its intermediate states; every verdict, fair cycles included, is unchanged.
   */
  readonly accelerate: boolean;
  /**
   * Summaries of chains by their running lanes (`laneChains.ts`, docs/semantics.md §14.5): a
   * chain whose ready lanes match, signature for signature, those of a chain already walked takes
   * that chain's end for those lanes, the other lanes staying where they wait. Needs `accelerate`;
   * applies to mechanisms that declare `moveLanes` (`its`). The states reached are the same.
   */
  readonly chainSummaries: boolean;
  /**
   * Summaries of frozen lanes (`frozenLanes.ts`, docs/semantics.md §14.7): a one-warp `its` state
   * whose ready lanes and frozen context match those of a state whose interior the search already
   * explored takes that interior's exits, with its own waiting lanes, instead of exploring it
   * again. Needs `accelerate`; the search is redone without it when a macro edge lies on a cycle
   * or a finding does not walk again.
   */
  readonly frozenLanes: boolean;
}

export const defaultReductions: Reductions = {
  deadValues: true,
  partialOrder: true,
  exitPriority: true,
  aloneGroups: true,
  bsyncPriority: true,
  warpSymmetry: true,
  accelerate: true,
  chainSummaries: true,
  frozenLanes: true,
};

/** Every reduction off: the plain search the soundness laws compare with. */
export const noReductions: Reductions = {
  deadValues: false,
  partialOrder: false,
  exitPriority: false,
  aloneGroups: false,
  bsyncPriority: false,
  warpSymmetry: false,
  accelerate: false,
  chainSummaries: false,
  frozenLanes: false,
};

export interface ExploreOptions {
  readonly reduce?: Partial<Reductions>;
  /** A planted bug for the partial-order soundness law; never set outside tests. */
  readonly plantUnsoundPor?: PlantUnsoundPor;
  /** A planted bug for the EXIT-priority soundness law; never set outside tests. */
  readonly plantUnsoundGroups?: PlantUnsoundGroups;
  /** A planted bug for the law of groups that run alone; never set outside tests. */
  readonly plantUnsoundAlone?: PlantUnsoundAlone;
  /** A planted bug for the BSYNC-priority soundness law; never set outside tests. */
  readonly plantUnsoundBsync?: PlantUnsoundBsync;
  /** A planted bug for the warp-symmetry soundness law; never set outside tests. */
  readonly plantUnsoundWarpSymmetry?: PlantUnsoundWarpSymmetry;
  /** A planted bug for the acceleration soundness law; never set outside tests. */
  readonly plantUnsoundAccel?: PlantUnsoundAccel;
  /** A planted bug for the law of summaries of chains; never set outside tests. */
  readonly plantUnsoundSummaries?: PlantUnsoundSummaries;
  /**
   * The law of summaries only: every chain a summary answers is walked too and compared
   * (`ExploreResult.chainSummaries.mismatches`); the search goes on with the walked end.
   */
  readonly verifySummaries?: boolean;
  /** A planted bug for the law of frozen-lane summaries; never set outside tests. */
  readonly plantUnsoundFrozen?: PlantUnsoundFrozen;
  /**
   * The law of frozen-lane summaries only: every macro expansion is checked against the interior
   * closure of its own state (`ExploreResult.frozenLanes.mismatches`).
   */
  readonly verifyFrozen?: boolean;
  /** Summaries of frozen lanes start at this many stored states (default `FROZEN_AFTER`). */
  readonly frozenAfter?: number;
  /**
   * The law of origins only (`VisitedStates`): every interned warp that has an origin is dropped
   * at once, so that each read of it computes it again (and checks it against its key).
   */
  readonly stressOrigins?: boolean;
  /** A planted bug for the law of origins: chains' origins one step too long; never set outside tests. */
  readonly plantUnsoundOrigins?: 'chain-one-more';
  /**
   * On a machine that skips dead writes, check that each finding's schedule replays on the
   * machine that computes every write, and search there when one does not (default on). The
   * dead-write law turns it off to see the skipping search alone.
   */
  readonly checkDeadWriteReplays?: boolean;
  /**
   * A planted bug for the lane-symmetry law: a cycle fair per place is taken as a livelock though
   * the mechanism's places are coarse (`Mechanism.coarsePlaces`); never set outside tests.
   */
  readonly plantTrustCoarsePlaces?: boolean;
}
