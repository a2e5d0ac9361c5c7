/**
 * Faults found by the issue-14 testing campaign (parser fuzz, mutated scenarios, explore → save →
 * replay round trips), each driven through the `warpcheck` command as a user meets it.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli as run } from './capture.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'wc14-'));

describe('fault 1: explore saves of a run past the end replay', () => {
  it('a one-NOP listing: undefined-behavior, saved, and replayed to the same verdict', async () => {
    const dir = tmp();
    const file = join(dir, 'nop.sass');
    writeFileSync(file, '// @warpcheck warp-size=1\nNOP ;\n');
    const save = join(dir, 'out');
    const r = await run(['explore', file, '--mechanism', 'its,simt-stack', '--save', save]);
    expect(r.out).toMatch(/its\s+undefined-behavior/);
    const saved = readdirSync(save).filter((f) => f.endsWith('.json'));
    expect(saved).toHaveLength(2);
    for (const f of saved) {
      const rep = await run(['replay', join(save, f)]);
      expect(rep.err).toBe('');
      expect(rep.code).toBe(0);
      expect(rep.out).toMatch(/\(past the end of the program\)/);
      expect(rep.out).toMatch(/expected: undefined-behavior — matches/);
    }
  });
});
