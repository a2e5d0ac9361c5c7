/**
 * Random exploration (issue 10): it must find what is there to find — the `its` deadlock of
 * `scenarios/finding-its-spill-race.sass`, which the exhaustive search finds (the listing's header
 * says `expect:its=deadlock/blocked`) — with a schedule that replays to it and is no longer than
 * the run that found it; it never says `terminates`; the same seed gives the same result.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { machineOf, replay } from '../testing/run.ts';
import { explore } from './exhaustive.ts';
import { exploreRandom } from './random.ts';

const listing = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url)), 'utf8');

describe('random exploration', () => {
  it('finds the its deadlock of the spill race, shrunk, and it replays', () => {
    const text = listing('finding-its-spill-race.sass');
    expect(text).toMatch(/expect:its=deadlock\/blocked/);
    const m = machineOf(text, 'its');
    const r = exploreRandom(m, { runs: 200, seed: 7, depth: 10_000, timeoutMs: 30_000 });
    expect(`${r.verdict}/${r.kind}`).toBe('deadlock/blocked');
    const f = r.findings[0]!;
    const { states } = replay(m, f.schedule);
    expect(m.status(states.at(-1)!)).toBe('blocked');
    // Never shorter than the breadth-first search's shortest schedule — with every state stored and
    // every interleaving kept: chains and the group rules store fewer states, so their breadth-first
    // schedules are shortest in stored levels, not in steps.
    const bfs = explore(m, { maxStates: 200_000, maxDepth: 10_000, timeoutMs: 30_000 }, undefined, {
      reduce: {
        accelerate: false,
        exitPriority: false,
        aloneGroups: false,
        bsyncPriority: false,
        partialOrder: false,
      },
    });
    expect(f.schedule.length).toBeGreaterThanOrEqual(bfs.findings[0]!.schedule.length);
    // The same seed, the same finding.
    const again = exploreRandom(m, { runs: 200, seed: 7, depth: 10_000, timeoutMs: 30_000 });
    expect(again.findings[0]!.schedule).toEqual(f.schedule);
  });

  it('says no finding — never terminates — where none is reached', () => {
    const m = machineOf(listing('spinlock.sass'), 'its');
    const r = exploreRandom(m, { runs: 30, seed: 1, depth: 1_000, timeoutMs: 30_000 });
    expect(r.verdict).toBe('bound-reached');
    expect(r.bound).toBe('random');
    expect(r.message).toMatch(/^no finding in 30 random runs \(seed 1: 30 ended/);
  });
});
