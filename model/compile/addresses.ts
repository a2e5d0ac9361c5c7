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
import { EXIT_NODE, edgesFrom, type FnGraph } from './graph.ts';

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

/** An interval of values, bounds possibly infinite. */
export interface Range {
  readonly lo: number;
  readonly hi: number;
}

const FULL: Range = { lo: -Infinity, hi: Infinity };

/** Per register, the interval it holds before an instruction (absent: unknown). */
export type RangeState = ReadonlyMap<number, Range>;

/**
 * Per PC of one function, the interval each register holds before it runs (a forward dataflow
 * over the instruction graph, joined at merges, widened to infinity at a PC visited more than a
 * few times — a counter). At the function's entry every register is unknown (a launch header may
 * set any). Transfer: `MOV` of a constant or register, `S2R` of a thread or lane id (0..255),
 * `IADD3`, `SHF.L.U32` by a constant, `LOP3.LUT … 0xc0` (AND) with a non-negative constant;
 * anything else writing a register makes it unknown; a guarded write joins with the old value.
 * **Decision** (docs/semantics.md, "Compile passes"): used to tell a loop that re-reads a
 * read-only input from one that waits for a store (issue 11: the log store `STS [R1]`,
 * R1 = lane·0x1000 + 0x10000 + i, cannot write the input words).
 */
export function registerRanges(program: Program, g: FnGraph): Map<number, RangeState> {
  const at = new Map<number, Map<number, Range>>();
  const visits = new Map<number, number>();
  const work: number[] = [g.fn.start];
  at.set(g.fn.start, new Map());
  while (work.length > 0) {
    const pc = work.pop()!;
    const before = at.get(pc)!;
    const ins = program.instructions[pc]!;
    const after = new Map(before);
    const d = destination(ins);
    if (d !== null && ins.operands[0]?.kind === 'reg') {
      const r = transfer(ins, before);
      const old = before.get(d) ?? FULL;
      const v = ins.guard === null ? r : join(old, r);
      if (v.lo === -Infinity && v.hi === Infinity) after.delete(d);
      else after.set(d, v);
    }
    for (const e of edgesFrom(g, pc)) {
      if (e.to === EXIT_NODE) continue;
      const old = at.get(e.to);
      let next: Map<number, Range>;
      if (old === undefined) next = new Map(after);
      else {
        next = new Map();
        const n = (visits.get(e.to) ?? 0) + 1;
        visits.set(e.to, n);
        for (const [k, o] of old) {
          const a = after.get(k);
          if (a === undefined) continue;
          let v = join(o, a);
          if (n > 6) v = { lo: v.lo < o.lo ? -Infinity : v.lo, hi: v.hi > o.hi ? Infinity : v.hi };
          if (v.lo !== -Infinity || v.hi !== Infinity) next.set(k, v);
        }
        if (next.size === old.size && [...next].every(([k, v]) => same(old.get(k), v))) continue;
      }
      at.set(e.to, next);
      work.push(e.to);
    }
  }
  return at;
}

const join = (a: Range, b: Range): Range => ({
  lo: Math.min(a.lo, b.lo),
  hi: Math.max(a.hi, b.hi),
});
const same = (a: Range | undefined, b: Range): boolean =>
  a !== undefined && a.lo === b.lo && a.hi === b.hi;

function transfer(ins: Instruction, state: RangeState): Range {
  const of = (o: Operand | undefined): Range => {
    if (o === undefined) return FULL;
    if (o.kind === 'imm') return { lo: o.value, hi: o.value };
    if (o.kind !== 'reg') return FULL;
    return o.index === RZ ? { lo: 0, hi: 0 } : (state.get(o.index) ?? FULL);
  };
  const ops = ins.operands;
  if (ins.modifiers.some((m) => ['64', 'WIDE', '128'].includes(m))) return FULL;
  switch (ins.opcode) {
    case 'MOV':
    case 'MOV32I':
      return ops[1]?.kind === 'imm' || ops[1]?.kind === 'reg' ? of(ops[1]) : FULL;
    case 'S2R': {
      const s = ops[1];
      return s?.kind === 'sreg' && (s.name === 'SR_TID.X' || s.name === 'SR_LANEID')
        ? { lo: 0, hi: 255 }
        : FULL;
    }
    case 'IADD3': {
      if (ops.slice(1).some((o) => o.kind !== 'reg' && o.kind !== 'imm')) return FULL;
      return ops.slice(1).reduce(
        (a: Range, o) => {
          const r = of(o);
          return { lo: a.lo + r.lo, hi: a.hi + r.hi };
        },
        { lo: 0, hi: 0 },
      );
    }
    case 'SHF': {
      const k = ops[2];
      if (!ins.modifiers.includes('L') || k?.kind !== 'imm' || k.value < 0 || k.value > 31)
        return FULL;
      const r = of(ops[1]);
      const f = 2 ** k.value;
      return r.lo < 0 ? FULL : { lo: r.lo * f, hi: r.hi * f };
    }
    case 'LOP3': {
      const lut = ops[ops.length - 2];
      if (lut?.kind !== 'imm' || lut.value !== 0xc0) return FULL;
      const c = ops.slice(1, 3).find((o) => o.kind === 'imm' && o.value >= 0);
      return c?.kind === 'imm' ? { lo: 0, hi: c.value } : FULL;
    }
    default:
      return FULL;
  }
}

/** The interval of words an instruction's memory operand may address (unknown: everything). */
export function addressRange(ins: Instruction, ranges: RangeState | undefined): Range {
  const m = memOf(ins);
  if (m === undefined || m.wide || m.ureg !== null) return FULL;
  if (m.base === RZ) return { lo: m.offset, hi: m.offset };
  const r = ranges?.get(m.base) ?? FULL;
  return { lo: r.lo + m.offset, hi: r.hi + m.offset };
}

export const rangesOverlap = (a: Range, b: Range): boolean => a.lo <= b.hi && b.lo <= a.hi;
