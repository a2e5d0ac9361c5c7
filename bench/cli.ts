import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { captureCli } from '../cli/capture.ts';

/**
 * The `warpcheck` CLI in-process with captured output: the bench scripts that write tables into
 * docs/ (matrix, core comparison) use the tool's own `--json`, so the documents show exactly what
 * the tool prints.
 */
export const cli = (args: readonly string[]) => captureCli(args);

/** Replaces the text between two marker lines of a document. */
export function withSection(doc: string, begin: string, end: string, body: string): string {
  const b = doc.indexOf(begin);
  const e = doc.indexOf(end);
  if (b < 0 || e < b) throw new Error(`markers ${begin} … ${end} not found`);
  return doc.slice(0, b + begin.length) + '\n' + body + doc.slice(e);
}

/** The text between two marker lines, or null. */
export function sectionIn(doc: string, begin: string, end: string): string | null {
  const b = doc.indexOf(begin);
  const e = doc.indexOf(end);
  return b < 0 || e < b ? null : doc.slice(b + begin.length + 1, e);
}

/** `text` formatted by prettier as the file `file` would be (so generated docs pass `prettier --check`). */
export async function formatted(file: string, text: string): Promise<string> {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...options, filepath: file });
}

/** Writes `text` to `file`, formatted by prettier. */
export async function writeFormatted(file: string, text: string): Promise<void> {
  writeFileSync(file, await formatted(file, text));
}

/**
 * Writes `table` between the marker lines `begin` and `end` of the results file `file` (prettier
 * formatted), or appends it under `## heading` when the file lacks the markers.
 */
export async function writeResultsSection(
  file: string,
  begin: string,
  end: string,
  heading: string,
  table: string,
): Promise<void> {
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  const section = `${begin}\n\n${table}\n\n${end}`;
  const text =
    i < 0 || j < i
      ? `${doc.trimEnd()}\n\n## ${heading}\n\n${section}\n`
      : doc.slice(0, i) + section + doc.slice(j + end.length);
  await writeFormatted(file, text);
}

/**
 * A bench's last step: prints `table` (`write` false, `--no-write`), or writes it into `file`
 * between its markers (`writeResultsSection`) and says so.
 */
export async function publish(
  write: boolean,
  file: string,
  begin: string,
  end: string,
  heading: string,
  table: string,
): Promise<void> {
  if (!write) {
    console.log(table);
    return;
  }
  await writeResultsSection(file, begin, end, heading, table);
  console.log(`wrote ${file}`);
}

/** The first line of a bench section: date, machine, Node and the load average now. */
export function machineLine(): string {
  const cpus = os.cpus();
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
  return `- date: ${new Date().toISOString()}; machine: ${cpus.length} cores, ${cpus[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB; Node ${process.version}; load average ${load}`;
}
