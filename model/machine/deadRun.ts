import type { Outcome } from '../lanes/execute.ts';
import type { Memory } from '../lanes/memory.ts';
import type { Issue } from '../mechanisms/mechanism.ts';
import type { MachineSetup } from './machineSetup.ts';
import type { WarpState } from './machineTypes.ts';
import { warpState } from './warpState.ts';
import { refinementGap } from './refinement.ts';

/** Where a dead run ended: the warp state reached and the steps taken (≥ 1). */
export interface DeadRunEnd {
  readonly warp: WarpState;
  readonly steps: number;
}

/** `Machine.deadRun`: see `deadRun` below. */
export type DeadRunFn = (
  k: number,
  ws: WarpState,
  mem: Memory,
  max: number,
  loads: boolean,
  /** The run stops before a step at this PC (a chain's cycle check, `acceleration.ts`). */
  stopPc?: number,
) => DeadRunEnd | null;

/**
 * Runs of dead writes inside chains (`Machine.deadRun`; docs/semantics.md §14.2 "Dead runs"):
 * from `ws`, as long as warp k has exactly one issue, at a PC whose op is a dead write
 * (`deadWrites.ts`; a load only with `loads`, which the caller passes for a launch of one warp),
 * the issue is taken without executing anything but the mechanism's and the reference's
 * `advance` — up to `max` steps, and never into a step at `stopPc`. Returns null when not even one step qualifies.
 *
 * Each such step is exactly the one step `Machine.warpSteps` gives there and a chain takes
 * (`acceleration.ts`, `chainable`): a dead write with a `native` policy executes as a NOP (every
 * issued lane to pc + 1, no event, one result: not a stop, no unknown choice, not order-dependent,
 * memory left as it was); no check that outranks the mechanism applies (the PC is in the program,
 * the op is no WARPSYNC and not rejected); forgetting and counted splits concern control
 * instructions only; loop widening changes nothing at a step that jumps nowhere back
 * (`widening.ts`: only groups at a PC ≤ the issue's are looked at). So the state reached is the
 * state the plain chain reaches, object for object where the step functions are deterministic; a
 * mechanism or reference `advance` that stops, or a refinement gap, ends the run before that step,
 * so the plain step reports it. Law: `deadWrites.test.ts` (every dead-run step equals the
 * `warpSteps` step, exact keys; chains with and without dead runs end in the same states).
 */
export function deadRun(
  setup: MachineSetup,
):
  | ((k: number, ws: WarpState, mem: Memory, max: number, loads: boolean) => DeadRunEnd | null)
  | null {
  const { mech, refMech, n, skipDead } = setup;
  if (skipDead === null) return null;
  const ops = setup.spec.ops;
  const fmtPc = setup.fmt.pc;
  const NONE = { kind: 'none' } as const;
  const skipsReference = setup.spec.plantUnsoundDeadWrites === 'run-skips-reference';
  /** Both sides can take several steps at once (`Mechanism.straight`). */
  const straight =
    typeof mech.straight === 'function' &&
    mech.refOutcome === undefined &&
    (refMech === null || typeof refMech.straight === 'function');
  return (_k, ws, _mem, max, loads, stopPc = -1) => {
    let state = ws.mech;
    let ref = ws.ref;
    const exited = ws.data.exited;
    let steps = 0;
    while (steps < max) {
      const issues: readonly Issue[] = mech.candidates(state);
      if (issues.length !== 1) break;
      const issue = issues[0]!;
      const pc = issue.pc;
      if (pc === stopPc) break;
      if (issue.merged !== undefined || !(pc >= 0 && pc < n) || skipDead[pc] !== 1) break;
      if (!loads && ops[pc]!.kind === 'load') break;
      // As many dead writes as follow in a row, in one `straight` call each for the mechanism and
      // the reference, where both vouch that it equals their step-by-step `advance`s.
      if (straight && issue.mask !== 0) {
        let k = 1;
        while (
          steps + k < max &&
          pc + k < n &&
          skipDead[pc + k] === 1 &&
          pc + k !== stopPc &&
          (loads || ops[pc + k]!.kind !== 'load')
        )
          k++;
        const next = k >= 2 ? mech.straight!(state, issue, pc + k) : null;
        if (next !== null) {
          const nextRef =
            refMech === null || ref === undefined || skipsReference
              ? ref
              : refinementGap(ref, issue, fmtPc) === null
                ? refMech.straight!(ref, issue, pc + k)
                : null;
          if (nextRef !== null) {
            state = next;
            ref = nextRef;
            steps += k;
            continue;
          }
        }
      }
      const outcome: Outcome = {
        groups: issue.mask === 0 ? [] : [{ pc: pc + 1, mask: issue.mask }],
        exited: 0,
        event: NONE,
      };
      const adv = mech.advance(state, issue, outcome, exited);
      if (adv.kind !== 'ok') break;
      if (refMech && ref && !skipsReference) {
        if (refinementGap(ref, issue, fmtPc) !== null) break;
        const moved = mech.refOutcome ? mech.refOutcome(adv.state, issue, outcome) : outcome;
        const radv = refMech.advance(ref, issue, moved, exited);
        if (radv.kind !== 'ok') break;
        ref = radv.state;
      }
      state = adv.state;
      steps++;
    }
    if (steps === 0) return null;
    return { warp: warpState(state, ws.data, ref, ws.loops, ws.anonymous), steps };
  };
}
