import type { Group, Outcome } from '../lanes/execute.ts';
import type { KeySink } from '../machine/key.ts';
import {
  blockMask,
  stackView,
  blockPolicy,
  compact,
  mergeGroups,
  type BlockContext,
} from './blockMechanism.ts';
import {
  VIRTUAL_EXIT,
  type Advance,
  type Formatter,
  type Issue,
  type Mechanism,
  type MechanismFactory,
  type StateView,
} from './mechanism.ts';
import { pushOrder, type PathOrder } from './simtStack.ts';

/**
 * `lwm` — the large warp microarchitecture (seed 002 §3.4, after Narasiman et al. [3]): a
 * block-level mechanism (`blockMechanism.ts`; masks name the block's threads).
 *
 * The block is one large warp with one SIMT stack ("LWM extends each SIMT stack so that it handles
 * more than one warp"); it runs "in lockstep ... synchronizing at each instruction". Each cycle the
 * large warp's active threads that have not yet executed the current instruction are packed into
 * a sub-warp — at most one thread per home lane, the lowest home warp first (`compact`'s first
 * warp) — which issues; when every active thread has executed it, the large warp moves on as a
 * SIMT stack does (seed 000 §II): one path, or divergence with a reconvergence entry at the IPDOM.
 *
 * Invariants: `done` and the groups of `pending` are within the top entry's mask; `pending` holds
 * the next PCs of exactly the `done` threads that did not exit; the stack's entries are nested as
 * the SIMT stack's (`simtStack.ts`) and none is empty or at its RPC after a step.
 */
export interface LwmEntry {
  readonly pc: number;
  readonly rpc: number;
  readonly mask: number;
}

export interface LwmState {
  readonly stack: readonly LwmEntry[];
  /** Threads of the top entry that executed its current instruction this round. */
  readonly done: number;
  readonly pending: readonly Group[];
}

export interface LwmOptions {
  readonly order: PathOrder;
}

export function createLwm(ctx: BlockContext, opts: LwmOptions): Mechanism<LwmState> {
  const shape = ctx.block;
  /** Drops exited threads and empty entries, and pops entries that reached their RPC. */
  const settle = (stack: LwmEntry[], gone: number): LwmEntry[] => {
    const out: LwmEntry[] = [];
    for (const e of stack) {
      const mask = (e.mask & ~gone) >>> 0;
      if (mask !== 0) out.push(mask === e.mask ? e : { ...e, mask });
    }
    while (out.length > 0 && out[out.length - 1]!.pc === out[out.length - 1]!.rpc) out.pop();
    return out;
  };
  const subWarp = (s: LwmState): number => {
    const top = s.stack[s.stack.length - 1];
    if (!top || top.pc === VIRTUAL_EXIT) return 0;
    return compact(shape, (top.mask & ~s.done) >>> 0)[0] ?? 0;
  };
  return {
    id: 'lwm',
    // One sub-warp at a time: nothing is chosen, so fairness per thread only asks the large warp
    // to keep issuing.
    laneFairness: true,
    policy: blockPolicy,
    init: () => ({
      stack: [{ pc: ctx.entry, rpc: VIRTUAL_EXIT, mask: ctx.full }],
      done: 0,
      pending: [],
    }),
    candidates(s) {
      const mask = subWarp(s);
      return mask === 0 ? [] : [{ pc: s.stack[s.stack.length - 1]!.pc, mask }];
    },
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<LwmState> {
      const gone = (outcome.exited | exited) >>> 0;
      const done = ((s.done | issue.mask) & ~gone) >>> 0;
      const pending = mergeGroups(s.pending, outcome.groups);
      // Exited threads leave every entry (as on the SIMT stack, SEMANTICS §3.2).
      const st = settle(s.stack.slice(), gone);
      const top = st[st.length - 1];
      if (top && (top.mask & ~done) >>> 0 !== 0)
        return { kind: 'ok', state: { stack: st, done, pending } };
      // The whole large warp executed the instruction: it moves on as one SIMT stack.
      if (top && pending.length === 1) st[st.length - 1] = { ...top, pc: pending[0]!.pc };
      else if (top && pending.length > 1) {
        const ipd = ctx.ipdom(issue.pc);
        st[st.length - 1] = { ...top, pc: ipd };
        for (const g of pushOrder(pending, issue.pc + 1, opts.order))
          if (g.pc !== ipd) st.push({ pc: g.pc, rpc: ipd, mask: g.mask });
      }
      return { kind: 'ok', state: { stack: settle(st, 0), done: 0, pending: [] } };
    },
    ready: subWarp,
    key(s, out: KeySink) {
      out.push(s.stack.length);
      for (const e of s.stack) {
        out.push(e.pc);
        out.push(e.rpc);
        out.mask(e.mask);
      }
      out.mask(s.done);
      out.push(s.pending.length);
      for (const g of s.pending) {
        out.push(g.pc);
        out.mask(g.mask);
      }
    },
    lanePcs(s, visit) {
      // Threads that executed the current instruction resume at their next PC; the rest at the
      // entries' PCs (the top's threads not yet done, and every entry below).
      for (let i = 0; i < s.stack.length; i++) {
        const e = s.stack[i]!;
        visit(e.pc, i === s.stack.length - 1 ? (e.mask & ~s.done) >>> 0 : e.mask);
      }
      for (const g of s.pending) visit(g.pc, g.mask);
    },
    view(s, fmt: Formatter): StateView {
      const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
      const stack = stackView(s.stack, fmt, shape);
      return {
        tables: [
          {
            title: 'Large-warp SIMT stack (top first)',
            columns: ['RPC', 'Next PC', 'Active threads'],
            rows: stack.rows,
          },
          {
            title: 'This instruction',
            columns: ['Executed', 'Next sub-warp'],
            rows: [[fmt.mask(s.done), fmt.mask(subWarp(s))]],
          },
        ],
        data: {
          stack: stack.data,
          done: blockMask(shape, s.done),
          pending: s.pending.map((g) => ({ pc: pc(g.pc), mask: blockMask(shape, g.mask) })),
        },
      };
    },
  };
}

export const lwmFactory: MechanismFactory = {
  id: 'lwm',
  level: 'block',
  summary:
    'large warp microarchitecture: the block is one large warp on one SIMT stack, in lockstep; each cycle its active threads are packed into a sub-warp (one thread per home lane)',
  source: 'seed 002 §3.4 (Narasiman et al., MICRO 2011)',
  options: [
    {
      name: 'order',
      values: ['taken-first', 'not-taken-first', 'majority-first', 'minority-first'],
      default: 'taken-first',
      doc: 'which path of a divergent branch runs first (seed 002 §3.4 does not say; as simt-stack.order)',
    },
  ],
  create: (ctx, o) =>
    createLwm(ctx as BlockContext, {
      order: (o['order'] ?? 'taken-first') as PathOrder,
    }) as Mechanism<unknown>,
};
