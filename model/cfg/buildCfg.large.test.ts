/**
 * Listings of real size (~10k instructions): no recursion overflows, time stays near-linear.
 * Expected values are derived by hand (induction over the PC) in the comments.
 */
import { describe, expect, it } from 'vitest';
import { buildCfg } from './buildCfg.ts';
import { ipdomOf, ipdomTable } from './ipdom.ts';
import { VIRTUAL_EXIT } from './programCfg.ts';
import { ins, kernel, op, p, tgt, type Ins } from './testing/programs.ts';

describe('large programs', () => {
  it('a 10k-deep chain of forward branches', () => {
    // pc i < n-2: @P0 BRA i+2; pc n-2: IADD3; pc n-1: EXIT. Every instruction is a block.
    // pdom(n-1) = {n-1, X}; pdom(n-2) = {n-2, n-1, X}; pdom(n-3) = {n-3} ∪ pdom(n-1) ∩ pdom(n-2)
    // = {n-3, n-1, X}; and by induction pdom(i) = {i, n-1, X} for i ≤ n-3 (the successors i+1
    // and i+2 have different own elements). So every branch reconverges at the EXIT, pc n-1.
    const n = 10_000;
    const body: Ins[] = [];
    for (let i = 0; i < n - 2; i++) body.push(ins('BRA', [tgt(i + 2)], { guard: p(0) }));
    body.push(op(), ins('EXIT'));
    const t0 = performance.now();
    const cfg = buildCfg(kernel(...body));
    const table = ipdomTable(cfg);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(cfg.blocks).toHaveLength(n);
    expect(table.size).toBe(n - 2);
    for (const [, ipdom] of table) expect(ipdom).toBe(n - 1);
    expect(ipdomOf(cfg, n - 1)).toBe(VIRTUAL_EXIT);
    expect(cfg.warnings).toEqual([]);
  });

  it('a thousand nested loops', () => {
    // pcs 0..m-1: headers (plain); pc m + j: @P0 BRA m-1-j, the latch of the loop headed at
    // m-1-j; pc 2m: EXIT. Leaders: every target 0..m-1 and every pc after a branch, m+1..2m;
    // pc m follows a plain instruction, so block m-1 is [m-1, m+1): the innermost header is its
    // own latch. Block id = pc up to m-1, pc-1 from m+1 on.
    // Loop of header h = m-1-j: pcs h..m+j, blocks h..m+j-1, 2j+1 blocks; latch block m+j-1.
    // Loop j's parent is loop j+1 (header one lower); the outermost (header 0) has none.
    const m = 1_000;
    const body: Ins[] = [];
    for (let i = 0; i < m; i++) body.push(op());
    for (let j = 0; j < m; j++) body.push(ins('BRA', [tgt(m - 1 - j)], { guard: p(0) }));
    body.push(ins('EXIT'));
    const t0 = performance.now();
    const cfg = buildCfg(kernel(...body));
    expect(performance.now() - t0).toBeLessThan(10_000);
    const f = cfg.functions[0]!;
    expect(f.loops).toHaveLength(m);
    f.loops.forEach((loop, i) => {
      // Loops are listed by header pc: loop i has header i, j = m-1-i, latch block m+j-1 = 2m-2-i.
      expect(loop.header).toBe(i);
      expect(loop.latches).toEqual([2 * m - 2 - i]);
      expect(loop.body).toHaveLength(2 * (m - 1 - i) + 1);
      expect(loop.parent).toBe(i === 0 ? null : i - 1);
    });
    expect(f.irreducibleCycles).toEqual([]);
    // Every latch reconverges at the next instruction: pc m (in block [m-1, m+1)) at m+1.
    expect(ipdomOf(cfg, m)).toBe(m + 1);
    expect(ipdomOf(cfg, 2 * m - 1)).toBe(2 * m);
  });
});
