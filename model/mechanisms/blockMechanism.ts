import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { KeySink } from '../machine/key.ts';
import type { Advance, MechanismContext, Policy, StateView } from './mechanism.ts';
import { VIRTUAL_EXIT } from './mechanism.ts';
import {
  fromBlockView,
  homeLanesOf,
  toBlockView,
  union,
  type BlockShape,
  type ThreadMask,
} from './threadMask.ts';

/**
 * Block-level mechanisms (issue 13 item 3; seed 002 §3.2–3.4): one state for all K warps of a
 * block, because threads of different warps are regrouped into new warps.
 *
 * A block mechanism is a `BlockMechanism<S>`: its sets name the block's *threads*
 * (`threadMask.ts`: one W-bit word per home warp, thread t = k·W + l of home warp k = ⌊t / W⌋ and
 * home lane l = t mod W, SEMANTICS §1's numbering), up to 8 × 32 = 256 threads (issue 10). A
 * `BlockIssue` is one formed warp: a PC and the block threads that run it. Its factory says
 * `level: 'block'` and the machine runs it in one of two ways:
 * - K·W ≤ 32: as one "block view" of K·W lanes (`machine/machineSetup.ts`, through
 *   `blockView.ts`), so the explorer's reductions, the laws, replay and the refinement check take
 *   block and per-warp mechanisms alike;
 * - K·W > 32: on the block machine (`machine/blockMachine.ts`), the lanes per home warp, each
 *   formed warp executing word k on home warp k.
 *
 * Lane positions are part of the rules: a formed warp never holds two threads of one home lane
 * (seed 002 §3.2: "restricted threads to stick to their original assigned lane ... if two threads
 * from same 'home' lane are grouped into the same warp, these two threads will have a bank
 * conflict").
 */
export type { BlockShape } from './threadMask.ts';

/** One formed warp: a PC and the block threads that run it. */
export interface BlockIssue {
  readonly pc: number;
  readonly threads: ThreadMask;
}

/** Threads that go on at one PC (`lanes/execute.ts`'s `Group` over the block). */
export interface BlockGroup {
  readonly pc: number;
  readonly threads: ThreadMask;
}

/** What a formed warp's step did (`Outcome` over the block): groups by next PC, ascending; exits. */
export interface BlockOutcome {
  readonly groups: readonly BlockGroup[];
  readonly exited: ThreadMask;
}

/** Prints PCs and thread sets for views. */
export interface BlockFormatter {
  pc(pc: number): string;
  threads(m: ThreadMask): string;
}

/**
 * A block-level mechanism: `Mechanism<S>` (`mechanism.ts`) with thread sets for lane masks. Pure
 * functions over an immutable state; the same contracts as `Mechanism`'s members of the same
 * names, read per thread of the block.
 */
export interface BlockMechanism<S> {
  readonly id: string;
  /** Weak fairness per thread (every formed warp that stays ready eventually issues). */
  readonly laneFairness: boolean;
  policy(op: Op): Policy;
  init(): S;
  candidates(state: S): readonly BlockIssue[];
  advance(state: S, issue: BlockIssue, outcome: BlockOutcome, exited: ThreadMask): Advance<S>;
  ready(state: S): ThreadMask;
  key(state: S, out: KeySink): void;
  lanePcs(state: S, visit: (pc: number, threads: ThreadMask) => void): void;
  view(state: S, fmt: BlockFormatter): StateView;
}

/** What a block mechanism is built from: the per-warp context, and the block's shape. */
export interface BlockContext extends MechanismContext {
  readonly block: BlockShape;
}

/**
 * Thread-block compaction of `mask` into warps (seed 002 §3.3, Fung & Aamodt [7]): warp j takes,
 * for every home lane, the j-th thread of `mask` in that lane in ascending home-warp order, so
 * threads keep their home lanes and lanes that hold more threads give extra warps (as many warps as
 * the fullest lane has threads). A full block compacts to its home warps. Ascending order.
 */
export function compactThreads(shape: BlockShape, mask: ThreadMask): ThreadMask[] {
  const out: number[][] = [];
  // Per lane, the next warp to take a thread: warp j's word k gets lane l's (j+1)-th thread.
  let taken = 0;
  const depth = new Array<number>(shape.warpSize).fill(0);
  for (let k = 0; k < shape.warps; k++)
    for (let m = mask[k]!; m !== 0; m &= m - 1) {
      const bit = (m & -m) >>> 0;
      const j = depth[31 - Math.clz32(bit)]!++;
      if (j === taken) {
        out.push(new Array<number>(shape.warps).fill(0));
        taken++;
      }
      out[j]![k] = (out[j]![k]! | bit) >>> 0;
    }
  return out;
}

/** `compactThreads` on a 32-bit block-view mask (K·W ≤ 32). */
export function compact(shape: BlockShape, mask: number): number[] {
  return compactThreads(shape, fromBlockView(shape, mask)).map((w) => toBlockView(shape, w));
}

/** Home lanes of a 32-bit block-view mask, as a W-bit mask (`homeLanesOf` for thread sets). */
export function homeLanes(shape: BlockShape, mask: number): number {
  return homeLanesOf(fromBlockView(shape, mask));
}

/**
 * The instructions a block mechanism gives no meaning (docs/semantics.md "Block mechanisms"):
 * what names lanes of one warp or needs a warp's own hardware — WARPSYNC, VOTE, Fermi stack
 * operations, lane masks — and CALL/RET (the papers' stacks have no call frames) end the run
 * `unsupported`. BSSY/BSYNC/BREAK/BMOV and YIELD are no-ops, as on every pre-Volta mechanism
 * (SEMANTICS §2, the `foreign` policy's default; `preVolta.ts`).
 */
export function blockPolicy(op: Op): Policy {
  if (
    op.kind === 'warpsync' ||
    op.kind === 'vote' ||
    op.kind === 'stack-op' ||
    op.kind === 'call' ||
    op.kind === 'ret'
  )
    return 'reject';
  if (BARRIER_KINDS.has(op.kind) || op.kind === 'yield') return 'nop';
  if (op.kind === 's2r' && /MASK/.test(op.sreg)) return 'reject';
  return 'native';
}

/**
 * A divergent branch (a conditional BRA, or a BRX): where TBC synchronises the block and DWF
 * regroups threads (seed 002 §3.2 "upon divergence", §3.3 "a potential point of divergence").
 */
export function isBranch(op: Op): boolean {
  return (
    (op.kind === 'bra' && op.guard !== null && op.guard.index !== 7) ||
    op.kind === 'brx' ||
    op.kind === 'bra-external'
  );
}

/** Adds `groups` to `acc` (one group per PC, ascending), for outcomes gathered over several issues. */
export function mergeGroups(
  acc: readonly BlockGroup[],
  groups: readonly BlockGroup[],
): BlockGroup[] {
  const byPc = new Map<number, ThreadMask>();
  for (const g of acc) byPc.set(g.pc, g.threads);
  for (const g of groups) {
    const had = byPc.get(g.pc);
    byPc.set(g.pc, had ? union(had, g.threads) : g.threads);
  }
  return [...byPc].sort((a, b) => a[0] - b[0]).map(([pc, threads]) => ({ pc, threads }));
}

/**
 * A block-wide reconvergence stack (`tbc`, `lwm`) for views: the table rows (top first: RPC, PC,
 * threads) and the scenario data, PCs as labels (the virtual exit as `-` / null).
 */
export function stackView(
  stack: readonly { readonly pc: number; readonly rpc: number; readonly mask: ThreadMask }[],
  fmt: BlockFormatter,
): { rows: string[][]; data: { rpc: string | null; pc: string | null; mask: string }[] } {
  const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
  const top = [...stack].reverse();
  return {
    rows: top.map((e) => [pc(e.rpc), pc(e.pc), fmt.threads(e.mask)]),
    data: top.map((e) => ({
      rpc: e.rpc === VIRTUAL_EXIT ? null : fmt.pc(e.rpc),
      pc: e.pc === VIRTUAL_EXIT ? null : fmt.pc(e.pc),
      mask: fmt.threads(e.mask),
    })),
  };
}
