/** `warpcheck simulate` end to end, through `main` with captured output. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from './capture.ts';
import { tempDir } from '../model/testing/tempDir.ts';

const root = join(new URL('.', import.meta.url).pathname, '..');
const spinlock = join(root, 'scenarios', 'spinlock.sass');

const run = captureCli;

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

  it('exits 1 when a run ends in a finding: the write-after-read hazard of out-of-order dispatch', async () => {
    // The shrunk case of counterexamples/core/war-hazard-*.json (two warps, one bank, alu = 1):
    // warp 1's MOV R2 writes back before its older IADD3 has read R2 from the only bank.
    const dir = tempDir('wc-sim-');
    const file = join(dir, 'war.sass');
    writeFileSync(
      file,
      '// @warpcheck warp-size=1 warps=2\n\tFunction : war\n        IADD3 R0, R1, R2, R0 ;\n        MOV R2, 0x0 ;\n        EXIT ;\n',
    );
    const args = ['simulate', file, '--latency', 'alu=1', '--banks', '1', '--units', '3'];
    const ooo = await run([...args, '--collector', 'out-of-order']);
    expect(ooo.out).toMatch(/war-hazard|write-after-read/);
    expect(ooo.code).toBe(1);
    const ino = await run([...args, '--collector', 'in-order']);
    expect(ino.code).toBe(0);
  });
});

describe('warpcheck simulate on every bundled listing', () => {
  it('runs each scenario listing with every scheduler, scoreboard and collector without an input error', async () => {
    const { readdirSync } = await import('node:fs');
    const dirs = ['scenarios', 'scenarios/matrix', 'scenarios/core'].map((d) => join(root, d));
    const files = dirs.flatMap((d) =>
      readdirSync(d)
        .filter((f) => f.endsWith('.sass'))
        .map((f) => join(d, f)),
    );
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) {
      const r = await run([
        'simulate',
        f,
        '--mechanism',
        'all',
        '--scheduler',
        'all',
        '--scoreboard',
        'all',
        '--collector',
        'all',
        '--max-cycles',
        '3000',
        '--json',
      ]);
      // 0 or 1 (a run ended in a finding); 2 would be an input error, a crash is a thrown test.
      expect([0, 1], `${f}: ${r.err}`).toContain(r.code);
      const json = JSON.parse(r.out) as { results: { issued: number; cycles: number }[] };
      for (const x of json.results) expect(x.issued).toBeLessThanOrEqual(x.cycles);
    }
  }, 300_000);
});

describe('warpcheck simulate --explore', () => {
  it('searches every scheduler choice: divergent loads end under every schedule; an unfair schedule spins forever on the spinlock', async () => {
    const loads = join(root, 'scenarios', 'core', 'divergent-loads.sass');
    const r = await run([
      'simulate',
      loads,
      '--explore',
      '-m',
      'simt-stack,mp-ipdom',
      '--scoreboard',
      'warp,mask',
      '--latency',
      'alu=1,shared=2,global=3',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as { results: { verdict: string }[] };
    expect(json.results.map((x) => x.verdict)).toEqual([
      'terminates',
      'terminates',
      'terminates',
      'terminates',
    ]);
    const s = await run([
      'simulate',
      spinlock,
      '--explore',
      '-m',
      'its',
      '--latency',
      'alu=1,shared=1,global=1',
      '--warp-size',
      '2',
    ]);
    expect(s.code).toBe(0);
    // explore's words (issue 14): a repeating schedule, found without a fairness check.
    expect(s.out).toMatch(/its\s+warp\s+deadlock\/livelock \(unfair\)/);
  });

  it('runs a saved scenario: its schedule drives the core, and a livelock shows its cycles per turn', async () => {
    const file = join(
      root,
      'counterexamples',
      'spinlock.simt-stack.deadlock-livelock.ddade8a5.json',
    );
    const r = await run(['simulate', file]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    // One turn: CAS (shared, 30) → ISETP (alu, 4) → BRA: 30 + 4 + 1 cycles for 3 issues.
    expect(r.out).toMatch(
      /one turn of the livelock \(3 issues\) costs 35 cycles \(turns: 35, 35, 35\)/,
    );
    expect(r.out).toMatch(/burns IPC 0\.086/);
    const j = await run([
      'simulate',
      file,
      '--latency',
      'shared=10,alu=2',
      '--turns',
      '2',
      '--json',
    ]);
    const json = JSON.parse(j.out) as {
      ok: boolean;
      results: { verdict: string; kind: string; cyclesPerTurn: number; turns: unknown[] }[];
    };
    expect(json.ok).toBe(true);
    expect(json.results[0]).toMatchObject({
      verdict: 'deadlock',
      kind: 'livelock',
      cyclesPerTurn: 13,
    });
    expect(json.results[0]!.turns).toHaveLength(2);
  });

  it('recognises a scenario by its content, never parsing JSON as SASS; says where it cannot follow a step', async () => {
    const dir = tempDir('wc-sim-');
    const broken = join(dir, 'broken.sass');
    writeFileSync(broken, '{ "format": "warpcheck-scenario", \n  "version": 1,, }\n');
    const b = await run(['simulate', broken]);
    expect(b.code).toBe(2);
    expect(b.err.trim().split('\n')).toHaveLength(1);
    expect(b.err).toMatch(/broken\.sass:2:\d+: not valid JSON/);
    // The commands that take a listing say what a scenario is for, in one line.
    const cex = join(
      root,
      'counterexamples',
      'spinlock.simt-stack.deadlock-livelock.ddade8a5.json',
    );
    for (const cmd of ['explore', 'parse']) {
      const e = await run([cmd, cex, ...(cmd === 'explore' ? ['--no-save'] : [])]);
      expect(e.code).toBe(2);
      expect(e.err.trim().split('\n')).toHaveLength(1);
      expect(e.err).toMatch(
        /:1:1: this is a scenario \(JSON\), not a SASS listing: `warpcheck replay /,
      );
    }
    const scenario = JSON.parse(
      readFileSync(join(root, 'scenarios', 'seed000-fig1-if-else.simt-stack.json'), 'utf8'),
    ) as { schedule: number[]; program: { file: string } };
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        ...scenario,
        program: { file: join(root, 'scenarios', scenario.program.file) },
        schedule: [0, 0, 5],
      }),
    );
    const r = await run(['simulate', bad]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /the core cannot follow step 3 of the schedule: choice 5 does not exist \(the state offers 1\)/,
    );
  });
});
