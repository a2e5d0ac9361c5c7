import type { Outcome } from '../lanes/execute.ts';
import type { KeySink } from '../machine/key.ts';
import type {
  Advance,
  Formatter,
  Issue,
  Mechanism,
  MechanismContext,
  MechanismFactory,
  StateView,
} from './mechanism.ts';
import {
  PATH_LIST_OPTIONS,
  path,
  pathListOptions,
  pathListPolicy,
  pathsAfter,
  type Path,
  type PathListOptions,
} from './pathList.ts';
import { warpsyncStop } from './preVolta.ts';
import { createDwsIpdom } from './dwsIpdom.ts';

/**
 * `dws` — dynamic warp subdivision (seed 002 §3.9, after Meng, Tarjan and Skadron, ISCA 2010;
 * docs/semantics.md "dws"): "split a divergent warp into two warp splits that execute in
 * parallel ... the re-convergence stack is extended with a warp split table".
 *
 * The state is the warp-split table: the warp's splits, each a PC, its lanes and their call depth
 * (a path of seed 001 §2, so CALL/RET as in the path lists, SEMANTICS §3.5).
 * - **Subdivision**: a divergent instruction of a split (a branch, BRX, a RET or CALL taken by some
 *   lanes only) replaces the split with one split per next (PC, call depth). Every split is
 *   independently schedulable: `candidates` offers them all and the explorer takes any, under weak
 *   fairness per split (`laneFairness`: a lane is in exactly one split).
 * - **No waiting at the IPDOM**: "the warp splits are allowed to go beyond the immediate post
 *   dominator (block F in Figure 28) and not converge with the other warp-splits" (§3.9). A split
 *   never waits for its sibling.
 * - **Re-merging**: two splits re-merge when they are at the same PC with the same call depth
 *   after a step — one caught up with the other (PC-based re-convergence, our reading: the thesis
 *   names no other point, and a split that ran ahead "risks pipeline under-utilization" — it did
 *   not meet the other).
 * Memory-divergence subdivision (cache hits move on, misses wait) is not modelled: warpcheck has
 * no cache latencies, and it would only add interleavings the free choice of split already has.
 *
 * Invariants after every step (checked by `dws.test.ts`): splits are non-empty, pairwise disjoint,
 * hold exactly the live lanes, no two share (PC, depth), and they are sorted by (PC, depth).
 */
export interface DwsState {
  readonly splits: readonly Path[];
}

const byPlace = (a: Path, b: Path) => a.pc - b.pc || a.depth - b.depth;

/** `splits` rid of `gone`, re-merged by (PC, depth), sorted (the invariant above). */
export function normalizeSplits(splits: readonly Path[], gone: number): Path[] {
  const out: Path[] = [];
  for (const sp of splits) {
    const mask = (sp.mask & ~gone) >>> 0;
    if (mask === 0) continue;
    const at = out.findIndex((q) => q.pc === sp.pc && q.depth === sp.depth);
    if (at >= 0) out[at] = path(sp.pc, (out[at]!.mask | mask) >>> 0, sp.depth);
    else out.push(mask === sp.mask ? sp : path(sp.pc, mask, sp.depth));
  }
  return out.sort(byPlace);
}

export function createDws(ctx: MechanismContext, opts: PathListOptions): Mechanism<DwsState> {
  /** Places per call depth in `fairPlaces`: PCs -1 (the virtual exit) to n. */
  const stride = ctx.ops.length + 2;
  return {
    id: 'dws',
    laneFairness: true,
    // Subdivision and re-merging look at PCs and call depths only, and the table is kept in
    // (PC, depth) order, which no lane renumbering changes (issue 16).
    laneSymmetric: true,
    fairPlaces(s, visit) {
      // The place is the split's (PC, depth): no two splits share one (the invariant above), an
      // issue takes a whole split, and a lane leaves its split's place only when the split issues
      // (re-merging keeps the place; every lane of a split is ready). So weak fairness per lane is
      // weak fairness per place (mechanism.ts, docs/semantics.md "dws"). Not the PC alone: two
      // splits may share a PC at different depths. Injective: pc ∈ [-1, n], any integer depth.
      for (const sp of s.splits) visit(sp.depth * stride + sp.pc + 1, sp.mask);
    },
    policy: (op) => pathListPolicy(op, opts),
    init: () => ({ splits: [path(ctx.entry, ctx.full, 0)] }),
    candidates: (s) => s.splits.map((sp): Issue => ({ pc: sp.pc, mask: sp.mask })),
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<DwsState> {
      const ev = outcome.event;
      if (ev.kind === 'warpsync' && opts.warpsync === 'check') {
        // SEMANTICS §2 `check`: a split cannot wait for another, so every named live lane must be
        // in the issuing split.
        const bad = warpsyncStop(ev, issue, exited, ctx.full, 'dws');
        if (bad) return bad;
      }
      const at = s.splits.findIndex((sp) => sp.pc === issue.pc && sp.mask === issue.mask);
      if (at < 0) throw new Error(`dws: issue ${issue.pc}/${issue.mask} is no warp-split`);
      const rest = s.splits.filter((_, k) => k !== at);
      const fresh = pathsAfter(s.splits[at]!, outcome);
      const splits = normalizeSplits([...rest, ...fresh], (outcome.exited | exited) >>> 0);
      return { kind: 'ok', state: { splits } };
    },
    ready(s) {
      let m = 0;
      for (const sp of s.splits) m |= sp.mask;
      return m >>> 0;
    },
    key(s, out: KeySink) {
      out.push(s.splits.length);
      for (const sp of s.splits) {
        out.push(sp.pc);
        out.mask(sp.mask);
        out.push(sp.depth);
      }
    },
    lanePcs(s, visit) {
      // A split's lanes issue next at its PC; nothing else holds lanes.
      for (const sp of s.splits) visit(sp.pc, sp.mask);
    },
    view: (s, fmt) => viewDws(s, fmt),
  };
}

/** The warp-split table: one row per split, in (PC, depth) order. */
export function viewDws(s: DwsState, fmt: Formatter): StateView {
  return {
    tables: [
      {
        title: 'Warp-split table',
        columns: ['PC', 'Mask', 'Depth'],
        rows: s.splits.map((sp) => [fmt.pc(sp.pc), fmt.mask(sp.mask), `${sp.depth}`]),
      },
    ],
    data: {
      splits: s.splits.map((sp) => ({
        pc: fmt.pc(sp.pc),
        mask: fmt.mask(sp.mask),
        depth: sp.depth,
      })),
    },
  };
}

/** Where warp-splits wait for each other: nowhere (the default reading) or at the IPDOM. */
export type DwsReconverge = 'pc' | 'ipdom';

export const dwsFactory: MechanismFactory = {
  id: 'dws',
  summary:
    'dynamic warp subdivision: a divergence splits the warp into independently scheduled warp-splits (explored under fairness), which run past the IPDOM and re-merge when they meet at one PC',
  source: 'seed 002 §3.9, Fig. 28; docs/semantics.md "dws"',
  options: [
    ...PATH_LIST_OPTIONS,
    {
      name: 'reconverge',
      values: ['pc', 'ipdom'],
      default: 'pc',
      doc: "pc: splits never wait and re-merge when they meet at one PC, past the IPDOM included (seed 002 §3.9, Fig. 28); ipdom: the split table's stack makes each split wait at its divergence's IPDOM for its siblings (mp-ipdom's tables), splits at one PC under one entry re-merge (docs/semantics.md 'dws')",
    },
  ],
  create: (ctx, o) =>
    (o['reconverge'] === 'ipdom'
      ? createDwsIpdom(ctx, pathListOptions(o))
      : createDws(ctx, pathListOptions(o))) as Mechanism<unknown>,
};
