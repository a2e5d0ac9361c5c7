import { PRE_VOLTA_OPTIONS, warpsyncStop } from './preVolta.ts';
import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { Group, Outcome } from '../lanes/execute.ts';
import { popcount } from '../lanes/values.ts';
import type { KeySink } from '../machine/key.ts';
import {
  VIRTUAL_EXIT,
  type Advance,
  type Formatter,
  type Issue,
  type Mechanism,
  type MechanismContext,
  type MechanismFactory,
  type Policy,
  type StateView,
} from './mechanism.ts';

/**
 * `simt-stack` — the pre-Volta IPDOM reconvergence stack (seed 000 §II Fig. 1; seed 002 §2.3
 * Fig. 9; SEMANTICS §3.2).
 *
 * An entry is (pc, rpc, mask); the top entry runs. A `frame` entry is pushed by CALL: its lanes
 * leave it at RET, and the entry below resumes at the return PC.
 *
 * Invariants, after every step: no entry is empty; no exited lane is in any entry; the top entry is
 * never a non-frame entry with pc = rpc (it would have been popped); every live lane is in the
 * top-most entry that holds it exactly once on the path from the top down to its first frame.
 */
export interface StackEntry {
  readonly pc: number;
  /** Reconvergence PC; `VIRTUAL_EXIT` for the bottom entry and for paths whose IPDOM is the exit. */
  readonly rpc: number;
  readonly mask: number;
  /** A call frame: its lanes return to the entry below. */
  readonly frame: boolean;
}

export type SimtStackState = readonly StackEntry[];

/** Which path of a divergent branch runs first (seed 000 §II: "the execution model does not specify"). */
export type PathOrder = 'taken-first' | 'not-taken-first' | 'majority-first' | 'minority-first';
export type ForeignPolicy = 'nop' | 'reject';
export type WarpsyncPolicy = 'check' | 'nop' | 'reject';

export interface SimtStackOptions {
  readonly order: PathOrder;
  readonly foreign: ForeignPolicy;
  readonly warpsync: WarpsyncPolicy;
  /**
   * The spent-entry law's planted bug (`model/explore/reductions.test.ts`); never set outside that
   * test: every non-top entry whose rpc is the PC of the entry below counts as spent — a pending
   * path too, not only one that reached its reconvergence PC.
   */
  readonly plantUnsoundSpent?: boolean;
}

/** Orders divergent groups bottom-to-top: the last group runs first. */
export function pushOrder(
  groups: readonly Group[],
  fallThrough: number,
  order: PathOrder,
): Group[] {
  return pushOrderBy(groups, fallThrough, order, (g) => popcount(g.mask));
}

/** `pushOrder` for any groups with a PC, `size` counting a group's lanes (block mechanisms' threads). */
export function pushOrderBy<G extends { readonly pc: number }>(
  groups: readonly G[],
  fallThrough: number,
  order: PathOrder,
  size: (g: G) => number,
): G[] {
  // Taken-first puts the fall-through path at the bottom; among several targets (BRX) the lowest
  // PC runs first. Majority/minority compare lane counts and break ties taken-first.
  const takenFirst = (a: G, b: G) =>
    a.pc === fallThrough ? -1 : b.pc === fallThrough ? 1 : b.pc - a.pc;
  const cmp = (a: G, b: G): number => {
    switch (order) {
      case 'taken-first':
        return takenFirst(a, b);
      case 'not-taken-first':
        return -takenFirst(a, b);
      case 'majority-first':
        return size(a) - size(b) || takenFirst(a, b);
      case 'minority-first':
        return size(b) - size(a) || takenFirst(a, b);
    }
  };
  return [...groups].sort(cmp);
}

/**
 * An entry built field by field: every entry then has one hidden class. Copies written as
 * `{ ...e, pc }` took a fifth of a `simt-stack` search at W = 32 (count_above: V8's object-spread
 * clone on the path of every accelerated step; bench/RESULTS.md, issue 16).
 */
const entry = (pc: number, rpc: number, mask: number, frame: boolean): StackEntry => ({
  pc,
  rpc,
  mask,
  frame,
});

/** `e` moved to `pc`. */
const at = (e: StackEntry, pc: number): StackEntry => entry(pc, e.rpc, e.mask, e.frame);

/** Removes `lanes` from every entry and drops entries left empty. */
const without = (s: SimtStackState, lanes: number): StackEntry[] => {
  if (lanes === 0) return s.slice();
  const out: StackEntry[] = [];
  for (const e of s) {
    const mask = (e.mask & ~lanes) >>> 0;
    if (mask === e.mask) out.push(e);
    else if (mask !== 0) out.push(entry(e.pc, e.rpc, mask, e.frame));
  }
  return out;
};

/** Pops entries that reached their reconvergence PC (seed 002 §2.3: "if the two PCs are equal we pop"). */
function settle(s: StackEntry[]): StackEntry[] {
  while (s.length > 0) {
    const top = s[s.length - 1]!;
    if (!top.frame && top.pc === top.rpc) s.pop();
    else break;
  }
  return s;
}

/**
 * A *spent* entry: a non-frame entry below the top that has reached its reconvergence PC
 * (pc = rpc). Such an entry is the trace of a path that already ended — typically a loop exit,
 * one per iteration in which some lanes left — and `settle` pops it the moment it reaches the
 * top, before anything runs (seed 002 §2.3: "if the two PCs are equal we pop"). Its mask is a
 * subset of the entry below (masks only shrink going up: divergence pushes subsets of the top,
 * CALL a subset, EXIT and RET remove lanes from whole suffixes), so its lanes resume there. Two
 * stacks that differ only in spent entries therefore issue the same groups forever: the reduced
 * key and `lanePcs` skip them (issue 16; law in `model/explore/reductions.test.ts`).
 */
export function isSpent(s: SimtStackState, i: number, plantUnsound = false): boolean {
  const e = s[i]!;
  if (i >= s.length - 1 || e.frame) return false;
  return plantUnsound ? i > 0 && e.rpc === s[i - 1]!.pc : e.pc === e.rpc;
}

export function createSimtStack(
  ctx: MechanismContext,
  opts: SimtStackOptions,
): Mechanism<SimtStackState> {
  const plant = opts.plantUnsoundSpent ?? false;
  const spentEntry = (s: SimtStackState, i: number) => isSpent(s, i, plant);
  return {
    id: 'simt-stack',
    laneFairness: false,
    // Orders and ties use PCs and lane counts only (issue 16: lane symmetry).
    laneSymmetric: true,
    policy(op: Op): Policy {
      if (op.kind === 'warpsync') return opts.warpsync;
      if (BARRIER_KINDS.has(op.kind) || op.kind === 'yield') return opts.foreign;
      if (op.kind === 'stack-op') return 'reject';
      return 'native';
    },
    init: () => [entry(ctx.entry, VIRTUAL_EXIT, ctx.full, false)],
    candidates(s) {
      const top = s[s.length - 1];
      return top && top.pc !== VIRTUAL_EXIT ? [{ pc: top.pc, mask: top.mask }] : [];
    },
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<SimtStackState> {
      const ev = outcome.event;
      const check = warpsyncStop(outcome.event, issue, exited, ctx.full, 'the SIMT stack');
      if (check) return check;
      // Exited lanes leave every entry (SEMANTICS §3.2).
      let st = without(s, outcome.exited | exited);
      const top = st[st.length - 1];
      if (!top) return { kind: 'ok', state: st };
      const groups = outcome.groups;
      if (ev.kind === 'call') {
        // CALL: the caller's entry resumes at the return PC with all its lanes once the frame pops;
        // the callers run the callee in a frame entry above it.
        // A CALL to the next instruction merges callee and fall-through into one group.
        const callee = groups.find((g) => g.pc !== ev.returnPc) ?? { pc: ev.returnPc };
        st[st.length - 1] = at(top, ev.returnPc);
        st.push(entry(callee.pc, VIRTUAL_EXIT, ev.mask, true));
        return { kind: 'ok', state: settle(st) };
      }
      if (ev.kind === 'ret') {
        let f = st.length - 1;
        while (f >= 0 && !st[f]!.frame) f--;
        if (f >= 0) {
          const back = f > 0 ? st[f - 1]!.pc : VIRTUAL_EXIT;
          const wrong = groups.find((g) => (g.mask & ev.mask) !== 0 && g.pc !== back);
          if (wrong)
            return {
              kind: 'stop',
              verdict: 'unsupported',
              message: `RET at ${issue.pc} returns lanes to pc ${wrong.pc}, not to their CALL's return point ${back}: the SIMT stack cannot follow it`,
            };
          // Returning lanes leave the frame and every entry above it; the rest fall through.
          const rest = (top.mask & ~ev.mask) >>> 0;
          st = [...st.slice(0, f), ...without(st.slice(f), ev.mask)];
          if (rest !== 0) st[st.length - 1] = at(st[st.length - 1]!, issue.pc + 1);
          return { kind: 'ok', state: settle(st) };
        }
        // A RET with no frame (a kernel-level jump through a register): an ordinary branch.
      }
      if (groups.length <= 1) {
        if (groups.length === 1) st[st.length - 1] = at(top, groups[0]!.pc);
        return { kind: 'ok', state: settle(st) };
      }
      // Divergence (seed 000 §II (2)): the top becomes the reconvergence entry at the IPDOM, and
      // one entry per path is pushed with rpc = IPDOM; a path already at the IPDOM is not pushed.
      const ipd = ctx.ipdom(issue.pc);
      st[st.length - 1] = at(top, ipd);
      for (const g of pushOrder(groups, issue.pc + 1, opts.order))
        if (g.pc !== ipd) st.push(entry(g.pc, ipd, g.mask, false));
      return { kind: 'ok', state: settle(st) };
    },
    // Dead runs (`Mechanism.straight`): the top entry moves to `to` unless its reconvergence PC
    // lies on the way (where `settle` would pop it); with one candidate, the top stays the issue.
    straight(s, issue, to) {
      const top = s[s.length - 1];
      if (!top || top.pc !== issue.pc || top.mask !== issue.mask) return null;
      if (!top.frame && top.rpc > issue.pc && top.rpc <= to) return null;
      const st = s.slice();
      st[st.length - 1] = at(top, to);
      return st;
    },
    ready(s) {
      const top = s[s.length - 1];
      return top ? top.mask : 0;
    },
    key(s, out: KeySink, liveBarriers?: number) {
      // The reduced key (`liveBarriers` given) leaves out spent entries (`isSpent`): they are
      // popped the moment they reach the top, so they never run and decide nothing.
      const reduced = liveBarriers !== undefined;
      let n = s.length;
      if (reduced) for (let i = 0; i < s.length; i++) if (spentEntry(s, i)) n--;
      out.push(n);
      for (let i = 0; i < s.length; i++) {
        const e = s[i]!;
        if (reduced && spentEntry(s, i)) continue;
        out.push(e.pc);
        out.push(e.rpc);
        out.mask(e.mask);
        out.push(e.frame ? 1 : 0);
      }
    },
    lanePcs(s, visit) {
      // Every entry's lanes resume at its PC: the top runs, a reconvergence entry continues at the
      // IPDOM, the entry under a frame at the return PC.
      // A spent entry's lanes never run from its PC: they resume at the entry below, which holds
      // them too (`isSpent`).
      for (let i = 0; i < s.length; i++) if (!spentEntry(s, i)) visit(s[i]!.pc, s[i]!.mask);
    },
    view(s, fmt: Formatter): StateView {
      const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
      const top = [...s].reverse();
      return {
        tables: [
          {
            title: 'SIMT stack (top first)',
            columns: ['RPC', 'Next PC', 'Active Mask'],
            rows: top.map((e) => [e.frame ? 'call' : pc(e.rpc), pc(e.pc), fmt.mask(e.mask)]),
          },
        ],
        data: {
          stack: top.map((e) => ({
            rpc: e.frame ? 'call' : e.rpc === VIRTUAL_EXIT ? null : fmt.pc(e.rpc),
            pc: e.pc === VIRTUAL_EXIT ? null : fmt.pc(e.pc),
            mask: fmt.mask(e.mask),
          })),
        },
      };
    },
  };
}

export const simtStackFactory: MechanismFactory = {
  id: 'simt-stack',
  summary:
    'pre-Volta IPDOM reconvergence stack: paths run one after another, reconverge at the IPDOM',
  source: 'seed 000 §II Fig. 1; seed 002 §2.3 Fig. 9; SEMANTICS §3.2',
  options: [
    {
      name: 'order',
      values: ['taken-first', 'not-taken-first', 'majority-first', 'minority-first'],
      default: 'taken-first',
      doc: 'which path of a divergent branch runs first (seed 000 Fig. 1 assumes taken-first; seed 002 Fig. 9 matches not-taken-first)',
    },
    ...PRE_VOLTA_OPTIONS,
  ],
  create: (ctx, o) =>
    createSimtStack(ctx, {
      order: (o['order'] ?? 'taken-first') as PathOrder,
      foreign: (o['foreign'] ?? 'nop') as ForeignPolicy,
      warpsync: (o['warpsync'] ?? 'check') as WarpsyncPolicy,
    }) as Mechanism<unknown>,
};
