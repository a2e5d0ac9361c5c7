import { LANE_ADAPTERS } from './lanes.ts';
import { build, lanesOf, walk, walkOutcome } from './machine.ts';
import type { Machine, WarpState } from '../../model/machine/machine.ts';
import { READY } from '../../model/mechanisms/its.ts';
import type { Law } from './types.ts';

/** States visited per kernel (breadth-first). */
const LIMIT = 1500;

/**
 * What is wrong with warp `w` of a state, or null. Generic: candidates are non-empty, hold no
 * exited lane and are pairwise disjoint (a lane issued twice at once is duplicated); with a lane
 * adapter (`lanes.ts`), every live lane has exactly one next position, exited lanes none, and the
 * position is the reference shadow's; without one, `lanePcs` reports every live lane somewhere.
 */
export function laneProblem(
  m: Machine,
  ws: WarpState,
  live: number,
  mechanism: string,
): string | null {
  const W = m.launch.warpSize;
  const fmt = m.fmt;
  let seen = 0;
  for (const issue of m.mechanism.candidates(ws.mech)) {
    // A merged issue (opcode-convergent) runs two groups: both count.
    const c = { pc: issue.pc, mask: (issue.mask | (issue.merged?.mask ?? 0)) >>> 0 };
    if (issue.merged && issue.mask & issue.merged.mask)
      return `a merged issue runs lanes ${fmt.mask((issue.mask & issue.merged.mask) >>> 0)} twice`;
    if (c.mask === 0) return `an empty candidate at ${fmt.pc(c.pc)}`;
    if ((c.mask & ~live) >>> 0)
      return `candidate ${fmt.pc(c.pc)} ${fmt.mask(c.mask)} holds exited lanes`;
    if (c.mask & seen)
      return `lanes ${fmt.mask((c.mask & seen) >>> 0)} are in two candidates at once`;
    seen |= c.mask;
  }
  const a = LANE_ADAPTERS[mechanism];
  if (!a) {
    if (!m.mechanism.lanePcs) return null;
    let covered = 0;
    m.mechanism.lanePcs(ws.mech, (_pc, mask) => (covered |= mask));
    const lost = (live & ~covered) >>> 0;
    return lost
      ? `lanes ${fmt.mask(lost)} are live but the mechanism reports no PC for them`
      : null;
  }
  const claims = new Map<number, string>();
  for (const { at, mask } of a.positions(ws.mech, W))
    for (const l of lanesOf(mask)) {
      const where = at === 'waiting' ? 'waiting' : fmt.pc(at.pc);
      if (!((live >>> l) & 1)) return `exited lane ${l} still has a next position (${where})`;
      if (claims.has(l)) return `lane ${l} has two next positions: ${claims.get(l)} and ${where}`;
      claims.set(l, where);
      const ref = ws.ref;
      if (!ref) continue;
      const agrees =
        at === 'waiting' ? ref.wait[l] !== READY : ref.pcs[l] === at.pc && ref.wait[l] === READY;
      if (!agrees) {
        const theirs =
          ref.pcs[l]! < 0
            ? 'exited'
            : ref.wait[l] === READY
              ? fmt.pc(ref.pcs[l]!)
              : `waiting at ${fmt.pc(ref.pcs[l]!)}`;
        return `lane ${l} goes next to ${where}, but in the reference it is ${theirs}`;
      }
    }
  for (const l of lanesOf(live))
    if (!claims.has(l)) return `live lane ${l} has no next position (lost)`;
  return a.invariants?.(ws.mech, live, W) ?? null;
}

/**
 * P2 (issue 4; seed 001 §2 "complete and disjoint"; SEMANTICS §3): in every reachable state every
 * live lane has exactly one next PC under the mechanism, exited lanes appear nowhere, and the next
 * PC agrees with the reference's (the `its` shadow driven by the same steps).
 */
export const noLaneLost: Law = {
  id: 'no-lane-lost',
  tag: 'P2',
  description:
    "every live lane has exactly one next PC, exited lanes none, and it is the reference shadow's (issue 4 P2; seed 001 §2; SEMANTICS §3, §6)",
  sources: () => ['structured', 'unstructured', 'turing'],
  appliesTo: () => true,
  check(kernel, mechanism, o) {
    const { machine: m } = build(kernel, mechanism, o.options);
    const init = m.initial();
    const live0 = m.live(init);
    for (let w = 0; w < init.warps.length; w++) {
      const p = laneProblem(m, init.warps[w]!, live0[w]!, mechanism);
      if (p) return walkOutcome(m, { message: `initial state, warp ${w}: ${p}`, schedule: [] });
    }
    // A property of states (of the warp that moved; the others are the pre-state's, checked
    // already): a state met before was checked when first met, so only new ones are visited.
    const bad = walk(
      m,
      LIMIT,
      ({ post, t }) => {
        const p = laneProblem(m, post.warps[t.warp]!, m.live(post)[t.warp]!, mechanism);
        return (
          p && `after ${m.fmt.pc(t.issue.pc)} ${m.fmt.mask(t.issue.mask)} (warp ${t.warp}): ${p}`
        );
      },
      true,
    );
    return walkOutcome(m, bad);
  },
};
