/**
 * The Turing compile pass: plain code (no convergence-barrier instructions) → code with BSSY,
 * BSYNC, BREAK, BMOV spills and YIELD, laid out as seed 000 §VI describes NVIDIA's compiler doing
 * it and as the real listings in `../shared/sass` show. Regions: `regions.ts`; registers:
 * `allocate.ts`; layout: `emit.ts`; decisions: docs/semantics.md, "Compile passes".
 *
 * Labels keep naming the same source instruction (placed before its pre-sequence, so a label at a
 * reconvergence point names the BSYNC — as Fig. 7's E does); branch targets keep their meaning.
 * Never throws: problems come back as diagnostics.
 */
import { err, ok, RZ, type Diagnostic, type Program, type Result } from '../isa/program.ts';
import { allocate, depths, rootsOf, type Allocation, type Placed } from './allocate.ts';
import { emit, type FunctionPlan } from './emit.ts';
import { controlOf } from '../isa/control.ts';
import { edgesFrom, functionGraph, type FnGraph as FnGraphLike } from './graph.ts';
import { findRegions, inRegion, type Region } from './regions.ts';

export interface TuringOptions {
  /** B registers available (1..16, default 16, seed 000 §IX-A sizes Hanoi's at 16). */
  readonly registers?: number;
  /** Delay the BSYNC of spin loops past the release and put YIELD at their top (default true). */
  readonly deadlockAware?: boolean;
  /** Register allocation (default `nesting`, with spills; `distinct` for ITS-safe code). */
  readonly allocation?: Allocation;
  /**
   * Spill with `BMOV.32.CLEAR Rn, Bx` instead of `BMOV.32 Rn, Bx` (default false, as seed 000
   * Fig. 5). Clearing empties Bx, which under independent thread scheduling releases lanes already
   * waiting at the enclosing BSYNC on Bx (SEMANTICS §2, docs/semantics.md its), so Hanoi's run of
   * such code no longer refines its; a plain copy leaves them waiting.
   */
  readonly spillClear?: boolean;
  /** File name and source lines for diagnostics. */
  readonly file?: string;
  readonly sourceLines?: readonly number[];
}

/** One region of the result, for reports and tests. */
export interface RegionReport {
  readonly function: string;
  readonly kind: Region['kind'];
  readonly branches: readonly number[];
  readonly entry: number;
  readonly join: number;
  readonly register: number;
  readonly depth: number;
  readonly spill: number | null;
  readonly delayed: boolean;
}

export interface Compiled {
  readonly program: Program;
  /** `origin[pc]` of the compiled program: the source PC, or null for an inserted instruction. */
  readonly origin: readonly (number | null)[];
  /** Regions as placed (source PCs). */
  readonly regions: readonly RegionReport[];
  /** Source PCs of the spin-loop headers that got a YIELD. */
  readonly yields: readonly number[];
  /** Decisions a reader should know: regions not made, and why. */
  readonly notes: readonly string[];
}

/** Opcodes that mark code already lowered for convergence barriers. */
const LOWERED = new Set(['BSSY', 'BSYNC', 'BREAK', 'BMOV']);

/** Highest general register the program names (address pairs and wide results counted). */
function highestRegister(program: Program): number {
  let hi = -1;
  for (const ins of program.instructions) {
    const wide = ins.modifiers.some((m) => ['64', 'WIDE', '128'].includes(m)) ? 3 : 0;
    for (const o of ins.operands) {
      if (o.kind === 'reg' && o.index !== RZ) hi = Math.max(hi, o.index + wide);
      if (o.kind === 'mem' && o.base !== RZ) hi = Math.max(hi, o.base + (o.wide ? 1 : 0));
      if (o.kind === 'cbank' && o.offsetReg !== null) hi = Math.max(hi, o.offsetReg);
    }
  }
  return hi;
}

/** Compiles plain code for Turing. */
export function compileTuring(program: Program, options: TuringOptions = {}): Result<Compiled> {
  const file = options.file ?? '<input>';
  const at = (pc: number, message: string): Diagnostic => ({
    file,
    line: options.sourceLines?.[pc] ?? 1,
    column: 1,
    message,
  });
  const registers = options.registers ?? 16;
  if (!Number.isInteger(registers) || registers < 1 || registers > 16)
    return err([
      { file, line: 1, column: 1, message: `--registers must be 1..16, not ${registers}` },
    ]);
  const lowered = program.instructions.findIndex((i) => LOWERED.has(i.opcode));
  if (lowered !== -1)
    return err([
      at(
        lowered,
        `expected plain code, found ${program.instructions[lowered]!.opcode}: this listing is already lowered for convergence barriers`,
      ),
    ]);
  try {
    return compileChecked(program, {
      registers,
      deadlockAware: options.deadlockAware ?? true,
      allocation: options.allocation ?? 'nesting',
      spillClear: options.spillClear ?? false,
      at,
    });
  } catch (e) {
    // Not expected: a bug in the pass must still reach the user as a diagnostic.
    return err([
      at(
        0,
        `internal error in the Turing compile pass: ${e instanceof Error ? e.message : String(e)}`,
      ),
    ]);
  }
}

function compileChecked(
  program: Program,
  o: {
    registers: number;
    deadlockAware: boolean;
    allocation: Allocation;
    spillClear: boolean;
    at: (pc: number, m: string) => Diagnostic;
  },
): Result<Compiled> {
  const notes: string[] = [];
  const spillBase = highestRegister(program) + 1;
  const found = program.functions.map((_, fi) => {
    const graph = functionGraph(program, fi);
    const r = findRegions(graph, { deadlockAware: o.deadlockAware });
    notes.push(...r.notes);
    return { graph, regions: [...r.regions], yields: r.yields };
  });
  const calls = dropRegionsAcrossCalls(program, found, notes);
  // Drop conflicting regions until the layout is consistent (each round drops at least one).
  for (;;) {
    const plans: FunctionPlan[] = [];
    let nextId = 0;
    // Call-aware allocation (issue 11): a function called from inside a region takes B registers
    // above every register live at its call sites (callers first), so it keeps its own regions and
    // never touches a caller's; without room (or needing spills there) it arms none, as before.
    const base = found.map(() => 0);
    for (const fi of calls.order) {
      const f = found[fi]!;
      const registers = o.registers - base[fi]!;
      if (base[fi]! > 0 && f.regions.length > 0 && (registers < 1 || calls.recursive[fi])) {
        notes.push(
          `${f.graph.fn.name}: regions dropped: called from inside a region ${calls.recursive[fi] ? 'and recursive' : `with every B register live (budget ${o.registers})`}`,
        );
        f.regions = [];
      }
      let shareAll = false;
      if (o.allocation === 'nesting') {
        // Suspendable regions need a register each, and the others at least one to share. Over
        // budget, regions are dropped — deepest first, never a spin loop's — but only where no
        // other region starts between the dropped one's join and its parent's: lanes that it
        // would have reconverged would otherwise reach that region one group after another, and
        // each group would arm the same register again. With nothing safe to drop, the tree
        // shares registers by nesting (noted: Hanoi may then overwrite one while a lane waits).
        const drop = new Set<Region>();
        for (;;) {
          const live = f.regions.filter((r) => !drop.has(r));
          const ds = depths(live);
          const roots = rootsOf(live);
          const over = [...new Set(roots)].find((r0) => {
            const tree = live.filter((_, i) => roots[i] === r0);
            const count = tree.filter((r) => suspendable(program, r, f.yields)).length;
            return count > registers || (count === registers && count < tree.length);
          });
          if (over === undefined) break;
          const tree = live
            .map((r, i) => ({ r, d: ds[i]!, root: roots[i]! }))
            .filter((x) => x.root === over);
          const victim = tree
            .filter(({ r }) => !r.spin && quietAfter(f.graph, r, live))
            .sort((x, y) => y.d - x.d)[0];
          if (victim === undefined) {
            shareAll = true;
            notes.push(
              `${f.graph.fn.name}: ${tree.length} nested regions, some holding a WARPSYNC or a spin loop, share ${registers} B registers by nesting: Hanoi may overwrite one while a lane waits`,
            );
            break;
          }
          drop.add(victim.r);
          notes.push(
            `${f.graph.fn.name}: region of the branch at pc ${victim.r.branches[0]} dropped: not enough B registers (budget ${registers}) for the regions holding a WARPSYNC or a spin loop`,
          );
        }
        f.regions = f.regions.filter((r) => !drop.has(r));
      }
      const exclusive = f.regions.map((r) => !shareAll && suspendable(program, r, f.yields));
      const a = allocate(
        f.regions,
        { registers, allocation: o.allocation, spillBase, exclusive },
        nextId,
      );
      if (!a.ok && base[fi]! > 0) {
        notes.push(
          `${f.graph.fn.name}: regions dropped: called from inside a region: ${a.message}`,
        );
        f.regions = [];
        plans[fi] = { graph: f.graph, placed: [], yields: f.yields };
        continue;
      }
      if (!a.ok) return err([o.at(f.graph.fn.start, `${f.graph.fn.name}: ${a.message}`)]);
      if (base[fi]! > 0 && a.placed.some((q) => q.spill !== null)) {
        notes.push(
          `${f.graph.fn.name}: regions dropped: called from inside a region, they would spill B registers`,
        );
        f.regions = [];
        plans[fi] = { graph: f.graph, placed: [], yields: f.yields };
        continue;
      }
      const placed = a.placed.map((q) => ({ ...q, reg: q.reg + base[fi]! }));
      // Registers live at each call site bound the callee's first register.
      for (let pc = f.graph.fn.start; pc < f.graph.fn.end; pc++) {
        const c = controlOf(program, pc);
        if (c.kind !== 'call') continue;
        const live = placed.filter((q) => inRegion(q.region, pc)).map((q) => q.reg + 1);
        const need = Math.max(base[fi]!, ...live);
        for (const t of c.targets) {
          const callee = program.functions.findIndex((fn) => t >= fn.start && t < fn.end);
          if (callee !== -1 && callee !== fi) base[callee] = Math.max(base[callee]!, need);
        }
      }
      nextId += f.regions.length;
      plans[fi] = { graph: f.graph, placed, yields: f.yields };
    }
    // A spilling region must be left only through its join: its restore runs there, and on Hanoi
    // a reconvergence with every lane gone invalidates the register the ancestor still needs.
    let unsafe = false;
    plans.forEach((p, fi) => {
      const bad = p.placed.filter((q) => q.spill !== null && !leftOnlyAtJoin(p.graph, q.region));
      for (const q of bad)
        notes.push(
          `${p.graph.fn.name}: region of the branch at pc ${q.region.branches[0]} dropped: it would reuse a spilled B register but lanes may leave it (EXIT, RET, CALL, BREAK) before its join`,
        );
      if (bad.length > 0) {
        unsafe = true;
        const drop = new Set(bad.map((q) => q.region));
        found[fi]!.regions = found[fi]!.regions.filter((r) => !drop.has(r));
      }
    });
    if (unsafe) continue;
    const spills = plans.flatMap((p) => p.placed.map((q) => q.spill ?? -1));
    if (Math.max(-1, ...spills) >= RZ)
      return err([
        o.at(
          0,
          `no free general register left to spill B registers to (the program uses up to R${spillBase - 1})`,
        ),
      ]);
    const e = emit(program, plans, { clear: o.spillClear });
    if (e.ok) {
      const regions = plans.flatMap((p) => p.placed.map((q) => report(p, q)));
      return ok({
        program: e.value.program,
        origin: e.value.origin,
        regions,
        yields: found.flatMap((f) => [...f.yields]).sort((a, b) => a - b),
        notes,
      });
    }
    for (const f of plans) {
      const drop = new Set(f.placed.filter((q) => e.conflicts.includes(q.id)).map((q) => q.region));
      const fi = found.findIndex((x) => x.graph === f.graph);
      for (const r of drop)
        notes.push(
          `${f.graph.fn.name}: region of the branch at pc ${r.branches[0]} dropped: its BSSY/BSYNC cannot be laid out with the others`,
        );
      found[fi]!.regions = found[fi]!.regions.filter((r) => !drop.has(r));
    }
  }
}

/**
 * **Decision** (docs/semantics.md, "Compile passes"): B registers are not saved across calls, so
 * a region never spans a CALL into code that arms barriers itself: the callee's BSSY would
 * overwrite the caller's live register and its BSYNC release it (Hanoi invalidates a released
 * register). First, a region spanning a call back into its own function (recursion) is dropped;
 * a function called from inside a remaining region keeps its regions on B registers above those
 * live at its call sites (call-aware allocation in `compileChecked`, issue 11). Returns the
 * functions in caller-first order and which are recursive.
 */
function dropRegionsAcrossCalls(
  program: Program,
  found: { graph: FnGraphLike; regions: Region[] }[],
  notes: string[],
): { order: number[]; recursive: boolean[] } {
  const calleesOf = found.map((f) => {
    const out = new Set<number>();
    for (let pc = f.graph.fn.start; pc < f.graph.fn.end; pc++) {
      const c = controlOf(program, pc);
      if (c.kind !== 'call') continue;
      for (const t of c.targets) {
        const fi = program.functions.findIndex((fn) => t >= fn.start && t < fn.end);
        if (fi !== -1) out.add(fi);
      }
    }
    return out;
  });
  // Recursion first: a region spanning a call back into its own function (directly or through
  // others) can never keep its register; once those are gone, a recursive function may arm none.
  const reaches = (from: number, to: number): boolean => {
    const seen = new Set<number>();
    const work = [...calleesOf[from]!];
    while (work.length > 0) {
      const x = work.pop()!;
      if (x === to) return true;
      if (seen.has(x)) continue;
      seen.add(x);
      work.push(...calleesOf[x]!);
    }
    return false;
  };
  found.forEach((f, fi) => {
    const recursive = f.regions.filter((r) => spansCallInto(r, (c) => reaches(c, fi) || c === fi));
    dropAll(f, recursive, 'it spans a recursive CALL');
  });
  // Callers before callees (a depth-first post-order, reversed; calls back into a cycle ignored).
  const order: number[] = [];
  const done = new Set<number>();
  const visit = (fi: number): void => {
    if (done.has(fi)) return;
    done.add(fi);
    for (const c of calleesOf[fi]!) visit(c);
    order.push(fi);
  };
  found.forEach((_, fi) => visit(fi));
  order.reverse();
  return { order, recursive: found.map((_, fi) => reaches(fi, fi)) };

  /** The region's code calls a function of the program for which `bad` holds. */
  function spansCallInto(r: Region, bad: (callee: number) => boolean): boolean {
    return [...r.body, r.entry].some((pc) => {
      const c = controlOf(program, pc);
      if (c.kind !== 'call') return false;
      return c.targets.some((t) => {
        const fi = program.functions.findIndex((fn) => t >= fn.start && t < fn.end);
        return fi !== -1 && bad(fi);
      });
    });
  }
  function dropAll(
    f: { graph: FnGraphLike; regions: Region[] },
    drop: Region[],
    why: string,
  ): void {
    for (const r of drop)
      notes.push(`${f.graph.fn.name}: region of the branch at pc ${r.branches[0]} dropped: ${why}`);
    f.regions = f.regions.filter((r) => !drop.includes(r));
  }
}

/**
 * A region in which a lane may wait while other paths of the warp run on Hanoi: it holds a
 * WARPSYNC (SEMANTICS §2) or a spin loop's YIELD (seed 000 §V-G).
 */
const suspendable = (program: Program, r: Region, yields: ReadonlySet<number>): boolean =>
  [...r.body, r.entry].some(
    (pc) => program.instructions[pc]!.opcode === 'WARPSYNC' || yields.has(pc),
  );

/**
 * No other region starts between `r`'s join and the join of the smallest region enclosing it (or
 * the end): dropping `r` leaves nothing to be entered by its lanes one group after another.
 */
function quietAfter(g: FnGraphLike, r: Region, regions: readonly Region[]): boolean {
  const ext = (x: Region): Set<number> => new Set([...x.body, x.entry]);
  const mine = ext(r);
  const parents = regions.filter(
    (a) => a !== r && ext(a).size > mine.size && [...mine].every((pc) => ext(a).has(pc)),
  );
  const parent = parents.sort((a, b) => ext(a).size - ext(b).size)[0];
  const stop = parent ? parent.join : -2;
  const seen = new Set<number>();
  const work = [r.join];
  while (work.length > 0) {
    const pc = work.pop()!;
    if (pc === stop || pc < 0 || seen.has(pc)) continue;
    seen.add(pc);
    if (regions.some((x) => x !== r && x.entry === pc)) return false;
    for (const e of edgesFrom(g, pc)) work.push(e.to);
  }
  return true;
}

/** Every way out of the region's body goes to its join: no exit, call, or escape edge. */
function leftOnlyAtJoin(g: FnGraphLike, r: Region): boolean {
  return [...r.body, r.entry].every((pc) => {
    const c = controlOf(g.program, pc);
    if (c.kind === 'call' || c.kind === 'exit' || c.kind === 'return' || c.kind === 'trap')
      return pc === r.entry && !r.body.has(pc) ? true : false;
    return edgesFrom(g, pc).every((e) => e.to === r.join || r.body.has(e.to));
  });
}

const report = (p: FunctionPlan, q: Placed): RegionReport => ({
  function: p.graph.fn.name,
  kind: q.region.kind,
  branches: q.region.branches,
  entry: q.region.entry,
  join: q.region.join,
  register: q.reg,
  depth: q.depth,
  spill: q.spill,
  delayed: q.region.delayed,
});
