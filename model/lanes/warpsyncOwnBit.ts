import type { Op } from '../isa/op.ts';
import type { ExecContext } from './execContext.ts';
import { predTrue, srcValue } from './execute.ts';
import type { LaneData } from './laneData.ts';
import { UNKNOWN } from './values.ts';

/**
 * SEMANTICS §2: a lane that runs `WARPSYNC m` without its own bit in m is undefined behaviour
 * under every mechanism — no foreign-instruction policy (`check`, `nop`, `reject`) waives it, and
 * when the same issue is also a `check` violation or unsupported, undefined behaviour wins
 * (§6 precedence). The machine asks this before it applies a mechanism's policy, so the rule is
 * one place for every mechanism. `active` lanes whose guard holds participate; a lane whose mask
 * is unknown is left to the mechanism (`its` reports it as unsupported). Returns the message, or
 * null when every participating lane names itself (or `op` is no WARPSYNC).
 */
export function warpsyncOwnBitGap(
  ctx: ExecContext,
  op: Op,
  pc: number,
  d: LaneData,
  active: number,
): string | null {
  if (op.kind !== 'warpsync') return null;
  const part = (active & predTrue(d, op.guard, ctx.full) & predTrue(d, op.pred2, ctx.full)) >>> 0;
  for (let m = part; m !== 0; m &= m - 1) {
    const l = 31 - Math.clz32(m & -m);
    const mask = op.mask === null ? ctx.full : srcValue(ctx, d, l, op.mask);
    if (mask !== UNKNOWN && !((mask >>> l) & 1))
      return `WARPSYNC at pc ${pc}: lane ${l} is not named in its own mask 0x${(mask >>> 0).toString(16)} (SEMANTICS §2: undefined under every mechanism and policy)`;
  }
  return null;
}
