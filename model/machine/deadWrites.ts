import { isLaneLocalDataOp, type Op } from '../isa/op.ts';
import type { Policy } from '../mechanisms/mechanism.ts';
import { mayBeUniformUnknown, type Liveness } from './liveness.ts';

/** The dead-write law's planted bug (`deadWrites.test.ts`); never set outside that test. */
export type DeadWritesPlant =
  /** Every op of a skippable kind is skipped, whether what it writes is dead or not. */
  | 'ignore-liveness'
  /** A dead run (`deadRun.ts`) leaves the reference (`refines-its`) where it was. */
  | 'run-skips-reference';

/**
 * Dead writes (docs/semantics.md §13 "Dead writes"; `MachineSpec.skipDeadWrites`): per PC, 1
 * where an issue may go on to pc + 1 without computing what the op writes, because nothing it
 * writes can still reach control.
 *
 * An op qualifies when
 * - its policy is `native` (a `nop` policy already skips it, `reject` stops the run);
 * - it is a lane-local data instruction (`isLaneLocalDataOp`: no memory, control, barrier or
 *   VOTE; `S2R` left out, since lanes that forgot their number rewrite its result) or a load
 *   (it reads memory and changes none): its only effects are its destinations, and every issued
 *   lane goes on to pc + 1 with the same outcome and event whatever it computes
 *   (`lanes/dataOps.ts`, `done`);
 * - it makes no choice: an ISETP against a uniform unknown is a choice among stand-ins
 *   (`lanes/uniformCompare.ts`), whose alternatives are steps of their own and flag loops for
 *   widening, so it is always computed;
 * - every register and predicate it may write (`Liveness.writes`, `writesP`) is dead at pc + 1
 *   (relevance: no path from pc + 1 reads it before writing it again, except into values that are
 *   dead too).
 *
 * Why skipping keeps every verdict: the issued lanes are at pc + 1 after the step, and from there
 * they execute only static successors (`liveness.ts`, "paths"), on which each skipped
 * destination is overwritten before anything that reaches control reads it. The state reached
 * with the old values and the one with the computed values differ only in such values, so they
 * are bisimilar — the dead-value reduction's argument (`liveness.ts`): same issues, alternatives,
 * stops and fairness forever. Since both have the same reduced key wherever the key writer keys
 * a lane at pc + 1 or later on its path, the reduced search stores the same classes. What differs
 * is only the exact register contents of states the search stores, which no verdict, schedule or
 * class test reads: findings are walked again (`concretize.ts`) by class, and saved scenarios
 * replay on a machine that computes every write (`scenario/session.ts` never sets the option).
 */
export function deadWrites(
  ops: readonly Op[],
  live: Liveness,
  policyAt: readonly Policy[],
  plant: DeadWritesPlant | null = null,
): Uint8Array {
  const n = ops.length;
  const words = live.words;
  const out = new Uint8Array(n);
  for (let pc = 0; pc < n; pc++) {
    const op = ops[pc]!;
    if (policyAt[pc] !== 'native' || !skippableKind(op)) continue;
    if (plant === 'ignore-liveness') {
      out[pc] = 1;
      continue;
    }
    const next = pc + 1;
    let dead = (live.writesP[pc]! & live.preds[next]!) === 0;
    for (let w = 0; dead && w < words; w++)
      if ((live.writes[pc * words + w]! & live.regs[next * words + w]!) !== 0) dead = false;
    if (dead) out[pc] = 1;
  }
  return out;
}

/** An op whose only effect is its destinations and that never branches into alternatives. */
function skippableKind(op: Op): boolean {
  if (op.kind === 'load') return true;
  if (op.kind === 's2r' || !isLaneLocalDataOp(op)) return false;
  if (op.kind === 'isetp') return !mayBeUniformUnknown(op.a) && !mayBeUniformUnknown(op.b);
  return true;
}
