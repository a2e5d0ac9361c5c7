import type { Op, Src } from '../isa/op.ts';
import { RZ } from '../isa/program.ts';
import type { ExecContext } from './execContext.ts';
import type { LaneData } from './laneData.ts';
import { UNKNOWN, isShared, shared, tagOf } from './values.ts';

/**
 * Shared unknowns (issue 16, docs/semantics.md §13 "Shared unknowns"; values in `values.ts`).
 *
 * SEMANTICS §5 makes every unknown value a value of its own: a branch on it may go either way in
 * every lane. A value that every lane of one issue computes from the same inputs is one value,
 * though: `IMAD.MOV.U32 R8, RZ, RZ, c[0x0][0x184]` then `IADD3 R9, -R8, c[0x0][0x184], RZ` gives
 * every issuing lane the same R9, unknown when the kernel parameter is, and a loop that counts R9
 * down keeps the lanes together on real hardware. Without the tie the model split them at every
 * test of R9 (n + 1 ways with lane symmetry), and under `its` the split groups then interleave
 * through the loop body: `batched_sgemv` (cudad sm89) at W = 3 had 333,074 states on `its`
 * against 521 on `hanoi`.
 *
 * The rules, each sound on its own:
 * - **Creation** (`shareResult`): a MOV, IADD3/IMAD, LOP3 or shift whose every source is the same
 *   for all the lanes it issues for (an immediate, a constant-bank word, a uniform register, or a
 *   register those lanes hold equal — the same known word or the same tag) computes the same word
 *   in each; when that word is unknown, the lanes get one fresh tag (`freshTag`: a tag no other
 *   lane of the column holds, so no lane outside is tied to them).
 * - **Use** (`uniformCompare.ts`): an ISETP against a shared unknown is a choice among stand-in
 *   values, as one against a uniform register has been: the issuing lanes' predicates are then
 *   known, and they split only as a real value can split them (both sides shared: all true or
 *   all false).
 * - **Widening** (`machine/widening.ts`) leaves a tag as it is and makes none.
 * Everything else that writes a register writes a known word or `UNKNOWN`, which ties nothing.
 */

/** The sources of the ops whose result `shareResult` may tie; null for every other op. */
function sourcesOf(op: Op): readonly Src[] | null {
  switch (op.kind) {
    case 'mov':
      return [op.src];
    case 'arith':
      return op.mul ? [op.mul[0], op.mul[1], ...op.adds] : op.adds;
    case 'lop3':
      return op.srcs;
    case 'shift':
      return [op.lo, op.amount, op.hi];
    default:
      return null;
  }
}

/** Lane `l`'s raw value of register source `s` (a tag stays a tag); RZ and unnamed read 0. */
function rawReg(ctx: ExecContext, d: LaneData, l: number, index: number): number {
  if (index === RZ) return 0;
  const slot = ctx.layout.slot[index] ?? -1;
  return slot < 0 ? 0 : d.regs[slot]![l]!;
}

/** Source `s` is one word for every lane of `lanes` (known or not). */
export function sameAcross(ctx: ExecContext, d: LaneData, lanes: number, s: Src): boolean {
  switch (s.kind) {
    case 'imm':
    case 'cbank':
      return true;
    case 'unknown':
      return s.uniform === true;
    case 'reg': {
      if (s.index === RZ || lanes === 0) return true;
      const first = rawReg(ctx, d, 31 - Math.clz32(lanes & -lanes), s.index);
      // Lanes that each hold their own unknown need not agree (the planted bug says they do).
      if (first === UNKNOWN && ctx.shared !== 'plant') return false;
      for (let m = lanes & (lanes - 1); m !== 0; m &= m - 1)
        if (rawReg(ctx, d, 31 - Math.clz32(m & -m), s.index) !== first) return false;
      return true;
    }
  }
}

/**
 * Source `s` is one *unknown* word for every lane of `lanes` (`lanes` not empty): an unknown
 * constant-bank word, a uniform register, or a register those lanes hold with one tag.
 */
export function sharedUnknownAcross(ctx: ExecContext, d: LaneData, lanes: number, s: Src): boolean {
  switch (s.kind) {
    case 'cbank':
      return ctx.constant(s.bank, s.offset) === UNKNOWN;
    case 'unknown':
      return s.uniform === true;
    case 'imm':
      return false;
    case 'reg': {
      if (s.index === RZ || lanes === 0 || ctx.shared === 'off') return false;
      const first = rawReg(ctx, d, 31 - Math.clz32(lanes & -lanes), s.index);
      const tied = isShared(first) || (ctx.shared === 'plant' && first === UNKNOWN);
      return tied && sameAcross(ctx, d, lanes, s);
    }
  }
}

/** The smallest tag that no lane of `others` holds in `col`, as a value (`shared`). */
export function freshTag(col: readonly number[], others: number): number {
  let used = 0;
  for (let m = others; m !== 0; m &= m - 1) {
    const v = col[31 - Math.clz32(m & -m)]!;
    if (isShared(v) && tagOf(v) < 31) used |= 1 << tagOf(v);
  }
  let t = 0;
  while ((used >>> t) & 1) t++;
  return shared(t);
}

/**
 * The column `op` writes, with one fresh tag in `lanes` (the lanes it surely issues for), when
 * they all got `UNKNOWN` and every source of `op` is the same for all of them (read in `d`, before
 * the write); null when it ties nothing. `col` is the column as written (a copy the caller owns,
 * tied in place), or null when the write changed nothing in `old`, the column before it (copied
 * only to tie). Needs two lanes or more: a tag on one lane ties nothing.
 */
export function shareResult(
  ctx: ExecContext,
  op: Op,
  d: LaneData,
  old: readonly number[],
  col: number[] | null,
  lanes: number,
): number[] | null {
  if ((lanes & (lanes - 1)) === 0 || ctx.shared === 'off') return null;
  const now = col ?? old;
  for (let m = lanes; m !== 0; m &= m - 1)
    if (now[31 - Math.clz32(m & -m)] !== UNKNOWN) return null;
  const srcs = sourcesOf(op);
  if (srcs === null) return null;
  for (const s of srcs) if (!sameAcross(ctx, d, lanes, s)) return null;
  const out = col ?? old.slice();
  const tag = freshTag(out, (ctx.full & ~lanes) >>> 0);
  for (let m = lanes; m !== 0; m &= m - 1) out[31 - Math.clz32(m & -m)] = tag;
  return out;
}

/**
 * Writes, for summaries of chains (`explore/laneChains.ts`), the tags the lanes of `lanes` hold,
 * column by column: the number of columns where they hold one, then each such column and the set
 * of its tags as bits. A summary moves a chain's running lanes from one state into another; the
 * tags the chain makes are the lowest the other lanes do not hold (`freshTag`), and a tag the
 * running lanes keep ties them to the other lanes that hold it — so two starts whose other lanes
 * hold the same tags in every column make the same tags and keep the same ties. Returns false
 * (no summary) when a tag is too large for a set of 31 bits.
 */
export function outsideTags(d: LaneData, lanes: number, out: { push(v: number): void }): boolean {
  const n = d.regs.length;
  if (tagSets.length < n) tagSets = new Int32Array(n);
  let count = 0;
  for (let s = 0; s < n; s++) {
    const col = d.regs[s]!;
    let set = 0;
    for (let m = lanes; m !== 0; m &= m - 1) {
      const v = col[31 - Math.clz32(m & -m)]!;
      if (!isShared(v)) continue;
      if (tagOf(v) >= 31) return false;
      set |= 1 << tagOf(v);
    }
    tagSets[s] = set;
    if (set !== 0) count++;
  }
  out.push(count);
  for (let s = 0; s < n; s++)
    if (tagSets[s] !== 0) {
      out.push(s);
      out.push(tagSets[s]!);
    }
  return true;
}

/** `outsideTags`' scratch: each column's set of tags (no allocation per projection). */
let tagSets = new Int32Array(64);
