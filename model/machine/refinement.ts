import type { Issue } from '../mechanisms/mechanism.ts';
import { AT_WARPSYNC, READY, type ItsState } from '../mechanisms/its.ts';

/**
 * Refinement against the reference (SEMANTICS §6): every lane a mechanism issues at a PC must be
 * ready at that PC in a reference (`its`) state driven by the same steps. The reference follows
 * the mechanism's own foreign-instruction policy (a decision of SEMANTICS §6), so a pre-Volta
 * mechanism that ignores BSYNC is compared with a reference that ignores it too.
 *
 * Returns null when the issue is allowed, else a message naming the first lane that is not.
 */
export function refinementGap(
  ref: ItsState,
  issue: Issue,
  pcText: (pc: number) => string,
): string | null {
  for (let m = issue.mask >>> 0; m !== 0; m &= m - 1) {
    const l = 31 - Math.clz32(m & -m);
    const pc = ref.pcs[l]!;
    const wait = ref.wait[l]!;
    if (pc === issue.pc && wait === READY) continue;
    const where =
      pc < 0
        ? 'has exited'
        : wait === READY
          ? `is at ${pcText(pc)}`
          : wait === AT_WARPSYNC
            ? `still waits at the WARPSYNC at ${pcText(pc)}`
            : `still waits at the BSYNC B${wait} at ${pcText(pc)}`;
    return `lane ${l} issued at ${pcText(issue.pc)}, but in the reference it ${where}`;
  }
  return null;
}
