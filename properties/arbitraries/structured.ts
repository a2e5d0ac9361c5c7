/**
 * fast-check arbitrary for structured plain-code kernels (issue 4, item 1): sequences, if/else,
 * loops with per-lane trip counts, break, continue, early exit, calls and returns (CALL/RET with the
 * return address in a register, seed 000 §V-D), recursion, switch (BRX with declared
 * `BRANCH_TARGETS`), WARPSYNC with full and partial masks, and the synchronisation idioms:
 * spinlock (seed 000 Fig. 3, ATOMS.CAS or ATOMG.CAS), ticket lock, flag wait, and a lock taken
 * inside an if (the Barnes-Hut shape, see `kernel.ts`). No BSSY/BSYNC: the Turing compile pass adds
 * those.
 *
 * The tree (`structuredTree.ts`) is generated with context (breaks only inside loops, returns only
 * in functions, no WARPSYNC, exit or nested lock inside a critical section) and rendered here with a
 * static reach analysis (`structuredRender.ts`), so that every generated kernel is well-formed:
 * partial WARPSYNC masks name exactly the lanes that reach them, a flag's setter certainly reaches
 * its flag, and every lane's execution is bounded on `its` (loops count to at most 3, recursion is
 * at most 3 deep, spin loops end under fair scheduling because every lock holder releases and
 * every flag is set without waiting for anything).
 */
import fc from 'fast-check';
import type { GeneratedKernel } from './kernel.ts';
import { renderStructured } from './structuredRender.ts';
import { structuredTree, type StructuredOptions } from './structuredTree.ts';

export type { Idiom, StructuredOptions, StructuredAst } from './structuredTree.ts';
export { IDIOMS } from './structuredTree.ts';

/** Structured kernels; see `StructuredOptions` for the knobs (all optional). */
export function structuredKernel(options: StructuredOptions = {}): fc.Arbitrary<GeneratedKernel> {
  return structuredTree(options).map((ast) => {
    const { text, classes } = renderStructured(ast);
    return { text, warpSize: ast.warpSize, warps: ast.warps, classes, ast };
  });
}
