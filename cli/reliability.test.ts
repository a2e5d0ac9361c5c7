/**
 * Faults found by the issue-14 testing campaign (parser fuzz, mutated scenarios, explore → save →
 * replay round trips), each driven through the `warpcheck` command as a user meets it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedFiles } from '../model/testing/committedFiles.ts';
import { captureCli as run } from './capture.ts';
import { main } from './main.ts';
import { noColour } from './output.ts';
import { tempDir } from '../model/testing/tempDir.ts';

const root = join(new URL('.', import.meta.url).pathname, '..');
const spinlock = join(root, 'scenarios', 'spinlock.sass');

const tmp = () => tempDir('wc14-');

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

const spinSaved = join(
  root,
  'counterexamples',
  'spinlock.simt-stack.deadlock-livelock.ddade8a5.json',
);
const variant = (edit: (s: Record<string, unknown>) => void): string => {
  const s = JSON.parse(readFileSync(spinSaved, 'utf8')) as Record<string, unknown>;
  edit(s);
  const file = join(tmp(), 'variant.json');
  writeFileSync(file, JSON.stringify(s, null, 2));
  return file;
};

describe('fault 5: replay has limits, and input beyond them is a clean exit 2', () => {
  it('core.maxCycles 2^52 is rejected by the schema, naming the field and the cap', async () => {
    const r = await run(['replay', variant((s) => (s['core'] = { maxCycles: 2 ** 52 }))]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/core\.maxCycles: .*1000000/);
  });

  it('a core replay that never ends stops at the time limit', async () => {
    const file = variant((s) => (s['core'] = { maxCycles: 1_000_000 }));
    const t0 = Date.now();
    const r = await run(['replay', file, '--timeout', '0.3']);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/time limit of 0\.3 s \(raise it with --timeout S\)/);
  });

  it('a step replay of a million-step lasso stops at the time limit', async () => {
    const file = variant((s) => {
      const sched = s['schedule'] as number[];
      const loop = s['loop'] as number;
      const cycle = sched.slice(loop);
      const long = [...sched];
      while (long.length < 900_000) long.push(...cycle);
      s['schedule'] = long;
    });
    const r = await run(['replay', file, '--quiet', '--timeout', '0.3']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the replay stopped after \d+ of \d+ steps: time limit of 0\.3 s/);
  });

  it('an expect state nested 10,000 deep: exit 2 at the line and column, no stack overflow', async () => {
    const text = readFileSync(spinSaved, 'utf8').replace(
      '"kind": "livelock",',
      `"kind": "livelock", "states": [{ "step": 0, "state": ${'['.repeat(10_000)}0${']'.repeat(10_000)} }],`,
    );
    const file = join(tmp(), 'deep.json');
    writeFileSync(file, text);
    const r = await run(['replay', file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/deep\.json:\d+:\d+: not valid JSON: nesting deeper than 64 levels/);
    expect(r.err).not.toMatch(/internal error/);
  });

  it('100,000 initial memory words replay in seconds, and more are refused', async () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => [0x10000 + 4 * i, i]);
    const ok = variant(
      (s) => ((s['launch'] as Record<string, unknown>)['memory'] = words(100_000)),
    );
    const t0 = Date.now();
    const r = await run(['replay', ok, '--quiet']);
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(20_000);
    const tooMany = variant(
      (s) => ((s['launch'] as Record<string, unknown>)['memory'] = words(100_001)),
    );
    const big = await run(['replay', tooMany, '--quiet']);
    expect(big.code).toBe(2);
    expect(big.err).toMatch(/launch\.memory: .*100000/);
  });
});

describe('fault 4: errors say where', () => {
  const listing = (header: string) => {
    const file = join(tmp(), 'h.sass');
    writeFileSync(file, `// @warpcheck warp-size=2 ${header}\nNOP ;\nEXIT ;\n`);
    return file;
  };
  for (const [item, message] of [
    ['warp-size=40', /warp size must be an integer from 1 to 32 \(got 40\)/],
    ['warps=9', /warps per block must be an integer from 1 to 8 \(got 9\)/],
    ['mem[-4]=1', /memory address -4 is out of range/],
    ['mem[0x10]=0x1ffffffff', /does not fit in 32 bits/],
    ['R5@999=1', /thread id '999' is out of range/],
    ['entry=nosuch', /no function named 'nosuch'/],
  ] as const)
    it(`a launch header item ${item}: line 1, the item's column`, async () => {
      const r = await run(['explore', listing(item), '--no-save']);
      expect(r.code).toBe(2);
      // `// @warpcheck warp-size=2 ` is 26 characters: the item starts at column 27.
      expect(r.err).toMatch(/h\.sass:1:27: /);
      expect(r.err).toMatch(message);
    });

  it('JSON syntax errors in a scenario: the line and column, on one line', async () => {
    const file = join(tmp(), 'bad.json');
    writeFileSync(file, '{\n  "format": "warpcheck-scenario",\n  "version": 1\n  "name": "x"\n}\n');
    const r = await run(['replay', file]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${file}:4:3: not valid JSON: unexpected '"': expected ',' or '}'\n`);
    writeFileSync(file, '{\n  "format": "warpcheck-scenario",\n  "schedule": [1, 2,\n');
    const end = await run(['replay', file]);
    expect(end.err).toBe(
      `${file}:4:1: not valid JSON: unexpected the end of the file: expected a value\n`,
    );
  });

  it('a scenario with a UTF-8 byte-order mark replays', async () => {
    const file = join(tmp(), 'bom.json');
    writeFileSync(file, '\ufeff' + readFileSync(spinSaved, 'utf8'));
    const r = await run(['replay', file, '--quiet']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('item 7: small things a user notices', () => {
  for (const command of ['validate', 'compile'])
    it(`${command} --help wraps its description, never mid-sentence`, async () => {
      const r = await run([command, '--help']);
      // The description: the lines between the usage line's blank and the next blank line.
      const lines = r.out.split('\n');
      const start = lines.findIndex((l) => l === '') + 1;
      const end = lines.indexOf('', start);
      const block = lines.slice(start, end);
      expect(block.length).toBeGreaterThan(1);
      // Commander fills every line but the last to near the width (80): a short line in the
      // middle is a hard line break inside a sentence.
      for (const l of block.slice(0, -1)) expect(l.length, l).toBeGreaterThan(60);
    });

  it('scenarios/x, ./scenarios/x and the absolute path save as one file', async () => {
    const cwd = process.cwd();
    const dir = tmp();
    process.chdir(root);
    try {
      for (const f of [
        'scenarios/spinlock.sass',
        './scenarios/spinlock.sass',
        join(root, 'scenarios', 'spinlock.sass'),
      ])
        await run(['explore', f, '--mechanism', 'simt-stack', '--save', dir]);
    } finally {
      process.chdir(cwd);
    }
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const saved = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as {
      found: { source: string };
    };
    expect(saved.found.source).toBe('scenarios/spinlock.sass');
  });

  it('control characters in a scenario name do not reach the terminal', async () => {
    const file = variant((s) => {
      s['name'] = 'evil \u001b[2J\u001b]0;owned\u0007 name';
      s['source'] = 'x\u009b31m';
    });
    const r = await run(['replay', file, '--quiet']);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.out).toContain('evil \\u001b[2J\\u001b]0;owned\\u0007 name');
  });
});
