import { buildCfg, VIRTUAL_EXIT, type ProgramCfg } from '../cfg/index.ts';
import type { Program } from '../isa/program.ts';

/**
 * Which code the `hybrid` traversal runs breadth-first (seed 001 §2.3: a patent application that
 * "might describe the implementation of the NVIDIA Volta architecture ... traverses structured
 * control-flow paths depth-first, then unstructured paths breadth-first"). The paper does not say
 * what "structured" means; our reading (docs/semantics.md, "hybrid"), decided from the CFG:
 *
 * A branch block X (two or more successors inside its function) with immediate post-dominator
 * block P has the *region* R: the blocks reachable from X's successors without passing P. X's
 * branch is **structured** when
 * - P is a block (not the virtual exit: every lane leaves the region through P — single exit), X
 *   knows its successors (no BRX without declared targets), and
 * - X is not in R (no cycle through X inside the region) and every block of R has all its
 *   predecessors in R ∪ {X} (single entry: no side entry, the region is reducible and acyclic —
 *   an if / if-else, nested at will); or
 * - with `loops = depth-first`: X is in R (a loop branch), the innermost natural loop holding X
 *   contains R, and every exit edge of that loop goes to P (a single-exit natural loop).
 *
 * A block is **breadth-first** when it lies in an irreducible cycle, or is an unstructured branch
 * block or in its region; every other block is depth-first. With `loops = breadth-first` (the
 * default) every divergent loop branch is unstructured: a loop may wait on another path (the
 * spinlock), which is the deadlock §2.3 says breadth-first traversal avoids.
 */
export type HybridLoops = 'breadth-first' | 'depth-first';

/** `breadthFirst[pc]` = 1 when the instruction at `pc` is in a breadth-first block. */
export function breadthFirstPcs(program: Program, loops: HybridLoops): Uint8Array {
  const cfg = buildCfg(program);
  const bf = breadthFirstBlocks(cfg, loops);
  const out = new Uint8Array(program.instructions.length);
  for (let pc = 0; pc < out.length; pc++) {
    const b = cfg.blockOf[pc] ?? -1;
    out[pc] = b >= 0 && bf.has(b) ? 1 : 0;
  }
  return out;
}

/** The ids of the breadth-first blocks of `cfg` (see the module comment). */
export function breadthFirstBlocks(cfg: ProgramCfg, loops: HybridLoops): ReadonlySet<number> {
  const bf = new Set<number>();
  for (const fn of cfg.functions)
    for (const c of fn.irreducibleCycles) for (const b of c.body) bf.add(b);
  for (const x of cfg.blocks) {
    if (!x.reachable) continue;
    const succs = x.succs.filter((s) => s !== VIRTUAL_EXIT);
    if (succs.length < 2 && !x.unknownSuccessors) continue;
    const region = regionOf(cfg, x.id);
    if (structured(cfg, x.id, region, loops)) continue;
    bf.add(x.id);
    for (const r of region) bf.add(r);
  }
  return bf;
}

/** The blocks reachable from `x`'s successors without passing its IPDOM block. */
export function regionOf(cfg: ProgramCfg, x: number): ReadonlySet<number> {
  const p = cfg.blocks[x]!.ipdom;
  const seen = new Set<number>();
  const work = cfg.blocks[x]!.succs.filter((s) => s !== VIRTUAL_EXIT && s !== p);
  while (work.length > 0) {
    const b = work.pop()!;
    if (seen.has(b)) continue;
    seen.add(b);
    for (const s of cfg.blocks[b]!.succs) if (s !== VIRTUAL_EXIT && s !== p) work.push(s);
  }
  return seen;
}

function structured(
  cfg: ProgramCfg,
  x: number,
  region: ReadonlySet<number>,
  loops: HybridLoops,
): boolean {
  const block = cfg.blocks[x]!;
  const p = block.ipdom;
  if (p === VIRTUAL_EXIT || block.unknownSuccessors) return false;
  const fn = cfg.functions[block.fn]!;
  if (!region.has(x)) {
    for (const r of region) {
      if (fn.roots.includes(r)) return false;
      for (const q of cfg.blocks[r]!.preds) if (q !== x && !region.has(q)) return false;
    }
    return true;
  }
  if (loops !== 'depth-first') return false;
  // The innermost natural loop holding x: the one with the smallest body.
  let best: { body: readonly number[]; exits: readonly { to: number }[] } | null = null;
  for (const l of fn.loops)
    if (l.body.includes(x) && (best === null || l.body.length < best.body.length)) best = l;
  if (best === null) return false;
  for (const r of region) if (!best.body.includes(r)) return false;
  return best.exits.every((e) => e.to === p);
}
