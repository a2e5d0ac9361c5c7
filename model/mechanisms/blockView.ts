import type { Outcome } from '../lanes/execute.ts';
import type { BlockContext, BlockGroup, BlockIssue, BlockMechanism } from './blockMechanism.ts';
import type { Formatter, Issue, Mechanism } from './mechanism.ts';
import { formatThreads, fromBlockView, noThreads, toBlockView } from './threadMask.ts';

/**
 * A block mechanism on the block view (K·W ≤ 32, `machine/machineSetup.ts`): the K·W threads as
 * one row of lanes, thread t in lane t, so a lane mask is the 32-bit block-view mask
 * (`threadMask.ts` `toBlockView`). Every mask crossing the interface is converted, nothing else:
 * the rules, the states and their keys are the block mechanism's own (issue 10 keeps runs at
 * K·W ≤ 32 exactly as they were).
 */
export function onBlockView<S>(bm: BlockMechanism<S>, ctx: BlockContext): Mechanism<S> {
  const shape = ctx.block;
  /** The issues of a candidate list, made once per list (the mechanisms share lists between calls). */
  const issuesOf = new WeakMap<readonly BlockIssue[], readonly Issue[]>();
  const toIssue = (i: BlockIssue): Issue => ({ pc: i.pc, mask: toBlockView(shape, i.threads) });
  /** The empty set, shared: most steps exit no thread. */
  const none = noThreads(shape);
  const threadsOf = (m: number) => (m === 0 ? none : fromBlockView(shape, m));
  const toGroup = (g: { pc: number; mask: number }): BlockGroup => ({
    pc: g.pc,
    threads: threadsOf(g.mask),
  });
  return {
    id: bm.id,
    laneFairness: bm.laneFairness,
    policy: (op) => bm.policy(op),
    init: () => bm.init(),
    candidates(s) {
      const list = bm.candidates(s);
      let out = issuesOf.get(list);
      if (!out) issuesOf.set(list, (out = list.map(toIssue)));
      return out;
    },
    advance: (s, issue: Issue, outcome: Outcome, exited: number) =>
      bm.advance(
        s,
        { pc: issue.pc, threads: fromBlockView(shape, issue.mask) },
        { groups: outcome.groups.map(toGroup), exited: threadsOf(outcome.exited) },
        threadsOf(exited),
      ),
    ready: (s) => toBlockView(shape, bm.ready(s)),
    key: (s, out) => bm.key(s, out),
    lanePcs: (s, visit) => bm.lanePcs(s, (pc, threads) => visit(pc, toBlockView(shape, threads))),
    view: (s, fmt: Formatter) =>
      bm.view(s, { pc: fmt.pc, threads: (m) => formatThreads(shape, m) }),
  };
}
