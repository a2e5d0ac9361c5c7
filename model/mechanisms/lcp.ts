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
import {
  PRE_VOLTA_OPTIONS,
  preVoltaOptions,
  preVoltaPolicy,
  warpsyncStop,
  type PreVoltaPolicy,
} from './preVolta.ts';
import type { Group } from '../lanes/execute.ts';
import { popcount } from '../lanes/values.ts';
import type { PathOrder } from './simtStack.ts';

/**
 * `lcp` — the SIMT stack with likely convergence points (seed 002 §3.11, Fig. 29–30, after Fung et
 * al.; SEMANTICS §3.7). Entries are (pc, rpc, mask, lpc, lpos); the top runs.
 *
 * - A divergent branch annotated with a likely convergence point L ≠ its IPDOM p (the listing's
 *   `// @warpcheck lcp=BRANCH:L`, see `lcpHints.ts`): the top becomes the IPDOM entry (p, old rpc,
 *   mask, old lpc, old lpos); an LCP entry (L, rpc p, empty mask, no lpc) is pushed, then one entry
 *   per path (target, rpc p, lanes, lpc L, lpos = the LCP entry's position) — "three entries are
 *   added to the stack. The first one is the likely point of convergence".
 * - A path whose pc reaches its lpc merges its lanes into the entry at lpos and is popped (Fig. 30
 *   (5): "when the execution reaches the LPC, the entry of E is removed from the stack").
 * - An entry whose pc reaches its rpc is popped, as on `simt-stack`; so is an empty entry on top
 *   (an LCP entry no path merged into). The LCP entry, once on top, "is executed until it reaches
 *   the IPDOM".
 * - Divergence without an annotation is `simt-stack`'s rule (§3.2), with one refinement Fig. 30 (4)
 *   shows: when the IPDOM equals the top entry's own rpc the top is replaced by the paths, which
 *   inherit its lpc and lpos (on `simt-stack` the top would become (p, p) and be popped as soon as it
 *   is on top again: the same runs). Without any annotation `lcp` runs exactly as `simt-stack`.
 *
 * Invariants after every step (checked by `lcp.test.ts`): no exited lane anywhere; the entries hold
 * exactly the live lanes; only LCP entries may be empty, and never on top; every lpos points below
 * at the LCP entry of its lpc; sibling paths (same rpc) are disjoint, and so are an LCP entry and
 * the paths that will merge into it.
 */
export interface LcpEntry {
  readonly pc: number;
  /** Reconvergence PC; for a CALL frame, the return PC (the only PC its lanes may RET to). */
  readonly rpc: number;
  readonly mask: number;
  /** Likely convergence PC of the path; `VIRTUAL_EXIT` for none. */
  readonly lpc: number;
  /** Stack position (0 = bottom) of the LCP entry the path merges into; -1 for none. */
  readonly lpos: number;
  readonly frame: boolean;
}

export type LcpState = readonly LcpEntry[];

export interface LcpOptions extends PreVoltaPolicy {
  readonly order: PathOrder;
}

const NONE = VIRTUAL_EXIT;

/** Orders divergent groups bottom-to-top, the last runs first: `simt-stack`'s rule (SEMANTICS §3.2). */
function pushOrder(groups: readonly Group[], fallThrough: number, order: PathOrder): Group[] {
  const takenFirst = (a: Group, b: Group) =>
    a.pc === fallThrough ? -1 : b.pc === fallThrough ? 1 : b.pc - a.pc;
  const cmp = (a: Group, b: Group): number => {
    switch (order) {
      case 'taken-first':
        return takenFirst(a, b);
      case 'not-taken-first':
        return -takenFirst(a, b);
      case 'majority-first':
        return popcount(a.mask) - popcount(b.mask) || takenFirst(a, b);
      case 'minority-first':
        return popcount(b.mask) - popcount(a.mask) || takenFirst(a, b);
    }
  };
  return [...groups].sort(cmp);
}

/** Pops what reached its rpc, merges what reached its lpc, drops empty entries — from the top. */
function settle(s: LcpEntry[]): LcpEntry[] {
  while (s.length > 0) {
    const top = s[s.length - 1]!;
    if (top.mask === 0 || (!top.frame && top.pc === top.rpc)) s.pop();
    else if (!top.frame && top.lpc !== NONE && top.pc === top.lpc) {
      const l = s[top.lpos]!;
      s[top.lpos] = { ...l, mask: (l.mask | top.mask) >>> 0 };
      s.pop();
    } else break;
  }
  return s;
}

/** Removes `lanes` from every entry; empty entries stay where they are (lpos must not move). */
const without = (s: readonly LcpEntry[], lanes: number): LcpEntry[] =>
  lanes === 0
    ? s.slice()
    : s.map((e) => ((e.mask & lanes) === 0 ? e : { ...e, mask: (e.mask & ~lanes) >>> 0 }));

export function createLcp(ctx: MechanismContext, opts: LcpOptions): Mechanism<LcpState> {
  const hints = ctx.likelyConvergence ?? new Map<number, number>();
  return {
    id: 'lcp',
    laneFairness: false,
    // Orders and ties use PCs and lane counts only (issue 16: lane symmetry).
    laneSymmetric: true,
    policy: (op) => preVoltaPolicy(op, opts),
    init: () => [{ pc: ctx.entry, rpc: NONE, mask: ctx.full, lpc: NONE, lpos: -1, frame: false }],
    candidates(s) {
      const top = s[s.length - 1];
      return top && top.pc !== VIRTUAL_EXIT ? [{ pc: top.pc, mask: top.mask }] : [];
    },
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<LcpState> {
      const ev = outcome.event;
      const bad = warpsyncStop(ev, issue, exited, ctx.full, 'the SIMT stack');
      if (bad) return bad;
      const gone = (outcome.exited | exited) >>> 0;
      let st = without(s, gone);
      // Empty entries left on top by exits go first (the issuing entry may be one of them).
      while (st.length > 0 && st[st.length - 1]!.mask === 0) st.pop();
      const top = st[st.length - 1];
      if (!top) return { kind: 'ok', state: st };
      const groups = outcome.groups;
      if (ev.kind === 'call') {
        const callee = groups.find((g) => g.pc !== ev.returnPc) ?? { pc: ev.returnPc };
        st[st.length - 1] = { ...top, pc: ev.returnPc };
        st.push({
          pc: callee.pc,
          rpc: ev.returnPc,
          mask: ev.mask,
          lpc: NONE,
          lpos: -1,
          frame: true,
        });
        return { kind: 'ok', state: settle(st) };
      }
      if (ev.kind === 'ret') {
        let f = st.length - 1;
        while (f >= 0 && !st[f]!.frame) f--;
        if (f >= 0) {
          const back = st[f]!.rpc;
          const wrong = groups.find((g) => (g.mask & ev.mask) !== 0 && g.pc !== back);
          if (wrong)
            return {
              kind: 'stop',
              verdict: 'unsupported',
              message: `RET at ${issue.pc} returns lanes to pc ${wrong.pc}, not to their CALL's return point ${back}: the SIMT stack cannot follow it`,
            };
          const rest = (top.mask & ~ev.mask) >>> 0;
          // Returning lanes leave the frame and every entry above it (LCP entries among them).
          st = [...st.slice(0, f), ...without(st.slice(f), ev.mask)];
          if (rest !== 0) st[st.length - 1] = { ...st[st.length - 1]!, pc: issue.pc + 1 };
          return { kind: 'ok', state: settle(st) };
        }
      }
      if (groups.length <= 1) {
        if (groups.length === 1) st[st.length - 1] = { ...top, pc: groups[0]!.pc };
        return { kind: 'ok', state: settle(st) };
      }
      const ipd = ctx.ipdom(issue.pc);
      const hint = hints.get(issue.pc);
      const l = hint !== undefined && hint !== ipd ? hint : NONE;
      // Fig. 30 (4): a branch whose IPDOM is the entry's own rpc replaces the entry; its paths keep
      // the entry's lpc/lpos. Otherwise the entry becomes the IPDOM entry, as on simt-stack.
      const replace = !top.frame && ipd === top.rpc && l === NONE;
      let lpc = replace ? top.lpc : NONE;
      let lpos = replace ? top.lpos : -1;
      if (replace) st.pop();
      else st[st.length - 1] = { ...top, pc: ipd };
      if (l !== NONE) {
        st.push({ pc: l, rpc: ipd, mask: 0, lpc: NONE, lpos: -1, frame: false });
        lpc = l;
        lpos = st.length - 1;
      }
      for (const g of pushOrder(groups, issue.pc + 1, opts.order))
        if (g.pc !== ipd) st.push({ pc: g.pc, rpc: ipd, mask: g.mask, lpc, lpos, frame: false });
      return { kind: 'ok', state: settle(st) };
    },
    ready(s) {
      const top = s[s.length - 1];
      return top ? top.mask : 0;
    },
    key(s, out: KeySink) {
      out.push(s.length);
      for (const e of s) {
        out.push(e.pc);
        out.push(e.frame ? -2 - e.rpc : e.rpc);
        out.mask(e.mask);
        out.push(e.lpc);
        out.push(e.lpos);
      }
    },
    lanePcs(s, visit) {
      // Every entry's lanes resume at its PC (an LCP entry's merged lanes at the LCP, which every
      // path lane reaches on a path of static successors before it merges).
      for (const e of s) if (e.mask !== 0) visit(e.pc, e.mask);
    },
    view: (s, fmt) => viewLcp(s, fmt),
  };
}

/** The stack, top first, in the columns of seed 002 Fig. 30: PC, RPC, LPC, LPos, active threads. */
export function viewLcp(s: LcpState, fmt: Formatter): StateView {
  const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
  const top = [...s].reverse();
  return {
    tables: [
      {
        title: 'SIMT stack with likely convergence points (top first)',
        columns: ['PC', 'RPC', 'LPC', 'LPos', 'Active Mask'],
        rows: top.map((e) => [
          pc(e.pc),
          e.frame ? 'call' : pc(e.rpc),
          pc(e.lpc),
          e.lpos < 0 ? '-' : `${e.lpos}`,
          fmt.mask(e.mask),
        ]),
      },
    ],
    data: {
      stack: top.map((e) => ({
        pc: e.pc === VIRTUAL_EXIT ? null : fmt.pc(e.pc),
        rpc: e.frame ? 'call' : e.rpc === VIRTUAL_EXIT ? null : fmt.pc(e.rpc),
        lpc: e.lpc === NONE ? null : fmt.pc(e.lpc),
        lpos: e.lpos < 0 ? null : e.lpos,
        mask: fmt.mask(e.mask),
      })),
    },
  };
}

export const lcpFactory: MechanismFactory = {
  id: 'lcp',
  summary:
    'SIMT stack with likely convergence points: paths of an annotated branch merge early at the LCP, then run to the IPDOM',
  source: 'seed 002 §3.11 Fig. 29-30; SEMANTICS §3.7',
  options: [
    {
      name: 'order',
      values: ['taken-first', 'not-taken-first', 'majority-first', 'minority-first'],
      default: 'taken-first',
      doc: 'which path of a divergent branch runs first (as simt-stack; Fig. 30 runs the taken path first)',
    },
    ...PRE_VOLTA_OPTIONS,
  ],
  create: (ctx, o) =>
    createLcp(ctx, {
      order: (o['order'] ?? 'taken-first') as PathOrder,
      ...preVoltaOptions(o),
    }) as Mechanism<unknown>,
};
