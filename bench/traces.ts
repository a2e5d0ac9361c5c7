/**
 * `npm run traces`: exports every paper scenario (`scenarios/seed*.json`) with
 * `warpcheck replay SCENARIO --traceg scenarios/traces/<name>/` (issue 15), the Accel-Sim trace
 * examples checked into the repository. `cli/traceRoundTrip.test.ts` fails when a checked-in
 * trace differs from what the exporter writes, and reads every one back with `warpcheck validate`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureCli } from '../cli/capture.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const names = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => /^seed.*\.json$/.test(f))
  .map((f) => f.replace(/\.json$/, ''));
let failed = 0;
for (const name of names) {
  const r = await captureCli([
    'replay',
    join(ROOT, 'scenarios', `${name}.json`),
    '--traceg',
    join(ROOT, 'scenarios', 'traces', name),
  ]);
  process.stdout.write(r.out.replace(ROOT, '').split('\n')[0] + '\n');
  if (r.code !== 0) {
    failed++;
    process.stderr.write(r.err);
  }
}
process.exit(failed === 0 ? 0 : 1);
