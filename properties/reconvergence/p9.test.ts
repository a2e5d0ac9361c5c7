/**
 * Law P9 (maximal reconvergence, issue 11) piece by piece: the reference interpreter of the
 * structured program against the CTS reference logs recorded in `../shared/cases/reconvergence/`
 * (copied here as hand-checked values, so this file runs without `../shared`), the lowering run
 * on the mechanisms, the law's verdicts, and a failure shrunk and saved as a scenario that
 * replays and still breaks the law.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScenario } from '../../model/scenario/files.ts';
import { replay } from '../../model/scenario/replay.ts';
import { scenarioMachine } from '../../model/scenario/session.ts';
import { compiled, machineOfText } from '../laws/compileHelpers.ts';
import { DEFAULT_BUDGET, lawOptions, runCampaign } from '../laws/campaign.ts';
import { findLaw, saveCounterexample } from '../laws/index.ts';
import { run } from '../laws/machine.ts';
import { ballotLogs, parseEntry, STORE_TAG, type LaneLog } from './ballotLog.ts';
import { ballotProgramOf, lowerBallotProgram } from './lower.ts';
import type { BallotProgram, Block } from './program.ts';
import { referenceLogs } from './reference.ts';
import { ballotClasses } from './source.ts';
import { tempDir } from '../../model/testing/tempDir.ts';

const logs = (...lanes: string[]): number[][] =>
  lanes.map((l) => (l === '' ? [] : l.split(' ').map((x) => parseEntry(x)!)));

const ELECT_BREAK: Block = [
  { kind: 'if', cond: { kind: 'elect' }, then: [{ kind: 'ballot' }, { kind: 'break' }], else: [] },
];

/** The programs of the CTS cases (their headers), with the CTS reference logs. */
const CASES: { name: string; program: BallotProgram; expected: number[][] }[] = [
  {
    // simt-stack-cross-iteration-merge / hanoi-cross-iteration-merge:
    // for (;; i = ballot_and_increment(i)) { if subgroupElect() { ballot(); break } }
    name: 'cross-iteration-merge',
    program: {
      warpSize: 4,
      main: [{ kind: 'loop', trip: null, body: ELECT_BREAK, continueBallot: true }],
      functions: [],
    },
    expected: logs('0x1', '0xe 0x2', '0xe 0xc 0x4', '0xe 0xc 0x8 0x8'),
  },
  {
    // simt-stack-break-continue-escape: loop { if sid < 3 { if sid == i { continue } } ballot() }
    // continuing { i++; break if i >= 4 } — four iterations, as `for (i = 0; i < 4; i++)`.
    name: 'break-continue-escape',
    program: {
      warpSize: 4,
      main: [
        {
          kind: 'loop',
          trip: { kind: 'uniform', n: 4 },
          continueBallot: false,
          body: [
            {
              kind: 'if',
              cond: { kind: 'lt', n: 3 },
              then: [
                {
                  kind: 'if',
                  cond: { kind: 'eq-counter' },
                  then: [{ kind: 'continue' }],
                  else: [],
                },
              ],
              else: [],
            },
            { kind: 'ballot' },
          ],
        },
      ],
      functions: [],
    },
    expected: logs('0xd 0xb 0xf', '0xe 0xb 0xf', '0xe 0xd 0xf', '0xe 0xd 0xb 0xf'),
  },
  {
    // *-exit-escape: switch sid & 3 { case 1: {} case 2: { return } } ballot()
    name: 'exit-escape',
    program: {
      warpSize: 4,
      main: [
        {
          kind: 'switch',
          cases: [
            { value: 1, body: [] },
            { value: 2, body: [{ kind: 'return' }] },
          ],
        },
        { kind: 'ballot' },
      ],
      functions: [],
    },
    expected: logs('0xb', '0xb', '', '0xb'),
  },
  {
    // hanoi-call-in-region: if testBit(0x49fb0f3e, sid) { f() }
    // fn f() { if testBit(0xc507d2b2, sid) { store(s7) } ballot() }
    name: 'call-in-region',
    program: {
      warpSize: 4,
      main: [
        {
          kind: 'if',
          cond: { kind: 'mask', mask: 0x49fb0f3e },
          then: [{ kind: 'call', fn: 0 }],
          else: [],
        },
      ],
      functions: [
        [
          {
            kind: 'if',
            cond: { kind: 'mask', mask: 0xc507d2b2 },
            then: [{ kind: 'store', value: 7 }],
            else: [],
          },
          { kind: 'ballot' },
        ],
      ],
    },
    expected: logs('', 's7 0xe', '0xe', '0xe'),
  },
  {
    // Found by the 10,000-program P9 campaign on hanoi (seed 20261124, run 2276, shrunk): every
    // iteration ends in break, so the loop's back edge is dead code; the pass did not see the
    // loop and fell back to IPDOM placement. By hand: the mask-0 if never breaks, the uniform
    // false if is skipped, so all four lanes run the three ballots together.
    name: 'every-iteration-breaks',
    program: {
      warpSize: 4,
      main: [
        {
          kind: 'loop',
          trip: { kind: 'uniform', n: 1 },
          continueBallot: false,
          body: [
            {
              kind: 'if',
              cond: { kind: 'elect' },
              then: [
                {
                  kind: 'if',
                  cond: { kind: 'mask', mask: 0 },
                  then: [{ kind: 'break' }],
                  else: [],
                },
              ],
              else: [],
            },
            { kind: 'ballot' },
            {
              kind: 'if',
              cond: { kind: 'uniform', value: false },
              then: [{ kind: 'if', cond: { kind: 'elect' }, then: [{ kind: 'return' }], else: [] }],
              else: [],
            },
            { kind: 'ballot' },
            { kind: 'break' },
          ],
        },
        { kind: 'ballot' },
      ],
      functions: [],
    },
    expected: logs('0xf 0xf 0xf', '0xf 0xf 0xf', '0xf 0xf 0xf', '0xf 0xf 0xf'),
  },
];

const logOf = (text: string, mechanism: string, w: number): LaneLog[] => {
  const r = run(machineOfText(text, mechanism, lawOptions(mechanism), false), 50_000);
  expect(r.end).toBe('terminated');
  return ballotLogs(r.final.memory, w);
};

describe('the reference interpreter and the lowering on the CTS cases', () => {
  for (const c of CASES) {
    it(`${c.name}: the reference gives the CTS log`, () => {
      expect(referenceLogs(c.program)).toEqual(c.expected);
    });
    it(`${c.name}: lowered and compiled for Turing, hanoi gives it`, () => {
      const text = lowerBallotProgram(c.program);
      expect(ballotProgramOf(text)).toEqual(c.program);
      const out = compiled(text, {});
      if (!out.ok) return expect.fail(out.error);
      expect(logOf(out.value.text, 'hanoi', 4)).toEqual(c.expected);
    });
  }
  it('simt-stack departs on the escape cases, each in its declared class', () => {
    for (const c of CASES.slice(0, 3)) {
      expect(logOf(lowerBallotProgram(c.program), 'simt-stack', 4)).not.toEqual(c.expected);
      const classes = ballotClasses(c.program);
      expect(classes.has('loop-escape') || classes.has('exit-escape')).toBe(true);
    }
  });
  it('a store is logged with its tag', () => {
    const p: BallotProgram = { warpSize: 4, main: [{ kind: 'store', value: 3 }], functions: [] };
    expect(referenceLogs(p)).toEqual([
      [STORE_TAG + 3],
      [STORE_TAG + 3],
      [STORE_TAG + 3],
      [STORE_TAG + 3],
    ]);
  });
});

describe('law P9', () => {
  const law = findLaw('P9')!;
  const check = (p: BallotProgram, mechanism: string) =>
    law.check(
      {
        text: lowerBallotProgram(p),
        warpSize: p.warpSize,
        warps: 1,
        classes: ballotClasses(p),
        ast: null,
      },
      mechanism,
      { options: lawOptions(mechanism), budget: DEFAULT_BUDGET },
    ).ok;
  it('holds on its and hanoi for every CTS case, fails on simt-stack for the escapes', () => {
    for (const c of CASES) {
      expect(check(c.program, 'its'), c.name).toBe(true);
      expect(check(c.program, 'hanoi'), c.name).toBe(true);
    }
    expect(check(CASES[0]!.program, 'simt-stack')).toBe(false);
  });
  it('can fail on hanoi: a program whose reference log is planted wrong fails', () => {
    const c = CASES[0]!;
    const text = lowerBallotProgram(c.program);
    const out = law.check(
      {
        text,
        warpSize: 4,
        warps: 1,
        classes: new Set(),
        ast: { program: c.program, expected: logs('0xf', '0xf', '0xf', '0xf') },
      },
      'hanoi',
      { options: lawOptions('hanoi'), budget: DEFAULT_BUDGET },
    );
    expect(out.ok).toBe(false);
  });

  const dir = tempDir('warpcheck-p9-');
  it('a simt-stack failure shrinks to a small program, saves as a scenario, replays and still fails', () => {
    const r = runCampaign(law, 'simt-stack', { runs: 60, seed: 11 });
    expect(r.unexpectedFailures).toBe(0);
    const cx = r.counterexamples.find((c) => c.expected.length > 0);
    if (!cx) return expect.fail(`no expected failure in ${r.runs} runs`);
    const p = ballotProgramOf(cx.kernel.text)!;
    expect(JSON.stringify(p).length).toBeLessThan(400);
    const file = saveCounterexample(dir, law.id, 'simt-stack', cx, 'p9.test.ts');
    expect(readdirSync(join(dir, law.id))).toHaveLength(1);
    const s = readScenario(file);
    if (!s.ok) return expect.fail(s.error.map((d) => d.message).join('\n'));
    const m = scenarioMachine(s.value, file);
    if (!m.ok) return expect.fail(m.error.map((d) => d.message).join('\n'));
    const rep = replay(m.machine, s.value);
    expect(rep.mismatches).toEqual([]);
    expect(rep.verdict).toBe(s.value.expect.verdict);
    expect(check(p, 'simt-stack')).toBe(false);
  });
});
