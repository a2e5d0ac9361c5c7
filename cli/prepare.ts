import type { AtomicOrder } from '../model/lanes/execContext.ts';
import type { Launch } from '../model/lanes/launch.ts';
import type { Machine } from '../model/machine/machine.ts';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { loadProgram, resolveLaunch, type LoadedProgram } from '../model/scenario/loadProgram.ts';
import { machineFor } from '../model/scenario/session.ts';
import { looksLikeScenario } from '../model/scenario/files.ts';
import { reportDiagnostics, readInput, type Io } from './output.ts';

/** What `explore` and `simulate` share: a listing, a launch, and mechanisms with their options. */
export interface PrepareArgs {
  readonly file: string;
  /** Comma-separated mechanism ids, or `all`. */
  readonly mechanism: string;
  readonly warpSize?: number;
  readonly warps?: number;
  readonly strict: boolean;
  readonly refine: boolean;
  readonly atomicOrder: AtomicOrder;
  readonly entry?: string;
  /** `mechanism.option=value` settings. */
  readonly option: readonly string[];
  /** Lane symmetry (issue 16); default off here, on in `explore`. */
  readonly laneSymmetry?: boolean;
  /** Loop widening after this many unknown turns (issue 16); 0 or absent: off. */
  readonly widen?: number;
  /**
   * Dead writes (`model/machine/deadWrites.ts`): on in `explore` unless `--no-skip-dead`; off for
   * `simulate`, whose core reads the values.
   */
  readonly skipDeadWrites?: boolean;
}

export interface Prepared {
  readonly text: string;
  readonly loaded: LoadedProgram;
  readonly launch: Launch;
  readonly machines: readonly { readonly id: string; readonly machine: Machine }[];
}

/**
 * Reads and loads the listing, resolves the launch and builds one machine per mechanism; on bad
 * input prints every problem (file:line:col where there is one) and returns the exit status 2.
 */
export function prepareMachines(a: PrepareArgs, io: Io): Prepared | number {
  const text = readInput(io, a.file);
  if (text === null) return 2;
  if (looksLikeScenario(text)) return scenarioNotListing(io, a.file);
  const loaded = loadProgram(text, a.file, {
    strict: a.strict,
    ...(a.entry ? { entry: a.entry } : {}),
  });
  if (!loaded.ok) return reportDiagnostics(io, loaded.error);
  const launch = resolveLaunch(loaded.value.header, { warpSize: a.warpSize, warps: a.warps });
  if (!launch.ok) {
    for (const p of launch.error) io.err(`${a.file}: ${p}\n`);
    return 2;
  }
  const ids =
    a.mechanism === 'all'
      ? MECHANISMS.map((m) => m.id)
      : a.mechanism.split(',').map((s) => s.trim());
  const options = parseOptionSettings(a.option, ids);
  if (!options.ok) {
    for (const p of options.error) io.err(`${p}\n`);
    return 2;
  }
  const machines = [];
  for (const id of ids) {
    const m = machineFor(
      loaded.value,
      launch.value,
      id,
      options.value[id] ?? {},
      a.atomicOrder,
      a.strict,
      a.refine,
      a.laneSymmetry ?? false,
      a.widen ?? 0,
      a.skipDeadWrites ? { skipDeadWrites: true } : {},
    );
    if (!m.ok) {
      for (const p of m.error) io.err(`${p}\n`);
      return 2;
    }
    machines.push({ id, machine: m.value });
  }
  return { text, loaded: loaded.value, launch: launch.value, machines };
}

/** `--option mech.name=value` settings grouped by mechanism; each must name a mechanism in use. */
export function parseOptionSettings(
  settings: readonly string[],
  ids: readonly string[],
): { ok: true; value: Record<string, Record<string, string>> } | { ok: false; error: string[] } {
  const value: Record<string, Record<string, string>> = {};
  const error: string[] = [];
  for (const s of settings) {
    const m = /^([a-z0-9-]+)\.([a-z0-9-]+)=(\S+)$/.exec(s);
    if (!m) {
      error.push(
        `--option ${s}: expected MECHANISM.OPTION=VALUE, e.g. simt-stack.order=not-taken-first`,
      );
      continue;
    }
    const [, mech, name, v] = m;
    if (!ids.includes(mech!)) {
      error.push(`--option ${s}: mechanism '${mech}' is not among those run (${ids.join(', ')})`);
      continue;
    }
    (value[mech!] ??= {})[name!] = v!;
  }
  return error.length ? { ok: false, error } : { ok: true, value };
}

/**
 * A command that takes a listing was given a scenario (recognised by content, `looksLikeScenario`):
 * one line saying which commands take it, exit status 2 — not one SASS error per JSON line.
 */
export function scenarioNotListing(io: Io, file: string): number {
  io.err(
    `${file}:1:1: this is a scenario (JSON), not a SASS listing: \`warpcheck replay ${file}\` runs its schedule step by step, \`warpcheck simulate ${file}\` on the issue core\n`,
  );
  return 2;
}
