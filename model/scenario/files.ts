import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Diagnostic } from '../isa/program.ts';
import { checkJson } from './jsonCheck.ts';
import { SCENARIO_LIMITS } from './limits.ts';
import { scenarioSchema, type Scenario } from './schema.ts';

/** The JSON text of a scenario: stable key order as built, two-space indent, final newline. */
export const scenarioText = (s: Scenario): string => JSON.stringify(s, null, 2) + '\n';

/**
 * Reads and validates a scenario file. Problems are diagnostics with the file, and a line and
 * column where JSON itself is malformed (schema problems name the field path).
 */
export function readScenario(
  file: string,
): { ok: true; value: Scenario } | { ok: false; error: Diagnostic[] } {
  let text: string;
  try {
    const bytes = statSync(file).size;
    if (bytes > SCENARIO_LIMITS.fileBytes)
      return {
        ok: false,
        error: [
          {
            file,
            line: 1,
            column: 1,
            message: `the scenario is ${bytes} bytes, over the limit of ${SCENARIO_LIMITS.fileBytes}`,
          },
        ],
      };
    text = readFileSync(file, 'utf8');
  } catch (e) {
    return {
      ok: false,
      error: [
        { file, line: 1, column: 1, message: `cannot read the scenario: ${(e as Error).message}` },
      ],
    };
  }
  return parseScenario(text, file);
}

/**
 * Whether a file's text is a scenario rather than a listing, by content (never by name): JSON
 * begins with `{` after blanks, and no SASS listing does (they begin with a comment, a header,
 * a label or an instruction). A file that starts like JSON is then read as a scenario, so its
 * errors are JSON and schema errors, not one SASS error per line.
 */
export const looksLikeScenario = (text: string): boolean =>
  /^\s*\{/.test(text.replace(/^\uFEFF/, ''));

export function parseScenario(
  text: string,
  file: string,
): { ok: true; value: Scenario } | { ok: false; error: Diagnostic[] } {
  // A UTF-8 byte-order mark is allowed (editors on Windows write one); JSON.parse rejects it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // Syntax and nesting first, with the line and column of the problem (issue 14).
  const syntax = checkJson(text, SCENARIO_LIMITS.depth);
  if (!syntax.ok)
    return {
      ok: false,
      error: [
        {
          file,
          line: syntax.line,
          column: syntax.column,
          message: `not valid JSON: ${syntax.message}`,
        },
      ],
    };
  const json: unknown = JSON.parse(text);
  const parsed = scenarioSchema.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      error: parsed.error.issues.map((i) => ({
        file,
        line: 1,
        column: 1,
        message: `${i.path.length ? i.path.join('.') : '(top level)'}: ${i.message}`,
      })),
    };
  return { ok: true, value: parsed.data };
}

/** The program text a scenario runs: embedded, or a file relative to the scenario's own folder. */
export function scenarioProgram(
  s: Scenario,
  scenarioFile: string,
): { ok: true; text: string; file: string } | { ok: false; message: string } {
  if ('text' in s.program)
    return { ok: true, text: s.program.text, file: `${basename(scenarioFile)}#program` };
  const file = resolve(dirname(scenarioFile), s.program.file);
  try {
    return { ok: true, text: readFileSync(file, 'utf8'), file };
  } catch (e) {
    return {
      ok: false,
      message: `the scenario's program file ${file} cannot be read: ${(e as Error).message}`,
    };
  }
}

/**
 * Saves a scenario in `dir` without ever overwriting a different file: the name carries a hash of
 * the content; the write goes to a temporary file that is then hard-linked into place, which fails
 * if the name exists (then an identical file is kept, and a different one gets a `-2`, `-3` … name).
 * Returns the path written (or the identical file already there).
 */
/**
 * Saves `s` as `<dir>/<stem><sep><content hash>.json` (atomically; an existing file is never
 * overwritten — the same content is found again, other content gets `-2`, `-3`, …). Law
 * counterexamples use `-` (`counterexamples/<law>/<mechanism>-<hash>.json`, issue 4), `explore`
 * uses `.` after its `<listing>.<mechanism>.<verdict>` stem.
 */
export function saveScenario(dir: string, stem: string, s: Scenario, sep: '.' | '-' = '.'): string {
  mkdirSync(dir, { recursive: true });
  const text = scenarioText(s);
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 8);
  const safe = stem.replace(/[^A-Za-z0-9._-]+/g, '-');
  const tmp = join(dir, `.${safe}.${process.pid}.${Date.now()}.tmp`);
  writeFileSync(tmp, text, { flag: 'wx' });
  try {
    for (let n = 1; n < 1000; n++) {
      const path = join(dir, `${safe}${sep}${hash}${n === 1 ? '' : `-${n}`}.json`);
      try {
        linkSync(tmp, path);
        return path;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        if (readFileSync(path, 'utf8') === text) return path;
      }
    }
    throw new Error(`could not find a free file name for ${safe} in ${dir}`);
  } finally {
    unlinkSync(tmp);
  }
}
