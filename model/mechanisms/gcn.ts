import { popcount } from '../lanes/values.ts';
import type { Advance, Mechanism, MechanismContext, MechanismFactory } from './mechanism.ts';
import {
  PATH_LIST_OPTIONS,
  createPathList,
  path,
  pathListOptions,
  pathsAfter,
  type Entry,
  type Path,
  type PathListOptions,
  type PathListState,
} from './pathList.ts';

/**
 * `gcn` — AMD GCN's fork/join stack, depth-first with stack-depth minimisation (seed 001 §2.2,
 * Fig. 1c; SEMANTICS §3.5). `list[0]` is the top of the stack; region markers sit in it.
 *
 * - `FORK` opens a single-entry single-exit region: push a marker holding the active mask.
 * - Inside a region, a divergent branch "(a) the path taken by the majority of threads is pushed
 *   onto the stack, and (b) execution continues on the path taken by the minority". More than two
 *   paths: the smallest runs, the others are pushed largest first. Ties (the paper is silent): the
 *   lower PC runs first by default, matching the min-PC preference of §2.1; option `tie=higher-pc`.
 *   The tie decides the spinlock: its last two spinners split 1/1, and lower-PC-first keeps the
 *   waiting loop running (livelock) while higher-PC-first lets the lock holder go (terminates).
 * - `JOIN`: its lanes (now after the JOIN) join the innermost region's marker and "the top of the
 *   stack is popped and execution is transferred to the corresponding path. Once the stack is empty,
 *   execution continues at the instruction following Join with the initial mask": popping the
 *   marker resumes its lanes (minus exited ones) after the JOIN.
 * - No merging: "the control flow subgraph is traversed as a tree: no partial convergence is
 *   possible until reaching the Join instruction" — block D of Fig. 1c runs twice.
 * - Minority first halves the active lanes at every push, so a region holds at most ⌈log2 W⌉ saved
 *   paths (§2.2; two-way branches — a BRX to three or more targets can exceed it).
 *
 * Decisions (docs/semantics.md "Path lists"): FORK/JOIN ignore guards; a JOIN outside every region
 * is a no-op; a region whose lanes reach two different JOINs ends `unsupported`; a divergent branch
 * outside every region either treats the kernel as one implicit region ending at EXIT (option
 * `outside=region`, the default) or ends `unsupported` (`outside=unsupported`).
 */
export type Outside = 'region' | 'unsupported';
export type Tie = 'lower-pc' | 'higher-pc';

const FORK_JOIN: ReadonlySet<string> = new Set(['FORK', 'JOIN']);

/** Pops until a path runs: a saved path, or a marker whose joined lanes resume after its JOIN. */
function resume(list: Entry[], exited: number): Path | null {
  for (;;) {
    const e = list.shift();
    if (!e) return null;
    if (e.kind === 'path') return e;
    const lanes = (e.joined & ~exited) >>> 0;
    if (lanes !== 0 && e.resume >= 0) return path(e.resume, lanes, e.depth);
  }
}

export function createGcn(
  ctx: MechanismContext,
  opts: PathListOptions & { readonly outside: Outside; readonly tie: Tie },
): Mechanism<PathListState> {
  const stop = (verdict: 'unsupported', message: string): Advance<PathListState> => ({
    kind: 'stop',
    verdict,
    message,
  });
  return createPathList(ctx, opts, {
    id: 'gcn',
    title: 'Fork/join stack (top first)',
    nativeStackOps: FORK_JOIN,
    step(s, issue, outcome, exited) {
      const a = s.active;
      if (!a) return { kind: 'ok', state: s };
      const op = ctx.ops[issue.pc]!;
      const fresh = pathsAfter(a, outcome);
      const list = s.list.slice();
      if (op.kind === 'stack-op' && op.opcode === 'FORK' && fresh.length === 1) {
        const p = fresh[0]!;
        list.unshift({ kind: 'region', mask: p.mask, depth: p.depth, joined: 0, resume: -1 });
        return { kind: 'ok', state: { active: p, list } };
      }
      if (op.kind === 'stack-op' && op.opcode === 'JOIN' && fresh.length === 1) {
        const at = list.findIndex((e) => e.kind === 'region');
        // A JOIN outside every region: a no-op (decision).
        if (at < 0) return { kind: 'ok', state: { active: fresh[0]!, list } };
        const m = list[at]!;
        if (m.kind !== 'region') throw new Error('unreachable');
        const p = fresh[0]!;
        if (m.resume >= 0 && m.resume !== p.pc)
          return stop(
            'unsupported',
            `JOIN at pc ${issue.pc} closes a region whose other lanes joined before pc ${m.resume}: gcn regions need one JOIN`,
          );
        list[at] = { ...m, joined: (m.joined | p.mask) >>> 0, resume: p.pc };
        return { kind: 'ok', state: { active: resume(list, exited), list } };
      }
      if (fresh.length === 0) return { kind: 'ok', state: { active: resume(list, exited), list } };
      if (fresh.length === 1) return { kind: 'ok', state: { active: fresh[0]!, list } };
      if (opts.outside === 'unsupported' && !list.some((e) => e.kind === 'region'))
        return stop(
          'unsupported',
          `divergent branch at pc ${issue.pc} outside every FORK/JOIN region (compile for gcn, or outside=region)`,
        );
      // Minority first (§2.2): ascending lane count, ties by PC as the `tie` option says.
      const sign = opts.tie === 'lower-pc' ? 1 : -1;
      const order = fresh.sort(
        (x, y) => popcount(x.mask) - popcount(y.mask) || sign * (x.pc - y.pc) || y.depth - x.depth,
      );
      list.unshift(...order.slice(1));
      return { kind: 'ok', state: { active: order[0]!, list } };
    },
  });
}

/** Saved paths between each region marker and the next one up (the implicit region first). */
export function regionDepths(s: PathListState): number[] {
  const out = [0];
  for (let i = s.list.length - 1; i >= 0; i--) {
    if (s.list[i]!.kind === 'region') out.push(0);
    else out[out.length - 1]!++;
  }
  return out;
}

export const gcnFactory: MechanismFactory = {
  id: 'gcn',
  summary:
    'AMD GCN fork/join stack: FORK opens a region, divergence pushes the majority and runs the minority, JOIN pops; no merging inside a region',
  source: 'seed 001 §2.2, Fig. 1c; SEMANTICS §3.5',
  options: [
    {
      name: 'outside',
      values: ['region', 'unsupported'],
      default: 'region',
      doc: 'a divergent branch outside every FORK/JOIN region: the kernel is one implicit region ending at EXIT, or verdict unsupported',
    },
    {
      name: 'tie',
      values: ['lower-pc', 'higher-pc'],
      default: 'lower-pc',
      doc: 'which path runs first when a divergent branch splits the lanes evenly (seed 001 §2.2 is silent)',
    },
    ...PATH_LIST_OPTIONS,
  ],
  create: (ctx, o) =>
    createGcn(ctx, {
      ...pathListOptions(o),
      outside: (o['outside'] ?? 'region') as Outside,
      tie: (o['tie'] ?? 'lower-pc') as Tie,
    }) as Mechanism<unknown>,
};
