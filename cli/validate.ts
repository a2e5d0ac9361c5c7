import { findMechanism, MECHANISMS, resolveOptions } from '../model/mechanisms/registry.ts';
import { loadProgram } from '../model/scenario/loadProgram.ts';
import {
  blockLanes,
  launchedLanes,
  discrepancy,
  listingAgreement,
  parseTraceg,
  replayTrace,
  sideBySide,
  traceSetup,
  type Discrepancy,
  type ReplayEnd,
  type ReplayResult,
  type TraceSetup,
} from '../model/trace/index.ts';
import { readInput, reportDiagnostics, table, type Io } from './output.ts';
import { parseOptionSettings } from './prepare.ts';

export interface ValidateArgs {
  readonly trace: string;
  /** Comma-separated mechanism ids, or `all`. */
  readonly mechanism: string;
  /** `mechanism.option=value` settings. */
  readonly option: readonly string[];
  readonly listing?: string;
  /** Rows either side of the first difference in the side-by-side view. */
  readonly window: number;
  readonly maxSteps?: number;
  readonly choice: 'hardware' | 'first';
  readonly json: boolean;
}

interface Row {
  readonly mechanism: string;
  readonly options: Readonly<Record<string, string>>;
  readonly warp: string;
  readonly setup: TraceSetup;
  readonly result: ReplayResult;
  readonly d: Discrepancy;
}

const hex = (pc: number) => '0x' + pc.toString(16).padStart(4, '0');
const hexMask = (m: number) => (m >>> 0).toString(16).padStart(8, '0');

const endText = (e: ReplayEnd): string => {
  switch (e.kind) {
    case 'terminated':
      return 'terminated';
    case 'blocked':
      return `blocked (lanes ${hexMask(e.live)} live)`;
    case 'stopped':
      return `${e.verdict}: ${e.message}`;
    case 'off-path':
      return `off-path: ${e.message}`;
    case 'budget':
      return `budget: ${e.steps} steps reached (--max-steps)`;
  }
};

/**
 * `warpcheck validate`: replays each mechanism on every traced warp, with each lane's branch
 * outcomes from its recorded path, and measures the discrepancy of seed 000 §IX against the
 * hardware's warp trace. Exit status: 0 measured; 1 the listing disagrees with the trace; 2 bad
 * input.
 */
export function runValidate(a: ValidateArgs, io: Io): number {
  const text = readInput(io, a.trace);
  if (text === null) return 2;
  const parsed = parseTraceg(text, { file: a.trace });
  if (!parsed.ok) return reportDiagnostics(io, parsed.error);
  const ids =
    a.mechanism === 'all'
      ? MECHANISMS.map((m) => m.id)
      : a.mechanism
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  const unknown = ids.filter((id) => findMechanism(id) === undefined);
  if (unknown.length > 0 || ids.length === 0) {
    io.err(
      `--mechanism ${a.mechanism}: unknown mechanism ${unknown.map((u) => `'${u}'`).join(', ') || '(none given)'} (known: ${MECHANISMS.map((m) => m.id).join(', ')}, or all)\n`,
    );
    return 2;
  }
  const settings = parseOptionSettings(a.option, ids);
  if (!settings.ok) {
    for (const p of settings.error) io.err(`${p}\n`);
    return 2;
  }
  const factories = [];
  for (const id of ids) {
    const f = findMechanism(id)!;
    const o = resolveOptions(f, settings.value[id] ?? {});
    if (!o.ok) {
      for (const p of o.problems) io.err(`--option: ${p}\n`);
      return 2;
    }
    factories.push({ f, options: o.options });
  }
  const kernel = parsed.value.header['-kernel name'];
  const rows: Row[] = [];
  const warps: {
    warp: string;
    setup: TraceSetup;
    listing: ReturnType<typeof listingAgreement> | null;
  }[] = [];
  let listingProgram: Parameters<typeof listingAgreement>[1] | null = null;
  let listingLcp: ReadonlyMap<number, number> | undefined;
  let listingLine: (pc: number) => string = String;
  if (a.listing !== undefined) {
    const ltext = readInput(io, a.listing);
    if (ltext === null) return 2;
    const loaded = loadProgram(ltext, a.listing);
    if (!loaded.ok) return reportDiagnostics(io, loaded.error);
    listingProgram = loaded.value.program;
    listingLcp = loaded.value.likelyConvergence;
    const lines = loaded.value.sourceLines;
    const file = a.listing;
    listingLine = (pc) => `${file}:${lines[pc] ?? 1}`;
  }
  for (const block of parsed.value.blocks) {
    for (const w of block.warps) {
      const name = `${block.block.join(',')}/${w.warp}`;
      const lanes = blockLanes(parsed.value.header, w.warp) ?? launchedLanes(w);
      const s = traceSetup(w, {
        file: a.trace,
        warpSize: Math.max(1, lanes),
        ...(kernel ? { kernel } : {}),
        ...(listingProgram
          ? {
              listing: {
                program: listingProgram,
                ...(listingLcp ? { likelyConvergence: listingLcp } : {}),
              },
            }
          : {}),
      });
      if (!s.ok) return reportDiagnostics(io, s.error);
      const listing =
        listingProgram === null
          ? null
          : listingAgreement(s.value.reconstructed, listingProgram, listingLine);
      warps.push({ warp: name, setup: s.value, listing });
      for (const { f, options } of factories) {
        const result = replayTrace(s.value, f, options, {
          choice: a.choice,
          ...(a.maxSteps !== undefined ? { maxSteps: a.maxSteps } : {}),
        });
        rows.push({
          mechanism: f.id,
          options,
          warp: name,
          setup: s.value,
          result,
          d: discrepancy(s.value.hardware, result.trace),
        });
      }
    }
  }
  const disagree = warps.some((w) => (w.listing?.disagreements.length ?? 0) > 0);
  const opcodeAt = (s: TraceSetup, pc: number) => {
    const ins = s.built.program.instructions[(pc - s.built.base) / 16];
    return ins ? [ins.opcode, ...ins.modifiers].join('.') : '?';
  };

  if (a.json) {
    io.out(
      JSON.stringify(
        {
          trace: a.trace,
          kernel: kernel ?? null,
          warps: warps.map((w) => ({
            warp: w.warp,
            instructions: w.setup.hardware.length,
            notes: w.setup.built.notes,
            uncertain: w.setup.paths.uncertain.length,
            inconsistencies: w.setup.paths.inconsistencies.length,
            ...(w.listing ? { listing: w.listing } : {}),
          })),
          results: rows.map((r) => ({
            mechanism: r.mechanism,
            options: r.options,
            warp: r.warp,
            hardwareLength: r.d.hardwareLength,
            modelLength: r.d.modelLength,
            distance: r.d.distance,
            discrepancy: r.d.ratio,
            firstDifference: r.d.first,
            choices: r.result.choices,
            matchedChoices: r.result.matchedChoices,
            end: r.result.end,
            window:
              r.d.first === null
                ? []
                : sideBySide(r.setup.hardware, r.result.trace, r.d.first, a.window).map((x) => ({
                    index: x.index,
                    hardware: x.hardware && {
                      pc: hex(x.hardware.pc),
                      mask: hexMask(x.hardware.mask),
                    },
                    model: x.model && { pc: hex(x.model.pc), mask: hexMask(x.model.mask) },
                    same: x.same,
                  })),
          })),
        },
        null,
        2,
      ) + '\n',
    );
    return disagree ? 1 : 0;
  }

  const c = io.colour;
  io.out(
    `${a.trace}: kernel ${kernel ?? '?'}, ${warps.length} warp${warps.length === 1 ? '' : 's'}, choice rule ${a.choice}\n`,
  );
  for (const w of warps) {
    const p = w.setup.paths;
    if (p.uncertain.length || p.inconsistencies.length)
      io.out(
        `  warp ${w.warp}: ${p.uncertain.length} uncertain lane points, ${p.inconsistencies.length} inconsistencies in the lane paths\n`,
      );
    for (const n of w.setup.built.notes) io.out(`  note (warp ${w.warp}): ${n}\n`);
  }
  io.out('\n');
  io.out(
    table(
      c,
      [
        'mechanism',
        'warp',
        'hw len',
        'model len',
        'distance',
        'discrepancy',
        'first diff',
        'choices',
        'end',
      ],
      rows.map((r) => [
        r.mechanism,
        r.warp,
        String(r.d.hardwareLength),
        String(r.d.modelLength),
        String(r.d.distance),
        `${(100 * r.d.ratio).toFixed(2)} %`,
        r.d.first === null ? '-' : String(r.d.first),
        String(r.result.choices),
        r.result.end.kind === 'terminated'
          ? c.green('terminated')
          : c.yellow(endText(r.result.end)),
      ]),
    ),
  );
  for (const r of rows) {
    if (r.d.first === null) continue;
    io.out(`\n${c.bold(r.mechanism)} on warp ${r.warp}: first difference at index ${r.d.first}\n`);
    io.out(
      table(
        c,
        ['', 'index', 'hardware pc', 'mask', 'opcode', 'model pc', 'mask ', 'opcode '],
        sideBySide(r.setup.hardware, r.result.trace, r.d.first, a.window).map((x) => [
          x.same ? ' ' : c.red('≠'),
          String(x.index),
          x.hardware ? hex(x.hardware.pc) : '-',
          x.hardware ? hexMask(x.hardware.mask) : '-',
          x.hardware ? opcodeAt(r.setup, x.hardware.pc) : '',
          x.model ? hex(x.model.pc) : '-',
          x.model ? hexMask(x.model.mask) : '-',
          x.model ? opcodeAt(r.setup, x.model.pc) : '',
        ]),
        '  ',
      ),
    );
  }
  for (const w of warps) {
    if (!w.listing) continue;
    io.out(
      `\nlisting ${a.listing} against warp ${w.warp}: ${w.listing.matched} executed PCs found, ${w.listing.disagreements.length} disagreements\n`,
    );
    for (const d of w.listing.disagreements) io.out(`  ${c.red('disagrees')}: ${d}\n`);
    for (const d of w.listing.reconstruction) io.out(`  reconstruction: ${d}\n`);
  }
  return disagree ? 1 : 0;
}
