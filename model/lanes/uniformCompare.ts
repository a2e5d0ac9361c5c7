import type { Op, Src } from '../isa/op.ts';
import type { ExecContext } from './execContext.ts';
import type { LaneData } from './laneData.ts';
import { UNKNOWN, lanesOf, u32 } from './values.ts';
import { srcValue } from './execute.ts';
import { sharedUnknownAcross } from './shared.ts';

type Isetp = Extract<Op, { kind: 'isetp' }>;

/**
 * Unknown *uniform* comparisons (issue 16, docs/semantics.md §13 "uniform comparisons"): an
 * ISETP that compares each lane's known value with one unknown value that is the same for every
 * lane of the warp — a uniform register (`UR8`: one value per warp by the ISA's definition), a
 * constant-bank word the launch does not give (`c[0x0][0x160]`: one value per launch), or a
 * register the issuing lanes hold as one shared unknown (`shared.ts`) — can only
 * split the lanes in as many ways as the unknown can fall among the lanes' values: below all of
 * them, equal to one, between two neighbours, above all (k distinct values: at most 2k + 1
 * outcomes, k + 1 for an order comparison as predicates go). Treating the unknown per lane (the
 * plain abstract rule, SEMANTICS §5) lets every subset of lanes take either side: 2^W outcomes
 * for lanes with distinct indices (the grid-stride loop `i = tid; i < n`), most of them
 * impossible.
 *
 * So the ISETP becomes a choice among stand-in values for the unknown: for every distinct known
 * value v the values v − 1, v, v + 1, and the extremes 0, 0x7fffffff, 0x80000000, 0xffffffff.
 * Every interval of the real line cut by the lanes' values (signed or unsigned order) holds one
 * of them, so every real value of the unknown gives the predicates of some stand-in; equal
 * outcomes are merged. Each alternative is a fair unknown choice (its label starts `unknown`),
 * so findings behind it are *possible*. Choices at two ISETPs on the same unknown are made
 * independently: an over-approximation, as before.
 */
export function uniformCompare(
  ctx: ExecContext,
  op: Op,
  d: LaneData,
  sure: number,
  /** The stand-ins for the lanes' known values; only the law's planted bug passes another. */
  standIns: (values: ReadonlySet<number>) => Iterable<number> = standInValues,
): {
  readonly side: 'a' | 'b' | 'both';
  readonly alternatives: readonly { op: Isetp; label: string }[];
} | null {
  if (op.kind !== 'isetp' || sure === 0) return null;
  // One unknown shared by every issuing lane: a uniform register, an unknown constant, or a
  // register the lanes hold with one tag (`shared.ts`).
  const aU = uniformOperand(ctx, d, sure, op, op.a);
  const bU = uniformOperand(ctx, d, sure, op, op.b);
  if (!aU && !bU) return null;
  if (aU && bU) {
    // Both sides shared: every lane compares the same two words, so the lanes all agree, and
    // (0, 0), (0, 1), (1, 0) give every outcome any comparison can have (equal, less, greater).
    // The two may be one word (the same register twice): (0, 0) is among them.
    const same = op.a.kind === 'reg' && op.b.kind === 'reg' && op.a.index === op.b.index;
    const pairs =
      same && !op.a.negated === !op.b.negated
        ? [[0, 0]]
        : [
            [0, 0],
            [0, 1],
            [1, 0],
          ];
    const alternatives = pairs.map(([x, y]) => ({
      op: { ...op, a: { kind: 'imm', value: x! } as Src, b: { kind: 'imm', value: y! } as Src },
      label: `unknown shared operands of ISETP as 0x${x!.toString(16)}, 0x${y!.toString(16)}`,
    }));
    return { side: 'both', alternatives };
  }
  const side = aU ? 'a' : 'b';
  const other = aU ? op.b : op.a;
  const values = new Set<number>();
  for (const l of lanesOf(sure)) {
    const v = srcValue(ctx, d, l, other);
    if (v === UNKNOWN) return null;
    values.add(v);
  }
  const alternatives = [...new Set(standIns(values))]
    .sort((x, y) => x - y)
    .map((value) => ({
      op: { ...op, [side]: { kind: 'imm', value } as Src } as Isetp,
      label: `unknown uniform operand ${side === 'a' ? 'a' : 'b'} of ISETP as 0x${value.toString(16)}`,
    }));
  return { side, alternatives };
}

/**
 * One value in every interval the lanes' values cut the 32-bit words into, in signed and in
 * unsigned order: each value, its neighbours, and the ends of both orders.
 */
export function standInValues(values: ReadonlySet<number>): number[] {
  const out = [0, 0x7fffffff, 0x80000000, 0xffffffff];
  for (const v of values) out.push(u32(v - 1), v, u32(v + 1));
  return out;
}

/**
 * The operand is one unknown word for every lane of `sure`: an unknown constant or a uniform
 * register, or — unless the ISETP's predicates are dead after it (`deadOutputs`) — a register
 * the lanes hold with one tag (`shared.ts`).
 */
function uniformOperand(ctx: ExecContext, d: LaneData, sure: number, op: Isetp, s: Src): boolean {
  if (s.kind === 'reg' && op.deadOutputs) return false;
  return sharedUnknownAcross(ctx, d, sure, s);
}
