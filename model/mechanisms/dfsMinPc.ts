import type { Outcome } from '../lanes/execute.ts';
import type { Issue, Mechanism, MechanismContext, MechanismFactory } from './mechanism.ts';
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
 * `dfs-minpc` — depth-first traversal with the path list kept as a stack, smallest PC first (seed
 * 001 §2.1, Fig. 1b; SEMANTICS §3.5). `list[0]` is the top of the stack.
 *
 * - Divergence: the new paths other than the one with the smallest PC are pushed, highest PC first,
 *   and the smallest runs: "for a divergent forward branch, the path of the branch target is pushed
 *   onto the stack, and execution continues on the next instruction. For a divergent backward
 *   branch, the path of the next instruction is pushed onto the stack, and execution continues at
 *   the branch target."
 * - A push onto a top with the same (PC, call depth) merges with it ("convergence consists in
 *   merging ... two paths of the list, when they have the same PC"): in Fig. 1b the D paths of
 *   thread 1 and threads 2–3 are one entry by the time C jumps to E, so D runs once.
 * - "When the PC is equal to the top of the stack PC, the latter is popped and merged with the
 *   active path." "If the target is greater, the top of the stack is swapped with the active path":
 *   only after a uniform forward jump (a branch, CALL or RET whose lanes all go to one PC above
 *   the issued one). Nothing else reorders the stack — SEMANTICS §3.5 (settled, issue 14): the
 *   literal stack of §2.1. After a merge the merged path keeps running even when the entry now
 *   below it has a smaller PC (`../shared/cases/semantics/dfs-minpc-swap-after-merge.sass`: a
 *   fall-through can pass the top's PC once a merge has put a smaller PC on top); so on
 *   unstructured code this is not min-PC, and that difference from `sorted` is a finding.
 *
 * Invariant after every step of structured, intra-function code: the active PC is at most the
 * top's PC (it can be broken by a merge, as above).
 */
export function dfsPush(list: Entry[], p: Path): void {
  const top = list[0];
  if (top && top.kind === 'path' && samePlace(top, p)) list[0] = mergePaths(top, p);
  else list.unshift(p);
}

/**
 * The active path after a step (the next one on the stack when every lane of it left): merged
 * with the top while they are at the same place (§2.1), then — only when `jumpedForward`, a
 * uniform forward jump — swapped with the top if its PC is greater (and merged again with what
 * comes up). No other reordering: the literal stack (SEMANTICS §3.5).
 */
function settle(active: Path | null, list: Entry[], jumpedForward: boolean): PathListState {
  let a = active;
  if (!a) {
    const next = list.shift();
    a = next && next.kind === 'path' ? next : null;
  }
  let swap = jumpedForward;
  while (a) {
    const top = list[0];
    if (!top || top.kind !== 'path') break;
    if (samePlace(top, a)) {
      a = mergePaths(a, top);
      list.shift();
    } else if (swap && a.pc > top.pc) {
      list[0] = a;
      a = top;
      swap = false;
    } else break;
  }
  return { active: a, list };
}

/** One step of the depth-first min-PC stack (§2.1): also the depth-first half of `hybrid`. */
export function dfsStep(s: PathListState, issue: Issue, outcome: Outcome): PathListState {
  const fresh = s.active ? pathsAfter(s.active, outcome) : [];
  const list = s.list.slice();
  // Ascending PC: fresh[0] runs, the others are pushed highest PC first — a divergent forward
  // branch pushes its target and runs the fall-through, a backward one the reverse (§2.1).
  for (let i = fresh.length - 1; i >= 1; i--) dfsPush(list, fresh[i]!);
  const jumpedForward = fresh.length === 1 && fresh[0]!.pc > issue.pc + 1;
  return settle(fresh[0] ?? null, list, jumpedForward);
}

export function createDfsMinPc(
  ctx: MechanismContext,
  opts: PathListOptions,
): Mechanism<PathListState> {
  return createPathList(ctx, opts, {
    id: 'dfs-minpc',
    title: 'Path stack (top first)',
    nativeStackOps: new Set(),
    step: (s, issue, outcome) => ({ kind: 'ok', state: dfsStep(s, issue, outcome) }),
  });
}

export const dfsMinPcFactory: MechanismFactory = {
  id: 'dfs-minpc',
  summary:
    'path list as a stack, depth-first, smallest PC first: push the other path at a divergence, swap on a jump past the top, merge on equal PC',
  source: 'seed 001 §2.1, Fig. 1b; SEMANTICS §3.5',
  options: PATH_LIST_OPTIONS,
  create: (ctx, o) => createDfsMinPc(ctx, pathListOptions(o)) as Mechanism<unknown>,
};
