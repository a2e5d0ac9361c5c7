import { availableParallelism } from 'node:os';

/**
 * `check --workers` by default: half the processors (at least one). Measured on 2 cores
 * (bench/RESULTS.md, `check --runs 40 --seed 1`): one thread already keeps about 1.6 cores busy
 * (V8's background compiler and GC), and two workers took ×1.12 the wall time of one.
 */
const checkWorkers = (): number => Math.max(1, Math.floor(availableParallelism() / 2));
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { MechanismFactory } from '../model/mechanisms/mechanism.ts';
import type { Law } from '../properties/laws/types.ts';
import type { registerCompile } from './compile.ts';
import { processIo, withoutColour, type Io } from './output.ts';
import { EXIT, EXIT_HELP } from './exitCodes.ts';
import { FAIL_ON_CLASSES, parseFailOn } from './failOn.ts';
import { REPLAY_TIMEOUT_S } from '../model/scenario/limits.ts';
import { DEFAULT_SAVE_DIR } from './saveDir.ts';
import { VERSION } from './version.ts';

/**
 * What the help texts list (mechanisms, laws, the compile command). Start-up time (issue 10 §6):
 * only what an invocation needs is imported — `--version` imports none of the model, a command
 * imports its own module when its action runs (`import()` in each action).
 */
interface Catalog {
  readonly mechanisms: readonly MechanismFactory[];
  readonly laws: readonly Law[];
  readonly registerCompile: typeof registerCompile | null;
}

const SUBCOMMANDS = ['explore', 'replay', 'simulate', 'parse', 'validate', 'check', 'compile'];

/** Loads the part of the catalog the command line `argv` can print or run. */
async function loadCatalog(argv: readonly string[]): Promise<Catalog> {
  const sub = argv.find((a) => !a.startsWith('-'));
  const versionOnly = sub === undefined && argv.some((a) => a === '--version' || a === '-V');
  if (versionOnly) return { mechanisms: [], laws: [], registerCompile: null };
  const all = sub === undefined || !SUBCOMMANDS.includes(sub); // top-level help, `help`, a typo
  const { MECHANISMS } = await import('../model/mechanisms/registry.ts');
  const laws = all || sub === 'check' ? (await import('../properties/laws/index.ts')).LAWS : [];
  const compile = all || sub === 'compile' ? (await import('./compile.ts')).registerCompile : null;
  return { mechanisms: MECHANISMS, laws, registerCompile: compile };
}

const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(`${name} must be a positive integer`);
  return n;
};
const nonNegativeInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`${name} must be a whole number, 0 or more`);
  return n;
};
const positiveNumber = (name: string) => (v: string) => {
  const n = Number(v);
  if (!(n > 0)) throw new InvalidArgumentError(`${name} must be a positive number`);
  return n;
};
const collect = (v: string, prev: string[]) => [...prev, v];
const failOnList = (v: string) => {
  const r = parseFailOn(v);
  if (!r.ok) throw new InvalidArgumentError(r.message);
  return r.value;
};

const mechanismHelp = (mechanisms: readonly MechanismFactory[]) =>
  mechanisms
    .map(
      (m) =>
        `  ${m.id.padEnd(12)} ${m.summary}\n${' '.repeat(15)}(${m.source}${m.level === 'block' ? '; block-level: one state for the block, up to 8 warps of 32 threads' : ''})` +
        m.options
          .map(
            (o) =>
              `\n${' '.repeat(15)}--option ${m.id}.${o.name}=${o.values.join('|')}  (default ${o.default}): ${o.doc}`,
          )
          .join(''),
    )
    .join('\n');

/** Builds the `warpcheck` command. Actions store their exit status in `status`. */
function program(io: Io, status: { code: number }, catalog: Catalog): Command {
  const cmd = new Command('warpcheck')
    .version(VERSION)
    .description(
      'A model checker for GPU SIMT control flow. It runs a SASS listing on executable models of warp ' +
        'control-flow mechanisms and explores every interleaving: does the code terminate, deadlock or ' +
        'livelock, and where do the lanes reconverge?',
    )
    // Taken out of argv by `main` before parsing, so it works before or after the subcommand.
    .option(
      '--no-color',
      'plain output without colours (also NO_COLOR=1; FORCE_COLOR=1 forces them)',
    )
    .addHelpText('after', `\n${EXIT_HELP}\n`)
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  cmd
    .command('explore')
    .description(
      'explore every interleaving of every kernel of a listing (STO_CUDA_ENTRY functions, else those with an EXIT) on each mechanism; ' +
        'print one verdict row per kernel and mechanism (possible: reached only through unknown values) ' +
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
      'time budget in seconds per kernel and mechanism',
      positiveNumber('--timeout'),
      60,
    )
    .option(
      '--time-limit <S>',
      'time budget in seconds for the whole command, every kernel and mechanism; runs it leaves no room for say bound-reached',
      positiveNumber('--time-limit'),
      600,
    )
    .option(
      '--max-memory <MB>',
      "resident memory in MB past which a search stops with bound-reached (memory), judged after a full garbage collection; a search on the main thread also stops when its live JavaScript heap nears V8's limit (about 4 GB by default; NODE_OPTIONS=--max-old-space-size=MB raises it), while searches on worker threads (--workers, several searches) get a heap as large as this budget",
      positiveInt('--max-memory'),
      8192,
    )
    .option(
      '--no-symmetry',
      'do not merge states that differ only by renumbering interchangeable lanes (lane symmetry, docs/semantics.md)',
    )
    .option(
      '--no-por',
      'interleave every warp step instead of running a warp alone while its steps touch no shared memory (partial-order reduction, docs/semantics.md)',
    )
    .option(
      '--no-exit-priority',
      'let lanes wait at an EXIT while other lane groups of their its warp (other splits of their dws warp, other formed warps of a dwf block) run, instead of exiting them first (EXIT priority, docs/semantics.md §14.1)',
    )
    .option(
      '--no-alone-groups',
      'interleave every lane group of an its warp instead of running alone a group at a data instruction outside every loop that no other lane can reach (docs/semantics.md §14.3)',
    )
    .option(
      '--no-bsync-priority',
      'let lanes stand ready at a BSYNC while other lane groups of their its warp run, instead of letting them start to wait first (BSYNC priority, docs/semantics.md §14.4)',
    )
    .option(
      '--no-warp-symmetry',
      'keep states that differ only by exchanging warps that can no longer read their own index apart (warp symmetry, docs/semantics.md §15)',
    )
    .option(
      '--no-accelerate',
      'store every state of long single-path runs instead of following a warp alone through steps that touch no shared memory and issue all its ready lanes (chain acceleration, docs/semantics.md §14.2)',
    )
    .option(
      '--no-chain-summaries',
      "walk every accelerated chain instead of giving a chain whose running lanes match, lane for lane, those of a chain already walked that chain's end while the other lanes stay where they wait (summaries of chains, its; docs/semantics.md §14.5)",
    )
    .option(
      '--no-frozen-lanes',
      "explore again the interior of every state instead of giving a state whose ready lanes and waiting lanes' context match those of a state explored before that state's exits, with its own waiting lanes (summaries of frozen lanes, its, one warp; docs/semantics.md §14.7)",
    )
    .option(
      '--no-skip-dead',
      'compute every register an instruction writes, also when nothing reads it before it is written again (dead writes, docs/semantics.md §13: skipping them changes no verdict, only the time)',
    )
    .option(
      '--widen <N>',
      'after N turns of a loop taken after a branch on an unknown value, a lane forgets what the loop writes (0: never); findings after it are possible',
      nonNegativeInt('--widen'),
      2,
    )
    .option(
      '--save <dir>',
      'where failing runs are saved as scenarios (outside the test corpus; --save counterexamples adds them to it)',
      DEFAULT_SAVE_DIR,
    )
    .option('--no-save', 'do not save failing runs')
    .option(
      '--random <N>',
      'instead of the exhaustive search, N random fair schedules (for what stays too big); findings are shrunk; no finding is never `terminates`',
      positiveInt('--random'),
    )
    .option(
      '--seed <S>',
      'seed of --random (default: from the clock, printed)',
      nonNegativeInt('--seed'),
    )
    .option('--depth <D>', 'steps per random run', positiveInt('--depth'), 10_000)
    .option(
      '--fail-on <list>',
      `exit 1 when some mechanism reaches one of these verdicts (for CI): ${FAIL_ON_CLASSES.join(', ')}`,
      failOnList,
    )
    .addOption(
      new Option('--atomic-order <order>', 'which lane wins an atomic race')
        .choices(['ascending', 'descending', 'explore'])
        .default('ascending'),
    )
    .option('--option <mech.name=value>', 'a mechanism option, repeatable (see below)', collect, [])
    .option(
      '--entry <function>',
      'explore only this kernel (default: the header, else every kernel of the file)',
    )
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
    .addOption(
      new Option(
        '--workers <N>',
        'worker threads: the searches (kernel × mechanism) run side by side, one per thread, and print what one thread prints',
      )
        .argParser(positiveInt('--workers'))
        .default(
          availableParallelism(),
          `the processors available, ${availableParallelism()} here`,
        ),
    )
    .option(
      '--html <file>',
      'also write the verdict matrix as a self-contained page, each failing cell opening the\n' +
        'replay of its counterexample (embedded: the one file is enough)',
    )
    .addHelpText(
      'after',
      `\nVerdicts: terminates, deadlock (blocked | livelock: a fair cycle that never ends), violation,\nundefined-behavior, unsupported, resource-exhausted, trap, bound-reached (a budget ran out first).\n\nMechanisms:\n${mechanismHelp(catalog.mechanisms)}\n\nExit status: 0 done (whatever the verdicts, unless --fail-on names one), 1 a verdict differs from\nthe listing's \`// @warpcheck expect:MECH=VERDICT\` header or a --fail-on verdict showed, 2 bad\ninput, 3 internal error.\n\nExample:\n  warpcheck explore scenarios/spinlock.sass --mechanism its,simt-stack --warp-size 8\n  warpcheck explore kernel.sass --mechanism its --fail-on deadlock,violation,undefined-behavior --no-save\n`,
    )
    .action(async (file: string, o: Record<string, unknown>) => {
      const { runExplore } = await import('./explore.ts');
      status.code = await runExplore(
        {
          workers: o['workers'] as number,
          file,
          mechanism: o['mechanism'] as string,
          ...(o['warpSize'] !== undefined ? { warpSize: o['warpSize'] as number } : {}),
          ...(o['warps'] !== undefined ? { warps: o['warps'] as number } : {}),
          maxStates: o['maxStates'] as number,
          maxDepth: o['maxDepth'] as number,
          timeout: o['timeout'] as number,
          timeLimit: o['timeLimit'] as number,
          maxMemory: o['maxMemory'] as number,
          laneSymmetry: o['symmetry'] !== false,
          partialOrder: o['por'] !== false,
          exitPriority: o['exitPriority'] !== false,
          aloneGroups: o['aloneGroups'] !== false,
          bsyncPriority: o['bsyncPriority'] !== false,
          warpSymmetry: o['warpSymmetry'] !== false,
          accelerate: o['accelerate'] !== false,
          chainSummaries: o['chainSummaries'] !== false,
          frozenLanes: o['frozenLanes'] !== false,
          skipDeadWrites: o['skipDead'] !== false,
          ...(o['random'] !== undefined
            ? {
                random: {
                  runs: o['random'] as number,
                  seed: (o['seed'] as number | undefined) ?? Date.now() % 2 ** 31,
                  depth: o['depth'] as number,
                },
              }
            : {}),
          widen: o['widen'] as number,
          save: o['save'] === false ? false : (o['save'] as string),
          json: o['json'] as boolean,
          ...(o['failOn'] !== undefined ? { failOn: o['failOn'] as string[] } : {}),
          strict: o['strict'] as boolean,
          refine: o['refine'] !== false,
          atomicOrder: o['atomicOrder'] as 'ascending',
          option: o['option'] as string[],
          ...(o['entry'] ? { entry: o['entry'] as string } : {}),
          ...(o['html'] !== undefined ? { html: o['html'] as string } : {}),
        },
        io,
      );
    });

  cmd
    .command('replay')
    .description(
      'replay a scenario step by step: the issued PC and mask, and the mechanism state after each step ' +
        '(the SIMT stack as RPC / next PC / mask rows, top first, as in seed 000 Fig. 1c and seed 002 Fig. 9)',
    )
    .argument('<scenario>', 'scenario JSON file (saved by explore, or hand-written in scenarios/)')
    .option('-q, --quiet', 'print only the verdict and any mismatch', false)
    .option(
      '--traceg <dir>',
      "write the run as Accel-Sim trace files instead: DIR/kernel-1.traceg and DIR/kernelslist.g (the trace-driven mode's input; `warpcheck validate` reads them back)",
    )
    .option(
      '--turns <N>',
      "turns of a livelock's cycle written to the trace",
      positiveInt('--turns'),
      3,
    )
    .option(
      '--timeout <S>',
      'time limit in seconds; a replay that needs longer stops with exit status 2',
      positiveNumber('--timeout'),
      REPLAY_TIMEOUT_S,
    )
    .option('--json', 'print machine-readable JSON', false)
    .option(
      '--html <file>',
      'write a self-contained page to <file> (implies --quiet): the CFG drawn with the issued PC and\n' +
        'each lane highlighted, a step slider (← → keys), the state tables; a livelock cycle loops',
    )
    .addHelpText(
      'after',
      '\nExit status: 0 the run shows the expected verdict and states, 1 it does not, 2 bad input\n(including a scenario beyond the replay limits), 3 internal error\n(with --traceg: 0 written, 1 the schedule does not fit, 2 the folder cannot be written).\n\nExamples:\n  warpcheck replay scenarios/seed000-fig1-if-else.simt-stack.json\n  warpcheck replay scenarios/seed000-fig3-spinlock.simt-stack.json --html /tmp/spinlock.html\n  warpcheck replay scenarios/seed000-fig1-if-else.simt-stack.json --traceg trace-out\n  warpcheck validate trace-out/kernel-1.traceg --mechanism simt-stack\n',
    )
    .action(async (scenario: string, o: Record<string, unknown>) => {
      const { runReplay } = await import('./replay.ts');
      status.code = runReplay(
        {
          scenario,
          json: o['json'] as boolean,
          quiet: (o['quiet'] as boolean) || o['html'] !== undefined,
          ...(o['html'] !== undefined ? { html: o['html'] as string } : {}),
          ...(o['traceg'] !== undefined ? { traceg: o['traceg'] as string } : {}),
          turns: o['turns'] as number,
          timeout: o['timeout'] as number,
        },
        io,
      );
    });

  cmd
    .command('simulate')
    .description(
      'run a listing on the issue core (SEMANTICS §4): warps with their mechanism, a warp scheduler, ' +
        'latencies and a scoreboard; print cycles, IPC, SIMD efficiency (mean active lanes / W), idle ' +
        'issue cycles and stalls (false stalls: the per-warp scoreboard waiting on lanes not issued)',
    )
    .argument(
      '<file>',
      'SASS listing (as for explore), or a scenario JSON file (saved by explore or check): its program,\nlaunch, mechanism and options run on the core, its schedule deciding every choice\n(--mechanism, --option, --warp-size, --warps and --scheduler are then not used)',
    )
    .option('-m, --mechanism <list>', "comma-separated mechanisms, or 'all'", 'simt-stack')
    .option(
      '--scheduler <list>',
      "lrr (loose round robin), gto (greedy-then-oldest), or 'all'",
      'lrr',
    )
    .option(
      '--scoreboard <list>',
      'warp (per-warp register set, GPGPU-Sim), mask (per-register lane mask, seed 004), dual (two ' +
        "boards for two-path execution, seed 002 §4.6), or 'all'",
      'warp',
    )
    .option(
      '--collector <list>',
      'operand collector (seed 002 §2.5): none (operands read at issue), in-order or out-of-order ' +
        "dispatch from banked registers (out of order can show a war-hazard violation), or 'all'",
      'none',
    )
    .option('--banks <N>', 'register banks of the operand collector', positiveInt('--banks'), 4)
    .option('--units <N>', 'collector units of the operand collector', positiveInt('--units'), 2)
    .option(
      '--latency <list>',
      'latencies in cycles, e.g. global=400,alu=6 (classes alu, sfu, shared, global = mem; defaults alu=4 sfu=20 shared=30 global=200)',
      '',
    )
    .option(
      '--issue-width <N>',
      'instructions issued per cycle (from different warps)',
      positiveInt('--issue-width'),
      1,
    )
    .option(
      '-w, --warp-size <W>',
      'lanes per warp (default: the header, else 4)',
      positiveInt('--warp-size'),
    )
    .option(
      '-k, --warps <K>',
      'warps in the block (default: the header, else 1)',
      positiveInt('--warps'),
    )
    .option('--max-cycles <N>', 'cycle budget per run', positiveInt('--max-cycles'), 1_000_000)
    .option(
      '--explore',
      'search every scheduler choice instead of simulating one scheduler: does some schedule block, stop or cycle? (--max-cycles is the depth budget)',
      false,
    )
    .option('--max-states <N>', 'state budget of --explore', positiveInt('--max-states'), 200_000)
    .option('--timeout <S>', 'time budget in seconds per run', positiveNumber('--timeout'), 30)
    .option(
      '--turns <N>',
      "a scenario's livelock: turns of its cycle to run",
      positiveInt('--turns'),
      3,
    )
    .addOption(
      new Option('--atomic-order <order>', 'which lane wins an atomic race')
        .choices(['ascending', 'descending'])
        .default('ascending'),
    )
    .option('--option <mech.name=value>', 'a mechanism option, repeatable', collect, [])
    .option('--entry <function>', 'entry function (default: the header, else the first)')
    .option('--strict', 'reject instructions outside the modelled data subset', false)
    .option('--json', 'print machine-readable JSON', false)
    .addHelpText(
      'after',
      "\nA run that does not end within the cycle budget is bound-reached (a livelock, such as the\nspinlock on simt-stack, never ends). Exit status: 0 done, 1 some run ended in a finding\n(violation, undefined-behavior, trap, blocked warps), 2 bad input, 3 internal error.\n\nExamples:\n  warpcheck simulate scenarios/spinlock.sass --mechanism its --scheduler all --scoreboard all\n  warpcheck simulate scenarios/seed000-fig1-if-else.sass --latency shared=100 --json\n  warpcheck simulate counterexamples/spinlock.simt-stack.deadlock-livelock.ddade8a5.json\n\nWith a scenario, the exit status is 0 when the timed run shows the scenario's expected verdict,\n1 when not or when the core cannot follow a step of its schedule, 2 bad input.\n",
    )
    .action(async (file: string, o: Record<string, unknown>) => {
      const { runSimulate } = await import('./simulate.ts');
      status.code = runSimulate(
        {
          file,
          mechanism: o['mechanism'] as string,
          ...(o['warpSize'] !== undefined ? { warpSize: o['warpSize'] as number } : {}),
          ...(o['warps'] !== undefined ? { warps: o['warps'] as number } : {}),
          scheduler: o['scheduler'] as string,
          scoreboard: o['scoreboard'] as string,
          latency: o['latency'] as string,
          collector: o['collector'] as string,
          banks: o['banks'] as number,
          units: o['units'] as number,
          issueWidth: o['issueWidth'] as number,
          maxCycles: o['maxCycles'] as number,
          explore: o['explore'] as boolean,
          maxStates: o['maxStates'] as number,
          turns: o['turns'] as number,
          timeout: o['timeout'] as number,
          json: o['json'] as boolean,
          strict: o['strict'] as boolean,
          refine: false,
          atomicOrder: o['atomicOrder'] as 'ascending',
          option: o['option'] as string[],
          ...(o['entry'] ? { entry: o['entry'] as string } : {}),
        },
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
    .option(
      '--dot',
      'print the CFG in Graphviz DOT: a node per basic block with its instructions, dashed edges\n' +
        'from each branch to its IPDOM, reconvergence points marked ◆',
      false,
    )
    .addHelpText(
      'after',
      '\nExample:\n  warpcheck parse scenarios/seed000-fig1-if-else.sass --dot | dot -Tsvg > fig1.svg\n',
    )
    .action(async (file: string, o: Record<string, unknown>) => {
      const { runParse } = await import('./parse.ts');
      status.code = runParse(
        {
          file,
          json: o['json'] as boolean,
          strict: o['strict'] as boolean,
          dot: o['dot'] as boolean,
        },
        io,
      );
    });

  cmd
    .command('validate')
    .description(
      'replay each mechanism on a hardware trace (Accel-Sim .traceg), every lane taking the branches it ' +
        'took on hardware, and measure the discrepancy of seed 000 §IX: Levenshtein distance between the ' +
        "mechanism's warp trace (PC + mask per issue) and the hardware's, divided by the hardware's length",
    )
    .argument(
      '<trace>',
      'Accel-Sim .traceg file (older tb/warp columns or the compact v4/v5 format)',
    )
    .option('-m, --mechanism <list>', "comma-separated mechanisms, or 'all'", 'all')
    .option('--option <mech.name=value>', 'a mechanism option, repeatable', collect, [])
    .option('--listing <file>', 'SASS listing of the kernel: check it agrees with the trace')
    .option(
      '--window <N>',
      'rows either side of the first difference in the side-by-side view',
      (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0)
          throw new InvalidArgumentError('--window must be a non-negative integer');
        return n;
      },
      6,
    )
    .option(
      '--max-steps <N>',
      'steps budget per replay (default 4 x the trace length + 1000)',
      positiveInt('--max-steps'),
    )
    .addOption(
      new Option(
        '--choice <rule>',
        'where a mechanism offers several issues (its): the one equal to the hardware instruction at the same index, else the first at its PC, else the first (hardware); or always the first',
      )
        .choices(['hardware', 'first'])
        .default('hardware'),
    )
    .option('--json', 'print machine-readable JSON', false)
    .addHelpText(
      'after',
      `\nThe program is rebuilt from the trace (docs/validation.md says how operands the trace lacks are\nreconstructed); masks are in the trace's convention: the lanes whose guard was true.\n\nExit status: 0 measured, 1 the --listing disagrees with the trace, 2 bad input, 3 internal\nerror.\n\nExample:\n  warpcheck validate ../shared/traces/accel-sim-hbf__lud_kernel-8.traceg --mechanism all\n`,
    )
    .action(async (trace: string, o: Record<string, unknown>) => {
      const { runValidate } = await import('./validate.ts');
      status.code = runValidate(
        {
          trace,
          mechanism: o['mechanism'] as string,
          option: o['option'] as string[],
          ...(o['listing'] ? { listing: o['listing'] as string } : {}),
          window: o['window'] as number,
          ...(o['maxSteps'] !== undefined ? { maxSteps: o['maxSteps'] as number } : {}),
          choice: o['choice'] as 'hardware' | 'first',
          json: o['json'] as boolean,
        },
        io,
      );
    });
  cmd
    .command('check')
    .description(
      'property campaigns: generate kernels with fast-check, check each law (P1 termination … P8 ' +
        'compile preserves semantics, P9 maximal reconvergence) on each mechanism, shrink what fails ' +
        'and save it as a scenario',
    )
    .option(
      '-p, --property <list>',
      "comma-separated laws (id or tag, e.g. termination,P2), or 'all'",
      'all',
    )
    .option('-m, --mechanism <list>', "comma-separated mechanisms, or 'all'", 'all')
    .option('-n, --runs <N>', 'generated kernels per law and mechanism', positiveInt('--runs'), 100)
    .option('-s, --seed <S>', 'fast-check seed (default: random; always printed)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n)) throw new InvalidArgumentError('--seed must be an integer');
      return n;
    })
    .option(
      '--save <dir>',
      'where shrunk counterexamples are saved (<dir>/<law>/; outside the test corpus)',
      DEFAULT_SAVE_DIR,
    )
    .option('--no-save', 'do not save counterexamples')
    .option(
      '--max-time <S>',
      'stop generating for one law × mechanism after S seconds',
      positiveNumber('--max-time'),
    )
    .option('--json', 'print machine-readable JSON (the seed goes to stderr)', false)
    .addOption(
      new Option(
        '--workers <N>',
        'worker threads running law × mechanism campaigns side by side; results and their order are those of one',
      )
        .argParser(positiveInt('--workers'))
        .default(
          checkWorkers(),
          `half the processors available, ${checkWorkers()} here: one campaign thread keeps about 1.6 cores busy with V8's compiler and GC threads (bench/RESULTS.md)`,
        ),
    )
    .option(
      '--shard <i/n>',
      'run only shard i of n: the law × mechanism pairs whose place in the campaign is i-1 modulo n (for a CI matrix; put the --json outputs together with --merge)',
    )
    .option(
      '--no-bsync-priority',
      'let lanes stand ready at a BSYNC while other lane groups of their its warp run, instead of letting them start to wait first (BSYNC priority, docs/semantics.md §14.4)',
    )
    .option(
      '--no-warp-symmetry',
      "the laws' searches keep states that differ only by exchanging warps apart (warp symmetry, docs/semantics.md §15)",
    )
    .option(
      '--merge <files...>',
      'instead of running, merge the --json outputs of the shards of one campaign into the table (or, with --json, the document) that the unsharded run prints',
    )
    .addHelpText(
      'after',
      `\nLaws (properties/laws/; expected failures are declared in properties/laws/expectations.ts):\n${catalog.laws.map((l) => `  ${l.tag.padEnd(3)} ${l.id.padEnd(22)} ${l.description}`).join('\n')}\n\nExit status: 0 no failure beyond the declared ones, 1 an unexpected failure, 2 bad input,\n3 internal error.\n\nExample:\n  warpcheck check --property termination --mechanism simt-stack --runs 200 --seed 1\n  warpcheck replay ${DEFAULT_SAVE_DIR}/termination/simt-stack-<hash>.json\n\nSpread over machines (each shard runs on --workers threads; the merge is the unsharded table):\n  warpcheck check --runs 1000 --seed 7 --shard 1/2 --json > s1.json   # on one machine\n  warpcheck check --runs 1000 --seed 7 --shard 2/2 --json > s2.json   # on another\n  warpcheck check --merge s1.json s2.json\n`,
    )
    .action(async (o: Record<string, unknown>) => {
      const { runCheck, runMerge } = await import('./check.ts');
      const { parseShard } = await import('./checkReport.ts');
      if (o['merge'] !== undefined) {
        if (o['shard'] !== undefined) {
          io.err('warpcheck check: --merge puts shards together; it takes no --shard\n');
          status.code = EXIT.badInput;
          return;
        }
        status.code = runMerge(o['merge'] as string[], o['json'] as boolean, io);
        return;
      }
      const shard = o['shard'] === undefined ? undefined : parseShard(o['shard'] as string);
      if (typeof shard === 'string') {
        io.err(`warpcheck check: ${shard}\n`);
        status.code = EXIT.badInput;
        return;
      }
      status.code = await runCheck(
        {
          workers: o['workers'] as number,
          ...(shard ? { shard } : {}),
          property: o['property'] as string,
          mechanism: o['mechanism'] as string,
          runs: o['runs'] as number,
          ...(o['seed'] !== undefined ? { seed: o['seed'] as number } : {}),
          save: o['save'] === false ? false : (o['save'] as string),
          json: o['json'] as boolean,
          ...(o['maxTime'] !== undefined ? { maxTime: o['maxTime'] as number } : {}),
          ...(o['warpSymmetry'] === false ? { warpSymmetry: false } : {}),
        },
        io,
      );
    });
  catalog.registerCompile?.(cmd, io, status);
  return cmd;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit status. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const status = { code: 0 };
  const plain = argv.includes('--no-color');
  if (plain) io = withoutColour(io);
  try {
    await program(io, status, await loadCatalog(argv)).parseAsync(
      argv.filter((a) => a !== '--no-color'),
      { from: 'user' },
    );
    return status.code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    io.err(
      `warpcheck: internal error: ${(e as Error).message}\n(please report it with the command that caused it)\n`,
    );
    if (process.env['WARPCHECK_DEBUG']) io.err(`${(e as Error).stack}\n`);
    return EXIT.internal;
  }
}
