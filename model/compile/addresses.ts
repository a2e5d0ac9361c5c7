/**
 * A small address analysis for the deadlock-aware placement: which words an instruction may
 * touch, when its address register only ever holds constants. **Decision** (docs/semantics.md,
 * "Compile passes"): a register's values are known when every instruction of the function that
 * writes it is `MOV Rn, imm` / `MOV32I Rn, imm` (that constant) or `S2R Rn, SR_TID.X|SR_LANEID`
 * (0..255: at most 8 warps of 32 lanes); anything else makes its value unknown. Used only
 * to tell that a store cannot be the release a spin loop waits for (disjoint words); an unknown
 * address may be anything.
 */
import { RZ, type Instruction, type Operand, type Program } from '../isa/program.ts';
import type { FnGraph } from './graph.ts';

/** The memory operand of an instruction, if any. */
const memOf = (ins: Instruction): Extract<Operand, { kind: 'mem' }> | undefined =>
  ins.operands.find((o): o is Extract<Operand, { kind: 'mem' }> => o.kind === 'mem');

/** The register an instruction writes (its first register operand, unless it is a store). */
function destination(ins: Instruction): number | null {
  if (ins.opcode.startsWith('ST') || ins.opcode === 'RED') return null;
  // ISETP P0, PT, R1, … writes predicates: its registers are sources.
  if (ins.operands[0]?.kind === 'pred') return null;
  const first = ins.operands.find((o) => o.kind === 'reg' || o.kind === 'mem');
  return first?.kind === 'reg' && first.index !== RZ ? first.index : null;
}

/** Per register: the constants it may hold, or null when unknown. */
export function constantRegisters(program: Program, g: FnGraph): Map<number, Set<number> | null> {
  const values = new Map<number, Set<number> | null>();
  for (let pc = g.fn.start; pc < g.fn.end; pc++) {
    const ins = program.instructions[pc]!;
    const d = destination(ins);
    if (d === null) continue;
    const wide = ins.modifiers.some((m) => ['64', 'WIDE', '128'].includes(m));
    const src = ins.operands[1];
    const isConst =
      (ins.opcode === 'MOV' || ins.opcode === 'MOV32I') && !wide && src?.kind === 'imm';
    // A thread or lane id is below 8 warps × 32 lanes (SEMANTICS §1).
    const isId =
      ins.opcode === 'S2R' &&
      src?.kind === 'sreg' &&
      (src.name === 'SR_TID.X' || src.name === 'SR_LANEID');
    const old = values.get(d);
    const add = isConst ? [src.value] : isId ? Array.from({ length: 256 }, (_, i) => i) : null;
    if (add === null || old === null) values.set(d, null);
    else values.set(d, new Set([...(old ?? []), ...add]));
    if (wide) for (let k = 1; k < 4; k++) values.set(d + k, null);
  }
  return values;
}

/** Words the instruction's memory operand may address, or null when unknown. */
export function addressesOf(
  ins: Instruction,
  consts: ReadonlyMap<number, Set<number> | null>,
): Set<number> | null {
  const m = memOf(ins);
  if (m === undefined || m.wide || m.ureg !== null) return null;
  if (m.base === RZ) return new Set([m.offset]);
  const base = consts.get(m.base);
  if (base === undefined || base === null) return null;
  return new Set([...base].map((b) => b + m.offset));
}

/** Two address sets may overlap (unknown overlaps everything). */
export const mayOverlap = (a: Set<number> | null, b: Set<number> | null): boolean =>
  a === null || b === null || [...a].some((x) => b.has(x));
