import type { Program } from '../isa/program.ts';

/** How a listing's kernels were told apart from its other functions. */
export type KernelRule = 'entry' | 'exit' | 'all';

/**
 * The kernel entries of a listing (issue 16; the rules `docs/findings.md` uses): an nvdisasm
 * listing marks them (`.other NAME,@"STO_CUDA_ENTRY …"`); a listing without those marks
 * (cuobjdump, fragments) has a kernel in every function that holds an EXIT (cuobjdump's
 * `Function :` blocks of device functions end in RET and never EXIT); a listing with neither has
 * every function explored.
 */
export function kernelEntries(
  text: string,
  program: Program,
): { readonly names: readonly string[]; readonly rule: KernelRule } {
  const fns = program.functions;
  const marked = new Set(
    [...text.matchAll(/\.other\s+([^,\s]+)\s*,\s*@"STO_CUDA_ENTRY/g)].map((m) => m[1]!),
  );
  if (marked.size > 0) {
    const names = fns.filter((f) => marked.has(f.name)).map((f) => f.name);
    if (names.length > 0) return { names, rule: 'entry' };
  }
  const withExit = fns.filter((f) =>
    program.instructions.slice(f.start, f.end).some((i) => i.opcode === 'EXIT'),
  );
  if (withExit.length > 0) return { names: withExit.map((f) => f.name), rule: 'exit' };
  return { names: fns.map((f) => f.name), rule: 'all' };
}
