import type { Outcome } from '../lanes/execute.ts';
import { popcount } from '../lanes/values.ts';
import type { KeySink } from '../machine/key.ts';
import {
  blockMask,
  blockPolicy,
  homeLanes,
  isBranch,
  type BlockContext,
} from './blockMechanism.ts';
import type {
  Advance,
  Formatter,
  Issue,
  Mechanism,
  MechanismFactory,
  StateView,
} from './mechanism.ts';

/**
 * `dwf` — dynamic warp formation (seed 002 §3.2, after Fung et al. [6]): a block-level mechanism
 * (`blockMechanism.ts`; masks name the block's threads).
 *
 * The block's threads are in a pool of warps, each a PC and at most one thread per home lane
 * ("restricted threads to stick to their original assigned lane"). A warp runs until it executes a
 * branch; then its threads are regrouped "upon divergence": each thread, in ascending thread
 * order, joins the first warp of the pool at its next PC whose slot for its home lane is free,
 * else it starts a new warp — so threads of different warps at the same PC merge ("if divergence
 * is dealt with across different warps we can get a better lane utilization"). There is no
 * reconvergence stack. Which warp issues is the scheduling policy (option `schedule`).
 *
 * Invariants: the pool's warps are disjoint, non-empty, hold no exited thread and no two threads
 * of one home lane; together they hold every live thread.
 */
export interface DwfWarp {
  readonly pc: number;
  readonly mask: number;
}

export type DwfState = readonly DwfWarp[];

/**
 * Scheduling policies (Fung et al. [6] §4, the thesis's "many scheduling techniques were studied
 * to avoid thread starvation"): `any` — every warp may issue (every scheduler at once, fair per
 * thread); `majority` / `minority` — the warps at the PC that the most / fewest threads wait at;
 * `pc` — the warps at the lowest PC. Ties: the lower PC.
 */
export type DwfSchedule = 'any' | 'majority' | 'minority' | 'pc';

export interface DwfOptions {
  readonly schedule: DwfSchedule;
}

const byPcMask = (a: DwfWarp, b: DwfWarp) => a.pc - b.pc || a.mask - b.mask;

export function createDwf(ctx: BlockContext, opts: DwfOptions): Mechanism<DwfState> {
  const shape = ctx.block;
  const branchAt = ctx.ops.map(isBranch);
  /** Threads waiting at each PC, for the majority and minority policies. */
  const chosenPc = (s: DwfState): number => {
    const count = new Map<number, number>();
    for (const w of s) count.set(w.pc, (count.get(w.pc) ?? 0) + popcount(w.mask));
    let best = -1;
    let bestCount = 0;
    for (const [pc, c] of [...count].sort((a, b) => a[0] - b[0])) {
      const better =
        best === -1 ||
        (opts.schedule === 'majority' && c > bestCount) ||
        (opts.schedule === 'minority' && c < bestCount);
      if (better) {
        best = pc;
        bestCount = c;
      }
    }
    return best;
  };
  const candidates = (s: DwfState): readonly Issue[] => {
    if (opts.schedule === 'any' || s.length === 0) return s;
    const pc = chosenPc(s);
    return s.filter((w) => w.pc === pc);
  };
  return {
    id: 'dwf',
    // Fair per thread among the warps the policy offers: a thread the policy never offers starves
    // (seed 002 §3.2 "some threads can starve").
    laneFairness: true,
    policy: blockPolicy,
    init: () => [{ pc: ctx.entry, mask: ctx.full }].flatMap((w) => split(w)),
    candidates,
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<DwfState> {
      const gone = (outcome.exited | exited) >>> 0;
      const groups = outcome.groups;
      const regroup = branchAt[issue.pc] === true || groups.length > 1;
      const pool: DwfWarp[] = [];
      for (const w of s) {
        if (w.pc === issue.pc && w.mask === issue.mask) {
          // Not a branch: the warp goes on as it is.
          if (!regroup && groups.length === 1)
            pool.push({ pc: groups[0]!.pc, mask: groups[0]!.mask });
          continue;
        }
        const mask = (w.mask & ~gone) >>> 0;
        if (mask !== 0) pool.push(mask === w.mask ? w : { pc: w.pc, mask });
      }
      if (regroup)
        for (const g of groups)
          for (let m = g.mask; m !== 0; m &= m - 1) {
            const bit = (m & -m) >>> 0;
            const lane = homeLanes(shape, bit);
            const at = pool.findIndex(
              (w) => w.pc === g.pc && (homeLanes(shape, w.mask) & lane) === 0,
            );
            if (at >= 0) pool[at] = { pc: g.pc, mask: (pool[at]!.mask | bit) >>> 0 };
            else pool.push({ pc: g.pc, mask: bit });
          }
      // The pool as a set: one order (PC, then mask) for every way of reaching it.
      return { kind: 'ok', state: pool.sort(byPcMask) };
    },
    ready: (s) => {
      let m = 0;
      for (const w of candidates(s)) m |= w.mask;
      return m >>> 0;
    },
    key(s, out: KeySink) {
      out.push(s.length);
      for (const w of s) {
        out.push(w.pc);
        out.mask(w.mask);
      }
    },
    lanePcs(s, visit) {
      for (const w of s) visit(w.pc, w.mask);
    },
    view(s, fmt: Formatter): StateView {
      return {
        tables: [
          {
            title: 'Warp pool (home lanes kept)',
            columns: ['PC', 'Threads', 'May issue'],
            rows: s.map((w) => [
              fmt.pc(w.pc),
              fmt.mask(w.mask),
              candidates(s).includes(w) ? 'yes' : 'no',
            ]),
          },
        ],
        data: { warps: s.map((w) => ({ pc: fmt.pc(w.pc), mask: blockMask(shape, w.mask) })) },
      };
    },
  };

  /** The block's home warps: a full block starts as its static warps (seed 002 §3.2). */
  function split(w: DwfWarp): DwfWarp[] {
    const W = shape.warpSize;
    const out: DwfWarp[] = [];
    for (let k = 0; k < shape.warps; k++) {
      const mask = ((w.mask >>> (k * W)) & (W === 32 ? 0xffffffff : (1 << W) - 1)) << (k * W);
      if (mask !== 0) out.push({ pc: w.pc, mask: mask >>> 0 });
    }
    return out;
  }
}

export const dwfFactory: MechanismFactory = {
  id: 'dwf',
  level: 'block',
  summary:
    'dynamic warp formation: after a branch, threads at the same PC from different warps are regrouped into new warps (home lanes kept); no reconvergence stack',
  source: 'seed 002 §3.2 (Fung et al., MICRO 2007)',
  options: [
    {
      name: 'schedule',
      values: ['any', 'majority', 'minority', 'pc'],
      default: 'any',
      doc: 'which warps may issue: any (every scheduler), the PC most threads wait at (majority), the fewest (minority), the lowest PC (pc); Fung et al. §4 via seed 002 §3.2',
    },
  ],
  create: (ctx, o) =>
    createDwf(ctx as BlockContext, {
      schedule: (o['schedule'] ?? 'any') as DwfSchedule,
    }) as Mechanism<unknown>,
};
