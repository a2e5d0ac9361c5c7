/**
 * Compile targets: `warpcheck compile --target ID`. Each is a pure function from a plain program
 * to a lowered one. Adding a target is one line here (e.g. `fermi` from `./fermi.ts`, `gcn` from
 * `./gcn.ts`, written as `compileFermi(program, options)` / `compileGcn(program, options)`).
 */
import type { Program, Result } from '../isa/program.ts';
import { compileTuring, type Compiled } from './compileTuring.ts';

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
  readonly compile: (program: Program, options: CompileOptions) => Result<Compiled>;
}

/** The registered targets, in the order `--help` lists them. */
export const TARGETS: readonly CompileTarget[] = [
  {
    id: 'turing',
    summary:
      'BSSY/BSYNC at reconvergence points, BREAK, BMOV spills, YIELD in spin loops (seed 000 §VI)',
    compile: compileTuring,
  },
];

/** The target with this id, if registered. */
export const targetOf = (id: string): CompileTarget | undefined => TARGETS.find((t) => t.id === id);
