/**
 * `lcp` (seed 002 §3.11; SEMANTICS §3.7) beyond Fig. 30 (`scenarios/seed002-fig30.test.ts`): the
 * `lcp=BRANCH:POINT` header item and its errors, the unannotated mechanism against `simt-stack`,
 * exits and WARPSYNC, and laws on generated kernels with random annotations. Expected stacks are
 * derived by hand from the rules stated in `lcp.ts`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { divergentKernel, spinlockKernel } from '../../properties/arbitraries/kernels.ts';
import { loadProgram } from '../scenario/loadProgram.ts';
import { machineOf, replay, runListing, reachable } from '../testing/run.ts';
import type { LcpState } from './lcp.ts';
import { laneTraces, prefixCompatible } from './mpIpdomTesting.ts';

const verdictOf = (r: { verdict: string; kind: string | null }) =>
  r.kind ? `${r.verdict}/${r.kind}` : r.verdict;
const budget = { maxStates: 20_000, maxDepth: 2_000, timeoutMs: 10_000 };

const body = [
  '        S2R R0, SR_LANEID', // 0
  '        ISETP.LT.AND P0, PT, R0, 0x2, PT', // 1: lanes 0, 1 go to T
  '        ISETP.GT.AND P1, PT, R0, 0x7, PT', // 2: false: T's rare edge to J is not taken
  'br:',
  '   @P0  BRA T', // 3: IPDOM J (T may skip L), likely convergence point L
  '        MOV R1, 0x2', // 4
  'L:',
  '        MOV R1, 0x3', // 5
  '        BRA J', // 6
  'T:',
  '        MOV R1, 0x1', // 7
  '   @P1  BRA J', // 8
  '        BRA L', // 9
  'J:',
  '        EXIT', // 10
];

describe('the lcp=BRANCH:POINT header item (a project decision, docs/semantics.md)', () => {
  it('resolves labels and hex offsets of the kernel to PCs', () => {
    const r = loadProgram(['// @warpcheck warp-size=4 lcp=br:L', ...body].join('\n'), 'x.sass');
    expect(r.ok && [...r.value.likelyConvergence!]).toEqual([[3, 5]]);
    const h = loadProgram(
      ['// @warpcheck warp-size=4 lcp=0x0030:0x0050', ...body].join('\n'),
      'x.sass',
    );
    expect(h.ok && [...h.value.likelyConvergence!]).toEqual([[3, 5]]);
  });
  it('reports unknown names, a branch that is no BRA and malformed items at their line and column', () => {
    const errs = (header: string) => {
      const r = loadProgram(['// a comment', header, ...body].join('\n'), 'x.sass');
      return r.ok ? [] : r.error.map((d) => `${d.line}:${d.column} ${d.message}`);
    };
    // Columns are 1-based at the item: '// @warpcheck ' is 14 characters.
    expect(errs('// @warpcheck lcp=nowhere:L')).toEqual([
      "2:15 lcp=nowhere:…: 'nowhere' is no label or instruction offset of the kernel",
    ]);
    expect(errs('// @warpcheck warp-size=4 lcp=L:J')).toEqual([
      "2:27 lcp=L:…: the instruction at 'L' is MOV, not a BRA",
    ]);
    expect(errs('// @warpcheck lcp=br:0x0999')).toEqual([
      "2:15 lcp=…:0x0999: '0x0999' is no label or instruction offset of the kernel",
    ]);
    expect(errs('// @warpcheck lcp=br')[0]).toMatch(/^2:15 unknown header item 'lcp=br'/);
  });
});

describe('lcp on a small listing, step by step', () => {
  const stack = (text: string, schedule: number[]) => {
    const m = machineOf(text, 'lcp');
    const { states } = replay(m, schedule);
    return states.map(
      (s) => (m.mechanism.view(s.warps[0]!.mech, m.fmt).data as { stack: unknown[] }).stack,
    );
  };
  const e = (
    pc: string | null,
    rpc: string | null,
    lpc: string | null,
    lpos: number | null,
    mask: string,
  ) => ({
    pc,
    rpc,
    lpc,
    lpos,
    mask,
  });
  it('annotated: lanes 0,1 (T) run first and merge at L; lanes 2,3 reach L on their path and merge; L runs once with all', () => {
    const s = stack(['// @warpcheck warp-size=4 lcp=br:L', ...body].join('\n'), Array(11).fill(0));
    // The branch pushes the LCP entry (L, empty) and both paths with LPC L, LPos 1; T on top.
    expect(s[4]).toEqual([
      e('T', 'J', 'L', 1, '0011'),
      e('0x0040', 'J', 'L', 1, '1100'),
      e('L', 'J', null, null, '0000'),
      e('J', null, null, null, '1111'),
    ]);
    // T's MOV, the untaken @P1 BRA J, then BRA L: lanes 0,1 at L = their lpc: merged, popped.
    expect(s[7]).toEqual([
      e('0x0040', 'J', 'L', 1, '1100'),
      e('L', 'J', null, null, '0011'),
      e('J', null, null, null, '1111'),
    ]);
    // The other path's MOV brings lanes 2,3 to L: merged, popped; the LCP entry holds all four.
    expect(s[8]).toEqual([e('L', 'J', null, null, '1111'), e('J', null, null, null, '1111')]);
    // L's MOV and BRA J issue once with 1111; J = rpc pops the LCP entry; EXIT.
    expect(s[10]).toEqual([e('J', null, null, null, '1111')]);
    expect(s[11]).toEqual([]);
  });
  it('without the annotation the run is simt-stack: L is issued twice, once per path', () => {
    const count = (header: string, mech: string) => {
      const m = machineOf([header, ...body].join('\n'), mech);
      const { traces } = laneTraces(m, () => 0);
      return { traces, atL: traces.map((t) => t.filter((pc) => pc === 5).length) };
    };
    const plain = count('// @warpcheck warp-size=4', 'lcp');
    expect(plain.traces).toEqual(count('// @warpcheck warp-size=4', 'simt-stack').traces);
    // Each lane passes L once; the warp issues L twice unannotated (13 steps) and once annotated (11).
    expect(plain.atL).toEqual([1, 1, 1, 1]);
    const steps = (header: string) =>
      laneTraces(machineOf([header, ...body].join('\n'), 'lcp'), () => 0);
    const issued = (header: string) => {
      const m = machineOf([header, ...body].join('\n'), 'lcp');
      let s = m.initial();
      let n = 0;
      const atL: number[] = [];
      for (let t = m.successors(s); t.length > 0; t = m.successors(s)) {
        if (t[0]!.issue.pc === 5) atL.push(t[0]!.issue.mask);
        s = t[0]!.next!;
        n++;
      }
      return { n, atL };
    };
    expect(steps('// @warpcheck warp-size=4 lcp=br:L').ended).toBe(true);
    expect(issued('// @warpcheck warp-size=4')).toEqual({ n: 13, atL: [0b0011, 0b1100] });
    expect(issued('// @warpcheck warp-size=4 lcp=br:L')).toEqual({ n: 11, atL: [0b1111] });
  });
  it('a branch whose LCP is its IPDOM adds no LCP entry', () => {
    const s = stack(['// @warpcheck warp-size=4 lcp=br:J', ...body].join('\n'), [0, 0, 0, 0]);
    expect(s[4]).toEqual([
      e('T', 'J', null, null, '0011'),
      e('0x0040', 'J', null, null, '1100'),
      e('J', null, null, null, '1111'),
    ]);
  });
});

describe('lcp: exits, WARPSYNC, foreign instructions, the spinlock', () => {
  it('lanes that exit on a path leave the LCP entry too; the run terminates', () => {
    const text = [
      '// @warpcheck warp-size=4 lcp=br:L',
      '        S2R R0, SR_LANEID',
      '        ISETP.LT.AND P0, PT, R0, 0x2, PT',
      '        ISETP.EQ.AND P1, PT, R0, RZ, PT',
      'br:',
      '   @P0  BRA T',
      'L:',
      '        MOV R1, 0x3',
      '        EXIT',
      'T:',
      '   @P1  EXIT',
      '        BRA L',
    ].join('\n');
    expect(runListing(text, 'lcp', { budget }).result.verdict).toBe('terminates');
  });
  it('WARPSYNC naming lanes of a path that is not running is a violation', () => {
    const text = [
      '// @warpcheck warp-size=4 lcp=br:L',
      '        S2R R0, SR_LANEID',
      '        ISETP.LT.AND P0, PT, R0, 0x2, PT',
      'br:',
      '   @P0  BRA T',
      '        WARPSYNC 0xf',
      'L:',
      '        BRA J',
      'T:',
      '        BRA L',
      'J:',
      '        EXIT',
    ].join('\n');
    expect(runListing(text, 'lcp', { budget }).result.verdict).toBe('violation');
    expect(runListing(text, 'lcp', { budget, options: { warpsync: 'nop' } }).result.verdict).toBe(
      'terminates',
    );
  });
  it('BSYNC is a no-op by default and unsupported with foreign=reject', () => {
    const text = [
      '// @warpcheck warp-size=2',
      '        BSSY B0, J',
      'J:',
      '        BSYNC B0',
      '        EXIT',
    ].join('\n');
    expect(runListing(text, 'lcp', { budget }).result.verdict).toBe('terminates');
    expect(runListing(text, 'lcp', { budget, options: { foreign: 'reject' } }).result.verdict).toBe(
      'unsupported',
    );
  });
  // seed 000 §III: unannotated, lcp is the SIMT stack; the lock holder waits at the IPDOM.
  // Annotating the loop branch changes nothing: its only LCP candidates are inside the loop (the
  // holder never goes there) or at/after the IPDOM (no LCP entry, or one reached after the IPDOM).
  it('the spinlock family is a livelock for every warp of two or more lanes', () => {
    fc.assert(
      fc.property(spinlockKernel, ({ text, warpSize }) => {
        const v = verdictOf(runListing(text, 'lcp', { budget }).result);
        expect(v).toBe(warpSize === 1 ? 'terminates' : 'deadlock/livelock');
      }),
      { seed: 3011, numRuns: 20 },
    );
  });
});

/**
 * A generated kernel with a random `lcp=` item on one of its branches (every step of
 * `divergentKernel` is labelled L<i>, so each BRA has a label); unchanged when it has no BRA.
 */
const annotated = fc
  .tuple(divergentKernel({ forwardOnly: false }), fc.nat(), fc.nat())
  .map(([k, a, b]) => {
    const lines = k.text.split('\n');
    const labels = lines.flatMap((l, i) =>
      /^L\d+:$/.test(l) ? [[l.slice(0, -1), i] as const] : [],
    );
    const branches = labels.filter(([, i]) => /\bBRA\b/.test(lines[i + 1] ?? ''));
    if (branches.length === 0) return k;
    const br = branches[a % branches.length]![0];
    const to = labels[b % labels.length]![0];
    return { ...k, text: `// @warpcheck lcp=${br}:${to}\n${k.text}` };
  });

/**
 * Complete and disjoint on the lcp stack (invariants of `lcp.ts`); the problem or null. As on the
 * SIMT stack, the entries hold exactly the live lanes (the bottom may itself be a pair of sibling
 * paths: a divergence whose IPDOM is the bottom's own rpc replaces it); sibling paths (same rpc, neither an LCP entry
 * nor a reconvergence entry waiting at its own rpc) are disjoint; an LCP entry and the paths that
 * merge into it are pairwise disjoint; every lpos points below at the LCP entry of its lpc.
 */
function partitionProblem(s: LcpState, live: number): string | null {
  if (s.length === 0) return live === 0 ? null : 'live lanes but an empty stack';
  if (s.reduce((m, e) => m | e.mask, 0) >>> 0 !== live)
    return 'the entries do not hold exactly the live lanes';
  if (s[s.length - 1]!.mask === 0) return 'the top entry is empty';
  const isLcp = s.map((_, k) => s.some((e, j) => j > k && e.lpos === k));
  for (let k = 0; k < s.length; k++) {
    const e = s[k]!;
    if ((e.mask & ~live) >>> 0) return `entry ${k} holds an exited lane`;
    if (e.lpos >= k) return `entry ${k}: lpos ${e.lpos} is not below it`;
    if (e.lpos >= 0 && (s[e.lpos]!.pc !== e.lpc || s[e.lpos]!.lpos !== -1))
      return `entry ${k}: lpos points at no LCP entry for its lpc`;
    if (isLcp[k]) {
      let union = e.mask;
      for (let j = k + 1; j < s.length; j++)
        if (s[j]!.lpos === k) {
          if (union & s[j]!.mask) return `paths merging into entry ${k} overlap it or each other`;
          union |= s[j]!.mask;
        }
    }
    const path = (i: number) => !isLcp[i] && !s[i]!.frame && s[i]!.pc !== s[i]!.rpc;
    if (path(k))
      for (let j = k + 1; j < s.length; j++)
        if (path(j) && s[j]!.rpc === e.rpc && (s[j]!.mask & e.mask) !== 0)
          return `sibling entries ${k} and ${j} share lanes`;
  }
  return null;
}

describe('lcp laws (random annotations on generated kernels)', () => {
  it('complete and disjoint', () => {
    fc.assert(
      fc.property(annotated, ({ text }) => {
        const m = machineOf(text, 'lcp');
        for (const s of reachable(m, 1500)) {
          const [live] = m.live(s);
          expect(partitionProblem(s.warps[0]!.mech as LcpState, live!), text).toBeNull();
        }
      }),
      { seed: 20261221, numRuns: 80 },
    );
  });
  it('per-lane traces equal its (an LCP only regroups lanes)', () => {
    fc.assert(
      fc.property(annotated, ({ text }) => {
        const ref = laneTraces(machineOf(text, 'its'), () => 0, 300);
        const mine = laneTraces(machineOf(text, 'lcp'), () => 0, 300);
        if (ref.ended && mine.ended) expect(mine.traces, text).toEqual(ref.traces);
        else
          mine.traces.forEach((t, l) =>
            expect(prefixCompatible(t, ref.traces[l]!), text).toBe(true),
          );
      }),
      { seed: 20261222, numRuns: 150 },
    );
  });
  it('without annotations lcp issues exactly what simt-stack issues, under every path order', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: false }),
        fc.constantFrom('taken-first', 'not-taken-first', 'majority-first', 'minority-first'),
        ({ text }, order) => {
          const issues = (mech: string) => {
            const m = machineOf(text, mech, { options: { order } });
            let s = m.initial();
            const out: string[] = [];
            for (let i = 0; i < 200; i++) {
              const succ = m.successors(s);
              if (succ.length === 0) break;
              out.push(`${succ[0]!.issue.pc}/${succ[0]!.issue.mask}`);
              s = succ[0]!.next!;
            }
            return out;
          };
          expect(issues('lcp'), text).toEqual(issues('simt-stack'));
        },
      ),
      { seed: 20261223, numRuns: 100 },
    );
  });
});
