/** `warpcheck simulate` end to end, through `main` with captured output. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { noColour, type Io } from './output.ts';

const root = join(new URL('.', import.meta.url).pathname, '..');
const spinlock = join(root, 'scenarios', 'spinlock.sass');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    interactive: false,
    colour: noColour,
  };
  const code = await main(args, io);
  return { code, out, err };
}

describe('warpcheck simulate', () => {
  it('runs every scheduler × scoreboard; the spinlock ends on its and is bound-reached on simt-stack', async () => {
    const r = await run([
      'simulate',
      spinlock,
      '--mechanism',
      'its,simt-stack',
      '--scheduler',
      'all',
      '--scoreboard',
      'all',
      '--max-cycles',
      '5000',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as {
      results: {
        mechanism: string;
        scheduler: string;
        scoreboard: string;
        end: { kind: string };
        issued: number;
        cycles: number;
      }[];
    };
    expect(json.results).toHaveLength(12);
    for (const x of json.results) {
      // seed 000 §III–IV: the spinlock terminates under ITS and livelocks on the SIMT stack, so a
      // cycle budget is the only way a simt-stack run ends.
      expect(x.end.kind).toBe(x.mechanism === 'its' ? 'terminated' : 'bound-reached');
      expect(x.issued).toBeLessThanOrEqual(x.cycles);
    }
  });

  it('prints a table with IPC and SIMD efficiency', async () => {
    const r = await run(['simulate', spinlock, '--mechanism', 'its']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /mechanism\s+scheduler\s+scoreboard\s+end\s+cycles\s+issued\s+IPC\s+SIMD eff\./,
    );
    expect(r.out).toMatch(/its\s+lrr\s+warp\s+terminates/);
  });

  it('rejects a bad scheduler, scoreboard or latency with one line each and exit 2', async () => {
    const r = await run([
      'simulate',
      spinlock,
      '--scheduler',
      'fifo',
      '--scoreboard',
      'lane',
      '--latency',
      'fpu=3',
    ]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(3);
    expect(r.err).toMatch(/--scheduler fifo: expected lrr, gto or all/);
    expect(r.err).not.toMatch(/at .*\.ts:\d+/);
  });
});
