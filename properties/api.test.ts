/**
 * The public index (`index.ts`) as docs/api.md shows it: the documented vitest + fast-check
 * example, run verbatim against the index, and the laws taken from the registry.
 */
import { test } from '@fast-check/vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../index.ts';
import { explore, kernel, machineOf } from '../index.ts';

test.prop([kernel('loop-free')], { numRuns: 25 })('terminates on hanoi', (k) => {
  const m = machineOf(k.text, 'hanoi');
  if (!m.ok) throw new Error(m.error.join('\n'));
  expect(explore(m.value).verdict).toBe('terminates');
});

describe('the public index', () => {
  it('exports what issue 12 names', () => {
    for (const name of [
      'parseSass',
      'explore',
      'mechanisms',
      'loadScenario',
      'replay',
      'laws',
      'kernel',
      'structuredKernel',
      'scheduleArbitrary',
    ])
      expect(api, name).toHaveProperty(name);
    expect(api.laws.map((l) => l.tag)).toEqual([
      'P1',
      'P2',
      'P3',
      'P4',
      'P5',
      'P6',
      'P7',
      'P8',
      'P9',
    ]);
  });

  it('machineOf: the spinlock livelocks on simt-stack and terminates on its (seed 000 §III–IV)', () => {
    const root = join(new URL('.', import.meta.url).pathname, '..');
    const text = readFileSync(join(root, 'scenarios', 'spinlock.sass'), 'utf8');
    const on = (mech: string) => {
      const m = machineOf(text, mech);
      if (!m.ok) throw new Error(m.error.join('\n'));
      const r = explore(m.value);
      return [r.verdict, r.kind];
    };
    expect(on('simt-stack')).toEqual(['deadlock', 'livelock']);
    expect(on('its')).toEqual(['terminates', null]);
    const bad = machineOf('  BRA .L_missing ;\n', 'its', {}, 'bad.sass');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error[0]).toMatch(/^bad.sass:1:/);
    expect(machineOf(text, 'no-such').ok).toBe(false);
  });

  it('loadScenario + replay: seed 000 Fig. 1 shows its expected states', () => {
    const root = join(new URL('.', import.meta.url).pathname, '..');
    const s = api.loadScenario(join(root, 'scenarios', 'seed000-fig1-if-else.simt-stack.json'));
    if (!s.ok) throw new Error(JSON.stringify(s.error));
    const run = api.replay(s.value.machine, s.value.scenario);
    expect(run.mismatches).toEqual([]);
    expect(run.verdict).toBe('terminates');
    const missing = api.loadScenario(join(root, 'scenarios', 'no-such.json'));
    expect(missing.ok).toBe(false);
  });

  it('the termination law from the registry, as docs/api.md shows it', () => {
    const termination = api.laws.find((l) => l.id === 'termination')!;
    const text = readFileSync(
      join(new URL('.', import.meta.url).pathname, '..', 'scenarios', 'spinlock.sass'),
      'utf8',
    );
    const k = { text, warpSize: 4, warps: 1, classes: new Set(['spin'] as const), ast: null };
    const outcome = termination.check(k as never, 'simt-stack', {
      options: {},
      budget: { maxStates: 50_000, maxDepth: 10_000, timeoutMs: 5_000 },
    });
    expect(outcome.ok).toBe(false);
  });
});
