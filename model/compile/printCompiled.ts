/**
 * Prints a compiled program as a listing that `parseSass` reads back: the source's `// @warpcheck`
 * launch header first (its `expect:` items are dropped — they state the source's verdicts, not the
 * compiled code's), then the program in cuobjdump form (`printProgram`).
 */
import { printProgram } from '../isa/printProgram.ts';
import type { Directive, Program } from '../isa/program.ts';

/** The listing text of `program` under the header of the source's `directives`. */
export function printCompiled(
  program: Program,
  directives: readonly Directive[],
  comment: readonly string[] = [],
): string {
  const header = directives
    .map((d) =>
      d.text
        .split(/\s+/)
        .filter((item) => item !== '' && !item.startsWith('expect:'))
        .join(' '),
    )
    .filter((t) => t !== '')
    .map((t) => `// @warpcheck ${t}`);
  return [...comment.map((c) => `// ${c}`), ...header, printProgram(program)].join('\n');
}
