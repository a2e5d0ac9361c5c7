/**
 * Compile targets: `warpcheck compile --target ID`. Each is a pure function from a plain program
 * to a lowered one — a bare `Program` or a `Compiled` report. Adding a target is one line in
 * `TARGETS` (e.g. `{ id: 'fermi', summary: '…', compile: compileFermi }` from `./fermi.ts`,
 * `{ id: 'gcn', summary: '…', compile: compileGcn }` from `./gcn.ts`).
 */
import type { Program, Result } from '../isa/program.ts';
import { compileTuring, type Compiled, type RegionReport } from './compileTuring.ts';
import { compileFermi } from './fermi.ts';
import { compileGcn } from './gcn.ts';

/** Options every target accepts; a target ignores the ones it has no use for. */
export interface CompileOptions {
  /** Barrier/stack registers available (Turing: B registers, default 16). */
  readonly registers?: number;
  /** Deadlock-aware placement for spin loops (default true). */
  readonly deadlockAware?: boolean;
  /** Turing register allocation: `nesting` (default) or `distinct`. */
  readonly allocation?: 'nesting' | 'distinct';
  /** Turing: spill with `BMOV.32.CLEAR` rather than `BMOV.32` (default false). */
  readonly spillClear?: boolean;
  readonly file?: string;
  readonly sourceLines?: readonly number[];
}

export interface CompileTarget {
  readonly id: string;
  readonly summary: string;
  readonly compile: (program: Program, options: CompileOptions) => Result<Program | Compiled>;
}

/** What the CLI prints of a target's output, whichever shape the target returns. */
export interface Lowered {
  readonly program: Program;
  readonly regions: readonly RegionReport[];
  readonly yields: readonly number[];
  readonly notes: readonly string[];
}

/** Normalises a target's output: a bare program has no regions, YIELDs or notes to report. */
export const loweredOf = (out: Program | Compiled): Lowered =>
  'instructions' in out ? { program: out, regions: [], yields: [], notes: [] } : out;

/** The registered targets, in the order `--help` lists them. */
export const TARGETS: readonly CompileTarget[] = [
  {
    id: 'turing',
    summary:
      'BSSY/BSYNC at reconvergence points, BREAK, BMOV spills, YIELD in spin loops (seed 000 §VI)',
    compile: compileTuring,
  },
  {
    id: 'fermi',
    summary:
      'SSY before divergent branches and SYNC at their IPDOM, PBK/BRK for loops with breaks (seed 003 §II)',
    compile: (program, o) => compileFermi(program, o.file ? { file: o.file } : {}),
  },
  {
    id: 'gcn',
    summary: 'FORK before region-opening divergent branches, JOIN at their IPDOM (seed 001 §2.2)',
    compile: (program, o) => compileGcn(program, o.file ? { file: o.file } : {}),
  },
];

/** The target with this id, if registered. */
export const targetOf = (id: string): CompileTarget | undefined => TARGETS.find((t) => t.id === id);
