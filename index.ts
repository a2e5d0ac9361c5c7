/**
 * warpcheck as a library: the public surface of the `warpcheck` package (`import … from
 * 'warpcheck'`), documented with an example in docs/api.md. Everything here is re-exported from
 * the folders' own modules; nothing else of the tree is public.
 */
import type fc from 'fast-check';
import { findSource } from './properties/laws/kernels.ts';
import type { GeneratedKernel } from './properties/arbitraries/kernel.ts';
import { readScenario } from './model/scenario/files.ts';
import { loadProgram, resolveLaunch } from './model/scenario/loadProgram.ts';
import { machineFor, scenarioMachine } from './model/scenario/session.ts';
import type { Scenario } from './model/scenario/schema.ts';
import type { Machine } from './model/machine/machine.ts';
import type { LoadedProgram } from './model/scenario/loadProgram.ts';
import { formatDiagnostic, type Diagnostic } from './model/isa/program.ts';

// Parsing and the CFG.
export { parseSass, type ParsedListing, type ParseOptions } from './model/isa/parseSass.ts';
export { formatDiagnostic, type Diagnostic, type Program } from './model/isa/program.ts';
export { buildCfg, ipdomTable, type ProgramCfg } from './model/cfg/index.ts';
export { cfgDot, cfgPicture, type PictureFunction } from './model/cfg/index.ts';

// Machines: a program on a mechanism under a launch.
export {
  loadProgram,
  resolveLaunch,
  type LoadedProgram,
  type LoadOptions,
} from './model/scenario/loadProgram.ts';
export { machineFor } from './model/scenario/session.ts';
export type { Machine, MachineState, Transition, Stop } from './model/machine/machine.ts';

// The mechanism registry (`mechanisms`, also as MECHANISMS) and the mechanism interface.
export {
  MECHANISMS,
  MECHANISMS as mechanisms,
  findMechanism,
  resolveOptions,
} from './model/mechanisms/registry.ts';
export type {
  Issue,
  Mechanism,
  MechanismContext,
  MechanismFactory,
  OptionSpec,
  StateView,
  Formatter,
} from './model/mechanisms/mechanism.ts';

// Exhaustive exploration and its verdicts.
export {
  explore,
  defaultBudget,
  type Budget,
  type ExploreResult,
  type ExploreOptions,
  type Progress,
} from './model/explore/exhaustive.ts';
export type { Verdict, DeadlockKind, Finding } from './model/explore/verdict.ts';

// Scenarios: load, replay, save.
export { parseScenario, readScenario, saveScenario } from './model/scenario/files.ts';
export { scenarioFromFinding } from './model/scenario/session.ts';
export { replay, type ReplayRun, type ReplayStep } from './model/scenario/replay.ts';
export type { Scenario } from './model/scenario/schema.ts';

// The law registry (P1–P8) and its campaign runner.
export { LAWS, LAWS as laws, findLaw, runCampaign, EXPECTATIONS } from './properties/laws/index.ts';
export type { Law, LawOutcome, CheckOptions, KernelSource } from './properties/laws/types.ts';
export { SOURCES as kernelSources } from './properties/laws/kernels.ts';

// The fast-check arbitraries.
export * from './properties/arbitraries/index.ts';

/**
 * A generated kernel (a SASS listing with its launch header) from one of the laws' generators,
 * by id (`kernelSources`: `structured`, `unstructured`, `compiled`, `mixed`, `turing`, …).
 * For `test.prop([kernel()])(…)` in a vitest + fast-check suite.
 */
export function kernel(source = 'structured'): fc.Arbitrary<GeneratedKernel> {
  return findSource(source).arbitrary;
}

/** A scenario file with its program loaded and its machine built, ready for `replay`. */
export interface LoadedScenario {
  readonly scenario: Scenario;
  readonly machine: Machine;
  readonly loaded: LoadedProgram;
}

/**
 * Reads a scenario file (JSON, as `warpcheck explore` saves them), loads its program (embedded, or
 * a file relative to the scenario) and builds its machine. Problems come back as diagnostics with
 * file, line and column, never as exceptions.
 */
export function loadScenario(
  file: string,
): { ok: true; value: LoadedScenario } | { ok: false; error: readonly Diagnostic[] } {
  const s = readScenario(file);
  if (!s.ok) return s;
  const m = scenarioMachine(s.value, file);
  if (!m.ok) return m;
  return { ok: true, value: { scenario: s.value, machine: m.machine, loaded: m.loaded } };
}

/**
 * The machine of a listing (SASS text; its `// @warpcheck` header gives the launch) on one
 * registered mechanism: the path `warpcheck explore` takes, in one call. `options` are the
 * mechanism's (`mechanisms[i].options`), defaults filled in. Problems come back as messages.
 */
export function machineOf(
  text: string,
  mechanism: string,
  options: Readonly<Record<string, string>> = {},
  file = 'kernel.sass',
): { ok: true; value: Machine } | { ok: false; error: readonly string[] } {
  const loaded = loadProgram(text, file);
  if (!loaded.ok) return { ok: false, error: loaded.error.map(formatDiagnostic) };
  const launch = resolveLaunch(loaded.value.header);
  if (!launch.ok) return { ok: false, error: launch.error };
  return machineFor(loaded.value, launch.value, mechanism, options, 'ascending');
}
