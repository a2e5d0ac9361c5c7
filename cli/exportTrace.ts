import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Machine } from '../model/machine/machine.ts';
import type { Scenario } from '../model/scenario/schema.ts';
import { scenarioTrace, traceListing } from '../model/scenario/scenarioTrace.ts';
import { printKernelsList, printTraceg } from '../model/trace/printTraceg.ts';
import type { Io } from './output.ts';

/** The trace file `replay --traceg` writes, as Accel-Sim's tracer names kernel 1's. */
export const KERNEL_FILE = 'kernel-1.traceg';
/** The kernel's listing written next to it (what the trace does not record: B registers, masks). */
export const LISTING_FILE = 'kernel-1.sass';

/**
 * The `warpcheck validate` arguments that replay a scenario's mechanism, with its options, on the
 * exported trace (the round trip of issue 15).
 */
export function validateArgsFor(s: Scenario, dir: string): string[] {
  return [
    join(dir, KERNEL_FILE),
    '--listing',
    join(dir, LISTING_FILE),
    '--mechanism',
    s.mechanism,
    ...Object.entries(s.options ?? {}).flatMap(([k, v]) => [
      '--option',
      `${s.mechanism}.${k}=${v}`,
    ]),
  ];
}

/**
 * `warpcheck replay SCENARIO --traceg DIR`: writes the scenario's run as `DIR/kernel-1.traceg` and
 * `DIR/kernelslist.g` (Accel-Sim's trace-driven input; `scenarioTrace`, `printTraceg`). Exit
 * status 0 written, 1 the schedule does not fit the scenario (what came before is written), 2 the
 * folder cannot be written.
 */
export function runExportTrace(
  a: {
    readonly scenario: string;
    readonly dir: string;
    readonly turns: number;
    readonly json: boolean;
  },
  io: Io,
  scenario: Scenario,
  machine: Machine,
): number {
  // A block mechanism on several warps issues formed warps — threads of several hardware warps —
  // which no per-warp instruction stream holds (docs/semantics.md "Block mechanisms").
  if (machine.blockLaunch && machine.blockLaunch.warps > 1) {
    io.err(
      `${a.scenario}: ${machine.mechanism.id} is a block mechanism: its warps are formed from the threads of ${machine.blockLaunch.warps} warps, so its run is no per-warp trace (--traceg needs one warp, or a per-warp mechanism)\n`,
    );
    return 2;
  }
  const t = scenarioTrace(machine, scenario, { turns: a.turns });
  const file = join(a.dir, KERNEL_FILE);
  const list = join(a.dir, 'kernelslist.g');
  try {
    mkdirSync(a.dir, { recursive: true });
    writeFileSync(file, printTraceg(t.trace));
    writeFileSync(list, printKernelsList([KERNEL_FILE]));
    writeFileSync(join(a.dir, LISTING_FILE), traceListing(machine, scenario, a.scenario));
  } catch (e) {
    io.err(`${a.dir}: cannot write the trace: ${(e as Error).message}\n`);
    return 2;
  }
  const warps = t.trace.blocks.flatMap((b) => b.warps);
  const insts = warps.reduce((n, w) => n + w.insts.length, 0);
  const loop = scenario.loop ?? null;
  if (a.json)
    io.out(
      JSON.stringify(
        {
          scenario: a.scenario,
          traceg: file,
          kernelslist: list,
          blocks: t.trace.blocks.length,
          warps: warps.length,
          instructions: insts,
          steps: t.steps,
          ...(loop !== null ? { turns: a.turns } : {}),
          problem: t.problem,
        },
        null,
        2,
      ) + '\n',
    );
  else {
    io.out(
      `wrote ${file} (${insts} warp instructions of ${warps.length} warp${warps.length === 1 ? '' : 's'} in ${t.trace.blocks.length} thread block${t.trace.blocks.length === 1 ? '' : 's'}, ${t.steps} steps${loop !== null ? `: the livelock's prefix and ${a.turns} turns of its cycle` : ''}) and ${list}\n`,
    );
    io.out(`read it back: warpcheck validate ${validateArgsFor(scenario, a.dir).join(' ')}\n`);
    if (t.problem) io.err(`${a.scenario}: ${t.problem}; the trace stops before it\n`);
  }
  return t.problem ? 1 : 0;
}
