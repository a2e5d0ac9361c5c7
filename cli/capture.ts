import { main } from './main.ts';
import { noColour, type Io } from './output.ts';

/** What one run of the CLI printed, and its exit status. */
export interface Captured {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs `warpcheck` in-process with captured output and no colour: the tests drive the CLI through
 * it, and the scripts that write tables into docs/ use the tool's own output through it.
 * `interactive` makes stderr count as a terminal (progress lines).
 */
export async function captureCli(args: readonly string[], interactive = false): Promise<Captured> {
  let out = '';
  let err = '';
  const io: Io = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    interactive,
    colour: noColour,
  };
  const code = await main(args, io);
  return { code, out, err };
}
