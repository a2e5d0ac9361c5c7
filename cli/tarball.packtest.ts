/**
 * The package as a user gets it (issue 12 §4): `npm pack` (which builds dist/ through `prepare`),
 * then the tarball installed into an empty project, imported as `warpcheck` and run as a command.
 * Over a minute (the build, the install), so it runs as `npm run test:pack`, not in `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(new URL('.', import.meta.url).pathname, '..');
const dir = mkdtempSync(join(tmpdir(), 'wc-pack-'));
const project = join(dir, 'project');
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund'], { cwd, encoding: 'utf8' });
const node = (args: string[]) =>
  execFileSync(process.execPath, args, { cwd: project, encoding: 'utf8' });

describe('the packed tarball in a fresh project', () => {
  beforeAll(() => {
    npm(['pack', '--pack-destination', dir], root);
    const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), '{ "name": "user", "type": "module" }\n');
    npm(['install', '--prefer-offline', join(dir, tgz)], project);
  });

  it('imports as `warpcheck`: explore is a function (the issue’s check)', () => {
    expect(node(['-e', "import('warpcheck').then(w => console.log(typeof w.explore))"])).toBe(
      'function\n',
    );
  });

  it('runs the public API: parse, build a machine, explore the spinlock on the SIMT stack', () => {
    writeFileSync(
      join(project, 'check.mjs'),
      `import { readFileSync } from 'node:fs';
import { loadProgram, resolveLaunch, machineFor, explore, mechanisms, laws, kernel } from 'warpcheck';
const text = readFileSync(${JSON.stringify(join(root, 'scenarios', 'spinlock.sass'))}, 'utf8');
const loaded = loadProgram(text, 'spinlock.sass');
const launch = resolveLaunch(loaded.value.header);
const m = machineFor(loaded.value, launch.value, 'simt-stack', {}, 'ascending');
const r = explore(m.value);
console.log(JSON.stringify({ verdict: r.verdict, kind: r.kind, mechanisms: mechanisms.length > 5, laws: laws.map((l) => l.tag).join(','), kernel: typeof kernel().generate }));
`,
    );
    // seed 000 §III: the spinlock livelocks on the pre-Volta SIMT stack.
    expect(JSON.parse(node(['check.mjs']))).toEqual({
      verdict: 'deadlock',
      kind: 'livelock',
      mechanisms: true,
      laws: 'P1,P2,P3,P4,P5,P6,P7,P8,P9',
      kernel: 'function',
    });
  });

  it('has types for TypeScript users (exports.types)', () => {
    const pkg = JSON.parse(
      node([
        '-e',
        "process.stdout.write(require('fs').readFileSync('node_modules/warpcheck/package.json','utf8'))",
      ]),
    ) as { exports: { '.': { types: string } } };
    expect(readdirSync(join(project, 'node_modules', 'warpcheck', 'dist'))).toContain('index.d.ts');
    expect(pkg.exports['.'].types).toBe('./dist/index.d.ts');
  });

  it('installs the command, which runs the compiled JavaScript', () => {
    const bin = join(project, 'node_modules', '.bin', 'warpcheck');
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' })).toMatch(/^\d+\.\d+\.\d+\n$/);
    const out = execFileSync(
      bin,
      ['parse', join(root, 'scenarios', 'seed000-fig1-if-else.sass'), '--dot'],
      {
        encoding: 'utf8',
      },
    );
    expect(out).toMatch(/^digraph cfg \{/);
    // No TypeScript source ships: the command cannot be running it.
    expect(readdirSync(join(project, 'node_modules', 'warpcheck'))).not.toContain('cli');
  });
});
