import type { KeySink } from '../machine/key.ts';
import {
  blockPolicy,
  compactThreads,
  mergeGroups,
  stackView,
  type BlockContext,
  type BlockFormatter,
  type BlockGroup,
  type BlockIssue,
  type BlockMechanism,
  type BlockOutcome,
} from './blockMechanism.ts';
import { onBlockView } from './blockView.ts';
import { VIRTUAL_EXIT, type Advance, type MechanismFactory, type StateView } from './mechanism.ts';
import { pushOrderBy, type PathOrder } from './simtStack.ts';
import {
  allThreads,
  countThreads,
  isEmpty,
  minus,
  noThreads,
  union,
  writeThreads,
  type ThreadMask,
} from './threadMask.ts';

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
  readonly mask: ThreadMask;
}

export interface LwmState {
  readonly stack: readonly LwmEntry[];
  /** Threads of the top entry that executed its current instruction this round. */
  readonly done: ThreadMask;
  readonly pending: readonly BlockGroup[];
}

export interface LwmOptions {
  readonly order: PathOrder;
}

export function createLwm(ctx: BlockContext, opts: LwmOptions): BlockMechanism<LwmState> {
  const shape = ctx.block;
  const none = noThreads(shape);
  /** Drops exited threads and empty entries, and pops entries that reached their RPC. */
  const settle = (stack: LwmEntry[], gone: ThreadMask): LwmEntry[] => {
    const out: LwmEntry[] = [];
    for (const e of stack) {
      const mask = minus(e.mask, gone);
      if (!isEmpty(mask)) out.push(mask === e.mask ? e : { ...e, mask });
    }
    while (out.length > 0 && out[out.length - 1]!.pc === out[out.length - 1]!.rpc) out.pop();
    return out;
  };
  const subWarp = (s: LwmState): ThreadMask => {
    const top = s.stack[s.stack.length - 1];
    if (!top || top.pc === VIRTUAL_EXIT) return none;
    return compactThreads(shape, minus(top.mask, s.done))[0] ?? none;
  };
  return {
    id: 'lwm',
    // One sub-warp at a time: nothing is chosen, so fairness per thread only asks the large warp
    // to keep issuing.
    laneFairness: true,
    policy: blockPolicy,
    init: () => ({
      stack: [{ pc: ctx.entry, rpc: VIRTUAL_EXIT, mask: allThreads(shape) }],
      done: none,
      pending: [],
    }),
    candidates(s) {
      const threads = subWarp(s);
      return isEmpty(threads) ? [] : [{ pc: s.stack[s.stack.length - 1]!.pc, threads }];
    },
    advance(s, issue: BlockIssue, outcome: BlockOutcome, exited: ThreadMask): Advance<LwmState> {
      const gone = union(outcome.exited, exited);
      const done = minus(union(s.done, issue.threads), gone);
      const pending = mergeGroups(s.pending, outcome.groups);
      // Exited threads leave every entry (as on the SIMT stack, SEMANTICS §3.2).
      const st = settle(s.stack.slice(), gone);
      const top = st[st.length - 1];
      if (top && !isEmpty(minus(top.mask, done)))
        return { kind: 'ok', state: { stack: st, done, pending } };
      // The whole large warp executed the instruction: it moves on as one SIMT stack.
      if (top && pending.length === 1) st[st.length - 1] = { ...top, pc: pending[0]!.pc };
      else if (top && pending.length > 1) {
        const ipd = ctx.ipdom(issue.pc);
        st[st.length - 1] = { ...top, pc: ipd };
        for (const g of pushOrderBy(pending, issue.pc + 1, opts.order, (g) =>
          countThreads(g.threads),
        ))
          if (g.pc !== ipd) st.push({ pc: g.pc, rpc: ipd, mask: g.threads });
      }
      return { kind: 'ok', state: { stack: settle(st, none), done: none, pending: [] } };
    },
    ready: subWarp,
    key(s, out: KeySink) {
      out.push(s.stack.length);
      for (const e of s.stack) {
        out.push(e.pc);
        out.push(e.rpc);
        writeThreads(out, shape, e.mask);
      }
      writeThreads(out, shape, s.done);
      out.push(s.pending.length);
      for (const g of s.pending) {
        out.push(g.pc);
        writeThreads(out, shape, g.threads);
      }
    },
    lanePcs(s, visit) {
      // Threads that executed the current instruction resume at their next PC; the rest at the
      // entries' PCs (the top's threads not yet done, and every entry below).
      for (let i = 0; i < s.stack.length; i++) {
        const e = s.stack[i]!;
        visit(e.pc, i === s.stack.length - 1 ? minus(e.mask, s.done) : e.mask);
      }
      for (const g of s.pending) visit(g.pc, g.threads);
    },
    view(s, fmt: BlockFormatter): StateView {
      const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
      const stack = stackView(s.stack, fmt);
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
            rows: [[fmt.threads(s.done), fmt.threads(subWarp(s))]],
          },
        ],
        data: {
          stack: stack.data,
          done: fmt.threads(s.done),
          pending: s.pending.map((g) => ({ pc: pc(g.pc), mask: fmt.threads(g.threads) })),
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
  createBlock: (ctx, o) =>
    createLwm(ctx, {
      order: (o['order'] ?? 'taken-first') as PathOrder,
    }) as BlockMechanism<unknown>,
  create: (ctx, o) =>
    onBlockView(lwmFactory.createBlock!(ctx as BlockContext, o), ctx as BlockContext),
};
