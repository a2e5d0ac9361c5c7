/**
 * Loops of one function's CFG: natural loops from back edges, and irreducible cycles.
 *
 * - A back edge is an edge `u → h` whose target dominates its source; the natural loop of `h` is
 *   `h` plus every block that reaches a latch without passing through `h` (Aho, Sethi, Ullman).
 *   Loops sharing a header are merged, so two natural loops are either disjoint or nested.
 * - A cycle that no block dominates has no back edge. It is found by the loop-nesting
 *   decomposition of Havlak / Ramalingam: take the strongly connected components of the
 *   reachable blocks; a cyclic component with one entry is a loop, so remove its entry and
 *   decompose the rest; one with several entries is irreducible: report it, remove all its
 *   entries and decompose the rest. Every round removes a node, so this terminates, and it also
 *   finds irreducible cycles nested inside reducible loops.
 */
import type { DominatorTree, LocalGraph } from './dominators.ts';
import {
  VIRTUAL_EXIT,
  type CfgEdge,
  type IrreducibleCycle,
  type NaturalLoop,
} from './programCfg.ts';
import { stronglyConnectedComponents } from './scc.ts';

/** One function's local graph, as `buildCfg` prepares it. */
export interface LoopInput {
  /** Nodes `0..blockIds.length-1` are the blocks; then the virtual exit and the virtual entry. */
  readonly graph: LocalGraph;
  /** Local node → block id. */
  readonly blockIds: readonly number[];
  readonly exitNode: number;
  readonly entryNode: number;
  /** Dominators from the virtual entry. */
  readonly dom: DominatorTree;
  readonly reachable: (v: number) => boolean;
}

/** The loops of one function. */
export interface FunctionLoops {
  readonly loops: readonly NaturalLoop[];
  readonly irreducibleCycles: readonly IrreducibleCycle[];
}

const ascending = (xs: Iterable<number>): number[] => [...xs].sort((a, b) => a - b);

/** Natural loops and irreducible cycles of one function. */
export function findLoops(input: LoopInput): FunctionLoops {
  return { loops: naturalLoops(input), irreducibleCycles: irreducibleCycles(input) };
}

function edgesLeaving(input: LoopInput, body: ReadonlySet<number>): CfgEdge[] {
  const id = (v: number): number => (v === input.exitNode ? VIRTUAL_EXIT : input.blockIds[v]!);
  const exits: CfgEdge[] = [];
  for (const x of ascending(body))
    for (const s of input.graph.succs[x]!) if (!body.has(s)) exits.push({ from: id(x), to: id(s) });
  return exits;
}

function naturalLoops(input: LoopInput): NaturalLoop[] {
  const { graph, blockIds, dom, reachable } = input;
  const k = blockIds.length;
  const latchesOf = new Map<number, number[]>();
  for (let u = 0; u < k; u++) {
    if (!reachable(u)) continue;
    for (const h of graph.succs[u]!) {
      if (h < k && dom.dominates(h, u)) {
        const ls = latchesOf.get(h) ?? [];
        ls.push(u);
        latchesOf.set(h, ls);
      }
    }
  }
  const headers = ascending(latchesOf.keys());
  const bodies = headers.map((h) => {
    const body = new Set<number>([h]);
    const work = [...latchesOf.get(h)!];
    while (work.length > 0) {
      const x = work.pop()!;
      if (body.has(x)) continue;
      body.add(x);
      // Unreachable predecessors never run: they are not part of the loop.
      for (const p of graph.preds[x]!) if (p < k && reachable(p) && !body.has(p)) work.push(p);
    }
    return body;
  });
  // Innermost enclosing loop: natural loops with distinct headers are disjoint or nested, and a
  // nested body is strictly smaller. Visit bodies from largest to smallest, each node remembering
  // the last (so smallest) loop that holds it; a header's entry before its own loop is the parent.
  const parents: (number | null)[] = headers.map(() => null);
  const innermost = new Int32Array(graph.size).fill(-1);
  const bySize = headers.map((_, i) => i).sort((a, b) => bodies[b]!.size - bodies[a]!.size);
  for (const i of bySize) {
    const outer = innermost[headers[i]!]!;
    parents[i] = outer === -1 ? null : outer;
    for (const v of bodies[i]!) innermost[v] = i;
  }
  return headers.map((h, i) => ({
    irreducible: false as const,
    header: blockIds[h]!,
    latches: ascending(latchesOf.get(h)!.map((u) => blockIds[u]!)),
    body: ascending([...bodies[i]!].map((v) => blockIds[v]!)),
    exits: edgesLeaving(input, bodies[i]!),
    parent: parents[i]!,
  }));
}

function irreducibleCycles(input: LoopInput): IrreducibleCycle[] {
  const { graph, blockIds, reachable, entryNode } = input;
  const k = blockIds.length;
  const found: IrreducibleCycle[] = [];
  const region = new Int32Array(graph.size).fill(-1); // region stamp of each node
  const component = new Int32Array(graph.size).fill(-1); // component stamp of each node
  let stamp = 0;
  const start: number[] = [];
  for (let v = 0; v < k; v++) if (reachable(v)) start.push(v);
  const work: number[][] = [start];
  while (work.length > 0) {
    const nodes = work.pop()!;
    const r = stamp++;
    for (const v of nodes) region[v] = r;
    const sccs = stronglyConnectedComponents(graph, nodes, (v) => region[v] === r);
    for (const scc of sccs.reverse()) {
      const first = scc[0]!;
      const cyclic = scc.length > 1 || graph.succs[first]!.includes(first);
      if (!cyclic) continue;
      const c = stamp++;
      for (const v of scc) component[v] = c;
      // An entry has a reachable predecessor outside the component; a root has the virtual entry.
      const entries = scc.filter((v) =>
        graph.preds[v]!.some((p) => component[p] !== c && (p === entryNode || reachable(p))),
      );
      if (entries.length > 1) {
        const body = new Set(scc);
        found.push({
          irreducible: true,
          entries: ascending(entries.map((v) => blockIds[v]!)),
          body: ascending(scc.map((v) => blockIds[v]!)),
          exits: edgesLeaving(input, body),
        });
      }
      const rest = scc.filter((v) => !entries.includes(v));
      if (rest.length > 0) work.push(rest);
    }
  }
  return found;
}
