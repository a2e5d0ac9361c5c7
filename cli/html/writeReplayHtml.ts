/** The hook of `warpcheck replay --html`: the scenario's replay view written as one page. */
import { writeFileSync } from 'node:fs';
import type { Machine } from '../../model/machine/machine.ts';
import type { Scenario } from '../../model/scenario/schema.ts';
import type { Io } from '../output.ts';
import { replayViewData } from './replayModel.ts';
import { replayPage } from './replayPage.ts';

/** Writes the page to `out`; returns 0, or 2 after printing why it cannot. */
export function writeReplayHtml(out: string, machine: Machine, s: Scenario, io: Io): number {
  if (s.core) {
    io.err(
      `--html draws step-by-step replays; this scenario replays on the issue core (cycle by cycle)\n`,
    );
    return 2;
  }
  try {
    writeFileSync(out, replayPage(replayViewData(machine, s)));
  } catch (e) {
    io.err(`${out}: cannot write: ${(e as Error).message}\n`);
    return 2;
  }
  io.err(`wrote ${out}\n`);
  return 0;
}
