/**
 * `warpcheck explore --html`: the verdict matrix (kernel × mechanism) as one self-contained page,
 * every finding embedded as its own replay view (`replaySection`), opened from its cell. It takes
 * explore's result rows as they are; `writeExploreHtml` is the one call `cli/explore.ts` makes.
 */
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ExploreResult } from '../../model/explore/exhaustive.ts';
import type { Machine } from '../../model/machine/machine.ts';
import { scenarioFromFinding } from '../../model/scenario/session.ts';
import type { Io } from '../output.ts';
import { esc } from './escape.ts';
import { replayViewData } from './replayModel.ts';
import { htmlDocument, replaySection, verdictClass } from './replayPage.ts';

/** One cell: a mechanism's result on a kernel, with the machine that produced it. */
export interface ExploreHtmlRow {
  readonly mechanism: string;
  readonly result: ExploreResult;
  /** The listing header's expectation (`terminates`, `deadlock/livelock`, …), if any. */
  readonly expected: string | null;
  readonly machine: Machine;
}

/** One kernel (a row of the matrix). */
export interface ExploreHtmlKernel {
  readonly file: string;
  readonly text: string;
  readonly entry: string | null;
  readonly strict: boolean;
  readonly refine: boolean;
  readonly atomicOrder: 'ascending' | 'descending' | 'explore';
  readonly rows: readonly ExploreHtmlRow[];
}

export interface ExploreHtmlInput {
  readonly title: string;
  readonly kernels: readonly ExploreHtmlKernel[];
}

const verdictOf = (r: { verdict: string; kind: string | null }) =>
  r.kind ? `${r.verdict} (${r.kind})` : r.verdict;

/** The matrix page, with a replay view per finding. */
export function explorePage(input: ExploreHtmlInput): string {
  const mechanisms = [...new Set(input.kernels.flatMap((k) => k.rows.map((r) => r.mechanism)))];
  const replays: string[] = [];
  // Cells first (each finding's replay is embedded as it is met), then the table, transposed: a
  // row per mechanism (as the text table prints them), a column per kernel.
  const cell = (k: ExploreHtmlKernel, ki: number, mech: string): string => {
    const row = k.rows.find((r) => r.mechanism === mech);
    if (!row) return '<td></td>';
    const v = verdictOf(row.result);
    const links = row.result.findings
      .filter((f) => f.verdict !== 'terminates')
      .map((f, fi) => {
        const id = `k${ki}-${mech}-${fi}`;
        const scenario = scenarioFromFinding({
          name: `${basename(k.file)} on ${mech}: ${verdictOf(f)}`,
          programText: k.text,
          entry: k.entry,
          strict: k.strict,
          refine: k.refine,
          launch: row.machine.launch,
          mechanism: mech,
          options: row.machine.options,
          atomicOrder: k.atomicOrder,
          finding: f,
          found: { by: 'warpcheck explore --html' },
        });
        replays.push(
          replaySection(replayViewData(row.machine, scenario), id, { hidden: true, back: true }),
        );
        return `<a href="#${id}" data-open="${id}">${esc(verdictOf(f))} ↗</a><span class="why">${f.schedule.length} steps — ${esc(f.message)}</span>`;
      });
    const expect =
      row.expected === null
        ? ''
        : row.expected === v.replace(' (', '/').replace(')', '')
          ? ' · as expected'
          : ` · <b>expected ${esc(row.expected)}</b>`;
    const stats = `<small>${row.result.states.toLocaleString('en')} states, depth ${row.result.depth}${expect}</small>`;
    return `<td class="${verdictClass(v)}" title="${esc(row.result.message)}">${links.length ? links.join('') : esc(v)}${stats}</td>`;
  };
  const rows = mechanisms.map(
    (mech) =>
      `<tr><th scope="row">${esc(mech)}</th>${input.kernels.map((k, ki) => cell(k, ki, mech)).join('')}</tr>`,
  );
  const heads = input.kernels.map(
    (k) =>
      `<th><code>${esc(basename(k.file))}</code><small>${k.rows[0]?.machine.launch.warps ?? 1} warp(s) of ${k.rows[0]?.machine.launch.warpSize ?? ''} lanes</small></th>`,
  );
  const matrix = `<div class="matrix-page">
<h1>${esc(input.title)}</h1>
<div class="meta">Verdict per mechanism and kernel. A failing cell links to the replay of its shortest counterexample (embedded: this one file is enough). <button class="theme" title="switch light / dark">◐ theme</button></div>
<div class="matrix-wrap"><table class="matrix"><thead><tr><th>mechanism</th>${heads.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>
</div>`;
  return htmlDocument(input.title, matrix + replays.join('\n'));
}

/** Writes the matrix page of `kernels` to `out`; exit status 2 when it cannot be written. */
export function writeExploreHtml(
  out: string,
  title: string,
  kernels: readonly ExploreHtmlKernel[],
  io: Io,
): number {
  const page = explorePage({ title, kernels });
  try {
    writeFileSync(out, page);
  } catch (e) {
    io.err(`${out}: cannot write: ${(e as Error).message}\n`);
    return 2;
  }
  io.err(`wrote ${out}\n`);
  return 0;
}
