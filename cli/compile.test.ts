/** `warpcheck compile` end to end, through `main` with captured output. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from './capture.ts';
import { tempDir } from '../model/testing/tempDir.ts';

const root = join(new URL('.', import.meta.url).pathname, '..');
const spinlock = join(root, 'scenarios', 'spinlock.sass');

const run = captureCli;

describe('warpcheck compile', () => {
  it('prints the spinlock lowered as seed 000 Fig. 7 lays it out, which explore reads back', async () => {
    const r = await run(['compile', spinlock, '--target', 'turing']);
    expect(r.code).toBe(0);
    // Fig. 7: BSSY before the loop, YIELD at its top, BSYNC after the release, right before EXIT.
    const ops = r.out
      .split('\n')
      .map((l) => /\*\/\s+(?:@!?P\d\s+)?([A-Z][A-Z0-9.]*)/.exec(l)?.[1])
      .filter((x) => x !== undefined);
    expect(ops.slice(0, 11)).toEqual([
      'MOV',
      'MOV',
      'BSSY',
      'YIELD',
      'ATOMS.CAS',
      'ISETP.NE.AND',
      'BRA',
      'MOV',
      'ATOMS.ADD',
      'ATOMS.EXCH',
      'BSYNC',
    ]);
    expect(r.out).toContain('// @warpcheck warp-size=4 warps=1 mem[0x100]=0 mem[0x200]=0');
    expect(r.out).not.toContain('expect:');
    const dir = tempDir('wc-compile-');
    const file = join(dir, 'spin.sass');
    writeFileSync(file, r.out);
    const e = await run(['explore', file, '--mechanism', 'its,hanoi', '--json', '--no-save']);
    expect(e.code).toBe(0);
    const verdicts = (JSON.parse(e.out) as { results: { verdict: string }[] }).results.map(
      (x) => x.verdict,
    );
    expect(verdicts).toEqual(['terminates', 'terminates']);
  });

  it('--no-deadlock-aware: no YIELD, and hanoi livelocks (seed 000 §VI-C)', async () => {
    const dir = tempDir('wc-compile-');
    const file = join(dir, 'spin.sass');
    const r = await run(['compile', spinlock, '-t', 'turing', '--no-deadlock-aware', '-o', file]);
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toContain('YIELD');
    const e = await run(['explore', file, '--mechanism', 'hanoi', '--json', '--no-save']);
    expect((JSON.parse(e.out) as { results: { verdict: string }[] }).results[0]!.verdict).toBe(
      'deadlock',
    );
  });

  it('-o never overwrites an existing file unless --force', async () => {
    const dir = tempDir('wc-compile-');
    const file = join(dir, 'out.sass');
    writeFileSync(file, 'keep me\n');
    const r = await run(['compile', spinlock, '--target', 'turing', '-o', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('exists (use --force to overwrite)');
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    const f = await run(['compile', spinlock, '--target', 'turing', '-o', file, '--force']);
    expect(f.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('BSSY');
  });

  it('--json gives the listing, the regions with source lines, and the YIELDs', async () => {
    const r = await run(['compile', spinlock, '--target', 'turing', '--registers', '2', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      listing: string;
      regions: { kind: string; delayed: boolean; register: number; entry: { line: number } }[];
      yields: { line: number }[];
    };
    expect(j.listing).toContain('BSYNC B0');
    expect(j.regions).toHaveLength(1);
    // The loop region starts at the loop header, the ATOMS.CAS after `.L_acquire:`, on line 14.
    expect(j.regions[0]).toMatchObject({ kind: 'loop', delayed: true, register: 0 });
    expect(j.regions[0]!.entry.line).toBe(14);
    expect(j.yields.map((y) => y.line)).toEqual([14]);
  });

  it('bad input: exit 2 with file:line:col, unknown targets and budgets are usage errors', async () => {
    const dir = tempDir('wc-compile-');
    const bad = join(dir, 'bad.sass');
    writeFileSync(bad, '        MOV R1, 0x1 ;\n        BSSY B0, L ;\nL:\n        EXIT ;\n');
    const r = await run(['compile', bad, '--target', 'turing']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.sass:2:1: expected plain code, found BSSY/);
    const t = await run(['compile', spinlock, '--target', 'volta']);
    expect(t.code).toBe(2);
    expect(t.err).toContain("unknown target 'volta'; targets: turing");
    const b = await run(['compile', spinlock, '--target', 'turing', '--registers', '0']);
    expect(b.code).toBe(2);
    const m = await run(['compile', spinlock]);
    expect(m.code).toBe(2);
  });
});

describe('warpcheck compile --target fermi|gcn', () => {
  it('gcn gives the FORK/JOIN listing of seed 001 Fig. 1 that scenarios/seed001-fig1-gcn.sass holds', async () => {
    const r = await run(['compile', join(root, 'scenarios', 'seed001-fig1.sass'), '-t', 'gcn']);
    expect(r.code).toBe(0);
    // Compare the instruction sequence (opcode and operands), not addresses or indentation.
    const body = (t: string) =>
      t
        .split('\n')
        .filter((l) => /;\s*$/.test(l))
        .map((l) =>
          l
            .replace(/\/\*[0-9a-f]+\*\//, '')
            .replace(/\s+/g, ' ')
            .trim(),
        );
    const expected = readFileSync(join(root, 'scenarios', 'seed001-fig1-gcn.sass'), 'utf8');
    expect(body(r.out)).toEqual(body(expected));
    expect(body(r.out).filter((l) => l === 'FORK ;' || l === 'JOIN ;')).toHaveLength(2);
  });

  it('fermi puts an SSY before the spinlock and the result livelocks on token-stack (seed 003, seed 000 §III)', async () => {
    const dir = tempDir('wc-fermi-');
    const file = join(dir, 'spin.sass');
    const c = await run(['compile', spinlock, '-t', 'fermi', '-o', file]);
    expect(c.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/SSY/);
    const e = await run(['explore', file, '-m', 'token-stack', '--no-save', '--json']);
    const json = JSON.parse(e.out) as { results: { verdict: string; kind: string | null }[] };
    expect(json.results[0]).toMatchObject({ verdict: 'deadlock', kind: 'livelock' });
  });

  it('rejects an empty listing like every other command', async () => {
    const dir = tempDir('wc-empty-');
    const file = join(dir, 'empty.sass');
    writeFileSync(file, '// nothing here\n');
    const r = await run(['compile', file, '-t', 'turing']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/empty\.sass:1:1: the listing holds no instructions/);
  });
});
