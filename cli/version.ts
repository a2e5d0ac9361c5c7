import { existsSync, readFileSync } from 'node:fs';

// cli/version.ts runs from the sources (package.json one folder up) or from dist/cli/version.js
// (two folders up): the first package.json found upwards is the package's own.
const packageJson = ['../package.json', '../../package.json']
  .map((p) => new URL(p, import.meta.url))
  .find((u) => existsSync(u))!;

/** The package version, read once from package.json (recorded in saved scenarios). */
export const VERSION: string = (
  JSON.parse(readFileSync(packageJson, 'utf8')) as {
    version: string;
  }
).version;
