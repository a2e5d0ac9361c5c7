import { readFileSync } from 'node:fs';
import pc from 'picocolors';

/** picocolors' styling functions. */
export type Colors = ReturnType<typeof pc.createColors>;
import type { Diagnostic } from '../model/isa/program.ts';
import { formatDiagnostic } from '../model/isa/program.ts';

/** Where the CLI writes: injectable so tests can capture output. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is a terminal (progress lines are redrawn in place). */
  readonly interactive: boolean;
  /** Styling for human-readable output; identity functions when colour is off. */
  readonly colour: Colors;
}

/**
 * Colour only when a person is reading: stdout is a terminal (and TERM is not `dumb`),
 * unless `NO_COLOR` is set (https://no-color.org) or `FORCE_COLOR` asks for it. Unlike
 * picocolors' own default, being in CI does not turn colour on for piped output.
 */
export function colourWanted(env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTty && env.TERM !== 'dumb';
}

export const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  interactive: Boolean(process.stderr.isTTY),
  colour: pc.createColors(colourWanted(process.env, Boolean(process.stdout.isTTY))),
};

/** The same Io with colour switched off (`--no-color`). */
export const withoutColour = (io: Io): Io => ({ ...io, colour: pc.createColors(false) });

/** Plain colours, for tests and machine output. */
export const noColour: Colors = pc.createColors(false);

/** At most this many diagnostics are printed; the rest are counted. */
export const MAX_DIAGNOSTICS = 20;

/**
 * Prints diagnostics one per line (`file:line:col: message`), at most `MAX_DIAGNOSTICS` of them
 * (a file of the wrong kind would otherwise print one error per line), and returns exit status 2.
 */
export function reportDiagnostics(io: Io, ds: readonly Diagnostic[]): number {
  for (const d of ds.slice(0, MAX_DIAGNOSTICS)) io.err(`${formatDiagnostic(d)}\n`);
  if (ds.length > MAX_DIAGNOSTICS)
    io.err(
      `… and ${ds.length - MAX_DIAGNOSTICS} more problems (the first ${MAX_DIAGNOSTICS} are shown)\n`,
    );
  return 2;
}

/** A plain text table: columns padded to their widest cell; numbers right-aligned. */
export function table(
  c: Colors,
  columns: readonly string[],
  rows: readonly (readonly string[])[],
  indent = '',
): string {
  const width = columns.map((c, i) =>
    Math.max(visible(c).length, ...rows.map((r) => visible(r[i] ?? '').length)),
  );
  const numeric = columns.map(
    (_, i) =>
      rows.some((r) => /\d/.test(r[i] ?? '')) &&
      rows.every((r) => /^[\d.,]+( ms| s)?$|^-$/.test(visible(r[i] ?? ''))),
  );
  const line = (cells: readonly string[]) =>
    indent +
    cells
      .map((c, i) => {
        const pad = ' '.repeat(Math.max(0, width[i]! - visible(c).length));
        return numeric[i] ? pad + c : c + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((h) => c.bold(h))), ...rows.map(line)].join('\n') + '\n';
}

// eslint-disable-next-line no-control-regex
const visible = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, '');

/** Colours a verdict: green terminates, red failures, yellow bounds and unsupported. */
export function colourVerdict(c: Colors, v: string): string {
  if (v.startsWith('terminates')) return c.green(v);
  if (v.startsWith('bound-reached') || v.startsWith('unsupported')) return c.yellow(v);
  return c.red(v);
}

export const thousands = (n: number): string => n.toLocaleString('en-US');
export const millis = (ms: number): string =>
  ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;

/** Reads an input file, or says why not (exit status 2) — never a stack trace. */
export function readInput(io: Io, file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    io.err(`${file}: cannot read: ${(e as Error).message}\n`);
    return null;
  }
}
