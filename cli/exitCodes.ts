/**
 * Exit statuses of every `warpcheck` command (issue 14: an internal error used to exit 1, like a
 * finding). The convention of checkers used in CI (grep, diff, cmp): 0 the question was answered
 * as expected, 1 the answer is a finding, 2 the question could not be asked, and a separate status
 * for a bug in the tool, so that a CI job can tell "the kernel is wrong" from "the checker broke".
 */
export const EXIT = {
  /** Done as expected: every verdict matches the listing's `expect:` header and no `--fail-on` verdict showed. */
  ok: 0,
  /** A finding: a verdict differs from its expectation, a `--fail-on` verdict showed, a replay does not match, a law failed unexpectedly. */
  finding: 1,
  /** Bad input: unreadable or malformed file, bad option, a limit exceeded before any answer. */
  badInput: 2,
  /** Internal error: a bug in warpcheck (please report it with the command). */
  internal: 3,
} as const;

/** The text `--help` of every command prints under "Exit status". */
export const EXIT_HELP =
  'Exit status: 0 as expected, 1 a finding (a verdict differs from its expectation, or a --fail-on\n' +
  'verdict showed), 2 bad input, 3 internal error (a bug in warpcheck: please report it).';
