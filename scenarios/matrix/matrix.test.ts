/**
 * docs/mechanisms.md's matrix is the tool's own output: regenerating it (every registered
 * mechanism × the six programs, through `warpcheck compile` and `warpcheck explore --json`) gives
 * the table in the document. A mechanism added without `npm run matrix` fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatted } from '../../bench/cli.ts';
import { MATRIX_DOC, matrixTable, withTable } from '../../bench/matrix.ts';

describe('docs/mechanisms.md', () => {
  it('holds the matrix the tool computes now (regenerate with npm run matrix)', async () => {
    const doc = readFileSync(MATRIX_DOC, 'utf8');
    const fresh = await formatted(MATRIX_DOC, withTable(doc, await matrixTable()));
    expect(fresh).toBe(doc);
  }, 120_000);
});
