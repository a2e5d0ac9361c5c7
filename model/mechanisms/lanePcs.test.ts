/**
 * The `lanePcs` contract (model/mechanisms/mechanism.ts), on which the explorer's dead-value
 * reduction rests (model/machine/liveness.ts): in every reachable state every live lane is
 * reported, and a lane that a successor step issues — either half of a merged issue included —
 * issues at a PC reported for it now. One law over every registered mechanism that has
 * `lanePcs`, on generated kernels (a mechanism added later is checked without a new test).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { divergentKernel } from '../../properties/arbitraries/kernels.ts';
import { machineOf, reachable } from '../testing/run.ts';

import { MECHANISMS } from './registry.ts';

const lanesOf = (mask: number): number[] => {
  const out: number[] = [];
  for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) out.push(l);
  return out;
};

describe('lanePcs contract', () => {
  for (const f of MECHANISMS)
    it(`${f.id}: every live lane is reported, and issues next at a reported PC`, () => {
      fc.assert(
        fc.property(divergentKernel({ forwardOnly: false, maxSteps: 8 }), ({ text }) => {
          const m = machineOf(text, f.id);
          if (!m.mechanism.lanePcs) return; // explored without the reduction: nothing to keep
          for (const s of reachable(m, 500)) {
            const [live] = m.live(s);
            const at = new Map<number, Set<number>>();
            let seen = 0;
            m.mechanism.lanePcs(s.warps[0]!.mech, (pc, mask) => {
              seen |= mask;
              for (const l of lanesOf(mask)) at.set(l, (at.get(l) ?? new Set()).add(pc));
            });
            expect((live! & ~seen) >>> 0, `unreported live lanes\n${text}`).toBe(0);
            for (const t of m.successors(s))
              for (const half of [t.issue, ...(t.issue.merged ? [t.issue.merged] : [])])
                for (const l of lanesOf(half.mask))
                  expect(at.get(l)?.has(half.pc), `lane ${l} at ${half.pc}\n${text}`).toBe(true);
          }
        }),
        { seed: 20261213, numRuns: 30 },
      );
    });
});
