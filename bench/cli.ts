import { writeFileSync } from 'node:fs';
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
