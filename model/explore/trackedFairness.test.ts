/**
 * The tracked-warp fairness rule on hand-built quotient graphs (docs/semantics.md §15,
 * `trackedFairness.ts`): the permutations on the edges decide which real warp an index stands for.
 */
import { describe, expect, it } from 'vitest';
import { findFairCycles, type Graph } from './fairCycles.ts';
import { identityPerm } from './warpSymmetry.ts';

/** σ = (0 1): warp 0 of the successor is warp 1 of the representative and back. */
const SWAP = (1 << 0) | (0 << 3);

/**
 * One quotient state s, both warps enabled, one edge s → s issuing warp 0 with permutation
 * `perm` (a single step kind: step 0 belongs to warp 0).
 */
const selfLoop = (perm: number | null): Graph => ({
  expanded: 1,
  warps: 2,
  edgeStart: Int32Array.from([0, 1]),
  edgeTo: Int32Array.from([0]),
  edgeStep: Int32Array.from([0]),
  stepWarp: Uint8Array.from([0]),
  stepMask: Uint32Array.from([1]),
  stepGroup: Uint16Array.from([0]),
  stepUnknown: Uint8Array.from([0]),
  enabledWarps: Uint8Array.from([0b11]),
  readyLanes: null,
  readyPlaces: null,
  edgePerm: perm === null ? null : Int32Array.from([perm]),
});

describe('fairness per tracked warp (Emerson–Sistla thread tracking)', () => {
  it('a step that swaps the warps moves each real warp in turn: a fair cycle', () => {
    // Product: (s,0) → (s,1) → (s,0), one component; at (s,0) the edge issues the tracked warp
    // (index 0), so the tracked warp is taken. Really: warp A steps and lands at index 1, then
    // warp B (now at index 0) steps, and so on — both warps move forever.
    const r = findFairCycles(selfLoop(SWAP));
    expect(r.count).toBe(1);
    // The lasso's turn must be fair to a warp starting at index 0 and to one starting at index 1
    // (`trackedLasso`): the first step issues the first; the second, after the swap, stands at
    // index 0 and is issued by a second step. Two steps.
    expect(r.lasso).toEqual({ entry: 0, cycle: [0, 0] });
  });

  it('the same loop without the swap starves warp 1: no fair cycle', () => {
    // Identity σ: product (s,0) → (s,0) and (s,1) → (s,1); the second component's tracked warp
    // (index 1) is enabled there and never issued.
    expect(findFairCycles(selfLoop(identityPerm(2))).count).toBe(0);
  });

  it('per index, ignoring the permutation, the swap loop looks unfair (the planted bug)', () => {
    expect(findFairCycles(selfLoop(null)).count).toBe(0);
  });
});
