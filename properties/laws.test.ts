/**
 * Every law of the registry (`properties/laws/`) on every registered mechanism it applies to, with
 * a fixed seed and a small run count (issue 4 §5; `warpcheck check` runs the long campaigns).
 * A failure that `laws/expectations.ts` does not declare fails here, is shrunk by fast-check and
 * saved under `counterexamples/<law>/`; a declared failure that never shows fails here too.
 * Below the registry: checks kept from the earlier suite that are not laws of one mechanism.
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore, type ExploreResult } from '../model/explore/exhaustive.ts';
import type { Machine } from '../model/machine/machine.ts';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { machineOf } from '../model/testing/run.ts';
import { divergentKernel, spinlockKernel } from './arbitraries/kernels.ts';
import { LAWS, runCampaign, saveCounterexample } from './laws/index.ts';

const SEED = 20261122;
/** Kernels per law and mechanism in CI; the folder stays well under 3 minutes on 2 cores. */
const RUNS: Readonly<Record<string, number>> = {
  termination: 60,
  'no-lane-lost': 30,
  reconvergence: 40,
  warpsync: 30,
  'break-bmov': 40,
  'trace-equivalence': 60,
  'priority-independence': 30,
  'compile-preserves': 60,
  'maximal-reconvergence': 200,
};
/** Where a declared failure is rare, enough runs that it shows (else "did not occur" fails). */
const RUNS_FOR: Readonly<Record<string, number>> = { 'trace-equivalence/hanoi': 150 };
const root = join(new URL('.', import.meta.url).pathname, '..');

describe('laws × mechanisms (fixed seed)', () => {
  for (const law of LAWS)
    for (const f of MECHANISMS) {
      if (!law.appliesTo(f.id)) continue;
      it(`${law.tag} ${law.id} on ${f.id}`, () => {
        const runs = RUNS_FOR[`${law.id}/${f.id}`] ?? RUNS[law.id] ?? 30;
        const r = runCampaign(law, f.id, { runs, seed: SEED });
        const unexpected = r.counterexamples.filter((c) => c.expected.length === 0);
        if (r.unexpectedFailures > 0) {
          const c = unexpected[0]!;
          const file = saveCounterexample(
            join(root, 'counterexamples'),
            law.id,
            f.id,
            c,
            'npm test (properties/laws.test.ts)',
          );
          expect.fail(
            `${law.id} fails on ${f.id} (seed ${r.seed}, path ${c.path}, ${c.shrinks} shrinks): ${c.finding.message}\nsaved ${file}\n${c.kernel.text}\n` +
              'If this failure is expected, declare it in properties/laws/expectations.ts with its source.',
          );
        }
        expect(
          r.missing.map(
            (e) =>
              `expected failure did not occur in ${r.runs} runs: ${e.law} on ${e.mechanism}, class ${e.class} (${e.reason})`,
          ),
        ).toEqual([]);
        // The law spoke about most kernels (a law that skips everything tests nothing).
        expect(r.skipped).toBeLessThan(r.runs);
      });
    }
});

// ---- kept from the earlier suite ----

const budget = { maxStates: 20_000, maxDepth: 2_000, timeoutMs: 10_000 };
const machine = (text: string, mechanism: string, options: Record<string, string> = {}): Machine =>
  machineOf(text, mechanism, { options });
const verdictOf = (r: ExploreResult) => (r.kind ? `${r.verdict}/${r.kind}` : r.verdict);

describe('its and simt-stack on code whose lanes never communicate', () => {
  it('with loops, its terminates exactly when simt-stack does (each lane follows its own finite or infinite path)', () => {
    // P1 gives one direction; the other (the stack adds no termination) is checked here.
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false }),
        fc.constantFrom('taken-first', 'not-taken-first', 'majority-first', 'minority-first'),
        ({ text }, order) => {
          const a = explore(machine(text, 'its'), budget);
          const b = explore(machine(text, 'simt-stack', { order }), budget);
          fc.pre(a.bound === null && b.bound === null);
          expect(verdictOf(b)).toBe(verdictOf(a));
        },
      ),
      { seed: 20261125, numRuns: 60 },
    );
  });
});

describe('the spinlock family (seed 000 §III–IV)', () => {
  it('terminates under its and is a livelock on the SIMT stack under every path order — for every warp of two or more lanes', () => {
    fc.assert(
      fc.property(
        spinlockKernel,
        fc.constantFrom('taken-first', 'not-taken-first', 'majority-first', 'minority-first'),
        ({ text, warpSize }, order) => {
          expect(verdictOf(explore(machine(text, 'its'), budget))).toBe('terminates');
          const stack = verdictOf(explore(machine(text, 'simt-stack', { order }), budget));
          // One lane cannot diverge from itself: with W = 1 the lock is free whenever it is tried.
          expect(stack).toBe(warpSize === 1 ? 'terminates' : 'deadlock/livelock');
        },
      ),
      { seed: 20261126, numRuns: 30 },
    );
  });
});

describe('determinism', () => {
  it('every finding replays to the same outcome, and a second search gives the same result', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false, maxSteps: 8 }),
        fc.constantFrom(...MECHANISMS.map((m) => m.id)),
        ({ text }, mech) => {
          const m = machine(text, mech);
          const r1 = explore(m, budget);
          const r2 = explore(m, budget);
          expect({ ...r2, timeMs: 0 }).toEqual({ ...r1, timeMs: 0 });
          for (const f of r1.findings) {
            let s = m.initial();
            const keys = [m.behaviourKey(s)];
            let stopped: string | null = null;
            for (const c of f.schedule) {
              const t = m.successors(s)[c]!;
              if (t.stop) {
                stopped = t.stop.verdict;
                break;
              }
              s = t.next!;
              keys.push(m.behaviourKey(s));
            }
            if (f.loop !== null) expect(keys[keys.length - 1]).toBe(keys[f.loop]);
            else if (f.verdict === 'terminates') expect(m.status(s)).toBe('terminated');
            else if (f.kind === 'blocked') expect(m.status(s)).toBe('blocked');
            else expect(stopped).toBe(f.verdict);
          }
        },
      ),
      { seed: 20261127, numRuns: 40 },
    );
  });
});
