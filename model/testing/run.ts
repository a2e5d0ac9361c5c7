/**
 * Test helpers shared by the lanes, mechanism, explorer and header tests. Only tests import this
 * module. Everything goes through the public pipeline: `loadProgram` → `resolveLaunch` →
 * `machineFor` → `explore` / `Machine.successors`, and `execContext` + `execute` for single
 * instructions.
 */
import { expect } from 'vitest';
import {
  defaultBudget,
  explore,
  type Budget,
  type ExploreResult,
  type Reductions,
} from '../explore/exhaustive.ts';
import { formatDiagnostic, type Program } from '../isa/program.ts';
import type { Op } from '../isa/op.ts';
import {
  execContext,
  type AtomicOrder,
  type ExecContext,
  type LaneOptions,
} from '../lanes/execContext.ts';
import { execute, type ExecResult, type Outcome } from '../lanes/execute.ts';
import { initialLaneData, readReg, type LaneData } from '../lanes/laneData.ts';
import type { Launch } from '../lanes/launch.ts';
import { memoryOf, type Memory } from '../lanes/memory.ts';
import {
  createMachine,
  type Machine,
  type MachineState,
  type Transition,
} from '../machine/machine.ts';
import type { MechanismFactory } from '../mechanisms/mechanism.ts';
import { resolveOptions } from '../mechanisms/registry.ts';
import type { WideningPlant } from '../machine/widening.ts';
import type { DeadWritesPlant } from '../machine/deadWrites.ts';
import { loadProgram, resolveLaunch, type LoadedProgram } from '../scenario/loadProgram.ts';
import { machineFor } from '../scenario/session.ts';

/** Loads a listing that must be valid; the test fails with every diagnostic otherwise. */
export function load(text: string, options: { strict?: boolean } = {}): LoadedProgram {
  const r = loadProgram(text, 'test.sass', options);
  if (!r.ok) expect.fail(r.error.map(formatDiagnostic).join('\n'));
  return r.value;
}

/** The launch of a listing: defaults, its header, then `overrides`. */
export function launchOf(loaded: LoadedProgram, overrides: Partial<Launch> = {}): Launch {
  const r = resolveLaunch(loaded.header, overrides);
  if (!r.ok) expect.fail(r.error.join('; '));
  return r.value;
}

export interface RunSetup {
  /** Mechanism options (`order`, `foreign`, `grouping`, …). */
  readonly options?: Readonly<Record<string, string>>;
  readonly launch?: Partial<Launch>;
  readonly atomicOrder?: AtomicOrder;
  readonly strict?: boolean;
  /** Lane symmetry (`MachineSpec.laneSymmetry`). */
  readonly laneSymmetry?: boolean;
  /** The relevance law's planted bug (`MachineSpec.plantUnsoundRelevance`). */
  readonly plantUnsoundRelevance?: boolean;
  /** The barrier-liveness law's planted bug (`MachineSpec.plantUnsoundBarriers`). */
  readonly plantUnsoundBarriers?: boolean;
  /** Liveness opaque at CALL, RET and BRX (`MachineSpec.opaqueCalls`). */
  readonly opaqueCalls?: boolean;
  /** The call-liveness law's planted bug (`MachineSpec.plantUnsoundReturns`). */
  readonly plantUnsoundReturns?: boolean;
  /** Loop widening (`MachineSpec.widen`); 0 or absent: off. */
  readonly widen?: number;
  /** The widening law's planted bug (`MachineSpec.plantUnsoundWidening`). */
  readonly plantUnsoundWidening?: WideningPlant;
  /** Dead writes (`MachineSpec.skipDeadWrites`), as `explore` runs; off when absent. */
  readonly skipDeadWrites?: boolean;
  /** The dead-write law's planted bug (`MachineSpec.plantUnsoundDeadWrites`). */
  readonly plantUnsoundDeadWrites?: DeadWritesPlant;
  /** Shared unknowns off, or their law's planted bug (`MachineSpec.sharedUnknowns`). */
  readonly sharedUnknowns?: 'off' | 'plant';
  /** `MachineSpec.deadRuns` (the dead-run law only). */
  readonly deadRuns?: boolean;
}

/** A machine for `mechanism` on a listing. */
export function machineOf(text: string, mechanism: string, setup: RunSetup = {}): Machine {
  const loaded = load(text, { strict: setup.strict ?? false });
  const m = machineFor(
    loaded,
    launchOf(loaded, setup.launch),
    mechanism,
    setup.options ?? {},
    setup.atomicOrder ?? 'ascending',
    setup.strict ?? false,
    true,
    setup.laneSymmetry ?? false,
    setup.widen ?? 0,
    {
      ...(setup.plantUnsoundRelevance ? { plantUnsoundRelevance: true } : {}),
      ...(setup.plantUnsoundBarriers ? { plantUnsoundBarriers: true } : {}),
      ...(setup.opaqueCalls ? { opaqueCalls: true } : {}),
      ...(setup.plantUnsoundReturns ? { plantUnsoundReturns: true } : {}),
      ...(setup.plantUnsoundWidening ? { plantUnsoundWidening: setup.plantUnsoundWidening } : {}),
      ...(setup.skipDeadWrites ? { skipDeadWrites: true } : {}),
      ...(setup.deadRuns === false ? { deadRuns: false } : {}),
      ...(setup.sharedUnknowns ? { sharedUnknowns: setup.sharedUnknowns } : {}),
      ...(setup.plantUnsoundDeadWrites
        ? { plantUnsoundDeadWrites: setup.plantUnsoundDeadWrites }
        : {}),
    },
  );
  if (!m.ok) expect.fail(m.error.join('; '));
  return m.value;
}

/**
 * A machine for a listing on `factory` itself — a mechanism variant that no registry name gives,
 * such as a law's planted bug — with `options` resolved against it, refinement checked.
 */
export function machineOnFactory(
  text: string,
  factory: MechanismFactory,
  options: Readonly<Record<string, string>> = {},
  laneSymmetry = false,
): Machine {
  const loaded = load(text);
  const opts = resolveOptions(factory, options);
  if (!opts.ok) expect.fail(opts.problems.join('; '));
  return createMachine({
    program: loaded.program,
    ops: loaded.ops,
    launch: launchOf(loaded),
    factory,
    options: opts.options,
    lanes: { atomicOrder: 'ascending', strict: false },
    entry: loaded.entry,
    ipdom: loaded.ipdom,
    laneSymmetry,
  });
}

/** Explores a listing exhaustively on one mechanism. */
export function runListing(
  text: string,
  mechanism: string,
  setup: RunSetup & {
    readonly budget?: Partial<Budget>;
    /** Reduction switches of the search (all on when absent). */
    readonly reduce?: Partial<Reductions>;
  } = {},
): { machine: Machine; result: ExploreResult } {
  const machine = machineOf(text, mechanism, setup);
  const result = explore(
    machine,
    { ...defaultBudget, ...setup.budget },
    undefined,
    setup.reduce ? { reduce: setup.reduce } : {},
  );
  return { machine, result };
}

/**
 * Replays a schedule (choice indices) from the initial state. `states[i]` is the state before step
 * i (so `states` has one more element than the steps that continued); `last` is the transition of
 * the final step, which may end the run with a `stop`.
 */
export function replay(
  machine: Machine,
  schedule: readonly number[],
): { states: MachineState[]; last: Transition | null } {
  const states = [machine.initial()];
  let last: Transition | null = null;
  for (let i = 0; i < schedule.length; i++) {
    expect(last?.stop ?? null, `step ${i} follows a step that ended the run`).toBeNull();
    const succ = machine.successors(states[states.length - 1]!);
    const t = succ[schedule[i]!];
    if (!t) expect.fail(`step ${i}: choice ${schedule[i]} of ${succ.length}`);
    last = t;
    if (t.next) states.push(t.next);
  }
  return { states, last };
}

/**
 * Runs a machine that must be deterministic (exactly one successor in every state) until nothing
 * can issue; returns every state visited, the initial one first.
 */
export function runDeterministic(machine: Machine, maxSteps = 1000): MachineState[] {
  const states = [machine.initial()];
  for (let i = 0; i < maxSteps; i++) {
    const s = states[states.length - 1]!;
    if (machine.status(s) !== 'running') return states;
    const succ = machine.successors(s);
    expect(succ.length, `step ${i} is not deterministic`).toBe(1);
    const t = succ[0]!;
    if (t.stop) expect.fail(`step ${i} stopped: ${t.stop.verdict}: ${t.stop.message}`);
    states.push(t.next!);
  }
  return expect.fail(`no end after ${maxSteps} steps`);
}

/** Every state reachable from the initial one (breadth-first, distinct, at most `limit`). */
export function reachable(machine: Machine, limit = 10_000): MachineState[] {
  const first = machine.initial();
  const seen = new Set<string>([machine.key(first)]);
  const out: MachineState[] = [first];
  for (let i = 0; i < out.length && out.length < limit; i++)
    for (const t of machine.successors(out[i]!)) {
      if (!t.next) continue;
      const k = machine.key(t.next);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(t.next);
      if (out.length >= limit) break;
    }
  return out;
}

/** A SIMT-stack entry as its view prints it: PCs as labels (or `0x0040`), masks in binary. */
export interface StackRow {
  readonly rpc: string | null;
  readonly pc: string | null;
  readonly mask: string;
}

/** The SIMT stack of warp `w`, top first, from the mechanism's view (`data.stack`). */
export function stackOf(machine: Machine, s: MachineState, w = 0): StackRow[] {
  const data = machine.mechanism.view(s.warps[w]!.mech, machine.fmt).data as { stack: StackRow[] };
  return data.stack;
}

/** Register `r` of every lane of warp `w`. */
export function regsOf(machine: Machine, s: MachineState, r: number, w = 0): number[] {
  const d = s.warps[w]!.data;
  return Array.from({ length: machine.launch.warpSize }, (_, l) =>
    readReg(d, machine.ctx.layout, l, r),
  );
}

// ---- single instructions through `execute` ----

/** A program ready for `execute`: decoded ops, launch, context, and the initial data of warp k. */
export interface Lanes {
  readonly loaded: LoadedProgram;
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly launch: Launch;
  readonly ctx: ExecContext;
  data(k?: number): LaneData;
  memory(): Memory;
}

export function lanesFor(text: string, launch: Partial<Launch> = {}, options?: LaneOptions): Lanes {
  const loaded = load(text);
  const l = launchOf(loaded, launch);
  const ctx = execContext(loaded.program, loaded.ops, l, options);
  return {
    loaded,
    program: loaded.program,
    ops: loaded.ops,
    launch: l,
    ctx,
    data: (k = 0) => initialLaneData(ctx.layout, l, k),
    memory: () => memoryOf(l.memory),
  };
}

/** Executes the instruction at `pc` for `active` lanes of warp `warp`. */
export function exec(
  lanes: Lanes,
  pc: number,
  data: LaneData,
  memory: Memory,
  active: number,
  warp = 0,
): readonly ExecResult[] {
  return execute(lanes.ctx, lanes.ops[pc]!, pc, warp, data, memory, active);
}

/** The single step result of an instruction that must not branch into alternatives or stop. */
export function execOne(
  lanes: Lanes,
  pc: number,
  data: LaneData,
  memory: Memory,
  active: number,
  warp = 0,
): Extract<ExecResult, { kind: 'step' }> {
  const rs = exec(lanes, pc, data, memory, active, warp);
  expect(rs.length, `pc ${pc} gave ${rs.length} alternatives`).toBe(1);
  const r = rs[0]!;
  if (r.kind !== 'step') return expect.fail(`pc ${pc} stopped: ${r.verdict}: ${r.message}`);
  return r;
}

/**
 * Runs straight-line code for `active` lanes of one warp from pc `from`: every instruction must
 * keep the lanes together (one group) until they all exit or reach `until` (default: the end).
 */
export function runStraight(
  lanes: Lanes,
  opts: {
    readonly active?: number;
    readonly warp?: number;
    readonly from?: number;
    readonly until?: number;
    readonly data?: LaneData;
    readonly memory?: Memory;
  } = {},
): { data: LaneData; memory: Memory; outcomes: Outcome[] } {
  const warp = opts.warp ?? 0;
  let data = opts.data ?? lanes.data(warp);
  let memory = opts.memory ?? lanes.memory();
  let mask = opts.active ?? lanes.ctx.full;
  let pc = opts.from ?? 0;
  const until = opts.until ?? lanes.ops.length;
  const outcomes: Outcome[] = [];
  while (pc < until && mask !== 0) {
    const r = execOne(lanes, pc, data, memory, mask, warp);
    data = r.data;
    memory = r.memory;
    outcomes.push(r.outcome);
    const groups = r.outcome.groups;
    expect(groups.length, `pc ${pc} split the lanes`).toBeLessThanOrEqual(1);
    if (groups.length === 0) break;
    pc = groups[0]!.pc;
    mask = groups[0]!.mask;
  }
  return { data, memory, outcomes };
}

/** Register `r` of lanes 0..W-1. */
export function laneRegs(lanes: Lanes, d: LaneData, r: number): number[] {
  return Array.from({ length: lanes.launch.warpSize }, (_, l) =>
    readReg(d, lanes.ctx.layout, l, r),
  );
}

/** Predicate `p` (0..6) of every lane: true, false, or 'unknown'. */
export function lanePreds(lanes: Lanes, d: LaneData, p: number): (boolean | 'unknown')[] {
  return Array.from({ length: lanes.launch.warpSize }, (_, l) =>
    (d.predsUnknown[p]! >>> l) & 1 ? 'unknown' : ((d.preds[p]! >>> l) & 1) === 1,
  );
}

/** A mask from lane numbers. */
export const maskOf = (...lanes: number[]): number =>
  lanes.reduce((m, l) => (m | (1 << l)) >>> 0, 0);
