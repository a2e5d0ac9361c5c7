/**
 * Issue 15 item 3, the round trip: every scenario in `scenarios/` and `counterexamples/` is
 * exported with `warpcheck replay SCENARIO --traceg DIR`, and `warpcheck validate` reads the trace
 * back and replays the mechanism that produced it (with the scenario's options) at 0 %
 * discrepancy: the exported trace carries what the mechanism needs to take the same path, issue
 * for issue. Also: the traces of the paper scenarios checked into `scenarios/traces/` are what
 * the exporter writes today.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { readScenario } from '../model/scenario/files.ts';
import { scenarioMachine } from '../model/scenario/session.ts';
import { captureCli } from './capture.ts';
import { validateArgsFor } from './exportTrace.ts';
import { tempDir } from '../model/testing/tempDir.ts';

const root = join(new URL('.', import.meta.url).pathname, '..');
const jsonIn = (dir: string): string[] =>
  readdirSync(join(root, dir)).flatMap((f) => {
    const path = join(root, dir, f);
    if (statSync(path).isDirectory()) return jsonIn(join(dir, f));
    return f.endsWith('.json') ? [path] : [];
  });

/** Mechanisms whose issues are formed warps of the whole block (model/mechanisms/blockMechanism.ts). */
const BLOCK_MECHANISMS = new Set(MECHANISMS.filter((m) => m.level === 'block').map((m) => m.id));

interface ValidateJson {
  readonly results: readonly {
    readonly mechanism: string;
    readonly warp: string;
    readonly hardwareLength: number;
    readonly distance: number;
    readonly discrepancy: number;
  }[];
}

describe('replay --traceg, then validate: 0 % discrepancy for the producing mechanism', () => {
  const files = [...jsonIn('scenarios'), ...jsonIn('counterexamples')];
  it('finds the scenarios', () => expect(files.length).toBeGreaterThan(30));
  for (const file of files) {
    it(file.slice(root.length + 1), async () => {
      const s = readScenario(file);
      if (!s.ok) throw new Error(s.error.map((d) => d.message).join('\n'));
      const dir = tempDir('warpcheck-traceg-');
      const w = await captureCli(['replay', file, '--traceg', dir]);
      const m = BLOCK_MECHANISMS.has(s.value.mechanism) ? scenarioMachine(s.value, file) : null;
      if (m?.ok && (m.machine.blockLaunch?.warps ?? 1) > 1) {
        // Formed warps mix the threads of several warps: no per-warp trace holds them.
        expect(w.code).toBe(2);
        expect(w.err).toContain('is a block mechanism');
        return;
      }
      expect(w.err).toBe('');
      expect(w.code).toBe(0);
      const v = await captureCli(['validate', ...validateArgsFor(s.value, dir), '--json']);
      expect(v.err).toBe('');
      const json = JSON.parse(v.out) as ValidateJson;
      expect(json.results.length).toBe(s.value.launch?.warps ?? 1);
      for (const r of json.results) {
        expect(r.mechanism).toBe(s.value.mechanism);
        expect({ warp: r.warp, distance: r.distance }).toEqual({ warp: r.warp, distance: 0 });
      }
      // Something was compared: the trace is not empty.
      expect(json.results.reduce((n, r) => n + r.hardwareLength, 0)).toBeGreaterThan(0);
    });
  }
});

describe('what the trace alone cannot say: the listing written next to it', () => {
  it('the if/else of seed 000 Fig. 1 reads back at 0 % from the trace alone (issue 15 "done when")', async () => {
    const dir = tempDir('warpcheck-traceg-');
    const file = join(root, 'scenarios', 'seed000-fig1-if-else.simt-stack.json');
    expect((await captureCli(['replay', file, '--traceg', dir])).code).toBe(0);
    const v = await captureCli([
      'validate',
      join(dir, 'kernel-1.traceg'),
      '--mechanism',
      'simt-stack',
      '--json',
    ]);
    const r = (JSON.parse(v.out) as ValidateJson).results[0]!;
    // Fig. 1: 8 issues (S2R, ISETP, BRA, the taken path's MOV, the other path's MOV and BRA, the
    // reconverged MOV, EXIT).
    expect([r.hardwareLength, r.distance, r.discrepancy]).toEqual([8, 0, 0]);
  });

  // Accel-Sim traces name general registers only. Without the listing, validate guesses the
  // WARPSYNC mask (the full warp) and the B registers (BSSY nesting depth); these two scenarios
  // need the real ones, so the guess drifts and the listing brings the distance to 0.
  for (const name of [
    'counterexamples/trace-equivalence/hanoi-a63d3603.json', // WARPSYNC 0x5 and 0xf
    'scenarios/hanoi-departs-one-waiting-mask.hanoi.json', // BSYNC B0 while B1 is open
  ])
    it(name, async () => {
      const file = join(root, name);
      const s = readScenario(file);
      if (!s.ok) throw new Error('unreadable');
      const dir = tempDir('warpcheck-traceg-');
      expect((await captureCli(['replay', file, '--traceg', dir])).code).toBe(0);
      const args = validateArgsFor(s.value, dir);
      const distance = async (a: string[]) =>
        (JSON.parse((await captureCli(['validate', ...a, '--json'])).out) as ValidateJson)
          .results[0]!.distance;
      const at = args.indexOf('--listing');
      expect(await distance([...args.slice(0, at), ...args.slice(at + 2)])).toBeGreaterThan(0);
      expect(await distance(args)).toBe(0);
    });
});

describe('scenarios/traces holds the exports of the paper scenarios', () => {
  const dir = join(root, 'scenarios', 'traces');
  const names = readdirSync(dir).filter((f) => statSync(join(dir, f)).isDirectory());
  it('has the paper scenarios', () => {
    expect(names).toContain('seed000-fig1-if-else.simt-stack');
    expect(names).toContain('seed000-fig3-spinlock.simt-stack');
  });
  for (const name of names) {
    it(`${name} is what replay --traceg writes`, async () => {
      const out = tempDir('warpcheck-traceg-');
      const r = await captureCli([
        'replay',
        join(root, 'scenarios', `${name}.json`),
        '--traceg',
        out,
      ]);
      expect(r.code).toBe(0);
      for (const f of ['kernel-1.traceg', 'kernelslist.g', 'kernel-1.sass'])
        expect(readFileSync(join(out, f), 'utf8')).toBe(readFileSync(join(dir, name, f), 'utf8'));
    });
  }
});
