import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { Outcome } from '../lanes/execute.ts';
import { lanesOf } from '../lanes/values.ts';
import type { KeyWriter } from '../machine/key.ts';
import type {
  Advance,
  Formatter,
  Issue,
  Mechanism,
  MechanismContext,
  MechanismFactory,
  Policy,
  StateView,
} from './mechanism.ts';

/**
 * `its` — independent thread scheduling, the per-thread reference (SEMANTICS §3.1, seed 000 §IV):
 * every lane has its own PC; any lanes at one PC may run together.
 *
 * State: `pcs[lane]`, or -1 once the lane exited. Invariant: every live lane has exactly one PC.
 * Convergence-barrier instructions (BSSY, BSYNC, BREAK, BMOV, WARPSYNC) get their meaning with
 * the Turing issue; until then a program that uses them is `unsupported` here.
 */
export interface ItsState {
  readonly pcs: readonly number[];
}

export type ItsGrouping = 'maximal' | 'single';

export function createIts(ctx: MechanismContext, grouping: ItsGrouping): Mechanism<ItsState> {
  const w = ctx.warpSize;
  return {
    id: 'its',
    laneFairness: true,
    policy(op: Op): Policy {
      if (BARRIER_KINDS.has(op.kind) || op.kind === 'stack-op') return 'reject';
      return 'native';
    },
    init: () => ({ pcs: new Array<number>(w).fill(ctx.entry) }),
    candidates(s) {
      // SEMANTICS §3.1 (a decision): issue all ready lanes at one PC together (maximal groups);
      // `single` issues one lane at a time. Ordered by PC, then lane, so choices are stable.
      const out: Issue[] = [];
      if (grouping === 'single') {
        s.pcs.forEach((pc, l) => {
          if (pc >= 0) out.push({ pc, mask: (1 << l) >>> 0 });
        });
        return out.sort((a, b) => a.pc - b.pc);
      }
      const byPc = new Map<number, number>();
      for (let l = 0; l < s.pcs.length; l++) {
        const pc = s.pcs[l]!;
        if (pc >= 0) byPc.set(pc, ((byPc.get(pc) ?? 0) | (1 << l)) >>> 0);
      }
      for (const [pc, mask] of byPc) out.push({ pc, mask });
      return out.sort((a, b) => a.pc - b.pc);
    },
    advance(s, _issue, outcome: Outcome): Advance<ItsState> {
      const pcs = s.pcs.slice();
      for (const g of outcome.groups) for (const l of lanesOf(g.mask)) pcs[l] = g.pc;
      for (const l of lanesOf(outcome.exited)) pcs[l] = -1;
      return { kind: 'ok', state: { pcs } };
    },
    ready(s) {
      let m = 0;
      for (let l = 0; l < s.pcs.length; l++) if (s.pcs[l]! >= 0) m |= 1 << l;
      return m >>> 0;
    },
    key(s, out: KeyWriter) {
      for (const pc of s.pcs) out.push(pc);
    },
    view(s, fmt: Formatter): StateView {
      const rows = s.pcs.map((pc, l) => [String(l), pc < 0 ? 'exited' : fmt.pc(pc)]);
      return {
        tables: [{ title: 'per-lane PC', columns: ['lane', 'pc'], rows }],
        data: { pcs: s.pcs.map((pc) => (pc < 0 ? null : fmt.pc(pc))) },
      };
    },
  };
}

export const itsFactory: MechanismFactory = {
  id: 'its',
  summary: 'independent thread scheduling: per-lane PCs, the post-Volta reference semantics',
  source: 'seed 000 §IV; SEMANTICS §3.1',
  options: [
    {
      name: 'grouping',
      values: ['maximal', 'single'],
      default: 'maximal',
      doc: 'issue every ready lane at a PC together (maximal), or one lane at a time (single)',
    },
  ],
  create: (ctx, options) =>
    createIts(ctx, (options['grouping'] ?? 'maximal') as ItsGrouping) as Mechanism<unknown>,
};
