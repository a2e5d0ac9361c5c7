import { unguarded, type Op } from '../isa/op.ts';
import type { Memory } from '../lanes/memory.ts';
import type { Machine, WarpState, WarpSteps } from '../machine/machine.ts';
import { isBranch } from '../mechanisms/blockMechanism.ts';

/**
 * EXIT priority: a reduction among the lane groups of one `its` warp under maximal grouping, and
 * among the warp-splits of one `dws` warp and the formed warps of a `dwf` block (issues 10 and 16;
 * docs/semantics.md §14.1). Under
 * maximal grouping (SEMANTICS §3.1) every
 * group of ready lanes at one PC is a candidate, and groups interleave: lanes that finished sit
 * at `EXIT` while others run, so a state also records *how many* wait there. This module picks,
 * per warp state, a group whose step may be expanded alone: ready lanes `E` at an **unguarded**
 * `EXIT` whose step ends no run. The argument (docs/semantics.md §14.1):
 *
 * - Irreversible: an exited lane never runs again (SEMANTICS §3.1), so no cycle contains a state
 *   with `E` parked at the EXIT: `E` would stay parked and ready throughout and never issue, which
 *   weak fairness per lane (or per place under lane symmetry, `Mechanism.fairPlaces`) excludes. Fair
 *   cycles (livelocks) live in states without parked exits, which keep all their steps.
 * - Never a deadlock: a state with `E` ready has a step, so it is not blocked.
 * - Commutes: "exit `E` early" maps every path of the full graph onto one of the reduced graph
 *   that reaches the same state once `E` has exited in both (a merged exit of `E ∪ F` becomes
 *   `E`'s exit, then `F`'s). This needs that nothing another group does reads whether `E` has
 *   exited or only waits at the EXIT: (1) no instruction of the program reads the exited mask
 *   (BRA.DIV/.CONV, SEMANTICS §2, `lanes/execute.ts`; WARPSYNC, which waits for named lanes until
 *   they exit, SEMANTICS §2; BMOV Bx, Rs, which masks exited lanes out, `its.ts`), checked once
 *   per program; and (2) `E` is in no barrier register, so the release of a BSYNC (`release` in
 *   `its.ts`: an exited lane counts as arrived) is the same with `E` exited or parked — a lane
 *   enters Bx only by issuing BSSY, which `E` never does again.
 *   VOTE and `__activemask` read the issuing group's mask only, which never holds `E`.
 *
 * Applied only to the explored machine's own warps (never inside `createIts`' candidates: the
 * refinement reference of the other mechanisms keeps every candidate).
 *
 * `dws` (reconverge=pc, docs/semantics.md "dws"): `E` is a whole split at an unguarded EXIT. The
 * same argument holds: a split's issue, subdivision and re-merging (`dws.ts`) read only its own
 * lanes' outcomes and the other splits' (PC, depth), and drop exited lanes; a split that arrives at
 * `E`'s place merges with it and exits with it, which is the `E ∪ F` case. `dws` owns no barrier
 * registers, and its reference (`refines-its`) sees BSSY/BSYNC/BREAK/BMOV as the mechanism treats
 * them (`foreign`: no-op or reject, never native), so the reference's barriers stay empty and (2)
 * holds; (1) excludes the WARPSYNC `check` (a named lane parked at an EXIT fails it, an exited one
 * does not). Not `reconverge=ipdom`, whose splits wait for their siblings at the IPDOM and count
 * exited lanes as arrived.
 *
 * `dwf` (schedule=any, docs/semantics.md "Block mechanisms"): `E` is a formed warp at an unguarded
 * EXIT, on the block view or the block machine (whose one "warp" is the block). Another formed
 * warp's step reads of the pool only the warps at the PCs its regroup sends threads to (`dwf.ts`:
 * join the first warp there with the home lane free), and drops exited threads; so it is the same
 * step with `E` parked or exited as long as no regroup sends threads to the EXIT's PC (then they
 * could join `E`): `regroupTargets` below, per program. A warp that reaches the EXIT by a
 * straight-line step stays a warp of its own, so no `E ∪ F` case arises. `any` offers every warp
 * and is fair per thread (per place on the block machine), so a cycle that keeps `E` parked is
 * unfair; the other schedules read the pool's thread counts or lowest PC, which parked threads
 * change, and are left out.
 */
export interface GroupPriority {
  /**
   * The steps `from .. to - 1` of `steps` (one issue) that may be expanded alone, or null. Every
   * fair cycle avoids them (they exit lanes, or leave a PC off every cycle: `aloneGroups.ts`), so
   * the cycle proviso is not needed for them.
   */
  pick(warp: WarpState, steps: WarpSteps, mem: Memory): GroupPick | null;
}

/** A group picked to run alone, and the rule that picked it (for the tallies). */
export interface GroupPick {
  readonly from: number;
  readonly to: number;
  readonly rule: 'exit' | 'alone' | 'bsync';
}

/**
 * The first group of `steps` (a run of steps of one issue, `from .. to - 1`) whose first step is no
 * merged issue and which `accept` takes, picked under `rule`; null if none.
 */
export function firstGroup(
  steps: WarpSteps['steps'],
  rule: GroupPick['rule'],
  accept: (from: number, to: number) => boolean,
): GroupPick | null {
  for (let from = 0; from < steps.length;) {
    let to = from + 1;
    while (to < steps.length && steps[to]!.group === steps[from]!.group) to++;
    if (steps[from]!.issue.merged === undefined && accept(from, to)) return { from, to, rule };
    from = to;
  }
  return null;
}

/**
 * One step that may be taken alone: no stop, a successor, memory as it was, no choice among
 * unknown outcomes, no race between lanes of different symmetry classes.
 */
export const plainStep = (st: WarpSteps['steps'][number], mem: Memory): boolean =>
  st.stop === null &&
  st.warp !== null &&
  st.memory === mem &&
  !st.unknownChoice &&
  st.orderDependent !== true;

/** The first rule's pick, else the second's (either may be absent). */
export function eitherGroup(
  a: GroupPriority | null,
  b: GroupPriority | null,
): GroupPriority | null {
  if (!a || !b) return a ?? b;
  return { pick: (warp, steps, mem) => a.pick(warp, steps, mem) ?? b.pick(warp, steps, mem) };
}

/** Planted bugs for the soundness law (`groupPriority.test.ts`); never defaults. */
export type PlantUnsoundGroups =
  /**
   * A guarded EXIT has priority too: its lanes whose guard fails go on, so the step is neither
   * irreversible nor off every cycle (a loop through `@P0 EXIT` is then run alone forever).
   */
  | 'guarded-exit'
  /** Lanes in a barrier register may exit first although their exit releases a BSYNC. */
  | 'barrier-members'
  /**
   * Condition (1) dropped: priority also where the program reads the exited mask (a `dws`
   * WARPSYNC `check` that names a lane parked at its EXIT fails, and passes once it has exited).
   */
  | 'reads-exited';

const B_REGISTERS = 16;

/** Instructions that write or read B registers (in a reference `its`, when native). */
const BARRIERS: ReadonlySet<Op['kind']> = new Set([
  'bssy',
  'bsync',
  'break',
  'bmov-from-barrier',
  'bmov-to-barrier',
]);

/** Instructions whose effect reads which lanes have exited (condition 1 above). */
function readsExited(op: Op): boolean {
  return (
    op.kind === 'warpsync' ||
    op.kind === 'bmov-to-barrier' ||
    (op.kind === 'bra' && op.cond !== 'none')
  );
}

/**
 * The EXIT priority of `machine`, or null where it does not apply: the mechanism is not `its` with
 * maximal groups, `dws` with `reconverge=pc` or `dwf` with `schedule=any`, or the program reads the
 * exited mask (see above), or (`dwf`) a branch's targets are unknown.
 */
export function groupPriority(
  machine: Machine,
  plant: PlantUnsoundGroups | null = null,
): GroupPriority | null {
  const mech = machine.mechanism;
  const its = mech.id === 'its' && (machine.options['grouping'] ?? 'maximal') === 'maximal';
  const dws = mech.id === 'dws' && (machine.options['reconverge'] ?? 'pc') === 'pc';
  const dwf = mech.id === 'dwf' && (machine.options['schedule'] ?? 'any') === 'any';
  if (!its && !dws && !dwf) return null;
  const ops = machine.ops;
  if (plant !== 'reads-exited' && ops.some(readsExited)) return null;
  // dwf: no regroup may bring threads to the EXIT (they would join the parked warp, `dwf.ts`).
  const regroupsTo = dwf ? regroupTargets(ops) : null;
  if (dwf && regroupsTo === null) return null;
  const barrierValue = mech.barrierValue;
  // `its` keeps B registers (condition 2 per state); `dws` has none, and neither has its
  // reference as long as no barrier instruction is native to it (see above).
  if (its && !barrierValue) return null;
  if (
    dws &&
    (barrierValue || ops.some((op) => BARRIERS.has(op.kind) && mech.policy(op) === 'native'))
  )
    return null;
  const eligible = (op: Op | undefined, pc: number): boolean =>
    op !== undefined &&
    op.kind === 'exit' &&
    (unguarded(op) || plant === 'guarded-exit') &&
    (regroupsTo === null || regroupsTo[pc] === 0);
  return {
    pick(warp, steps, mem) {
      return firstGroup(steps.steps, 'exit', (from, to) => {
        const first = steps.steps[from]!;
        const issue = first.issue;
        if (to !== from + 1 || !eligible(ops[issue.pc], issue.pc) || !plainStep(first, mem))
          return false;
        if (barrierValue && plant !== 'barrier-members')
          for (let x = 0; x < B_REGISTERS; x++)
            if ((barrierValue(warp.mech, x) & issue.mask) !== 0) return false;
        return true;
      });
    },
  };
}

/**
 * The PCs a `dwf` regroup may send threads to (`dwf.ts`: threads are regrouped after a branch —
 * `isBranch`, a conditional BRA or a BRX — at its fall-through and its targets), as a 0/1 array;
 * null when some branch's targets are not all known (a BRX without a table, a BRA out of the
 * listing): then any PC may be one.
 */
function regroupTargets(ops: readonly Op[]): Uint8Array | null {
  const out = new Uint8Array(ops.length + 1);
  for (let pc = 0; pc < ops.length; pc++) {
    const op = ops[pc]!;
    if (!isBranch(op)) continue;
    if (op.kind === 'bra-external' || (op.kind === 'brx' && op.targets.length === 0)) return null;
    out[pc + 1] = 1;
    if (op.kind === 'bra') out[op.target] = 1;
    if (op.kind === 'brx') for (const t of op.targets) out[t] = 1;
  }
  return out;
}
