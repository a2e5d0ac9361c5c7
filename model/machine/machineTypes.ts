import type { Op } from '../isa/op.ts';
import type { Program } from '../isa/program.ts';
import type { ExecContext, LaneOptions } from '../lanes/execContext.ts';
import type { LaneData } from '../lanes/laneData.ts';
import type { Launch } from '../lanes/launch.ts';
import type { Memory } from '../lanes/memory.ts';
import type {
  Formatter,
  Issue,
  StateView,
  Mechanism,
  MechanismFactory,
} from '../mechanisms/mechanism.ts';
import type { KeySink, KeyWriter } from './key.ts';
import type { LoopVisits, WideningPlant } from './widening.ts';
import type { DeadRunFn } from './deadRun.ts';
import type { DeadWritesPlant } from './deadWrites.ts';
import type { ItsState } from '../mechanisms/its.ts';

/**
 * One warp: its mechanism's state, its lanes' thread state, and — when the run checks refinement —
 * the reference (`its`) state driven by the same steps (`refinement.ts`).
 */
export interface WarpState {
  readonly mech: unknown;
  readonly data: LaneData;
  readonly ref?: ItsState;
  /** Loop turns after unknown branches, when loop widening is on (`widening.ts`). */
  readonly loops?: LoopVisits;
  /**
   * Lanes that forgot their own number in a symbolic split (issue 16): their thread and lane
   * ids read as unknown from then on, so they are no longer pinned by those reads.
   */
  readonly anonymous?: number;
}

/** A block of K warps sharing memory (SEMANTICS §1). Plain, immutable data. */
export interface MachineState {
  readonly warps: readonly WarpState[];
  readonly memory: Memory;
}

/** Verdicts a single step can end a run with (SEMANTICS §6). */
export type StopVerdict =
  | 'undefined-behavior'
  | 'trap'
  | 'resource-exhausted'
  | 'violation'
  | 'unsupported'
  /** The branching budget of unknown predicates ran out at this step (`ExecContext.maxAlternatives`). */
  | 'bound-reached';

export interface Stop {
  readonly verdict: StopVerdict;
  readonly property?: string;
  readonly message: string;
}

/**
 * One possible step from a state: warp `warp` issues `issue`; `choice` names a data alternative
 * (an unknown predicate's outcome, an atomic's winner). Exactly one of `next` and `stop` is set.
 */
export interface Transition {
  readonly warp: number;
  readonly issue: Issue;
  /** Index of (warp, issue) among the state's issues: alternatives of one issue share it. */
  readonly group: number;
  readonly choice: string | null;
  /** The alternative resolves an unknown value (fair choice, SEMANTICS §5). */
  readonly unknownChoice: boolean;
  /**
   * Lanes of different symmetry classes raced at a store or atomic (their order decided the
   * result), so this step does not commute with renumbering lanes: a lane-symmetric search that
   * meets one must be redone without symmetry (`explore/exhaustive.ts`).
   */
  readonly orderDependent?: boolean;
  /** Loop widening forgot values at this step (`widening.ts`): what follows is an over-approximation. */
  readonly widened?: boolean;
  readonly next: MachineState | null;
  readonly stop: Stop | null;
}

/** Everything needed to run one program on one mechanism under one launch. */
export interface Machine {
  readonly program: Program;
  readonly ops: readonly Op[];
  /** The launch the lanes run (for a block mechanism: its block view, one row of K·W lanes). */
  readonly launch: Launch;
  /** For a block mechanism (`mechanisms/blockMechanism.ts`): the launch as given, K warps of W. */
  readonly blockLaunch?: Launch;
  readonly ctx: ExecContext;
  readonly mechanism: Mechanism<unknown>;
  /** The mechanism's options, defaults filled in. */
  readonly options: Readonly<Record<string, string>>;
  readonly fmt: Formatter;
  initial(): MachineState;
  /** Every step possible from `s`, in a fixed order: a schedule is a list of indices into it. */
  successors(s: MachineState): Transition[];
  /** `terminated`: every lane exited; `blocked`: some lane has not, and nothing can issue. */
  status(s: MachineState): 'running' | 'terminated' | 'blocked';
  /** The exact canonical key of `s`: equal keys iff equal states. */
  key(s: MachineState): string;
  /**
   * `s` up to values that can no longer reach control (`liveness.ts`, relevance): equal keys mean
   * the two states behave alike forever — the same issues, choices and verdicts. A livelock's
   * cycle returns to a state with the key it started from (an accumulator may still grow).
   */
  behaviourKey(s: MachineState): string;
  /** Lanes that have not exited, per warp. */
  live(s: MachineState): number[];
  /** The reference (`its`) state of a warp when the run checks refinement, for replay views. */
  referenceView(ws: WarpState): StateView | null;
  /**
   * Appends warp `ws`'s canonical numbers to `out`. With `reduced` (only when `canReduce`), values
   * dead at every lane's PCs are left out: equal reduced keys mean bisimilar warps (`liveness.ts`).
   */
  warpKey(ws: WarpState, out: KeyWriter, reduced: boolean): void;
  /**
   * The warp's numbers as the key writer gives them before lane symmetry sorts them: each lane's
   * values marked as that lane's, lane sets as sets (`warpKeys.ts`); `reduced` as for `warpKey`.
   */
  writeWarp(ws: WarpState, out: KeySink, reduced: boolean): void;
  /** Appends the memory's canonical numbers to `out`. */
  memoryKey(m: Memory, out: KeyWriter): void;
  /** The mechanism reports its lanes' PCs (`Mechanism.lanePcs`), so `warpKey` can reduce. */
  readonly canReduce: boolean;
  /**
   * Lane symmetry is on (`MachineSpec.laneSymmetry`, and the mechanism's rules allow it):
   * `warpKey` is canonical under renumbering interchangeable lanes (`laneCanon.ts`) and branches
   * on unknown predicates split by counts of interchangeable lanes. Part of the semantics of
   * choices: a schedule made with it replays only with it.
   */
  readonly symmetric: boolean;
  /**
   * Shared memory can influence control (`Liveness.memoryRelevant`); when not, the reduced search
   * keys no memory at all.
   */
  readonly memoryRelevant: boolean;
  /**
   * `Liveness.mayReach` over the program's control successors (an over-approximation: a CALL
   * reaches its callee and return site, a RET every return site, an unknown target everywhere);
   * null when the analysis is not run (the mechanism reports no lane PCs).
   */
  readonly mayReach:
    ((isTarget: (pc: number) => boolean, blocked?: (pc: number) => boolean) => Uint8Array) | null;
  /** Why lane symmetry is off though asked for (null when on or not asked for). */
  readonly symmetryOff: string | null;
  /**
   * The machine names each step's fairness place itself (`WarpSteps.places`, `stepPlaces`): the
   * block machine (`blockMachine.ts`), whose issues are formed warps of up to 256 threads, places
   * their lowest threads. Lane fairness is then checked per place (`explore/fairCycles.ts`).
   */
  readonly placeFairness?: boolean;
  /** The same machine without lane symmetry. */
  withoutSymmetry(): Machine;
  /**
   * The same machine with nothing that rests on the graph of calls and returns: no lane symmetry,
   * every write computed, liveness opaque at CALL, RET and BRX (`MachineSpec.opaqueCalls`) — for
   * the search redone after a RET left that graph (`explore/offGraph.ts`). Itself when it is so.
   */
  withoutCallGraph(): Machine;
  /** Liveness follows CALL and RET (`MachineSpec.opaqueCalls` off, keys reducible). */
  readonly followsCalls: boolean;
  /**
   * The same machine computing every write (`MachineSpec.skipDeadWrites` off), or this one when
   * it already does: what saved scenarios replay on (`explore` checks its findings against it).
   */
  withoutDeadWrites(): Machine;
  /** Dead writes are skipped (`MachineSpec.skipDeadWrites`, where keys can be reduced). */
  readonly skipsDeadWrites: boolean;
  /**
   * The same machine with loop visits in the reduced key (`MachineSpec.keyLoopVisits`), or this
   * one when it keys them already or does not widen: a search whose stored states widen when the
   * runs that reach them do, so that every recorded path walks again (`explore`).
   */
  withLoopVisitsKeyed(): Machine;
  /**
   * Warp symmetry (`warpPins.ts`): whether warp `ws` may still read its own index and so must
   * keep it; null when warp symmetry never applies (a block mechanism).
   */
  readonly warpPinned: ((ws: WarpState) => boolean) | null;
  /**
   * The lanes of `ws` that may still read their own number (`laneSymmetry.ts`,
   * `ownNumberReaders`), with lane symmetry on or off.
   */
  readonly ownNumberReaders: (ws: WarpState) => number;
  /**
   * The B registers some lane of `ws` may still read (`Liveness.barrierLive` at each lane's PC,
   * and those its lanes wait on): the others are keyed empty by the reduced key. All sixteen
   * where the machine cannot tell.
   */
  readonly liveBarriers: (ws: WarpState) => number;
  /**
   * The steps of warp `k` alone, in state `ws` with memory `mem` (the other warps play no part in
   * them): `successors` restricted to that warp, with each step's next warp and memory. The
   * explorer caches these per (k, warp, memory).
   */
  warpSteps(k: number, ws: WarpState, mem: Memory): WarpSteps;
  /**
   * With dead writes on (`MachineSpec.skipDeadWrites`): up to `max` consecutive steps of warp `k`
   * that are each its one step and a dead write (`deadRun.ts`), taken without executing them —
   * loads too when `loads` (a launch of one warp) — or null when the first is not. What chains
   * use to cross runs of instructions whose results nothing reads (`acceleration.ts`).
   */
  readonly deadRun?: DeadRunFn;
}

/** One step of one warp (see `Transition`): the next warp and memory, or a stop. */
export interface WarpStep {
  readonly issue: Issue;
  /** Index of the issue among the warp's candidates. */
  readonly group: number;
  readonly choice: string | null;
  readonly unknownChoice: boolean;
  /** See `Transition.orderDependent`. */
  readonly orderDependent?: boolean;
  /** See `Transition.widened`. */
  readonly widened?: boolean;
  readonly warp: WarpState | null;
  readonly memory: Memory | null;
  readonly stop: Stop | null;
}

/** Everything one warp contributes to a state's expansion. */
export interface WarpSteps {
  /** The mechanism has something to issue (`candidates` is not empty). */
  readonly enabled: boolean;
  /** `mechanism.ready`: the lanes that could issue (lane fairness). */
  readonly ready: number;
  /** Some lane has not exited. */
  readonly live: boolean;
  /** Number of candidates (steps of one candidate share its group). */
  readonly issues: number;
  readonly steps: readonly WarpStep[];
  /**
   * On a machine that names fairness places itself (`Machine.placeFairness`): the places of the
   * ready issues, and each step's place (`stepPlaces[i]` for `steps[i]`).
   */
  readonly places?: readonly number[];
  readonly stepPlaces?: readonly number[];
}

export interface MachineSpec {
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly launch: Launch;
  readonly factory: MechanismFactory;
  readonly options: Readonly<Record<string, string>>;
  readonly lanes: LaneOptions;
  readonly entry: number;
  ipdom(pc: number): number;
  /**
   * Check that every issue is one the reference allows (`refines-its`, SEMANTICS §6). Default:
   * on for every mechanism but `its` itself.
   */
  readonly refine?: boolean;
  /** Likely convergence points (branch PC → LCP PC) for the `lcp` mechanism. */
  readonly likelyConvergence?: ReadonlyMap<number, number>;
  /**
   * Lane symmetry (issue 16, `laneCanon.ts`): canonical warp keys under renumbering of
   * interchangeable lanes, and counted splits of unknown branches. Applied only where the
   * mechanism declares its rules lane-symmetric. Default off.
   */
  readonly laneSymmetry?: boolean;
  /**
   * Loop widening (issue 16, `widening.ts`): after this many turns of a loop taken after a
   * branch on an unknown value, a lane forgets what the loop writes. 0 or absent: off.
   */
  readonly widen?: number;
  /**
   * Dead writes (`deadWrites.ts`, docs/semantics.md §13): a lane-local data op or load whose
   * destinations are all dead after it is issued without computing them, so the stored states
   * keep stale values in registers nothing reads again. Only where keys are reduced (the
   * relevance analysis exists). Default off: `explore` turns it on; replays and exports, which
   * show or emit register contents, leave it off.
   */
  readonly skipDeadWrites?: boolean;
  /**
   * With dead writes: chains cross runs of them in one call (`deadRun.ts`, default). `false` only
   * for the law that compares chains with and without runs.
   */
  readonly deadRuns?: boolean;
  /** The dead-write law's planted bug (`deadWrites.ts`); never set outside that test. */
  readonly plantUnsoundDeadWrites?: DeadWritesPlant;
  /** The relevance law's planted bug (`liveness.ts`); never set outside that test. */
  readonly plantUnsoundRelevance?: boolean;
  /**
   * Liveness treats CALL, RET and BRX as opaque (every value live after them) instead of
   * following calls into callees and returns to return sites (`liveness.ts`, `calls`): the
   * machine for a search redone after a RET left that graph (`Machine.withoutCallGraph`).
   */
  readonly opaqueCalls?: boolean;
  /**
   * The reduced key keeps loop visits (`widening.ts`), as the exact key does. Off by default: a
   * state whose data equal a stored one's is that state (docs/semantics.md §13 "Loop visits");
   * on for the search `explore` redoes when a recorded path could not be walked again because a
   * run widened where the stored state it reached had not (`Machine.withLoopVisitsKeyed`).
   */
  readonly keyLoopVisits?: boolean;
  /** Shared unknowns off, or the law's planted bug (`LaneOptions.sharedUnknowns`). */
  readonly sharedUnknowns?: 'off' | 'plant';
  /** The call-liveness law's planted bug (a RET leads nowhere, `liveness.ts`); tests only. */
  readonly plantUnsoundReturns?: boolean;
  /** The lane-symmetry law's planted bug (`LaneCanon`); never set outside that test. */
  readonly plantUnsoundSymmetry?: boolean;
  /**
   * The lane-symmetry law's planted fairness bugs (`Mechanism.fairPlaces`): `pc` — a lane-fair
   * mechanism's places are its lanes' bare PCs (`lanePcs`), so `dws` splits at one PC and
   * different call depths are one fairness entity; `one` — every lane has one place, so any
   * issue counts for every lane (the place check dropped). Never set outside that test.
   */
  readonly plantUnsoundPlaces?: 'pc' | 'one';
  /** The barrier-liveness law's planted bug (`Liveness.barrierLive`); never set outside that test. */
  readonly plantUnsoundBarriers?: boolean;
  /**
   * The widening tests' planted bugs (`widening.ts`); never set outside those tests. `true`:
   * forgotten values become 0; `'keep-call-writes'`: no CALL changes any register.
   */
  readonly plantUnsoundWidening?: WideningPlant;
}
