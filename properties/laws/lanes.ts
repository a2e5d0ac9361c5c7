/**
 * Where each lane of a warp goes next, per mechanism (for P2): read off the mechanism's state so the
 * law can check that every live lane has exactly one next position, that exited lanes have none,
 * and that the position agrees with the reference shadow (`machine/refinement.ts`). Mechanisms
 * without an adapter here get the generic part of P2 only (candidates, `lanePcs` coverage); a new
 * mechanism adds its adapter beside these.
 */
import type { HanoiState } from '../../model/mechanisms/hanoi.ts';
import { READY, type ItsState } from '../../model/mechanisms/its.ts';
import type { SimtStackState } from '../../model/mechanisms/simtStack.ts';

/** A lane's next position: a PC it issues or resumes at, or waiting at a barrier. */
export type Position = { readonly pc: number } | 'waiting';

export interface LaneAdapter {
  /**
   * Every (position, lanes) claim of the state that decides a lane's next instruction; a live
   * lane must be claimed exactly once, an exited lane never.
   */
  positions(state: unknown, warpSize: number): readonly { at: Position; mask: number }[];
  /** Mechanism-specific structural invariants (null when they hold). */
  invariants?(state: unknown, live: number, warpSize: number): string | null;
}

const its: LaneAdapter = {
  positions(state) {
    const s = state as ItsState;
    return s.pcs.flatMap((pc, l) =>
      pc < 0 ? [] : [{ at: s.wait[l] === READY ? { pc } : ('waiting' as const), mask: 1 << l }],
    );
  },
};

/**
 * SIMT stack (seed 002 §2.3; SEMANTICS §3.2): a lane goes next where the topmost entry holding it
 * says; below a call frame, entries resume at the return PC. The claims are the top-most entry of
 * each lane (entries below it hold it again as reconvergence entries).
 */
const simtStack: LaneAdapter = {
  positions(state) {
    const s = state as SimtStackState;
    const out: { at: Position; mask: number }[] = [];
    let claimed = 0;
    for (let i = s.length - 1; i >= 0; i--) {
      const e = s[i]!;
      const mine = (e.mask & ~claimed) >>> 0;
      if (mine) out.push({ at: { pc: e.pc }, mask: mine });
      claimed |= e.mask;
      // Inside a frame, lanes appear once from the top down to their first frame (the invariant
      // of simtStack.ts); entries below a frame are not next positions of the frame's lanes.
    }
    return out;
  },
  invariants(state, live) {
    const s = state as SimtStackState;
    let union = 0;
    for (const e of s) {
      if (e.mask === 0) return 'an empty stack entry';
      if ((e.mask & ~live) >>> 0)
        return `an entry holds exited lanes ${((e.mask & ~live) >>> 0).toString(2)}`;
      union |= e.mask;
    }
    if (union >>> 0 !== live >>> 0)
      return `the stack covers ${union.toString(2)}, live lanes are ${live.toString(2)}`;
    const top = s[s.length - 1];
    if (top && !top.frame && top.pc === top.rpc)
      return 'the top entry sits at its own reconvergence PC (it should have popped)';
    return null;
  },
};

/**
 * Hanoi (seed 000 §VII; SEMANTICS §3.4): WS entries, the waiting mask and the finished mask
 * partition the warp; finished lanes leave every B register; WS never exceeds W entries; the top
 * REC entry is never ready to reconverge after a step.
 */
const hanoi: LaneAdapter = {
  positions(state) {
    const s = state as HanoiState;
    return [
      ...s.ws.map((e) => ({ at: { pc: e.pc }, mask: e.mask })),
      ...(s.waiting ? [{ at: 'waiting' as const, mask: s.waiting }] : []),
    ];
  },
  invariants(state, live, W) {
    const h = state as HanoiState;
    const full = W >= 32 ? 0xffffffff : (1 << W) - 1;
    if (h.ws.length > W) return `WS holds ${h.ws.length} entries, more than W = ${W}`;
    if (h.waiting & h.finished) return 'a lane is both waiting and finished';
    if ((full & ~h.finished) >>> 0 !== live >>> 0)
      return `finished ${h.finished.toString(2)} is not the exited lanes`;
    for (const e of h.ws) if (e.mask === 0) return 'an empty WS entry';
    for (let x = 0; x < h.b.length; x++)
      if (h.b[x]! & h.finished) return `B${x} holds finished lanes (seed 000 §VII-A)`;
    const top = h.rec[h.rec.length - 1];
    if (top && (h.valid >>> top.reg) & 1 && (h.b[top.reg]! & ~h.finished & ~h.waiting) >>> 0 === 0)
      return `the top REC entry (B${top.reg}) could reconverge but did not (seed 000 §VII-B)`;
    return null;
  },
};

export const LANE_ADAPTERS: Readonly<Record<string, LaneAdapter>> = {
  its,
  'simt-stack': simtStack,
  hanoi,
};
