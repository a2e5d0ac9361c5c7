import type { Graph, Lasso } from './fairCycles.ts';
import { permAt } from './warpSymmetry.ts';

/**
 * Weak fairness on the warp-symmetry quotient (issue 10 item 2; docs/semantics.md §15), after
 * Emerson and Sistla, "Utilizing symmetry when model-checking under fairness assumptions: an
 * automata-theoretic approach" (TOPLAS 19(4), 1997): the *annotated quotient* with thread
 * tracking. Each recorded edge s → t carries σ (`Graph.edgePerm`): warp i of s's successor is
 * warp σ(i) of t's representative. The product graph has a node (s, i) per quotient state and
 * warp index — "the warp that is at index i in s's representative" — and an edge
 * (s, i) → (t, σ(i)) per quotient edge. Entities of a warp (the warp, its lanes, its PCs) are
 * read at the tracked index; lanes and PCs are never renamed, only the warp index moves.
 *
 * The rule (proved in §15): a quotient SCC C (with an internal edge) has a fair concrete cycle
 * over it iff every product SCC over C is fair *for its tracked warp*: every entity of that warp
 * is taken on some edge of the product SCC (an edge whose step is the tracked warp's) or disabled
 * at some node of it.
 */
export function trackedFair(
  g: Graph,
  comp: Int32Array,
  order: Int32Array,
  from: number,
  to: number,
  c: number,
  scratch: TrackScratch,
): boolean {
  const K = g.warps;
  const perm = g.edgePerm!;
  const n = to - from;
  const pos = scratch.posOf(g.expanded);
  for (let u = 0; u < n; u++) pos[order[from + u]!] = u;
  const N = n * K;
  const inside = (t: number) => t >= 0 && t < g.expanded && comp[t] === c;
  // Iterative Tarjan over the product nodes v = u·K + i.
  const index = new Int32Array(N).fill(-1);
  const low = new Int32Array(N);
  const pcomp = new Int32Array(N).fill(-1);
  const onStack = new Uint8Array(N);
  const stack = new Int32Array(N);
  const callNode = new Int32Array(N);
  const callEdge = new Int32Array(N);
  let sp = 0;
  let cp = 0;
  let counter = 0;
  let comps = 0;
  const stateOf = (v: number) => order[from + ((v / K) | 0)]!;
  const next = (v: number, e: number) => pos[g.edgeTo[e]!]! * K + permAt(perm[e]!, v % K);
  for (let root = 0; root < N; root++) {
    if (index[root] !== -1) continue;
    index[root] = low[root] = counter++;
    stack[sp++] = root;
    onStack[root] = 1;
    callNode[cp] = root;
    callEdge[cp++] = g.edgeStart[stateOf(root)]!;
    while (cp > 0) {
      const v = callNode[cp - 1]!;
      const e = callEdge[cp - 1]!;
      if (e < g.edgeStart[stateOf(v) + 1]!) {
        callEdge[cp - 1] = e + 1;
        if (!inside(g.edgeTo[e]!)) continue;
        const w = next(v, e);
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack[sp++] = w;
          onStack[w] = 1;
          callNode[cp] = w;
          callEdge[cp++] = g.edgeStart[stateOf(w)]!;
        } else if (onStack[w] && index[w]! < low[v]!) low[v] = index[w]!;
        continue;
      }
      cp--;
      if (cp > 0) {
        const u = callNode[cp - 1]!;
        if (low[v]! < low[u]!) low[u] = low[v]!;
      }
      if (low[v] === index[v]) {
        const top = sp;
        let w: number;
        do {
          w = stack[--sp]!;
          onStack[w] = 0;
          pcomp[w] = comps;
        } while (w !== v);
        if (!productFair(g, stack, sp, top, comps, pcomp, stateOf, next, inside)) return false;
        comps++;
      }
    }
  }
  return true;
}

/** One product SCC (nodes `members[from .. to-1]`, id `pc`) is fair for its tracked warp. */
function productFair(
  g: Graph,
  members: Int32Array,
  from: number,
  to: number,
  pc: number,
  pcomp: Int32Array,
  stateOf: (v: number) => number,
  next: (v: number, e: number) => number,
  inside: (t: number) => boolean,
): boolean {
  const K = g.warps;
  let alwaysEnabled = true;
  let taken = false;
  let alwaysReady = 0xffffffff;
  let takenLanes = 0;
  const readyPlaces = g.readyPlaces;
  const readyIn = readyPlaces ? new Map<number, number>() : null;
  const takenPlaces = readyPlaces ? new Set<number>() : null;
  for (let m = from; m < to; m++) {
    const v = members[m]!;
    const s = stateOf(v);
    const i = v % K;
    if (!((g.enabledWarps[s]! >> i) & 1)) alwaysEnabled = false;
    if (g.readyLanes) alwaysReady &= g.readyLanes[s * K + i]!;
    if (readyPlaces) {
      const l = readyPlaces.stateLocal[s * K + i]!;
      for (let x = readyPlaces.start[l]!; x < readyPlaces.start[l + 1]!; x++) {
        const p = readyPlaces.places[x]!;
        readyIn!.set(p, (readyIn!.get(p) ?? 0) + 1);
      }
    }
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      if (!inside(g.edgeTo[e]!) || pcomp[next(v, e)] !== pc) continue;
      const st = g.edgeStep[e]!;
      if (g.stepWarp[st] !== i) continue;
      taken = true;
      takenLanes |= g.stepMask[st]!;
      if (readyPlaces) takenPlaces!.add(readyPlaces.stepPlace[st]!);
    }
  }
  if (alwaysEnabled && !taken) return false;
  if (g.readyLanes && (alwaysReady & ~takenLanes) >>> 0 !== 0) return false;
  if (readyIn)
    for (const [p, k] of readyIn) if (k === to - from && !takenPlaces!.has(p)) return false;
  return true;
}

/** The quotient-position map of `trackedFair`, allocated once per search. */
export class TrackScratch {
  private pos: Int32Array | null = null;
  posOf(n: number): Int32Array {
    if (!this.pos || this.pos.length < n) this.pos = new Int32Array(n);
    return this.pos;
  }
}

/**
 * A lasso through a fair quotient SCC under warp symmetry: one *turn* from `entry` back to it
 * that, for every index i0 a warp can hold at `entry`, meets every fairness obligation of the
 * warp tracked from (entry, i0) — each found by a breadth-first walk in the product graph, which
 * stays inside the tracked warp's product SCC and so reaches a witness (`trackedFair` held). A
 * concrete run repeats the turn; whatever index a warp holds when a turn starts, the turn is fair
 * to it, so the repetition is fair (`concretize.ts` unrolls it until the state repeats exactly).
 */
export function trackedLasso(g: Graph, comp: Int32Array, entry: number): Lasso {
  const K = g.warps;
  const perm = g.edgePerm!;
  const c = comp[entry]!;
  const inside = (t: number) => t >= 0 && t < g.expanded && comp[t] === c;
  const walkedEdges: number[] = [];
  const walkedFrom: number[] = [];
  let at = entry;
  const where = Int32Array.from({ length: K }, (_, i) => i);
  interface Obligation {
    off(s: number, x: number): boolean;
    takenBy(e: number, x: number): boolean;
  }
  const stepOf = (e: number) => g.edgeStep[e]!;
  const obligationsAt = (s: number, x: number): Obligation[] => {
    const out: Obligation[] = [
      {
        off: (s2, x2) => !((g.enabledWarps[s2]! >> x2) & 1),
        takenBy: (e, x2) => g.stepWarp[stepOf(e)] === x2,
      },
    ];
    if (g.readyLanes)
      for (let l = 0; l < 32; l++)
        out.push({
          off: (s2, x2) => !((g.readyLanes![s2 * K + x2]! >>> l) & 1),
          takenBy: (e, x2) =>
            g.stepWarp[stepOf(e)] === x2 && ((g.stepMask[stepOf(e)]! >>> l) & 1) === 1,
        });
    const r = g.readyPlaces;
    if (r) {
      const placesAt = (s2: number, x2: number): number[] => {
        const l = r.stateLocal[s2 * K + x2]!;
        return Array.from(r.places.subarray(r.start[l]!, r.start[l + 1]!));
      };
      for (const p of placesAt(s, x))
        out.push({
          off: (s2, x2) => !placesAt(s2, x2).includes(p),
          takenBy: (e, x2) => g.stepWarp[stepOf(e)] === x2 && r.stepPlace[stepOf(e)] === p,
        });
    }
    return out;
  };
  /** The obligation is already met in this turn for the warp that held index i0 at entry. */
  const met = (o: Obligation, i0: number): boolean => {
    let x = i0;
    for (let k = 0; k < walkedEdges.length; k++) {
      const e = walkedEdges[k]!;
      if (o.off(walkedFrom[k]!, x) || o.takenBy(e, x)) return true;
      x = permAt(perm[e]!, x);
    }
    return o.off(at, x);
  };
  const take = (e: number, s: number) => {
    walkedEdges.push(e);
    walkedFrom.push(s);
    for (let j = 0; j < K; j++) where[j] = permAt(perm[e]!, where[j]!);
    at = g.edgeTo[e]!;
  };
  for (let i0 = 0; i0 < K; i0++) {
    for (const o of obligationsAt(at, where[i0]!)) {
      if (met(o, i0)) continue;
      for (const [e, s] of productPath(g, inside, at, where[i0]!, o)) take(e, s);
    }
  }
  // Back to the entry (any index): at least one step, so the cycle is never empty.
  for (const [e, s] of quotientPath(g, inside, at, entry, walkedEdges.length === 0)) take(e, s);
  return { entry, cycle: walkedEdges.map((e, k) => e - g.edgeStart[walkedFrom[k]!]!) };
}

/** Shortest product path from (s0, x0) to a node where `o` is off or an edge that takes it. */
function productPath(
  g: Graph,
  inside: (t: number) => boolean,
  s0: number,
  x0: number,
  o: { off(s: number, x: number): boolean; takenBy(e: number, x: number): boolean },
): [number, number][] {
  if (o.off(s0, x0)) return [];
  const start = s0 * 8 + x0;
  const via = new Map<number, [number, number, number]>(); // node → (edge, source state, prev node)
  via.set(start, [-1, -1, -1]);
  const queue = [start];
  const pathTo = (node: number, last: [number, number] | null): [number, number][] => {
    const out: [number, number][] = last ? [last] : [];
    for (let v = node; v !== start;) {
      const [e, s, prev] = via.get(v)!;
      out.push([e, s]);
      v = prev;
    }
    return out.reverse();
  };
  for (let qi = 0; qi < queue.length; qi++) {
    const v = queue[qi]!;
    const s = v >> 3;
    const x = v & 7;
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      if (!inside(t)) continue;
      if (o.takenBy(e, x)) return pathTo(v, [e, s]);
      const w = t * 8 + permAt(g.edgePerm![e]!, x);
      if (via.has(w)) continue;
      via.set(w, [e, s, v]);
      if (o.off(t, w & 7)) return pathTo(w, null);
      queue.push(w);
    }
  }
  throw new Error('trackedLasso: an obligation has no witness in its product component');
}

/** Shortest quotient path inside the component from `from` to `goal` (moving at least once if asked). */
function quotientPath(
  g: Graph,
  inside: (t: number) => boolean,
  from: number,
  goal: number,
  mustMove: boolean,
): [number, number][] {
  if (from === goal && !mustMove) return [];
  const via = new Map<number, [number, number]>();
  const queue = [from];
  const seen = new Set<number>([from]);
  for (let qi = 0; qi < queue.length; qi++) {
    const s = queue[qi]!;
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      if (!inside(t)) continue;
      if (t === goal) {
        const out: [number, number][] = [[e, s]];
        for (let v = s; v !== from;) {
          const [pe, ps] = via.get(v)!;
          out.push([pe, ps]);
          v = ps;
        }
        return out.reverse();
      }
      if (seen.has(t)) continue;
      seen.add(t);
      via.set(t, [e, s]);
      queue.push(t);
    }
  }
  throw new Error('trackedLasso: the entry is not reachable inside its component');
}
