/**
 * The benchmark's workload: `scenarios/spinlock.sass` (seed 000 Fig. 3) on one mechanism with a
 * given warp size W and warp count K, loaded through the same pipeline as the CLI.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Machine } from '../model/machine/machine.ts';
import {
  explore,
  type Budget,
  type ExploreOptions,
  type ExploreResult,
} from '../model/explore/exhaustive.ts';
import { loadProgram, resolveLaunch } from '../model/scenario/loadProgram.ts';
import { machineFor } from '../model/scenario/session.ts';

export const SPINLOCK = fileURLToPath(new URL('../scenarios/spinlock.sass', import.meta.url));

export interface Workload {
  readonly mechanism: string;
  readonly warpSize: number;
  readonly warps: number;
  /** `explore`'s reduction switches (all default when absent). */
  readonly reduce?: Readonly<Record<string, boolean>>;
  /** Mechanism options (`grouping: 'single'`); none when absent. */
  readonly options?: Readonly<Record<string, string>>;
  /** Lane symmetry, with loop widening after 2 turns, as `explore` runs by default (off when absent). */
  readonly symmetric?: boolean;
}

/** Builds the machine of one benchmark row; throws on any load problem (a broken benchmark). */
export function spinlockMachine(w: Workload, file = SPINLOCK): Machine {
  const loaded = loadProgram(readFileSync(file, 'utf8'), file);
  if (!loaded.ok) throw new Error(loaded.error.map((e) => e.message).join('\n'));
  const launch = resolveLaunch(loaded.value.header, { warpSize: w.warpSize, warps: w.warps });
  if (!launch.ok) throw new Error(launch.error.join('\n'));
  const m = machineFor(
    loaded.value,
    launch.value,
    w.mechanism,
    w.options ?? {},
    'ascending',
    false,
    true,
    w.symmetric ?? false,
    w.symmetric ? 2 : 0,
  );
  if (!m.ok) throw new Error(m.error.join('\n'));
  return m.value;
}

/** One search in this process, timed in CPU seconds (user + system), with its verdict as a cell. */
export function timedExplore(
  m: Machine,
  budget: Budget,
  options: ExploreOptions = {},
): { readonly r: ExploreResult; readonly verdict: string; readonly cpuS: number } {
  const t0 = process.cpuUsage();
  const r = explore(m, budget, undefined, options);
  const cpu = process.cpuUsage(t0);
  const verdict = r.verdict + (r.kind ? `/${r.kind}` : '') + (r.bound ? ` (${r.bound})` : '');
  return { r, verdict, cpuS: (cpu.user + cpu.system) / 1e6 };
}

/** A bench's flags: `value('--timeout')` (the word after it), `has('--no-write')`. */
export function benchArgs(argv: readonly string[] = process.argv.slice(2)): {
  value(name: string): string | undefined;
  has(name: string): boolean;
} {
  return {
    value: (name) => {
      const i = argv.indexOf(name);
      return i < 0 ? undefined : argv[i + 1];
    },
    has: (name) => argv.includes(name),
  };
}
