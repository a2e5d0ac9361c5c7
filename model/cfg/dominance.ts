/**
 * Dominance queries on a built CFG, by walking the `idom`/`ipdom` links of its blocks. Block ids
 * are global; both blocks of a query must belong to the same function for a `true` answer.
 */
import { VIRTUAL_EXIT, type ProgramCfg } from './programCfg.ts';

/**
 * The dominators of block `b`, innermost first: `b`, `idom(b)`, … up to a root. Empty for an
 * unreachable block. (The virtual entry, which dominates everything, is left out.)
 */
export function dominatorsOf(cfg: ProgramCfg, b: number): readonly number[] {
  if (!cfg.blocks[b]!.reachable) return [];
  const chain: number[] = [];
  for (let v: number | null = b; v !== null; v = cfg.blocks[v]!.idom) chain.push(v);
  return chain;
}

/**
 * The post-dominators of block `b`, innermost first: `b`, `ipdom(b)`, … , `VIRTUAL_EXIT`. For a
 * block that cannot reach the exit: `[b, VIRTUAL_EXIT]` (its IPDOM is defined as the exit).
 */
export function postDominatorsOf(cfg: ProgramCfg, b: number): readonly number[] {
  const chain: number[] = [b];
  for (let v = cfg.blocks[b]!.ipdom; ; v = cfg.blocks[v]!.ipdom) {
    chain.push(v);
    if (v === VIRTUAL_EXIT) return chain;
  }
}

/** Block `a` dominates block `b` (reflexive; false when `b` is unreachable). */
export function dominates(cfg: ProgramCfg, a: number, b: number): boolean {
  return dominatorsOf(cfg, b).includes(a);
}

/** Block `a` (or `VIRTUAL_EXIT`) post-dominates block `b` (reflexive). */
export function postDominates(cfg: ProgramCfg, a: number, b: number): boolean {
  return postDominatorsOf(cfg, b).includes(a);
}
