/**
 * Every core (issue 10 §4): `check --workers N`, `--shard i/n` and `--merge`, and `explore
 * --workers N`. N threads give the results of one, in the same order; the shards of a campaign
 * merged give the unsharded document and table. The workers here run the TypeScript sources
 * through tsx's loader (`workerPool.ts`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { captureCli } from './capture.ts';
import { runCampaigns } from './checkPool.ts';
import { tempDir } from '../model/testing/tempDir.ts';

const campaign = [
  'check',
  '--property',
  'termination,no-lane-lost',
  '--mechanism',
  'its,simt-stack',
  '--runs',
  '12',
  '--seed',
  '5',
  '--no-save',
];

interface Doc {
  pairs: number;
  shard?: unknown;
  results: {
    pair: number;
    law: string;
    mechanism: string;
    timeMs?: number;
    runsPerSecond?: number;
  }[];
}

/** The document without what a clock decides (times, rates). */
function timeless(out: string): Doc {
  const doc = JSON.parse(out) as Doc;
  for (const r of doc.results) {
    delete r.timeMs;
    delete r.runsPerSecond;
  }
  return doc;
}

/** The table's rows without the time and runs/s columns. */
const tableRows = (out: string): string[] =>
  out
    .split('\n')
    .filter((l) => /^P\d /.test(l))
    .map((l) =>
      l
        .split(/\s{2,}/)
        .slice(0, -2)
        .join(' | '),
    );

describe('check on worker threads', () => {
  it('returns each campaign in job order, whichever finishes first', async () => {
    // The first campaign is 20× longer than the second: on two threads it finishes last.
    const jobs = [
      { law: 'termination', mechanism: 'simt-stack', runs: 40, seed: 9 },
      { law: 'no-lane-lost', mechanism: 'its', runs: 2, seed: 9 },
    ];
    const finished: number[] = [];
    const results = await runCampaigns(jobs, 2, (i, done) => {
      if (done === jobs[i]!.runs) finished.push(i);
    });
    expect(results.map((r) => [r.law, r.mechanism, r.runs])).toEqual([
      ['termination', 'simt-stack', 40],
      ['no-lane-lost', 'its', 2],
    ]);
    expect(finished).toEqual([1, 0]);
  }, 120_000);

  it('--workers 2 prints the JSON of --workers 1, order included; shards merge into it', async () => {
    const one = await captureCli([...campaign, '--workers', '1', '--json']);
    const two = await captureCli([...campaign, '--workers', '2', '--json']);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    const doc = timeless(one.out);
    // Law-major, in the order the options name them.
    expect(doc.results.map((r) => `${r.pair} ${r.law} ${r.mechanism}`)).toEqual([
      '0 termination its',
      '1 termination simt-stack',
      '2 no-lane-lost its',
      '3 no-lane-lost simt-stack',
    ]);
    expect(timeless(two.out)).toEqual(doc);

    const dir = tempDir('wc-shard-');
    const files: string[] = [];
    for (const s of ['1/2', '2/2']) {
      const r = await captureCli([...campaign, '--workers', '1', '--shard', s, '--json']);
      expect(r.code).toBe(0);
      const part = timeless(r.out);
      // Shard i of n: the pairs whose place is i-1 modulo n.
      expect(part.results.map((x) => x.pair)).toEqual(s === '1/2' ? [0, 2] : [1, 3]);
      const file = join(dir, `shard-${s[0]}.json`);
      writeFileSync(file, r.out);
      files.push(file);
    }
    // Given in either order, the merge is the unsharded document and table.
    const merged = await captureCli(['check', '--merge', files[1]!, files[0]!, '--json']);
    expect(merged.code).toBe(0);
    expect(timeless(merged.out)).toEqual(doc);
    const text = await captureCli(['check', '--merge', ...files]);
    const plain = await captureCli([...campaign, '--workers', '1']);
    expect(tableRows(text.out)).toHaveLength(4);
    expect(tableRows(text.out)).toEqual(tableRows(plain.out));

    const lone = await captureCli(['check', '--merge', files[0]!]);
    expect(lone.code).toBe(2);
    expect(lone.err).toMatch(
      /2 of 4 law × mechanism pairs are in none of the files \(shard 2\/2 missing\)/,
    );
    const twice = await captureCli(['check', '--merge', files[0]!, files[0]!]);
    expect(twice.code).toBe(2);
    expect(twice.err).toMatch(/also in/);
  }, 300_000);

  it('rejects a malformed shard and a file that is no check document, with exit 2', async () => {
    const bad = await captureCli([...campaign, '--shard', '3/2']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--shard must be i\/n with 1 ≤ i ≤ n/);
    const dir = tempDir('wc-merge-');
    const file = join(dir, 'x.json');
    writeFileSync(file, '{"seed": 1}');
    const r = await captureCli(['check', '--merge', file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/x\.json: not a 'warpcheck check --json' document/);
  });
});

describe('explore on worker threads', () => {
  it('--workers 2 prints the JSON of --workers 1 for every mechanism, order included', async () => {
    const spinlock = fileURLToPath(new URL('../scenarios/spinlock.sass', import.meta.url));
    const args = ['explore', spinlock, '--mechanism', 'its,simt-stack,gcn', '--warp-size', '4'];
    const rest = ['--warps', '2', '--no-save', '--json'];
    const one = await captureCli([...args, ...rest, '--workers', '1']);
    const two = await captureCli([...args, ...rest, '--workers', '2']);
    const timeless = (out: string) =>
      JSON.stringify(JSON.parse(out), (k, v) => (k === 'timeMs' ? undefined : v));
    expect(one.code).toBe(two.code);
    const doc = JSON.parse(one.out) as { results: { mechanism: string; verdict: string }[] };
    // Seed 000 Fig. 3: the spinlock ends under ITS and livelocks on a SIMT stack.
    expect(doc.results.map((r) => `${r.mechanism} ${r.verdict}`).slice(0, 2)).toEqual([
      'its terminates',
      'simt-stack deadlock',
    ]);
    expect(doc.results.map((r) => r.mechanism)).toEqual(['its', 'simt-stack', 'gcn']);
    expect(timeless(two.out)).toBe(timeless(one.out));
  }, 120_000);
});
