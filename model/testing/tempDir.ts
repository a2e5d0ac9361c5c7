import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/**
 * A fresh directory under the system's temporary directory for a test that writes files
 * ("tests that write go to a temporary directory"), removed with everything in it when the
 * current test finishes — or, called outside a test (at a file's top level), when the file's
 * tests have run. Without the removal every run of the suite left its directories behind
 * (2,139 `warpcheck-traceg-*` on one machine).
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    // Not inside a running test: remove it after the file's tests.
    afterAll(remove);
  }
  return dir;
}
