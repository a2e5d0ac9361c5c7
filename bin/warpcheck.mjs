#!/usr/bin/env node
// Entry point of the `warpcheck` command. It runs the compiled JavaScript in dist/ (built by
// `npm run build`, which `npm ci` runs through `prepare`), so a call pays no TypeScript compile.
// In a source checkout whose dist/ is missing or older than a source file, it runs the sources
// through tsx instead, so an edit is never hidden behind a stale build; WARPCHECK_TSX=1 forces it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const compiled = new URL('dist/cli/main.js', root);

/** Newest modification time (ms) of the .ts sources under the checkout's source folders. */
function newestSource() {
  let newest = 0;
  for (const dir of ['cli', 'model', 'properties']) {
    const base = new URL(`${dir}/`, root);
    if (!existsSync(base)) continue;
    for (const f of readdirSync(base, { recursive: true })) {
      if (!f.endsWith('.ts')) continue;
      const t = statSync(new URL(f, base)).mtimeMs;
      if (t > newest) newest = t;
    }
  }
  return newest;
}

function useSources() {
  if (process.env.WARPCHECK_TSX === '1') return true;
  if (!existsSync(compiled)) return true;
  // An installed package ships dist/ only: no sources, nothing to compare.
  if (!existsSync(new URL('cli/main.ts', root))) return false;
  return newestSource() > statSync(compiled).mtimeMs;
}

const argv = process.argv.slice(2);
// `--version` alone prints package.json's version, as commander would, without loading the CLI:
// the floor of start-up (issue 10 §6); every other call loads the compiled CLI, lazily per command.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  process.stdout.write(`${version}\n`);
  process.exit(0);
}

// A closed pipe (`warpcheck … | head`) ends the output quietly, never with a stack trace.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
let main;
if (useSources()) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
} else ({ main } = await import(compiled.href));
process.exitCode = await main(argv);
