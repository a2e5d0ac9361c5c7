/**
 * `LaneCanon` against its definition (issue 16; DESIGN.md "Reductions must be sound"), by brute
 * force over every lane permutation at W ≤ 4:
 * - two recordings get the same canonical key iff a permutation of the lanes that fixes every
 *   pinned lane maps one onto the other (lane sets relabelled, each lane's values moved with it);
 * - two lanes are in one class iff they are the same lane, or both unpinned and swapping them maps
 *   the recording onto itself.
 * Values come from a domain of three so that equal lanes, and runs of them, are common.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyWriter } from './key.ts';
import { LaneCanon } from './laneCanon.ts';

/** What a warp writes into its key: plain numbers and lane sets in order, and each lane's values. */
interface Recording {
  readonly items: readonly { readonly mask: boolean; readonly v: number }[];
  readonly lanes: readonly (readonly number[])[];
}

/** Plain numbers: zeros (runs of them are written short) and the run marker itself (escaped). */
const plain = fc.constantFrom(0, 0, 1, 2, -0.5);

const recording = (W: number): fc.Arbitrary<Recording> =>
  fc.record({
    // A fixed shape (number, set, number, set), as one writer's key has for one kind of state.
    items: fc.tuple(
      fc.record({ mask: fc.constant(false), v: plain }),
      fc.record({ mask: fc.constant(true), v: fc.integer({ min: 0, max: (1 << W) - 1 }) }),
      fc.record({ mask: fc.constant(false), v: plain }),
      fc.record({ mask: fc.constant(true), v: fc.integer({ min: 0, max: (1 << W) - 1 }) }),
    ),
    lanes: fc.array(fc.array(fc.integer({ min: -1, max: 1 }), { maxLength: 3 }), {
      minLength: W,
      maxLength: W,
    }),
  });

/** `r` with lane l renamed p[l]. */
function permute(r: Recording, p: readonly number[]): Recording {
  const relabel = (m: number) => p.reduce((acc, to, from) => acc | (((m >>> from) & 1) << to), 0);
  const lanes: number[][] = r.lanes.map(() => []);
  r.lanes.forEach((vals, l) => (lanes[p[l]!] = [...vals]));
  return { items: r.items.map((it) => (it.mask ? { mask: true, v: relabel(it.v) } : it)), lanes };
}

const same = (a: Recording, b: Recording) => JSON.stringify(a) === JSON.stringify(b);

function permutations(W: number): number[][] {
  if (W === 0) return [[]];
  return permutations(W - 1).flatMap((p) =>
    Array.from({ length: W }, (_, i) => [...p.slice(0, i), W - 1, ...p.slice(i)]),
  );
}

/** The permutations that leave every pinned lane where it is. */
const fixing = (W: number, pinned: number) =>
  permutations(W).filter((p) => p.every((to, from) => !((pinned >>> from) & 1) || to === from));

function record(canon: LaneCanon, r: Recording): void {
  canon.reset();
  // Lane values interleaved with the plain items, as a mechanism's key writes them.
  r.items.forEach((it, i) => {
    if (it.mask) canon.mask(it.v);
    else canon.push(it.v);
    r.lanes.forEach((vals, l) => vals[i] !== undefined && canon.lane(l, vals[i]!));
  });
  r.lanes.forEach((vals, l) => vals.slice(r.items.length).forEach((v) => canon.lane(l, v)));
}

function keyOf(canon: LaneCanon, r: Recording, pinned: number): string {
  record(canon, r);
  const out = new KeyWriter();
  canon.write(out, pinned);
  return out.finish();
}

describe('LaneCanon', () => {
  for (const W of [3, 4]) {
    const canon = new LaneCanon(W);
    const pinnedArb = fc.integer({ min: 0, max: (1 << W) - 1 }).map((m) => m & (m >>> 1)); // often 0
    it(`W = ${W}: equal keys iff a permutation fixing the pinned lanes maps one onto the other`, () => {
      fc.assert(
        fc.property(recording(W), recording(W), pinnedArb, fc.nat(), (a, b0, pinned, pick) => {
          const perms = fixing(W, pinned);
          // Half the time b is a permutation of a (equal keys expected), else independent.
          const b = pick % 2 === 0 ? permute(a, perms[pick % perms.length]!) : b0;
          const related = perms.some((p) => same(permute(a, p), b));
          expect(keyOf(canon, a, pinned) === keyOf(canon, b, pinned)).toBe(related);
        }),
        { numRuns: 400, seed: 16 },
      );
    });
    it(`W = ${W}: classes are the lanes a swap leaves in place (pinned lanes alone)`, () => {
      fc.assert(
        fc.property(recording(W), pinnedArb, (r, pinned) => {
          record(canon, r);
          const classes = canon.classes(pinned);
          expect(classes.reduce((a, c) => a | c, 0)).toBe((1 << W) - 1);
          expect(classes.reduce((a, c) => a + popcount(c), 0)).toBe(W);
          const classOf = (l: number) => classes.findIndex((c) => (c >>> l) & 1);
          for (let a = 0; a < W; a++)
            for (let b = a + 1; b < W; b++) {
              const swap = Array.from({ length: W }, (_, l) => (l === a ? b : l === b ? a : l));
              const interchangeable =
                !((pinned >>> a) & 1) && !((pinned >>> b) & 1) && same(permute(r, swap), r);
              expect(classOf(a) === classOf(b)).toBe(interchangeable);
            }
        }),
        { numRuns: 400, seed: 16 },
      );
    });
  }
  it('plain numbers that are zeros, or the zero-run marker itself, never merge two keys', () => {
    // Hand-picked pairs that a run-length encoding without an escape, or without the count of
    // items, would write alike; no permutation relates them (their plain numbers differ).
    const canon = new LaneCanon(2);
    const rec = (vs: number[]): Recording => ({
      items: vs.map((v) => ({ mask: false, v })),
      lanes: [[1], [1]],
    });
    const pairs: [number[], number[]][] = [
      [
        [-0.5, 2, 5],
        [0, 0, 5],
      ],
      [[-0.5, -0.5], [-0.5]],
      [
        [0, 0, 0],
        [0, 0],
      ],
      [
        [0, -0.5, 1],
        [-0.5, 1],
      ],
    ];
    for (const [a, b] of pairs) expect(keyOf(canon, rec(a), 0)).not.toBe(keyOf(canon, rec(b), 0));
    expect(keyOf(canon, rec([0, -0.5, 0]), 0)).toBe(keyOf(canon, rec([0, -0.5, 0]), 0));
  });
  it('a planted bug (lanes’ values left out of the key) merges recordings no permutation relates', () => {
    const canon = new LaneCanon(2, 'drop-lane-values');
    const a: Recording = { items: [], lanes: [[0], [0]] };
    const b: Recording = { items: [], lanes: [[1], [0]] };
    expect(keyOf(canon, a, 0)).toBe(keyOf(canon, b, 0));
    expect(keyOf(new LaneCanon(2), a, 0)).not.toBe(keyOf(new LaneCanon(2), b, 0));
  });
});

function popcount(m: number): number {
  let n = 0;
  for (let x = m; x !== 0; x &= x - 1) n++;
  return n;
}
