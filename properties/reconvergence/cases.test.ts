/**
 * The reconvergence cases of `../shared/cases/reconvergence/` (issue 11), each a test: a
 * structured program reduced from the WebGPU CTS reconvergence tests, with the per-lane ballot
 * log the CTS reference simulation (maximal reconvergence) expects and the one the project gave,
 * in its header. Expected values come from those headers (the CTS reference), never from our
 * output.
 * - `hanoi-*`: after `compile --target turing`, hanoi must give the expected log (compile-pass
 *   defects the issue lists, fixed in `model/compile/`).
 * - `simt-stack-*`: the stack gives the header's other log — IPDOM reconvergence departs from
 *   maximal reconvergence by nature (docs/semantics.md, "IPDOM and maximal reconvergence").
 * - every case: the expected log is among the reference `its`'s schedules.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compiled, machineOfText } from '../laws/compileHelpers.ts';
import { lawOptions } from '../laws/campaign.ts';
import { run } from '../laws/machine.ts';
import { ballotLogs, parseEntry, type LaneLog } from './ballotLog.ts';
import { reachesLog } from './reachLog.ts';

const DIR = fileURLToPath(new URL('../../../shared/cases/reconvergence/', import.meta.url));
const exists = existsSync(DIR);

/** The two logs of a case header: `expected` (the CTS reference) and `gives` (the project's). */
function headerLogs(text: string): { expected: LaneLog[]; gives: LaneLog[] } {
  const lines = text.split('\n');
  const block = (start: number): LaneLog[] => {
    const out: LaneLog[] = [];
    for (let i = start + 1; i < lines.length; i++) {
      const m = /^\/\/\s+lane (\d+):(.*)$/.exec(lines[i]!);
      if (!m) break;
      out.push(
        m[2]!
          .trim()
          .split(/\s+/)
          .filter((x) => x !== '')
          .map((x) => parseEntry(x)!),
      );
    }
    return out;
  };
  const e = lines.findIndex((l) => l.includes('expected = the CTS reference'));
  const g = lines.findIndex((l) => / gives:\s*$/.test(l));
  return { expected: block(e), gives: block(g) };
}

const cases = exists
  ? readdirSync(DIR)
      .filter((f) => f.endsWith('.sass'))
      .sort()
  : [];

/** The per-lane log of the first-choice run of `text` on `mechanism` (all of them deterministic here). */
function logOf(text: string, mechanism: string, threads: number): LaneLog[] {
  const r = run(machineOfText(text, mechanism, lawOptions(mechanism), false), 50_000);
  expect(r.end, `${mechanism}: ${r.stop?.message ?? ''}`).toBe('terminated');
  return ballotLogs(r.final.memory, threads);
}

describe.skipIf(!exists)(
  `reconvergence cases${exists ? '' : ' (skipped: ../shared/cases/reconvergence absent)'}`,
  () => {
    it('the folder holds the ten cases the issue names', () => {
      expect(cases.filter((f) => f.startsWith('hanoi-'))).toHaveLength(7);
      expect(cases.filter((f) => f.startsWith('simt-stack-'))).toHaveLength(3);
    });
    for (const f of cases) {
      const text = exists ? readFileSync(DIR + f, 'utf8') : '';
      const { expected, gives } = headerLogs(text);
      const threads = expected.length;
      if (f.startsWith('hanoi-'))
        it(`${f}: after compile --target turing, hanoi gives the maximal-reconvergence log`, () => {
          const c = compiled(text, {});
          if (!c.ok) return expect.fail(c.error);
          expect(logOf(c.value.text, 'hanoi', threads)).toEqual(expected);
        });
      else
        it(`${f}: simt-stack gives the IPDOM log the header records, not the maximal one`, () => {
          const got = logOf(text, 'simt-stack', threads);
          expect(got).toEqual(gives);
          expect(got).not.toEqual(expected);
        });
      it(`${f}: the expected log is among the schedules of its`, () => {
        const m = machineOfText(text, 'its', lawOptions('its'), false);
        expect(reachesLog(m, expected).found).toBe(true);
      });
    }
  },
);
