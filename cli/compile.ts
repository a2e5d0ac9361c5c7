import { existsSync, linkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { parseSass } from '../model/isa/index.ts';
import { TARGETS, loweredOf, printCompiled, targetOf } from '../model/compile/index.ts';
import { reportDiagnostics, readInput, type Io } from './output.ts';

export interface CompileArgs {
  readonly file: string;
  readonly target: string;
  readonly registers: number;
  readonly deadlockAware: boolean;
  readonly allocation: 'nesting' | 'distinct';
  readonly spillClear: boolean;
  readonly json: boolean;
  readonly output?: string;
  readonly force: boolean;
}

/**
 * Writes `text` to `path`: never over an existing file unless `force` (then replaced). Without
 * force the file is written to a temporary name and hard-linked into place, so a file that
 * appears meanwhile is not clobbered either.
 */
function writeOutput(path: string, text: string, force: boolean): string | null {
  try {
    if (force) {
      writeFileSync(path, text);
      return null;
    }
    if (existsSync(path)) return `${path}: exists (use --force to overwrite)`;
    const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
    writeFileSync(tmp, text, { flag: 'wx' });
    try {
      linkSync(tmp, path);
    } finally {
      unlinkSync(tmp);
    }
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EEXIST'
      ? `${path}: exists (use --force to overwrite)`
      : `${path}: cannot write: ${(e as Error).message}`;
  }
}

/** `warpcheck compile`: lower a plain listing for a target and print (or write) the result. */
export function runCompile(a: CompileArgs, io: Io): number {
  const target = targetOf(a.target);
  if (target === undefined) {
    io.err(`unknown target '${a.target}'; targets: ${TARGETS.map((t) => t.id).join(', ')}\n`);
    return 2;
  }
  const text = readInput(io, a.file);
  if (text === null) return 2;
  const parsed = parseSass(text, { file: a.file });
  if (!parsed.ok) return reportDiagnostics(io, parsed.error);
  if (parsed.value.program.instructions.length === 0)
    return reportDiagnostics(io, [
      { file: a.file, line: 1, column: 1, message: 'the listing holds no instructions' },
    ]);
  const { program, directives, sourceLines } = parsed.value;
  const compiled = target.compile(program, {
    registers: a.registers,
    deadlockAware: a.deadlockAware,
    allocation: a.allocation,
    spillClear: a.spillClear,
    file: a.file,
    sourceLines,
  });
  if (!compiled.ok) return reportDiagnostics(io, compiled.error);
  const out = loweredOf(compiled.value);
  const flags = [
    `--target ${a.target}`,
    `--registers ${a.registers}`,
    ...(a.deadlockAware ? [] : ['--no-deadlock-aware']),
    ...(a.allocation === 'nesting' ? [] : [`--allocation ${a.allocation}`]),
    ...(a.spillClear ? ['--spill-clear'] : []),
  ].join(' ');
  const listing = printCompiled(out.program, directives, [
    `compiled from ${a.file} by: warpcheck compile ${flags}`,
  ]);
  if (a.output !== undefined) {
    const problem = writeOutput(a.output, listing, a.force);
    if (problem !== null) {
      io.err(`${problem}\n`);
      return 2;
    }
  }
  if (a.json) {
    const { regions, yields, notes } = out;
    const at = (pc: number) => ({ pc, line: sourceLines[pc] ?? null });
    io.out(
      JSON.stringify(
        {
          file: a.file,
          target: a.target,
          ...(a.output !== undefined ? { output: a.output } : { listing }),
          regions: regions.map((r) => ({
            ...r,
            branches: r.branches.map(at),
            entry: at(r.entry),
            join: at(r.join),
          })),
          yields: yields.map(at),
          notes,
        },
        null,
        2,
      ) + '\n',
    );
    return 0;
  }
  if (a.output === undefined) io.out(listing);
  else
    io.out(
      a.target === 'turing'
        ? `${a.output}: ${out.regions.length} regions, ${out.yields.length} YIELD\n`
        : `${a.output}: ${out.program.instructions.length - program.instructions.length} instructions inserted\n`,
    );
  for (const n of out.notes) io.err(`note: ${n}\n`);
  return 0;
}

const registerCount = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 16)
    throw new InvalidArgumentError('--registers must be an integer from 1 to 16');
  return n;
};

/** Adds the `compile` subcommand to `cmd`; the action stores its exit status in `status`. */
export function registerCompile(cmd: Command, io: Io, status: { code: number }): void {
  cmd
    .command('compile')
    .description(
      // One sentence per string, no '\n': commander wraps the description to the terminal.
      'lower a plain listing (no BSSY/BSYNC) for a control-flow mechanism and print the result, a ' +
        'listing that `warpcheck explore` reads. Turing: BSSY before every potentially divergent ' +
        'branch and BSYNC at its reconvergence point, BREAK for lanes that leave a region early, ' +
        'BMOV spills when more regions are live than B registers, YIELD in spin loops',
    )
    .argument('<file>', 'plain SASS listing; its `// @warpcheck` launch header is kept')
    .requiredOption('-t, --target <id>', `target: ${TARGETS.map((t) => t.id).join(', ')}`)
    .option('--registers <N>', 'B registers available (1..16)', registerCount, 16)
    .option(
      '--no-deadlock-aware',
      'place BSYNC at the loop exit of spin loops and add no YIELD (deadlocks, seed 000 §VI-C)',
    )
    .option(
      '--allocation <mode>',
      'nesting (registers by nesting depth, spills; as nvcc) or distinct (one register per region)',
      'nesting',
    )
    .option(
      '--spill-clear',
      'spill with BMOV.32.CLEAR (empties the B register; releases its waiters under its)',
      false,
    )
    .option('-o, --output <file>', 'write the listing to a file (never over an existing one)')
    .option('--force', 'let -o overwrite an existing file', false)
    .option('--json', 'print machine-readable JSON (listing, regions, notes)', false)
    .addHelpText(
      'after',
      `\nTargets:\n${TARGETS.map((t) => `  ${t.id.padEnd(10)} ${t.summary}`).join('\n')}\n\n` +
        'Notes (regions not made, and why) go to stderr. See docs/semantics.md, "Compile passes".\n\n' +
        'Exit status: 0 compiled, 2 bad input or arguments, 3 internal error.\n\n' +
        'Example:\n  warpcheck compile scenarios/spinlock.sass --target turing --registers 2 -o /tmp/spin.sass\n' +
        '  warpcheck explore /tmp/spin.sass --mechanism its,hanoi\n',
    )
    .action((file: string, o: Record<string, unknown>) => {
      const allocation = o['allocation'] as string;
      if (allocation !== 'nesting' && allocation !== 'distinct') {
        io.err(`--allocation must be nesting or distinct, not '${allocation}'\n`);
        status.code = 2;
        return;
      }
      status.code = runCompile(
        {
          file,
          target: o['target'] as string,
          registers: o['registers'] as number,
          deadlockAware: o['deadlockAware'] !== false,
          allocation,
          spillClear: o['spillClear'] as boolean,
          json: o['json'] as boolean,
          ...(o['output'] !== undefined ? { output: o['output'] as string } : {}),
          force: o['force'] as boolean,
        },
        io,
      );
    });
}
