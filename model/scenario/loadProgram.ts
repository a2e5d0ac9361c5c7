import { buildCfg, ipdomOf, type ProgramCfg } from '../cfg/index.ts';
import { decodeProgram } from '../isa/decode.ts';
import type { Op } from '../isa/op.ts';
import type { Diagnostic, Program } from '../isa/program.ts';
import { parseSass } from '../isa/parseSass.ts';
import { defaultLaunch, checkLaunch, type Launch } from '../lanes/launch.ts';
import { parseHeader, type Header } from './header.ts';
import { resolveLcpHints } from '../mechanisms/lcpHints.ts';

/** A listing made ready to run: parsed, decoded, analysed, with its launch header read. */
export interface LoadedProgram {
  readonly file: string;
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly cfg: ProgramCfg;
  readonly header: Header;
  /** Source line of every PC, for messages. */
  readonly sourceLines: readonly number[];
  /** PC where the kernel starts. */
  readonly entry: number;
  /** IPDOM of a PC (`-1` = the virtual exit). */
  ipdom(pc: number): number;
  /** Likely convergence points of branches (`lcp=` header items): branch PC → LCP PC. */
  readonly likelyConvergence?: ReadonlyMap<number, number>;
  /** Warnings from the analysis (unknown BRX targets, infinite loops). */
  readonly warnings: readonly string[];
}

export interface LoadOptions {
  /** Reject instructions outside the data subset instead of giving them unknown results. */
  readonly strict?: boolean;
  /** Entry function name; the header's `entry=`, then the first function, otherwise. */
  readonly entry?: string;
}

/** Parses and prepares a listing; every problem is a diagnostic with file, line and column. */
export function loadProgram(
  text: string,
  file: string,
  options: LoadOptions = {},
): { ok: true; value: LoadedProgram } | { ok: false; error: readonly Diagnostic[] } {
  const parsed = parseSass(text, { file });
  if (!parsed.ok) return parsed;
  const { program, directives, sourceLines } = parsed.value;
  const header = parseHeader(directives, file);
  if (!header.ok) return header;
  const at = (pc: number) => ({ file, line: sourceLines[pc] ?? 1, column: 1 });
  if (program.instructions.length === 0)
    return {
      ok: false,
      error: [{ file, line: 1, column: 1, message: 'the listing holds no instructions' }],
    };
  const decoded = decodeProgram(program, { strict: options.strict ?? false });
  if (decoded.errors.length)
    return { ok: false, error: decoded.errors.map((e) => ({ ...at(e.pc), message: e.message })) };
  const entryName = options.entry ?? header.value.entry;
  const fn =
    entryName === null || entryName === undefined
      ? program.functions[0]
      : program.functions.find((f) => f.name === entryName);
  // The header's `entry=` item is where a bad name was written (an option has no position).
  const entryAt = options.entry === undefined ? header.value.entryAt : undefined;
  if (!fn)
    return {
      ok: false,
      error: [
        {
          file,
          line: entryAt?.line ?? 1,
          column: entryAt?.column ?? 1,
          message: `no function named '${entryName}'${options.entry !== undefined ? ' (--entry)' : ''} (functions: ${program.functions.map((f) => f.name).join(', ')})`,
        },
      ],
    };
  const cfg = buildCfg(program);
  const lcp = resolveLcpHints(header.value.lcp ?? [], program, decoded.ops, fn.start, file);
  if (!lcp.ok) return lcp;
  return {
    ok: true,
    value: {
      file,
      program,
      ops: decoded.ops,
      cfg,
      header: header.value,
      sourceLines,
      entry: fn.start,
      ipdom: (pc) => ipdomOf(cfg, pc),
      warnings: cfg.warnings,
      ...(lcp.value.size ? { likelyConvergence: lcp.value } : {}),
    },
  };
}

/** The launch of a run: defaults, then the listing's header, then explicit overrides. */
export function resolveLaunch(
  header: Header,
  overrides: { readonly [K in keyof Launch]?: Launch[K] | undefined } = {},
): { ok: true; value: Launch } | { ok: false; error: string[] } {
  const launch: Launch = { ...defaultLaunch, ...header.launch, ...definedOnly(overrides) };
  const problems = checkLaunch(launch);
  return problems.length ? { ok: false, error: problems } : { ok: true, value: launch };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
