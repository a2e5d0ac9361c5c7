/**
 * Immediate dominators on a small dense graph, by the iterative algorithm of Cooper, Harvey and
 * Kennedy ("A Simple, Fast Dominance Algorithm", 2001). Post-dominators are the same computation
 * on the reverse graph from the virtual exit: pass `preds` as `succs` and the other way round.
 *
 * No recursion: the depth-first search keeps its own stack, so 10k-block listings are safe.
 */

/** A graph on nodes `0..size-1` given by adjacency lists. */
export interface LocalGraph {
  readonly size: number;
  readonly succs: readonly (readonly number[])[];
  readonly preds: readonly (readonly number[])[];
}

/** The same graph with every edge turned round. */
export const reversed = (g: LocalGraph): LocalGraph => ({
  size: g.size,
  succs: g.preds,
  preds: g.succs,
});

/** Nodes reachable from `root`, in reverse postorder of an iterative depth-first search. */
export function reversePostorder(g: LocalGraph, root: number): number[] {
  const seen = new Uint8Array(g.size);
  const post: number[] = [];
  const stackNode: number[] = [root];
  const stackEdge: number[] = [0];
  seen[root] = 1;
  while (stackNode.length > 0) {
    const top = stackNode.length - 1;
    const v = stackNode[top]!;
    const out = g.succs[v]!;
    const i = stackEdge[top]!;
    if (i < out.length) {
      stackEdge[top] = i + 1;
      const w = out[i]!;
      if (!seen[w]) {
        seen[w] = 1;
        stackNode.push(w);
        stackEdge.push(0);
      }
    } else {
      post.push(v);
      stackNode.pop();
      stackEdge.pop();
    }
  }
  return post.reverse();
}

/**
 * `idom[v]` for every node: the immediate dominator of `v` from `root`; `idom[root] === root`;
 * -1 for a node that `root` does not reach. Invariant (CHK): a node's idom precedes it in reverse
 * postorder, so `intersect` walks up the tree by comparing postorder numbers.
 */
export function immediateDominators(g: LocalGraph, root: number): Int32Array {
  const order = reversePostorder(g, root);
  // rank = position in reverse postorder; a dominator always has a smaller rank.
  const rank = new Int32Array(g.size).fill(-1);
  order.forEach((v, i) => (rank[v] = i));
  const idom = new Int32Array(g.size).fill(-1);
  idom[root] = root;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (rank[a]! > rank[b]!) a = idom[a]!;
      while (rank[b]! > rank[a]!) b = idom[b]!;
    }
    return a;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = 1; i < order.length; i++) {
      const v = order[i]!;
      let next = -1;
      for (const p of g.preds[v]!) {
        if (idom[p] === -1) continue; // unreached, or not processed yet in this sweep
        next = next === -1 ? p : intersect(p, next);
      }
      if (next !== idom[v]) {
        idom[v] = next;
        changed = true;
      }
    }
  }
  return idom;
}

/**
 * Constant-time dominance queries on a tree given by `idom` (as `immediateDominators` returns):
 * preorder/postorder intervals of an iterative walk of the tree.
 */
export interface DominatorTree {
  /** `a` dominates `b` (reflexive). False when either node is unreached. */
  readonly dominates: (a: number, b: number) => boolean;
}

/** Builds `DominatorTree` queries over `idom` rooted at `root`. */
export function dominatorTree(idom: Int32Array, root: number): DominatorTree {
  const size = idom.length;
  const children: number[][] = Array.from({ length: size }, () => []);
  for (let v = 0; v < size; v++) if (v !== root && idom[v]! >= 0) children[idom[v]!]!.push(v);
  const pre = new Int32Array(size).fill(-1);
  const last = new Int32Array(size).fill(-1); // largest preorder number in v's subtree
  let counter = 0;
  const stack: number[] = [root];
  const order: number[] = [];
  while (stack.length > 0) {
    const v = stack.pop()!;
    pre[v] = counter++;
    order.push(v);
    for (const c of children[v]!) stack.push(c);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const v = order[i]!;
    let m = pre[v]!;
    for (const c of children[v]!) m = Math.max(m, last[c]!);
    last[v] = m;
  }
  return {
    dominates: (a, b) => pre[a]! >= 0 && pre[b]! >= 0 && pre[a]! <= pre[b]! && pre[b]! <= last[a]!,
  };
}
