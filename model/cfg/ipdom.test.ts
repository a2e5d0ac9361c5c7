/**
 * Instruction-level reconvergence points. Expected PCs are derived by hand from the layouts in
 * `testing/examples.ts` (block-level derivations in `buildCfg.test.ts`).
 */
import { describe, expect, it } from 'vitest';
import { buildCfg } from './buildCfg.ts';
import { ipdomOf, ipdomTable } from './ipdom.ts';
import { VIRTUAL_EXIT as X } from './programCfg.ts';
import * as ex from './testing/examples.ts';

const table = (cfg: ReturnType<typeof buildCfg>) => [...ipdomTable(cfg)];

describe('ipdomOf / ipdomTable', () => {
  it('seed 000 Fig. 1: the if/else branch reconverges at the join', () => {
    const cfg = buildCfg(ex.ifElse);
    // @P0 BRA 5 at pc 2: both paths (3-4 and 5) meet at pc 6, the join.
    expect(ipdomOf(cfg, 2)).toBe(6);
    // Inside a block the next instruction: pc 0 → 1, pc 6 → 7. The EXIT at 7 → X.
    expect(ipdomOf(cfg, 0)).toBe(1);
    expect(ipdomOf(cfg, 6)).toBe(7);
    expect(ipdomOf(cfg, 7)).toBe(X);
    // Branch-like: the conditional BRA at 2 and the BRA over the else at 4 (→ its block b1
    // [3,5) has IPDOM b3, pc 6). The final EXIT is unconditional: not listed.
    expect(table(cfg)).toEqual([
      [2, 6],
      [4, 6],
    ]);
  });

  it('seed 002 Fig. 6–8: A → G, B → E, the back edge in G → the instruction after it', () => {
    const cfg = buildCfg(ex.nestedIfInLoop);
    // Fig. 9a: RPC G (pc 14) for the entries pushed at A's branch (pc 5).
    expect(ipdomOf(cfg, 5)).toBe(14);
    // Fig. 9b: RPC E (pc 12) for the entries pushed at B's branch (pc 8).
    expect(ipdomOf(cfg, 8)).toBe(12);
    // @P3 BRA A at pc 16: lanes leaving the loop and lanes looping all pass pc 17 before X.
    expect(ipdomOf(cfg, 16)).toBe(17);
    // BRA E at 10 → E (12); BRA G at 12 → G (14).
    expect(table(cfg)).toEqual([
      [5, 14],
      [8, 12],
      [10, 12],
      [12, 14],
      [16, 17],
    ]);
  });

  it('seed 000 Fig. 3 spinlock: the backward branch reconverges just after the loop', () => {
    const cfg = buildCfg(ex.spinlock);
    // Blocks b0 [0,1), b1 [1,4) → b1, b2; b2 [4,7) → X. ipdom(b1) = b2, which starts at 4.
    expect(ipdomOf(cfg, 3)).toBe(4);
    expect(table(cfg)).toEqual([[3, 4]]);
  });

  it('an early exit inside an if moves the outer IPDOM to the virtual exit', () => {
    const cfg = buildCfg(ex.earlyExit);
    // b0 [0,2) → b3, b1; b1 [2,4) → X, b2; b2 [4,5) → b3; b3 [5,7) → X.
    // pdom(b1) = {b1} ∪ ({X} ∩ {b2, b3, X}) = {b1, X}; pdom(b0) = {b0} ∪ ({b3, X} ∩ {b1, X}) =
    // {b0, X}: the path through @P1 EXIT bypasses the join, so the IPDOM of pc 1 is X.
    expect(ipdomOf(cfg, 1)).toBe(X);
    // The conditional EXIT at 3 is branch-like; its IPDOM is X too.
    expect(table(cfg)).toEqual([
      [1, X],
      [3, X],
    ]);
  });

  it('a RET in a subroutine ends paths like EXIT', () => {
    const cfg = buildCfg(ex.subroutine);
    // In the subroutine, @P0 BRA 8 at pc 6: both paths meet at the RET (pc 8).
    expect(ipdomOf(cfg, 6)).toBe(8);
    // The CALL at pc 1 is not branch-like; its IPDOM is the instruction after it.
    expect(ipdomOf(cfg, 1)).toBe(2);
    // The padding BRA 4 at pc 4 cannot reach the exit: defined as X.
    expect(table(cfg)).toEqual([
      [4, X],
      [6, 8],
    ]);
  });

  it('consecutive EXITs: the conditional one is listed, with IPDOM X', () => {
    expect(table(buildCfg(ex.consecutiveExits))).toEqual([[1, X]]);
  });

  it('a BRX without targets: conservative IPDOM X for it and for the branch before it', () => {
    const cfg = buildCfg(ex.brxUnknown);
    // The BRX block goes only to X; the @P0 BRA at 1 then has pdom {b0, X} (see buildCfg.test).
    expect(table(cfg)).toEqual([
      [1, X],
      [2, X],
    ]);
  });

  it('padding and an endless spin: no path to the exit, IPDOM defined as X', () => {
    expect(table(buildCfg(ex.padding))).toEqual([[2, X]]);
    const spin = buildCfg(ex.spinForever);
    // b0 [0,1) → b1; b1 [1,4) → b1, b2; b2 [4,5) → b1; b3 [5,6) EXIT unreachable.
    // No block of b0..b2 reaches X: every instruction in them has IPDOM X, even mid-block.
    expect(table(spin)).toEqual([
      [3, X],
      [4, X],
    ]);
    expect(ipdomOf(spin, 1)).toBe(X);
    expect(spin.blocks.map((b) => b.reachesExit)).toEqual([false, false, false, true]);
  });

  it('irreducible loop: the entry branch reconverges at the block that leaves the cycle', () => {
    const cfg = buildCfg(ex.irreducible);
    // b0 [0,2) → b2, b1; b1 [2,4) → b2; b2 [4,6) → b1, b3; b3 [6,7) → X.
    // Every path from b0 passes b2 (b1's only successor is b2), so ipdom(b0) = b2 at pc 4;
    // ipdom(b2) = b3 at pc 6.
    expect(table(cfg)).toEqual([
      [1, 4],
      [5, 6],
    ]);
  });

  it('a pc outside every function is a programmer error', () => {
    expect(() => ipdomOf(buildCfg(ex.ifElse), 99)).toThrow(RangeError);
  });
});
