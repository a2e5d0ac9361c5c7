import type { KeySink } from '../machine/key.ts';
import type { MpIpdomState, RtEntry } from './mpIpdom.ts';

/**
 * The canonical key of an `mp-ipdom` state (issue 14). Reconvergence Table entries are numbered by
 * creation order, and an index means nothing but "this entry": splits and children refer to their
 * entry by it, and nothing else reads it (the Split Table is sorted by (pc, mask), the
 * reconvergence rules run to a fixpoint). So two states that differ only in the numbering of the
 * RT — the same entries created in a different order by different interleavings — behave alike,
 * and the key renumbers the RT canonically before writing it: level by level from the roots
 * (entries without a parent), each level sorted by (canonical parent, pc, rec, pending, frame).
 * Entries equal in all of these (which the complete-and-disjoint invariant rules out for live
 * entries: siblings' reconvergence masks are disjoint) keep their creation order — the key may
 * then be larger than needed, never smaller, so it stays sound (DESIGN.md "Reductions must be
 * sound").
 */
export function writeMpIpdomKey(s: MpIpdomState, out: KeySink): void {
  const { st, rt } = s;
  const rank = canonicalRanks(rt);
  const at = (i: number) => (i < 0 ? i : rank[i]!);
  out.push(st.length);
  for (const sp of st) {
    out.push(sp.pc);
    out.mask(sp.mask);
    out.push(at(sp.r));
  }
  out.push(rt.length);
  const order = new Array<number>(rt.length);
  for (let i = 0; i < rt.length; i++) order[rank[i]!] = i;
  for (const i of order) {
    const e = rt[i]!;
    out.push(e.pc);
    out.mask(e.rec);
    out.mask(e.pending);
    out.push(at(e.parent));
    out.push(e.frame ? 1 : 0);
  }
}

/** `rank[i]`: the canonical position of RT entry `i`. */
function canonicalRanks(rt: readonly RtEntry[]): number[] {
  const n = rt.length;
  const rank = new Array<number>(n).fill(-1);
  if (n <= 1) return n === 1 ? [0] : [];
  let next = 0;
  // Level 0: the roots; then, repeatedly, the entries whose parent already has a rank.
  let level = rt.flatMap((e, i) => (e.parent < 0 ? [i] : []));
  while (level.length > 0) {
    level.sort((a, b) => {
      const x = rt[a]!;
      const y = rt[b]!;
      return (
        (x.parent < 0 ? -1 : rank[x.parent]!) - (y.parent < 0 ? -1 : rank[y.parent]!) ||
        x.pc - y.pc ||
        x.rec - y.rec ||
        x.pending - y.pending ||
        Number(x.frame) - Number(y.frame) ||
        a - b
      );
    });
    for (const i of level) rank[i] = next++;
    level = rt.flatMap((e, i) =>
      rank[i] === -1 && e.parent >= 0 && rank[e.parent]! >= 0 ? [i] : [],
    );
  }
  // A parent cycle cannot happen (parents are created before their children); rank any leftover
  // by creation order so the key stays total.
  for (let i = 0; i < n; i++) if (rank[i] === -1) rank[i] = next++;
  return rank;
}
