import { isLaneLocalDataOp, type Op } from '../isa/op.ts';
import type { Memory } from '../lanes/memory.ts';
import type { WarpStep } from './machine.ts';

/**
 * What a warp step can share with other warps (issue 10, partial-order reduction). Warps of one
 * block interact only through shared memory (SEMANTICS §1: a `MachineState` is K warp states and
 * one memory; a warp's steps are a function of its own state and the memory, `Machine.warpSteps`).
 * A step that neither reads nor writes memory is *local*: it commutes with every step of every
 * other warp, and it cannot enable or disable another warp's steps (a warp's candidates come from
 * its own mechanism state alone).
 *
 * The rule is static and conservative, by op kind (SEMANTICS §2): loads, stores, atomics and
 * opaque instructions that havoc memory touch memory; everything else (arithmetic, predicates,
 * branches, convergence barriers, WARPSYNC, VOTE, EXIT) is warp-private — there is no block
 * barrier in the modelled subset (`BAR.SYNC` is opaque), WARPSYNC and VOTE act inside one warp.
 */
export function touchesMemory(op: Op): boolean {
  switch (op.kind) {
    case 'load':
    case 'store':
      // LDL/STL touch the lane's own local memory, part of its warp's state.
      return op.local !== true;
    case 'atomic':
      return true;
    case 'opaque':
      return op.havoc;
    default:
      return false;
  }
}

/**
 * A planted bug for the soundness law (never a default): stores and atomics count as local, so
 * a warp about to write shared memory may be scheduled alone although another warp reads it.
 */
function touchesMemoryPlanted(op: Op): boolean {
  return op.kind === 'load' || (op.kind === 'opaque' && op.havoc);
}

/**
 * The step is local (see above): not a stop (a stop ends the run, a visible event), its op — and
 * a merged issue's second op — touches no memory, and it left memory as it found it (a dynamic
 * check on top of the static rule).
 */
export function isLocalStep(
  ops: readonly Op[],
  step: WarpStep,
  mem: Memory,
  plantLocalStores = false,
): boolean {
  if (step.stop !== null || step.memory !== mem) return plantLocalStores && step.stop === null;
  const touches = plantLocalStores ? touchesMemoryPlanted : touchesMemory;
  const op = ops[step.issue.pc];
  if (op === undefined || touches(op)) return false;
  const merged = step.issue.merged;
  if (merged !== undefined) {
    const op2 = ops[merged.pc];
    if (op2 === undefined || touches(op2)) return false;
  }
  return true;
}

/**
 * Inside one warp whose issues are single lanes (`Mechanism.threadIssues`): instructions whose
 * step changes only the issuing lane's PC and registers and reads nothing another lane's step
 * writes (SEMANTICS §2–3.1) — data instructions and plain branches. Not barriers, WARPSYNC, VOTE,
 * EXIT, calls and returns, traps, memory, nor BRA.DIV/.CONV: they read which lanes have exited,
 * which another lane's EXIT changes (`lanes/execute.ts`).
 */
export function laneLocalOp(op: Op, plantDivergence = false): boolean {
  if (op.kind === 'bra') return op.cond === 'none' || plantDivergence;
  // LDL/STL: the lane's own local memory (`LaneData.local`), which no other lane reads.
  if ((op.kind === 'load' || op.kind === 'store') && op.local === true) return true;
  return isLaneLocalDataOp(op);
}
