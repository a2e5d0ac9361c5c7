/** The `warpcheck` command end to end, through `main` with captured output. */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from './capture.ts';
import { main } from './main.ts';
import { noColour, type Io } from './output.ts';
import { tempDir } from '../model/testing/tempDir.ts';

const root = join(new URL('.', import.meta.url).pathname, '..');
const spinlock = join(root, 'scenarios', 'spinlock.sass');

const run = captureCli;

describe('warpcheck explore', () => {
  it('--no-exit-priority turns EXIT priority off; the JSON says whether it ran', async () => {
    interface Row {
      mechanism: string;
      verdict: string;
      states: number;
      exitPriority: { applied: number } | null;
    }
    const rows = async (extra: string[]) => {
      const r = await run([
        'explore',
        spinlock,
        '--mechanism',
        'its,simt-stack',
        '--json',
        '--no-save',
        ...extra,
      ]);
      expect(r.code).toBe(0);
      const json = JSON.parse(r.out) as { budgets: { exitPriority: boolean }; results: Row[] };
      return {
        budgets: json.budgets,
        byId: Object.fromEntries(json.results.map((x) => [x.mechanism, x])),
      };
    };
    // Acceleration off in both: 121 is the count of the search that stores every state.
    const on = await rows(['--no-accelerate']);
    const off = await rows(['--no-exit-priority', '--no-accelerate']);
    expect(on.budgets.exitPriority).toBe(true);
    expect(off.budgets.exitPriority).toBe(false);
    // its at W = 4 without it: 121 states (the count issue 16 measured before this reduction).
    expect(off.byId['its']).toMatchObject({
      verdict: 'terminates',
      states: 121,
      exitPriority: null,
    });
    expect(on.byId['its']!.verdict).toBe('terminates');
    expect(on.byId['its']!.exitPriority!.applied).toBeGreaterThan(0);
    expect(on.byId['its']!.states).toBeLessThan(121);
    // Only the its machine's own warps: simt-stack is searched as before.
    expect(on.byId['simt-stack']!.exitPriority).toBeNull();
    expect(on.byId['simt-stack']!.states).toBe(off.byId['simt-stack']!.states);
  });

  it('--no-alone-groups turns off groups that run alone; the JSON says whether they ran', async () => {
    // Two arms of a branch on the lane id that meet only at their EXITs (aloneGroups.test.ts
    // counts the states by hand: 28 without the reduction, 13 with it, acceleration and EXIT
    // priority off).
    const dir = tempDir('wc-');
    const file = join(dir, 'arms.sass');
    const add = (r: string) => `        IADD3 ${r}, ${r}, 0x1, RZ ;`;
    writeFileSync(
      file,
      [
        '// @warpcheck warp-size=2 warps=1',
        '        S2R R0, SR_LANEID ;',
        '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
        '   @P0  BRA B ;',
        add('R6'),
        add('R6'),
        add('R6'),
        '        EXIT ;',
        'B:',
        add('R7'),
        add('R7'),
        add('R7'),
        '        EXIT ;',
        '',
      ].join('\n'),
    );
    const row = async (extra: string[]) => {
      const r = await run(['explore', file, '--mechanism', 'its', '--json', '--no-save', ...extra]);
      expect(r.code).toBe(0);
      const json = JSON.parse(r.out) as {
        budgets: { aloneGroups: boolean };
        results: { verdict: string; states: number; aloneGroups: { applied: number } | null }[];
      };
      return { budgets: json.budgets, its: json.results[0]! };
    };
    const base = ['--no-accelerate', '--no-exit-priority'];
    const on = await row(base);
    const off = await row([...base, '--no-alone-groups']);
    expect(on.budgets.aloneGroups).toBe(true);
    expect(off.budgets.aloneGroups).toBe(false);
    expect(off.its).toMatchObject({ verdict: 'terminates', states: 28, aloneGroups: null });
    expect(on.its).toMatchObject({ verdict: 'terminates', states: 13 });
    expect(on.its.aloneGroups!.applied).toBeGreaterThan(0);
  });

  it('--no-bsync-priority turns off BSYNC priority; the JSON says whether it ran', async () => {
    // Two lanes that meet at one BSYNC after 0 and 3 additions (bsyncPriority.test.ts counts the
    // states by hand: 14 without the reduction, 11 with it, the other group reductions and
    // acceleration off).
    const dir = tempDir('wc-');
    const file = join(dir, 'meet.sass');
    const add = '        IADD3 R6, R6, 0x1, RZ ;';
    writeFileSync(
      file,
      [
        '// @warpcheck warp-size=2 warps=1',
        '        S2R R0, SR_LANEID ;',
        '        ISETP.EQ.AND P0, PT, R0, RZ, PT ;',
        '        BSSY B0, J ;',
        '   @P0  BRA S ;',
        add,
        add,
        add,
        'S:',
        '        BSYNC B0 ;',
        'J:',
        '        EXIT ;',
        '',
      ].join('\n'),
    );
    const row = async (extra: string[]) => {
      const r = await run(['explore', file, '--mechanism', 'its', '--json', '--no-save', ...extra]);
      expect(r.code).toBe(0);
      const json = JSON.parse(r.out) as {
        budgets: { bsyncPriority: boolean };
        results: { verdict: string; states: number; bsyncPriority: { applied: number } | null }[];
      };
      return { budgets: json.budgets, its: json.results[0]! };
    };
    const base = ['--no-accelerate', '--no-exit-priority', '--no-alone-groups', '--no-symmetry'];
    const on = await row(base);
    const off = await row([...base, '--no-bsync-priority']);
    expect(on.budgets.bsyncPriority).toBe(true);
    expect(off.budgets.bsyncPriority).toBe(false);
    expect(off.its).toMatchObject({ verdict: 'terminates', states: 14, bsyncPriority: null });
    expect(on.its).toMatchObject({
      verdict: 'terminates',
      states: 11,
      bsyncPriority: { applied: 1 },
    });
  });

  it('says its terminates and simt-stack livelocks on the spinlock (seed 000 §III–IV), in JSON', async () => {
    const dir = tempDir('wc-');
    const r = await run([
      'explore',
      spinlock,
      '--mechanism',
      'its,simt-stack',
      '--json',
      '--save',
      dir,
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as {
      results: {
        mechanism: string;
        verdict: string;
        kind: string | null;
        states: number;
        saved: string[];
      }[];
    };
    const byId = Object.fromEntries(json.results.map((x) => [x.mechanism, x]));
    expect(byId['its']).toMatchObject({ verdict: 'terminates', kind: null, saved: [] });
    expect(byId['simt-stack']).toMatchObject({ verdict: 'deadlock', kind: 'livelock' });
    expect(byId['simt-stack']!.saved).toHaveLength(1);
    // The saved scenario replays from the file alone to the same verdict.
    const saved = byId['simt-stack']!.saved[0]!;
    const rep = await run(['replay', saved, '--json']);
    expect(rep.code).toBe(0);
    expect(JSON.parse(rep.out)).toMatchObject({ verdict: 'deadlock', kind: 'livelock', ok: true });
    // Saving the same finding again keeps the one file.
    await run(['explore', spinlock, '--mechanism', 'simt-stack', '--save', dir]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(1);
  });

  it('prints a verdict table with an expectation column from the header', async () => {
    const r = await run(['explore', spinlock, '--no-save']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/its\s+terminates/);
    expect(r.out).toMatch(/simt-stack\s+deadlock\/livelock/);
    expect(r.out).toMatch(/expected/);
  });

  it('runs a 32-lane warp', async () => {
    const r = await run(['explore', spinlock, '--warp-size', '32', '--no-save', '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as { results: { verdict: string }[] };
    expect(json.results.map((x) => x.verdict)).toEqual(['terminates', 'deadlock']);
  });

  it('says in the JSON whether warp symmetry ran, and --no-warp-symmetry turns it off', async () => {
    const args = ['explore', spinlock, '--mechanism', 'its', '--warps', '2', '--warp-size', '2'];
    const on = await run([...args, '--no-save', '--json']);
    const off = await run([...args, '--no-warp-symmetry', '--no-save', '--json']);
    type Out = {
      budgets: { warpSymmetry: boolean };
      results: { verdict: string; states: number; warpSymmetry: boolean }[];
    };
    const a = JSON.parse(on.out) as Out;
    const b = JSON.parse(off.out) as Out;
    expect([a.budgets.warpSymmetry, a.results[0]!.warpSymmetry]).toEqual([true, true]);
    expect([b.budgets.warpSymmetry, b.results[0]!.warpSymmetry]).toEqual([false, false]);
    expect(a.results[0]!.verdict).toBe('terminates');
    expect(b.results[0]!.verdict).toBe('terminates');
    expect(a.results[0]!.states).toBeLessThan(b.results[0]!.states);
  });

  it('reports bound-reached, never terminates, when the budget runs out', async () => {
    const r = await run([
      'explore',
      spinlock,
      '--mechanism',
      'its',
      '--max-states',
      '10',
      '--no-save',
      '--json',
    ]);
    const json = JSON.parse(r.out) as { results: { verdict: string; bound: string }[] };
    expect(json.results[0]).toMatchObject({ verdict: 'bound-reached', bound: 'states' });
    expect(r.code).toBe(1); // the header expects its=terminates
  });

  it('says what to try after a search stopped at a budget, and for dwf why it stops', async () => {
    const hinted = await run([
      'explore',
      spinlock,
      '--mechanism',
      'its,dwf',
      '--warps',
      '2',
      '--max-states',
      '50',
      '--no-save',
    ]);
    const hints = hinted.out.split('\n').filter((l) => l.startsWith('hint: '));
    expect(hints).toHaveLength(2);
    expect(hints[0]).toMatch(/^hint: 2 searches stopped at a budget.*--random N/);
    expect(hints[1]).toMatch(/^hint: dwf keeps its threads by name/);
    // Finished searches (a verdict each) get no hint.
    const done = await run(['explore', spinlock, '--mechanism', 'its,dwf', '--no-save']);
    expect(done.out).toMatch(/dwf: every lane exited/);
    expect(done.out).not.toMatch(/^hint:/m);
  });

  it('rejects a malformed listing with one line per error: file, line, column; exit 2; no stack trace', async () => {
    const dir = tempDir('wc-');
    const bad = join(dir, 'bad.sass');
    writeFileSync(bad, 'MOV R1, 0x1 ;\n@P0 BRA nowhere ;\nEXIT ;\n');
    const r = await run(['explore', bad]);
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: .*nowhere`),
    );
    expect(r.err).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it('rejects unknown mechanisms and options with a message naming the choices', async () => {
    const r1 = await run(['explore', spinlock, '--mechanism', 'nope']);
    expect(r1.code).toBe(2);
    expect(r1.err).toMatch(/unknown mechanism 'nope' \(known: its, simt-stack/);
    const r2 = await run([
      'explore',
      spinlock,
      '--mechanism',
      'simt-stack',
      '--option',
      'simt-stack.order=sideways',
    ]);
    expect(r2.code).toBe(2);
    expect(r2.err).toMatch(/expected one of taken-first, not-taken-first/);
    const r3 = await run(['explore', spinlock, '--warp-size', '33']);
    expect(r3.code).toBe(2);
    expect(r3.err).toMatch(/warp size must be an integer from 1 to 32/);
  });

  it('a missing file is exit 2 with a message', async () => {
    const r = await run(['explore', '/nonexistent/x.sass']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot read/);
  });
});

describe('warpcheck replay', () => {
  it('prints the SIMT stack step by step in the layout of seed 000 Fig. 1c', async () => {
    const r = await run([
      'replay',
      join(root, 'scenarios', 'seed000-fig1-if-else.simt-stack.json'),
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/RPC\s+Next PC\s+Active Mask/);
    expect(r.out).toMatch(/#3\s+warp 0\s+0x0020\s+1111\s+@P0 BRA/);
    expect(r.out).toMatch(/matches/);
  });
  it('exit 1 when the expectation does not hold', async () => {
    const dir = tempDir('wc-');
    const f = join(dir, 's.json');
    writeFileSync(
      f,
      JSON.stringify({
        format: 'warpcheck-scenario',
        version: 1,
        name: 'wrong expectation',
        program: { text: 'EXIT ;\n' },
        mechanism: 'simt-stack',
        schedule: [0],
        expect: { verdict: 'deadlock', kind: 'blocked' },
      }),
    );
    const r = await run(['replay', f]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/does NOT match/);
  });
  it('exit 2 on a file that is not a scenario, naming the field', async () => {
    const dir = tempDir('wc-');
    const f = join(dir, 's.json');
    writeFileSync(
      f,
      JSON.stringify({
        format: 'warpcheck-scenario',
        version: 1,
        name: 'x',
        mechanism: 'its',
        schedule: [],
        expect: { verdict: 'terminates' },
      }),
    );
    const r = await run(['replay', f]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/program/);
    writeFileSync(f, '{ "format": ');
    const r2 = await run(['replay', f]);
    expect(r2.code).toBe(2);
    expect(r2.err).toMatch(/s\.json:1:\d+: not valid JSON/);
  });
});

describe('warpcheck parse and help', () => {
  it('prints blocks and the IPDOM of every branch', async () => {
    const r = await run([
      'parse',
      join(root, 'scenarios', 'seed002-fig7-nested-if-loop.sass'),
      '--json',
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as {
      functions: { branches: { pc: string; ipdom: string }[] }[];
    };
    const branches = json.functions[0]!.branches;
    // seed 002 Fig. 8: A's branch reconverges at G, B's at E (hand-checked against Fig. 7).
    expect(branches).toContainEqual(expect.objectContaining({ pc: '0x0060', ipdom: 'G' }));
    expect(branches).toContainEqual(expect.objectContaining({ pc: '0x0090', ipdom: 'E' }));
  });
  it('--help teaches the commands and the mechanisms', async () => {
    const r = await run(['explore', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--mechanism/);
    expect(r.out).toMatch(/simt-stack\.order=taken-first\|not-taken-first/);
    expect(r.out).toMatch(/Example:/);
  });
  it('an unknown command is exit 2', async () => {
    const r = await run(['frobnicate']);
    expect(r.code).toBe(2);
  });
});

describe('colour', () => {
  it('colours only a terminal, never piped output in CI, and obeys NO_COLOR / FORCE_COLOR', async () => {
    const { colourWanted } = await import('./output.ts');
    expect(colourWanted({}, true)).toBe(true);
    expect(colourWanted({}, false)).toBe(false);
    expect(colourWanted({ CI: 'true' }, false)).toBe(false);
    expect(colourWanted({ TERM: 'dumb' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
  });

  it('--no-color strips colour from an Io that had it, before or after the subcommand', async () => {
    const pc = (await import('picocolors')).default;
    for (const args of [
      ['--no-color', 'explore', spinlock, '--mechanism', 'its'],
      ['explore', spinlock, '--mechanism', 'its', '--no-color'],
    ]) {
      let out = '';
      const io: Io = {
        out: (t) => (out += t),
        err: () => undefined,
        interactive: false,
        colour: pc.createColors(true),
      };
      expect(await main(args, io)).toBe(0);
      expect(out).toMatch(/its\s+terminates/);
      expect(out).not.toContain('\u001b[');
    }
  });
});

describe('diagnostics', () => {
  it('prints at most 20 problems and counts the rest', async () => {
    const { reportDiagnostics } = await import('./output.ts');
    let err = '';
    const io: Io = {
      out: () => undefined,
      err: (t) => (err += t),
      interactive: false,
      colour: noColour,
    };
    const ds = Array.from({ length: 25 }, (_, i) => ({
      file: 'f.sass',
      line: i + 1,
      column: 1,
      message: 'bad',
    }));
    expect(reportDiagnostics(io, ds)).toBe(2);
    const lines = err.trim().split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe('f.sass:1:1: bad');
    expect(lines[20]).toMatch(/and 5 more problems/);
  });
});
