/**
 * The reference of law P9: a small interpreter of the *structured* program (not of its SASS)
 * under maximal reconvergence, as the Vulkan/WebGPU reconvergence tests simulate it: the lanes
 * that reach a statement together run it together; after an if/else or switch, the lanes of
 * every path that completed normally run on together; a loop iteration's lanes (those that
 * neither broke nor returned) run its continue block together; lanes leave through break,
 * continue and return. Each lane's log gets the active mask at every ballot and `STORE_TAG + k`
 * at every `store(k)` (`ballotLog.ts`).
 */
import { STORE_TAG, type LaneLog } from './ballotLog.ts';
import type { BallotProgram, Block, Cond, Stmt, Trip } from './program.ts';

/** How the lanes of a mask left a block. */
interface Exits {
  normal: number;
  broke: number;
  continued: number;
  returned: number;
}

/** Iteration counts past this are a generator bug (every loop is bounded or elects). */
const MAX_ITERATIONS = 10_000;

const lanes = (mask: number, w: number): number[] => {
  const out: number[] = [];
  for (let l = 0; l < w; l++) if ((mask >>> l) & 1) out.push(l);
  return out;
};

/** The per-lane logs of `p` under maximal reconvergence (one warp, every lane active at start). */
export function referenceLogs(p: BallotProgram): LaneLog[] {
  const w = p.warpSize;
  const logs: number[][] = Array.from({ length: w }, () => []);
  const full = w >= 32 ? 0xffffffff : (1 << w) - 1;

  const holds = (c: Cond, mask: number, counter: number | null): number => {
    switch (c.kind) {
      case 'mask':
        return (mask & c.mask) >>> 0;
      case 'lt':
        return lanes(mask, w).reduce((m, l) => (l < c.n ? m | (1 << l) : m), 0) >>> 0;
      case 'eq-counter':
        return counter !== null && counter < w && (mask >>> counter) & 1 ? (1 << counter) >>> 0 : 0;
      case 'uniform':
        return c.value ? mask : 0;
      case 'elect':
        return mask === 0 ? 0 : (mask & -mask) >>> 0;
    }
  };
  const trips = (t: Trip, l: number): number => (t.kind === 'uniform' ? t.n : (l & t.mask) + t.add);

  function block(b: Block, mask: number, counter: number | null): Exits {
    const out: Exits = { normal: mask, broke: 0, continued: 0, returned: 0 };
    for (const s of b) {
      if (out.normal === 0) break;
      const e = stmt(s, out.normal, counter);
      out.normal = e.normal;
      out.broke = (out.broke | e.broke) >>> 0;
      out.continued = (out.continued | e.continued) >>> 0;
      out.returned = (out.returned | e.returned) >>> 0;
    }
    return out;
  }

  function stmt(s: Stmt, mask: number, counter: number | null): Exits {
    const none = { normal: 0, broke: 0, continued: 0, returned: 0 };
    switch (s.kind) {
      case 'ballot':
        for (const l of lanes(mask, w)) logs[l]!.push(mask >>> 0);
        return { ...none, normal: mask };
      case 'store':
        for (const l of lanes(mask, w)) logs[l]!.push(STORE_TAG + s.value);
        return { ...none, normal: mask };
      case 'break':
        return { ...none, broke: mask };
      case 'continue':
        return { ...none, continued: mask };
      case 'return':
        return { ...none, returned: mask };
      case 'call': {
        const e = block(p.functions[s.fn]!, mask, null);
        // Returned lanes go on after the call, with those that ran to the end.
        return { ...none, normal: (e.normal | e.returned) >>> 0 };
      }
      case 'if': {
        const t = holds(s.cond, mask, counter);
        const f = (mask & ~t) >>> 0;
        const a = t ? block(s.then, t, counter) : none;
        const b = f ? block(s.else, f, counter) : none;
        return merge(a, b);
      }
      case 'switch': {
        let acc: Exits = { ...none, normal: 0 };
        let rest = mask;
        for (const c of s.cases) {
          const m =
            lanes(mask, w).reduce((x, l) => ((l & 3) === c.value ? x | (1 << l) : x), 0) >>> 0;
          rest = (rest & ~m) >>> 0;
          if (m) acc = merge(acc, block(c.body, m, counter));
        }
        return merge(acc, { ...none, normal: rest });
      }
      case 'loop': {
        let active = mask;
        let done = 0;
        let returned = 0;
        for (let i = 0; active !== 0; i++) {
          if (i > MAX_ITERATIONS) throw new Error('reference: a loop does not end');
          if (s.trip !== null) {
            const t = s.trip;
            const stay =
              lanes(active, w).reduce((x, l) => (i < trips(t, l) ? x | (1 << l) : x), 0) >>> 0;
            done = (done | (active & ~stay)) >>> 0;
            active = stay;
            if (active === 0) break;
          }
          const e = block(s.body, active, i);
          done = (done | e.broke) >>> 0;
          returned = (returned | e.returned) >>> 0;
          active = (e.normal | e.continued) >>> 0;
          if (s.continueBallot && active !== 0)
            for (const l of lanes(active, w)) logs[l]!.push(active >>> 0);
        }
        return { ...none, normal: done, returned };
      }
    }
  }

  const merge = (a: Exits, b: Exits): Exits => ({
    normal: (a.normal | b.normal) >>> 0,
    broke: (a.broke | b.broke) >>> 0,
    continued: (a.continued | b.continued) >>> 0,
    returned: (a.returned | b.returned) >>> 0,
  });

  block(p.main, full >>> 0, null);
  return logs;
}
