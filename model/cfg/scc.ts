/**
 * Strongly connected components by Tarjan's algorithm (1972), iterative: the recursion of the
 * textbook version is replaced by an explicit stack of (node, next edge) frames, so the depth is
 * bounded by the heap, not by V8's call stack, on 10k-instruction listings.
 */
import type { LocalGraph } from './dominators.ts';

/**
 * The strongly connected components of the subgraph induced by `nodes` (edges to nodes outside
 * `inside` are ignored), in reverse topological order of the condensation (Tarjan's output order:
 * a component comes before every component that reaches it). Each component lists its nodes in
 * the order they were popped.
 */
export function stronglyConnectedComponents(
  g: LocalGraph,
  nodes: readonly number[],
  inside: (v: number) => boolean,
): number[][] {
  const index = new Int32Array(g.size).fill(-1);
  const low = new Int32Array(g.size);
  const onStack = new Uint8Array(g.size);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  const frameNode: number[] = [];
  const frameEdge: number[] = [];

  const open = (v: number): void => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = 1;
    frameNode.push(v);
    frameEdge.push(0);
  };

  for (const start of nodes) {
    if (index[start] !== -1) continue;
    open(start);
    while (frameNode.length > 0) {
      const top = frameNode.length - 1;
      const v = frameNode[top]!;
      const out = g.succs[v]!;
      const i = frameEdge[top]!;
      if (i < out.length) {
        frameEdge[top] = i + 1;
        const w = out[i]!;
        if (!inside(w)) continue;
        if (index[w] === -1) open(w);
        else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      frameNode.pop();
      frameEdge.pop();
      if (low[v] === index[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        components.push(component);
      }
      if (frameNode.length > 0) {
        const parent = frameNode[frameNode.length - 1]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
    }
  }
  return components;
}
