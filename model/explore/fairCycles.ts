/**
 * Livelock detection (SEMANTICS §6): a reachable cycle that is *fair* and never ends.
 *
 * Weak fairness over warps (and, for `its`, over lanes): an entity that is enabled in every state
 * of a cycle must be taken somewhere on it. For one strongly connected component (SCC) this is
 * exact without recursion: if every entity is either taken on some edge inside the SCC or disabled
 * in some state of it, the cycle that runs through all of the SCC's states and edges is fair;
 * otherwise some entity is enabled throughout and never taken, and no cycle inside is fair.
 *
 * Unknown values (SEMANTICS §5): a branch on an unknown value is assumed to go every way
 * eventually, so an SCC in which such a branch goes one way inside and another way out is not a
 * livelock. (A smaller cycle inside it that avoids that branch could still be one; we do not
 * search for it — livelocks on opaque code are under-approximated, and the report says so.)
 */
export interface Graph {
  /** States 0..expanded-1 have their edges recorded; the rest have none. */
  readonly expanded: number;
  readonly warps: number;
  /** Edges of state i are edgeStart[i] .. edgeStart[i+1]-1. */
  readonly edgeStart: Int32Array;
  /** Target state, or -1 for a step that ended the run. */
  readonly edgeTo: Int32Array;
  readonly edgeWarp: Uint8Array;
  readonly edgeMask: Uint32Array;
  /** Alternatives of one issue (unknown outcomes) share a group within their state. */
  readonly edgeGroup: Uint16Array;
  readonly edgeUnknown: Uint8Array;
  /** The choice index of the edge in its state's successor list (for schedules). */
  readonly edgeChoice: Uint16Array;
  /** Bit w: warp w has something to issue in state i. */
  readonly enabledWarps: Uint8Array;
  /** readyLanes[i*warps + w]: lanes of warp w that may issue in state i (lane fairness), or null. */
  readonly readyLanes: Uint32Array | null;
}

export interface Lasso {
  /** The state where the cycle starts (reached by the shortest prefix). */
  readonly entry: number;
  /** Choice indices of the cycle, from `entry` back to `entry`. */
  readonly cycle: readonly number[];
}

/** Finds fair SCCs; returns how many, and a lasso into the one reached first (smallest id). */
export function findFairCycles(g: Graph): { count: number; lasso: Lasso | null } {
  const comp = sccs(g);
  const n = g.expanded;
  // Group states by component.
  const members = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const c = comp[i]!;
    let list = members.get(c);
    if (!list) members.set(c, (list = []));
    list.push(i);
  }
  let count = 0;
  let best: number[] | null = null;
  for (const list of members.values()) {
    const c = comp[list[0]!]!;
    if (!hasInternalEdge(g, comp, list, c)) continue;
    if (!isFair(g, comp, list, c)) continue;
    count++;
    if (best === null || list[0]! < best[0]!) best = list; // lists are ascending: [0] is the min id
  }
  return { count, lasso: best ? lassoOf(g, comp, best) : null };
}

function hasInternalEdge(g: Graph, comp: Int32Array, list: readonly number[], c: number): boolean {
  for (const s of list)
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      if (t >= 0 && t < g.expanded && comp[t] === c) return true;
    }
  return false;
}

function isFair(g: Graph, comp: Int32Array, list: readonly number[], c: number): boolean {
  const K = g.warps;
  let alwaysEnabled = 0xff;
  const alwaysReady = new Uint32Array(K).fill(0xffffffff);
  let takenWarps = 0;
  const takenLanes = new Uint32Array(K);
  for (const s of list) {
    alwaysEnabled &= g.enabledWarps[s]!;
    if (g.readyLanes) for (let w = 0; w < K; w++) alwaysReady[w]! &= g.readyLanes[s * K + w]!;
    const groupsIn = new Set<number>();
    const groupsOut = new Set<number>();
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      const inside = t >= 0 && t < g.expanded && comp[t] === c;
      if (inside) {
        takenWarps |= 1 << g.edgeWarp[e]!;
        takenLanes[g.edgeWarp[e]!]! |= g.edgeMask[e]!;
      }
      if (g.edgeUnknown[e]) (inside ? groupsIn : groupsOut).add(g.edgeGroup[e]!);
    }
    // An unknown branch taken inside that could also leave: a fair resolution leaves (SEMANTICS §5).
    for (const grp of groupsIn) if (groupsOut.has(grp)) return false;
  }
  for (let w = 0; w < K; w++) {
    if ((alwaysEnabled >> w) & 1 && !((takenWarps >> w) & 1)) return false;
    if (g.readyLanes && (alwaysReady[w]! & ~takenLanes[w]!) >>> 0 !== 0) return false;
  }
  return true;
}

/**
 * A lasso through a fair SCC: from its first-reached state, walk (inside the SCC) to satisfy each
 * fairness obligation in turn — take the entity, or pass a state where it is disabled — then walk
 * back to the start.
 */
function lassoOf(g: Graph, comp: Int32Array, list: readonly number[]): Lasso {
  const c = comp[list[0]!]!;
  const K = g.warps;
  const entry = list[0]!;
  const cycle: number[] = [];
  let at = entry;
  const visited: number[] = [entry];
  const takenEdges: number[] = [];
  const obligations: { warp: number; lane: number | null }[] = [];
  for (let w = 0; w < K; w++) {
    obligations.push({ warp: w, lane: null });
    if (g.readyLanes) for (let l = 0; l < 32; l++) obligations.push({ warp: w, lane: l });
  }
  const satisfied = (o: { warp: number; lane: number | null }): boolean => {
    for (const s of visited) {
      if (
        o.lane === null
          ? !((g.enabledWarps[s]! >> o.warp) & 1)
          : !((g.readyLanes![s * K + o.warp]! >>> o.lane) & 1)
      )
        return true;
    }
    for (const e of takenEdges)
      if (g.edgeWarp[e] === o.warp && (o.lane === null || (g.edgeMask[e]! >>> o.lane) & 1))
        return true;
    return false;
  };
  const walk = (goal: (s: number, e: number | null) => boolean) => {
    const path = bfsInside(g, comp, c, at, goal);
    for (const e of path) {
      cycle.push(g.edgeChoice[e]!);
      takenEdges.push(e);
      at = g.edgeTo[e]!;
      visited.push(at);
    }
  };
  for (const o of obligations) {
    if (satisfied(o)) continue;
    walk((s, e) =>
      e === null
        ? o.lane === null
          ? !((g.enabledWarps[s]! >> o.warp) & 1)
          : !((g.readyLanes![s * K + o.warp]! >>> o.lane) & 1)
        : g.edgeWarp[e] === o.warp && (o.lane === null || ((g.edgeMask[e]! >>> o.lane) & 1) === 1),
    );
  }
  // Back to the entry; at least one step, so the cycle is never empty.
  const back = bfsInside(
    g,
    comp,
    c,
    at,
    (s, e) => e === null && s === entry && cycle.length > 0,
    cycle.length === 0,
  );
  for (const e of back) cycle.push(g.edgeChoice[e]!);
  return { entry, cycle };
}

/**
 * Shortest edge path inside component c from `from` to a state (e = null) or an edge (e set)
 * accepted by `goal`. With `mustMove`, the start state itself does not count.
 */
function bfsInside(
  g: Graph,
  comp: Int32Array,
  c: number,
  from: number,
  goal: (s: number, e: number | null) => boolean,
  mustMove = false,
): number[] {
  if (!mustMove && goal(from, null)) return [];
  const via = new Map<number, number>(); // state -> edge that reached it
  const queue = [from];
  const seen = new Set<number>([from]);
  const pathTo = (s: number, last: number | null): number[] => {
    const out: number[] = last === null ? [] : [last];
    for (let cur = s; cur !== from;) {
      const e = via.get(cur)!;
      out.push(e);
      cur = sourceOf(g, e);
    }
    return out.reverse();
  };
  for (let qi = 0; qi < queue.length; qi++) {
    const s = queue[qi]!;
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      if (t < 0 || t >= g.expanded || comp[t] !== c) continue;
      if (goal(s, e)) return pathTo(s, e);
      if (t === from && mustMove && goal(t, null)) return pathTo(s, e);
      if (seen.has(t)) continue;
      seen.add(t);
      via.set(t, e);
      if (goal(t, null)) return pathTo(t, null);
      queue.push(t);
    }
  }
  throw new Error('bfsInside: goal not reachable inside a strongly connected component');
}

/** The source state of edge e (binary search over edgeStart). */
function sourceOf(g: Graph, e: number): number {
  let lo = 0;
  let hi = g.expanded - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (g.edgeStart[mid]! <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Iterative Tarjan over expanded states; returns a component id per state. */
function sccs(g: Graph): Int32Array {
  const n = g.expanded;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const comp = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const callState: number[] = [];
  const callEdge: number[] = [];
  let counter = 0;
  let comps = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    callState.push(root);
    callEdge.push(g.edgeStart[root]!);
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (callState.length > 0) {
      const v = callState[callState.length - 1]!;
      const e = callEdge[callEdge.length - 1]!;
      if (e < g.edgeStart[v + 1]!) {
        callEdge[callEdge.length - 1] = e + 1;
        const w = g.edgeTo[e]!;
        if (w < 0 || w >= n) continue;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          callState.push(w);
          callEdge.push(g.edgeStart[w]!);
        } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      callState.pop();
      callEdge.pop();
      if (callState.length > 0) {
        const u = callState[callState.length - 1]!;
        low[u] = Math.min(low[u]!, low[v]!);
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = comps;
        } while (w !== v);
        comps++;
      }
    }
  }
  return comp;
}
