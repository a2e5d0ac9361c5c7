import type { Mechanism, MechanismContext } from './mechanism.ts';
import { createMpIpdom, type MpIpdomState, type Split } from './mpIpdom.ts';
import type { PreVoltaPolicy } from './preVolta.ts';

/**
 * `dws` with option `reconverge=ipdom` (docs/semantics.md "dws"): the other reading of seed 002
 * §3.9's "the re-convergence stack is extended with a warp split table" — the warp-splits of a
 * divergence are scheduled independently, but each waits at the IPDOM of the divergence that made
 * it until its siblings arrive, as the stack it extends would make them. That bookkeeping is
 * `mp-ipdom`'s (seed 004: Split Table and Reconvergence Table); what DWS adds is re-merging:
 * after every step, splits at the same PC that wait for the same reconvergence entry become one
 * split (their lanes then issue together, as the default reading's splits at one PC do).
 *
 * Only splits with the same entry merge: their union is what that entry's pending mask already
 * counts, so the table stays complete and disjoint (the invariants of `mpIpdom.ts`).
 */
export function createDwsIpdom(
  ctx: MechanismContext,
  opts: PreVoltaPolicy,
): Mechanism<MpIpdomState> {
  const mp = createMpIpdom(ctx, opts);
  return {
    ...mp,
    id: 'dws',
    advance(s, issue, outcome, exited) {
      const r = mp.advance(s, issue, outcome, exited);
      return r.kind === 'ok' ? { kind: 'ok', state: remerge(r.state) } : r;
    },
  };
}

/** `s` with the splits of equal (PC, reconvergence entry) merged, sorted by (PC, mask). */
export function remerge(s: MpIpdomState): MpIpdomState {
  const st: Split[] = [];
  let merged = false;
  for (const sp of s.st) {
    const k = st.findIndex((q) => q.pc === sp.pc && q.r === sp.r);
    if (k < 0) st.push(sp);
    else {
      st[k] = { ...st[k]!, mask: (st[k]!.mask | sp.mask) >>> 0 };
      merged = true;
    }
  }
  if (!merged) return s;
  st.sort((a, b) => a.pc - b.pc || a.mask - b.mask);
  return { st, rt: s.rt };
}
