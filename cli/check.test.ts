/** `warpcheck check` end to end (issue 4 "Done when"), through `main` with captured output. */
import { describe, expect, it } from 'vitest';
import { captureCli } from './capture.ts';
import { tempDir } from '../model/testing/tempDir.ts';

const run = captureCli;

interface CheckJson {
  seed: number;
  results: {
    law: string;
    mechanism: string;
    runs: number;
    expectedFailures: number;
    unexpectedFailures: number;
    counterexamples: {
      warpSize: number;
      instructions: number;
      verdict: string;
      kind: string | null;
      saved: string | null;
    }[];
  }[];
}

describe('warpcheck check', () => {
  it('runs the laws without warp symmetry on --no-warp-symmetry, and says so in the reproduce line', async () => {
    const args = ['check', '--property', 'termination', '--mechanism', 'its', '--runs', '10'];
    const r = await run([...args, '--seed', '3', '--no-save', '--no-warp-symmetry']);
    expect(r.code).toBe(0);
    expect(r.err + r.out).toMatch(/--seed 3 --no-warp-symmetry/);
  });

  it('finds the spin-loop livelock on simt-stack, shrinks it to 2 lanes and a few instructions, saves it, and replay reproduces it', async () => {
    const dir = tempDir('wc-check-');
    const args = ['check', '--property', 'termination', '--runs', '200', '--seed', '1'];
    const r = await run([...args, '--mechanism', 'simt-stack', '--save', dir, '--json']);
    // Expected (declared) failures do not fail the command.
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/seed 1/);
    const json = JSON.parse(r.out) as CheckJson;
    const row = json.results[0]!;
    expect(row).toMatchObject({ law: 'termination', mechanism: 'simt-stack', runs: 200 });
    expect(row.expectedFailures).toBeGreaterThan(0);
    expect(row.unexpectedFailures).toBe(0);
    const cx = row.counterexamples[0]!;
    // Seed 000 Fig. 3 needs two lanes: one holds the lock, one spins (W = 1 terminates).
    expect(cx.warpSize).toBe(2);
    expect(cx.instructions).toBeLessThanOrEqual(12);
    expect(cx).toMatchObject({ verdict: 'deadlock', kind: 'livelock' });
    expect(cx.saved).toMatch(/termination\/simt-stack-[0-9a-f]{8}\.json$/);
    const rep = await run(['replay', cx.saved!, '--json']);
    expect(rep.code).toBe(0);
    expect(JSON.parse(rep.out)).toMatchObject({ verdict: 'deadlock', kind: 'livelock', ok: true });

    const its = await run([...args, '--mechanism', 'its', '--save', dir, '--json']);
    expect(its.code).toBe(0);
    const itsRow = (JSON.parse(its.out) as CheckJson).results[0]!;
    expect(itsRow.expectedFailures + itsRow.unexpectedFailures).toBe(0);
    expect(itsRow.counterexamples).toEqual([]);
  });

  it('prints the seed and a law × mechanism table, and rejects unknown names with exit 2', async () => {
    const r = await run([
      'check',
      '--property',
      'P7',
      '--mechanism',
      'hanoi',
      '--runs',
      '5',
      '--seed',
      '7',
      '--no-save',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^seed 7/);
    expect(r.out).toMatch(/P7 priority-independence\s+hanoi\s+5/);
    expect(r.out).toMatch(/--seed 7/);
    // A progress bar on stderr only when it is a terminal; the table on stdout either way.
    expect(r.err).toBe('');
    const tty = await run(
      [
        'check',
        '--property',
        'P7',
        '--mechanism',
        'hanoi',
        '--runs',
        '5',
        '--seed',
        '7',
        '--no-save',
      ],
      true,
    );
    expect(tty.err).toMatch(/\r\[#+-*\]\s+\d+%\s+priority-independence × hanoi\s+\d\/5/);
    expect(tty.out).toMatch(/P7 priority-independence\s+hanoi\s+5/);
    const bad = await run(['check', '--property', 'nonsense']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown property 'nonsense'/);
    const none = await run(['check', '--property', 'P7', '--mechanism', 'its']);
    expect(none.code).toBe(2);
  });
});
