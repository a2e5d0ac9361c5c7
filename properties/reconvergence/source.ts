/**
 * The kernel source of law P9 (issue 11): ballot programs (`program.ts`) lowered to SASS
 * (`lower.ts`), each carrying its structured program and the reference per-lane logs
 * (`reference.ts`) as its `ast`, with classes read off the structure (`loop-escape`,
 * `exit-escape`: where IPDOM reconvergence departs from maximal reconvergence).
 */
import fc from 'fast-check';
import type { GeneratedKernel, KernelClass } from '../arbitraries/kernel.ts';
import type { LaneLog } from './ballotLog.ts';
import { lowerBallotProgram } from './lower.ts';
import { ballotProgram, type BallotProgram, type Block } from './program.ts';
import { referenceLogs } from './reference.ts';

export interface BallotKernelAst {
  readonly program: BallotProgram;
  readonly expected: readonly LaneLog[];
}

/** Classes of a ballot program (break/continue/return inside a construct). */
export function ballotClasses(p: BallotProgram): Set<KernelClass> {
  const out = new Set<KernelClass>();
  const walk = (b: Block, inConstruct: boolean): void => {
    for (const s of b) {
      if ((s.kind === 'break' || s.kind === 'continue') && inConstruct) out.add('loop-escape');
      if (s.kind === 'return' && inConstruct) out.add('exit-escape');
      if (s.kind === 'break' || s.kind === 'continue') out.add(s.kind);
      if (s.kind === 'call') out.add('call');
      if (s.kind === 'if') {
        walk(s.then, true);
        walk(s.else, true);
      }
      if (s.kind === 'switch') for (const c of s.cases) walk(c.body, true);
      if (s.kind === 'loop') {
        out.add('loop');
        walk(s.body, true);
      }
    }
  };
  walk(p.main, false);
  p.functions.forEach((f) => walk(f, false));
  return out;
}

/** Ballot programs at the given warp sizes, as kernels for the law registry. */
export function ballotKernel(
  warpSizes: readonly number[],
  size = 4,
): fc.Arbitrary<GeneratedKernel> {
  return ballotProgram(warpSizes, size).map((program) => ({
    text: lowerBallotProgram(program),
    warpSize: program.warpSize,
    warps: 1,
    classes: ballotClasses(program),
    ast: { program, expected: referenceLogs(program) } satisfies BallotKernelAst,
  }));
}
