/**
 * docs/mechanisms.md's matrix is the tool's own output: regenerating it (every registered
 * mechanism × the six programs, through `warpcheck compile` and `warpcheck explore --json`) gives
 * the table in the document, and the expected law failures are those of
 * properties/laws/expectations.ts. A mechanism or expectation added without `npm run matrix`
 * fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freshDoc, MATRIX_DOC, matrixTable } from '../../bench/matrix.ts';

describe('docs/mechanisms.md', () => {
  it('holds the matrix the tool computes now (regenerate with npm run matrix)', async () => {
    const doc = readFileSync(MATRIX_DOC, 'utf8');
    const fresh = await freshDoc(doc, await matrixTable());
    expect(fresh).toBe(doc);
  }, 120_000);
});
