import { foreignOption, PRE_VOLTA_OPTIONS, warpsyncStop } from './preVolta.ts';
import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { Outcome } from '../lanes/execute.ts';
import type { KeySink } from '../machine/key.ts';
import type {
  Advance,
  Formatter,
  Issue,
  Mechanism,
  MechanismContext,
  OptionSpec,
  Policy,
  StateView,
} from './mechanism.ts';

/**
 * The path-list model shared by `dfs-minpc`, `bfs`, `sorted` and `gcn` (seed 001 §2, SEMANTICS
 * §3.5): "a complete disjoint list of paths", a path being a PC, the lanes that have it, and (as
 * Simty sorts by it, seed 001 §2.4) their call depth. One path is *active*: it is the only one that
 * issues; the others are saved in `list`, whose order is the mechanism's (stack top first, queue
 * head first, sorted head first).
 *
 * Invariants after every step (checked by `partitionProblem`, tested in pathList.test.ts): no path
 * is empty; no exited lane is anywhere; every live lane is in exactly one of the active path, a
 * saved path, or the `joined` set of a GCN region marker (complete and disjoint, seed 001 §2);
 * `active` is null only when no live lane is left.
 */
export interface Path {
  readonly kind: 'path';
  readonly pc: number;
  readonly mask: number;
  /** Call depth of these lanes (CALL +1, RET −1). */
  readonly depth: number;
}

/**
 * A GCN region marker (seed 001 §2.2), pushed by FORK: `mask` is the active mask at the FORK (the
 * mask restored after the JOIN), `joined` the lanes that already executed the region's JOIN and
 * wait to resume at `resume` (the instruction after that JOIN; -1 while none has).
 */
export interface RegionMarker {
  readonly kind: 'region';
  readonly mask: number;
  readonly depth: number;
  readonly joined: number;
  readonly resume: number;
}

export type Entry = Path | RegionMarker;

export interface PathListState {
  readonly active: Path | null;
  readonly list: readonly Entry[];
}

export const path = (pc: number, mask: number, depth: number): Path => ({
  kind: 'path',
  pc,
  mask,
  depth,
});

export type ForeignPolicy = 'nop' | 'reject';
export type WarpsyncPolicy = 'check' | 'nop' | 'reject';

/** Options every path list accepts (the same foreign-instruction policies as `simt-stack`). */
export const PATH_LIST_OPTIONS: readonly OptionSpec[] = [
  foreignOption(
    'BSSY/BSYNC/BREAK/BMOV/YIELD (and FORK/JOIN on the lists other than gcn), which a path list has no meaning for',
  ),
  PRE_VOLTA_OPTIONS[1]!,
];

export interface PathListOptions {
  readonly foreign: ForeignPolicy;
  readonly warpsync: WarpsyncPolicy;
}

export const pathListOptions = (o: Readonly<Record<string, string>>): PathListOptions => ({
  foreign: (o['foreign'] ?? 'nop') as ForeignPolicy,
  warpsync: (o['warpsync'] ?? 'check') as WarpsyncPolicy,
});

/**
 * The paths the active path's lanes form after one instruction: one per (next PC, call depth),
 * ascending PC. CALL moves its lanes one level deeper, RET one level up (SEMANTICS §2).
 */
export function pathsAfter(active: Path, outcome: Outcome): Path[] {
  const ev = outcome.event;
  const delta = ev.kind === 'call' ? 1 : ev.kind === 'ret' ? -1 : 0;
  const moving = delta === 0 ? 0 : (ev as { mask: number }).mask;
  const out: Path[] = [];
  const groups = outcome.groups;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    const stay = (g.mask & ~moving) >>> 0;
    const moved = (g.mask & moving) >>> 0;
    if (stay !== 0) out.push(path(g.pc, stay, active.depth));
    if (moved !== 0) out.push(path(g.pc, moved, active.depth + delta));
  }
  return out;
}

/** `list` without `lanes`; paths and markers left empty are dropped. Returns `list` when unchanged. */
export function withoutLanes(list: readonly Entry[], lanes: number): readonly Entry[] {
  if (lanes === 0) return list;
  let touched = false;
  for (let i = 0; i < list.length && !touched; i++) touched = (list[i]!.mask & lanes) !== 0;
  if (!touched) return list;
  const out: Entry[] = [];
  for (const e of list) {
    const mask = (e.mask & ~lanes) >>> 0;
    if (mask === 0) continue;
    out.push(
      e.kind === 'path' ? { ...e, mask } : { ...e, mask, joined: (e.joined & ~lanes) >>> 0 },
    );
  }
  return out;
}

export const samePlace = (a: Path, b: Path): boolean => a.pc === b.pc && a.depth === b.depth;

export const mergePaths = (a: Path, b: Path): Path => path(a.pc, (a.mask | b.mask) >>> 0, a.depth);

/**
 * Every lane-holding part of a state: the active path, saved paths, and the lanes that joined a
 * region marker. The partition invariant is over these.
 */
export function laneSets(s: PathListState): number[] {
  const out: number[] = [];
  if (s.active) out.push(s.active.mask);
  for (const e of s.list) out.push(e.kind === 'path' ? e.mask : e.joined);
  return out;
}

/**
 * Why `s` is not a complete and disjoint partition of the `live` lanes (seed 001 §2: "each thread
 * of the warp belongs to one and only one path"), or null. Also: no empty path; `active` is null
 * only when no lane is live.
 */
export function partitionProblem(s: PathListState, live: number): string | null {
  let seen = 0;
  for (const m of laneSets(s)) {
    if ((seen & m) !== 0) return `lanes 0x${(seen & m).toString(16)} are in two paths`;
    seen = (seen | m) >>> 0;
  }
  for (const e of s.list) if (e.kind === 'path' && e.mask === 0) return 'an empty path';
  if (s.active && s.active.mask === 0) return 'an empty active path';
  if (seen !== live >>> 0)
    return `paths hold 0x${seen.toString(16)} but the live lanes are 0x${(live >>> 0).toString(16)}`;
  if (!s.active && live !== 0) return 'no active path while lanes are live';
  return null;
}

/**
 * What a path list does with one issued instruction, given the list already rid of exited lanes:
 * the mechanism-specific part. `exited` is every lane that has exited so far.
 */
export type PathListStep = (
  s: PathListState,
  issue: Issue,
  outcome: Outcome,
  exited: number,
) => Advance<PathListState>;

export interface PathListSpec {
  readonly id: string;
  /** Title of the view's table, e.g. 'Path stack (top first)'. */
  readonly title: string;
  /** Stack-op opcodes the mechanism gives meaning to (GCN: FORK, JOIN). */
  readonly nativeStackOps: ReadonlySet<string>;
  readonly step: PathListStep;
}

const GCN_OPS: ReadonlySet<string> = new Set(['FORK', 'JOIN']);

/**
 * The foreign-instruction policy of a path list (SEMANTICS §2): as `simt-stack`'s; FORK/JOIN follow
 * `foreign` except where `nativeStackOps` gives them meaning; Fermi token-stack instructions are
 * rejected. Shared with `dws`, whose warp-splits are paths too.
 */
export function pathListPolicy(
  op: Op,
  opts: PathListOptions,
  nativeStackOps: ReadonlySet<string> = new Set(),
): Policy {
  if (op.kind === 'warpsync') return opts.warpsync;
  if (BARRIER_KINDS.has(op.kind) || op.kind === 'yield') return opts.foreign;
  if (op.kind === 'stack-op') {
    if (nativeStackOps.has(op.opcode)) return 'native';
    return GCN_OPS.has(op.opcode) ? opts.foreign : 'reject';
  }
  return 'native';
}

/**
 * A path-list mechanism from its step rule: the policy (SEMANTICS §2: foreign instructions as for
 * `simt-stack`; FORK/JOIN follow `foreign` except where native; Fermi token-stack instructions are
 * rejected), the WARPSYNC check, keys, views and `lanePcs` are shared.
 */
export function createPathList(
  ctx: MechanismContext,
  opts: PathListOptions,
  spec: PathListSpec,
): Mechanism<PathListState> {
  return {
    id: spec.id,
    laneFairness: false,
    // Orders and ties use PCs and lane counts only (issue 16: lane symmetry).
    laneSymmetric: true,
    policy: (op) => pathListPolicy(op, opts, spec.nativeStackOps),
    init: () => ({ active: path(ctx.entry, ctx.full, 0), list: [] }),
    candidates(s) {
      return s.active ? [{ pc: s.active.pc, mask: s.active.mask }] : [];
    },
    advance(s, issue, outcome, exited) {
      const ev = outcome.event;
      if (ev.kind === 'warpsync' && opts.warpsync === 'check') {
        // SEMANTICS §2 `check`: a path list cannot wait, so every named live lane must be active.
        const bad = warpsyncStop(ev, issue, exited, ctx.full, spec.id);
        if (bad) return bad;
      }
      const list = withoutLanes(s.list, (outcome.exited | exited) >>> 0);
      return spec.step(list === s.list ? s : { active: s.active, list }, issue, outcome, exited);
    },
    ready: (s) => (s.active ? s.active.mask : 0),
    key(s, out: KeySink) {
      const a = s.active;
      if (a) {
        out.push(a.pc);
        out.mask(a.mask);
        out.push(a.depth);
      } else out.push(-3);
      const list = s.list;
      out.push(list.length);
      for (let i = 0; i < list.length; i++) {
        const e = list[i]!;
        if (e.kind === 'path') {
          out.push(e.pc);
          out.mask(e.mask);
          out.push(e.depth);
        } else {
          out.push(-2);
          out.mask(e.mask);
          out.push(e.depth);
          out.mask(e.joined);
          out.push(e.resume);
        }
      }
    },
    lanePcs(s, visit) {
      // The active path and every saved path resume at their PC; lanes that joined a GCN region
      // resume after its JOIN.
      if (s.active) visit(s.active.pc, s.active.mask);
      for (const e of s.list)
        if (e.kind === 'path') visit(e.pc, e.mask);
        else if (e.joined !== 0 && e.resume >= 0) visit(e.resume, e.joined);
    },
    view: (s, fmt) => pathListView(s, fmt, spec.title),
  };
}

/**
 * The list in the layout of seed 001 Fig. 1: the active path, then the saved entries "denoted with
 * parentheses", region markers (GCN's synchronization points) "with brackets".
 */
export function pathListView(s: PathListState, fmt: Formatter, title: string): StateView {
  const rows: string[][] = [];
  if (s.active)
    rows.push(['active', fmt.pc(s.active.pc), fmt.mask(s.active.mask), `${s.active.depth}`]);
  for (const e of s.list)
    rows.push(
      e.kind === 'path'
        ? ['(saved)', fmt.pc(e.pc), fmt.mask(e.mask), `${e.depth}`]
        : [
            `[region joined ${fmt.mask(e.joined)}]`,
            e.resume >= 0 ? fmt.pc(e.resume) : '-',
            fmt.mask(e.mask),
            `${e.depth}`,
          ],
    );
  const pathData = (p: Path) => ({ pc: fmt.pc(p.pc), mask: fmt.mask(p.mask), depth: p.depth });
  return {
    tables: [{ title, columns: ['', 'PC', 'Mask', 'Depth'], rows }],
    data: {
      active: s.active ? pathData(s.active) : null,
      list: s.list.map((e) =>
        e.kind === 'path'
          ? pathData(e)
          : {
              region: fmt.mask(e.mask),
              joined: fmt.mask(e.joined),
              resume: e.resume >= 0 ? fmt.pc(e.resume) : null,
            },
      ),
    },
  };
}
