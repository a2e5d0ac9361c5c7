import type { Machine, MachineState } from '../machine/machine.ts';
import type { VisitedStates } from './visited.ts';

/**
 * Planted bugs for the warp-symmetry law (`warpSymmetry.test.ts`); never defaults.
 * - `index-fairness`: the fair-cycle pass ignores the recorded permutations and checks fairness
 *   per warp index of the quotient (what the dropped first attempt did);
 * - `permute-pinned`: warps that may still read their own index are sorted too.
 */
export type PlantUnsoundWarpSymmetry = 'index-fairness' | 'permute-pinned';

/** σ packed 3 bits per warp: σ(i) = `(p >>> 3i) & 7` (K ≤ 8, `Launch.warps`). */
export const permAt = (p: number, i: number): number => (p >>> (3 * i)) & 7;

/** The identity permutation of K warps, packed. */
export function identityPerm(K: number): number {
  let p = 0;
  for (let i = 0; i < K; i++) p |= i << (3 * i);
  return p;
}

/**
 * Warp symmetry (issue 10 item 2; docs/semantics.md §15): the explorer stores one state per
 * class of states equal up to a permutation of *unpinned* warps (`Machine.warpPinned`). The
 * canonical member keeps every pinned warp at its index and puts the unpinned warps, in the
 * positions the unpinned warps occupy, in increasing order of their interned warp id (ids are
 * exact canonical warp keys, so the order is a function of the class). For each stored edge the
 * explorer keeps the permutation σ from the successor as computed (warp i) to its canonical form
 * (warp σ(i)): the fair-cycle pass tracks single warps through the quotient with it
 * (`trackedFairness.ts`, Emerson and Sistla's thread tracking).
 */
export class WarpSymmetry {
  private readonly K: number;
  /** Per warp id: 0 not yet asked, 1 free, 2 pinned. */
  private pins = new Uint8Array(1024);
  private readonly pos: Int32Array;
  private readonly ids: Int32Array;
  private readonly vals: Int32Array;
  readonly identity: number;

  constructor(
    private readonly machine: Machine,
    private readonly visited: VisitedStates,
    private readonly plant: PlantUnsoundWarpSymmetry | null = null,
  ) {
    this.K = machine.launch.warps;
    this.pos = new Int32Array(this.K);
    this.ids = new Int32Array(this.K);
    this.vals = new Int32Array(this.K);
    this.identity = identityPerm(this.K);
  }

  /** Warp id `wid` (its representative) may still read its own index. */
  pinned(wid: number): boolean {
    if (wid >= this.pins.length) {
      const next = new Uint8Array(Math.max(wid + 1, this.pins.length * 2));
      next.set(this.pins);
      this.pins = next;
    }
    let p = this.pins[wid]!;
    if (p === 0) {
      p = this.machine.warpPinned!(this.visited.warpObj(wid)) ? 2 : 1;
      this.pins[wid] = p;
    }
    return p === 2 && this.plant !== 'permute-pinned';
  }

  /**
   * Sorts the unpinned warps of `tuple` (warp ids at 0..K-1) in place into canonical order;
   * returns σ packed: the warp at index i before is at σ(i) after. Ties (equal ids: equal warps)
   * keep their order — any choice among equal warps is a valid tracking (§15).
   */
  canon(tuple: Int32Array): number {
    const K = this.K;
    const pos = this.pos;
    let n = 0;
    for (let k = 0; k < K; k++) if (!this.pinned(tuple[k]!)) pos[n++] = k;
    if (n < 2) return this.identity;
    // Insertion sort of positions by id (stable): order[j] = the old position going to pos[j].
    const order = this.ids;
    for (let j = 0; j < n; j++) {
      const p = pos[j]!;
      const v = tuple[p]!;
      let m = j;
      while (m > 0 && tuple[order[m - 1]!]! > v) {
        order[m] = order[m - 1]!;
        m--;
      }
      order[m] = p;
    }
    let perm = this.identity;
    let moved = false;
    const vals = this.vals;
    for (let j = 0; j < n; j++) {
      const from = order[j]!;
      const to = pos[j]!;
      vals[j] = tuple[from]!;
      if (from !== to) {
        moved = true;
        perm = (perm & ~(7 << (3 * from))) | (to << (3 * from));
      }
    }
    if (!moved) return this.identity;
    for (let j = 0; j < n; j++) tuple[pos[j]!] = vals[j]!;
    return perm;
  }

  /**
   * Which warp of `st` (a member of stored state `id`'s class) stands at each index of id's
   * tuple: warps already at their index first (pinned warps always are), then the rest by equal
   * warp id. Equal ids are equal warps, so any matching among them is a valid one. Null when
   * `st` is not in the class.
   */
  readonly match = (st: MachineState, id: number): Int32Array | null => {
    const K = this.K;
    const ids = st.warps.map((w) => this.visited.warpId(w));
    const out = new Int32Array(K).fill(-1);
    const used = new Uint8Array(K);
    for (let j = 0; j < K; j++)
      if (ids[j] === this.visited.at(id, j)) {
        out[j] = j;
        used[j] = 1;
      }
    for (let j = 0; j < K; j++) {
      if (out[j]! >= 0) continue;
      const want = this.visited.at(id, j);
      const k = ids.findIndex((x, i) => x === want && !used[i]);
      if (k < 0) return null;
      out[j] = k;
      used[k] = 1;
    }
    return out;
  };

  /**
   * `st` is in the class of stored state `id` (`concretize.ts`): its warps and memory, interned
   * and put in canonical order, are id's tuple. Interning here only adds representatives.
   */
  readonly inClass = (st: MachineState, id: number): boolean => {
    const K = this.K;
    const t = new Int32Array(K + 1);
    for (let k = 0; k < K; k++) t[k] = this.visited.warpId(st.warps[k]!);
    t[K] = this.visited.memId(st.memory);
    this.canon(t);
    for (let j = 0; j <= K; j++) if (t[j] !== this.visited.at(id, j)) return false;
    return true;
  };
}
