/**
 * Every scenario in `scenarios/` (hand-written, from the papers) and `counterexamples/` (saved by
 * property runs and `explore`) replays to its expected verdict and states. Listings with
 * `// @warpcheck expect:` headers are explored and must give the expected verdicts.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore } from '../model/explore/exhaustive.ts';
import { readScenario } from '../model/scenario/files.ts';
import { loadProgram, resolveLaunch } from '../model/scenario/loadProgram.ts';
import { replay } from '../model/scenario/replay.ts';
import { replayCore } from '../model/scenario/replayCore.ts';
import { machineFor, scenarioMachine } from '../model/scenario/session.ts';
import { committedFiles } from '../model/testing/committedFiles.ts';
import { DEFAULT_BUDGET, findLaw, kernelOfText } from '../properties/laws/index.ts';

const here = new URL('.', import.meta.url).pathname;
const root = join(here, '..');
/**
 * Every committed JSON file under `dir`, subfolders included (`counterexamples/<law>/…`): a file
 * a command just saved there is not part of the suite until it is committed (issue 14).
 */
const jsonIn = (dir: string): string[] => committedFiles(root, dir, '.json');

describe('hand-written and saved scenarios replay to their expectations', () => {
  const files = [...jsonIn('scenarios'), ...jsonIn('counterexamples')];
  it('finds the paper scenarios', () => {
    const names = files.map((f) => f.split('/').pop());
    for (const n of [
      'seed000-fig1-if-else.simt-stack.json',
      'seed002-fig9-nested-if-loop.simt-stack.json',
      'seed000-fig3-spinlock.simt-stack.json',
      'seed000-fig3-spinlock.its.json',
    ])
      expect(names).toContain(n);
  });
  for (const file of files) {
    it(file.slice(root.length), () => {
      const s = readScenario(file);
      if (!s.ok) throw new Error(s.error.map((d) => d.message).join('\n'));
      const m = scenarioMachine(s.value, file);
      if (!m.ok) throw new Error(m.error.map((d) => d.message).join('\n'));
      // A scenario with `core` replays on the issue core (model/scenario/replayCore.ts).
      const run = s.value.core ? replayCore(m.machine, s.value) : replay(m.machine, s.value);
      expect(run.mismatches).toEqual([]);
      expect(run.verdict).toBe(s.value.expect.verdict);
      // A law counterexample still breaks its law (fixing the cause means updating the file).
      if (s.value.law !== undefined) {
        const law = findLaw(s.value.law);
        if (!law) throw new Error(`${file}: no law '${s.value.law}' in properties/laws`);
        if (!('text' in s.value.program))
          throw new Error('a saved counterexample embeds its program');
        const source = s.value.found?.['source'];
        const text = typeof source === 'string' ? source : s.value.program.text;
        const out = law.check(kernelOfText(text), s.value.mechanism, {
          options: m.machine.options,
          budget: DEFAULT_BUDGET,
        });
        expect(out.ok, `${s.value.law} on ${s.value.mechanism} holds now`).toBe(false);
      }
      // Paper scenarios are checked state by state, not only by verdict.
      if (file.includes('/scenarios/seed'))
        expect(s.value.expect.states?.length ?? 0).toBeGreaterThan(2);
    });
  }
});

describe('expected states are really compared', () => {
  const file = join(root, 'scenarios', 'seed002-fig9-nested-if-loop.simt-stack.json');
  it('the Fig. 9 states do not hold with the taken path first', () => {
    const s = readScenario(file);
    if (!s.ok) throw new Error('unreadable');
    const altered = { ...s.value, options: { order: 'taken-first' } };
    const m = scenarioMachine(altered, file);
    if (!m.ok) throw new Error('unloadable');
    const run = replay(m.machine, altered);
    // Taken-first runs F (thread 4) before B: state 9-A has F on top.
    expect(run.mismatches.some((x) => x.startsWith('step 7: expected state'))).toBe(true);
  });
  it('a schedule that stops early does not show termination', () => {
    const s = readScenario(file);
    if (!s.ok) throw new Error('unreadable');
    const cut = {
      ...s.value,
      schedule: s.value.schedule.slice(0, 10),
      expect: { ...s.value.expect, states: [] },
    };
    const m = scenarioMachine(cut, file);
    if (!m.ok) throw new Error('unloadable');
    expect(replay(m.machine, cut).verdict).toBe('incomplete');
  });
  it('a lasso that does not return to its start is not a livelock', () => {
    const spin = join(root, 'scenarios', 'seed000-fig3-spinlock.simt-stack.json');
    const s = readScenario(spin);
    if (!s.ok) throw new Error('unreadable');
    const wrong = { ...s.value, loop: 4 };
    const m = scenarioMachine(wrong, spin);
    if (!m.ok) throw new Error('unloadable');
    const run = replay(m.machine, wrong);
    expect(run.verdict).toBe('incomplete');
    expect(run.message).toMatch(/does not return/);
  });
});

describe('listings with expect headers explore to the expected verdicts', () => {
  // Committed listings directly in scenarios/ (not its subfolders).
  const listings = committedFiles(root, 'scenarios', '.sass')
    .filter((p) => dirname(p) === join(root, 'scenarios'))
    .map((p) => basename(p));
  for (const f of listings) {
    const file = join(root, 'scenarios', f);
    const loaded = loadProgram(readFileSync(file, 'utf8'), file);
    if (!loaded.ok) throw new Error(loaded.error.map((d) => d.message).join('\n'));
    const expectations = Object.entries(loaded.value.header.expect);
    for (const [mechanism, verdict] of expectations) {
      it(`${f} on ${mechanism}: ${verdict}`, () => {
        const launch = resolveLaunch(loaded.value.header);
        if (!launch.ok) throw new Error(launch.error.join());
        // As `warpcheck explore` runs by default: lane symmetry and loop widening (issue 16).
        const m = machineFor(
          loaded.value,
          launch.value,
          mechanism,
          {},
          'ascending',
          false,
          true,
          true,
          2,
        );
        if (!m.ok) throw new Error(m.error.join());
        const r = explore(m.value, { maxStates: 200_000, maxDepth: 10_000, timeoutMs: 30_000 });
        expect(r.kind ? `${r.verdict}/${r.kind}` : r.verdict).toBe(verdict);
      });
    }
  }
});
