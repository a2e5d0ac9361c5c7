/** `warpcheck validate` end to end, through `main` with captured output. */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { captureCli } from './capture.ts';
import { tempDir } from '../model/testing/tempDir.ts';

const run = captureCli;

const dir = tempDir('wc-validate-');
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

// The if/else of traceReplay.test.ts in the older format, 4 lanes (block dim 4): the hardware
// runs the fall-through lanes 2,3 first and records BSYNC once per path.
const TRACE = [
  '-kernel name = t',
  '-block dim = (4,1,1)',
  '#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num reg_dests opcode src_num reg_srcs mem_width mem_addresses',
  '#BEGIN_TB',
  'thread block = 0,0,0',
  'warp = 0',
  'insts = 8',
  '0 0 0 0 0000 0000000f 0 BSSY 0 0 ',
  '0 0 0 0 0010 00000003 0 BRA 0 0 ',
  '0 0 0 0 0020 0000000c 1 R1 MOV 1 R2 0 ',
  '0 0 0 0 0030 0000000c 0 BRA 0 0 ',
  '0 0 0 0 0050 0000000c 0 BSYNC 0 0 ',
  '0 0 0 0 0040 00000003 1 R1 MOV 1 R3 0 ',
  '0 0 0 0 0050 00000003 0 BSYNC 0 0 ',
  '0 0 0 0 0060 0000000f 0 EXIT 0 0 ',
  '#END_TB',
  '',
].join('\n');

const LISTING = (bra: string) =>
  [
    '\tFunction : t',
    '        /*0000*/                   BSSY B0, `(.L_x_1) ;',
    '        /*0010*/              @P0  BRA `(.L_x_2) ;',
    '        /*0020*/                   MOV R1, R2 ;',
    `        /*0030*/                   ${bra} ;`,
    '.L_x_2:',
    '        /*0040*/                   MOV R1, R3 ;',
    '.L_x_3:',
    '        /*0050*/                   BSYNC B0 ;',
    '.L_x_1:',
    '        /*0060*/                   EXIT ;',
    '',
  ].join('\n');

describe('warpcheck validate', () => {
  const trace = file('ifelse.traceg', TRACE);

  it('JSON: hanoi matches the hardware, simt-stack (taken-first) is 4 edits away', async () => {
    const r = await run(['validate', trace, '--mechanism', 'hanoi,simt-stack', '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      results: { mechanism: string; distance: number; firstDifference: number | null }[];
    };
    // By hand (traceReplay.test.ts): hanoi 0; simt-stack inserts 40/3, substitutes the BSYNC,
    // deletes two: 4, first difference at index 2.
    expect(j.results.map((x) => [x.mechanism, x.distance, x.firstDifference])).toEqual([
      ['hanoi', 0, null],
      ['simt-stack', 4, 2],
    ]);
  });

  it('a row per mechanism and warp, and a side-by-side view where they differ', async () => {
    const r = await run(['validate', trace, '--mechanism', 'hanoi,simt-stack', '--window', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/hanoi\s+0,0,0\/0\s+8\s+8\s+0\s+0\.00 %\s+-\s+0\s+terminated/);
    expect(r.out).toMatch(/simt-stack\s+0,0,0\/0\s+8\s+7\s+4\s+50\.00 %\s+2\s+0\s+terminated/);
    expect(r.out).toMatch(/simt-stack on warp 0,0,0\/0: first difference at index 2/);
    // Window 1 around index 2: rows 1, 2, 3; row 2 is hardware 0x0020/c against model 0x0040/3.
    expect(r.out).toMatch(/≠\s+2\s+0x0020\s+0000000c\s+MOV\s+0x0040\s+00000003\s+MOV/);
    expect(r.out).not.toMatch(/hanoi on warp/);
  });

  it('--mechanism all covers every registered mechanism; options reach the mechanism', async () => {
    const all = await run(['validate', trace, '--json']);
    const j = JSON.parse(all.out) as { results: { mechanism: string }[] };
    expect(j.results.map((x) => x.mechanism)).toEqual(MECHANISMS.map((m) => m.id));
    // hanoi with the figures' taken-first order: 4 edits (hand-derived in traceReplay.test.ts).
    const t = await run([
      'validate',
      trace,
      '--mechanism',
      'hanoi',
      '--option',
      'hanoi.order=taken-first',
      '--json',
    ]);
    expect((JSON.parse(t.out) as { results: { distance: number }[] }).results[0]!.distance).toBe(4);
  });

  it('a listing that agrees, and one whose branch target disagrees (exit 1)', async () => {
    const good = file('good.sass', LISTING('BRA `(.L_x_3)'));
    const r = await run(['validate', trace, '--mechanism', 'hanoi', '--listing', good]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/7 executed PCs found, 0 disagreements/);
    const bad = file('bad.sass', LISTING('BRA `(.L_x_1)'));
    const b = await run(['validate', trace, '--mechanism', 'hanoi', '--listing', bad]);
    expect(b.code).toBe(1);
    // The lanes at 0x30 went to 0x50; the listing's target is .L_x_1 = 0x60.
    expect(b.out).toMatch(
      /bad\.sass:5 \(0x0030\): lanes went to 0x0050, the listing's target is 0x0060/,
    );
  });

  it('bad input: file:line:col and exit 2', async () => {
    const broken = file('broken.traceg', TRACE.replace('0 0 0 0 0020 0000000c', '0 0 0 0 0020 zz'));
    const r = await run(['validate', broken]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/broken\.traceg:10:\d+: expected the active mask/);
    const m = await run(['validate', trace, '--mechanism', 'nope']);
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/unknown mechanism 'nope'/);
    const o = await run(['validate', trace, '--mechanism', 'hanoi', '--option', 'hanoi.order=x']);
    expect(o.code).toBe(2);
    expect(o.err).toMatch(/expected one of/);
    const missing = await run(['validate', join(dir, 'absent.traceg')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read/);
  });
});

const REAL = new URL('../../shared/traces/accel-sim-hbf__lud_kernel-8.traceg', import.meta.url);
const exists = existsSync(fileURLToPath(REAL));

describe.skipIf(!exists)(
  `warpcheck validate: the real LUD trace${exists ? '' : ' (skipped: ../shared absent)'}`,
  () => {
    it('hanoi and its reproduce the 1,027 hardware issues', async () => {
      const r = await run(['validate', fileURLToPath(REAL), '--mechanism', 'its,hanoi', '--json']);
      expect(r.code).toBe(0);
      const j = JSON.parse(r.out) as {
        results: { mechanism: string; hardwareLength: number; distance: number; choices: number }[];
      };
      expect(j.results.map((x) => [x.mechanism, x.hardwareLength, x.distance])).toEqual([
        ['its', 1027, 0],
        ['hanoi', 1027, 0],
      ]);
    });
  },
);
