import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { Group } from '../lanes/execute.ts';
import type {
  Advance,
  Formatter,
  Issue,
  Mechanism,
  MechanismContext,
  Policy,
} from './mechanism.ts';
import { VIRTUAL_EXIT } from './mechanism.ts';

/**
 * Block-level mechanisms (issue 13 item 3; seed 002 §3.2–3.4): one state for all K warps of a
 * block, because threads of different warps are regrouped into new warps.
 *
 * A block mechanism is a `Mechanism<S>` whose masks name the block's *threads* rather than one
 * warp's lanes: bit t is thread t = k·W + l, of home warp k = ⌊t / W⌋ and home lane l = t mod W
 * (SEMANTICS §1's numbering). An `Issue` is one formed warp: a PC and the block threads that run
 * it. Its factory says `level: 'block'`; the machine then runs the block as one "block view" of
 * K·W threads (`machine/machineSetup.ts`), so the explorer, the laws, replay and the issue core
 * take block and per-warp mechanisms alike. Since masks are 32-bit numbers here, K·W ≤ 32
 * (`BLOCK_THREAD_LIMIT`); beyond it the run ends `unsupported` with a message naming the limit.
 *
 * Lane positions are part of the rules: a formed warp never holds two threads of one home lane
 * (seed 002 §3.2: "restricted threads to stick to their original assigned lane ... if two threads
 * from same 'home' lane are grouped into the same warp, these two threads will have a bank
 * conflict").
 */
export interface BlockShape {
  /** Warps in the block (K). */
  readonly warps: number;
  /** Lanes per warp (W): a thread's home lane is its index mod W. */
  readonly warpSize: number;
}

/** The most threads a block mechanism handles: masks are 32-bit numbers. */
export const BLOCK_THREAD_LIMIT = 32;

/** What a block mechanism is built from: the per-warp context over the block's threads, and the shape. */
export interface BlockContext extends MechanismContext {
  readonly block: BlockShape;
}

/** Mask of the block threads whose home lane is `lane`. */
export function columnMask(shape: BlockShape, lane: number): number {
  let m = 0;
  for (let k = 0; k < shape.warps; k++) m |= 1 << (k * shape.warpSize + lane);
  return m >>> 0;
}

/**
 * Thread-block compaction of `mask` into warps (seed 002 §3.3, Fung & Aamodt [7]): warp j takes,
 * for every home lane, the j-th thread of `mask` in that lane in ascending home-warp order, so
 * threads keep their home lanes and lanes that hold more threads give extra warps (as many warps as
 * the fullest lane has threads). A full block compacts to its home warps. Ascending order.
 */
export function compact(shape: BlockShape, mask: number): number[] {
  const out: number[] = [];
  const W = shape.warpSize;
  for (let l = 0; l < W; l++) {
    let j = 0;
    for (let k = 0; k < shape.warps; k++) {
      const bit = (1 << (k * W + l)) >>> 0;
      if ((mask & bit) === 0) continue;
      if (j === out.length) out.push(0);
      out[j] = (out[j]! | bit) >>> 0;
      j++;
    }
  }
  return out;
}

/** Home lanes of `mask`, as a W-bit mask: two threads of one formed warp never share one. */
export function homeLanes(shape: BlockShape, mask: number): number {
  let lanes = 0;
  const W = shape.warpSize;
  for (let m = mask >>> 0; m !== 0; m &= m - 1) lanes |= 1 << ((31 - Math.clz32(m & -m)) % W);
  return lanes >>> 0;
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
export function mergeGroups(acc: readonly Group[], groups: readonly Group[]): Group[] {
  const byPc = new Map<number, number>();
  for (const g of acc) byPc.set(g.pc, g.mask);
  for (const g of groups) byPc.set(g.pc, ((byPc.get(g.pc) ?? 0) | g.mask) >>> 0);
  return [...byPc].sort((a, b) => a[0] - b[0]).map(([pc, mask]) => ({ pc, mask }));
}

/** Prints a block mask as its home warps' masks, warp 0 on the right: `1110_1111`. */
export function blockMask(shape: BlockShape, mask: number): string {
  const W = shape.warpSize;
  const parts: string[] = [];
  for (let k = shape.warps - 1; k >= 0; k--)
    parts.push(
      ((mask >>> (k * W)) & (W === 32 ? 0xffffffff : (1 << W) - 1)).toString(2).padStart(W, '0'),
    );
  return parts.join('_');
}

/**
 * The mechanism a block beyond `BLOCK_THREAD_LIMIT` threads runs: the first issue ends the run
 * `unsupported`, naming the limit (run per home warp, so that the lanes stay within 32 bits).
 */
export function tooLargeBlock(id: string, ctx: MechanismContext, shape: BlockShape): Mechanism<0> {
  const message = `${id} is a block mechanism and keeps the block's K·W threads in one 32-bit mask: K·W = ${shape.warps}·${shape.warpSize} = ${shape.warps * shape.warpSize} exceeds ${BLOCK_THREAD_LIMIT} (use --warps and --warp-size with K·W ≤ ${BLOCK_THREAD_LIMIT})`;
  return {
    id,
    laneFairness: false,
    policy: () => 'native',
    init: () => 0,
    candidates: (): readonly Issue[] => [{ pc: ctx.entry, mask: ctx.full }],
    advance: (): Advance<0> => ({ kind: 'stop', verdict: 'unsupported', message }),
    ready: () => ctx.full,
    key: () => {},
    view: () => ({ tables: [], data: { unsupported: message } }),
  };
}

/**
 * A block-wide reconvergence stack (`tbc`, `lwm`) for views: the table rows (top first: RPC, PC,
 * threads) and the scenario data, PCs as labels (the virtual exit as `-` / null).
 */
export function stackView(
  stack: readonly { readonly pc: number; readonly rpc: number; readonly mask: number }[],
  fmt: Formatter,
  shape: BlockShape,
): { rows: string[][]; data: { rpc: string | null; pc: string | null; mask: string }[] } {
  const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
  const top = [...stack].reverse();
  return {
    rows: top.map((e) => [pc(e.rpc), pc(e.pc), fmt.mask(e.mask)]),
    data: top.map((e) => ({
      rpc: e.rpc === VIRTUAL_EXIT ? null : fmt.pc(e.rpc),
      pc: e.pc === VIRTUAL_EXIT ? null : fmt.pc(e.pc),
      mask: blockMask(shape, e.mask),
    })),
  };
}
