import type { KeySink } from '../machine/key.ts';
import {
  blockPolicy,
  compactThreads,
  isBranch,
  mergeGroups,
  stackView,
  type BlockContext,
  type BlockFormatter,
  type BlockGroup,
  type BlockIssue,
  type BlockMechanism,
  type BlockOutcome,
} from './blockMechanism.ts';
import { onBlockView } from './blockView.ts';
import { VIRTUAL_EXIT, type Advance, type MechanismFactory, type StateView } from './mechanism.ts';
import { pushOrderBy, type PathOrder } from './simtStack.ts';
import {
  allThreads,
  countThreads,
  intersects,
  isEmpty,
  minus,
  sameThreads,
  union,
  unionOf,
  writeThreads,
  type ThreadMask,
} from './threadMask.ts';

/**
 * `tbc` — thread block compaction (seed 002 §3.3, after Fung & Aamodt [7]): a block-level
 * mechanism (`blockMechanism.ts`; masks name the block's threads).
 *
 * One reconvergence stack for the whole block ("modifying the SIMT stack so that it encompasses
 * all warps"). The top entry's threads are compacted into warps (`compact`: home lanes kept, lane
 * conflicts give extra warps), which run independently ("both warps are scheduled
 * independently"). A warp that executes a branch (a potential divergence point) waits there; when
 * every warp of the entry has executed it ("at the end of block A both warps synchronize"), the
 * entry becomes the reconvergence entry at the branch's IPDOM and one entry per target is pushed
 * with "all the threads jumping to its corresponding PC, even if these threads belonged previously
 * to different warps", compacted into new warps. A warp that reaches its entry's reconvergence PC
 * waits; when all have, the entry is popped and the entry below is compacted anew ("when block B
 * terminates the threads are reassigned to their initial warps": a full block compacts to its home
 * warps). A uniform branch re-forms the same warps.
 *
 * Invariants: every entry's mask contains the masks of the entries above it; the top entry's live
 * threads are each in exactly one of `warps` (running), `arrived` (waiting at the branch) or done
 * (waiting at the top's RPC); no formed warp holds two threads of one home lane.
 */
export interface TbcEntry {
  /** Where the entry's threads resume (for the top entry: where its warps were formed). */
  readonly pc: number;
  readonly rpc: number;
  readonly mask: ThreadMask;
}

export interface TbcWarp {
  readonly pc: number;
  readonly threads: ThreadMask;
}

export interface TbcState {
  readonly stack: readonly TbcEntry[];
  /** The top entry's formed warps that still run (not at the branch, not at the RPC). */
  readonly warps: readonly TbcWarp[];
  /** Next PCs of the top entry's threads that executed the branch at `branchPc`. */
  readonly arrived: readonly BlockGroup[];
  readonly branchPc: number;
}

export interface TbcOptions {
  readonly order: PathOrder;
}

export function createTbc(ctx: BlockContext, opts: TbcOptions): BlockMechanism<TbcState> {
  const shape = ctx.block;
  const branchAt = ctx.ops.map(isBranch);
  /** Warps formed from the top entry, unless it has nothing left to run (the caller pops it). */
  const formed = (e: TbcEntry): TbcWarp[] =>
    e.pc === e.rpc || e.pc === VIRTUAL_EXIT
      ? []
      : compactThreads(shape, e.mask).map((threads) => ({ pc: e.pc, threads }));

  /**
   * With no warp running: the branch's outcome is applied (divergence pushes entries), or the
   * top entry is done and popped; then the new top is compacted. Repeats while nothing runs.
   */
  const settle = (
    stack: TbcEntry[],
    warps: TbcWarp[],
    arrived: readonly BlockGroup[],
    branchPc: number,
  ): TbcState => {
    while (warps.length === 0 && stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (arrived.length === 1) {
        stack[stack.length - 1] = { ...top, pc: arrived[0]!.pc };
      } else if (arrived.length > 1) {
        // Divergence (seed 002 §3.3; as the SIMT stack, seed 000 §II (2)): the top becomes the
        // reconvergence entry at the IPDOM; a path already at the IPDOM is not pushed.
        const ipd = ctx.ipdom(branchPc);
        stack[stack.length - 1] = { ...top, pc: ipd };
        for (const g of pushOrderBy(arrived, branchPc + 1, opts.order, (g) =>
          countThreads(g.threads),
        ))
          if (g.pc !== ipd) stack.push({ pc: g.pc, rpc: ipd, mask: g.threads });
      } else stack.pop();
      arrived = [];
      branchPc = -1;
      const next = stack[stack.length - 1];
      if (next) warps = formed(next);
    }
    return { stack, warps, arrived, branchPc };
  };

  return {
    id: 'tbc',
    // Fair per thread: every formed warp that can issue eventually does (the scheduler's choice
    // among the top entry's warps is the explorer's).
    laneFairness: true,
    policy: blockPolicy,
    init: () => {
      const bottom: TbcEntry = { pc: ctx.entry, rpc: VIRTUAL_EXIT, mask: allThreads(shape) };
      return { stack: [bottom], warps: formed(bottom), arrived: [], branchPc: -1 };
    },
    candidates: (s) => s.warps,
    advance(s, issue: BlockIssue, outcome: BlockOutcome, exited: ThreadMask): Advance<TbcState> {
      const gone = union(outcome.exited, exited);
      const stack = s.stack.map((e) =>
        intersects(e.mask, gone) ? { ...e, mask: minus(e.mask, gone) } : e,
      );
      const rpc = stack[stack.length - 1]!.rpc;
      let arrived = s.arrived
        .map((g) => ({ pc: g.pc, threads: minus(g.threads, gone) }))
        .filter((g) => !isEmpty(g.threads));
      let branchPc = s.branchPc;
      const groups = outcome.groups;
      const branched = branchAt[issue.pc] === true || groups.length > 1;
      if (branched) {
        // The warp executed a potential divergence point: it waits for the rest of the entry.
        arrived = mergeGroups(arrived, groups);
        branchPc = issue.pc;
      }
      // The issued warp moves on in its place (the scheduler's order is kept), unless it waits at
      // the branch, reached the RPC or exited; exited threads leave every warp.
      const warps: TbcWarp[] = [];
      for (const w of s.warps) {
        if (w.pc === issue.pc && sameThreads(w.threads, issue.threads)) {
          const g = groups[0];
          if (!branched && g && g.pc !== rpc) warps.push({ pc: g.pc, threads: g.threads });
        } else {
          const threads = minus(w.threads, gone);
          if (!isEmpty(threads)) warps.push(threads === w.threads ? w : { pc: w.pc, threads });
        }
      }
      return { kind: 'ok', state: settle(stack, warps, arrived, branchPc) };
    },
    ready: (s) => unionOf(shape, s.warps),
    key(s, out: KeySink) {
      out.push(s.stack.length);
      for (const e of s.stack) {
        out.push(e.pc);
        out.push(e.rpc);
        writeThreads(out, shape, e.mask);
      }
      out.push(s.warps.length);
      for (const w of s.warps) {
        out.push(w.pc);
        writeThreads(out, shape, w.threads);
      }
      out.push(s.arrived.length);
      for (const g of s.arrived) {
        out.push(g.pc);
        writeThreads(out, shape, g.threads);
      }
      out.push(s.branchPc);
    },
    lanePcs(s, visit) {
      // Entries below the top resume at their PCs and hold every thread above them (threads done
      // at the top's RPC resume with the entry below); the top's threads are in its warps or at
      // the branch's targets.
      for (let i = 0; i < s.stack.length - 1; i++) visit(s.stack[i]!.pc, s.stack[i]!.mask);
      for (const w of s.warps) visit(w.pc, w.threads);
      for (const g of s.arrived) visit(g.pc, g.threads);
    },
    view(s, fmt: BlockFormatter): StateView {
      const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
      const stack = stackView(s.stack, fmt);
      return {
        tables: [
          {
            title: 'Block reconvergence stack (top first)',
            columns: ['RPC', 'PC', 'Threads'],
            rows: stack.rows,
          },
          {
            title: 'Compacted warps of the top entry (home lanes kept)',
            columns: ['PC', 'Threads'],
            rows: [
              ...s.warps.map((w) => [pc(w.pc), fmt.threads(w.threads)]),
              ...s.arrived.map((g) => [`${pc(g.pc)} (after the branch)`, fmt.threads(g.threads)]),
            ],
          },
        ],
        data: {
          stack: stack.data,
          warps: s.warps.map((w) => ({ pc: fmt.pc(w.pc), mask: fmt.threads(w.threads) })),
          arrived: s.arrived.map((g) => ({ pc: pc(g.pc), mask: fmt.threads(g.threads) })),
        },
      };
    },
  };
}

export const tbcFactory: MechanismFactory = {
  id: 'tbc',
  level: 'block',
  summary:
    'thread block compaction: one reconvergence stack for the block; at a branch the block synchronises and its threads are compacted into new warps per path (home lanes kept), reconverging at the IPDOM',
  source: 'seed 002 §3.3 (Fung & Aamodt, HPCA 2011)',
  options: [
    {
      name: 'order',
      values: ['taken-first', 'not-taken-first', 'majority-first', 'minority-first'],
      default: 'taken-first',
      doc: 'which path of a divergent branch runs first (seed 002 §3.3 does not say; as simt-stack.order)',
    },
  ],
  createBlock: (ctx, o) =>
    createTbc(ctx, {
      order: (o['order'] ?? 'taken-first') as PathOrder,
    }) as BlockMechanism<unknown>,
  create: (ctx, o) =>
    onBlockView(tbcFactory.createBlock!(ctx as BlockContext, o), ctx as BlockContext),
};
