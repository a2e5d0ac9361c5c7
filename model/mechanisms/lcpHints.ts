import type { Op } from '../isa/op.ts';
import type { Diagnostic, Program } from '../isa/program.ts';

/**
 * Likely-convergence annotations of a listing (seed 002 §3.11: a branch "has an LCP"; Fung et al.
 * derive them from profiles, so they are a hint beside the code, not an instruction). Written in
 * the launch header as `// @warpcheck lcp=BRANCH:POINT` (project decision, docs/semantics.md
 * "dual-path and lcp"): BRANCH and POINT are each a label or a hex offset (`0x0040`) of the entry
 * function; BRANCH must be a BRA. Only the `lcp` mechanism reads them; every other mechanism
 * ignores them.
 */
export interface LcpItem {
  readonly branch: string;
  readonly point: string;
  readonly line: number;
  readonly column: number;
}

/** Resolves the items to a map branch PC → LCP PC; every problem is a diagnostic at its item. */
export function resolveLcpHints(
  items: readonly LcpItem[],
  program: Program,
  ops: readonly Op[],
  entry: number,
  file: string,
): { ok: true; value: ReadonlyMap<number, number> } | { ok: false; error: Diagnostic[] } {
  const fn = program.functions.find((f) => f.start <= entry && entry < f.end);
  const pcOf = (name: string): number | null => {
    if (/^0x[0-9a-fA-F]+$/.test(name) && fn) {
      const off = parseInt(name, 16);
      for (let pc = fn.start; pc < fn.end; pc++)
        if (program.instructions[pc]!.offset === off) return pc;
      return null;
    }
    const l = program.labels.find((x) => x.name === name);
    return l && l.pc < program.instructions.length ? l.pc : null;
  };
  const map = new Map<number, number>();
  const errors: Diagnostic[] = [];
  for (const it of items) {
    const at = { file, line: it.line, column: it.column };
    const b = pcOf(it.branch);
    const p = pcOf(it.point);
    if (b === null)
      errors.push({
        ...at,
        message: `lcp=${it.branch}:…: '${it.branch}' is no label or instruction offset of the kernel`,
      });
    else if (ops[b]!.kind !== 'bra')
      errors.push({
        ...at,
        message: `lcp=${it.branch}:…: the instruction at '${it.branch}' is ${program.instructions[b]!.opcode}, not a BRA`,
      });
    if (p === null)
      errors.push({
        ...at,
        message: `lcp=…:${it.point}: '${it.point}' is no label or instruction offset of the kernel`,
      });
    if (b !== null && p !== null) map.set(b, p);
  }
  return errors.length ? { ok: false, error: errors } : { ok: true, value: map };
}
