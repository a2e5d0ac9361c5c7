import { match, P } from 'ts-pattern';
import type { Addr, Cmp, Op, OpBody, Src } from './op.ts';
import { PT, RZ, type Instruction, type Operand, type PredRef, type Program } from './program.ts';
import { ALL_CONTROL_OPCODES, secondPredicate } from './control.ts';

/** Why an instruction could not be decoded: its PC and a message a person can act on. */
export interface DecodeError {
  readonly pc: number;
  readonly message: string;
}

const TRUE: PredRef = { index: PT, negated: false };
const UNKNOWN: Src = { kind: 'unknown' };
const UNIFORM: Src = { kind: 'unknown', uniform: true };
/** `URZ`, the uniform zero register. */
const URZ = 63;

/** Modifiers that change an access's width: the data subset models 32-bit words only. */
const WIDTH_MODS = new Set(['64', '128', 'U8', 'S8', 'U16', 'S16', 'F16', 'F64']);
const CMPS = new Set<Cmp>(['EQ', 'NE', 'LT', 'LE', 'GT', 'GE']);

const srcOf = (program: Program, o: Operand | undefined): Src =>
  match(o)
    .with({ kind: 'reg' }, (r) => ({ kind: 'reg', index: r.index }) as const)
    .with({ kind: 'imm' }, (i) => ({ kind: 'imm', value: i.value }) as const)
    .with({ kind: 'cbank', offsetReg: null }, (c) => ({
      kind: 'cbank' as const,
      bank: c.bank,
      offset: c.offset,
    }))
    // Uniform registers are not modelled: one unknown value per warp (URZ reads zero).
    .with({ kind: 'ureg' }, (u): Src => (u.index === URZ ? { kind: 'imm', value: 0 } : UNIFORM))
    // `MOV R20, label` loads the label's byte offset in its function (SEMANTICS §1).
    .with({ kind: 'target' }, (t) => ({ kind: 'imm', value: codeOffset(program, t.pc) }) as const)
    .with({ kind: 'text' }, (t) => {
      // `-R8`, `-R3.reuse`: the register's two's complement (docs/semantics.md, data subset).
      const neg = /^-(R(\d+)|RZ)(\.reuse)?$/.exec(t.text);
      if (neg) {
        const index = neg[1] === 'RZ' ? RZ : Number(neg[2]);
        if (index <= 254 || index === RZ) return { kind: 'reg', index, negated: true } as const;
      }
      const label = program.labels.find((l) => l.name === t.text);
      return label ? ({ kind: 'imm', value: codeOffset(program, label.pc) } as const) : UNKNOWN;
    })
    .otherwise(() => UNKNOWN);

/** Byte offset of `pc` within its function (a pc one past the end continues the stride). */
export function codeOffset(program: Program, pc: number): number {
  const ins = program.instructions[pc];
  if (ins) return ins.offset;
  const prev = program.instructions[pc - 1];
  return prev ? prev.offset + 16 : 0;
}

const regOf = (o: Operand | undefined): number | null => (o?.kind === 'reg' ? o.index : null);
const predOf = (o: Operand | undefined): PredRef | null => (o?.kind === 'pred' ? o.pred : null);
const targetOf = (ops: readonly Operand[]): number | null => {
  for (const o of ops) if (o.kind === 'target') return o.pc;
  return null;
};

function addrOf(o: Operand | undefined): Addr | null {
  if (o?.kind !== 'mem') return null;
  return { base: o.base, wide: o.wide, opaque: o.ureg !== null, offset: o.offset };
}

/** Registers and predicates an opaque instruction writes (abstract mode: they become unknown). */
function opaqueOf(ins: Instruction): OpBody {
  const regs: number[] = [];
  const preds: number[] = [];
  const ops = ins.operands;
  const isStore = /^(ST|RED|ATOM|SU)/.test(ins.opcode);
  // A leading predicate is a destination: set-predicate forms (FSETP P0, P1, R2, R3, PT;
  // ISETP….EX; PLOP3.LUT P0, PT, P1, …) write their first two predicates and no register — the
  // registers after them are sources; other forms (LOP3.LUT P1, R5, R2, …) then write a register.
  let lead = 0;
  if (ops[0]?.kind === 'pred') {
    for (; lead < 2 && ops[lead]?.kind === 'pred'; lead++) {
      const p = (ops[lead] as { pred: PredRef }).pred;
      if (p.index !== PT) preds.push(p.index);
    }
    if (/SETP\d*$|^PLOP3$/.test(ins.opcode))
      return { kind: 'opaque', opcode: ins.opcode, regs, preds, havoc: isStore };
  }
  const first = ops[lead];
  if (first?.kind === 'reg' && first.index !== RZ && !(isStore && !/^ATOM/.test(ins.opcode))) {
    // 64-bit results (.64, .WIDE, CS2R without .32) fill the pair Rd, Rd+1; .128 four registers.
    const pair =
      ins.modifiers.some((m) => m === '64' || m === 'WIDE') ||
      (ins.opcode === 'CS2R' && !ins.modifiers.includes('32'));
    const width = ins.modifiers.includes('128') ? 4 : pair ? 2 : 1;
    for (let k = 0; k < width; k++) regs.push(first.index + k);
    // Carry-out predicates right after the destination (IADD3 R4, P0, R2, …).
    for (let i = lead + 1; ops[i]?.kind === 'pred'; i++) {
      const p = (ops[i] as { pred: PredRef }).pred;
      if (p.index !== PT) preds.push(p.index);
    }
  }
  return { kind: 'opaque', opcode: ins.opcode, regs, preds, havoc: isStore };
}

/**
 * Decodes one instruction (SEMANTICS §2). Returns an error only for a control-flow instruction
 * whose operands do not fit its form; data instructions outside the subset decode as `opaque`.
 */
export function decodeInstruction(program: Program, pc: number): Op | DecodeError {
  const ins = program.instructions[pc]!;
  const guard = ins.guard;
  // Only control-flow instructions take a second predicate (seed 000 §V-A); on a data
  // instruction a leading predicate operand is a destination.
  const pred2 = ALL_CONTROL_OPCODES.has(ins.opcode) ? secondPredicate(ins) : null;
  const body = decodeBody(program, pc, ins);
  if ('message' in body) return body;
  return { ...body, guard, pred2 };
}

function decodeBody(program: Program, pc: number, ins: Instruction): OpBody | DecodeError {
  const ops =
    ALL_CONTROL_OPCODES.has(ins.opcode) && ins.operands[0]?.kind === 'pred'
      ? ins.operands.slice(1)
      : ins.operands;
  const mods = ins.modifiers;
  const fail = (message: string): DecodeError => ({ pc, message: `${ins.opcode}: ${message}` });
  switch (ins.opcode) {
    case 'EXIT':
    case 'KILL':
      return { kind: 'exit' };
    case 'BRA':
    case 'JMP': {
      const t = targetOf(ops);
      if (t !== null) {
        const cond = mods.includes('DIV') ? 'div' : mods.includes('CONV') ? 'conv' : 'none';
        return { kind: 'bra', target: t, cond };
      }
      const sym = ops.find((o) => o.kind === 'symbol');
      if (sym?.kind === 'symbol') return { kind: 'bra-external', name: sym.name };
      return fail('expected a branch target (a label, `(label) or a hex offset)');
    }
    case 'BRX':
    case 'BRXU':
    case 'JMX':
    case 'JMXU': {
      const reg = regOf(ops[0]);
      if (reg === null) return fail('expected a register holding the target, e.g. BRX R8 -0x200');
      const imm = ops[1]?.kind === 'imm' ? ops[1].value : 0;
      const targets = ops.flatMap((o) => (o.kind === 'target' ? [o.pc] : []));
      return { kind: 'brx', reg, imm, relative: ops[1]?.kind === 'imm', targets };
    }
    case 'CALL': {
      const t = targetOf(ops);
      if (t !== null) return { kind: 'call', target: t };
      const sym = ops.find((o) => o.kind === 'symbol');
      return { kind: 'call-external', name: sym?.kind === 'symbol' ? sym.name : 'register' };
    }
    case 'RET': {
      const reg = regOf(ops[0]);
      if (reg === null)
        return fail('expected the return-address register, e.g. RET.REL.NODEC R20 0x0');
      return { kind: 'ret', reg, imm: ops[1]?.kind === 'imm' ? ops[1].value : 0 };
    }
    case 'BSSY': {
      const b = ops[0];
      const t = targetOf(ops);
      const outside = ops.some((o) => o.kind === 'symbol');
      if (b?.kind !== 'breg' || (t === null && !outside)) return fail('expected BSSY Bx, target');
      return { kind: 'bssy', barrier: b.index, target: t };
    }
    case 'BSYNC': {
      const b = ops[0];
      if (b?.kind !== 'breg') return fail('expected BSYNC Bx');
      return { kind: 'bsync', barrier: b.index };
    }
    case 'BREAK': {
      const b = ops.find((o) => o.kind === 'breg');
      if (b?.kind !== 'breg') return fail('expected BREAK Bx');
      return { kind: 'break', barrier: b.index };
    }
    case 'BMOV': {
      const [d, s] = ops;
      if (d?.kind === 'reg' && s?.kind === 'breg')
        return {
          kind: 'bmov-from-barrier',
          dst: d.index,
          barrier: s.index,
          clear: mods.includes('CLEAR'),
        };
      if (d?.kind === 'breg' && (s?.kind === 'reg' || s?.kind === 'imm'))
        return { kind: 'bmov-to-barrier', barrier: d.index, src: srcOf(program, s) };
      // BMOV to or from convergence-unit state (MACTIVE, OPT_STACK, B→B shifts): outside the model.
      return opaqueOf(ins);
    }
    case 'WARPSYNC': {
      if (mods.includes('EXCLUSIVE') || mods.includes('COLLECTIVE')) return opaqueOf(ins);
      if (mods.includes('ALL')) return { kind: 'warpsync', mask: null };
      const m = ops[0];
      if (m?.kind !== 'imm' && m?.kind !== 'reg')
        return fail('expected a mask: WARPSYNC 0xffffffff, WARPSYNC R4 or WARPSYNC.ALL');
      return { kind: 'warpsync', mask: srcOf(program, m) };
    }
    case 'YIELD':
    case 'NANOSLEEP':
      return { kind: 'yield' };
    case 'BPT':
      return mods.includes('TRAP') ? { kind: 'trap' } : { kind: 'nop' };
    case 'SSY':
    case 'SYNC':
    case 'PBK':
    case 'BRK':
    case 'PCNT':
    case 'CONT':
    case 'PRET':
    case 'FORK':
    case 'JOIN':
      return { kind: 'stack-op', opcode: ins.opcode, target: targetOf(ops) };
    default:
      return decodeData(program, ins);
  }
}

/** The data subset of SEMANTICS §2; anything else is opaque. */
function decodeData(program: Program, ins: Instruction): OpBody {
  const ops = ins.operands;
  const mods = ins.modifiers;
  const src = (i: number) => srcOf(program, ops[i]);
  const dst = regOf(ops[0]);
  const opaque = () => opaqueOf(ins);
  if (mods.some((m) => WIDTH_MODS.has(m))) return opaque();
  return match(ins.opcode)
    .with(P.union('NOP', 'MEMBAR'), () => ({ kind: 'nop' }) as const)
    .with(P.union('MOV', 'MOV32I', 'LDC'), () =>
      dst === null || ops.length !== 2 ? opaque() : { kind: 'mov' as const, dst, src: src(1) },
    )
    .with('S2R', () =>
      dst !== null && ops[1]?.kind === 'sreg'
        ? { kind: 's2r' as const, dst, sreg: ops[1].name }
        : opaque(),
    )
    .with(P.union('IADD3', 'IADD', 'VIADD'), () => {
      // `VIADD Rd, Ra, b` (sm_90 and later) is the sum of its sources as IADD3's is.
      // `IADD3 Rd, PT, PT, a, b, c` (sm_90 and later print the carry-outs): a carry into PT is
      // dropped, so the add is the plain one. A carry into a real predicate (`IADD3 R2, P0, …`,
      // the low half of a 64-bit add) or a carry in (`.X`) stays opaque.
      let first = 1;
      while (ops[first]?.kind === 'pred') {
        const p = predOf(ops[first])!;
        if (p.index !== PT || p.negated) return opaque();
        first++;
      }
      if (dst === null || mods.includes('X') || ops.slice(first).some((o) => o.kind === 'pred'))
        return opaque();
      return {
        kind: 'arith' as const,
        dst,
        mul: null,
        adds: ops.slice(first).map((_, i) => src(i + first)),
      };
    })
    .with('IMAD', () => {
      const allowed = mods.every((m) => ['MOV', 'U32', 'S32', 'SHL', 'IADD'].includes(m));
      if (dst === null || !allowed || ops.length !== 4) return opaque();
      return { kind: 'arith' as const, dst, mul: [src(1), src(2)] as const, adds: [src(3)] };
    })
    .with('LOP3', () => {
      // `LOP3.LUT P0, Rd, a, b, c, lut, !PT`: the leading predicate is set where the result is
      // not zero (the form compilers use for `if (a | b)`; the trailing predicate is its
      // combining input, modelled only as PT/!PT).
      const pdst = predOf(ops[0]);
      const k = pdst !== null ? 1 : 0;
      const d = regOf(ops[k]);
      const lut = ops[k + 4];
      const tail = predOf(ops[k + 5]);
      if (d === null || lut?.kind !== 'imm' || (tail !== null && tail.index !== PT))
        return opaque();
      if (pdst !== null && (pdst.negated || ops.length !== 7)) return opaque();
      return {
        kind: 'lop3' as const,
        dst: d,
        srcs: [src(k + 1), src(k + 2), src(k + 3)] as const,
        lut: lut.value & 0xff,
        ...(pdst !== null && pdst.index !== PT ? { pdst } : {}),
      };
    })
    .with(P.union('AND', 'OR', 'XOR'), (op) => {
      if (dst === null || ops.length !== 3) return opaque();
      const lut = op === 'AND' ? 0xc0 : op === 'OR' ? 0xfc : 0x3c;
      return {
        kind: 'lop3' as const,
        dst,
        srcs: [src(1), src(2), { kind: 'imm', value: 0 }] as const,
        lut,
      };
    })
    .with('SHF', () => {
      if (dst === null || ops.length !== 4) return opaque();
      const left = mods.includes('L');
      if (!left && !mods.includes('R')) return opaque();
      const signed = mods.includes('S32') || mods.includes('S64');
      return {
        kind: 'shift' as const,
        dst,
        lo: src(1),
        amount: src(2),
        hi: src(3),
        left,
        signed,
        high: mods.includes('HI'),
      };
    })
    .with(P.union('SHL', 'SHR'), (op) => {
      if (dst === null || ops.length !== 3) return opaque();
      const zero: Src = { kind: 'imm', value: 0 };
      return {
        kind: 'shift' as const,
        dst,
        lo: src(1),
        amount: src(2),
        hi: zero,
        left: op === 'SHL',
        signed: false,
        high: false,
      };
    })
    .with('ISETP', () => decodeIsetp(program, ins) ?? opaque())
    .with('PLOP3', () => decodePlop3(ins) ?? opaque())
    .with(P.union('LDS', 'LDG', 'LD', 'LDL'), () => {
      const addr = addrOf(ops[1]);
      if (dst === null || addr === null) return opaque();
      return ins.opcode === 'LDL'
        ? { kind: 'load' as const, dst, addr, local: true as const }
        : { kind: 'load' as const, dst, addr };
    })
    .with(P.union('STS', 'STG', 'ST', 'STL'), () => {
      const addr = addrOf(ops[0]);
      if (addr === null || ops.length !== 2) return opaque();
      return ins.opcode === 'STL'
        ? { kind: 'store' as const, addr, src: src(1), local: true as const }
        : { kind: 'store' as const, addr, src: src(1) };
    })
    .with(P.union('ATOMS', 'ATOMG', 'ATOM', 'RED'), () => decodeAtomic(program, ins) ?? opaque())
    .with('VOTE', () => {
      const mode: 'ANY' | 'ALL' | null = mods.includes('ANY')
        ? 'ANY'
        : mods.includes('ALL')
          ? 'ALL'
          : null;
      if (mode === null) return opaque();
      const rest = ops[0]?.kind === 'reg' ? ops.slice(1) : ops;
      const pd = predOf(rest[0]);
      const ps = predOf(rest[1]);
      if (pd === null || ps === null) return opaque();
      return { kind: 'vote' as const, mode, dst: dst ?? RZ, pdst: pd, src: ps };
    })
    .otherwise(opaque);
}

function decodeIsetp(program: Program, ins: Instruction): OpBody | null {
  const mods = ins.modifiers;
  const cmp = mods.find((m): m is Cmp => CMPS.has(m as Cmp));
  if (!cmp || mods.includes('EX')) return null;
  const bool = mods.includes('OR') ? 'OR' : mods.includes('XOR') ? 'XOR' : 'AND';
  const unsigned = mods.includes('U32');
  const ops = ins.operands;
  const s = (o: Operand | undefined) => srcOf(program, o);
  // Full form: ISETP.GE.AND P0, PT, R0, R1, PT. Short form: ISETP.NE P0, R2, 0.
  if (ops.length === 5) {
    const [p, q, a, b, c] = ops;
    const dp = predOf(p);
    const dq = predOf(q);
    const pc = predOf(c);
    if (!dp || !dq || !pc) return null;
    return { kind: 'isetp', dst: dp, dst2: dq, cmp, unsigned, bool, a: s(a), b: s(b), c: pc };
  }
  if (ops.length === 3) {
    const dp = predOf(ops[0]);
    if (!dp) return null;
    return {
      kind: 'isetp',
      dst: dp,
      dst2: TRUE,
      cmp,
      unsigned,
      bool: 'AND',
      a: s(ops[1]),
      b: s(ops[2]),
      c: TRUE,
    };
  }
  return null;
}

/**
 * `PLOP3.LUT P0, PT, P1, P2, PT, 0xa8, 0x0`: two predicate destinations, three predicate sources
 * (each may be negated), two truth tables. Other forms stay opaque.
 */
function decodePlop3(ins: Instruction): OpBody | null {
  const ops = ins.operands;
  if (!ins.modifiers.includes('LUT') || ops.length !== 7) return null;
  const p = ops.slice(0, 5).map(predOf);
  const lut = ops[5];
  const lut2 = ops[6];
  if (p.some((x) => x === null) || lut?.kind !== 'imm' || lut2?.kind !== 'imm') return null;
  if (p[0]!.negated || p[1]!.negated) return null;
  return {
    kind: 'plop3',
    dst: p[0]!,
    dst2: p[1]!,
    srcs: [p[2]!, p[3]!, p[4]!],
    lut: lut.value & 0xff,
    lut2: lut2.value & 0xff,
  };
}

/** ATOMS.CAS R0, [R2], R4, R5 · ATOMG.E.EXCH.STRONG.GPU PT, R0, [R2.64], R4 · RED.E.ADD [R2.64], R5. */
function decodeAtomic(program: Program, ins: Instruction): OpBody | null {
  const mods = ins.modifiers;
  const op = mods.includes('CAS')
    ? 'CAS'
    : mods.includes('EXCH')
      ? 'EXCH'
      : mods.includes('ADD')
        ? 'ADD'
        : null;
  if (op === null) return null;
  let ops = ins.operands;
  if (ops[0]?.kind === 'pred') ops = ops.slice(1);
  let dst: number = RZ;
  if (ins.opcode !== 'RED') {
    const d = regOf(ops[0]);
    if (d === null) return null;
    dst = d;
    ops = ops.slice(1);
  }
  const addr = addrOf(ops[0]);
  if (addr === null) return null;
  const a = srcOf(program, ops[1]);
  const b = op === 'CAS' ? srcOf(program, ops[2]) : a;
  if (ops.length !== (op === 'CAS' ? 3 : 2)) return null;
  return { kind: 'atomic', op, dst, addr, a, b };
}

/** Decodes every instruction; errors carry the PC (the caller maps PCs to source lines). */
export function decodeProgram(
  program: Program,
  options: { readonly strict?: boolean } = {},
): { readonly ops: readonly Op[]; readonly errors: readonly DecodeError[] } {
  const ops: Op[] = [];
  const errors: DecodeError[] = [];
  for (let pc = 0; pc < program.instructions.length; pc++) {
    const r = decodeInstruction(program, pc);
    if ('message' in r) {
      errors.push(r);
      ops.push({
        kind: 'opaque',
        opcode: program.instructions[pc]!.opcode,
        regs: [],
        preds: [],
        havoc: false,
        guard: null,
        pred2: null,
      });
      continue;
    }
    if (options.strict && r.kind === 'opaque') {
      const ins = program.instructions[pc]!;
      errors.push({
        pc,
        message: `${[ins.opcode, ...ins.modifiers].join('.')} is outside the modelled data subset (strict mode); drop --strict to treat it as opaque (its results become unknown values)`,
      });
    }
    ops.push(r);
  }
  return { ops, errors };
}
