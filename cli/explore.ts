import { basename } from 'node:path';
import { verdictPossible, type ExploreResult } from '../model/explore/exhaustive.ts';
import { loadProgram } from '../model/scenario/loadProgram.ts';
import { kernelEntries } from '../model/scenario/kernels.ts';
import { saveScenario } from '../model/scenario/files.ts';
import { scenarioFromFinding } from '../model/scenario/session.ts';
import {
  colourVerdict,
  millis,
  readInput,
  reportDiagnostics,
  table,
  thousands,
  type Io,
} from './output.ts';
import { writeExploreHtml, type ExploreHtmlKernel } from './html/explorePage.ts';
import { EXIT } from './exitCodes.ts';
import { failsOn, type FailOn } from './failOn.ts';
import { prepareMachines, scenarioNotListing, type PrepareArgs } from './prepare.ts';
import { looksLikeScenario } from '../model/scenario/files.ts';
import { savedSource } from './saveDir.ts';
import { VERSION } from './version.ts';
import { searchAll, searchArgs, searchMachine, type SearchJob } from './exploreSearch.ts';

export interface ExploreArgs extends PrepareArgs {
  readonly maxStates: number;
  readonly maxDepth: number;
  /** Seconds per kernel × mechanism run. */
  readonly timeout: number;
  /** Seconds for the whole command, every kernel and mechanism (issue 16). */
  readonly timeLimit: number;
  /** Resident memory in MB past which a search stops (issue 16). */
  readonly maxMemory: number;
  /** Partial-order reduction over warps (`--no-por` turns it off; issue 10). */
  readonly partialOrder?: boolean;
  /**
   * EXIT priority among an `its` warp's lane groups or a `dws` warp's splits
   * (`--no-exit-priority` turns it off).
   */
  readonly exitPriority?: boolean;
  /**
   * Groups that run alone inside an `its` warp (`--no-alone-groups` turns it off; issue 16,
   * `aloneGroups.ts`).
   */
  readonly aloneGroups?: boolean;
  /**
   * BSYNC priority inside an `its` warp (`--no-bsync-priority` turns it off; issue 16,
   * `bsyncPriority.ts`).
   */
  readonly bsyncPriority?: boolean;
  /** Warp symmetry (`--no-warp-symmetry` turns it off; issue 10 item 2). */
  readonly warpSymmetry?: boolean;
  /** Chain acceleration (`--no-accelerate` turns it off; issue 16, `acceleration.ts`). */
  readonly accelerate?: boolean;
  /** Summaries of chains (`--no-chain-summaries` turns them off; issue 16, `laneChains.ts`). */
  readonly chainSummaries?: boolean;
  /** Summaries of frozen lanes (`--no-frozen-lanes` turns them off; issue 16, `frozenLanes.ts`). */
  readonly frozenLanes?: boolean;
  readonly save: string | false;
  readonly json: boolean;
  /** Also write the verdict matrix with embedded replays as a page (`cli/html/explorePage.ts`). */
  readonly html?: string;
  /** `--fail-on`: verdicts that make the run exit 1 (cli/failOn.ts). */
  readonly failOn?: FailOn;
  /** `--random N`: N random fair schedules instead of the exhaustive search (issue 10). */
  readonly random?: { readonly runs: number; readonly seed: number; readonly depth: number };
  /** Worker threads: searches (kernel × mechanism) side by side (`exploreSearch.ts`); 1: none. */
  readonly workers?: number;
}

interface Row {
  readonly kernel: string;
  readonly mechanism: string;
  readonly result: ExploreResult;
  readonly expected: string | null;
  readonly saved: string[];
}

/** A row for a run the total time budget left no room for. */
function notRun(limit: number): ExploreResult {
  return {
    verdict: 'bound-reached',
    kind: null,
    message: `the total time budget (--time-limit ${limit} s) was spent before this run`,
    states: 0,
    transitions: 0,
    depth: 0,
    timeMs: 0,
    bound: 'time',
    laneSymmetry: false,
    findings: [],
    terminalStates: 0,
    notes: [],
  };
}

/**
 * `warpcheck explore`: every kernel of a listing (issue 16: `STO_CUDA_ENTRY`, else functions
 * with an EXIT, else all; `--entry` or the header's `entry=` narrow it) on every mechanism asked
 * for, a verdict row each, under per-run and total budgets; failures saved as scenarios.
 */
export async function runExplore(a: ExploreArgs, io: Io): Promise<number> {
  const text = readInput(io, a.file);
  if (text === null) return 2;
  if (looksLikeScenario(text)) return scenarioNotListing(io, a.file);
  const first = loadProgram(text, a.file, {
    strict: a.strict,
    ...(a.entry ? { entry: a.entry } : {}),
  });
  if (!first.ok) return reportDiagnostics(io, first.error);
  const kernels = a.entry
    ? [a.entry]
    : first.value.header.entry
      ? [first.value.header.entry]
      : [...kernelEntries(text, first.value.program).names];
  const t0 = performance.now();
  const deadline = t0 + a.timeLimit * 1000;
  const rows: Row[] = [];
  let launchShown: { warpSize: number; warps: number } | null = null;
  const warnings: string[] = [];
  const pages: ExploreHtmlKernel[] = [];
  const parallel = await searchesOnWorkers(a, kernels, deadline, io);
  if (typeof parallel === 'number') return parallel;
  for (const kernel of kernels) {
    const prepared = prepareMachines({ ...a, entry: kernel }, io);
    if (typeof prepared === 'number') return prepared;
    const { loaded, launch, machines } = prepared;
    launchShown ??= { warpSize: launch.warpSize, warps: launch.warps };
    for (const w of loaded.warnings) if (!warnings.includes(w)) warnings.push(w);
    const page = {
      file: a.file,
      text,
      entry: kernel,
      strict: a.strict,
      refine: a.refine,
      atomicOrder: a.atomicOrder,
      rows: [] as ExploreHtmlKernel['rows'][number][],
    };
    pages.push(page);
    for (const { id, machine } of machines) {
      const left = deadline - performance.now();
      const label = kernels.length > 1 ? `${kernel} on ${id}` : id;
      const progress = (p: { states: number; depth: number; elapsedMs: number }) => {
        if (io.interactive)
          io.err(
            `\r  exploring ${label}: ${thousands(p.states)} of ${thousands(a.maxStates)} states, depth ${p.depth}, ${millis(p.elapsedMs)} of ${a.timeout} s, ${Math.round(process.memoryUsage.rss() / 1048576)} of ${a.maxMemory} MB; ${Math.max(0, Math.round((deadline - performance.now()) / 1000))} s left in all   `,
          );
      };
      const result = parallel
        ? (parallel.get(`${kernel}\0${id}`) ?? notRun(a.timeLimit))
        : left <= 0
          ? notRun(a.timeLimit)
          : searchMachine(a, machine, left, progress);
      if (io.interactive) io.err('\r\u001b[K');
      const saved: string[] = [];
      if (a.save !== false) {
        for (const f of result.findings) {
          if (f.verdict === 'terminates') continue;
          const scenario = scenarioFromFinding({
            name: `${basename(a.file)}${kernels.length > 1 ? ` (${kernel})` : ''} on ${id}: ${f.verdict}${f.kind ? ` (${f.kind})` : ''}`,
            programText: text,
            entry: kernel,
            strict: a.strict,
            refine: a.refine,
            launch,
            mechanism: id,
            options: machine.options,
            atomicOrder: a.atomicOrder,
            laneSymmetry: result.laneSymmetry,
            widen: a.widen ?? 0,
            finding: f,
            found: {
              by: `warpcheck ${VERSION} explore`,
              search: a.random
                ? `random: ${a.random.runs} runs, seed ${a.random.seed}, depth ${a.random.depth}; schedule shrunk`
                : 'exhaustive breadth-first (shortest schedule)',
              source: savedSource(a.file),
            },
          });
          const stem = basename(a.file).replace(/\.[^.]*$/, '');
          saved.push(
            saveScenario(
              a.save,
              `${stem}${kernels.length > 1 ? `.${kernel.replace(/[^\w.-]/g, '_').slice(0, 40)}` : ''}.${id}.${f.verdict}${f.kind ? `-${f.kind}` : ''}`,
              scenario,
            ),
          );
        }
      }
      rows.push({
        kernel,
        mechanism: id,
        result,
        // Random runs that found nothing prove nothing: an expectation is not checked against them.
        expected: result.bound === 'random' ? null : (loaded.header.expect[id] ?? null),
        saved,
      });
      page.rows.push({
        mechanism: id,
        result,
        expected: loaded.header.expect[id] ?? null,
        machine: result.laneSymmetry === machine.symmetric ? machine : machine.withoutSymmetry(),
      });
    }
  }
  if (a.html !== undefined) {
    const written = writeExploreHtml(a.html, `warpcheck explore ${a.file}`, pages, io);
    if (written !== 0) return written;
  }
  const mismatched = rows.filter(
    (r) => r.expected !== null && r.expected !== verdictText(r.result),
  );
  const shape = launchShown ?? { warpSize: 0, warps: 0 };
  if (a.json) printJson(io, a, shape, rows, warnings);
  else printText(io, a, shape, kernels, rows, warnings);
  const failed = rows.filter((r) =>
    [r.result, ...r.result.findings].some((o) => failsOn(a.failOn ?? [], o)),
  );
  return mismatched.length > 0 || failed.length > 0 ? EXIT.finding : EXIT.ok;
}

function printJson(
  io: Io,
  a: ExploreArgs,
  shape: { warpSize: number; warps: number },
  rows: readonly Row[],
  warnings: readonly string[],
): void {
  io.out(
    JSON.stringify(
      {
        file: a.file,
        launch: shape,
        budgets: {
          maxStates: a.maxStates,
          maxDepth: a.maxDepth,
          timeoutS: a.timeout,
          timeLimitS: a.timeLimit,
          maxMemoryMb: a.maxMemory,
          laneSymmetry: a.laneSymmetry !== false,
          por: a.partialOrder !== false,
          exitPriority: a.exitPriority !== false,
          aloneGroups: a.aloneGroups !== false,
          bsyncPriority: a.bsyncPriority !== false,
          warpSymmetry: a.warpSymmetry !== false,
          accelerate: a.accelerate !== false,
          chainSummaries: a.chainSummaries !== false,
          frozenLanes: a.frozenLanes !== false,
          skipDeadWrites: a.skipDeadWrites === true,
          widen: a.widen ?? 0,
        },
        results: rows.map((r) => ({
          kernel: r.kernel,
          mechanism: r.mechanism,
          verdict: r.result.verdict,
          kind: r.result.kind,
          possible: verdictPossible(r.result),
          message: r.result.message,
          states: r.result.states,
          transitions: r.result.transitions,
          depth: r.result.depth,
          timeMs: Math.round(r.result.timeMs * 10) / 10,
          bound: r.result.bound,
          laneSymmetry: r.result.laneSymmetry,
          por: r.result.partialOrder ?? false,
          exitPriority: r.result.exitPriority ?? null,
          aloneGroups: r.result.aloneGroups ?? null,
          bsyncPriority: r.result.bsyncPriority ?? null,
          warpSymmetry: r.result.warpSymmetry ?? false,
          accelerated: r.result.accelerated ?? 0,
          forcedChains: r.result.forcedChains ?? 0,
          chainSummaries: r.result.chainSummaries
            ? { hits: r.result.chainSummaries.hits, recorded: r.result.chainSummaries.recorded }
            : null,
          frozenLanes: r.result.frozenLanes
            ? {
                hits: r.result.frozenLanes.hits,
                recorded: r.result.frozenLanes.recorded,
                refused: r.result.frozenLanes.refused,
              }
            : null,
          findings: r.result.findings.map((f) => ({
            verdict: f.verdict,
            kind: f.kind,
            property: f.property,
            possible: f.possible ?? false,
            ...(f.decisions ? { decisions: f.decisions } : {}),
            message: f.message,
            steps: f.schedule.length,
          })),
          expected: r.expected,
          saved: r.saved,
          notes: r.result.notes,
        })),
        warnings,
      },
      null,
      2,
    ) + '\n',
  );
}

function printText(
  io: Io,
  a: ExploreArgs,
  shape: { warpSize: number; warps: number },
  kernels: readonly string[],
  rows: readonly Row[],
  warnings: readonly string[],
): void {
  const many = kernels.length > 1;
  io.out(
    `${a.file}: ${many ? `${kernels.length} kernels, ` : ''}${shape.warps} warp${shape.warps > 1 ? 's' : ''} of ${shape.warpSize} lanes${a.random ? `; ${a.random.runs} random runs, seed ${a.random.seed}, depth ${a.random.depth}` : ''}\n\n`,
  );
  const hasExpect = rows.some((r) => r.expected !== null);
  const hasPossible = rows.some((r) => verdictPossible(r.result));
  // A verdict that rests on chain acceleration says so in its row (issue 16, docs/semantics.md §14.2).
  const hasAccel = rows.some((r) => (r.result.accelerated ?? 0) > 0);
  const short = (k: string) => (k.length > 40 ? k.slice(0, 39) + '…' : k);
  io.out(
    table(
      io.colour,
      [
        ...(many ? ['kernel'] : []),
        'mechanism',
        'verdict',
        ...(hasPossible ? ['possible'] : []),
        'states',
        'transitions',
        'depth',
        'time',
        ...(hasAccel ? ['accelerated'] : []),
        ...(hasExpect ? ['expected'] : []),
      ],
      rows.map((r) => [
        ...(many ? [short(r.kernel)] : []),
        r.mechanism,
        colourVerdict(io.colour, verdictText(r.result)),
        ...(hasPossible ? [verdictPossible(r.result) ? 'possible' : ''] : []),
        thousands(r.result.states),
        thousands(r.result.transitions),
        String(r.result.depth),
        millis(r.result.timeMs),
        ...(hasAccel ? [thousands(r.result.accelerated ?? 0)] : []),
        ...(hasExpect
          ? [
              r.expected === null
                ? ''
                : r.expected === verdictText(r.result)
                  ? 'yes'
                  : `NO (${r.expected})`,
            ]
          : []),
      ]),
    ),
  );
  io.out('\n');
  for (const r of rows) {
    io.out(`${many ? `${r.kernel} on ` : ''}${r.mechanism}: ${r.result.message}\n`);
    const f = r.result.findings.find(
      (x) => x.verdict === r.result.verdict && x.kind === r.result.kind,
    );
    if (f?.possible && f.decisions) {
      io.out(
        `  possible: the run takes ${f.decisions.length} abstract step${f.decisions.length > 1 ? 's' : ''} (real inputs may never take ${f.decisions.length > 1 ? 'them' : 'it'}):\n`,
      );
      for (const d of f.decisions.slice(0, 3))
        io.out(
          `    step ${d.step}: ${d.kind === 'widened' ? 'loop widened at' : 'unknown branch at'} ${d.pc} ${d.instruction}${d.source ? ` (unknown from ${d.source})` : ''}\n`,
        );
      if (f.decisions.length > 3) io.out(`    … ${f.decisions.length - 3} more\n`);
    }
    for (const n of r.result.notes) io.out(`  note: ${n}\n`);
    for (const p of r.saved) io.out(`  saved ${p}  (replay: warpcheck replay ${p})\n`);
  }
  for (const h of boundHints(rows)) io.out(`hint: ${h}\n`);
  for (const w of warnings) io.out(`warning: ${w}\n`);
}

/** Budgets whose end leaves a search unfinished that more budget or a smaller launch may finish. */
const SIZE_BOUNDS: ReadonlySet<string> = new Set(['states', 'time', 'memory', 'depth']);

/**
 * What to try when exhaustive searches stopped at a budget: `bound-reached` is no verdict, so the
 * text says how to get one or, failing that, a finding. `dwf` gets its own line: its states grow
 * as the ways its threads spread over formed warps, which no reduction of its rules removes
 * (docs/semantics.md, "Block mechanisms").
 */
export function boundHints(
  rows: readonly { readonly mechanism: string; readonly result: ExploreResult }[],
): string[] {
  const unfinished = rows.filter(
    (r) => r.result.verdict === 'bound-reached' && SIZE_BOUNDS.has(r.result.bound ?? ''),
  );
  if (unfinished.length === 0) return [];
  const hints = [
    `${unfinished.length === 1 ? 'a search' : `${unfinished.length} searches`} stopped at a budget, which is no verdict: raise it (--timeout, --max-states, --max-memory), try a smaller launch (--warp-size, --warps), or run --random N for N fair random schedules that look for a finding (finding none proves nothing)`,
  ];
  if (unfinished.some((r) => r.mechanism === 'dwf'))
    hints.push(
      'dwf keeps its threads by name (its pool\'s order and the lock\'s winner follow thread numbers), so no symmetry applies to it, nor any partial-order reduction but EXIT priority, and its states grow as the ways threads spread over formed warps: on the spinlock it finishes within 60 s at 4 warps of 2 lanes and 2 warps of 8, not at 4 warps of 3 or 3 warps of 4 (docs/semantics.md, "Block mechanisms")',
    );
  return hints;
}

/** `terminates`, `deadlock/livelock`, … — the spelling of header expectations. */
export const verdictText = (r: { verdict: string; kind: string | null }): string =>
  r.kind ? `${r.verdict}/${r.kind}` : r.verdict;

/**
 * With `--workers` above 1 and more than one search, every search runs first, side by side on
 * worker threads; the results by `kernel\0mechanism` (absent: the total budget was spent before
 * it started). `null`: search here, one after the other. A number: the exit status of bad input.
 */
async function searchesOnWorkers(
  a: ExploreArgs,
  kernels: readonly string[],
  deadline: number,
  io: Io,
): Promise<Map<string, ExploreResult> | null | number> {
  if ((a.workers ?? 1) <= 1) return null;
  const jobs: SearchJob[] = [];
  const end = Date.now() + (deadline - performance.now());
  for (const kernel of kernels) {
    const prepared = prepareMachines({ ...a, entry: kernel }, io);
    if (typeof prepared === 'number') return prepared;
    for (const { id } of prepared.machines)
      jobs.push({ args: searchArgs(a), kernel, id, deadline: end });
  }
  if (jobs.length <= 1) return null;
  if (io.interactive)
    io.err(
      `\r  exploring ${jobs.length} searches on ${Math.min(a.workers!, jobs.length)} worker threads   `,
    );
  const results = await searchAll(jobs, a.workers!);
  if (io.interactive) io.err('\r\u001b[K');
  const out = new Map<string, ExploreResult>();
  results.forEach((r, i) => {
    if (r) out.set(`${jobs[i]!.kernel}\0${jobs[i]!.id}`, r);
  });
  return out;
}
