import type { Program } from '../isa/program.ts';
import type { Formatter } from '../mechanisms/mechanism.ts';
import { binMask } from '../lanes/values.ts';

/** Formats PCs with the program's labels (else `fn+0x0050`-style offsets) and masks in binary. */
export function formatterFor(program: Program, warpSize: number): Formatter {
  const names = new Map<number, string>();
  for (const l of program.labels) if (!names.has(l.pc)) names.set(l.pc, l.name);
  for (const f of program.functions)
    if (!names.has(f.start) && program.functions.length > 1) names.set(f.start, f.name);
  return {
    pc: (pc) =>
      names.get(pc) ??
      '0x' + (program.instructions[pc]?.offset ?? pc * 16).toString(16).padStart(4, '0'),
    mask: (m) => binMask(m, warpSize),
  };
}
