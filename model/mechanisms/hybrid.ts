import type { Mechanism, MechanismContext, MechanismFactory, OptionSpec } from './mechanism.ts';
import { blockLeaders, bfsStep, NEW_PATHS_OPTION, type BfsNewPaths } from './bfs.ts';
import { dfsStep } from './dfsMinPc.ts';
import { breadthFirstPcs, type HybridLoops } from './hybridRegions.ts';
import {
  PATH_LIST_OPTIONS,
  createPathList,
  pathListOptions,
  type PathListOptions,
  type PathListState,
} from './pathList.ts';

/**
 * `hybrid` — the DFS/BFS hybrid traversal (seed 001 §2.3: "a patent application, which might
 * describe the implementation of the NVIDIA Volta architecture, proposes a hybrid traversal order
 * [8]. It traverses structured control-flow paths depth-first, then unstructured paths
 * breadth-first"; SEMANTICS §3.5 for the path list it shares with `dfs-minpc` and `bfs`).
 *
 * One list of paths, `list[0]` its front. Which rule a step follows depends on the block of the
 * issued instruction (`hybridRegions.ts`; docs/semantics.md "hybrid"):
 * - in a depth-first block, `dfs-minpc`'s rule (§2.1): the front is the top of a stack — the
 *   other paths of a divergence are pushed, the smallest PC runs, a uniform jump past the top
 *   swaps, equal (PC, depth) merges;
 * - in a breadth-first block, `bfs`'s rule (§2.3): the active path runs to the end of its block,
 *   then its paths join the *back* of the list (merging with an equal path anywhere) and the front
 *   runs.
 * So a structured region is run as a stack nested inside the queue, and a path that leaves
 * unstructured code waits its turn behind every other path: fairness across paths where a loop
 * may wait for another path (the spinlock terminates, as on `bfs`), the convergence order of
 * `dfs-minpc` on if/else nests.
 */
export function createHybrid(
  ctx: MechanismContext,
  opts: PathListOptions,
  loops: HybridLoops,
  newPaths: BfsNewPaths,
): Mechanism<PathListState> {
  const leader = blockLeaders(ctx);
  const breadthFirst = breadthFirstPcs(ctx.program, loops);
  return createPathList(ctx, opts, {
    id: 'hybrid',
    title: 'Path list (front first: stack top in structured code, queue head in unstructured)',
    nativeStackOps: new Set(),
    step: (s, issue, outcome) => ({
      kind: 'ok',
      state:
        breadthFirst[issue.pc] === 1
          ? bfsStep(s, issue, outcome, leader, newPaths)
          : dfsStep(s, issue, outcome),
    }),
  });
}

const LOOPS_OPTION: OptionSpec = {
  name: 'loops',
  values: ['breadth-first', 'depth-first'],
  default: 'breadth-first',
  doc: "whether a divergent branch of a single-exit natural loop counts as structured (depth-first) or not (breadth-first, the default: a loop may wait on another path, seed 001 §2.3); the paper does not say (docs/semantics.md, 'hybrid')",
};

export const hybridFactory: MechanismFactory = {
  id: 'hybrid',
  summary:
    'DFS/BFS hybrid (the Volta patent of seed 001 §2.3): structured if/else regions depth-first as dfs-minpc, loops, side entries and irreducible code breadth-first as bfs',
  source: 'seed 001 §2.3; docs/semantics.md "hybrid"',
  options: [...PATH_LIST_OPTIONS, LOOPS_OPTION, NEW_PATHS_OPTION],
  create: (ctx, o) =>
    createHybrid(
      ctx,
      pathListOptions(o),
      (o['loops'] ?? 'breadth-first') as HybridLoops,
      (o['new-paths'] ?? 'ascending-pc') as BfsNewPaths,
    ) as Mechanism<unknown>,
};
