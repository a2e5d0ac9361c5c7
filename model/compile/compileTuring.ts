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
import { allocate, depths, type Allocation, type Placed } from './allocate.ts';
import { emit, type FunctionPlan } from './emit.ts';
import { controlOf } from '../isa/control.ts';
import { functionGraph, type FnGraph as FnGraphLike } from './graph.ts';
import { findRegions, type Region } from './regions.ts';

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
  dropRegionsAcrossCalls(program, found, notes);
  // Drop conflicting regions until the layout is consistent (each round drops at least one).
  for (;;) {
    const plans: FunctionPlan[] = [];
    let nextId = 0;
    for (const f of found) {
      if (o.allocation === 'nesting') {
        // Suspendable regions need a register each, and the others at least one to share: the
        // innermost suspendable regions beyond the budget get none (their lanes reconverge at an
        // enclosing join) — never a shared register Hanoi could overwrite while a lane waits.
        const ds = depths(f.regions);
        const susp = f.regions
          .map((r, i) => ({ r, d: ds[i]! }))
          .filter(({ r }) => suspendable(program, r, f.yields))
          .sort((a, b) => a.d - b.d);
        const room = susp.length < f.regions.length ? o.registers - 1 : o.registers;
        const drop = new Set(susp.slice(Math.max(0, room)).map(({ r }) => r));
        for (const r of drop)
          notes.push(
            `${f.graph.fn.name}: region of the branch at pc ${r.branches[0]} dropped: it holds a WARPSYNC or a spin loop and no B register of its own is left in the budget of ${o.registers}`,
          );
        f.regions = f.regions.filter((r) => !drop.has(r));
      }
      const exclusive = f.regions.map((r) => suspendable(program, r, f.yields));
      const a = allocate(
        f.regions,
        { registers: o.registers, allocation: o.allocation, spillBase, exclusive },
        nextId,
      );
      if (!a.ok) return err([o.at(f.graph.fn.start, `${f.graph.fn.name}: ${a.message}`)]);
      nextId += f.regions.length;
      plans.push({ graph: f.graph, placed: a.placed, yields: f.yields });
    }
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
 * a region never spans a CALL into code that arms barriers itself — a function with regions, or
 * one that calls such a function (recursion included): the callee's BSSY would overwrite the
 * caller's live register and its BSYNC release it (Hanoi invalidates a released register). Such
 * regions are dropped; their lanes reconverge at an enclosing join, or at the end.
 */
function dropRegionsAcrossCalls(
  program: Program,
  found: { graph: FnGraphLike; regions: Region[] }[],
  notes: string[],
): void {
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
  // Functions that arm barriers, directly or through calls (a fixpoint over the call graph).
  const arms = found.map((f) => f.regions.length > 0);
  for (let changed = true; changed;) {
    changed = false;
    calleesOf.forEach((cs, fi) => {
      if (!arms[fi] && [...cs].some((c) => arms[c])) changed = arms[fi] = true;
    });
  }
  for (const f of found) {
    const keep = f.regions.filter((r) =>
      [...r.body, r.entry].every((pc) => {
        const c = controlOf(program, pc);
        if (c.kind !== 'call') return true;
        return c.targets.every((t) => {
          const fi = program.functions.findIndex((fn) => t >= fn.start && t < fn.end);
          return fi === -1 || !arms[fi];
        });
      }),
    );
    for (const r of f.regions)
      if (!keep.includes(r))
        notes.push(
          `${f.graph.fn.name}: region of the branch at pc ${r.branches[0]} dropped: it spans a CALL into code that arms barriers (B registers are not saved across calls)`,
        );
    f.regions = keep;
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
