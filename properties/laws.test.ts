/**
 * Laws every mechanism of this release must obey, on generated kernels (DESIGN.md: reusable law
 * checks applied to every mechanism). Fixed seeds and bounded run counts keep CI short.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explore, type ExploreResult } from '../model/explore/exhaustive.ts';
import type { Machine, MachineState } from '../model/machine/machine.ts';
import type { SimtStackState } from '../model/mechanisms/simtStack.ts';
import type { ItsState } from '../model/mechanisms/its.ts';
import { machineOf } from '../model/testing/run.ts';
import { divergentKernel, spinlockKernel } from './arbitraries/kernels.ts';

const budget = { maxStates: 20_000, maxDepth: 2_000, timeoutMs: 10_000 };

/** A machine for a generated listing (the shared test helper; every problem fails the test). */
const machine = (text: string, mechanism: string, options: Record<string, string> = {}): Machine =>
  machineOf(text, mechanism, { options });

const verdictOf = (r: ExploreResult) => (r.kind ? `${r.verdict}/${r.kind}` : r.verdict);

/** Runs always taking choice 0 until the run ends (terminating, lane-independent programs only). */
function runToEnd(m: Machine, maxSteps = 10_000): MachineState {
  let s = m.initial();
  for (let i = 0; i < maxSteps; i++) {
    const succ = m.successors(s);
    if (succ.length === 0) return s;
    const t = succ[0]!;
    if (!t.next) throw new Error(`run stopped: ${t.stop?.message}`);
    s = t.next;
  }
  throw new Error('run did not end');
}

/** Every state reachable within `limit`, breadth-first. */
function reachable(m: Machine, limit = 3000): MachineState[] {
  const seen = new Map<string, MachineState>();
  const queue = [m.initial()];
  seen.set(m.key(queue[0]!), queue[0]!);
  for (let i = 0; i < queue.length && seen.size < limit; i++)
    for (const t of m.successors(queue[i]!))
      if (t.next) {
        const k = m.key(t.next);
        if (!seen.has(k)) {
          seen.set(k, t.next);
          queue.push(t.next);
        }
      }
  return queue;
}

describe('law: no lane lost or duplicated (seed 001 §2 "complete and disjoint")', () => {
  it('simt-stack: entries are non-empty, hold no exited lane, and cover every live lane', () => {
    fc.assert(
      fc.property(divergentKernel({ forwardOnly: false, maxSteps: 8 }), ({ text }) => {
        const m = machine(text, 'simt-stack');
        for (const s of reachable(m)) {
          const [live] = m.live(s);
          const stack = s.warps[0]!.mech as SimtStackState;
          let union = 0;
          for (const e of stack) {
            expect(e.mask).not.toBe(0);
            expect((e.mask & ~live!) >>> 0).toBe(0);
            union |= e.mask;
          }
          expect(union >>> 0).toBe(live);
          // Paths pushed above a reconvergence entry are disjoint from one another.
          const top = stack[stack.length - 1];
          if (top) expect((top.mask & ~live!) >>> 0).toBe(0);
        }
      }),
      { seed: 20261122, numRuns: 60 },
    );
  });
  it('its: a lane has a PC exactly when it has not exited', () => {
    fc.assert(
      fc.property(divergentKernel({ forwardOnly: false, maxSteps: 8 }), ({ text }) => {
        const m = machine(text, 'its');
        for (const s of reachable(m, 1500)) {
          const [live] = m.live(s);
          const pcs = (s.warps[0]!.mech as ItsState).pcs;
          pcs.forEach((pc, l) => expect(pc >= 0).toBe(((live! >>> l) & 1) === 1));
        }
      }),
      { seed: 20261123, numRuns: 60 },
    );
  });
});

describe('law: lanes that never communicate agree across mechanisms', () => {
  it('on loop-free kernels both terminate with the same registers in every lane', () => {
    fc.assert(
      fc.property(divergentKernel({ forwardOnly: true }), ({ text }) => {
        const a = machine(text, 'its');
        const b = machine(text, 'simt-stack');
        expect(verdictOf(explore(a, budget))).toBe('terminates');
        expect(verdictOf(explore(b, budget))).toBe('terminates');
        expect(runToEnd(a).warps[0]!.data.regs).toEqual(runToEnd(b).warps[0]!.data.regs);
      }),
      { seed: 20261124, numRuns: 80 },
    );
  });
  it('with loops, its terminates exactly when simt-stack does (each lane follows its own finite or infinite path)', () => {
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
      { seed: 20261125, numRuns: 80 },
    );
  });
});

describe('law: the spinlock family (seed 000 §III–IV)', () => {
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
      { seed: 20261126, numRuns: 40 },
    );
  });
});

describe('law: determinism', () => {
  it('every finding replays to the same outcome, and a second search gives the same result', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false, maxSteps: 8 }),
        fc.constantFrom('its', 'simt-stack'),
        ({ text }, mech) => {
          const m = machine(text, mech);
          const r1 = explore(m, budget);
          const r2 = explore(m, budget);
          expect({ ...r2, timeMs: 0 }).toEqual({ ...r1, timeMs: 0 });
          for (const f of r1.findings) {
            let s = m.initial();
            const keys = [m.key(s)];
            let stopped: string | null = null;
            for (const c of f.schedule) {
              const t = m.successors(s)[c]!;
              if (t.stop) {
                stopped = t.stop.verdict;
                break;
              }
              s = t.next!;
              keys.push(m.key(s));
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
