/**
 * The convergence-barrier laws (seed 000 §V–VII; SEMANTICS §2, §3.1, §3.4) — P2 no lane lost, P3
 * BSYNC release, P4 WARPSYNC, P5 BREAK/BMOV, P7 — run in `laws.test.ts` on every mechanism with
 * the options of `LAW_OPTIONS`. Here the same laws run on Hanoi under a small B-register budget
 * (4 registers, so seed 000 Fig. 5's BMOV spills are what keeps code within it), a configuration
 * the registry's defaults do not cover. Fixed seeds, bounded runs.
 */
import { describe, expect, it } from 'vitest';
import { findLaw, runCampaign } from './laws/index.ts';

const campaign = (id: string, sources?: string[]) =>
  runCampaign(findLaw(id)!, 'hanoi', {
    runs: 25,
    seed: 20261133,
    options: { registers: '4' },
    ...(sources ? { sources } : {}),
  });

describe('hanoi with 4 B registers', () => {
  for (const id of ['no-lane-lost', 'break-bmov', 'reconvergence', 'warpsync'])
    it(`${id} holds`, () => {
      const r = campaign(id);
      const c = r.counterexamples.find((x) => x.expected.length === 0);
      expect(c ? `${c.finding.message}\n${c.kernel.text}` : null).toBeNull();
      expect(r.missing).toEqual([]);
    });

  it('priority-independence fails: a WARPSYNC takes a B register the compiler allocated (finding)', () => {
    // Found by P7 (counterexamples/priority-independence/hanoi-302f2104.json): with 4 registers
    // even the highest free one (warpsync-alloc=highest) is B3, which the compiled code uses for a
    // region on the other path. Taken-first runs the WARPSYNC path first, its register is then
    // overwritten by that BSSY, and the warp deadlocks; majority order runs the region first and
    // terminates. Hanoi allocates WARPSYNC registers at run time (seed 000 §VII-B), the compiler
    // allocates BSSY registers statically: the two can clash whenever registers are scarce.
    const r = campaign('priority-independence', ['turing']);
    expect(r.unexpectedFailures).toBe(1);
    const c = r.counterexamples[0]!;
    expect(c.finding.message).toMatch(/order=taken-first gives deadlock\/blocked/);
    expect(c.kernel.text).toMatch(/WARPSYNC/);
    expect(c.kernel.text).toMatch(/BSSY B3/);
  });
});
