/**
 * Faults found by the issue-14 testing campaign (parser fuzz, mutated scenarios, explore → save →
 * replay round trips), each driven through the `warpcheck` command as a user meets it.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedFiles } from '../model/testing/committedFiles.ts';
import { captureCli as run } from './capture.ts';
import { main } from './main.ts';
import { noColour } from './output.ts';

const root = join(new URL('.', import.meta.url).pathname, '..');
const spinlock = join(root, 'scenarios', 'spinlock.sass');

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

describe('fault 2: no command adds files that the test suite reads', () => {
  it('explore and check save by default to warpcheck-out/, printed, ignored by git', async () => {
    const cwd = process.cwd();
    const dir = tmp();
    process.chdir(dir);
    try {
      const r = await run(['explore', spinlock, '--mechanism', 'simt-stack']);
      expect(r.out).toMatch(
        /saved warpcheck-out\/spinlock\.simt-stack\.deadlock-livelock\.[0-9a-f]{8}\.json/,
      );
      expect(existsSync(join(dir, 'counterexamples'))).toBe(false);
      expect(readdirSync(join(dir, 'warpcheck-out'))).toHaveLength(1);
      const c = await run([
        'check',
        '--property',
        'termination',
        '--mechanism',
        'simt-stack',
        '--runs',
        '60',
        '--seed',
        '1',
      ]);
      expect(c.out).toMatch(/saved warpcheck-out\/termination\//);
      expect(existsSync(join(dir, 'counterexamples'))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).toContain('warpcheck-out/');
  });

  it('the suite lists only files git tracks', () => {
    const repo = tmp();
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: repo,
        stdio: 'ignore',
      });
    try {
      git('init', '-q');
    } catch {
      return; // no git here: committedFiles falls back to the folder, nothing to tell apart
    }
    mkdirSync(join(repo, 'counterexamples', 'law'), { recursive: true });
    writeFileSync(join(repo, 'counterexamples', 'law', 'kept.json'), '{}');
    git('add', '.');
    git('commit', '-qm', 'x');
    writeFileSync(join(repo, 'counterexamples', 'stray.json'), '{}');
    expect(committedFiles(repo, 'counterexamples', '.json')).toEqual([
      join(repo, 'counterexamples', 'law', 'kept.json'),
    ]);
  });
});

describe('fault 3: exit codes tell a finding from bad input and from a bug', () => {
  it('0 as expected, 1 a --fail-on verdict, 2 bad input', async () => {
    expect((await run(['explore', spinlock, '--no-save'])).code).toBe(0);
    const f = await run(['explore', spinlock, '--no-save', '--fail-on', 'livelock']);
    expect(f.code).toBe(1);
    // `deadlock` covers both kinds; `blocked` alone does not match a livelock.
    expect((await run(['explore', spinlock, '--no-save', '--fail-on', 'deadlock'])).code).toBe(1);
    expect((await run(['explore', spinlock, '--no-save', '--fail-on', 'blocked'])).code).toBe(0);
    const bad = await run(['explore', spinlock, '--no-save', '--fail-on', 'deadlok']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown verdict 'deadlok' \(known: any, undefined-behavior/);
    expect((await run(['explore', join(tmp(), 'missing.sass')])).code).toBe(2);
  });

  it('3 for an internal error, with no stack trace', async () => {
    let err = '';
    const io = {
      out: () => {
        throw new Error('planted failure');
      },
      err: (t: string) => (err += t),
      interactive: false,
      colour: noColour,
    };
    const code = await main(['explore', spinlock, '--no-save'], io);
    expect(code).toBe(3);
    expect(err).toMatch(/internal error: planted failure/);
    expect(err).not.toMatch(/    at /);
  });
});
