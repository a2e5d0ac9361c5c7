import { VERDICTS } from '../model/explore/verdict.ts';

/**
 * `explore --fail-on LIST`: verdicts that make the run exit 1 (EXIT.finding) for CI. A class is a
 * verdict (`deadlock` covers both kinds), a deadlock kind (`blocked`, `livelock`), `deadlock/KIND`
 * as headers spell it, or `any` (every verdict but `terminates`).
 */
export type FailOn = readonly string[];

const KINDS = ['blocked', 'livelock'] as const;
/** Every class `--fail-on` accepts, in the order `--help` lists them. */
export const FAIL_ON_CLASSES: readonly string[] = [
  'any',
  ...VERDICTS.filter((v) => v !== 'terminates'),
  ...KINDS,
  ...KINDS.map((k) => `deadlock/${k}`),
];

/** Parses a comma-separated `--fail-on` list; an unknown class is an error naming the known ones. */
export function parseFailOn(
  list: string,
): { ok: true; value: FailOn } | { ok: false; message: string } {
  const items = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const unknown = items.filter((i) => !FAIL_ON_CLASSES.includes(i));
  if (unknown.length > 0 || items.length === 0)
    return {
      ok: false,
      message: `--fail-on: ${unknown.length ? `unknown verdict '${unknown[0]}'` : 'empty list'} (known: ${FAIL_ON_CLASSES.join(', ')})`,
    };
  return { ok: true, value: items };
}

/**
 * Whether an outcome (verdict and deadlock kind) is one of the `--fail-on` classes. `explore` asks
 * it of the run's verdict and of every other outcome the search reached (SEMANTICS §6: the run's
 * verdict is only the highest-ranked of them), so `--fail-on violation` fails a run whose verdict
 * is undefined-behavior but that also reached a violation.
 */
export function failsOn(
  failOn: FailOn,
  outcome: { readonly verdict: string; readonly kind: string | null },
): boolean {
  if (outcome.verdict === 'terminates') return false;
  return failOn.some(
    (c) =>
      c === 'any' ||
      c === outcome.verdict ||
      (outcome.kind !== null && (c === outcome.kind || c === `${outcome.verdict}/${outcome.kind}`)),
  );
}
