/**
 * The HTML and DOT options through the CLI, without a browser: what is written, where, and the
 * errors (exit 2 with a message, never a stack trace). The pages' behaviour in Chromium is
 * `pages.browser.test.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from '../capture.ts';
import { tempDir } from '../../model/testing/tempDir.ts';

const root = join(new URL('.', import.meta.url).pathname, '..', '..');
const scenarios = join(root, 'scenarios');

describe('warpcheck parse --dot', () => {
  it('prints the CFG of seed 000 Fig. 1 as DOT: four blocks, the exit, the IPDOM hint', async () => {
    const r = await captureCli(['parse', join(scenarios, 'seed000-fig1-if-else.sass'), '--dot']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^digraph cfg \{\n/);
    expect(r.out.match(/\[label=</g)!.length).toBe(5);
    expect(r.out).toContain('label="ipdom 0x0020"');
  });
});

describe('warpcheck replay --html', () => {
  it('writes one page and prints only the verdict lines', async () => {
    const dir = tempDir('wc-html-');
    const out = join(dir, 'r.html');
    const r = await captureCli([
      'replay',
      join(scenarios, 'seed000-fig1-if-else.simt-stack.json'),
      '--html',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`wrote ${out}\n`);
    expect(r.out).not.toContain('initial state'); // --html implies --quiet
    expect(r.out).toContain('expected: terminates — matches');
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<svg class="cfg"');
    expect(readdirSync(dir)).toEqual(['r.html']);
  });

  it('a folder that does not exist: exit 2 and one line', async () => {
    const r = await captureCli([
      'replay',
      join(scenarios, 'seed000-fig1-if-else.simt-stack.json'),
      '--html',
      '/nonexistent-dir/r.html',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^\/nonexistent-dir\/r\.html: cannot write: /);
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe('warpcheck explore --html', () => {
  it('the matrix row for the spinlock with a replay embedded for the simt-stack livelock only', async () => {
    const dir = tempDir('wc-html-');
    const out = join(dir, 'e.html');
    const r = await captureCli([
      'explore',
      join(scenarios, 'spinlock.sass'),
      '--mechanism',
      'its,simt-stack',
      '--no-save',
      '--json',
      '--html',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.out)).not.toThrow(); // the page's note goes to stderr
    const html = readFileSync(out, 'utf8');
    expect(html.match(/<div class="replay"/g)!.length).toBe(1);
    expect(html).toContain('data-open="k0-simt-stack-0"');
  });
});
