import { popcount } from '../lanes/values.ts';
import type { Mechanism, MechanismContext, MechanismFactory } from './mechanism.ts';
import {
  PATH_LIST_OPTIONS,
  createPathList,
  pathListOptions,
  pathsAfter,
  path,
  type Path,
  type PathListOptions,
  type PathListState,
} from './pathList.ts';

/**
 * `sorted` — traversal by priority order, the path list kept sorted (seed 001 §2.4, Simty §3.2;
 * SEMANTICS §3.5). The head of the order runs (`active`); `list` holds the rest, in order.
 *
 * Orders (option `order`):
 * - `depth-minpc` (default, Simty): "priority to the maximal function call depth, then to the
 *   minimum PC in case of a tie" (§2.4);
 * - the DWF policies of §2.4: `minpc` (PC only, then the deeper call), `majority` (most lanes
 *   first), `minority` (fewest lanes first); ties fall back to `depth-minpc` (a decision).
 *
 * After every step the new paths are inserted in order and paths with equal (PC, call depth) merge
 * (Simty's CCS "merges paths that have the same PC and call depth"). Under the two PC orders equal
 * paths are neighbours, so "convergence may be detected solely by comparing the active path with
 * the head of the list"; under the lane-count orders they need not be, and they merge wherever they
 * are (a decision: DWF forms warps from all threads at one PC). Invariant: no two entries share
 * (call depth, PC), and `active, ...list` is strictly increasing in the order.
 */
export type SortOrder = 'depth-minpc' | 'minpc' | 'majority' | 'minority';

export function orderOf(order: SortOrder): (a: Path, b: Path) => number {
  const simty = (a: Path, b: Path) => b.depth - a.depth || a.pc - b.pc;
  switch (order) {
    case 'depth-minpc':
      return simty;
    case 'minpc':
      return (a, b) => a.pc - b.pc || b.depth - a.depth;
    case 'majority':
      return (a, b) => popcount(b.mask) - popcount(a.mask) || simty(a, b);
    case 'minority':
      return (a, b) => popcount(a.mask) - popcount(b.mask) || simty(a, b);
  }
}

export function createSorted(
  ctx: MechanismContext,
  opts: PathListOptions & { readonly order: SortOrder },
): Mechanism<PathListState> {
  const cmp = orderOf(opts.order);
  return createPathList(ctx, opts, {
    id: 'sorted',
    title: `Sorted path list (${opts.order}, head first)`,
    nativeStackOps: new Set(),
    step(s, _issue, outcome) {
      const all: Path[] = [];
      const add = (p: Path) => {
        for (let i = 0; i < all.length; i++) {
          const q = all[i]!;
          if (q.pc === p.pc && q.depth === p.depth) {
            all[i] = path(q.pc, (q.mask | p.mask) >>> 0, q.depth);
            return;
          }
        }
        all.push(p);
      };
      if (s.active) for (const p of pathsAfter(s.active, outcome)) add(p);
      for (const e of s.list) if (e.kind === 'path') add(e);
      all.sort(cmp);
      const head = all.shift() ?? null;
      return { kind: 'ok', state: { active: head, list: all } };
    },
  });
}

export const sortedFactory: MechanismFactory = {
  id: 'sorted',
  summary:
    'sorted path list (Simty): deepest call first, then smallest PC; the head runs, equal paths merge; DWF orders as options',
  source: 'seed 001 §2.4, §3.2; SEMANTICS §3.5',
  options: [
    {
      name: 'order',
      values: ['depth-minpc', 'minpc', 'majority', 'minority'],
      default: 'depth-minpc',
      doc: 'the list order: Simty (deepest call, then smallest PC), or a DWF policy of seed 001 §2.4 (smallest PC, most lanes, fewest lanes)',
    },
    ...PATH_LIST_OPTIONS,
  ],
  create: (ctx, o) =>
    createSorted(ctx, {
      ...pathListOptions(o),
      order: (o['order'] ?? 'depth-minpc') as SortOrder,
    }) as Mechanism<unknown>,
};
