import { warpsyncStop } from './preVolta.ts';
import {
  opcodeConvergentPlan,
  type MemoryAlignment,
  type MergedRegion,
  type Unit,
} from '../compile/opcodeConvergent.ts';
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
  createSimtStack,
  simtStackFactory,
  type ForeignPolicy,
  type PathOrder,
  type SimtStackOptions,
  type StackEntry,
  type WarpsyncPolicy,
} from './simtStack.ts';

/**
 * `opcode-convergent` — the SIMT stack of opportunistic inter-path reconvergence (seed 002 §4.7,
 * Fig. 41–42; SEMANTICS §3.8).
 *
 * At a divergent branch that heads a merged region (the compile pass, `compile/opcodeConvergent.ts`)
 * the stack "will push the whole control flow that lies between the divergent branch and its IPDOM":
 * here one region entry holding the two lane groups and the index of the next slot (Fig. 42 lists
 * the slots as rows; the view prints them so). Its two masks together are the IDOM mask register
 * (§4.7): the lanes that take part, and which operand set each uses. A slot with both sides issues
 * once for both groups (`Issue.merged`); a one-sided slot issues for its group only; a `sub` slot
 * pushes an ordinary entry for a nested structure, which runs by the `simt-stack` rules until its
 * IPDOM and pops back into the region. Everything else — divergence elsewhere, calls, exits — is
 * `simt-stack` (its `advance` runs on the entries above the topmost region entry).
 *
 * Invariants, after every step: no entry is empty and no exited lane is in any entry; a region
 * entry on top has, at its `slot`, a `pc` unit for a group that still has lanes; the entry right
 * under a region entry continues at the region's IPDOM.
 */
export interface RegionEntry {
  /** PC of the branch heading the region (its key in the plan). */
  readonly region: number;
  /** Index of the next slot to issue. */
  readonly slot: number;
  /** Live lanes of the taken group and of the not-taken group (disjoint; the union is the IDOM mask). */
  readonly taken: number;
  readonly notTaken: number;
}

export type OpcodeConvergentEntry = StackEntry | RegionEntry;
export type OpcodeConvergentState = readonly OpcodeConvergentEntry[];

export interface OpcodeConvergentOptions extends SimtStackOptions {
  readonly memory: MemoryAlignment;
}

const isRegion = (e: OpcodeConvergentEntry): e is RegionEntry => 'region' in e;

/** Removes `lanes` from every entry and drops entries left empty. */
function without(s: OpcodeConvergentState, lanes: number): OpcodeConvergentEntry[] {
  if (lanes === 0) return s.slice();
  const out: OpcodeConvergentEntry[] = [];
  for (const e of s) {
    if (isRegion(e)) {
      const taken = (e.taken & ~lanes) >>> 0;
      const notTaken = (e.notTaken & ~lanes) >>> 0;
      if ((taken | notTaken) !== 0) out.push({ ...e, taken, notTaken });
    } else {
      const mask = (e.mask & ~lanes) >>> 0;
      if (mask !== 0) out.push({ ...e, mask });
    }
  }
  return out;
}

/** First PC of a unit. */
const startOf = (u: Unit): number => (u.kind === 'pc' ? u.pc : u.from);

/** Per region: where each group resumes before slot i (`next[i]`, i = 0..slots): its next unit's PC, else the IPDOM. */
interface Resume {
  readonly taken: Int32Array;
  readonly notTaken: Int32Array;
}

function resumeOf(r: MergedRegion): Resume {
  const n = r.slots.length;
  const taken = new Int32Array(n + 1).fill(r.ipdom);
  const notTaken = new Int32Array(n + 1).fill(r.ipdom);
  for (let i = n - 1; i >= 0; i--) {
    const s = r.slots[i]!;
    taken[i] = s.taken ? startOf(s.taken) : taken[i + 1]!;
    notTaken[i] = s.notTaken ? startOf(s.notTaken) : notTaken[i + 1]!;
  }
  return { taken, notTaken };
}

/**
 * A spent plain entry (`isSpent` in simtStack.ts): non-top, not a frame, at its RPC. `settle` pops
 * it as soon as it is on top, whether a region entry or a plain one was above it.
 */
function spent(s: OpcodeConvergentState, i: number): boolean {
  const e = s[i]!;
  return i < s.length - 1 && !isRegion(e) && !e.frame && e.pc === e.rpc;
}

export function createOpcodeConvergent(
  ctx: MechanismContext,
  opts: OpcodeConvergentOptions,
): Mechanism<OpcodeConvergentState> {
  const plan = opcodeConvergentPlan(ctx.program, ctx.ops, { memory: opts.memory });
  const regionAt: (MergedRegion | undefined)[] = new Array(ctx.ops.length);
  const resumeAt: (Resume | undefined)[] = new Array(ctx.ops.length);
  for (const r of plan.regions.values()) {
    regionAt[r.branch] = r;
    resumeAt[r.branch] = resumeOf(r);
  }
  const inner = createSimtStack(ctx, opts);

  /**
   * Pops finished entries: a plain entry at its RPC (SEMANTICS §3.2), a region entry past its last
   * slot. Moves a region entry on top to its next slot that has lanes; at a `sub` slot pushes the
   * ordinary entry that runs the nested structure to its IPDOM.
   */
  function settle(st: OpcodeConvergentEntry[]): OpcodeConvergentEntry[] {
    for (;;) {
      const top = st[st.length - 1];
      if (!top) return st;
      if (!isRegion(top)) {
        if (!top.frame && top.pc === top.rpc) {
          st.pop();
          continue;
        }
        return st;
      }
      const slots = regionAt[top.region]!.slots;
      let i = top.slot;
      while (i < slots.length) {
        const sl = slots[i]!;
        if ((sl.taken && top.taken !== 0) || (sl.notTaken && top.notTaken !== 0)) break;
        i++;
      }
      if (i >= slots.length) {
        st.pop();
        continue;
      }
      const sl = slots[i]!;
      const takenRuns = sl.taken !== null && top.taken !== 0;
      const u = takenRuns ? sl.taken! : sl.notTaken!;
      if (u.kind === 'sub') {
        // A nested structure (§4.9, not merged): one-sided by construction.
        st[st.length - 1] = { ...top, slot: i + 1 };
        st.push({
          pc: u.from,
          rpc: u.to,
          mask: takenRuns ? top.taken : top.notTaken,
          frame: false,
        });
        continue;
      }
      if (i !== top.slot) st[st.length - 1] = { ...top, slot: i };
      return st;
    }
  }

  /** The issue of a region entry on top (after `settle`). */
  function regionIssue(top: RegionEntry): Issue {
    const sl = regionAt[top.region]!.slots[top.slot]!;
    const t = sl.taken && top.taken !== 0 ? sl.taken : null;
    const n = sl.notTaken && top.notTaken !== 0 ? sl.notTaken : null;
    if (t && n && t.kind === 'pc' && n.kind === 'pc')
      return { pc: t.pc, mask: top.taken, merged: { pc: n.pc, mask: top.notTaken } };
    if (t && t.kind === 'pc') return { pc: t.pc, mask: top.taken };
    return { pc: (n as Extract<Unit, { kind: 'pc' }>).pc, mask: top.notTaken };
  }

  return {
    id: 'opcode-convergent',
    laneFairness: false,
    // Orders and ties use PCs and lane counts only (issue 16: lane symmetry).
    laneSymmetric: true,
    policy: inner.policy,
    init: () => [{ pc: ctx.entry, rpc: VIRTUAL_EXIT, mask: ctx.full, frame: false }],
    candidates(s) {
      const top = s[s.length - 1];
      if (!top) return [];
      if (isRegion(top)) return [regionIssue(top)];
      return top.pc !== VIRTUAL_EXIT ? [{ pc: top.pc, mask: top.mask }] : [];
    },
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<OpcodeConvergentState> {
      const check = warpsyncStop(outcome.event, issue, exited, ctx.full, 'the SIMT stack');
      if (check) return check;
      const gone = (outcome.exited | exited) >>> 0;
      const top = s[s.length - 1]!;
      if (isRegion(top)) {
        // Each group must land where the region says (a defensive check: the pass only lays out
        // straight walks, so a lane cannot leave them except by exiting).
        const res = resumeAt[top.region]!;
        const nextT = res.taken[top.slot + 1]!;
        const nextN = res.notTaken[top.slot + 1]!;
        for (const g of outcome.groups)
          if (
            ((g.mask & top.taken) !== 0 && g.pc !== nextT) ||
            ((g.mask & top.notTaken) !== 0 && g.pc !== nextN)
          )
            return {
              kind: 'stop',
              verdict: 'unsupported',
              message: `lanes ${g.mask.toString(2)} left the merged region of the branch at ${top.region} for pc ${g.pc}`,
            };
        const st = s.slice();
        st[st.length - 1] = { ...top, slot: top.slot + 1 };
        return { kind: 'ok', state: settle(without(st, gone)) };
      }
      const r = regionAt[issue.pc];
      const groups = outcome.groups;
      if (
        r &&
        outcome.event.kind === 'none' &&
        groups.length === 2 &&
        groups.some((g) => g.pc === r.takenStart) &&
        groups.some((g) => g.pc === r.notTakenStart)
      ) {
        // Divergence at a region's branch (§4.7, Fig. 41): the top continues at the IPDOM; the
        // whole region is pushed above it.
        const st = without(s, gone);
        const t = groups.find((g) => g.pc === r.takenStart)!;
        const n = groups.find((g) => g.pc === r.notTakenStart)!;
        st[st.length - 1] = { ...(st[st.length - 1] as StackEntry), pc: r.ipdom };
        st.push({ region: r.branch, slot: 0, taken: t.mask, notTaken: n.mask });
        return { kind: 'ok', state: settle(st) };
      }
      // Otherwise the simt-stack rules, on the plain entries above the topmost region entry.
      let k = s.length;
      while (k > 0 && !isRegion(s[k - 1]!)) k--;
      const adv = inner.advance(s.slice(k) as StackEntry[], issue, outcome, exited);
      if (adv.kind === 'stop') return adv;
      return { kind: 'ok', state: settle([...without(s.slice(0, k), gone), ...adv.state]) };
    },
    ready(s) {
      const top = s[s.length - 1];
      if (!top) return 0;
      if (!isRegion(top)) return top.mask;
      const i = regionIssue(top);
      return (i.mask | (i.merged?.mask ?? 0)) >>> 0;
    },
    key(s, out: KeySink, liveBarriers?: number) {
      // The reduced key (`liveBarriers` given) leaves out spent plain entries, as the SIMT stack's
      // does (`isSpent` in simtStack.ts): `settle` pops them the moment they reach the top.
      const reduced = liveBarriers !== undefined;
      let n = s.length;
      if (reduced) for (let i = 0; i < s.length; i++) if (spent(s, i)) n--;
      out.push(n);
      for (let i = 0; i < s.length; i++) {
        const e = s[i]!;
        if (reduced && spent(s, i)) continue;
        if (isRegion(e)) {
          // -2 never is a PC (VIRTUAL_EXIT is -1), so the tag keeps entries apart.
          out.push(-2);
          out.push(e.region);
          out.push(e.slot);
          out.mask(e.taken);
          out.mask(e.notTaken);
        } else {
          out.push(e.pc);
          out.push(e.rpc);
          out.mask(e.mask);
          out.push(e.frame ? 1 : 0);
        }
      }
    },
    lanePcs(s, visit) {
      for (let i = 0; i < s.length; i++) {
        const e = s[i]!;
        if (spent(s, i)) continue; // its lanes resume at the entry below, which holds them
        if (!isRegion(e)) visit(e.pc, e.mask);
        else {
          const res = resumeAt[e.region]!;
          visit(res.taken[e.slot]!, e.taken);
          visit(res.notTaken[e.slot]!, e.notTaken);
        }
      }
    },
    view(s, fmt: Formatter): StateView {
      return viewOf(s, fmt, regionAt);
    },
  };
}

/**
 * Tables in Fig. 42's layout: the SIMT stack top first, a region entry expanded into one row per
 * remaining slot (`B ∩ C` for a merged slot; each row's RPC is the next row's PC, the last one's
 * the IPDOM), and the IDOM mask register (the topmost region's two groups). `data.stack` has one
 * element per entry; `data.slot` is the next slot of a region entry on top.
 */
function viewOf(
  s: OpcodeConvergentState,
  fmt: Formatter,
  regionAt: readonly (MergedRegion | undefined)[],
): StateView {
  const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
  const unitText = (u: Unit) =>
    u.kind === 'pc' ? pc(u.pc) : `${pc(u.from)}..${pc(u.to)} (nested)`;
  const rows: string[][] = [];
  const data: unknown[] = [];
  let idom: string | null = null;
  let slot: { taken: string | null; notTaken: string | null } | null = null;
  for (let k = s.length - 1; k >= 0; k--) {
    const e = s[k]!;
    if (!isRegion(e)) {
      rows.push([e.frame ? 'call' : pc(e.rpc), pc(e.pc), fmt.mask(e.mask)]);
      data.push({
        rpc: e.frame ? 'call' : e.rpc === VIRTUAL_EXIT ? null : fmt.pc(e.rpc),
        pc: e.pc === VIRTUAL_EXIT ? null : fmt.pc(e.pc),
        mask: fmt.mask(e.mask),
      });
      continue;
    }
    const r = regionAt[e.region]!;
    idom ??= fmt.mask((e.taken | e.notTaken) >>> 0);
    const live = r.slots
      .slice(e.slot)
      .map((sl) => ({
        t: sl.taken && e.taken !== 0 ? sl.taken : null,
        n: sl.notTaken && e.notTaken !== 0 ? sl.notTaken : null,
      }))
      .filter((x) => x.t !== null || x.n !== null);
    if (k === s.length - 1 && live[0])
      slot = {
        taken: live[0].t ? unitText(live[0].t) : null,
        notTaken: live[0].n ? unitText(live[0].n) : null,
      };
    const names = live.map((x) =>
      x.t && x.n ? `${unitText(x.t)} ∩ ${unitText(x.n)}` : unitText((x.t ?? x.n)!),
    );
    live.forEach((x, i) =>
      rows.push([
        i + 1 < live.length ? names[i + 1]! : pc(r.ipdom),
        names[i]!,
        fmt.mask(((x.t ? e.taken : 0) | (x.n ? e.notTaken : 0)) >>> 0),
      ]),
    );
    data.push({
      rpc: fmt.pc(r.ipdom),
      region: fmt.pc(r.branch),
      slot: e.slot,
      taken: fmt.mask(e.taken),
      notTaken: fmt.mask(e.notTaken),
    });
  }
  return {
    tables: [
      { title: 'SIMT stack (top first)', columns: ['RPC', 'Next PC', 'Active Mask'], rows },
      { title: 'IDOM mask register', columns: ['IDOM mask'], rows: [[idom ?? '-']] },
    ],
    data: { stack: data, slot },
  };
}

export const opcodeConvergentFactory: MechanismFactory = {
  id: 'opcode-convergent',
  summary:
    'SIMT stack with opcode-convergent threads: the two sides of an if/else run merged where their opcodes align (LCS)',
  source: 'seed 002 §4–5 (Fig. 37, 41, 42, §4.9); SEMANTICS §3.8',
  options: [
    ...simtStackFactory.options,
    {
      name: 'memory',
      values: ['align', 'skip'],
      default: 'align',
      doc: 'memory opcodes: aligned by the LCS but never merged (align, as Fig. 37 and §5.1), or left out of the alignment (skip)',
    },
  ],
  create: (ctx, o) =>
    createOpcodeConvergent(ctx, {
      order: (o['order'] ?? 'taken-first') as PathOrder,
      foreign: (o['foreign'] ?? 'nop') as ForeignPolicy,
      warpsync: (o['warpsync'] ?? 'check') as WarpsyncPolicy,
      memory: (o['memory'] ?? 'align') as MemoryAlignment,
    }) as Mechanism<unknown>,
};
