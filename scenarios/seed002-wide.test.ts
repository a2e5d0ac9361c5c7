/**
 * The block mechanisms past 32 threads (issue 10): `tbc`, `dwf` and `lwm` on blocks of two warps
 * of 32 lanes (64 threads), on the block machine (`model/machine/blockMachine.ts`). Every
 * expected issue below is derived by hand from seed 002 §3.2–3.4 and the rules of
 * docs/semantics.md "Block mechanisms" (the derivations are in the comments); none is copied from
 * the code's output. Thread sets are written `word 1:word 0` in hex (home warp 1 first, as the
 * block masks print warp 0 on the right).
 */
import { describe, expect, it } from 'vitest';
import { readReg } from '../model/lanes/laneData.ts';
import type { BlockWarp } from '../model/machine/blockMachine.ts';
import type { Machine, MachineState } from '../model/machine/machine.ts';
import { machineOf, runListing } from '../model/testing/run.ts';
import { readFileSync } from 'node:fs';

const spinlock = readFileSync(new URL('spinlock.sass', import.meta.url), 'utf8');

/** A two-way branch: threads with R1 = 1 go to C, the others to B; D is the IPDOM. */
const branch = (toC: readonly number[]) => `// @warpcheck warp-size=32 warps=2 R1@${toC.join(',')}=1
\tFunction : wide
A:
        ISETP.NE.AND P0, PT, R1, RZ, PT ;
   @P0  BRA C ;
B:
        MOV R2, 0x1 ;
        BRA D ;
C:
        MOV R2, 0x2 ;
D:
        EXIT ;
`;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const hex = (w: number) => (w >>> 0).toString(16).padStart(8, '0');

/** Follows the first successor until the run ends: the issues as `pc-label word1:word0`. */
function firstSchedule(m: Machine): { issues: string[]; final: MachineState } {
  const issues: string[] = [];
  let s = m.initial();
  for (let i = 0; i < 100 && m.status(s) === 'running'; i++) {
    const t = m.successors(s)[0]!;
    if (t.stop) throw new Error(`${t.stop.verdict}: ${t.stop.message}`);
    const w = t.issue.threads!;
    issues.push(`${m.fmt.pc(t.issue.pc)} ${hex(w[1]!)}:${hex(w[0]!)}`);
    s = t.next!;
  }
  expect(m.status(s)).toBe('terminated');
  return { issues, final: s };
}

/** R2 of every thread at the end: 2 for the threads that ran C, 1 for B's (per home warp). */
function r2(m: Machine, s: MachineState): number[] {
  const homes = (s.warps[0]!.mech as BlockWarp).homes;
  return range(0, 64).map((t) => readReg(homes[t >> 5]!, m.ctx.layout, t & 31, 2));
}

// Threads to C: home warp 0's lanes 0-15 (threads 0-15) and home warp 1's lanes 8-23 (threads
// 40-55): lanes 8-15 hold two threads of C, lanes 24-31 two of B.
const mixed = [...range(0, 16), ...range(40, 56)];
const expectedR2 = range(0, 64).map((t) => (mixed.includes(t) ? 2 : 1));

describe('tbc past 32 threads (seed 002 §3.3)', () => {
  it('compacts each path into warps that keep home lanes, and restores the home warps at D', () => {
    // Hand derivation: A is not divergent, so the home warps 00000000:ffffffff and
    // ffffffff:00000000 run independently; the first one's issue stays first (the scheduler's
    // order is kept) until it waits at the branch. When both executed it the block synchronises:
    // the top becomes the entry at the IPDOM D, B (fall-through) is pushed, then C (taken first).
    // C's threads are compacted per home lane, lowest home warp first: warp 0 takes lanes 0-15
    // from home warp 0 (0000ffff) and lanes 16-23 from home warp 1 (00ff0000); lanes 8-15's second
    // threads (home warp 1, 0000ff00) form warp 1. B likewise: lanes 16-31 of home warp 0
    // (ffff0000) with lanes 0-7 of home warp 1 (000000ff), then lanes 24-31 of home warp 1
    // (ff000000). Each warp of C reaches D (the RPC) and waits; B's first warp runs MOV and
    // BRA D before the second starts (it stays first). At D the full block compacts to its home
    // warps ("the threads are reassigned to their initial warps").
    const m = machineOf(branch(mixed), 'tbc');
    const { issues, final } = firstSchedule(m);
    expect(issues).toEqual([
      'A 00000000:ffffffff',
      '0x0010 00000000:ffffffff',
      'A ffffffff:00000000',
      '0x0010 ffffffff:00000000',
      'C 00ff0000:0000ffff',
      'C 0000ff00:00000000',
      'B 000000ff:ffff0000',
      '0x0030 000000ff:ffff0000',
      'B ff000000:00000000',
      '0x0030 ff000000:00000000',
      'D 00000000:ffffffff',
      'D ffffffff:00000000',
    ]);
    // Each thread ran its own path on its own home warp's lanes.
    expect(r2(m, final)).toEqual(expectedR2);
  });
  it('gives the spinlock a verdict at K = 4, W = 32 (issue 10 done-when): a livelock', () => {
    // As at K·W ≤ 32 (bench/RESULTS.md): the block synchronises at the loop's branch, so the
    // lock holder cannot leave the loop's entry while the others spin; lwm likewise runs the
    // large warp in lockstep. The rules do not depend on the block's size.
    for (const id of ['tbc', 'lwm']) {
      const r = runListing(spinlock, id, { launch: { warps: 4, warpSize: 32 } }).result;
      expect(`${r.findings[0]?.verdict}/${r.findings[0]?.kind}`, id).toBe('deadlock/livelock');
    }
  });
});

describe('dwf past 32 threads (seed 002 §3.2)', () => {
  it('regroups threads of both home warps at one PC into one warp, home lanes kept', () => {
    // Threads to C: the odd lanes of home warp 0 and the even lanes of home warp 1.
    // Hand derivation (docs/semantics.md "Block mechanisms", dwf; schedule = any, the first
    // candidate of the pool ordered by PC, then by threads as block numbers): the pool starts
    // as the home warps (00000000:ffffffff first). Home warp 0's ISETP is no branch: it moves on to
    // 0x0010, so home warp 1 (still at A) is first. Then home warp 0's branch regroups: its even
    // lanes start a warp at B (55555555 in word 0), its odd lanes one at C. Home warp 1's branch:
    // each thread joins the first warp at its PC whose slot for its home lane is free — its odd
    // lanes fill B's warp (aaaaaaaa:55555555), its even lanes C's (55555555:aaaaaaaa): two warps of
    // 32 threads instead of four half-empty ones ("if divergence is dealt with across different
    // warps we can get a better lane utilization"). B (PC 0x0020) and its BRA D (0x0030) come
    // before C (0x0040); at D the pool orders the two warps by block number (word 1 first).
    const toC = [
      ...range(0, 32).filter((t) => t % 2 === 1),
      ...range(32, 64).filter((t) => t % 2 === 0),
    ];
    const m = machineOf(branch(toC), 'dwf');
    const { issues, final } = firstSchedule(m);
    expect(issues).toEqual([
      'A 00000000:ffffffff',
      'A ffffffff:00000000',
      '0x0010 00000000:ffffffff',
      '0x0010 ffffffff:00000000',
      'B aaaaaaaa:55555555',
      '0x0030 aaaaaaaa:55555555',
      'C 55555555:aaaaaaaa',
      'D 55555555:aaaaaaaa',
      'D aaaaaaaa:55555555',
    ]);
    expect(r2(m, final)).toEqual(range(0, 64).map((t) => (toC.includes(t) ? 2 : 1)));
  });
});

describe('lwm past 32 threads (seed 002 §3.4)', () => {
  it('packs a 64-thread large warp into sub-warps, one thread per home lane, in lockstep', () => {
    // Hand derivation: each instruction issues once per sub-warp until every active thread of
    // the large warp executed it; a sub-warp is the first warp of `compact` (per home lane the
    // lowest home warp's thread). A and the branch: the two home warps. C (taken first):
    // 0000ffff from home warp 0 and 00ff0000 from home warp 1, then the second threads of lanes
    // 8-15 (0000ff00 of home warp 1). B: ffff0000 with 000000ff, then ff000000. D: the home warps.
    const m = machineOf(branch(mixed), 'lwm');
    expect(m.successors(m.initial())).toHaveLength(1);
    const { issues, final } = firstSchedule(m);
    expect(issues).toEqual([
      'A 00000000:ffffffff',
      'A ffffffff:00000000',
      '0x0010 00000000:ffffffff',
      '0x0010 ffffffff:00000000',
      'C 00ff0000:0000ffff',
      'C 0000ff00:00000000',
      'B 000000ff:ffff0000',
      'B ff000000:00000000',
      '0x0030 000000ff:ffff0000',
      '0x0030 ff000000:00000000',
      'D 00000000:ffffffff',
      'D ffffffff:00000000',
    ]);
    expect(r2(m, final)).toEqual(expectedR2);
  });
});

describe('fairness per thread past 32 threads (formed warps as places)', () => {
  it('dwf: a warp that spins on a flag another home warp sets does not livelock', () => {
    // Home warp 1 (threads 32-63) sets the flag; home warp 0 spins until it reads it. Under
    // dwf's `any` schedule both warps may issue, and weak fairness per thread (seed 002 §3.2;
    // docs/semantics.md "Block mechanisms") lets no cycle leave the setter ready forever: every
    // fair run ends. Fairness per formed warp must see the setter's warp as a thread set of its
    // own; a search that counted the block as one fair entity would report the spin as a livelock.
    const text = `// @warpcheck warp-size=32 warps=2 mem[0x100]=0
\tFunction : flag
        S2R R0, SR_TID.X ;
        MOV R2, 0x100 ;
        MOV R3, 0x1 ;
        ISETP.GE.AND P1, PT, R0, 0x20, PT ;
   @P1  BRA SET ;
SPIN:
        ATOMS.ADD R1, [R2], RZ ;
        ISETP.EQ.AND P0, PT, R1, RZ, PT ;
   @P0  BRA SPIN ;
        EXIT ;
SET:
        ATOMS.EXCH RZ, [R2], R3 ;
        EXIT ;
`;
    const r = runListing(text, 'dwf').result;
    expect(r.findings.map((f) => f.verdict)).toEqual(['terminates']);
  });
});
