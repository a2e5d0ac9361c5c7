/**
 * The HTML pages in a real browser: playwright-core drives Debian's Chromium (`apt-get install
 * chromium`; `.ci/run` installs it). Skips, saying so, where no Chromium is installed.
 * Expected states are the scenario's own, derived by hand from seed 000 §II (Fig. 1) and §III
 * (Fig. 3) — not read back from our output. Screenshots go to a temporary folder (printed).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { captureCli } from '../capture.ts';
import { tempDir } from '../../model/testing/tempDir.ts';

const root = join(new URL('.', import.meta.url).pathname, '..', '..');
const scenario = (name: string) => join(root, 'scenarios', name);

const CANDIDATES = [
  process.env['CHROMIUM_PATH'],
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
].filter((p): p is string => !!p);
const chromium = CANDIDATES.find((p) => existsSync(p));
if (!chromium)
  console.warn(
    `pages.browser.test.ts: skipped — no Chromium found (looked at ${CANDIDATES.join(', ')}); ` +
      'install it with `apt-get install chromium` or set CHROMIUM_PATH',
  );

interface Expected {
  step: number;
  issue?: { pc: string; mask: string };
  state?: { stack: { rpc: string | null; pc: string; mask: string }[] };
}

describe.skipIf(!chromium)('HTML pages in Chromium', () => {
  let browser: Browser;
  const dir = tempDir('wc-html-');
  const shots: string[] = [];

  beforeAll(async () => {
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    if (shots.length) console.log(`screenshots in ${dir}: ${shots.join(', ')}`);
  });

  const open = async (file: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // No request leaves the page: it is self-contained.
    await page.route('**/*', (r) =>
      r.request().url().startsWith('file:') ? r.continue() : r.abort(),
    );
    await page.goto(`file://${file}`);
    expect(errors).toEqual([]);
    return page;
  };
  const shot = async (page: Page, name: string) => {
    const path = join(dir, name);
    await page.screenshot({ path });
    shots.push(name);
  };
  const stepOf = (page: Page) => page.locator('.replay:not([hidden])').getAttribute('data-step');
  /** The issued row's PC as the CFG prints it, or null. */
  const issuedPc = (page: Page) =>
    page.evaluate(
      () =>
        document
          .querySelector('.replay:not([hidden]) svg.cfg .ins.issued .pc')
          ?.textContent?.trim() ?? null,
    );
  /** The rows of the first state table (the SIMT stack, top first) as its cells' text. */
  const stackRows = (page: Page) =>
    page.evaluate(() =>
      [
        ...document.querySelectorAll(
          '.replay:not([hidden]) .state-pane table.state:first-of-type tbody tr:not(.empty)',
        ),
      ].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())),
    );

  it('replay --html of seed 000 Fig. 1: the CFG, and the stack states (1)–(4) step by step with →', async () => {
    const file = scenario('seed000-fig1-if-else.simt-stack.json');
    const out = join(dir, 'fig1.html');
    const r = await captureCli(['replay', file, '--html', out]);
    expect(r.code).toBe(0);
    const page = await open(out);
    // The CFG: the four blocks of Fig. 1a and the virtual exit, the IPDOM marked.
    await expect(page.locator('svg.cfg .node').count()).resolves.toBe(5);
    expect((await page.locator('svg.cfg .ins.reconv .pc').textContent())?.trim()).toBe('IPDOM');
    const expected = (JSON.parse(readFileSync(file, 'utf8')) as { expect: { states: Expected[] } })
      .expect.states;
    const last = Math.max(...expected.map((e) => e.step));
    let checked = 0;
    for (let step = 0; step <= last; step++) {
      if (step > 0) await page.keyboard.press('ArrowRight');
      expect(await stepOf(page)).toBe(String(step));
      const e = expected.find((x) => x.step === step);
      if (!e) continue;
      if (e.issue) expect(await issuedPc(page)).toBe(e.issue.pc);
      else expect(await issuedPc(page)).toBeNull();
      if (e.state)
        expect(await stackRows(page)).toEqual(
          e.state.stack.map((x) => [x.rpc ?? '-', x.pc, x.mask]),
        );
      checked++;
      if (step === 3) await shot(page, 'fig1-step3-divergence.png');
    }
    expect(checked).toBe(expected.length);
    // Step 3 (divergence): lanes 0,1 wait at TAKEN and 2,3 at NOT_TAKEN (seed 000 §II).
    await page.keyboard.press('Home');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    const lanes = await page.evaluate(() =>
      [...document.querySelectorAll('svg.cfg .ins.occupied')].map((g) => [
        g.querySelector('.pc')!.textContent!.trim(),
        g.querySelector('.lanes')!.textContent,
      ]),
    );
    expect(lanes.sort()).toEqual([
      ['NOT_TAKEN', '● 2,3'],
      ['TAKEN', '● 0,1'],
    ]);
    await page.keyboard.press('ArrowLeft');
    expect(await stepOf(page)).toBe('2');
    await page.close();
    const dark = await open(out, 'dark');
    await dark.keyboard.press('End');
    await shot(dark, 'fig1-end-dark.png');
    await dark.close();
  });

  it('replay --html of the spinlock livelock (seed 000 Fig. 3): the cycle is banded and → loops', async () => {
    const file = scenario('seed000-fig3-spinlock.simt-stack.json');
    const s = JSON.parse(readFileSync(file, 'utf8')) as { schedule: number[]; loop: number };
    const out = join(dir, 'spinlock.html');
    const r = await captureCli(['replay', file, '--html', out]);
    expect(r.code).toBe(0);
    const page = await open(out, 'dark');
    await expect(page.locator('.cycle-band').count()).resolves.toBe(1);
    await page.keyboard.press('End');
    expect(await stepOf(page)).toBe(String(s.schedule.length));
    await shot(page, 'spinlock-cycle-dark.png');
    // After the last step comes the cycle's first: the state after it equals the state at `loop`.
    await page.keyboard.press('ArrowRight');
    expect(await stepOf(page)).toBe(String(s.loop + 1));
    await expect(page.locator('.counter').textContent()).resolves.toContain('cycle');
    await page.close();
  });

  it('explore --html: the verdict matrix opens the embedded replay of a failing cell', async () => {
    const out = join(dir, 'explore.html');
    const r = await captureCli([
      'explore',
      join(root, 'scenarios', 'spinlock.sass'),
      '--mechanism',
      'its,simt-stack',
      '--no-save',
      '--html',
      out,
    ]);
    expect(r.code).toBe(0);
    const page = await open(out);
    const header = await page.locator('table.matrix thead th').allTextContents();
    expect(header[0]).toBe('mechanism');
    expect(header[1]).toMatch(/^spinlock\.sass/);
    const mechs = await page.locator('table.matrix tbody th').allTextContents();
    expect(mechs).toEqual(['its', 'simt-stack']);
    // seed 000 §III–IV: its terminates, the SIMT stack livelocks.
    const cells = page.locator('table.matrix tbody td');
    await expect(cells.nth(0).textContent()).resolves.toMatch(/^terminates/);
    await expect(cells.nth(1).locator('a').textContent()).resolves.toMatch(/deadlock \(livelock\)/);
    await shot(page, 'explore-matrix.png');
    await cells.nth(1).locator('a').click();
    await expect(page.locator('.matrix-page').isHidden()).resolves.toBe(true);
    await page.keyboard.press('ArrowRight');
    expect(await stepOf(page)).toBe('1');
    await shot(page, 'explore-replay.png');
    await page.locator('.replay:not([hidden]) .back-link').click();
    await expect(page.locator('.matrix-page').isVisible()).resolves.toBe(true);
    await page.close();
  });
});
