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
 * eventually (strong fairness of the choice: taken infinitely often, every outcome is taken
 * infinitely often), so no fair cycle takes such a branch one way inside an SCC while another way
 * leaves it. Those edges are removed and what remains of the SCC is split into SCCs again, each
 * checked the same way (the decomposition of Emerson and Lei for fairness constraints, "Modalities
 * for model checking", 1987): a cycle that never takes the branch — one that runs beside it, or
 * through its state while another group issues — is still found.
 */
import { TrackScratch, trackedFair, trackedLasso } from './trackedFairness.ts';

export interface Graph {
  /** States 0..expanded-1 have their edges recorded; the rest have none. */
  readonly expanded: number;
  readonly warps: number;
  /** Edges of state i are edgeStart[i] .. edgeStart[i+1]-1. */
  readonly edgeStart: Int32Array;
  /** Target state, or -1 for a step that ended the run. */
  readonly edgeTo: Int32Array;
  /**
   * What edge e issues: an index into the `step*` arrays, which describe each distinct step of a
   * warp once (many edges share one). Edge e is choice `e - edgeStart[i]` of its state i.
   */
  readonly edgeStep: Int32Array;
  readonly stepWarp: Uint8Array;
  readonly stepMask: Uint32Array;
  /** Alternatives of one issue (unknown outcomes) share a group among their warp's steps. */
  readonly stepGroup: Uint16Array;
  readonly stepUnknown: Uint8Array;
  /** Bit w: warp w has something to issue in state i. */
  readonly enabledWarps: Uint8Array;
  /** readyLanes[i*warps + w]: lanes of warp w that may issue in state i (lane fairness), or null. */
  readonly readyLanes: Uint32Array | null;
  /**
   * Fairness per place instead of per lane (`Mechanism.fairPlaces`: the PC for `its`, the split's
   * (PC, call depth) for `dws`; used under lane symmetry, where lane numbers do not persist along
   * edges): the places at which warp w has ready lanes in state i are
   * `places[start[l] .. start[l+1]-1]` with l = `stateLocal[i*warps + w]`; `stepPlace` is the
   * place a step issues. An entity is then a (warp, place) pair. Null for lane or warp fairness.
   */
  readonly readyPlaces: {
    readonly stateLocal: Int32Array;
    readonly start: Int32Array;
    readonly places: Int32Array;
    readonly stepPlace: Int32Array;
  } | null;
  /**
   * Warp symmetry (`warpSymmetry.ts`): per edge, the permutation σ (packed, `permAt`) from the
   * successor as computed to its stored canonical form. When set, warp fairness is decided on the
   * product with a tracked warp (`trackedFairness.ts`); null or absent: warps keep their indices.
   */
  readonly edgePerm?: Int32Array | null;
}

export interface Lasso {
  /** The state where the cycle starts (reached by the shortest prefix). */
  readonly entry: number;
  /** Choice indices of the cycle, from `entry` back to `entry`. */
  readonly cycle: readonly number[];
}

/**
 * Finds fair SCCs; returns how many, and a lasso into the one reached first (smallest id).
 * Typed arrays throughout (no per-state objects, no `Map` of components): graphs of tens of
 * millions of states are the explorer's normal case.
 */
export function findFairCycles(
  g: Graph,
  /** `performance.now()` past which the splitting of components (below) stops: `incomplete`. */
  deadline = Number.POSITIVE_INFINITY,
): {
  count: number;
  lasso: Lasso | null;
  /** Each expanded state's strongly connected component. */
  comp: Int32Array;
  /**
   * Components still to split when `deadline` passed: a fair cycle may have been missed, so no
   * `terminates` may rest on this result.
   */
  incomplete: boolean;
} {
  const scratch = new FairScratch(g.warps);
  const track = new TrackScratch();
  let count = 0;
  /** The first-reached fair component so far: its smallest state (an id of `g`), and where. */
  let best = -1;
  let bestIn: { graph: Graph; ids: Int32Array | null; comp: Int32Array; entry: number } | null =
    null;
  /** Components split by the unknown-choice rule, still to judge (`split`). */
  const work: Split[] = [];
  let pos: Int32Array | null = null;
  /** Judges one component `c` of `graph` (ids of `g`: `ids`, or the identity). */
  const judge = (
    graph: Graph,
    ids: Int32Array | null,
    comp: Int32Array,
    members: Int32Array,
    from: number,
    to: number,
    c: number,
  ): void => {
    if (!hasInternalEdge(graph, comp, members, from, to, c)) return;
    if (leavesOnUnknownAny(graph, comp, members, from, to, c)) {
      pos ??= new Int32Array(g.expanded);
      work.push(split(graph, ids, comp, members.slice(from, to), c, pos));
      return;
    }
    // Each (sub)graph numbers its states in the order of `g`'s, so the smallest is the first.
    let min = members[from]!;
    for (let i = from + 1; i < to; i++) if (members[i]! < min) min = members[i]!;
    if (!isFair(graph, comp, members, from, to, c, scratch, track)) return;
    count++;
    const first = ids ? ids[min]! : min;
    if (best !== -1 && first >= best) return;
    best = first;
    bestIn = { graph, ids, comp, entry: min };
  };
  // Each component is checked as Tarjan pops it, straight from the stack (no sorting by
  // component); almost all are single states without a self-loop.
  const comp = sccs(g, (comp, members, from, to, c) => judge(g, null, comp, members, from, to, c));
  // Emerson–Lei: a split component is a graph of its own, split into components again; a loop
  // over a worklist, not recursion (a chain of unknown choices can split n times).
  let incomplete = false;
  while (work.length > 0) {
    if (performance.now() > deadline) {
      incomplete = true;
      break;
    }
    const { graph, ids } = work.pop()!;
    sccs(graph, (comp, members, from, to, c) => judge(graph, ids, comp, members, from, to, c));
  }
  if (best === -1) return { count, lasso: null, comp, incomplete };
  const at = bestIn!;
  const local = at.graph.edgePerm
    ? trackedLasso(at.graph, at.comp, at.entry)
    : lassoOf(at.graph, at.comp, at.entry);
  return {
    count,
    lasso: at.ids ? { entry: at.ids[local.entry]!, cycle: local.cycle } : local,
    comp,
    incomplete,
  };
}

/** A component split by the unknown-choice rule: its graph, and its states' ids in the search's. */
interface Split {
  readonly graph: Graph;
  readonly ids: Int32Array;
}

/** Some state of the component takes an unknown branch one way inside and another way out. */
function leavesOnUnknownAny(
  g: Graph,
  comp: Int32Array,
  members: Int32Array,
  from: number,
  to: number,
  c: number,
): boolean {
  for (let i = from; i < to; i++) {
    const s = members[i]!;
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++)
      if (g.stepUnknown[g.edgeStep[e]!]) {
        if (leavesOnUnknown(g, comp, s, c)) return true;
        break;
      }
  }
  return false;
}

/**
 * Component `c` of `g` (states `members`, ids in the search's graph through `ids`) as a graph of
 * its own, without the unknown outcomes it cannot take forever: its states renumbered in
 * ascending order (so the first reached stays first), every edge kept in its place (so choice
 * indices stay), an edge's target dropped (-1, out) when it leaves the component or is an
 * outcome of an unknown issue with another outcome out of it (SEMANTICS §5: taken forever, that
 * outcome would be taken too). At least one edge inside is dropped — the component holds such an
 * issue (`leavesOnUnknownAny`) — so splitting ends. `pos` is scratch of `g.expanded` entries or
 * more (the search's graph is the largest).
 */
function split(
  g: Graph,
  ids: Int32Array | null,
  comp: Int32Array,
  members: Int32Array,
  c: number,
  pos: Int32Array,
): Split {
  members.sort();
  const m = members.length;
  const K = g.warps;
  for (let i = 0; i < m; i++) pos[members[i]!] = i;
  let edges = 0;
  for (let i = 0; i < m; i++) {
    const s = members[i]!;
    edges += g.edgeStart[s + 1]! - g.edgeStart[s]!;
  }
  const edgeStart = new Int32Array(m + 1);
  const edgeTo = new Int32Array(edges);
  const edgeStep = new Int32Array(edges);
  const edgePerm = g.edgePerm ? new Int32Array(edges) : null;
  const enabledWarps = new Uint8Array(m);
  const readyLanes = g.readyLanes ? new Uint32Array(m * K) : null;
  const stateLocal = g.readyPlaces ? new Int32Array(m * K) : null;
  /** The issues (warp · 2^16 + group) of the state being copied with an unknown outcome out. */
  const leaving: number[] = [];
  const inside = (t: number) => t >= 0 && t < g.expanded && comp[t] === c;
  let k = 0;
  for (let i = 0; i < m; i++) {
    const s = members[i]!;
    edgeStart[i] = k;
    enabledWarps[i] = g.enabledWarps[s]!;
    for (let w = 0; w < K; w++) {
      if (readyLanes) readyLanes[i * K + w] = g.readyLanes![s * K + w]!;
      if (stateLocal) stateLocal[i * K + w] = g.readyPlaces!.stateLocal[s * K + w]!;
    }
    leaving.length = 0;
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const st = g.edgeStep[e]!;
      if (g.stepUnknown[st] && !inside(g.edgeTo[e]!))
        leaving.push(g.stepWarp[st]! * 0x10000 + g.stepGroup[st]!);
    }
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++, k++) {
      const st = g.edgeStep[e]!;
      const t = g.edgeTo[e]!;
      const dropped =
        !inside(t) ||
        (leaving.length > 0 &&
          g.stepUnknown[st] === 1 &&
          leaving.includes(g.stepWarp[st]! * 0x10000 + g.stepGroup[st]!));
      edgeTo[k] = dropped ? -1 : pos[t]!;
      edgeStep[k] = st;
      if (edgePerm) edgePerm[k] = g.edgePerm![e]!;
    }
  }
  edgeStart[m] = k;
  const graph: Graph = {
    expanded: m,
    warps: K,
    edgeStart,
    edgeTo,
    edgeStep,
    stepWarp: g.stepWarp,
    stepMask: g.stepMask,
    stepGroup: g.stepGroup,
    stepUnknown: g.stepUnknown,
    enabledWarps,
    readyLanes,
    readyPlaces: g.readyPlaces && { ...g.readyPlaces, stateLocal: stateLocal! },
    edgePerm,
  };
  return { graph, ids: ids ? members.map((x) => ids[x]!) : members };
}

function hasInternalEdge(
  g: Graph,
  comp: Int32Array,
  order: Int32Array,
  from: number,
  to: number,
  c: number,
): boolean {
  for (let i = from; i < to; i++) {
    const s = order[i]!;
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      if (t >= 0 && t < g.expanded && comp[t] === c) return true;
    }
  }
  return false;
}

/** Reused buffers of `isFair`. */
class FairScratch {
  readonly alwaysReady: Uint32Array;
  readonly takenLanes: Uint32Array;
  constructor(warps: number) {
    this.alwaysReady = new Uint32Array(warps);
    this.takenLanes = new Uint32Array(warps);
  }
}

function isFair(
  g: Graph,
  comp: Int32Array,
  order: Int32Array,
  from: number,
  to: number,
  c: number,
  scratch: FairScratch,
  track: TrackScratch,
): boolean {
  const K = g.warps;
  let alwaysEnabled = 0xff;
  const alwaysReady = scratch.alwaysReady.fill(0xffffffff);
  let takenWarps = 0;
  const takenLanes = scratch.takenLanes.fill(0);
  for (let i = from; i < to; i++) {
    const s = order[i]!;
    alwaysEnabled &= g.enabledWarps[s]!;
    if (g.readyLanes) for (let w = 0; w < K; w++) alwaysReady[w]! &= g.readyLanes[s * K + w]!;
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      const st = g.edgeStep[e]!;
      if (t >= 0 && t < g.expanded && comp[t] === c) {
        takenWarps |= 1 << g.stepWarp[st]!;
        takenLanes[g.stepWarp[st]!]! |= g.stepMask[st]!;
      }
    }
  }
  // Under warp symmetry the indices move along edges: fairness per tracked warp.
  if (g.edgePerm) return trackedFair(g, comp, order, from, to, c, track);
  for (let w = 0; w < K; w++) {
    if ((alwaysEnabled >> w) & 1 && !((takenWarps >> w) & 1)) return false;
    if (g.readyLanes && (alwaysReady[w]! & ~takenLanes[w]!) >>> 0 !== 0) return false;
  }
  return g.readyPlaces ? placeFair(g, comp, order, from, to, c) : true;
}

/** Entity (warp w, place p) as one number (at most 8 warps). */
const entity = (w: number, place: number): number => place * 8 + w;

/** The (warp, place) entities ready in state s. */
function readyEntities(g: Graph, s: number, visit: (e: number) => void): void {
  const r = g.readyPlaces!;
  for (let w = 0; w < g.warps; w++) {
    const l = r.stateLocal[s * g.warps + w]!;
    for (let i = r.start[l]!; i < r.start[l + 1]!; i++) visit(entity(w, r.places[i]!));
  }
}

/** Edge e issues entity x (per-place fairness). */
const takesEntity = (g: Graph, e: number, x: number): boolean => {
  const st = g.edgeStep[e]!;
  return entity(g.stepWarp[st]!, g.readyPlaces!.stepPlace[st]!) === x;
};

/**
 * Fairness per (warp, place) over one SCC: no entity is ready in every state and issued on no
 * edge inside. An issue at a place takes every ready lane there, so a lane ready throughout and
 * never issued keeps a place that never issues; and a ready lane keeps its place until it issues,
 * so an entity ready throughout without an issue keeps its lanes ready and unissued. This is
 * lane fairness (`Mechanism.fairPlaces`, docs/semantics.md §13 "Fairness under symmetry").
 */
function placeFair(
  g: Graph,
  comp: Int32Array,
  order: Int32Array,
  from: number,
  to: number,
  c: number,
): boolean {
  const readyIn = new Map<number, number>();
  const taken = new Set<number>();
  for (let i = from; i < to; i++) {
    const s = order[i]!;
    readyEntities(g, s, (x) => readyIn.set(x, (readyIn.get(x) ?? 0) + 1));
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      if (t >= 0 && t < g.expanded && comp[t] === c) {
        const st = g.edgeStep[e]!;
        taken.add(entity(g.stepWarp[st]!, g.readyPlaces!.stepPlace[st]!));
      }
    }
  }
  const size = to - from;
  for (const [x, n] of readyIn) if (n === size && !taken.has(x)) return false;
  return true;
}

/**
 * An unknown branch of state `s` taken inside component c that could also leave it: a fair
 * resolution leaves (SEMANTICS §5).
 */
function leavesOnUnknown(g: Graph, comp: Int32Array, s: number, c: number): boolean {
  const groupsIn = new Set<number>();
  const groupsOut = new Set<number>();
  for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
    const st = g.edgeStep[e]!;
    if (!g.stepUnknown[st]) continue;
    const t = g.edgeTo[e]!;
    const inside = t >= 0 && t < g.expanded && comp[t] === c;
    // An issue is identified by its warp and its group among that warp's steps.
    (inside ? groupsIn : groupsOut).add(g.stepWarp[st]! * 0x10000 + g.stepGroup[st]!);
  }
  for (const grp of groupsIn) if (groupsOut.has(grp)) return true;
  return false;
}

/**
 * A lasso through a fair SCC: from its first-reached state, walk (inside the SCC) to satisfy each
 * fairness obligation in turn — take the entity, or pass a state where it is disabled — then walk
 * back to the start.
 */
function lassoOf(g: Graph, comp: Int32Array, entry: number): Lasso {
  const c = comp[entry]!;
  const K = g.warps;
  const cycle: number[] = [];
  let at = entry;
  const visited: number[] = [entry];
  const takenEdges: number[] = [];
  /** A fairness obligation: met by passing a state where it is off, or taking an edge for it. */
  interface Obligation {
    off(s: number): boolean;
    takenBy(e: number): boolean;
  }
  const obligations: Obligation[] = [];
  for (let w = 0; w < K; w++) {
    obligations.push({
      off: (s) => !((g.enabledWarps[s]! >> w) & 1),
      takenBy: (e) => takes(g, e, w, null),
    });
    if (g.readyLanes)
      for (let l = 0; l < 32; l++)
        obligations.push({
          off: (s) => !((g.readyLanes![s * K + w]! >>> l) & 1),
          takenBy: (e) => takes(g, e, w, l),
        });
  }
  if (g.readyPlaces)
    readyEntities(g, entry, (x) =>
      obligations.push({
        off: (s) => {
          let ready = false;
          readyEntities(g, s, (y) => (ready ||= y === x));
          return !ready;
        },
        takenBy: (e) => takesEntity(g, e, x),
      }),
    );
  const satisfied = (o: Obligation): boolean => {
    for (const s of visited) if (o.off(s)) return true;
    for (const e of takenEdges) if (o.takenBy(e)) return true;
    return false;
  };
  const scratch = new BfsScratch(g.expanded);
  const walk = (goal: (s: number, e: number | null) => boolean, mustMove = false) => {
    const path = bfsInside(g, comp, c, at, goal, scratch, mustMove);
    for (const e of path) {
      cycle.push(choiceOf(g, e));
      takenEdges.push(e);
      at = g.edgeTo[e]!;
      visited.push(at);
    }
  };
  for (const o of obligations) {
    if (satisfied(o)) continue;
    walk((s, e) => (e === null ? o.off(s) : o.takenBy(e)));
  }
  // Back to the entry; at least one step, so the cycle is never empty. Then, while the cycle
  // takes an unknown outcome without one of its siblings, a detour takes that sibling and comes
  // back (SEMANTICS §5: a run that repeats the cycle takes every outcome of its unknown
  // branches). Every sibling lies inside: a component with an outcome out of it was split
  // (`split`) and that outcomes dropped.
  const back = () => walk((s, e) => e === null && s === entry, cycle.length === 0);
  back();
  for (let sib = missingSibling(g, takenEdges); sib >= 0; sib = missingSibling(g, takenEdges)) {
    walk((_, e) => e === sib);
    back();
  }
  return { entry, cycle };
}

/** An unknown outcome not in `taken` whose sibling (same state, warp and group) is; else -1. */
function missingSibling(g: Graph, taken: readonly number[]): number {
  const set = new Set(taken);
  for (const e of taken) {
    const st = g.edgeStep[e]!;
    if (!g.stepUnknown[st]) continue;
    const s = sourceOf(g, e);
    for (let x = g.edgeStart[s]!; x < g.edgeStart[s + 1]!; x++) {
      const sx = g.edgeStep[x]!;
      if (
        x !== e &&
        !set.has(x) &&
        g.stepUnknown[sx] &&
        g.stepWarp[sx] === g.stepWarp[st] &&
        g.stepGroup[sx] === g.stepGroup[st] &&
        g.edgeTo[x]! >= 0
      )
        return x;
    }
  }
  return -1;
}

/** Reused arrays of `bfsInside` (sized by the graph, allocated once per lasso). */
class BfsScratch {
  readonly via: Int32Array;
  readonly seen: Int32Array;
  readonly queue: Int32Array;
  stamp = 0;
  constructor(n: number) {
    this.via = new Int32Array(n);
    this.seen = new Int32Array(n);
    this.queue = new Int32Array(n);
  }
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
  scratch: BfsScratch,
  mustMove = false,
): number[] {
  if (!mustMove && goal(from, null)) return [];
  const { via, seen, queue } = scratch;
  const stamp = ++scratch.stamp;
  const pathTo = (s: number, last: number | null): number[] => {
    const out: number[] = last === null ? [] : [last];
    for (let cur = s; cur !== from;) {
      const e = via[cur]!;
      out.push(e);
      cur = sourceOf(g, e);
    }
    return out.reverse();
  };
  let qn = 0;
  queue[qn++] = from;
  seen[from] = stamp;
  for (let qi = 0; qi < qn; qi++) {
    const s = queue[qi]!;
    for (let e = g.edgeStart[s]!; e < g.edgeStart[s + 1]!; e++) {
      const t = g.edgeTo[e]!;
      if (t < 0 || t >= g.expanded || comp[t] !== c) continue;
      if (goal(s, e)) return pathTo(s, e);
      if (t === from && mustMove && goal(t, null)) return pathTo(s, e);
      if (seen[t] === stamp) continue;
      seen[t] = stamp;
      via[t] = e;
      if (goal(t, null)) return pathTo(t, null);
      queue[qn++] = t;
    }
  }
  throw new Error('bfsInside: goal not reachable inside a strongly connected component');
}

/** Edge e issues warp `warp` (and, unless `lane` is null, lane `lane` of it). */
function takes(g: Graph, e: number, warp: number, lane: number | null): boolean {
  const st = g.edgeStep[e]!;
  return g.stepWarp[st] === warp && (lane === null || ((g.stepMask[st]! >>> lane) & 1) === 1);
}

/** The choice index of edge e in its state's successor list. */
const choiceOf = (g: Graph, e: number): number => e - g.edgeStart[sourceOf(g, e)]!;

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

/**
 * Iterative Tarjan over expanded states: a component id per state. `onComponent` sees each
 * component as it is completed — its states are `members[from .. to-1]`, with `comp` already set
 * for them (and for every component completed before).
 */
function sccs(
  g: Graph,
  onComponent: (comp: Int32Array, members: Int32Array, from: number, to: number, c: number) => void,
): Int32Array {
  const n = g.expanded;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const comp = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  let sp = 0;
  const callState = new Int32Array(n);
  const callEdge = new Int32Array(n);
  let cp = 0;
  let counter = 0;
  let comps = 0;
  const edgeStart = g.edgeStart;
  const edgeTo = g.edgeTo;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    callState[cp] = root;
    callEdge[cp++] = edgeStart[root]!;
    index[root] = low[root] = counter++;
    stack[sp++] = root;
    onStack[root] = 1;
    while (cp > 0) {
      const v = callState[cp - 1]!;
      const e = callEdge[cp - 1]!;
      if (e < edgeStart[v + 1]!) {
        callEdge[cp - 1] = e + 1;
        const w = edgeTo[e]!;
        if (w < 0 || w >= n) continue;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack[sp++] = w;
          onStack[w] = 1;
          callState[cp] = w;
          callEdge[cp++] = edgeStart[w]!;
        } else if (onStack[w] && index[w]! < low[v]!) low[v] = index[w]!;
        continue;
      }
      cp--;
      if (cp > 0) {
        const u = callState[cp - 1]!;
        if (low[v]! < low[u]!) low[u] = low[v]!;
      }
      if (low[v] === index[v]) {
        const top = sp;
        let w: number;
        do {
          w = stack[--sp]!;
          onStack[w] = 0;
          comp[w] = comps;
        } while (w !== v);
        onComponent(comp, stack, sp, top, comps);
        comps++;
      }
    }
  }
  return comp;
}
