import type { Op } from '../isa/op.ts';
import type { Program } from '../isa/program.ts';
import type { Outcome } from '../lanes/execute.ts';
import type { KeySink } from '../machine/key.ts';
import type { BlockContext, BlockMechanism } from './blockMechanism.ts';

/** One issue: the PC to run and the lanes that run it (DESIGN.md "The central interface"). */
export interface Issue {
  readonly pc: number;
  readonly mask: number;
  /**
   * A merged issue (seed 002 §4.5, `opcode-convergent`): the same opcode issued once for a second
   * lane group at another PC, each lane executing its own path's instruction (its own operands).
   * The machine runs `pc` for `mask`, then `merged.pc` for `merged.mask`, and hands the mechanism
   * one outcome for both. Only mechanisms that merge set it; the masks are disjoint.
   */
  readonly merged?: { readonly pc: number; readonly mask: number };
  /**
   * On the block machine (`machine/blockMachine.ts`, a block mechanism past 32 threads): the
   * formed warp's threads, one word per home warp (`threadMask.ts`); `mask` is then the home
   * lanes they occupy.
   */
  readonly threads?: readonly number[];
}

/**
 * How a mechanism treats an instruction (SEMANTICS §2 "foreign-instruction policy"):
 * `native` — it gives the instruction its meaning; `nop` — treated as a no-op; `reject` — the
 * run ends `unsupported`; `check` — WARPSYNC on a mechanism that cannot wait: a `violation` when a
 * named, non-exited lane is not active.
 */
export type Policy = 'native' | 'nop' | 'reject' | 'check';

/** What `advance` returns: the next state, or the end of the run with a verdict. */
export type Advance<S> =
  | { readonly kind: 'ok'; readonly state: S }
  | {
      readonly kind: 'stop';
      readonly verdict: 'violation' | 'unsupported' | 'undefined-behavior' | 'resource-exhausted';
      /** The property that broke, for `violation` (e.g. `warpsync-check`). */
      readonly property?: string;
      readonly message: string;
    };

/** A mechanism's state for people: tables in the layout of the papers' figures, and plain data. */
export interface StateView {
  readonly tables: readonly {
    readonly title: string;
    readonly columns: readonly string[];
    readonly rows: readonly (readonly string[])[];
  }[];
  /** JSON data that hand-written scenarios compare against (PCs as labels, masks as binary). */
  readonly data: unknown;
}

/** Prints PCs and masks for views: label names where the program has them. */
export interface Formatter {
  pc(pc: number): string;
  mask(mask: number): string;
}

/** What a mechanism is built from: the program, its decoded ops, the warp size and the IPDOMs. */
export interface MechanismContext {
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly warpSize: number;
  readonly full: number;
  /** Entry PC of the kernel. */
  readonly entry: number;
  /** Immediate post-dominator PC of the instruction at `pc`; `VIRTUAL_EXIT` (-1) for the virtual exit. */
  ipdom(pc: number): number;
  /** Likely convergence point of a branch PC (seed 002 §3.11; the listing's `lcp=` items), for `lcp`. */
  readonly likelyConvergence?: ReadonlyMap<number, number>;
}

/**
 * A warp control-flow mechanism: pure functions over an immutable state (DESIGN.md). One value
 * serves every warp of a block; each warp has its own state.
 */
export interface Mechanism<S> {
  readonly id: string;
  /** Weak fairness per lane (its) rather than per warp only. */
  readonly laneFairness: boolean;
  /**
   * Lane symmetry (issue 16): the rules commute with renumbering lanes — no order, tie or choice
   * depends on lane numbers or on mask values as numbers, only on sets and their sizes — so
   * states that differ by a permutation of lanes behave alike up to that permutation. The key
   * must mark lane sets with `mask` and per-lane values with `lane`.
   */
  readonly laneSymmetric?: boolean;
  /**
   * Optional, with `laneFairness`: the lanes' fairness *places* (docs/semantics.md §13, "Fairness
   * under symmetry"). Calls `visit` with every group of lanes and its place, a number computed
   * from PCs and call depths only (never from lane numbers or masks). Contract:
   * 1. an issue's lanes all have one place, and an issue at a place takes every ready lane there;
   * 2. a ready lane keeps its place and stays ready until it issues itself.
   * Weak fairness per lane is then weak fairness per place — which renumbering lanes keeps, so
   * the lane-symmetric search checks fairness per (warp, place) (`explore/fairCycles.ts`).
   * `its` with maximal groups: the PC; `dws`: the split's (PC, call depth). A lane-fair
   * mechanism without it runs without lane symmetry.
   */
  fairPlaces?(state: S, visit: (place: number, mask: number) => void): void;
  /**
   * `fairPlaces` over-approximates lane fairness instead of matching it: every cycle fair per lane
   * is fair per place, but not the converse — with single-lane issues (`its` with
   * `grouping=single`) one lane of a PC may issue round a loop forever while another waits at that
   * PC. A lane-symmetric search that finds a cycle fair per place confirms it without lane
   * symmetry (`explore/exhaustive.ts`, docs/semantics.md §13 "Fairness under symmetry").
   */
  readonly coarsePlaces?: boolean;
  /**
   * Each issue is one lane acting alone (`its` with `grouping=single`): an issue of a data
   * instruction or a plain BRA changes only its lane's PC and registers, never another lane's
   * readiness or candidate. Partial-order reduction may then run one lane alone while its step
   * is local (`explore/partialOrder.ts`, `machine/footprint.ts`).
   */
  readonly threadIssues?: boolean;
  policy(op: Op): Policy;
  init(): S;
  /** What may issue next; [] = blocked or done; several = a choice for exploration. */
  candidates(state: S): readonly Issue[];
  /** Folds the lanes' outcomes of the issued instruction into the next state. */
  advance(state: S, issue: Issue, outcome: Outcome, exited: number): Advance<S>;
  /** Lanes that could issue now (not waiting, not exited): the per-lane fairness condition. */
  ready(state: S): number;
  /**
   * Writes the state's canonical numbers. `liveBarriers` (the reduced key, `Liveness.barrierLive`):
   * only these B registers may still be read by some lane before they are assigned again — a
   * mechanism that owns B registers keys the others as empty, unless a lane waits on them.
   */
  key(state: S, out: KeySink, liveBarriers?: number, arrived?: number): void;
  /**
   * Optional, for the reduced key of a mechanism whose lanes wait at a BSYNC without saying
   * where (`hanoi`, arrival runs, `hanoiRuns.ts`): the PC of the unguarded BSYNC at which its
   * key may count waiting lanes in with the lanes about to arrive there, else -1. With a
   * reference (`refines-its`), only the lanes that also wait at that BSYNC in the reference may
   * be counted in (`waitingLanes` ∩ the reference's `waitingAt`): the machine passes that set as
   * `arrived` to both keys — the mechanism counts those lanes in, the reference keys them as
   * standing ready at the BSYNC. Without a reference the mechanism gets no `arrived` and counts
   * in every waiting lane.
   */
  arrivalPc?(state: S): number;
  /** Optional, with `arrivalPc`: the lanes the mechanism holds as waiting. */
  waitingLanes?(state: S): number;
  /** Optional, for the reference (`its`): the lanes waiting at a BSYNC at `pc`. */
  waitingAt?(state: S, pc: number): number;
  view(state: S, fmt: Formatter): StateView;
  /**
   * Optional, for the explorer's dead-value reduction (`machine/liveness.ts`): calls `visit` with
   * every PC at which lanes of `mask` may issue next or resume later (a waiting entry, a
   * reconvergence point, a return PC). Contract: every instruction a lane executes from this
   * state on lies on a path of static successors (`liveness.ts`) starting at one of the PCs
   * reported for it here. A mechanism without it is explored without that reduction.
   */
  lanePcs?(state: S, visit: (pc: number, mask: number) => void): void;
  /**
   * For mechanisms that own convergence-barrier registers: the value of Bx, which `BMOV Rd, Bx`
   * writes to Rd (seed 000 §V-E). The machine executes that BMOV as a move of this value.
   */
  barrierValue?(state: S, barrier: number): number;
  /**
   * Optional, for mechanisms whose own instructions move lanes (the Fermi token stack's `.S`/SYNC
   * pops and BRK/CONT unwinding, SEMANTICS §3.3): `outcome` as the reference (`its`) must see it,
   * given the state `next` that `advance` returned — each issued lane's group is the PC at which
   * the mechanism will run it next. Without it the reference sees the lanes' own outcome.
   */
  refOutcome?(next: S, issue: Issue, outcome: Outcome): Outcome;
  /**
   * Optional, a shortcut for dead runs (`machine/deadRun.ts`): the state after the issue's lanes
   * go straight from `issue.pc` to `to` through data instructions, one `advance` per instruction
   * with the outcome "every issued lane to the next PC", no event, no exit — where the caller
   * knows that `issue` is the only candidate of `state`. Must equal those `to - issue.pc`
   * advances (with the issue moved along) whenever each intermediate state's only candidate is
   * the issue at the next PC; null when the mechanism cannot vouch for that (a reconvergence
   * point on the way, say), and the caller goes step by step.
   */
  straight?(state: S, issue: Issue, to: number): S | null;
  /**
   * Optional, for summaries of chains (`explore/laneChains.ts`): `into` with each lane
   * `pairs[2i]` given the per-lane state (PC, wait) that lane `pairs[2i + 1]` has in `from`, for
   * i < n; everything else as in `into`. Declared by a mechanism whose lane-local steps (a data
   * instruction, a plain BRA) issued by the warp's only ready lanes read and write only those
   * lanes' own entries, and keep every other lane from becoming ready: `its`.
   */
  moveLanes?(into: S, from: S, pairs: Int32Array, n: number): S;
  /**
   * Optional, for summaries of frozen lanes (`explore/frozenLanes.ts`): pushes onto `out` what a
   * step of other lanes may read of lane `l` while it waits at a convergence barrier or has
   * exited (`its`: its PC, wait and B-register membership); false when such a step may read more
   * of it (a lane at a WARPSYNC, whose mask names lanes by number). With `moveLanes`, it declares
   * that a step by the warp's ready lanes reads of the others only this, and changes a waiting
   * lane only by waking it or by changing its membership of a B register.
   */
  laneContext?(state: S, l: number, out: number[]): boolean;
}

/** An option a mechanism accepts: name, allowed values, default, and where the choice comes from. */
export interface OptionSpec {
  readonly name: string;
  readonly values: readonly string[];
  readonly default: string;
  readonly doc: string;
}

/** A registered mechanism: how to build it and what it accepts. */
export interface MechanismFactory {
  readonly id: string;
  readonly summary: string;
  readonly source: string;
  readonly options: readonly OptionSpec[];
  /**
   * `block`: a block-level mechanism (`blockMechanism.ts`): one state for all K warps, masks over
   * the block's threads, created with a `BlockContext`. Absent or `warp`: one state per warp.
   */
  readonly level?: 'warp' | 'block';
  /**
   * A block mechanism's own form (`level: 'block'`): thread sets of any block up to 8 × 32 threads
   * (`threadMask.ts`), run by the block machine past 32 threads (`machine/blockMachine.ts`);
   * `create` is then the same mechanism on the block view (`blockView.ts`, K·W ≤ 32).
   */
  createBlock?(
    ctx: BlockContext,
    options: Readonly<Record<string, string>>,
  ): BlockMechanism<unknown>;
  create(ctx: MechanismContext, options: Readonly<Record<string, string>>): Mechanism<unknown>;
}

export const VIRTUAL_EXIT = -1;

/** The BSSY option shared by the mechanisms that own B registers (SEMANTICS §2: OR is an option). */
export const BSSY_OPTION: OptionSpec = {
  name: 'bssy',
  values: ['assign', 'or'],
  default: 'assign',
  doc: 'BSSY assigns the active mask to Bx (SEMANTICS §2), or ORs it in',
};
