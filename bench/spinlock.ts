/**
 * The benchmark's workload: `scenarios/spinlock.sass` (seed 000 Fig. 3) on one mechanism with a
 * given warp size W and warp count K, loaded through the same pipeline as the CLI.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Machine } from '../model/machine/machine.ts';
import { loadProgram, resolveLaunch } from '../model/scenario/loadProgram.ts';
import { machineFor } from '../model/scenario/session.ts';

export const SPINLOCK = fileURLToPath(new URL('../scenarios/spinlock.sass', import.meta.url));

export interface Workload {
  readonly mechanism: string;
  readonly warpSize: number;
  readonly warps: number;
  /** `explore`'s reduction switches (all default when absent). */
  readonly reduce?: Readonly<Record<string, boolean>>;
}

/** Builds the machine of one benchmark row; throws on any load problem (a broken benchmark). */
export function spinlockMachine(w: Workload, file = SPINLOCK): Machine {
  const loaded = loadProgram(readFileSync(file, 'utf8'), file);
  if (!loaded.ok) throw new Error(loaded.error.map((e) => e.message).join('\n'));
  const launch = resolveLaunch(loaded.value.header, { warpSize: w.warpSize, warps: w.warps });
  if (!launch.ok) throw new Error(launch.error.join('\n'));
  const m = machineFor(loaded.value, launch.value, w.mechanism, {}, 'ascending');
  if (!m.ok) throw new Error(m.error.join('\n'));
  return m.value;
}
