/**
 * Warp schedulers of the issue core (SEMANTICS §4; seed 002 §2.4):
 * - `lrr` loose round robin: start from the warp after the one that issued last, skipping warps
 *   that cannot issue;
 * - `gto` greedy-then-oldest: keep issuing from the warp that issued last while it can, else the
 *   oldest warp that can (all warps of a block start together: the oldest is the lowest id).
 */
export type SchedulerKind = 'lrr' | 'gto';
export const SCHEDULERS: readonly SchedulerKind[] = ['lrr', 'gto'];

/** The order in which warps are offered the issue slot, given the warp that issued last (-1: none). */
export function warpOrder(kind: SchedulerKind, warps: number, last: number): number[] {
  const order: number[] = [];
  if (kind === 'lrr') {
    for (let i = 1; i <= warps; i++) order.push((last + i + warps) % warps);
    return order;
  }
  if (last >= 0) order.push(last);
  for (let k = 0; k < warps; k++) if (k !== last) order.push(k);
  return order;
}
