import { holdsAlways } from '../isa/op.ts';
import type { Machine, WarpState, WarpStep } from '../machine/machine.ts';

/**
 * Whether a computed step leaves the control flow that the reachability analysis assumes
 * (`Liveness.mayReach`, on which lane symmetry's pins, warp symmetry's pins, dead barriers, groups
 * that run alone and BSYNC priority rest; docs/semantics.md §14.4, "Where the analysis is left"):
 *
 * - a RET whose lanes land neither at their call's return site nor, for a guarded RET, at the
 *   next instruction: SEMANTICS §1 lets `RET Rn` jump to any offset Rn holds in the caller's
 *   function, while the analysis sends a RET to the return sites only (compiled code returns
 *   there: `MOV R20, <return site>`; an unknown Rn is the structured return);
 * - an abstract step (`WarpStep.widened`) at a BRA right after a BREAK: lanes that forget their
 *   predicates there (lane symmetry's symbolic splits, when lanes of too many classes issue the
 *   BRA) may fall through after breaking, which the analysis's `@P BREAK Bx; @P BRA t` rule
 *   (`barrierQuiet`) assumes they do not.
 *
 * The explorer then searches again without those reductions (`exhaustive.ts`).
 */
export function leavesGraph(machine: Machine, warp: WarpState, st: WarpStep): boolean {
  const pc = st.issue.pc;
  const op = machine.ops[pc];
  if (!op || !st.warp) return false;
  if (op.kind === 'bra') {
    const before = pc > 0 ? machine.ops[pc - 1] : undefined;
    return st.widened === true && before?.kind === 'break';
  }
  if (op.kind !== 'ret') return false;
  const lanePcs = machine.mechanism.lanePcs;
  if (!lanePcs) return false;
  const guarded = !holdsAlways(op.guard) || !holdsAlways(op.pred2);
  const calls = warp.data.calls;
  let off = false;
  lanePcs(st.warp.mech, (at, mask) => {
    for (let m = (mask & st.issue.mask) >>> 0; m !== 0 && !off; m &= m - 1) {
      const stack = calls[31 - Math.clz32(m & -m)];
      const back = stack?.[stack.length - 1];
      if (at !== back && !(guarded && at === pc + 1)) off = true;
    }
  });
  return off;
}
