import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { runExplore } from './explore.ts';
import { processIo, withoutColour, type Io } from './output.ts';
import { runParse } from './parse.ts';
import { runReplay } from './replay.ts';
import { VERSION } from './version.ts';

const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(`${name} must be a positive integer`);
  return n;
};
const positiveNumber = (name: string) => (v: string) => {
  const n = Number(v);
  if (!(n > 0)) throw new InvalidArgumentError(`${name} must be a positive number`);
  return n;
};
const collect = (v: string, prev: string[]) => [...prev, v];

const mechanismHelp = () =>
  MECHANISMS.map(
    (m) =>
      `  ${m.id.padEnd(12)} ${m.summary}\n${' '.repeat(15)}(${m.source})` +
      m.options
        .map(
          (o) =>
            `\n${' '.repeat(15)}--option ${m.id}.${o.name}=${o.values.join('|')}  (default ${o.default}): ${o.doc}`,
        )
        .join(''),
  ).join('\n');

/** Builds the `warpcheck` command. Actions store their exit status in `status`. */
function program(io: Io, status: { code: number }): Command {
  const cmd = new Command('warpcheck')
    .version(VERSION)
    .description(
      'A model checker for GPU SIMT control flow. It runs a SASS listing on executable models of warp\n' +
        'control-flow mechanisms and explores every interleaving: does the code terminate, deadlock or\n' +
        'livelock, and where do the lanes reconverge?',
    )
    // Taken out of argv by `main` before parsing, so it works before or after the subcommand.
    .option(
      '--no-color',
      'plain output without colours (also NO_COLOR=1; FORCE_COLOR=1 forces them)',
    )
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  cmd
    .command('explore')
    .description(
      'explore every interleaving of a listing on each mechanism; print one verdict row per mechanism\n' +
        'and save each failing run as a scenario that `warpcheck replay` runs step by step',
    )
    .argument(
      '<file>',
      'SASS listing (cuobjdump, nvdisasm or our own labelled form; see docs/semantics.md for the `// @warpcheck` launch header)',
    )
    .option('-m, --mechanism <list>', "comma-separated mechanisms, or 'all'", 'its,simt-stack')
    .option(
      '-w, --warp-size <W>',
      'lanes per warp, 1..32 (default: the header, else 4)',
      positiveInt('--warp-size'),
    )
    .option(
      '-k, --warps <K>',
      'warps in the block, 1..8 (default: the header, else 1)',
      positiveInt('--warps'),
    )
    .option(
      '--max-states <N>',
      'state budget per mechanism',
      positiveInt('--max-states'),
      20_000_000,
    )
    .option(
      '--max-depth <N>',
      'depth budget (steps) per mechanism',
      positiveInt('--max-depth'),
      100_000,
    )
    .option(
      '--timeout <S>',
      'time budget in seconds per mechanism',
      positiveNumber('--timeout'),
      60,
    )
    .option('--save <dir>', 'where failing runs are saved as scenarios', 'counterexamples')
    .option('--no-save', 'do not save failing runs')
    .addOption(
      new Option('--atomic-order <order>', 'which lane wins an atomic race')
        .choices(['ascending', 'descending', 'explore'])
        .default('ascending'),
    )
    .option('--option <mech.name=value>', 'a mechanism option, repeatable (see below)', collect, [])
    .option('--entry <function>', 'entry function (default: the header, else the first)')
    .option(
      '--strict',
      'reject instructions outside the modelled data subset instead of giving them unknown results',
      false,
    )
    .option(
      '--no-refine',
      'do not check each issue against the reference its (the refines-its property)',
    )
    .option('--json', 'print machine-readable JSON', false)
    .addHelpText(
      'after',
      `\nVerdicts: terminates, deadlock (blocked | livelock: a fair cycle that never ends), violation,\nundefined-behavior, unsupported, resource-exhausted, trap, bound-reached (a budget ran out first).\n\nMechanisms:\n${mechanismHelp()}\n\nExit status: 0 done (whatever the verdicts), 1 a verdict differs from the listing's\n\`// @warpcheck expect:MECH=VERDICT\` header, 2 bad input.\n\nExample:\n  warpcheck explore scenarios/spinlock.sass --mechanism its,simt-stack --warp-size 8\n`,
    )
    .action((file: string, o: Record<string, unknown>) => {
      status.code = runExplore(
        {
          file,
          mechanism: o['mechanism'] as string,
          ...(o['warpSize'] !== undefined ? { warpSize: o['warpSize'] as number } : {}),
          ...(o['warps'] !== undefined ? { warps: o['warps'] as number } : {}),
          maxStates: o['maxStates'] as number,
          maxDepth: o['maxDepth'] as number,
          timeout: o['timeout'] as number,
          save: o['save'] === false ? false : (o['save'] as string),
          json: o['json'] as boolean,
          strict: o['strict'] as boolean,
          refine: o['refine'] !== false,
          atomicOrder: o['atomicOrder'] as 'ascending',
          option: o['option'] as string[],
          ...(o['entry'] ? { entry: o['entry'] as string } : {}),
        },
        io,
      );
    });

  cmd
    .command('replay')
    .description(
      'replay a scenario step by step: the issued PC and mask, and the mechanism state after each step\n' +
        '(the SIMT stack as RPC / next PC / mask rows, top first, as in seed 000 Fig. 1c and seed 002 Fig. 9)',
    )
    .argument('<scenario>', 'scenario JSON file (saved by explore, or hand-written in scenarios/)')
    .option('-q, --quiet', 'print only the verdict and any mismatch', false)
    .option('--json', 'print machine-readable JSON', false)
    .addHelpText(
      'after',
      '\nExit status: 0 the run shows the expected verdict and states, 1 it does not, 2 bad input.\n\nExample:\n  warpcheck replay scenarios/seed000-fig1-if-else.simt-stack.json\n',
    )
    .action((scenario: string, o: Record<string, unknown>) => {
      status.code = runReplay(
        { scenario, json: o['json'] as boolean, quiet: o['quiet'] as boolean },
        io,
      );
    });

  cmd
    .command('parse')
    .description(
      'parse a listing and print its functions, basic blocks, edges and the IPDOM of every branch',
    )
    .argument('<file>', 'SASS listing')
    .option('--strict', 'reject instructions outside the modelled data subset', false)
    .option('--json', 'print machine-readable JSON', false)
    .action((file: string, o: Record<string, unknown>) => {
      status.code = runParse(
        { file, json: o['json'] as boolean, strict: o['strict'] as boolean },
        io,
      );
    });
  return cmd;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit status. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const status = { code: 0 };
  const plain = argv.includes('--no-color');
  if (plain) io = withoutColour(io);
  try {
    await program(io, status).parseAsync(
      argv.filter((a) => a !== '--no-color'),
      { from: 'user' },
    );
    return status.code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    io.err(
      `warpcheck: internal error: ${(e as Error).message}\n(please report it with the command that caused it)\n`,
    );
    if (process.env['WARPCHECK_DEBUG']) io.err(`${(e as Error).stack}\n`);
    return 1;
  }
}
