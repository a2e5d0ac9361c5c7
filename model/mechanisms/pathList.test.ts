/**
 * Properties of the path lists (seed 001 §2), over generated lane-divergent kernels (fixed seeds):
 * - complete and disjoint: "at any time, each thread of the warp belongs to one and only one path"
 *   (§2), in every reachable state of every path list;
 * - gcn: "the stack depth is thus bound by log2(n) for n threads per warp" (§2.2), per region;
 * - sorted: after every step no two entries share (call depth, PC) and the list is in order (§2.4);
 * - the spinlock: "depth-first traversal may keep scheduling the thread on the waiting loop, and the
 *   lock never gets released. Breadth-first traversal ... ensures fairness across paths and avoids
 *   such deadlocks" (§2.3).
 * Each property was checked once against a planted bug (the report lists them).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printProgram } from '../isa/printProgram.ts';
import type { Machine, MachineState } from '../machine/machine.ts';
import { compileGcn } from '../compile/gcn.ts';
import { divergentKernel, spinlockKernel } from '../../properties/arbitraries/kernels.ts';
import { load, machineOf, reachable, runListing } from '../testing/run.ts';
import { explore } from '../explore/exhaustive.ts';
import { randomKernel } from '../explore/randomKernels.ts';
import { regionDepths } from './gcn.ts';
import { partitionProblem, type Path, type PathListState } from './pathList.ts';
import { orderOf, type SortOrder } from './sorted.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SORTED_ORDERS: readonly SortOrder[] = ['depth-minpc', 'minpc', 'majority', 'minority'];
const MECHS: readonly [string, Record<string, string>][] = [
  ['dfs-minpc', {}],
  ['bfs', {}],
  ['hybrid', {}],
  ['hybrid', { loops: 'depth-first' }],
  ['gcn', {}],
  ['gcn', { tie: 'higher-pc' }],
  ...SORTED_ORDERS.map((order): [string, Record<string, string>] => ['sorted', { order }]),
];

const listOf = (s: MachineState): PathListState => s.warps[0]!.mech as PathListState;
const live = (m: Machine, s: MachineState) => m.live(s)[0]!;

/** The kernel lowered for gcn (FORK/JOIN placed by `compileGcn`), as listing text. */
function forGcn(text: string): string {
  const header = text.split('\n').filter((l) => l.includes('@warpcheck'));
  const r = compileGcn(load(text).program);
  if (!r.ok) throw new Error('compileGcn failed');
  return [...header, printProgram(r.value)].join('\n');
}

/** Runs `check` on every reachable state (bounded) of a kernel on every path list. */
function everyState(
  text: string,
  check: (m: Machine, s: MachineState, mech: string, opts: Record<string, string>) => void,
  mechs = MECHS,
): void {
  for (const [mech, options] of mechs) {
    const texts = mech === 'gcn' ? [text, forGcn(text)] : [text];
    for (const t of texts) {
      const m = machineOf(t, mech, { options });
      for (const s of reachable(m, 400)) check(m, s, mech, options);
    }
  }
}

const KERNELS = fc.oneof(
  divergentKernel({ forwardOnly: true, maxSteps: 8 }),
  divergentKernel({ forwardOnly: false, maxSteps: 8 }),
);
const RUNS = { seed: 1001, numRuns: 40 };

describe('path lists: complete and disjoint (seed 001 §2)', () => {
  it('in every reachable state, every live lane is in exactly one path', () => {
    fc.assert(
      fc.property(KERNELS, ({ text }) => {
        everyState(text, (m, s, mech) => {
          const problem = partitionProblem(listOf(s), live(m, s));
          expect(problem, `${mech}`).toBeNull();
        });
      }),
      RUNS,
    );
  });

  it('lanePcs reports every live lane at the PC where the reference (its) has it', () => {
    // The dead-value reduction's contract (mechanism.ts): each lane resumes at a reported PC. The
    // reference state, driven by the same steps, holds each lane's real PC.
    fc.assert(
      fc.property(KERNELS, ({ text }) => {
        everyState(text, (m, s, mech) => {
          const ws = s.warps[0]!;
          const reported = new Map<number, number>();
          m.mechanism.lanePcs!(ws.mech, (pc, mask) => {
            for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) reported.set(l, pc);
          });
          const lv = live(m, s);
          for (let l = 0; l < m.launch.warpSize; l++)
            if ((lv >>> l) & 1) expect(reported.get(l), `${mech} lane ${l}`).toBe(ws.ref!.pcs[l]);
        });
      }),
      RUNS,
    );
  });

  it('no path list breaks refinement of the reference on these kernels', () => {
    fc.assert(
      fc.property(divergentKernel({ forwardOnly: true, maxSteps: 8 }), ({ text }) => {
        for (const [mech, options] of MECHS) {
          const t = mech === 'gcn' ? forGcn(text) : text;
          const { result } = runListing(t, mech, { options, budget: { maxStates: 2000 } });
          expect(result.verdict, `${mech}\n${t}`).toBe('terminates');
        }
      }),
      { seed: 1002, numRuns: 25 },
    );
  });
});

describe('gcn: at most ⌈log2 W⌉ saved paths per region (seed 001 §2.2)', () => {
  it('holds in every reachable state, with and without FORK/JOIN', () => {
    fc.assert(
      fc.property(KERNELS, ({ text, warpSize }) => {
        const bound = Math.ceil(Math.log2(warpSize));
        everyState(
          text,
          (_m, s) => {
            for (const d of regionDepths(listOf(s))) expect(d).toBeLessThanOrEqual(bound);
          },
          [
            ['gcn', {}],
            ['gcn', { tie: 'higher-pc' }],
          ],
        );
      }),
      RUNS,
    );
  });

  it('the bound is reached: W=4, splits 2/2 then 1/1 hold 2 = log2 4 saved paths (by hand)', () => {
    // Lanes 0,1 branch to X, lanes 2,3 fall through: a tie, the lower PC (the fall-through) runs
    // and X (0011) is saved. Then lane 2 branches to Y and lane 3 falls through: again a tie,
    // Y (0100) is saved on top: 2 saved paths, the bound of §2.2 for 4 threads.
    const text = `// @warpcheck warp-size=4 R1@0,1=1 R2@2=1
	Function : k
        ISETP.NE.AND P0, PT, R1, RZ, PT ;
   @P0  BRA \`(X) ;
        ISETP.NE.AND P1, PT, R2, RZ, PT ;
   @P1  BRA \`(Y) ;
        EXIT ;
X:
        EXIT ;
Y:
        EXIT ;
`;
    const m = machineOf(text, 'gcn');
    const depths = reachable(m).map((s) => Math.max(...regionDepths(listOf(s))));
    expect(Math.max(...depths)).toBe(2);
  });
  it('minority first is what keeps the bound: a 1/3, 1/2, 1/1 cascade (by hand)', () => {
    // Lane 0 to X; of lanes 1,2,3 the odd ones (1,3) to Y; of those lane 3 to Z. Minority first:
    // lane 0 runs (1 saved) and exits; lane 2 runs (1 saved) and exits; lanes 1 and 3 tie (1 saved):
    // at most 1. Majority first would hold 3 > log2 4.
    const text = `// @warpcheck warp-size=4
	Function : k
        S2R R0, SR_LANEID ;
        ISETP.EQ.AND P2, PT, R0, RZ, PT ;
        LOP3.LUT R8, R0, 0x1, RZ, 0xc0, !PT ;
        ISETP.NE.AND P0, PT, R8, RZ, PT ;
        LOP3.LUT R9, R0, 0x2, RZ, 0xc0, !PT ;
        ISETP.NE.AND P1, PT, R9, RZ, PT ;
   @P2  BRA \`(X) ;
   @P0  BRA \`(Y) ;
        EXIT ;
Y:
   @P1  BRA \`(Z) ;
        EXIT ;
Z:
        EXIT ;
X:
        EXIT ;
`;
    const m = machineOf(text, 'gcn');
    const depths = reachable(m).map((s) => Math.max(...regionDepths(listOf(s))));
    expect(Math.max(...depths)).toBe(1);
  });
});

describe('sorted: no two entries share (call depth, PC), and the list is in order (seed 001 §2.4)', () => {
  const inOrder = (order: SortOrder, st: PathListState): string | null => {
    const cmp = orderOf(order);
    const all: Path[] = [...(st.active ? [st.active] : []), ...(st.list as Path[])];
    for (let i = 0; i + 1 < all.length; i++) {
      const a = all[i]!;
      const b = all[i + 1]!;
      if (cmp(a, b) >= 0) return `entries ${i} and ${i + 1} out of order or equal`;
    }
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++)
        if (all[i]!.pc === all[j]!.pc && all[i]!.depth === all[j]!.depth)
          return `entries ${i} and ${j} share (depth, pc)`;
    return null;
  };
  it('after every step, for every order', () => {
    fc.assert(
      fc.property(KERNELS, ({ text }) => {
        everyState(
          text,
          (_m, s, _mech, opts) => {
            expect(inOrder(opts['order'] as SortOrder, listOf(s))).toBeNull();
          },
          SORTED_ORDERS.map((order) => ['sorted', { order }]),
        );
      }),
      RUNS,
    );
  });

  it('a called path runs before its caller: deepest call first (by hand)', () => {
    // Lane 0 calls F; lanes 1-3 skip the call and jump ahead to L (a lower PC than F). Simty's
    // order runs the callee (depth 1) first; min PC alone runs L first.
    const text = `// @warpcheck warp-size=4 R1@0=1
	Function : k
        ISETP.NE.AND P0, PT, R1, RZ, PT ;
        MOV R20, \`(BACK) ;
   @!P0 BRA \`(L) ;
        CALL \`(F) ;
BACK:
        BRA \`(L) ;
L:
        EXIT ;
F:
        MOV R5, 0x1 ;
        RET R20 ;
`;
    const firstAfterSplit = (order: SortOrder) => {
      const m = machineOf(text, 'sorted', { options: { order } });
      const st = reachable(m).map(listOf);
      const split = st.find((x) => x.list.length > 0)!;
      return m.fmt.pc(split.active!.pc);
    };
    // After the guarded BRA: lane 0 at the CALL (pc 3), lanes 1-3 at L (pc 5): both orders run the
    // CALL (smaller PC); after the CALL: F (depth 1, pc 6) against L (depth 0, pc 5).
    expect(firstAfterSplit('depth-minpc')).toBe('0x0030');
    const m = machineOf(text, 'sorted');
    const states = reachable(m).map(listOf);
    expect(
      states.some(
        (x) =>
          x.active && m.fmt.pc(x.active.pc) === 'F' && x.active.depth === 1 && x.list.length === 1,
      ),
    ).toBe(true);
    const mp = machineOf(text, 'sorted', { options: { order: 'minpc' } });
    const mpStates = reachable(mp).map(listOf);
    expect(
      mpStates.some((x) => x.active && mp.fmt.pc(x.active.pc) === 'F' && x.list.length === 1),
    ).toBe(false);
  });
});

describe('the spinlock (seed 001 §2.3; scenarios/spinlock.sass)', () => {
  const spin = readFileSync(
    join(new URL('.', import.meta.url).pathname, '..', '..', 'scenarios', 'spinlock.sass'),
    'utf8',
  );
  const verdictOf = (text: string, mech: string, options: Record<string, string> = {}) => {
    const { result } = runListing(text, mech, { options });
    return result.kind ? `${result.verdict}/${result.kind}` : result.verdict;
  };
  it('bfs terminates: breadth-first is fair across paths', () => {
    expect(verdictOf(spin, 'bfs')).toBe('terminates');
  });
  it('depth-first orders keep scheduling the waiting loop: dfs-minpc and sorted livelock', () => {
    expect(verdictOf(spin, 'dfs-minpc')).toBe('deadlock/livelock');
    expect(verdictOf(spin, 'sorted')).toBe('deadlock/livelock');
    expect(verdictOf(spin, 'sorted', { order: 'minpc' })).toBe('deadlock/livelock');
    expect(verdictOf(spin, 'sorted', { order: 'majority' })).toBe('deadlock/livelock');
  });
  it('gcn (depth-first, minority first): the last two spinners tie 1/1, and the tie rule decides', () => {
    // By hand: 4 lanes, 1 wins each round; splits 1/3 and 1/2 run the lock holder first (the
    // minority), the 1/1 split runs the lower PC — the waiting loop — by default.
    expect(verdictOf(spin, 'gcn')).toBe('deadlock/livelock');
    expect(verdictOf(spin, 'gcn', { tie: 'higher-pc' })).toBe('terminates');
    expect(verdictOf(spin, 'sorted', { order: 'minority' })).toBe('deadlock/livelock');
  });
  it('on every spinlock variant: bfs terminates, dfs-minpc livelocks from 2 lanes on', () => {
    fc.assert(
      fc.property(spinlockKernel, ({ text, warpSize }) => {
        expect(verdictOf(text, 'bfs')).toBe('terminates');
        expect(verdictOf(text, 'dfs-minpc')).toBe(
          warpSize >= 2 ? 'deadlock/livelock' : 'terminates',
        );
      }),
      { seed: 1003, numRuns: 25 },
    );
  });
});

describe('lanePcs: the dead-value reduction keeps every verdict (DESIGN.md: sound reductions)', () => {
  it('reduced and plain searches agree on random kernels, on every path list', () => {
    const budget = { maxStates: 5_000, maxDepth: 5_000, timeoutMs: 10_000 };
    let compared = 0;
    let smaller = 0;
    fc.assert(
      fc.property(
        randomKernel({ maxLength: 10 }),
        fc.constantFrom(...MECHS),
        (k, [mech, options]) => {
          const texts = mech === 'gcn' ? [k.text, forGcn(k.text)] : [k.text];
          for (const t of texts) {
            const m = machineOf(t, mech, { options });
            // Acceleration off on both sides: chains skip most of the states that differ only in
            // dead values, and this law is about the dead-value reduction alone.
            const off = { accelerate: false };
            const plain = explore(m, budget, undefined, { reduce: { ...off, deadValues: false } });
            const reduced = explore(m, budget, undefined, { reduce: { ...off, deadValues: true } });
            if (plain.bound !== null || reduced.bound !== null) continue;
            compared++;
            if (reduced.states < plain.states) smaller++;
            const v = (r: typeof plain) =>
              `${r.verdict}/${r.kind ?? ''}/${r.findings[0]?.property ?? ''}`;
            expect(v(reduced), `${mech}\n${t}`).toBe(v(plain));
          }
        },
      ),
      { seed: 1004, numRuns: 100 },
    );
    expect(compared).toBeGreaterThan(70);
    expect(smaller).toBeGreaterThan(5);
  });
});
