/**
 * Blocks, edges, reachability and immediate (post-)dominators of the worked examples. Every
 * expected value is derived by hand in the comment above it, from the PC layouts in
 * `testing/examples.ts`, never from the code's output.
 *
 * Notation: `[start, end) → succs` per block, block ids in PC order; X is the virtual exit (-1).
 */
import { describe, expect, it } from 'vitest';
import { buildCfg } from './buildCfg.ts';
import { VIRTUAL_EXIT as X, type ProgramCfg } from './programCfg.ts';
import * as ex from './testing/examples.ts';

/** `[start, end, succs]` per block: the shape the hand derivations give. */
const shape = (cfg: ProgramCfg) => cfg.blocks.map((b) => [b.start, b.end, b.succs]);
const field = <K extends 'preds' | 'idom' | 'ipdom' | 'reachable' | 'reachesExit'>(
  cfg: ProgramCfg,
  k: K,
) => cfg.blocks.map((b) => b[k]);

describe('buildCfg: seed 000 Fig. 1 if/else', () => {
  const cfg = buildCfg(ex.ifElse);
  it('cuts four blocks', () => {
    // Leaders: 0 (start), 3 (after the BRA at 2), 5 (target of 2), 6 (target of 4; also after
    // the BRA at 4 is 5). b0 [0,3) ends in @P0 BRA 5: taken b2, falls to b1. b1 [3,5) ends in
    // BRA 6: b3. b2 [5,6) falls into b3. b3 [6,8) ends in EXIT: X.
    expect(shape(cfg)).toEqual([
      [0, 3, [2, 1]],
      [3, 5, [3]],
      [5, 6, [3]],
      [6, 8, [X]],
    ]);
    expect(field(cfg, 'preds')).toEqual([[], [0], [0], [1, 2]]);
    expect(cfg.blockOf).toEqual([0, 0, 0, 1, 1, 2, 3, 3]);
    expect(cfg.functions[0]!.exitPreds).toEqual([3]);
  });
  it('dominators and post-dominators', () => {
    // b0 dominates all; b3 has two predecessors b1, b2 whose only common dominator is b0.
    expect(field(cfg, 'idom')).toEqual([null, 0, 0, 0]);
    // Both paths from b0 pass b3 (the join), then X.
    expect(field(cfg, 'ipdom')).toEqual([3, 3, 3, X]);
    expect(cfg.warnings).toEqual([]);
    expect(cfg.notes).toEqual([]);
  });
});

describe('buildCfg: seed 002 Fig. 6–8 nested if in a loop', () => {
  const cfg = buildCfg(ex.nestedIfInLoop);
  it('blocks A..G and the exit block', () => {
    // Leaders {0,6,9,11,12,13,14,17}: A=b0 [0,6), B=b1 [6,9), C=b2 [9,11), D=b3 [11,12),
    // E=b4 [12,13), F=b5 [13,14), G=b6 [14,17), b7 [17,18) the EXIT.
    // A: @P1 BRA F, falls to B. B: @P2 BRA D, falls to C. C: BRA E. D falls into E. E: BRA G.
    // F falls into G. G: @P3 BRA A, falls to b7. b7: X.
    expect(shape(cfg)).toEqual([
      [0, 6, [5, 1]],
      [6, 9, [3, 2]],
      [9, 11, [4]],
      [11, 12, [4]],
      [12, 13, [6]],
      [13, 14, [6]],
      [14, 17, [0, 7]],
      [17, 18, [X]],
    ]);
    expect(field(cfg, 'preds')).toEqual([[6], [0], [1], [1], [2, 3], [0], [4, 5], [6]]);
  });
  it('dominators: A over all, B over C, D, E', () => {
    // E is reached from C and D, both only through B: idom(E) = B. G from E and F: idom A.
    expect(field(cfg, 'idom')).toEqual([null, 0, 1, 1, 1, 0, 0, 6]);
  });
  it('post-dominators match the reconvergence PCs of Fig. 9', () => {
    // Fig. 9: the entries pushed at A's branch reconverge at G, those at B's branch at E.
    // A → G, B → E, C → E, D → E, E → G, F → G, G → b7 (G's only paths to the exit pass b7), b7 → X.
    expect(field(cfg, 'ipdom')).toEqual([6, 4, 4, 4, 6, 6, 7, X]);
  });
});

describe('buildCfg: subroutine inside the function (CALL and RET)', () => {
  const cfg = buildCfg(ex.subroutine);
  it('CALL falls through; its target is a leader and a root', () => {
    // Leaders: 0; 2 (after CALL); 5 (CALL target, also after BRA 4); 4 (after EXIT, target of 4);
    // 7 (after @P0 BRA at 6); 8 (its target). b0 [0,2) CALL → b1; b1 [2,4) EXIT → X;
    // b2 [4,5) BRA 4 → itself; b3 [5,7) @P0 BRA 8 → b5, falls to b4; b4 [7,8) → b5; b5 RET → X.
    expect(shape(cfg)).toEqual([
      [0, 2, [1]],
      [2, 4, [X]],
      [4, 5, [2]],
      [5, 7, [5, 4]],
      [7, 8, [5]],
      [8, 9, [X]],
    ]);
    expect(cfg.calls).toEqual([{ from: 1, to: 5, sameFunction: true, returns: true }]);
    expect(cfg.functions[0]!.roots).toEqual([0, 3]);
  });
  it('the subroutine is reachable, the padding is not', () => {
    // Roots b0, b3: b0 reaches b1; b3 reaches b4, b5. Nothing reaches b2 but itself.
    expect(field(cfg, 'reachable')).toEqual([true, true, false, true, true, true]);
    // b2 only loops on itself: it cannot reach X. Everything else ends in EXIT or RET.
    expect(field(cfg, 'reachesExit')).toEqual([true, true, false, true, true, true]);
    // b3 is a root: its idom is the virtual entry (null). b4, b5 are dominated by b3.
    expect(field(cfg, 'idom')).toEqual([null, 0, null, null, 3, 3]);
    // RET goes to X: b3's two paths meet at b5 (the RET); b2 has no path, IPDOM defined as X.
    expect(field(cfg, 'ipdom')).toEqual([1, X, X, 5, 5, X]);
    expect(cfg.notes).toHaveLength(1);
    expect(cfg.notes[0]).toContain('(pc 4)');
  });
});

describe('buildCfg: CALLs that never return are jumps', () => {
  it('a conditional CALL as a loop exit', () => {
    // Leaders 0 (start; target of BRA 0), 3 (after the CALL), 4 (CALL target; after BRA).
    // b0 [0,3), b1 [3,4), b2 [4,6). From pc 4 only EXIT is reachable, no RET: the CALL is a
    // branch. b0: @P6 CALL 4 → b2 (taken), b1 (not taken); b1: BRA 0 → b0; b2 → X.
    const cfg = buildCfg(ex.callAsLoopExit);
    expect(shape(cfg)).toEqual([
      [0, 3, [2, 1]],
      [3, 4, [0]],
      [4, 6, [X]],
    ]);
    expect(cfg.calls).toEqual([{ from: 2, to: 4, sameFunction: true, returns: false }]);
    expect(cfg.functions[0]!.roots).toEqual([0]);
    // The loop b0 ⇄ b1 leaves through b2: every block reaches X; ipdom(b0) = b2 (b1 only
    // returns to b0), ipdom(b1) = b0.
    expect(field(cfg, 'ipdom')).toEqual([2, 0, X]);
    expect(field(cfg, 'idom')).toEqual([null, 0, 0]);
    expect(cfg.notes).toEqual([
      'kernel: no RET is reachable from the CALL target kernel+0x0040 (pc 4); CALLs to it are treated as jumps',
    ]);
  });
  it('a caller of a never-returning callee never returns either', () => {
    // Blocks: b0 [0,1), b1 [1,2), b2 [2,3), b3 [3,4), b4 [4,5), b5 [5,6), b6 [6,8).
    // Round 1: B (pc 6) reaches only EXIT → never returns; A (pc 3) still reaches its RET
    // through the CALL's fall-through. Round 2: A's CALL is now a jump to B, so A reaches no
    // RET. Round 3: nothing changes. Final: b0 → b3, b3 → b6; b1 and b4 are unreachable.
    const cfg = buildCfg(ex.noReturnChain);
    expect(shape(cfg)).toEqual([
      [0, 1, [3]],
      [1, 2, [X]],
      [2, 3, [2]],
      [3, 4, [6]],
      [4, 5, [X]],
      [5, 6, [5]],
      [6, 8, [X]],
    ]);
    expect(cfg.calls.map((c) => c.returns)).toEqual([false, false]);
    expect(cfg.functions[0]!.roots).toEqual([0]);
    expect(field(cfg, 'reachable')).toEqual([true, false, false, true, false, false, true]);
    expect(field(cfg, 'ipdom')).toEqual([3, X, X, 6, X, X, X]);
  });
});

describe('buildCfg: exits', () => {
  it('two consecutive EXITs after a conditional one', () => {
    // Leaders 0, 2 (after @P0 EXIT), 3 (after EXIT). b0 [0,2) → X and falls to b1; b1 → X;
    // b2 → X, unreachable (b1's EXIT never falls through).
    const cfg = buildCfg(ex.consecutiveExits);
    expect(shape(cfg)).toEqual([
      [0, 2, [X, 1]],
      [2, 3, [X]],
      [3, 4, [X]],
    ]);
    expect(field(cfg, 'reachable')).toEqual([true, true, false]);
    expect(field(cfg, 'ipdom')).toEqual([X, X, X]);
    expect(cfg.functions[0]!.exitPreds).toEqual([0, 1, 2]);
  });
  it('padding loop and NOPs after the final EXIT: unreachable, no warning', () => {
    // b0 [0,2) EXIT → X; b1 [2,3) BRA 2 → b1; b2 [3,5) NOPs fall off the end → X (no warning:
    // unreachable). b1 cannot reach X: its IPDOM is defined as X and a note says so.
    const cfg = buildCfg(ex.padding);
    expect(shape(cfg)).toEqual([
      [0, 2, [X]],
      [2, 3, [1]],
      [3, 5, [X]],
    ]);
    expect(field(cfg, 'reachable')).toEqual([true, false, false]);
    expect(field(cfg, 'reachesExit')).toEqual([true, false, true]);
    expect(field(cfg, 'ipdom')).toEqual([X, X, X]);
    expect(cfg.warnings).toEqual([]);
    expect(cfg.notes).toEqual([
      'kernel: blocks at kernel+0x0020 (pc 2) cannot reach the exit (infinite loop or padding); their IPDOM is defined as the virtual exit',
    ]);
  });
  it('BRX without targets: edge to X, unknownSuccessors, a warning naming its pc', () => {
    // Leaders 0, 2 (after @P0 BRA), 4 (its target), 3 (after BRX). b0 [0,2) → b3, b1;
    // b1 [2,3) BRX → X only; b2 [3,4) → b3 (only the unknown BRX could lead here); b3 → X.
    const cfg = buildCfg(ex.brxUnknown);
    expect(shape(cfg)).toEqual([
      [0, 2, [3, 1]],
      [2, 3, [X]],
      [3, 4, [3]],
      [4, 6, [X]],
    ]);
    expect(cfg.blocks.map((b) => b.unknownSuccessors)).toEqual([false, true, false, false]);
    expect(cfg.functions[0]!.unknownSuccessors).toBe(true);
    expect(field(cfg, 'reachable')).toEqual([true, true, false, true]);
    // b1 → X; b0: pdom(b3) ∩ pdom(b1) = {b3, X} ∩ {b1, X} = {X}.
    expect(field(cfg, 'ipdom')).toEqual([X, X, 3, X]);
    expect(cfg.warnings).toHaveLength(1);
    expect(cfg.warnings[0]).toContain('(pc 2)');
    expect(cfg.warnings[0]).toContain('BRX');
    expect(cfg.notes.some((n) => n.includes('unknown targets'))).toBe(true);
  });
});

describe('buildCfg: several functions', () => {
  const cfg = buildCfg(ex.twoFunctions);
  it('a target in another function and a fall-through past the end go to X, with warnings', () => {
    // f: b0 [0,2) @P0 BRA 4 (in g) → X, falls to b1; b1 [2,3) falls off f → X.
    // g: b2 [3,4) CALL 0 falls through to b3; b3 [4,5) EXIT → X.
    expect(shape(cfg)).toEqual([
      [0, 2, [X, 1]],
      [2, 3, [X]],
      [3, 4, [3]],
      [4, 5, [X]],
    ]);
    expect(cfg.blocks.map((b) => b.fn)).toEqual([0, 0, 1, 1]);
    expect(cfg.functions.map((f) => f.blocks)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(cfg.functions.map((f) => f.roots)).toEqual([[0], [2]]);
    expect(cfg.calls).toEqual([{ from: 3, to: 0, sameFunction: false, returns: true }]);
    expect(cfg.warnings).toHaveLength(2);
    expect(cfg.warnings[0]).toContain('f+0x0010 (pc 1)');
    expect(cfg.warnings[0]).toContain('outside the function');
    expect(cfg.warnings[1]).toContain('f+0x0020 (pc 2)');
    expect(cfg.warnings[1]).toContain('past the end');
  });
});
