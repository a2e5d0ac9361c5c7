/**
 * B-register allocation for the regions of one function (seed 000 §VI-A).
 *
 * - `nesting` (default, the layout of seed 000 Fig. 5 and of nvcc): a region's register is its
 *   nesting depth modulo the budget, so sibling regions share registers. A region nested deeper
 *   than the budget reuses the register of the ancestor `budget` levels up and spills it around
 *   itself: `BMOV.32 Rn, Bx` before its BSSY (`.CLEAR` with the `spillClear` option), `BMOV.32 Bx, Rn` after its BSYNC, with one
 *   spill register per depth (LIFO, so nested spills of one B register never clobber each other).
 *   Correct when the paths of a branch run one after another, as Hanoi runs them; under
 *   independent thread scheduling the paths of a branch can overlap, and sharing a register
 *   between regions that are live at the same time races (docs/findings.md, `finding-its-spill-race`).
 * - `distinct`: every region of the function gets its own register, in order of entry PC; more
 *   regions than the budget is an error. Safe under independent thread scheduling.
 */
import type { Region } from './regions.ts';

export type Allocation = 'nesting' | 'distinct';

/** A region with its place in the region tree and its registers. */
export interface Placed {
  readonly id: number;
  readonly region: Region;
  readonly depth: number;
  /** B register index. */
  readonly reg: number;
  /** General register the enclosing value of `reg` is spilled to, or null. */
  readonly spill: number | null;
}

const extent = (r: Region): Set<number> => new Set([...r.body, r.entry]);

/** Depth of every region in the containment tree (regions are laminar). */
export function depths(regions: readonly Region[]): number[] {
  const ext = regions.map(extent);
  return regions.map((_, i) =>
    regions.reduce((d, _r, j) => {
      if (j === i || ext[j]!.size <= ext[i]!.size) return d;
      return [...ext[i]!].every((x) => ext[j]!.has(x)) ? d + 1 : d;
    }, 0),
  );
}

/** Allocates registers; `spillBase` is the first free general register. */
export function allocate(
  regions: readonly Region[],
  options: {
    readonly registers: number;
    readonly allocation: Allocation;
    readonly spillBase: number;
    /** Per region: it must not share its register (nesting allocation). */
    readonly exclusive?: readonly boolean[];
  },
  firstId: number,
): { ok: true; placed: Placed[] } | { ok: false; message: string } {
  const d = depths(regions);
  if (options.allocation === 'distinct') {
    if (regions.length > options.registers)
      return {
        ok: false,
        message: `${regions.length} reconvergence regions need ${regions.length} B registers with --allocation distinct, budget ${options.registers}`,
      };
    const order = regions
      .map((_, i) => i)
      .sort((a, b) => regions[a]!.entry - regions[b]!.entry || d[a]! - d[b]!);
    const reg = new Map(order.map((i, k) => [i, k]));
    return {
      ok: true,
      placed: regions.map((region, i) => ({
        id: firstId + i,
        region,
        depth: d[i]!,
        reg: reg.get(i)!,
        spill: null,
      })),
    };
  }
  // Suspendable regions (a WARPSYNC or a spin loop's YIELD inside) get registers of their own,
  // the lowest ones: Hanoi may run another path while a lane waits there, and that path's regions
  // must not overwrite a register still live here. The rest share the others by nesting depth,
  // counted over non-exclusive ancestors only. Regions under different outermost regions are
  // never live at once (every lane passes one's join before the next's entry): each such tree
  // starts again from B0.
  const exclusive = regions.map((_, i) => options.exclusive?.[i] ?? false);
  const ext = regions.map(extent);
  const root = rootsOf(regions);
  const placed: Placed[] = [];
  for (const r0 of new Set(root)) {
    const tree = regions.map((_, i) => i).filter((i) => root[i] === r0);
    const count = tree.filter((i) => exclusive[i]).length;
    const shared = options.registers - count;
    if (count > options.registers || (shared < 1 && count < tree.length))
      return {
        ok: false,
        message: `${count} nested regions hold a WARPSYNC or a spin loop and need a B register each, with at least one more for the rest: budget ${options.registers}`,
      };
    let next = 0;
    for (const i of tree) {
      const nd = tree.reduce((n, j) => {
        if (j === i || exclusive[j] || ext[j]!.size <= ext[i]!.size) return n;
        return [...ext[i]!].every((x) => ext[j]!.has(x)) ? n + 1 : n;
      }, 0);
      const own = exclusive[i] ? next++ : null;
      placed[i] = {
        id: firstId + i,
        region: regions[i]!,
        depth: d[i]!,
        reg: own ?? count + (nd % shared),
        spill: own === null && nd >= shared ? options.spillBase + nd - shared : null,
      };
    }
  }
  return { ok: true, placed };
}

/** For each region, the index of the outermost region that contains it (itself when outermost). */
export function rootsOf(regions: readonly Region[]): number[] {
  const ext = regions.map(extent);
  return regions.map((_, i) => {
    let best = i;
    regions.forEach((_r, j) => {
      if (ext[j]!.size > ext[best]!.size && [...ext[i]!].every((x) => ext[j]!.has(x))) best = j;
    });
    return best;
  });
}
