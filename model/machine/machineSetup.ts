import type { Op } from '../isa/op.ts';
import { execContext, type ExecContext } from '../lanes/execContext.ts';
import type { Formatter, Mechanism, MechanismContext, Policy } from '../mechanisms/mechanism.ts';
import { createIts, type ItsState } from '../mechanisms/its.ts';
import { formatterFor } from './formatter.ts';
import { liveness, type Liveness } from './liveness.ts';
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
}

/** Builds the `MachineSetup` of `spec` (stage 1 of `createMachine`). */
export function setupMachine(spec: MachineSpec): MachineSetup {
  const { program, ops, launch } = spec;
  const ctx = execContext(program, ops, launch, spec.lanes);
  const mctx: MechanismContext = {
    program,
    ops,
    warpSize: launch.warpSize,
    full: ctx.full,
    entry: spec.entry,
    ipdom: spec.ipdom,
    ...(spec.likelyConvergence ? { likelyConvergence: spec.likelyConvergence } : {}),
  };
  const mech = spec.factory.create(mctx, spec.options);
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
  const opAt = ops.map((op, pc) => (policyAt[pc] === 'nop' ? NOP : op));
  const nSlots = ctx.layout.count;
  const canReduce = typeof mech.lanePcs === 'function';
  const live = canReduce
    ? liveness(ops, ctx.layout, (op) => mech.policy(op), true, spec.plantUnsoundRelevance ?? false)
    : null;
  const withOptions = Object.keys(spec.options).length ? ' with these options' : '';
  const symmetryOff: string | null = !spec.laneSymmetry
    ? null
    : mech.laneSymmetric !== true
      ? `${mech.id}${withOptions} does not declare its rules lane-symmetric`
      : mech.laneFairness && mech.pcFairness !== true
        ? `${mech.id}${withOptions} is fair per lane, which renumbering lanes does not keep`
        : !canReduce
          ? `${mech.id} does not report its lanes' PCs`
          : null;
  // Loop widening needs the may-write sets of the liveness analysis (computed here if not above).
  const widen =
    (spec.widen ?? 0) > 0
      ? widening(
          ops,
          live ?? liveness(ops, ctx.layout, (op) => mech.policy(op)),
          nSlots,
          spec.widen!,
        )
      : null;
  return {
    spec,
    ctx,
    mctx,
    mech,
    refMech,
    fmt: formatterFor(program, launch.warpSize),
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
  };
}
