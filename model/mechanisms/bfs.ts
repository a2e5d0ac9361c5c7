import { buildCfg } from '../cfg/index.ts';
import type { Mechanism, MechanismContext, MechanismFactory } from './mechanism.ts';
import {
  PATH_LIST_OPTIONS,
  createPathList,
  mergePaths,
  pathListOptions,
  pathsAfter,
  samePlace,
  type Entry,
  type Path,
  type PathListOptions,
  type PathListState,
} from './pathList.ts';

/**
 * `bfs` — breadth-first traversal with the path list kept as a queue (seed 001 §2.3, Fig. 1d;
 * SEMANTICS §3.5). `list[0]` is the head of the queue.
 *
 * - The active path runs to the end of its basic block: it keeps running while its lanes stay
 *   together and fall through to an instruction that does not start a block (`model/cfg` leaders).
 * - At the end of a block (a branch, divergent or not, a CALL/RET, an EXIT that leaves lanes, or a
 *   fall-through into a block start) its paths go to the tail, ascending PC (a decision: the paper
 *   does not say which of two new paths is queued first); a path equal in (PC, call depth) to one
 *   already queued merges into it, keeping that one's place (decision: "convergence consists in
 *   merging ... two paths of the list, when they have the same PC"). Then the head runs.
 * - Fair across paths: every queued path runs again within a bounded number of blocks, so a lock
 *   holder on one path is not starved by spinners on another — "breadth-first traversal ensures
 *   fairness across paths and avoids such deadlocks" (§2.3): the spinlock terminates.
 */
function enqueue(list: Entry[], p: Path): void {
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!;
    if (e.kind === 'path' && samePlace(e, p)) {
      list[i] = mergePaths(e, p);
      return;
    }
  }
  list.push(p);
}

export function createBfs(ctx: MechanismContext, opts: PathListOptions): Mechanism<PathListState> {
  const cfg = buildCfg(ctx.program);
  const n = ctx.program.instructions.length;
  // leader[pc] = 1 when pc starts a basic block.
  const leader = new Uint8Array(n + 1);
  for (const b of cfg.blocks) leader[b.start] = 1;
  leader[n] = 1;
  return createPathList(ctx, opts, {
    id: 'bfs',
    title: 'Path queue (head first)',
    nativeStackOps: new Set(),
    step(s, issue, outcome) {
      const fresh = s.active ? pathsAfter(s.active, outcome) : [];
      if (fresh.length === 1 && fresh[0]!.pc === issue.pc + 1 && leader[issue.pc + 1] === 0)
        return { kind: 'ok', state: { active: fresh[0]!, list: s.list } };
      const list = s.list.slice();
      for (const p of fresh) enqueue(list, p);
      const head = list.shift();
      return {
        kind: 'ok',
        state: { active: head && head.kind === 'path' ? head : null, list },
      };
    },
  });
}

export const bfsFactory: MechanismFactory = {
  id: 'bfs',
  summary:
    'path list as a queue, breadth-first: a path runs to the end of its basic block then goes to the tail; fair across paths',
  source: 'seed 001 §2.3, Fig. 1d; SEMANTICS §3.5',
  options: PATH_LIST_OPTIONS,
  create: (ctx, o) => createBfs(ctx, pathListOptions(o)) as Mechanism<unknown>,
};
