#!/usr/bin/env node
// Entry point of the `warpcheck` command. The sources are TypeScript; tsx compiles them on load,
// so a fresh `npm ci` needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
