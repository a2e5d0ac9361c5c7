/**
 * Reconvergence regions of one function: where the Turing pass puts `BSSY` and `BSYNC`.
 *
 * A region is (entry, join, body): `BSSY` runs on entry (for lanes coming from outside the body),
 * `BSYNC` runs on the way into `join` (for lanes coming from inside), and the body is every PC
 * reachable from the entry without passing the join. Sources and decisions (docs/semantics.md,
 * "Compile passes"):
 * - every potentially divergent branch (a conditional direct BRA/JMP; BRA.DIV/.CONV are uniform)
 *   gets a region joining at its IPDOM in the exit-relaxed graph (seed 000 §V-E: "a branch that
 *   causes divergence is always preceded by a BSSY"; SEMANTICS §2 BSSY row);
 * - a branch whose region would contain a cycle through the branch (a loop exit) is hoisted: its
 *   BSSY goes before the header of the outermost natural loop that holds the branch but not the
 *   join, so lanes arm the barrier once, not on every iteration (seed 000 Fig. 7: BSSY before the
 *   loop);
 * - a forward branch whose target T is not its IPDOM also gets an *early* region joining at T when
 *   every other way out of the code between the branch and T leads to a point after T (a strict
 *   post-dominator of T): the lanes taking those ways BREAK out first (seed 000 §VI-B, Fig. 6);
 * - a spin loop (see `spinLoops.ts`) with `deadlockAware` has its join delayed to the last point
 *   of the join's post-dominator chain, past the release, and gets a YIELD at its header
 *   (seed 000 §VI-C, Fig. 7).
 * Regions must nest (laminar extents); a region with a side entry, one crossing an accepted
 * region, or one nested in a region with the same join is dropped, with a note.
 */
import { controlOf } from '../isa/control.ts';
import { EXIT_NODE, edgesFrom, postDominatorChain, type FnGraph, type PcLoop } from './graph.ts';
import { spinLoop } from './spinLoops.ts';
import { constructs } from './constructs.ts';
import { addressesOf, constantRegisters, mayOverlap } from './addresses.ts';

/**
 * `construct`: an if/else or switch of structured code, joining at its end; `loop`: a loop,
 * BSSY before its header, BSYNC at its exit; `iteration`: one loop iteration up to its continue
 * block (`constructs.ts`); `ipdom` and `early`: the fallback placement for unstructured code.
 */
export type RegionKind = 'ipdom' | 'loop' | 'early' | 'construct' | 'iteration';

export interface Region {
  readonly kind: RegionKind;
  /** PC whose pre-sequence holds the BSSY. */
  readonly entry: number;
  /** PC whose pre-sequence holds the BSYNC. */
  readonly join: number;
  /** PCs inside the region; holds `entry` only when the region is a loop (the header). */
  readonly body: ReadonlySet<number>;
  /** The branches this region serves. */
  readonly branches: readonly number[];
  /** Spin loop whose join was delayed (deadlock-aware placement). */
  readonly delayed: boolean;
  /** The own region of a spin loop (its BSSY before the spin loop's header). */
  readonly spin: boolean;
}

/** Lanes at `u` belong to region `r` (they must BSYNC when they reach its join). */
export const inRegion = (r: Region, u: number): boolean => r.body.has(u) || u === r.entry;

export interface RegionOptions {
  readonly deadlockAware: boolean;
}

export interface FunctionRegions {
  readonly regions: readonly Region[];
  /** Loop headers that get a YIELD (spin loops, deadlock-aware placement). */
  readonly yields: ReadonlySet<number>;
  readonly notes: readonly string[];
}

/** PCs reachable from `from` (included) without entering `stop` or any PC in `also`. */
function reach(
  g: FnGraph,
  from: readonly number[],
  stop: number,
  also: ReadonlySet<number> = new Set(),
): Set<number> {
  const seen = new Set<number>();
  const work = from.filter((p) => p !== stop && p !== EXIT_NODE && !also.has(p));
  while (work.length > 0) {
    const pc = work.pop()!;
    if (seen.has(pc)) continue;
    seen.add(pc);
    for (const e of edgesFrom(g, pc))
      if (e.to !== EXIT_NODE && e.to !== stop && !also.has(e.to)) work.push(e.to);
  }
  return seen;
}

/** A reachable PC outside `body` (and not `entry`) with an edge into `body` other than to `entry`. */
function sideEntry(g: FnGraph, entry: number, body: ReadonlySet<number>): number | null {
  for (const v of body) {
    if (v === entry) continue;
    for (const u of g.preds[v - g.fn.start]!)
      if (u !== entry && !body.has(u) && g.reachable.has(u)) return u;
  }
  return null;
}

/** Conditional direct branches that may diverge. */
function divergentBranches(g: FnGraph): number[] {
  const out: number[] = [];
  for (let pc = g.fn.start; pc < g.fn.end; pc++) {
    if (!g.reachable.has(pc)) continue;
    const c = controlOf(g.program, pc);
    const ins = g.program.instructions[pc]!;
    const uniform = ins.modifiers.includes('DIV') || ins.modifiers.includes('CONV');
    // A BRX with declared targets diverges too (SEMANTICS §2); one without has unknown successors.
    const declared = c.kind === 'indirect' && !c.unknownTargets && c.targets.length > 1;
    if ((c.kind === 'branch' && c.conditional && !uniform) || declared) out.push(pc);
  }
  return out;
}

const hex = (g: FnGraph, pc: number): string =>
  `${g.fn.name}+0x${g.program.instructions[pc]!.offset.toString(16).padStart(4, '0')}`;

/** Finds, filters and orders the regions of one function. */
export function findRegions(g: FnGraph, options: RegionOptions): FunctionRegions {
  const notes: string[] = [];
  const candidates = new Map<string, Region>();
  const yields = new Set<number>();
  const add = (r: Region): void => {
    const key = `${r.entry}:${r.join}`;
    const old = candidates.get(key);
    candidates.set(key, old ? { ...old, branches: [...old.branches, ...r.branches] } : r);
  };

  // Spin loops get a YIELD at their header (deadlock-aware placement, seed 000 §VI-C).
  const spinHeaders = new Set(g.loops.filter((l) => spinLoop(g, l)).map((l) => l.header));
  const consts = constantRegisters(g.program, g);
  if (options.deadlockAware) for (const h of spinHeaders) yields.add(h);
  // Branches whose own reconvergence region holds spin loops (for `delayPastRelease`).
  const spinsUnder = new Map<number, Set<number>>();
  for (const p of divergentBranches(g)) {
    const q = g.ipdom(p);
    if (q === null || q === EXIT_NODE) continue;
    const body = reach(
      g,
      edgesFrom(g, p).map((e) => e.to),
      q,
    );
    const held = new Set([...spinHeaders].filter((h) => body.has(h)));
    if (held.size > 0) spinsUnder.set(p, held);
  }
  /**
   * Places a region once its entry, reconvergence point `q0` and body are known: a region holding a
   * spin loop has its join delayed past the release (deadlock-aware), a side entry drops it.
   */
  const place = (
    p: number,
    kind: RegionKind,
    entry: number,
    q0: number,
    body0: Set<number>,
    spin: boolean,
  ): void => {
    let body = body0;
    let join = q0;
    let delayed = false;
    const spins = [...spinHeaders].filter((h) => body.has(h) || h === entry);
    if (options.deadlockAware && spins.length > 0) {
      // Writes that belong to another spin loop — behind its header, or in a branch region that
      // holds it (a flag setter on the other path) — are its release, not this one's.
      const own = new Set(spins);
      const others = new Set(spinHeaders);
      for (const [b, held] of spinsUnder)
        if (b !== p && [...held].some((h) => !own.has(h))) others.add(b);
      // Loops that take a lock themselves (an atomic inside, as the Barnes-Hut `lock-in-if`
      // loop, which is no spin loop by the test above) own their writes too.
      for (const l of g.loops)
        if ([...l.body].some((pc) => g.program.instructions[pc]!.opcode.startsWith('ATOM')))
          others.add(l.header);
      for (const h of own) others.delete(h);
      // Only a write that may hit a word the spin loops read can be their release.
      const reads = [...g.loops]
        .filter((l) => own.has(l.header))
        .flatMap((l) => [...l.body])
        .map((pc) => g.program.instructions[pc]!)
        .filter((ins) => ins.opcode.startsWith('LD') || ins.opcode.startsWith('ATOM'))
        .map((ins) => addressesOf(ins, consts));
      const release = (pc: number): boolean => {
        const ins = g.program.instructions[pc]!;
        if (!isMemoryWrite(ins.opcode)) return false;
        const at = addressesOf(ins, consts);
        return reads.length === 0 || reads.some((r) => mayOverlap(r, at));
      };
      const later = delayPastRelease(g, entry, q0, spinHeaders, others, release);
      if (later === null) {
        // A BSYNC before the release would make lanes wait for lanes that spin on what the
        // waiting lanes are yet to write (seed 000 §VI-C): no region here; the lanes reconverge
        // at an enclosing join, which must then hold both the spinners and the writer.
        notes.push(
          `${hex(g, p)}: region holds a spin loop and cannot join past its release; no region`,
        );
        return;
      }
      delayed = later.join !== q0;
      join = later.join;
      body = later.body;
    }
    const side = sideEntry(g, entry, body);
    if (side !== null)
      notes.push(`${hex(g, p)}: region entered from ${hex(g, side)} without its BSSY; no region`);
    else add({ kind, entry, join, body, branches: [p], delayed, spin });
  };

  const structured = constructs(g);
  if (structured !== null) {
    // Structured layout: a region at the end of every construct (maximal reconvergence).
    notes.push(...structured.notes);
    for (const k of structured.constructs)
      place(
        k.branches[0]!,
        k.kind,
        k.entry,
        k.join,
        new Set(k.body),
        k.kind === 'loop' && spinHeaders.has(k.entry),
      );
  } else
    for (const p of divergentBranches(g)) {
      const q0 = g.ipdom(p);
      const succ = edgesFrom(g, p).map((e) => e.to);
      if (q0 === null || q0 === EXIT_NODE) {
        notes.push(
          `${hex(g, p)}: no reconvergence point (every way on ends in EXIT or never ends); no region`,
        );
      } else {
        let body = reach(g, succ, q0);
        let entry = p;
        let loop: PcLoop | null = null;
        if (body.has(p)) {
          // A cycle through the branch: hoist to the outermost loop holding p but not the join.
          const holding = g.loops.filter((l) => l.body.has(p) && !l.body.has(q0));
          loop = holding.sort((a, b) => b.body.size - a.body.size)[0] ?? null;
          if (loop === null) {
            notes.push(
              `${hex(g, p)}: lies on a cycle with no natural loop header (irreducible); no region`,
            );
            continue;
          }
          entry = loop.header;
          body = reach(g, [entry], q0);
        }
        place(
          p,
          loop === null ? 'ipdom' : 'loop',
          entry,
          q0,
          body,
          loop !== null && spinHeaders.has(loop.header),
        );
      }
      const early = earlyRegion(g, p, q0);
      if (early !== null) add(early);
    }
  const laid = laminar(g, [...candidates.values()], notes);
  // A spin loop whose own region holds no write after the loop (a flag wait: the writer is on
  // another path) gets none of its own when another region encloses it: Hanoi's YIELD only swaps
  // paths whose lanes the top REC entry's register holds (seed 000 §VII-C), and the writer is
  // outside the loop's region but inside the enclosing one. A lock's region (the holder releases
  // inside it, after the loop, as in Fig. 7) stays, so its lanes reconverge after the release.
  const writesInside = (r: Region): boolean =>
    [...r.body].some(
      (pc) =>
        !g.loops.some((l) => l.header === r.entry && l.body.has(pc)) &&
        isMemoryWrite(g.program.instructions[pc]!.opcode),
    );
  const accepted = options.deadlockAware
    ? laid.filter(
        (r) =>
          !r.spin ||
          writesInside(r) ||
          !laid.some(
            (a) => a !== r && subset(extent(r), extent(a)) && extent(a).size > extent(r).size,
          ),
      )
    : laid;
  return { regions: accepted, yields, notes };
}

/**
 * The early region of a forward branch p → T (seed 000 §VI-B, Fig. 6), or null: T is not the
 * IPDOM, the code between p and T (reachable from p without passing T) has no cycle through p and
 * no side entry, and each of its other exits leads to a strict post-dominator of T (or exits).
 */
function earlyRegion(g: FnGraph, p: number, q0: number | null): Region | null {
  const taken = edgesFrom(g, p).filter((e) => e.kind === 'taken');
  if (taken.length !== 1) return null;
  const t = taken[0]!.to;
  if (t === EXIT_NODE || t <= p + 1 || t === q0) return null;
  const after = new Set(postDominatorChain(g, t));
  const body = reach(g, [p + 1], t, after);
  if (body.size === 0 || body.has(p) || (q0 !== null && body.has(q0))) return null;
  let escapes = 0;
  let joins = 0;
  for (const u of body)
    for (const e of edgesFrom(g, u)) {
      if (e.to === t) joins++;
      if (e.to === t || body.has(e.to)) continue;
      if (e.to !== EXIT_NODE && !after.has(e.to)) return null;
      if (e.to !== EXIT_NODE) escapes++;
    }
  // Useful only when some lanes of the body reach T and some leave early.
  if (escapes === 0 || joins === 0 || sideEntry(g, p, body) !== null) return null;
  return { kind: 'early', entry: p, join: t, body, branches: [p], delayed: false, spin: false };
}

const isMemoryWrite = (opcode: string): boolean =>
  opcode.startsWith('ST') || opcode.startsWith('ATOM') || opcode === 'RED';

/**
 * The join of a region holding a spin loop, placed past the release (seed 000 §VI-C, Fig. 7):
 * the earliest point of the post-dominator chain from `q0` (`q0` included) from which no memory
 * write is reachable before the next spin loop or the branch whose region holds it — the release
 * and everything else the spinners may wait for happen before it — or that is such a point. Points whose
 * region would have a side entry (inside a later loop, past an enclosing join) are skipped. Null
 * when there is no such point.
 */
function delayPastRelease(
  g: FnGraph,
  entry: number,
  q0: number,
  spinHeaders: ReadonlySet<number>,
  others: ReadonlySet<number>,
  release: (pc: number) => boolean,
): { join: number; body: Set<number> } | null {
  for (const x of [q0, ...postDominatorChain(g, q0)]) {
    const body = reach(g, [entry], x);
    if (sideEntry(g, entry, body) !== null) continue;
    if (spinHeaders.has(x) || others.has(x)) return { join: x, body };
    // Writes from here up to the next spin loop or its region (which handle what follows).
    const after = reach(g, [x], -2, others);
    if (![...after].some(release)) return { join: x, body };
  }
  return null;
}

const extent = (r: Region): Set<number> => new Set([...r.body, r.entry]);
const subset = (a: ReadonlySet<number>, b: ReadonlySet<number>): boolean =>
  [...a].every((x) => b.has(x));

/**
 * Keeps the regions that nest: IPDOM and loop regions first, larger first, then early regions.
 * A region inside an accepted one must join inside it or at its join; at its join it adds nothing
 * (the outer BSYNC already reunites those lanes) and is dropped — and a later region enclosing
 * accepted ones that join at its own join replaces them.
 */
function laminar(g: FnGraph, cands: readonly Region[], notes: string[]): Region[] {
  const rank = (r: Region): number => (r.kind === 'early' ? 1 : 0);
  const ordered = [...cands].sort(
    (a, b) => rank(a) - rank(b) || extent(b).size - extent(a).size || a.entry - b.entry,
  );
  let accepted: Region[] = [];
  for (const r of ordered) {
    const er = extent(r);
    // An enclosing region joining where an accepted inner one does replaces it (issue 11,
    // `hanoi-early-region-dropped`): its BSYNC reunites the inner lanes and the outer paths too,
    // while the inner one's reunites only the inner lanes — if it fits with the others.
    const same = accepted.filter(
      (a) => a.join === r.join && subset(extent(a), er) && extent(a).size < er.size,
    );
    if (same.length > 0) {
      const rest = accepted.filter((a) => !same.includes(a));
      if (laminar(g, [...rest, r], []).length === rest.length + 1) {
        accepted = [...rest, r];
        continue;
      }
    }
    let why: string | null = null;
    for (const a of accepted) {
      const ea = extent(a);
      const inside = subset(er, ea);
      const outside = subset(ea, er);
      const disjoint = [...er].every((x) => !ea.has(x));
      if (disjoint) continue;
      if (inside && !outside) {
        if (r.join === a.join) why = `nested in the region joining at the same point`;
        else if (!a.body.has(r.join)) why = `joins outside its enclosing region`;
      } else if (outside && !inside) {
        if (r.join === a.join) why = `encloses a region joining at the same point`;
        else if (!r.body.has(a.join)) why = `an enclosed region joins outside it`;
      } else why = inside ? 'duplicates another region' : 'crosses another region';
      if (why !== null) break;
    }
    if (why === null) accepted.push(r);
    else if (!why.startsWith('nested'))
      notes.push(`${hex(g, r.branches[0]!)}: ${r.kind} region dropped: ${why}`);
  }
  return accepted;
}
