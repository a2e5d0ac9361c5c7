/**
 * `npm run bench:dwf-pool` (issue 10): how many states `dwf` has on the spinlock, and how many it
 * would have under readings of its rules that symmetry could reduce — the measurement behind
 * "no verdict for `dwf` at K = 4, W = 32" (bench/NOTES.md, "Why `dwf` at K = 4, W = 32 has no
 * verdict").
 *
 * An independent model of `scenarios/spinlock.sass` (seed 000 Fig. 3) under dynamic warp formation
 * (seed 002 §3.2; `model/mechanisms/dwf.ts`, docs/semantics.md "Block mechanisms"), written for
 * counting, not for checking: a formed warp is (PC, threads, the thread that won the lock's CAS).
 * Every thread runs the same nine instructions and holds no value that reaches control but its
 * CAS result, so the pool and the lock word are the whole state. `scenarios/dwfPool.test.ts`
 * checks that the `tool` reading counts exactly the states of `explore --mechanism dwf
 * --no-exit-priority`, so the figures below are the tool's.
 *
 * Readings (`reading`):
 * - `tool` — the rules as `dwf.ts` implements them: the pool ordered by PC, then by the threads'
 *   block numbers; after a branch each thread, in ascending thread order, joins the first warp at
 *   its PC with its home lane free, else starts one; the CAS winner is the formed warp's lowest
 *   thread (home warp, then lane). No symmetry survives these orders: threads are kept by name.
 * - `lane-first` — the same, except that the warps at a PC are ordered by their home-lane sets
 *   and the CAS winner is the formed warp's lowest lane. Renumbering the home warps of each lane
 *   (G1) is then a symmetry, and the states are counted up to it: a formed warp is its PC, its
 *   set of home lanes and its winner's lane.
 * - `lut` — Fung et al.'s PC-warp table, as we read it: the newest warp at a PC takes the
 *   incoming threads whose lanes it has free, the others form a new warp, which becomes the
 *   newest; the CAS winner is any thread of the formed warp (explored). Renumbering home warps
 *   per lane and renumbering the lanes themselves (G1 × G2) are symmetries; the states are
 *   counted up to both (warps ordered by PC and age, lanes sorted by their column).
 *
 * `exitFirst` expands a warp at the EXIT alone (as the tool's EXIT priority, docs §14.1); `ample`
 * also expands alone a warp at a PC whose step no other warp can see (PCs 0, 3 and 6: no regroup
 * sends a thread to them or to their successors, and they touch the lock word not at all) —
 * a reduction the tool does not have for block mechanisms, counted to show it would not suffice.
 *
 * Usage: `npm run bench:dwf-pool [-- --max-states N]` prints a table of K, W and the states of
 * each reading (a count that reaches N, default 300,000, is printed as "> N"; at N = 2,000,000
 * the table takes about 4.5 minutes).
 */

export type DwfReading = 'tool' | 'lane-first' | 'lut';

export interface DwfPoolOptions {
  readonly warps: number;
  readonly warpSize: number;
  readonly reading: DwfReading;
  readonly exitFirst: boolean;
  readonly ample: boolean;
  /** Stop counting at this many states. */
  readonly maxStates: number;
}

export interface DwfPoolCount {
  readonly states: number;
  /** The count stopped at `maxStates`. */
  readonly capped: boolean;
}

/** The spinlock's PCs (`scenarios/spinlock.sass`). */
const CAS = 2;
const BRA = 4;
const CRIT = 5;
const RELEASE = 7;
const EXIT = 8;
/** PCs whose step no other warp can observe (see `ample` above). */
const LOCAL_PCS = [0, 3, 6];

/**
 * A formed warp: PC, one W-bit word per home warp (under the symmetric readings one word: the
 * home lanes), and the winner of its CAS (a thread number, or a lane; -1: none).
 */
type Warp = readonly [pc: number, words: readonly number[], winner: number];
interface State {
  readonly pool: readonly Warp[];
  readonly locked: boolean;
}

const lowBit = (m: number): number => 31 - Math.clz32((m & -m) >>> 0);
const laneSet = (words: readonly number[]): number => words.reduce((a, b) => (a | b) >>> 0, 0);

export function countDwfPool(o: DwfPoolOptions): DwfPoolCount {
  const { warps: K, warpSize: W, reading } = o;
  const full = W === 32 ? 0xffffffff : (1 << W) - 1;

  /** The state's canonical form: the pool in the reading's order, under its symmetries. */
  function canon(pool: Warp[], locked: boolean): State {
    if (reading === 'tool') {
      // PC, then the block number Σ word_k·2^(k·W): the highest home warp's word first.
      const byBlock = (a: Warp, b: Warp) => {
        for (let k = K - 1; k >= 0; k--) if (a[1][k] !== b[1][k]) return a[1][k]! - b[1][k]!;
        return 0;
      };
      return { pool: pool.sort((a, b) => a[0] - b[0] || byBlock(a, b)), locked };
    }
    if (reading === 'lane-first')
      return {
        pool: pool.sort((a, b) => a[0] - b[0] || a[1][0]! - b[1][0]! || a[2] - b[2]),
        locked,
      };
    // lut: warps by PC, then age (the array's order, kept by a stable sort); lanes renumbered by
    // their columns — for each warp in that order, absent, present, or present and the winner.
    const ordered = pool.slice().sort((a, b) => a[0] - b[0]);
    const cols: [string, number][] = [];
    for (let l = 0; l < W; l++) {
      let c = '';
      for (const w of ordered) c += (w[1][0]! >>> l) & 1 ? (w[2] === l ? '2' : '1') : '0';
      cols.push([c, l]);
    }
    cols.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    const to = new Array<number>(W);
    cols.forEach(([, l], i) => (to[l] = i));
    const relabel = (m: number) => {
      let r = 0;
      for (let l = 0; l < W; l++) if ((m >>> l) & 1) r |= 1 << to[l]!;
      return r >>> 0;
    };
    return {
      pool: ordered.map(([pc, ws, win]) => [pc, [relabel(ws[0]!)], win < 0 ? -1 : to[win]!]),
      locked,
    };
  }

  /** Threads `words` (not in any warp of `pool`) arrive at `pc` after a branch. */
  function join(pool: Warp[], pc: number, words: readonly number[]): void {
    if (reading === 'lut') {
      let at = -1;
      for (let i = pool.length - 1; i >= 0 && at < 0; i--) if (pool[i]![0] === pc) at = i;
      const m = words[0]!;
      const free = at >= 0 ? (m & ~pool[at]![1][0]!) >>> 0 : 0;
      if (free !== 0) pool[at] = [pc, [(pool[at]![1][0]! | free) >>> 0], -1];
      if (free !== m) pool.push([pc, [(m & ~free) >>> 0], -1]);
      return;
    }
    // tool, lane-first: thread by thread in ascending order, the first warp in the pool's order
    // (as it stood; new warps go last) with the lane free, else a new warp.
    for (let k = 0; k < words.length; k++)
      for (let m = words[k]!; m !== 0; m &= m - 1) {
        const bit = (m & -m) >>> 0;
        const at = pool.findIndex((w) => w[0] === pc && (laneSet(w[1]) & bit) === 0);
        if (at >= 0) {
          const ws = pool[at]![1].slice();
          ws[k] = (ws[k]! | bit) >>> 0;
          pool[at] = [pc, ws, -1];
        } else {
          const ws = new Array<number>(words.length).fill(0);
          ws[k] = bit;
          pool.push([pc, ws, -1]);
        }
      }
  }

  function successors(s: State): State[] {
    const out: State[] = [];
    const { pool } = s;
    if (o.exitFirst) {
      const at = pool.findIndex((w) => w[0] === EXIT);
      if (at >= 0)
        return [
          canon(
            pool.filter((_, j) => j !== at),
            s.locked,
          ),
        ];
    }
    const alone = o.ample ? pool.findIndex((w) => LOCAL_PCS.includes(w[0])) : -1;
    for (let i = 0; i < pool.length; i++) {
      if (alone >= 0 && i !== alone) continue;
      const [pc, words, winner] = pool[i]!;
      const rest = () => pool.filter((_, j) => j !== i);
      if (pc === CAS && !s.locked) {
        if (reading === 'lut')
          for (let m = words[0]!; m !== 0; m &= m - 1) {
            const p = rest();
            p.push([pc + 1, words, lowBit(m)]);
            out.push(canon(p, true));
          }
        else {
          const p = rest();
          const k = reading === 'tool' ? words.findIndex((x) => x !== 0) : 0;
          p.push([pc + 1, words, k * 32 + lowBit(words[k]!)]);
          out.push(canon(p, true));
        }
        continue;
      }
      const p = rest();
      let locked = s.locked;
      if (pc === BRA) {
        // The losers go back to the CAS, the winner on to the critical section.
        const losers = words.slice();
        const won = new Array<number>(words.length).fill(0);
        if (winner >= 0) {
          const k = reading === 'tool' ? winner >> 5 : 0;
          const bit = (1 << (winner & 31)) >>> 0;
          losers[k] = (losers[k]! & ~bit) >>> 0;
          won[k] = bit;
        }
        if (losers.some((x) => x !== 0)) join(p, CAS, losers);
        if (won.some((x) => x !== 0)) join(p, CRIT, won);
      } else if (pc === EXIT) {
        // The warp's threads exit.
      } else {
        if (pc === RELEASE) locked = false;
        p.push([pc + 1, words, winner]);
      }
      out.push(canon(p, locked));
    }
    return out;
  }

  const keyOf = (s: State) =>
    (s.locked ? 'L' : 'U') + s.pool.map((w) => `${w[0]}:${w[1].join('.')}:${w[2]}`).join(';');
  const home = (k: number) =>
    reading === 'tool' ? Array.from({ length: K }, (_, j) => (j === k ? full : 0)) : [full];
  const init = canon(
    Array.from({ length: K }, (_, k): Warp => [0, home(k), -1]),
    false,
  );
  const seen = new Set<string>([keyOf(init)]);
  const stack: State[] = [init];
  while (stack.length > 0) {
    if (seen.size >= o.maxStates) return { states: seen.size, capped: true };
    for (const n of successors(stack.pop()!)) {
      const k = keyOf(n);
      if (!seen.has(k)) {
        seen.add(k);
        stack.push(n);
      }
    }
  }
  return { states: seen.size, capped: false };
}

function main(argv: readonly string[]): void {
  const i = argv.indexOf('--max-states');
  const maxStates = i >= 0 ? Number(argv[i + 1]) : 300_000;
  const shapes: readonly [number, number][] = [
    [2, 4],
    [2, 8],
    [3, 4],
    [4, 2],
    [4, 4],
    [4, 8],
    [4, 16],
    [4, 32],
  ];
  const rows: [DwfReading, boolean, string][] = [
    ['tool', false, '`tool`, EXIT first (the tool today)'],
    ['tool', true, '`tool`, EXIT first, local PCs alone'],
    ['lane-first', true, '`lane-first` up to G1, EXIT first, local PCs alone'],
    ['lut', true, '`lut` up to G1 × G2, EXIT first, local PCs alone'],
  ];
  process.stdout.write(`| reading | ${shapes.map(([k, w]) => `K=${k} W=${w}`).join(' | ')} |\n`);
  process.stdout.write(`| --- | ${shapes.map(() => '--:').join(' | ')} |\n`);
  for (const [reading, ample, label] of rows) {
    const cells = shapes.map(([warps, warpSize]) => {
      const r = countDwfPool({ warps, warpSize, reading, exitFirst: true, ample, maxStates });
      return r.capped ? `> ${r.states.toLocaleString('en-US')}` : r.states.toLocaleString('en-US');
    });
    process.stdout.write(`| ${label} | ${cells.join(' | ')} |\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
