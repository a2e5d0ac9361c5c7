import type { Finding } from '../explore/verdict.ts';
import type { Diagnostic } from '../isa/program.ts';
import type { AtomicOrder } from '../lanes/execContext.ts';
import type { Launch } from '../lanes/launch.ts';
import { createMachine, type Machine, type MachineSpec } from '../machine/machine.ts';
import { findMechanism, MECHANISMS, resolveOptions } from '../mechanisms/registry.ts';
import { scenarioProgram } from './files.ts';
import { loadProgram, resolveLaunch, type LoadedProgram } from './loadProgram.ts';
import { SCENARIO_FORMAT, SCENARIO_VERSION, type Scenario } from './schema.ts';

/** A machine for one mechanism on a loaded program, with its options checked. */
export function machineFor(
  loaded: LoadedProgram,
  launch: Launch,
  mechanism: string,
  options: Readonly<Record<string, string>>,
  atomicOrder: AtomicOrder,
  strict = false,
  refine = true,
  laneSymmetry = false,
  widen = 0,
  /** Dead writes (`explore` only) and the reduction laws' planted bugs. */
  planted: Pick<
    MachineSpec,
    | 'plantUnsoundRelevance'
    | 'plantUnsoundBarriers'
    | 'opaqueCalls'
    | 'plantUnsoundReturns'
    | 'plantUnsoundWidening'
    | 'skipDeadWrites'
    | 'deadRuns'
    | 'plantUnsoundDeadWrites'
    | 'sharedUnknowns'
  > = {},
): { ok: true; value: Machine } | { ok: false; error: string[] } {
  const factory = findMechanism(mechanism);
  if (!factory)
    return {
      ok: false,
      error: [
        `unknown mechanism '${mechanism}' (known: ${MECHANISMS.map((m) => m.id).join(', ')})`,
      ],
    };
  const opts = resolveOptions(factory, options);
  if (!opts.ok) return { ok: false, error: opts.problems };
  return {
    ok: true,
    value: createMachine({
      program: loaded.program,
      ops: loaded.ops,
      launch,
      factory,
      options: opts.options,
      lanes: { atomicOrder, strict },
      entry: loaded.entry,
      ipdom: loaded.ipdom,
      refine,
      laneSymmetry,
      widen,
      ...planted,
      ...(loaded.likelyConvergence ? { likelyConvergence: loaded.likelyConvergence } : {}),
    }),
  };
}

/**
 * A scenario that replays `finding` from the file alone: it embeds the program text (DESIGN.md:
 * a saved counterexample never points at a file), the full launch, options and schedule.
 */
export function scenarioFromFinding(args: {
  readonly name: string;
  readonly programText: string;
  readonly entry: string | null;
  readonly strict: boolean;
  readonly refine?: boolean;
  readonly launch: Launch;
  readonly mechanism: string;
  readonly options: Readonly<Record<string, string>>;
  readonly atomicOrder: AtomicOrder;
  /** The search ran with lane symmetry (`ExploreResult.laneSymmetry`): the schedule needs it. */
  readonly laneSymmetry?: boolean;
  /** Loop widening the search ran with (`MachineSpec.widen`); 0 or absent: off. */
  readonly widen?: number;
  readonly finding: Finding;
  readonly found: Record<string, unknown>;
}): Scenario {
  const f = args.finding;
  return {
    format: SCENARIO_FORMAT,
    version: SCENARIO_VERSION,
    name: args.name,
    description: f.message,
    program: { text: args.programText },
    ...(args.entry ? { entry: args.entry } : {}),
    ...(args.strict ? { strict: true } : {}),
    ...(args.refine === false ? { refine: false } : {}),
    launch: {
      warpSize: args.launch.warpSize,
      warps: args.launch.warps,
      memory: args.launch.memory.map(([a, v]) => [a, v] as [number, number]),
      constants: args.launch.constants.map((c) => ({ ...c })),
      registers: args.launch.registers.map((r) => ({
        reg: r.reg,
        value: r.value,
        ...(r.threads ? { threads: [...r.threads] } : {}),
      })),
    },
    mechanism: args.mechanism,
    options: { ...args.options },
    atomicOrder: args.atomicOrder,
    ...(args.laneSymmetry ? { laneSymmetry: true } : {}),
    ...(args.widen ? { widen: args.widen } : {}),
    schedule: [...f.schedule],
    ...(f.loop !== null ? { loop: f.loop } : {}),
    expect: { verdict: f.verdict, kind: f.kind, property: f.property },
    found: args.found,
  };
}

/** Loads a scenario's program and builds its machine. */
export function scenarioMachine(
  s: Scenario,
  scenarioFile: string,
):
  | { ok: true; machine: Machine; loaded: LoadedProgram }
  | { ok: false; error: readonly Diagnostic[] } {
  const at = (message: string): Diagnostic[] => [
    { file: scenarioFile, line: 1, column: 1, message },
  ];
  const prog = scenarioProgram(s, scenarioFile);
  if (!prog.ok) return { ok: false, error: at(prog.message) };
  const loaded = loadProgram(prog.text, prog.file, {
    strict: s.strict ?? false,
    ...(s.entry ? { entry: s.entry } : {}),
  });
  if (!loaded.ok) return loaded;
  const launch = resolveLaunch(loaded.value.header, s.launch ?? {});
  if (!launch.ok) return { ok: false, error: at(launch.error.join('; ')) };
  const m = machineFor(
    loaded.value,
    launch.value,
    s.mechanism,
    s.options ?? {},
    s.atomicOrder ?? 'ascending',
    s.strict ?? false,
    s.refine ?? true,
    s.laneSymmetry ?? false,
    s.widen ?? 0,
  );
  if (!m.ok) return { ok: false, error: at(m.error.join('; ')) };
  return { ok: true, machine: m.value, loaded: loaded.value };
}
