import type { Op } from '../isa/op.ts';
import type { Launch } from '../lanes/launch.ts';
import type { BlockContext, BlockShape } from '../mechanisms/blockMechanism.ts';
import { formatThreads, fromBlockView } from '../mechanisms/threadMask.ts';
import { execContext, type ExecContext } from '../lanes/execContext.ts';
import type { Formatter, Mechanism, MechanismContext, Policy } from '../mechanisms/mechanism.ts';
import { createIts, type ItsState } from '../mechanisms/its.ts';
import { formatterFor } from './formatter.ts';
import { deadWrites } from './deadWrites.ts';
import { deadOutputsAt, liveness, type Liveness } from './liveness.ts';
import { widening, type Widening } from './widening.ts';
import type { MachineSpec } from './machineTypes.ts';

const NOP: Op = { kind: 'nop', guard: null, pred2: null };

/**
 * Stage 1 of `createMachine`: what a spec decides once, before any state exists — the lanes'
 * execution context, the mechanism and its reference (`its`, for `refines-its`), the policy per
 * PC, the liveness analysis (relevance) and whether lane symmetry and loop widening apply.
 * Plain data read by the other stages (`warpKeys.ts`, `laneSymmetry.ts`, `issueSteps.ts`).
 */
export interface MachineSetup {
  readonly spec: MachineSpec;
  /** The launch the lanes run: the spec's, or for a block mechanism its block view. */
  readonly launch: Launch;
  /** For a block mechanism on its block view: the launch as given (K warps of W). */
  readonly blockLaunch?: Launch;
  readonly ctx: ExecContext;
  readonly mctx: MechanismContext;
  readonly mech: Mechanism<unknown>;
  /** The reference mechanism when the run checks refinement (SEMANTICS §6), else null. */
  readonly refMech: Mechanism<ItsState> | null;
  readonly fmt: Formatter;
  /** Instructions in the program. */
  readonly n: number;
  /** Lanes per warp. */
  readonly W: number;
  readonly full: number;
  /** Per PC, decided once: the mechanism's policy and the op that executes under it. */
  readonly policyAt: readonly Policy[];
  readonly opAt: readonly Op[];
  /** Register slots per lane (`ctx.layout.count`). */
  readonly nSlots: number;
  /** The mechanism reports its lanes' PCs (`Mechanism.lanePcs`), so keys can be reduced. */
  readonly canReduce: boolean;
  /** The relevance analysis, when `canReduce`. */
  readonly live: Liveness | null;
  /** Why lane symmetry is off though asked for (null when on or not asked for). */
  readonly symmetryOff: string | null;
  readonly symmetric: boolean;
  /** Loop widening, when `spec.widen` > 0. */
  readonly widen: Widening | null;
  /**
   * Per PC, 1 where an issue goes on to pc + 1 without computing what the op writes
   * (`deadWrites.ts`); null unless `spec.skipDeadWrites` and the keys can be reduced.
   */
  readonly skipDead: Uint8Array | null;
}

/** Builds the `MachineSetup` of `spec` (stage 1 of `createMachine`). */
export function setupMachine(spec: MachineSpec): MachineSetup {
  const { program, ops } = spec;
  // A block mechanism (`blockMechanism.ts`) at K·W ≤ 32 runs on the block view: the K·W threads
  // as one row of lanes, thread t in lane t, SR_LANEID = t mod W. Past 32 threads the lane masks
  // cannot hold the block: `createMachine` runs the block machine instead (`blockMachine.ts`).
  const shape: BlockShape | null =
    spec.factory.level === 'block'
      ? { warps: spec.launch.warps, warpSize: spec.launch.warpSize }
      : null;
  if (shape !== null && shape.warps * shape.warpSize > 32)
    throw new Error(
      `setupMachine: a block of ${shape.warps * shape.warpSize} threads runs on the block machine`,
    );
  const blockView = shape !== null;
  const launch: Launch = blockView
    ? { ...spec.launch, warpSize: shape.warps * shape.warpSize, warps: 1 }
    : spec.launch;
  const lanes = execContext(
    program,
    ops,
    launch,
    spec.sharedUnknowns ? { ...spec.lanes, sharedUnknowns: spec.sharedUnknowns } : spec.lanes,
  );
  const ctx: ExecContext = blockView ? { ...lanes, homeWarpSize: shape.warpSize } : lanes;
  const mctx: MechanismContext = {
    program,
    ops,
    warpSize: launch.warpSize,
    full: ctx.full,
    entry: spec.entry,
    ipdom: spec.ipdom,
    ...(spec.likelyConvergence ? { likelyConvergence: spec.likelyConvergence } : {}),
  };
  const made =
    shape === null
      ? spec.factory.create(mctx, spec.options)
      : spec.factory.create({ ...mctx, block: shape } as BlockContext, spec.options);
  // The lane-symmetry law's planted bugs: fairness places are bare PCs (for `dws`, the call depth
  // ignored, so two splits at one PC count as one fairness entity), or one place for every lane.
  const lanePcs = made.lanePcs;
  const mech: Mechanism<unknown> =
    !spec.plantUnsoundPlaces || !made.fairPlaces || !lanePcs
      ? made
      : spec.plantUnsoundPlaces === 'pc'
        ? { ...made, fairPlaces: lanePcs }
        : { ...made, fairPlaces: (s, visit) => lanePcs(s, (_, mask) => visit(0, mask)) };
  const fmt = formatterFor(program, launch.warpSize);
  const refMech =
    (spec.refine ?? true) && spec.factory.id !== 'its'
      ? createIts(mctx, {
          grouping: 'maximal',
          // The reference reads BSSY as the mechanism is told to (SEMANTICS §2 makes OR an option).
          bssy: spec.options['bssy'] === 'or' ? 'or' : 'assign',
          warpsyncExited: 'accept',
          barriers: 'native',
        })
      : null;
  const policyAt = ops.map((op) => mech.policy(op));
  const nSlots = ctx.layout.count;
  const canReduce = typeof mech.lanePcs === 'function';
  const live = canReduce
    ? liveness(
        ops,
        ctx.layout,
        (op) => mech.policy(op),
        true,
        spec.plantUnsoundRelevance ?? false,
        spec.opaqueCalls ? 'opaque' : spec.plantUnsoundReturns ? 'plant' : 'follow',
      )
    : null;
  // An ISETP whose predicates are dead after it makes no choice on a shared unknown (`Op`).
  const opAt = ops.map((op, pc) =>
    policyAt[pc] === 'nop' ? NOP : live ? deadOutputsAt(op, pc, live) : op,
  );
  const withOptions = Object.keys(spec.options).length ? ' with these options' : '';
  const symmetryOff: string | null = !spec.laneSymmetry
    ? null
    : mech.laneSymmetric !== true
      ? `${mech.id}${withOptions} does not declare its rules lane-symmetric`
      : mech.laneFairness && typeof mech.fairPlaces !== 'function'
        ? `${mech.id}${withOptions} is fair per lane and has no fairness places (per PC or per split), so renumbering lanes would not keep its fairness`
        : !canReduce
          ? `${mech.id} does not report its lanes' PCs`
          : null;
  // Loop widening needs the may-write sets of the liveness analysis (computed here if not above).
  const widen =
    (spec.widen ?? 0) > 0
      ? widening(
          ops,
          live ?? liveness(ops, ctx.layout, (op) => mech.policy(op)),
          ctx.layout,
          (op) => mech.policy(op),
          spec.widen!,
          spec.plantUnsoundWidening ?? false,
        )
      : null;
  return {
    spec,
    launch,
    ...(blockView ? { blockLaunch: spec.launch } : {}),
    ctx,
    mctx,
    mech,
    refMech,
    fmt: blockView
      ? { pc: fmt.pc, mask: (m) => formatThreads(shape, fromBlockView(shape, m)) }
      : fmt,
    n: program.instructions.length,
    W: launch.warpSize,
    full: ctx.full,
    policyAt,
    opAt,
    nSlots,
    canReduce,
    live,
    symmetryOff,
    symmetric: spec.laneSymmetry === true && symmetryOff === null,
    widen,
    skipDead:
      spec.skipDeadWrites && live
        ? deadWrites(ops, live, policyAt, spec.plantUnsoundDeadWrites ?? null)
        : null,
  };
}
