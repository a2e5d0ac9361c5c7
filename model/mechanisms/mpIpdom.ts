import type { Outcome } from '../lanes/execute.ts';
import type { KeySink } from '../machine/key.ts';
import {
  VIRTUAL_EXIT,
  type Advance,
  type Formatter,
  type Issue,
  type Mechanism,
  type MechanismContext,
  type MechanismFactory,
  type StateView,
} from './mechanism.ts';
import { writeMpIpdomKey } from './mpIpdomKey.ts';
import {
  PRE_VOLTA_OPTIONS,
  preVoltaOptions,
  preVoltaPolicy,
  warpsyncStop,
  type PreVoltaPolicy,
} from './preVolta.ts';

/**
 * `mp-ipdom` — Multi-Path IPDOM (seed 004 "The Basic Workflow of MP IPDOM", "Nested Divergence";
 * SEMANTICS §3.6): the SIMT stack is replaced by a warp Split Table (ST) of splits that may all be
 * scheduled, and a Reconvergence Table (RT) of entries that wait for their splits at the IPDOM.
 *
 * Invariants, after every step (checked by `mpIpdom.test.ts`):
 * - splits are non-empty, pairwise disjoint, hold no exited lane, and are sorted by (pc, mask);
 * - every live lane is in exactly one split, or in no split and in the pending mask of no RT entry
 *   whose pc it has not reached — i.e. it waits at exactly one RT entry (complete and disjoint);
 * - an RT entry's pending mask ⊆ its reconvergence mask, and its pending lanes are exactly the lanes
 *   of the splits and RT entries that point at it (their masks, or reconvergence masks);
 * - no split sits at the pc of its (non-frame) entry: it would have left the ST;
 * - no RT entry has an empty pending mask: it would have gone back to the ST (or, empty, away).
 */
export interface Split {
  readonly pc: number;
  readonly mask: number;
  /** R-Index: the RT entry it reconverges at; -1 for none (the warp's outermost level). */
  readonly r: number;
}

export interface RtEntry {
  /** The reconvergence PC (the IPDOM of the branch); for a frame, the CALL's return PC. */
  readonly pc: number;
  /** Lanes that resume at `pc` together once none is pending (seed 004 Step2B(3)). */
  readonly rec: number;
  /** Lanes that have not reached `pc` yet (seed 004 Step2B(4)). */
  readonly pending: number;
  /** The entry this one goes back to when it returns to the ST as a split; -1 for none. */
  readonly parent: number;
  /**
   * A call frame (our decision, mirroring `simt-stack`'s frame entries): its lanes leave it only at
   * RET, never by reaching `pc`, which is the caller's return point.
   */
  readonly frame: boolean;
}

export interface MpIpdomState {
  readonly st: readonly Split[];
  readonly rt: readonly RtEntry[];
}

type MutRt = { -readonly [K in keyof RtEntry]: RtEntry[K] };

const bySplit = (a: Split, b: Split) => a.pc - b.pc || a.mask - b.mask;

/** Removes RT entry `i`, renumbering every index above it. */
function removeRt(st: Split[], rt: MutRt[], i: number): void {
  rt.splice(i, 1);
  for (let k = 0; k < st.length; k++) {
    const sp = st[k]!;
    if (sp.r > i) st[k] = { ...sp, r: sp.r - 1 };
  }
  for (const e of rt) if (e.parent > i) e.parent--;
}

/**
 * Applies the two reconvergence rules until neither applies (SEMANTICS §3.6; seed 004 Step3B–5):
 * a split at its (non-frame) entry's pc leaves the ST and is subtracted from the pending mask; an
 * entry with nothing pending goes back to the ST as the split (pc, reconvergence mask, parent) —
 * or, when every lane of it exited, simply goes away.
 */
function settle(st: Split[], rt: MutRt[]): void {
  for (let changed = true; changed;) {
    changed = false;
    for (let k = st.length - 1; k >= 0; k--) {
      const sp = st[k]!;
      const e = sp.r >= 0 ? rt[sp.r]! : null;
      if (e && !e.frame && e.pc === sp.pc) {
        e.pending = (e.pending & ~sp.mask) >>> 0;
        st.splice(k, 1);
        changed = true;
      }
    }
    for (let i = rt.length - 1; i >= 0; i--) {
      const e = rt[i]!;
      if (e.pending !== 0) continue;
      if (e.rec !== 0) st.push({ pc: e.pc, mask: e.rec, r: e.parent });
      removeRt(st, rt, i);
      changed = true;
      break; // indices moved: rescan
    }
  }
}

export function createMpIpdom(
  ctx: MechanismContext,
  opts: PreVoltaPolicy,
): Mechanism<MpIpdomState> {
  return {
    id: 'mp-ipdom',
    // Weak fairness among splits (SEMANTICS §3.6) is weak fairness per lane: a lane is in exactly
    // one split, issues exactly when its split does, and `ready` is the union of the splits. A split
    // that stays schedulable through a cycle keeps its lanes ready, so the cycle is fair only if
    // they issue in it. (Warp fairness alone would let one split starve a sibling forever.)
    laneFairness: true,
    policy: (op) => preVoltaPolicy(op, opts),
    init: () => ({ st: [{ pc: ctx.entry, mask: ctx.full, r: -1 }], rt: [] }),
    candidates(s) {
      const out: Issue[] = [];
      for (const sp of s.st) if (sp.pc !== VIRTUAL_EXIT) out.push({ pc: sp.pc, mask: sp.mask });
      return out;
    },
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<MpIpdomState> {
      const ev = outcome.event;
      const bad = warpsyncStop(ev, issue, exited, ctx.full, 'MP IPDOM');
      if (bad) return bad;
      const at = s.st.findIndex((sp) => sp.pc === issue.pc && sp.mask === issue.mask);
      if (at < 0) throw new Error(`mp-ipdom: issue ${issue.pc}/${issue.mask} is no split`);
      const split = s.st[at]!;
      const gone = (outcome.exited | exited) >>> 0;
      const st: Split[] = s.st.filter((_, k) => k !== at);
      const rt: MutRt[] = s.rt.map((e) => ({ ...e }));
      const groups = outcome.groups;
      let handled = false;
      if (ev.kind === 'call') {
        // CALL (as simt-stack): the callers run the callee in a new split under a frame entry; the
        // whole split resumes at the return PC once every caller returned (or exited).
        const callee = groups.find((g) => g.pc !== ev.returnPc) ?? { pc: ev.returnPc };
        rt.push({
          pc: ev.returnPc,
          rec: (split.mask & ~gone) >>> 0,
          pending: ev.mask,
          parent: split.r,
          frame: true,
        });
        if (ev.mask !== 0) st.push({ pc: callee.pc, mask: ev.mask, r: rt.length - 1 });
        handled = true;
      } else if (ev.kind === 'ret') {
        let f = split.r;
        while (f >= 0 && !rt[f]!.frame) f = rt[f]!.parent;
        if (f >= 0) {
          const back = rt[f]!.pc;
          const wrong = groups.find((g) => (g.mask & ev.mask) !== 0 && g.pc !== back);
          if (wrong)
            return {
              kind: 'stop',
              verdict: 'unsupported',
              message: `RET at ${issue.pc} returns lanes to pc ${wrong.pc}, not to their CALL's return point ${back}: MP IPDOM cannot follow it`,
            };
          // Returning lanes leave every entry between the split and its frame, and the frame's
          // pending mask; the lanes that did not return go on at pc + 1.
          for (let k = split.r; k !== f; k = rt[k]!.parent) {
            const e = rt[k]!;
            e.rec = (e.rec & ~ev.mask) >>> 0;
            e.pending = (e.pending & ~ev.mask) >>> 0;
          }
          rt[f]!.pending = (rt[f]!.pending & ~ev.mask) >>> 0;
          const rest = (split.mask & ~ev.mask & ~gone) >>> 0;
          if (rest !== 0) st.push({ pc: issue.pc + 1, mask: rest, r: split.r });
          handled = true;
        }
        // A RET with no frame (a kernel-level jump through a register): an ordinary branch.
      }
      if (!handled) {
        if (groups.length === 1) st.push({ pc: groups[0]!.pc, mask: groups[0]!.mask, r: split.r });
        else if (groups.length > 1) {
          // Divergence (seed 004 Step2A–2B): unless the IPDOM is already the pc of the split's own
          // entry (reuse, "if the new RPC is not equal to the last RPC"), a new RT entry gets the
          // split's mask as reconvergence and pending mask; one split per target points at it.
          const p = ctx.ipdom(issue.pc);
          const own = split.r >= 0 ? rt[split.r]! : null;
          let r = split.r;
          if (!own || own.frame || own.pc !== p) {
            const mask = groups.reduce((m, g) => m | g.mask, 0) >>> 0;
            rt.push({ pc: p, rec: mask, pending: mask, parent: split.r, frame: false });
            r = rt.length - 1;
          }
          for (const g of groups) st.push({ pc: g.pc, mask: g.mask, r });
        }
      }
      // Exited lanes leave every split and entry (then "pending minus exited" is what is checked).
      if (gone !== 0) {
        for (let k = st.length - 1; k >= 0; k--) {
          const m = (st[k]!.mask & ~gone) >>> 0;
          if (m === 0) st.splice(k, 1);
          else if (m !== st[k]!.mask) st[k] = { ...st[k]!, mask: m };
        }
        for (const e of rt) {
          e.rec = (e.rec & ~gone) >>> 0;
          e.pending = (e.pending & ~gone) >>> 0;
        }
      }
      settle(st, rt);
      st.sort(bySplit);
      return { kind: 'ok', state: { st, rt } };
    },
    ready(s) {
      let m = 0;
      for (const sp of s.st) m |= sp.mask;
      return m >>> 0;
    },
    key(s, out: KeySink) {
      // Canonical in the numbering of RT entries (issue 14): see mpIpdomKey.ts.
      writeMpIpdomKey(s, out);
    },
    lanePcs(s, visit) {
      // A split's lanes issue at its pc; an entry's lanes resume at its pc (the IPDOM, or the return
      // PC of a frame) — every lane of `rec` passes there on its way, or already waits there.
      for (const sp of s.st) visit(sp.pc, sp.mask);
      for (const e of s.rt) if (e.rec !== 0) visit(e.pc, e.rec);
    },
    view: (s, fmt) => viewMpIpdom(s, fmt),
  };
}

/** The ST and RT in the layout of seed 004's figures (PC, RPC, masks, R-Index). */
export function viewMpIpdom(s: MpIpdomState, fmt: Formatter): StateView {
  const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
  const rpcOf = (r: number) => (r < 0 ? '-' : pc(s.rt[r]!.pc));
  return {
    tables: [
      {
        title: 'Split Table (ST)',
        columns: ['PC', 'RPC', 'Active Mask', 'R-Index'],
        rows: s.st.map((sp) => [
          pc(sp.pc),
          rpcOf(sp.r),
          fmt.mask(sp.mask),
          sp.r < 0 ? '-' : `${sp.r}`,
        ]),
      },
      {
        title: 'Reconvergence Table (RT)',
        columns: ['R', 'PC', 'RPC', 'Reconvergence Mask', 'Pending Mask'],
        rows: s.rt.map((e, i) => [
          `${i}`,
          e.frame ? `ret ${pc(e.pc)}` : pc(e.pc),
          rpcOf(e.parent),
          fmt.mask(e.rec),
          fmt.mask(e.pending),
        ]),
      },
    ],
    data: {
      st: s.st.map((sp) => ({ pc: pc(sp.pc), mask: fmt.mask(sp.mask), r: sp.r < 0 ? null : sp.r })),
      rt: s.rt.map((e) => ({
        pc: pc(e.pc),
        ...(e.frame ? { frame: true } : {}),
        rpc: e.parent < 0 ? null : pc(s.rt[e.parent]!.pc),
        rec: fmt.mask(e.rec),
        pending: fmt.mask(e.pending),
        parent: e.parent < 0 ? null : e.parent,
      })),
    },
  };
}

export const mpIpdomFactory: MechanismFactory = {
  id: 'mp-ipdom',
  summary:
    'Multi-Path IPDOM: every warp split may run (explored under fairness), reconvergence at the IPDOM through a reconvergence table',
  source: 'seed 004 (Split Table, Reconvergence Table); SEMANTICS §3.6',
  options: PRE_VOLTA_OPTIONS,
  create: (ctx, o) => createMpIpdom(ctx, preVoltaOptions(o)) as Mechanism<unknown>,
};
