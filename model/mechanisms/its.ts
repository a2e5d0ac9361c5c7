import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { Outcome } from '../lanes/execute.ts';
import type { KeyWriter } from '../machine/key.ts';
import type {
  Advance,
  Formatter,
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
      const out: { pc: number; mask: number }[] = [];
      const pcs = s.pcs;
      if (grouping === 'single') {
        pcs.forEach((pc, l) => {
          if (pc >= 0) out.push({ pc, mask: (1 << l) >>> 0 });
        });
        return out.sort((a, b) => a.pc - b.pc);
      }
      // The explorer's innermost loop: group lanes by PC without a Map, then insertion-sort the
      // (few) groups by PC.
      for (let l = 0; l < pcs.length; l++) {
        const pc = pcs[l]!;
        if (pc < 0) continue;
        let i = 0;
        while (i < out.length && out[i]!.pc !== pc) i++;
        if (i < out.length) out[i]!.mask = (out[i]!.mask | (1 << l)) >>> 0;
        else {
          out.push({ pc, mask: (1 << l) >>> 0 });
          for (let j = out.length - 1; j > 0 && out[j - 1]!.pc > pc; j--) {
            const t = out[j]!;
            out[j] = out[j - 1]!;
            out[j - 1] = t;
          }
        }
      }
      return out;
    },
    advance(s, _issue, outcome: Outcome): Advance<ItsState> {
      const pcs = s.pcs.slice();
      const groups = outcome.groups;
      for (let i = 0; i < groups.length; i++) {
        const g = groups[i]!;
        for (let m = g.mask; m !== 0; m &= m - 1) pcs[31 - Math.clz32(m & -m)] = g.pc;
      }
      for (let m = outcome.exited; m !== 0; m &= m - 1) pcs[31 - Math.clz32(m & -m)] = -1;
      return { kind: 'ok', state: { pcs } };
    },
    ready(s) {
      let m = 0;
      for (let l = 0; l < s.pcs.length; l++) if (s.pcs[l]! >= 0) m |= 1 << l;
      return m >>> 0;
    },
    key(s, out: KeyWriter) {
      const pcs = s.pcs;
      for (let l = 0; l < pcs.length; l++) out.push(pcs[l]!);
    },
    lanePcs(s, visit) {
      const pcs = s.pcs;
      for (let l = 0; l < pcs.length; l++) if (pcs[l]! >= 0) visit(pcs[l]!, 1 << l);
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
