import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * `bench/RESULTS.md` is generated: `npm run bench` (or `-- --render`) writes the tables from
 * `bench/results.json`, then `bench/NOTES.md` verbatim. Analysis written into RESULTS.md alone is
 * overwritten at the next bench run — as 1,360 lines of it would have been on 2026-11-28, when
 * NOTES.md held only the first 123.
 */
describe('bench/RESULTS.md', () => {
  it('ends with bench/NOTES.md, so a bench run keeps every hand-written section', () => {
    const results = readFileSync(new URL('../bench/RESULTS.md', import.meta.url), 'utf8');
    const notes = readFileSync(new URL('../bench/NOTES.md', import.meta.url), 'utf8');
    expect(notes.length).toBeGreaterThan(0);
    expect(results.endsWith(notes)).toBe(true);
  });
});
