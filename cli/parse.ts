import { cfgDot, ipdomTable } from '../model/cfg/index.ts';
import { loadProgram } from '../model/scenario/loadProgram.ts';
import { formatterFor } from '../model/machine/machine.ts';
import { reportDiagnostics, table, type Io, readInput } from './output.ts';
import { looksLikeScenario } from '../model/scenario/files.ts';
import { scenarioNotListing } from './prepare.ts';

export interface ParseArgs {
  readonly file: string;
  readonly json: boolean;
  readonly strict: boolean;
  /** Print the CFG in Graphviz DOT instead. */
  readonly dot?: boolean;
}

/**
 * `warpcheck parse`: functions, basic blocks, edges, and the IPDOM of every branch; with `dot`,
 * the CFG in Graphviz DOT (`model/cfg/dot.ts`).
 */
export function runParse(a: ParseArgs, io: Io): number {
  const text = readInput(io, a.file);
  if (text === null) return 2;
  if (looksLikeScenario(text)) return scenarioNotListing(io, a.file);
  const loaded = loadProgram(text, a.file, { strict: a.strict });
  if (!loaded.ok) return reportDiagnostics(io, loaded.error);
  const { program, cfg } = loaded.value;
  const fmt = formatterFor(program, 32);
  if (a.dot) {
    io.out(cfgDot(cfg, fmt.pc));
    return 0;
  }
  const ipdoms = ipdomTable(cfg);
  const at = (pc: number) => (pc < 0 ? 'exit' : fmt.pc(pc));
  const fns = program.functions.map((f, i) => {
    const blocks = cfg.blocks.filter((b) => b.fn === i);
    return {
      name: f.name,
      instructions: f.end - f.start,
      blocks: blocks.map((b) => ({
        id: b.id,
        start: at(b.start),
        end: at(b.end - 1),
        successors: b.succs.map((s) => (s < 0 ? 'exit' : `B${s}`)),
        reachable: b.reachable,
      })),
      branches: [...ipdoms.entries()]
        .filter(([pc]) => pc >= f.start && pc < f.end)
        .map(([pc, ipdom]) => ({
          pc: at(pc),
          line: loaded.value.sourceLines[pc] ?? null,
          ipdom: at(ipdom),
        })),
    };
  });
  if (a.json) {
    io.out(
      JSON.stringify(
        { file: a.file, functions: fns, warnings: cfg.warnings, notes: cfg.notes },
        null,
        2,
      ) + '\n',
    );
    return 0;
  }
  for (const f of fns) {
    io.out(`function ${f.name}: ${f.instructions} instructions, ${f.blocks.length} blocks\n`);
    io.out(
      table(
        io.colour,
        ['block', 'from', 'to', 'successors', 'reachable'],
        f.blocks.map((b) => [
          `B${b.id}`,
          b.start,
          b.end,
          b.successors.join(' ') || '-',
          b.reachable ? 'yes' : 'no',
        ]),
        '  ',
      ),
    );
    if (f.branches.length) {
      io.out(`  branches and their immediate post-dominators:\n`);
      io.out(
        table(
          io.colour,
          ['branch', 'line', 'ipdom'],
          f.branches.map((b) => [b.pc, String(b.line ?? ''), b.ipdom]),
          '    ',
        ),
      );
    }
    io.out('\n');
  }
  for (const w of cfg.warnings) io.out(`warning: ${w}\n`);
  for (const n of cfg.notes) io.out(`note: ${n}\n`);
  return 0;
}
