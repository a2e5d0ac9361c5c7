import { buildCfg } from '../cfg/index.ts';
import type { Outcome } from '../lanes/execute.ts';
import type {
  Issue,
  Mechanism,
  MechanismContext,
  MechanismFactory,
  OptionSpec,
} from './mechanism.ts';
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
 *   fall-through into a block start) its paths go to the tail in the order of the option
 *   `new-paths` (SEMANTICS §3.5: the paper does not say which of two new paths is queued first, so
 *   it is an option): `ascending-pc` (default, as before issue 14) or `taken-first` (the SIMT
 *   stack's default: the paths that jumped, ascending PC, then the fall-through); a path equal in (PC, call depth) to one
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

/** The order in which the paths a block ends with join the queue (SEMANTICS §3.5). */
export type BfsNewPaths = 'ascending-pc' | 'taken-first';

export const NEW_PATHS_OPTION: OptionSpec = {
  name: 'new-paths',
  values: ['ascending-pc', 'taken-first'],
  default: 'ascending-pc',
  doc: 'the order in which the paths a divergent branch creates join the tail of the queue: ascending PC, or the taken paths before the fall-through (SEMANTICS §3.5)',
};

/** `fresh` (ascending PC) with the fall-through path of the instruction at `pc` moved last. */
function takenFirst(fresh: readonly Path[], pc: number): readonly Path[] {
  const i = fresh.findIndex((p) => p.pc === pc + 1);
  return i < 0 || fresh.length < 2
    ? fresh
    : [...fresh.slice(0, i), ...fresh.slice(i + 1), fresh[i]!];
}

/** `leader[pc]` = 1 when `pc` starts a basic block (and at the end of the program). */
export function blockLeaders(ctx: MechanismContext): Uint8Array {
  const cfg = buildCfg(ctx.program);
  const n = ctx.program.instructions.length;
  const leader = new Uint8Array(n + 1);
  for (const b of cfg.blocks) leader[b.start] = 1;
  leader[n] = 1;
  return leader;
}

/**
 * One step of the breadth-first queue (§2.3): the active path keeps running inside its block; at
 * a block end its paths join the tail (merging with equal queued paths) and the head runs. Also
 * the breadth-first half of `hybrid`.
 */
export function bfsStep(
  s: PathListState,
  issue: Issue,
  outcome: Outcome,
  leader: Uint8Array,
  newPaths: BfsNewPaths,
): PathListState {
  const fresh = s.active ? pathsAfter(s.active, outcome) : [];
  if (fresh.length === 1 && fresh[0]!.pc === issue.pc + 1 && leader[issue.pc + 1] === 0)
    return { active: fresh[0]!, list: s.list };
  const list = s.list.slice();
  for (const p of newPaths === 'taken-first' ? takenFirst(fresh, issue.pc) : fresh)
    enqueue(list, p);
  const head = list.shift();
  return { active: head && head.kind === 'path' ? head : null, list };
}

export function createBfs(
  ctx: MechanismContext,
  opts: PathListOptions,
  newPaths: BfsNewPaths = 'ascending-pc',
): Mechanism<PathListState> {
  const leader = blockLeaders(ctx);
  return createPathList(ctx, opts, {
    id: 'bfs',
    title: 'Path queue (head first)',
    nativeStackOps: new Set(),
    step: (s, issue, outcome) => ({
      kind: 'ok',
      state: bfsStep(s, issue, outcome, leader, newPaths),
    }),
  });
}

export const bfsFactory: MechanismFactory = {
  id: 'bfs',
  summary:
    'path list as a queue, breadth-first: a path runs to the end of its basic block then goes to the tail; fair across paths',
  source: 'seed 001 §2.3, Fig. 1d; SEMANTICS §3.5',
  options: [...PATH_LIST_OPTIONS, NEW_PATHS_OPTION],
  create: (ctx, o) =>
    createBfs(
      ctx,
      pathListOptions(o),
      (o['new-paths'] ?? 'ascending-pc') as BfsNewPaths,
    ) as Mechanism<unknown>,
};
