import type { Machine, MachineState, Transition } from '../machine/machine.ts';
import { chainChoice, forcedRule } from './acceleration.ts';
import type { GroupPriority } from './groupPriority.ts';

/**
 * Schedules from the real initial state (DESIGN.md "Every random run is reproducible"): the
 * search stores one representative per class of equivalent states (dead values, lane symmetry),
 * and the choices it records index the *representative's* successors. A reached state may be
 * another member of the class — with lane symmetry, the same state with its lanes renumbered,
 * whose successors come in another order. So a finding's path of state ids is walked again from
 * the initial state, at each step taking a successor in the next class (`inClass`), the
 * representative's choice first.
 */
export interface ClassPath {
  /** State ids from the initial state (ids[0]) to the last state of the path. */
  readonly ids: readonly number[];
  /** The representative's choices along `ids` (one fewer than ids). */
  readonly hint: readonly number[];
  /**
   * Under warp symmetry, for a lasso's cycle (`trackedFairness.ts`): per step, the index of the
   * warp that issues it in the representative, and σ, the permutation to the next
   * representative. With a `track`, the walk issues exactly that warp, so each concrete warp
   * follows the tracked path the fair-cycle pass chose (another warp's step into the same class
   * could starve a warp the turn was fair to).
   */
  readonly warps?: readonly number[];
  readonly perms?: readonly number[];
  /**
   * Per step, the steps of an accelerated chain that follow it (`acceleration.ts`): each is the
   * one step of the same warp, replayed as such; absent or 0 for a plain edge.
   */
  readonly extra?: readonly number[];
  /**
   * The search's group rules (`SearchRecord.chains.groups`): a chain step at a state with several
   * steps is the one step a rule picked there (a forced chain, `Chains.followForced`).
   */
  readonly forced?: GroupPriority | null;
  /**
   * Per step, for an edge that stands for a summary's interior (a macro edge, `frozenLanes.ts`):
   * the walk from the concrete state to one in the class of the step's target; null otherwise.
   */
  readonly macro?: readonly (MacroWalk | null)[];
}

/** A macro edge's walk from `s` to a state in the class of stored state `target`. */
export type MacroWalk = (
  s: MachineState,
  target: number,
  inClass: InClass,
) => { schedule: number[]; state: MachineState } | null;

/** `s` is in the class of stored state `id`. */
export type InClass = (s: MachineState, id: number) => boolean;

/** Walks `path` from `from`; null when some step has no successor in the next class. */
export function walkClasses(
  machine: Machine,
  from: MachineState,
  path: ClassPath,
  inClass: InClass,
  /** Warp symmetry: track[j] = the concrete warp at the representative's index j (updated). */
  track: Int32Array | null = null,
): { schedule: number[]; state: MachineState } | null {
  const schedule: number[] = [];
  let s = from;
  const tracked = track && path.warps && path.perms ? track : null;
  for (let i = 0; i + 1 < path.ids.length; i++) {
    const target = path.ids[i + 1]!;
    const macro = path.macro?.[i] ?? null;
    if (macro) {
      const m = macro(s, target, inClass);
      if (m === null) return null;
      for (const x of m.schedule) schedule.push(x);
      s = m.state;
      continue;
    }
    const succ = machine.successors(s);
    const w = tracked ? tracked[path.warps![i]!]! : -1;
    const extra = path.extra?.[i] ?? 0;
    if (extra > 0) {
      // A compressed edge: its first step, then its warp's one step `extra` times — the
      // representative's choice first, then any other (of the tracked warp, under warp symmetry).
      const hint = path.hint[i]!;
      let end: MachineState | null = null;
      for (let j = -1; j < succ.length && end === null; j++) {
        const c = j < 0 ? hint : j;
        if (j === hint) continue;
        const t = succ[c];
        if (!t?.next || (w >= 0 && t.warp !== w)) continue;
        const tail: number[] = [];
        const reached = followReplay(machine, t.next, t.warp, extra, tail, path.forced ?? null);
        if (!reached || !inClass(reached, target)) continue;
        schedule.push(c);
        for (const x of tail) schedule.push(x);
        end = reached;
      }
      if (end === null) return null;
      s = end;
      if (tracked) retrack(tracked, path.perms![i]!);
      continue;
    }
    const c = pick(
      succ,
      path.hint[i]!,
      (t) => (w < 0 || t.warp === w) && t.next !== null && inClass(t.next, target),
    );
    if (c < 0) return null;
    schedule.push(c);
    s = succ[c]!.next!;
    if (tracked) retrack(tracked, path.perms![i]!);
  }
  return { schedule, state: s };
}

/** The warp at index j of this representative is at σ(j) in the next one (3 bits per index). */
function retrack(tracked: Int32Array, sigma: number): void {
  const before = Int32Array.from(tracked);
  for (let j = 0; j < before.length; j++) tracked[(sigma >>> (3 * j)) & 7] = before[j]!;
}

/**
 * Takes warp `k`'s chain step `n` times from `s`, pushing the choices; null if there is none: the
 * warp's one step (`chainChoice`), or else the one step a group rule of the search picks there
 * (`forced`: a group that runs alone or one that starts to wait at a BSYNC, a forced chain of
 * `Chains.followForced`).
 */
export function followReplay(
  machine: Machine,
  s: MachineState,
  k: number,
  n: number,
  schedule: number[],
  forced: GroupPriority | null,
): MachineState | null {
  let cur = s;
  for (let i = 0; i < n; i++) {
    const succ = machine.successors(cur);
    let c = chainChoice(succ, k);
    if (c < 0 && forced) c = forcedChoice(machine, forced, cur, succ, k);
    if (c < 0 || !succ[c]!.next) return null;
    schedule.push(c);
    cur = succ[c]!.next!;
  }
  return cur;
}

/** The index among `succ` (the successors of `s`) of warp `k`'s one step a group rule picks, or -1. */
function forcedChoice(
  machine: Machine,
  forced: GroupPriority,
  s: MachineState,
  succ: readonly Transition[],
  k: number,
): number {
  const ws = s.warps[k]!;
  const p = forced.pick(ws, machine.warpSteps(k, ws, s.memory), s.memory);
  if (!forcedRule(p)) return -1;
  // Successors list each warp's steps in order (`Machine.successors`).
  const first = succ.findIndex((t) => t.warp === k);
  return first < 0 ? -1 : first + p.from;
}

/** The step from `s` that ends the run as `verdict`/`property` do, the hint first; -1 if none. */
export function stopChoice(
  machine: Machine,
  s: MachineState,
  hint: number,
  verdict: string,
  property: string | null,
): { choice: number; transition: Transition } | null {
  const succ = machine.successors(s);
  const c = pick(
    succ,
    hint,
    (t) => t.stop !== null && t.stop.verdict === verdict && (t.stop.property ?? null) === property,
  );
  return c < 0 ? null : { choice: c, transition: succ[c]! };
}

/**
 * A lasso whose cycle returns to the same state — equal in every value that can still reach
 * control (`Machine.behaviourKey`): the cycle's classes are walked turn after turn from the
 * prefix's end until a turn starts where an earlier one did (a renumbering of lanes returns to
 * the identity after finitely many turns).
 * Returns the prefix (whole turns added) and the cycle (one or more turns), or null when that
 * does not show within `maxTurns`.
 */
export function exactLasso(
  machine: Machine,
  prefixEnd: MachineState,
  cycle: ClassPath,
  inClass: InClass,
  maxTurns = 64,
  /** Warp symmetry: which concrete warp is at each index of the cycle's first representative. */
  match: ((s: MachineState) => Int32Array | null) | null = null,
): { prefix: number[]; cycle: number[] } | null {
  const seen = new Map<string, number>();
  const turns: number[][] = [];
  let s = prefixEnd;
  const track = match && cycle.warps ? match(prefixEnd) : null;
  if (match && cycle.warps && !track) return null;
  for (let t = 0; t <= maxTurns; t++) {
    const k = machine.behaviourKey(s);
    const first = seen.get(k);
    if (first !== undefined)
      return { prefix: turns.slice(0, first).flat(), cycle: turns.slice(first).flat() };
    seen.set(k, t);
    const turn = walkClasses(machine, s, cycle, inClass, track);
    if (!turn) return null;
    turns.push(turn.schedule);
    s = turn.state;
  }
  return null;
}

function pick(succ: readonly Transition[], hint: number, ok: (t: Transition) => boolean): number {
  if (hint >= 0 && hint < succ.length && ok(succ[hint]!)) return hint;
  for (let c = 0; c < succ.length; c++) if (c !== hint && ok(succ[c]!)) return c;
  return -1;
}
