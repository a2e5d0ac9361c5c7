import type { KeySink } from '../machine/key.ts';
import {
  blockPolicy,
  isBranch,
  type BlockContext,
  type BlockFormatter,
  type BlockIssue,
  type BlockMechanism,
  type BlockOutcome,
} from './blockMechanism.ts';
import { onBlockView } from './blockView.ts';
import type { Advance, MechanismFactory, StateView } from './mechanism.ts';
import {
  allThreads,
  compareThreads,
  countThreads,
  homeLanesOf,
  isEmpty,
  minus,
  oneThread,
  sameThreads,
  union,
  unionOf,
  writeThreads,
  type ThreadMask,
} from './threadMask.ts';

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
  readonly threads: ThreadMask;
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

/** The pool's one order: PC, then the threads as block numbers (`compareThreads`). */
const byPcThreads = (a: DwfWarp, b: DwfWarp) => a.pc - b.pc || compareThreads(a.threads, b.threads);

export function createDwf(ctx: BlockContext, opts: DwfOptions): BlockMechanism<DwfState> {
  const shape = ctx.block;
  const W = shape.warpSize;
  const branchAt = ctx.ops.map(isBranch);
  /** Threads waiting at each PC, for the majority and minority policies. */
  const chosenPc = (s: DwfState): number => {
    const count = new Map<number, number>();
    for (const w of s) count.set(w.pc, (count.get(w.pc) ?? 0) + countThreads(w.threads));
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
  const candidates = (s: DwfState): readonly DwfWarp[] => {
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
    init: () => split({ pc: ctx.entry, threads: allThreads(shape) }),
    candidates,
    advance(s, issue: BlockIssue, outcome: BlockOutcome, exited: ThreadMask): Advance<DwfState> {
      const gone = union(outcome.exited, exited);
      const groups = outcome.groups;
      const regroup = branchAt[issue.pc] === true || groups.length > 1;
      const pool: DwfWarp[] = [];
      for (const w of s) {
        if (w.pc === issue.pc && sameThreads(w.threads, issue.threads)) {
          // Not a branch: the warp goes on as it is.
          if (!regroup && groups.length === 1)
            pool.push({ pc: groups[0]!.pc, threads: groups[0]!.threads });
          continue;
        }
        const threads = minus(w.threads, gone);
        if (!isEmpty(threads)) pool.push(threads === w.threads ? w : { pc: w.pc, threads });
      }
      if (regroup)
        // Each thread in ascending thread order (home warp, then home lane) joins the first warp
        // of the pool at its PC whose slot for its home lane is free, else starts a warp.
        for (const g of groups)
          for (let k = 0; k < shape.warps; k++)
            for (let m = g.threads[k]!; m !== 0; m &= m - 1) {
              const bit = (m & -m) >>> 0;
              const at = pool.findIndex(
                (w) => w.pc === g.pc && (homeLanesOf(w.threads) & bit) === 0,
              );
              if (at >= 0) {
                const threads = pool[at]!.threads.slice();
                threads[k] = (threads[k]! | bit) >>> 0;
                pool[at] = { pc: g.pc, threads };
              } else
                pool.push({ pc: g.pc, threads: oneThread(shape, k * W + 31 - Math.clz32(bit)) });
            }
      // The pool as a set: one order (PC, then threads) for every way of reaching it.
      return { kind: 'ok', state: pool.sort(byPcThreads) };
    },
    ready: (s) => unionOf(shape, candidates(s)),
    key(s, out: KeySink) {
      out.push(s.length);
      for (const w of s) {
        out.push(w.pc);
        writeThreads(out, shape, w.threads);
      }
    },
    lanePcs(s, visit) {
      for (const w of s) visit(w.pc, w.threads);
    },
    view(s, fmt: BlockFormatter): StateView {
      return {
        tables: [
          {
            title: 'Warp pool (home lanes kept)',
            columns: ['PC', 'Threads', 'May issue'],
            rows: s.map((w) => [
              fmt.pc(w.pc),
              fmt.threads(w.threads),
              candidates(s).includes(w) ? 'yes' : 'no',
            ]),
          },
        ],
        data: { warps: s.map((w) => ({ pc: fmt.pc(w.pc), mask: fmt.threads(w.threads) })) },
      };
    },
  };

  /** The block's home warps: a full block starts as its static warps (seed 002 §3.2). */
  function split(w: DwfWarp): DwfWarp[] {
    const out: DwfWarp[] = [];
    for (let k = 0; k < shape.warps; k++) {
      if (w.threads[k] === 0) continue;
      const threads = new Array<number>(shape.warps).fill(0);
      threads[k] = w.threads[k]!;
      out.push({ pc: w.pc, threads });
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
  createBlock: (ctx, o) =>
    createDwf(ctx, {
      schedule: (o['schedule'] ?? 'any') as DwfSchedule,
    }) as BlockMechanism<unknown>,
  create: (ctx, o) =>
    onBlockView(dwfFactory.createBlock!(ctx as BlockContext, o), ctx as BlockContext),
};
