/**
 * Properties over random CFGs (`properties/arbitraries/cfg.ts`): the blocks, dominators,
 * post-dominators and IPDOMs of `buildCfg` agree with a naive reference written here.
 *
 * The reference works on the *instruction* graph, built from `controlOf` alone (no blocks), and
 * solves the textbook data-flow equations over sets by iteration to a fixpoint:
 *   dom(n)  = {n} ∪ ⋂ dom(p)  over predecessors p (the virtual entry for a root),
 *   pdom(n) = {n} ∪ ⋂ pdom(s) over successors s (the virtual exit X has pdom {X}),
 * starting from "all nodes" everywhere but the root. It also runs the same equations on the
 * block graph of the result, to check the Cooper–Harvey–Kennedy solver on its own input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controlOf } from '../isa/control.ts';
import type { Program } from '../isa/program.ts';
import { cfgProgram } from '../../properties/arbitraries/cfg.ts';
import { buildCfg } from './buildCfg.ts';
import { dominates, dominatorsOf, postDominates, postDominatorsOf } from './dominance.ts';
import { ipdomOf, isBranchLike } from './ipdom.ts';
import { VIRTUAL_EXIT, type ProgramCfg } from './programCfg.ts';

type Sets = (Set<number> | null)[]; // null: not reached from the root

/** Naive dominators of a graph on 0..size-1 from `root`, by iterating the set equations. */
function naiveDominators(size: number, root: number, preds: readonly number[][]): Sets {
  const succs: number[][] = Array.from({ length: size }, () => []);
  preds.forEach((ps, v) => ps.forEach((p) => succs[p]!.push(v)));
  const reached = new Set([root]);
  const work = [root];
  while (work.length > 0)
    for (const w of succs[work.pop()!]!) if (!reached.has(w)) (reached.add(w), work.push(w));
  const all = [...reached];
  const dom: Sets = Array.from({ length: size }, (_, v) =>
    v === root ? new Set([root]) : reached.has(v) ? new Set(all) : null,
  );
  for (let changed = true; changed;) {
    changed = false;
    for (const v of all) {
      if (v === root) continue;
      const known = preds[v]!.flatMap((p) => (dom[p] ? [dom[p]] : []));
      const meet = known.reduce(
        (a, d) => new Set([...a].filter((x) => d.has(x))),
        known[0] ?? new Set(),
      );
      const next = new Set([v, ...meet]);
      if (next.size !== dom[v]!.size) ((dom[v] = next), (changed = true));
    }
  }
  return dom;
}

/**
 * The instruction graph of a one-function program: nodes 0..n-1, X = n, virtual entry n + 1.
 * A CALL whose target reaches no RET is a jump (the decision in `basicBlocks`), found here by the
 * same fixpoint but on instructions.
 */
function instructionGraph(program: Program): { succs: number[][]; preds: number[][] } {
  const n = program.instructions.length;
  const X = n;
  const controls = program.instructions.map((_, pc) => controlOf(program, pc));
  const callTargets = new Set(controls.flatMap((c) => (c.kind === 'call' ? c.targets : [])));
  const wire = (noReturn: ReadonlySet<number>): number[][] => {
    const succs: number[][] = Array.from({ length: n + 2 }, () => []);
    const fall = (pc: number) => (pc + 1 < n ? pc + 1 : X);
    controls.forEach((c, pc) => {
      const out = new Set<number>();
      if (c.kind === 'none') out.add(fall(pc));
      if (c.kind === 'call') {
        const jumps = c.targets.filter((t) => noReturn.has(t));
        jumps.forEach((t) => out.add(t));
        if (jumps.length === 0 || c.conditional) out.add(fall(pc));
      }
      if (c.kind === 'branch' || c.kind === 'indirect') c.targets.forEach((t) => out.add(t));
      if (c.kind === 'indirect' && c.unknownTargets) out.add(X);
      if (c.kind === 'return' || c.kind === 'exit' || c.kind === 'trap') out.add(X);
      if (c.conditional && c.kind !== 'none' && c.kind !== 'call') out.add(fall(pc));
      succs[pc] = [...out];
    });
    succs[n + 1] = [0, ...[...callTargets].filter((t) => !noReturn.has(t))];
    return succs;
  };
  const reachesRet = (succs: number[][], t: number): boolean => {
    const seen = new Set([t]);
    const work = [t];
    while (work.length > 0) {
      const v = work.pop()!;
      if (v < n && controls[v]!.kind === 'return') return true;
      for (const w of succs[v]!) if (w < n && !seen.has(w)) (seen.add(w), work.push(w));
    }
    return false;
  };
  let noReturn = new Set<number>();
  let succs = wire(noReturn);
  for (;;) {
    const next = new Set([...callTargets].filter((t) => !reachesRet(succs, t)));
    if (next.size === noReturn.size) break;
    noReturn = next;
    succs = wire(noReturn);
  }
  const preds: number[][] = succs.map(() => []);
  succs.forEach((out, v) => out.forEach((w) => preds[w]!.push(v)));
  return { succs, preds };
}

const blockIdOf = (cfg: ProgramCfg, pc: number) => cfg.blockOf[pc]!;

/** Instruction-level dominance read off the block-level result. */
function dominatesPc(cfg: ProgramCfg, a: number, b: number): boolean {
  const [ba, bb] = [blockIdOf(cfg, a), blockIdOf(cfg, b)];
  return ba === bb ? cfg.blocks[bb]!.reachable && a <= b : dominates(cfg, ba, bb);
}
function postDominatesPc(cfg: ProgramCfg, a: number, b: number): boolean {
  const [ba, bb] = [blockIdOf(cfg, a), blockIdOf(cfg, b)];
  return ba === bb ? a >= b : postDominates(cfg, ba, bb);
}

function checkAgainstReference(program: Program): void {
  const cfg = buildCfg(program);
  const n = program.instructions.length;
  const X = n;
  const g = instructionGraph(program);
  const dom = naiveDominators(n + 2, n + 1, g.preds);
  const pdom = naiveDominators(n + 2, X, g.succs);

  // Blocks tile the function; only a block's last instruction transfers control.
  for (const b of cfg.blocks) {
    for (let pc = b.start; pc < b.end - 1; pc++) expect(controlOf(program, pc).kind).toBe('none');
    for (let pc = b.start; pc < b.end; pc++) expect(cfg.blockOf[pc]).toBe(b.id);
    // Block edges are the instruction edges of the last instruction.
    const want = g.succs[b.end - 1]!.map((s) => (s === X ? VIRTUAL_EXIT : blockIdOf(cfg, s)));
    expect([...b.succs].sort()).toEqual([...new Set(want)].sort());
    for (const s of b.succs) if (s !== VIRTUAL_EXIT) expect(cfg.blocks[s]!.preds).toContain(b.id);
  }

  for (let b = 0; b < n; b++) {
    // Dominators (the virtual entry n + 1 is left out of the result's sets).
    const d = dom[b];
    expect(cfg.blocks[blockIdOf(cfg, b)]!.reachable).toBe(d !== null);
    if (d) for (let a = 0; a < n; a++) expect(dominatesPc(cfg, a, b)).toBe(d.has(a));
    // Post-dominators, for instructions that reach the exit.
    const pd = pdom[b];
    expect(cfg.blocks[blockIdOf(cfg, b)]!.reachesExit).toBe(pd !== null);
    if (!pd) {
      expect(ipdomOf(cfg, b)).toBe(VIRTUAL_EXIT);
      continue;
    }
    for (let a = 0; a < n; a++) expect(postDominatesPc(cfg, a, b)).toBe(pd.has(a));
    // IPDOM: a strict post-dominator that every other strict post-dominator post-dominates.
    const ip = ipdomOf(cfg, b);
    const ipNode = ip === VIRTUAL_EXIT ? X : ip;
    expect(ipNode).not.toBe(b);
    expect(pd.has(ipNode)).toBe(true);
    for (const other of pd) if (other !== b) expect(pdom[ipNode]!.has(other)).toBe(true);
  }
}

/** The same equations on the result's own block graph: checks the CHK solver alone. */
function checkBlockSets(program: Program): void {
  const cfg = buildCfg(program);
  const k = cfg.blocks.length;
  const [X, E] = [k, k + 1];
  const preds: number[][] = Array.from({ length: k + 2 }, () => []);
  const succs: number[][] = Array.from({ length: k + 2 }, () => []);
  for (const b of cfg.blocks)
    for (const s of b.succs) {
      const t = s === VIRTUAL_EXIT ? X : s;
      preds[t]!.push(b.id);
      succs[b.id]!.push(t);
    }
  for (const r of cfg.functions[0]!.roots) (preds[r]!.push(E), succs[E]!.push(r));
  const dom = naiveDominators(k + 2, E, preds);
  const pdom = naiveDominators(k + 2, X, succs);
  for (let b = 0; b < k; b++) {
    const want = dom[b] ? [...dom[b]!].filter((v) => v !== E).sort() : [];
    expect([...dominatorsOf(cfg, b)].sort()).toEqual(want);
    const got = [...postDominatorsOf(cfg, b)].map((v) => (v === VIRTUAL_EXIT ? X : v)).sort();
    // A block that cannot reach X has, by definition, the post-dominators {b, X}.
    expect(got).toEqual(pdom[b] ? [...pdom[b]!].sort() : [b, X].sort());
  }
  // Natural loops: the header dominates the body, every latch has an edge to the header.
  for (const loop of cfg.functions[0]!.loops) {
    for (const v of loop.body) expect(dominates(cfg, loop.header, v)).toBe(true);
    for (const l of loop.latches) expect(cfg.blocks[l]!.succs).toContain(loop.header);
  }
  // Irreducible cycles: several entries, and no block of the cycle dominates all the others
  // (which is what rules out a natural loop).
  for (const cyc of cfg.functions[0]!.irreducibleCycles) {
    expect(cyc.entries.length).toBeGreaterThan(1);
    for (const d of cyc.body) expect(cyc.body.every((v) => dominates(cfg, d, v))).toBe(false);
  }
}

describe('buildCfg against a naive data-flow reference', () => {
  it('branches, EXITs and plain instructions', () => {
    fc.assert(fc.property(cfgProgram(), checkAgainstReference), { numRuns: 500 });
  });
  it('with BRA.DIV, BRX without targets, in-function CALL and RET', () => {
    fc.assert(fc.property(cfgProgram({ rich: true }), checkAgainstReference), { numRuns: 500 });
  });
  it('the block-level solver matches the set equations on its own block graph', () => {
    fc.assert(fc.property(cfgProgram({ rich: true }), checkBlockSets), { numRuns: 500 });
  });
  it('isBranchLike: branch and indirect kinds, and conditional exits', () => {
    fc.assert(
      fc.property(cfgProgram({ rich: true }), (program) => {
        const cfg = buildCfg(program);
        program.instructions.forEach((_, pc) => {
          const c = controlOf(program, pc);
          const want =
            c.kind === 'branch' || c.kind === 'indirect' || (c.kind === 'exit' && c.conditional);
          expect(isBranchLike(cfg, pc)).toBe(want);
        });
      }),
    );
  });
});
