/**
 * A shrunk law counterexample as a scenario file (issue 4 §4): `<dir>/<law>/<mechanism>-<hash>.json`,
 * written atomically and never over another file (`saveScenario`). It embeds the program text, the
 * launch, the schedule (a lasso for a livelock), the verdict the schedule shows, the law, and
 * fast-check's seed and path, so `warpcheck replay` runs it from the file alone and
 * `fc.check(…, { seed, path })` regenerates it.
 */
import { join } from 'node:path';
import type { Finding } from '../../model/explore/verdict.ts';
import { saveScenario } from '../../model/scenario/files.ts';
import type { Scenario } from '../../model/scenario/schema.ts';
import { scenarioFromFinding } from '../../model/scenario/session.ts';
import type { Counterexample } from './campaign.ts';
import { build } from './machine.ts';

export function counterexampleScenario(
  law: string,
  mechanism: string,
  cx: Counterexample,
  by: string,
): Scenario {
  const f = cx.finding;
  // A law that checks a derived program (P8: the compiled listing) reports it in `program`: the
  // scenario replays that program; the generated source stays in `found.source` so the law can be
  // re-checked on it (scenarios.test.ts).
  const programText = f.program ?? cx.kernel.text;
  const { machine, loaded } = build(
    { ...cx.kernel, text: programText },
    mechanism,
    f.options,
    f.refine,
  );
  const asFinding: Finding = {
    // `incomplete` is set below: scenarioFromFinding speaks the explorer's verdicts only.
    verdict: f.verdict === 'incomplete' ? 'terminates' : f.verdict,
    kind: f.kind,
    property: f.property,
    message: f.message,
    schedule: f.schedule,
    loop: f.loop,
  };
  const s = scenarioFromFinding({
    name: `${law} on ${mechanism}${cx.expected.length ? ' (expected failure)' : ''}`,
    programText,
    entry: loaded.header.entry,
    strict: false,
    refine: f.refine,
    launch: machine.blockLaunch ?? machine.launch,
    mechanism,
    options: f.options,
    atomicOrder: 'ascending',
    finding: asFinding,
    found: {
      by,
      shrinks: cx.shrinks,
      ...(cx.expected.length
        ? { expected: cx.expected.map((e) => `${e.class}: ${e.reason}`) }
        : {}),
      ...(f.measures ? { measures: f.measures } : {}),
      ...(f.program !== undefined ? { source: cx.kernel.text } : {}),
    },
  });
  return {
    ...s,
    expect: { ...s.expect, verdict: f.verdict },
    law,
    seed: cx.seed,
    path: cx.path,
  };
}

/** Saves `cx` under `<dir>/<law>/`; returns the path (an identical file already there is kept). */
export function saveCounterexample(
  dir: string,
  law: string,
  mechanism: string,
  cx: Counterexample,
  by: string,
): string {
  return saveScenario(
    join(dir, law),
    mechanism,
    counterexampleScenario(law, mechanism, cx, by),
    '-',
  );
}
