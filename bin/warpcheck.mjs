#!/usr/bin/env node
// Entry point of the `warpcheck` command. The sources are TypeScript; tsx compiles them on load,
// so a fresh `npm ci` needs no build step.
import { register } from 'tsx/esm/api';

register();
// A closed pipe (`warpcheck … | head`) ends the output quietly, never with a stack trace.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
