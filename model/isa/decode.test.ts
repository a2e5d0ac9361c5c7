/**
 * Decoding: instruction → semantic op (SEMANTICS §2). Every expected op is written from the
 * instruction's hardware meaning and the `Op` contract in `op.ts`, not from the decoder's output.
 */
import { describe, expect, it } from 'vitest';
import { decodeInstruction, decodeProgram, type DecodeError } from './decode.ts';
import type { Op } from './op.ts';
import { parseSass } from './parseSass.ts';
import { PT, RZ, type Program } from './program.ts';
import { loadProgram } from '../scenario/loadProgram.ts';

function programOf(text: string): Program {
  const r = parseSass(text, { file: 'decode.sass' });
  if (!r.ok)
    return expect.fail(r.error.map((d) => `${d.line}:${d.column}: ${d.message}`).join('\n'));
  return r.value.program;
}

/** Decodes the first instruction of `text` (the rest of the listing provides labels). */
function decode1(text: string, pc = 0): Op | DecodeError {
  return decodeInstruction(programOf(text), pc);
}

/** Decodes one instruction that must decode. */
function op(text: string, pc = 0): Op {
  const r = decode1(text, pc);
  if ('message' in r) return expect.fail(r.message);
  return r;
}

const reg = (index: number) => ({ kind: 'reg', index }) as const;
const imm = (value: number) => ({ kind: 'imm', value }) as const;
const P = (index: number, negated = false) => ({ index, negated });
const TRUE = P(PT);
const unguarded = { guard: null, pred2: null };

describe('decode: data subset (SEMANTICS §2)', () => {
  it('MOV from a register, an immediate and a constant-bank word', () => {
    expect(op('MOV R1, R2')).toEqual({ kind: 'mov', dst: 1, src: reg(2), ...unguarded });
    expect(op('MOV R1, 0x5')).toEqual({ kind: 'mov', dst: 1, src: imm(5), ...unguarded });
    expect(op('MOV R1, c[0x0][0x160]')).toEqual({
      kind: 'mov',
      dst: 1,
      src: { kind: 'cbank', bank: 0, offset: 0x160 },
      ...unguarded,
    });
  });

  it('MOV of a label loads its byte offset in the function (SEMANTICS §1)', () => {
    // Third instruction at a 16-byte stride: offset 0x20.
    const text = 'MOV R20, back\nNOP\nback:\nEXIT';
    expect(op(text)).toMatchObject({ kind: 'mov', dst: 20, src: imm(0x20) });
  });

  it('S2R of SR_TID.X and SR_LANEID', () => {
    expect(op('S2R R0, SR_TID.X')).toEqual({ kind: 's2r', dst: 0, sreg: 'SR_TID.X', ...unguarded });
    expect(op('S2R R3, SR_LANEID')).toEqual({
      kind: 's2r',
      dst: 3,
      sreg: 'SR_LANEID',
      ...unguarded,
    });
  });

  it('IADD3 adds its three sources, no multiply', () => {
    expect(op('IADD3 R1, R2, 0x1, RZ')).toEqual({
      kind: 'arith',
      dst: 1,
      mul: null,
      adds: [reg(2), imm(1), reg(RZ)],
      ...unguarded,
    });
  });

  it('IADD3 with a negated register and carry-outs into PT', () => {
    // `-R8` is a two's complement source; carry-outs into PT (sm_90+ listings) are dropped.
    expect(op('IADD3 R9, -R8, c[0x0][0x184], RZ')).toEqual({
      kind: 'arith',
      dst: 9,
      mul: null,
      adds: [
        { kind: 'reg', index: 8, negated: true },
        { kind: 'cbank', bank: 0, offset: 0x184 },
        reg(RZ),
      ],
      ...unguarded,
    });
    expect(op('IADD3 R6, PT, PT, -R2.reuse, RZ, 0x1')).toEqual({
      kind: 'arith',
      dst: 6,
      mul: null,
      adds: [{ kind: 'reg', index: 2, negated: true }, reg(RZ), imm(1)],
      ...unguarded,
    });
    // A carry into a real predicate, or a negated carry-out, stays opaque.
    expect(op('IADD3 R6, P0, PT, R1, RZ, RZ')).toMatchObject({ kind: 'opaque' });
    expect(op('IADD3 R6, !PT, PT, R1, RZ, RZ')).toMatchObject({ kind: 'opaque' });
  });

  it('IMAD family: a*b + c', () => {
    expect(op('IMAD R1, R2, R3, R4')).toEqual({
      kind: 'arith',
      dst: 1,
      mul: [reg(2), reg(3)],
      adds: [reg(4)],
      ...unguarded,
    });
    // IMAD.MOV.U32 R1, RZ, RZ, 0x7 is the compiler's MOV: 0*0 + 7.
    expect(op('IMAD.MOV.U32 R1, RZ, RZ, 0x7')).toMatchObject({
      kind: 'arith',
      dst: 1,
      mul: [reg(RZ), reg(RZ)],
      adds: [imm(7)],
    });
    // IMAD.SHL.U32 R1, R2, 0x4, RZ is R2 << 2 written as R2*4 + 0.
    expect(op('IMAD.SHL.U32 R1, R2, 0x4, RZ')).toMatchObject({
      kind: 'arith',
      dst: 1,
      mul: [reg(2), imm(4)],
      adds: [reg(RZ)],
    });
  });

  it('LOP3.LUT keeps its truth table; AND/OR/XOR are the tables 0xc0/0xfc/0x3c over a, b', () => {
    expect(op('LOP3.LUT R1, R2, R3, R4, 0x96, !PT')).toEqual({
      kind: 'lop3',
      dst: 1,
      srcs: [reg(2), reg(3), reg(4)],
      lut: 0x96,
      ...unguarded,
    });
    const zero = imm(0);
    expect(op('AND R1, R2, R3')).toMatchObject({
      kind: 'lop3',
      srcs: [reg(2), reg(3), zero],
      lut: 0xc0,
    });
    expect(op('OR R1, R2, 0xff')).toMatchObject({
      kind: 'lop3',
      srcs: [reg(2), imm(0xff), zero],
      lut: 0xfc,
    });
    expect(op('XOR R1, R2, R3')).toMatchObject({
      kind: 'lop3',
      srcs: [reg(2), reg(3), zero],
      lut: 0x3c,
    });
  });

  it('LOP3.LUT with a leading predicate sets it where the result is not zero', () => {
    // power_series in cudad__sm100_loop_kernels.sass: `if (threadIdx.x | blockIdx.x) return;`.
    expect(op('LOP3.LUT P0, RZ, R0, UR4, RZ, 0xfc, !PT')).toEqual({
      kind: 'lop3',
      dst: RZ,
      srcs: [reg(0), { kind: 'unknown', uniform: true }, reg(RZ)],
      lut: 0xfc,
      pdst: P(0),
      ...unguarded,
    });
    expect(op('LOP3.LUT P1, R5, R2, R3, RZ, 0xc0, !PT')).toMatchObject({ dst: 5, pdst: P(1) });
    // A negated destination or a real combining predicate stays opaque.
    expect(op('LOP3.LUT !P1, R5, R2, R3, RZ, 0xc0, !PT').kind).toBe('opaque');
    expect(op('LOP3.LUT P1, R5, R2, R3, RZ, 0xc0, P2').kind).toBe('opaque');
  });

  it('SHF.L/.R with .U32, .S32 and .HI', () => {
    expect(op('SHF.L.U32 R1, R2, 0x4, RZ')).toEqual({
      kind: 'shift',
      dst: 1,
      lo: reg(2),
      amount: imm(4),
      hi: reg(RZ),
      left: true,
      signed: false,
      high: false,
      ...unguarded,
    });
    expect(op('SHF.R.S32.HI R1, RZ, 0x1f, R2')).toMatchObject({
      kind: 'shift',
      lo: reg(RZ),
      amount: imm(0x1f),
      hi: reg(2),
      left: false,
      signed: true,
      high: true,
    });
    expect(op('SHF.R.U32.HI R1, RZ, 0x3, R2')).toMatchObject({
      left: false,
      signed: false,
      high: true,
    });
    expect(op('SHF.L.U64.HI R1, R2, 0x3, R5')).toMatchObject({
      left: true,
      signed: false,
      high: true,
      lo: reg(2),
      hi: reg(5),
    });
  });

  it('SHL/SHR shift one word (high half zero)', () => {
    expect(op('SHL R1, R2, 0x3')).toMatchObject({
      kind: 'shift',
      lo: reg(2),
      amount: imm(3),
      hi: imm(0),
      left: true,
      signed: false,
      high: false,
    });
    expect(op('SHR R1, R2, R3')).toMatchObject({
      kind: 'shift',
      lo: reg(2),
      amount: reg(3),
      left: false,
      high: false,
    });
  });

  it('ISETP full form with every comparison', () => {
    for (const cmp of ['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'] as const) {
      expect(op(`ISETP.${cmp}.AND P0, PT, R0, R1, PT`), cmp).toEqual({
        kind: 'isetp',
        dst: P(0),
        dst2: TRUE,
        cmp,
        unsigned: false,
        bool: 'AND',
        a: reg(0),
        b: reg(1),
        c: TRUE,
        ...unguarded,
      });
    }
  });

  it('ISETP .U32, a second destination, .OR/.XOR and a negated combining predicate', () => {
    expect(op('ISETP.LT.U32.AND P1, P2, R0, 0x10, P3')).toMatchObject({
      dst: P(1),
      dst2: P(2),
      cmp: 'LT',
      unsigned: true,
      bool: 'AND',
      b: imm(0x10),
      c: P(3),
    });
    expect(op('ISETP.NE.OR P0, PT, R0, RZ, !P1')).toMatchObject({
      cmp: 'NE',
      unsigned: false,
      bool: 'OR',
      c: P(1, true),
    });
    expect(op('ISETP.GE.XOR P4, PT, R0, RZ, P5')).toMatchObject({ bool: 'XOR', c: P(5) });
  });

  it('ISETP short form: ISETP.NE P0, R2, 0 means ISETP.NE.AND P0, PT, R2, 0, PT', () => {
    expect(op('ISETP.NE P0, R2, 0')).toEqual({
      kind: 'isetp',
      dst: P(0),
      dst2: TRUE,
      cmp: 'NE',
      unsigned: false,
      bool: 'AND',
      a: reg(2),
      b: imm(0),
      c: TRUE,
      ...unguarded,
    });
  });

  it('loads and stores with [R2], [R2+0x10], [R2.64] and an absolute [0x100]', () => {
    const addr = (base: number, offset: number, wide = false) => ({
      base,
      wide,
      opaque: false,
      offset,
    });
    expect(op('LDS R1, [R2]')).toEqual({ kind: 'load', dst: 1, addr: addr(2, 0), ...unguarded });
    expect(op('LDS R1, [R2+0x10]')).toMatchObject({ kind: 'load', addr: addr(2, 0x10) });
    expect(op('LDG.E R1, [R2.64]')).toMatchObject({ kind: 'load', dst: 1, addr: addr(2, 0, true) });
    expect(op('LDS R1, [0x100]')).toMatchObject({ kind: 'load', addr: addr(RZ, 0x100) });
    expect(op('STS [R2+0x10], R3')).toEqual({
      kind: 'store',
      addr: addr(2, 0x10),
      src: reg(3),
      ...unguarded,
    });
    expect(op('STG.E [R2.64+0x4], R3')).toMatchObject({ kind: 'store', addr: addr(2, 4, true) });
  });

  it('atomics: .CAS compares a and swaps in b; .EXCH and .ADD use one source', () => {
    const a2 = { base: 2, wide: false, opaque: false, offset: 0 };
    expect(op('ATOMS.CAS R0, [R2], R4, R5')).toEqual({
      kind: 'atomic',
      op: 'CAS',
      dst: 0,
      addr: a2,
      a: reg(4),
      b: reg(5),
      ...unguarded,
    });
    expect(op('ATOMS.EXCH R0, [R2], R4')).toMatchObject({ op: 'EXCH', dst: 0, a: reg(4) });
    expect(op('ATOMS.ADD R7, [R2+0x4], 0x1')).toMatchObject({
      op: 'ADD',
      dst: 7,
      addr: { ...a2, offset: 4 },
      a: imm(1),
    });
  });

  it('ATOMG with the leading PT predicate destination, and RED (no destination → RZ)', () => {
    expect(op('ATOMG.E.EXCH.STRONG.GPU PT, R0, [R2.64], R4')).toMatchObject({
      kind: 'atomic',
      op: 'EXCH',
      dst: 0,
      addr: { base: 2, wide: true, offset: 0 },
      a: reg(4),
    });
    expect(op('ATOMG.E.CAS.STRONG.GPU PT, R6, [R2.64], R4, R5')).toMatchObject({
      op: 'CAS',
      dst: 6,
      a: reg(4),
      b: reg(5),
    });
    expect(op('RED.E.ADD.STRONG.GPU [R2.64], R5')).toMatchObject({
      kind: 'atomic',
      op: 'ADD',
      dst: RZ,
      addr: { base: 2, wide: true },
      a: reg(5),
    });
  });

  it('VOTE.ANY/ALL: register, predicate destination, source predicate', () => {
    expect(op('VOTE.ANY R1, P1, P0')).toEqual({
      kind: 'vote',
      mode: 'ANY',
      dst: 1,
      pdst: P(1),
      src: P(0),
      ...unguarded,
    });
    expect(op('VOTE.ALL R2, PT, !P3')).toMatchObject({
      mode: 'ALL',
      dst: 2,
      pdst: TRUE,
      src: P(3, true),
    });
  });

  it('NOP and MEMBAR are no-ops', () => {
    expect(op('NOP')).toEqual({ kind: 'nop', ...unguarded });
    expect(op('MEMBAR.SC.GPU')).toEqual({ kind: 'nop', ...unguarded });
  });

  it('keeps the guard of a data instruction', () => {
    expect(op('@!P2 MOV R1, 0x1')).toMatchObject({ kind: 'mov', guard: P(2, true), pred2: null });
  });
});

describe('decode: outside the subset is opaque, with its destinations', () => {
  it('width modifiers make an access opaque; .64 writes a register pair, .128 four', () => {
    expect(op('LDG.E.64 R4, [R2.64]')).toEqual({
      kind: 'opaque',
      opcode: 'LDG',
      regs: [4, 5],
      preds: [],
      havoc: false,
      ...unguarded,
    });
    expect(op('LDS.U8 R1, [R2]')).toMatchObject({ kind: 'opaque', regs: [1], havoc: false });
    expect(op('LDS.128 R8, [R2]')).toMatchObject({ kind: 'opaque', regs: [8, 9, 10, 11] });
    expect(op('IMAD.WIDE R4, R2, R3, R4')).toMatchObject({ kind: 'opaque', regs: [4, 5] });
  });

  it('an opaque store writes no register and havocs memory', () => {
    expect(op('STG.E.64 [R2.64], R4')).toMatchObject({
      kind: 'opaque',
      opcode: 'STG',
      regs: [],
      preds: [],
      havoc: true,
    });
  });

  it('unknown opcodes: register and predicate destinations', () => {
    expect(op('FADD R1, R2, R3')).toMatchObject({
      kind: 'opaque',
      opcode: 'FADD',
      regs: [1],
      preds: [],
    });
    // LOP3.LUT with a predicate output and a combining predicate (outside the subset): P1 and R5
    // are written (R2 is a source).
    expect(op('LOP3.LUT P1, R5, R2, 0x1, RZ, 0xc0, P2')).toMatchObject({
      kind: 'opaque',
      regs: [5],
      preds: [1],
    });
    // IADD3 with a carry-out predicate is outside the subset: R4 and P0 are written.
    expect(op('IADD3 R4, P0, R2, R3, RZ')).toMatchObject({ kind: 'opaque', regs: [4], preds: [0] });
    // An atomic the subset does not model still returns the old value in R0.
    expect(op('ATOMS.POPC.INC R0, [R2], R3')).toMatchObject({
      kind: 'opaque',
      regs: [0],
      havoc: true,
    });
    // Writing RZ writes nothing.
    expect(op('FADD RZ, R2, R3')).toMatchObject({ kind: 'opaque', regs: [] });
  });

  it('strict mode rejects opaque instructions with their PC; abstract mode accepts them', () => {
    const program = programOf('MOV R1, 0x1\nFADD R2, R1, R1\nLDS.U8 R3, [R1]\nEXIT');
    expect(decodeProgram(program).errors).toEqual([]);
    const strict = decodeProgram(program, { strict: true });
    expect(strict.errors.map((e) => e.pc)).toEqual([1, 2]);
    expect(strict.errors[0]!.message).toContain('FADD');
    expect(strict.errors[1]!.message).toContain('LDS.U8');
  });

  it('loadProgram --strict reports an opaque instruction at its source line', () => {
    const text = '// a comment\nMOV R1, 0x1\n\nFADD R2, R1, R1\nEXIT';
    expect(loadProgram(text, 'f.sass').ok).toBe(true);
    const r = loadProgram(text, 'f.sass', { strict: true });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toHaveLength(1);
      expect(r.error[0]).toMatchObject({ file: 'f.sass', line: 4 });
    }
  });
});

describe('decode: control flow (SEMANTICS §2)', () => {
  const listing = (first: string) => `${first}\nNOP\nL:\nEXIT`; // label L is pc 2

  it('EXIT and KILL exit', () => {
    expect(op('EXIT')).toEqual({ kind: 'exit', ...unguarded });
    expect(op('@P1 KILL')).toEqual({ kind: 'exit', guard: P(1), pred2: null });
  });

  it('BRA: target, .U ignored, .DIV/.CONV, guard and second predicate', () => {
    expect(op(listing('BRA L'))).toEqual({ kind: 'bra', target: 2, cond: 'none', ...unguarded });
    expect(op(listing('BRA.U L'))).toMatchObject({ kind: 'bra', target: 2, cond: 'none' });
    expect(op(listing('BRA.DIV L'))).toMatchObject({ kind: 'bra', cond: 'div' });
    expect(op(listing('BRA.CONV L'))).toMatchObject({ kind: 'bra', cond: 'conv' });
    expect(op(listing('@P0 BRA !P1, L'))).toEqual({
      kind: 'bra',
      target: 2,
      cond: 'none',
      guard: P(0),
      pred2: P(1, true),
    });
    // A hex target is an offset in the function: 0x20 is pc 2.
    expect(op(listing('BRA 0x20'))).toMatchObject({ kind: 'bra', target: 2 });
  });

  it('BRX with and without an immediate', () => {
    expect(op('BRX R8 -0x200')).toEqual({
      kind: 'brx',
      reg: 8,
      imm: -0x200,
      relative: true,
      targets: [],
      ...unguarded,
    });
    expect(op('BRX R8')).toMatchObject({ kind: 'brx', reg: 8, imm: 0, relative: false });
  });

  it('CALL to a label and to an external symbol; RET with its register', () => {
    expect(op(listing('CALL.REL.NOINC L'))).toEqual({ kind: 'call', target: 2, ...unguarded });
    expect(op('CALL.ABS.NOINC `(vprintf)')).toMatchObject({
      kind: 'call-external',
      name: 'vprintf',
    });
    expect(op('RET.REL.NODEC R20 0x0')).toEqual({ kind: 'ret', reg: 20, imm: 0, ...unguarded });
    expect(op('RET.ABS R12 0x20')).toMatchObject({ kind: 'ret', reg: 12, imm: 0x20 });
  });

  it('BSSY, BSYNC, BREAK (with a second predicate)', () => {
    expect(op(listing('BSSY B1, L'))).toEqual({
      kind: 'bssy',
      barrier: 1,
      target: 2,
      ...unguarded,
    });
    expect(op('BSYNC B1')).toEqual({ kind: 'bsync', barrier: 1, ...unguarded });
    expect(op('BREAK B2')).toEqual({ kind: 'break', barrier: 2, ...unguarded });
    expect(op('@P0 BREAK !P1, B0')).toEqual({
      kind: 'break',
      barrier: 0,
      guard: P(0),
      pred2: P(1, true),
    });
  });

  it('BMOV both ways, with and without .CLEAR', () => {
    expect(op('BMOV.32.CLEAR R4, B0')).toEqual({
      kind: 'bmov-from-barrier',
      dst: 4,
      barrier: 0,
      clear: true,
      ...unguarded,
    });
    expect(op('BMOV.32 R4, B3')).toMatchObject({
      kind: 'bmov-from-barrier',
      dst: 4,
      barrier: 3,
      clear: false,
    });
    expect(op('BMOV.32 B0, R4')).toEqual({
      kind: 'bmov-to-barrier',
      barrier: 0,
      src: reg(4),
      ...unguarded,
    });
    expect(op('BMOV.32 B1, 0xf')).toMatchObject({
      kind: 'bmov-to-barrier',
      barrier: 1,
      src: imm(0xf),
    });
  });

  it('WARPSYNC with an immediate, a register and .ALL', () => {
    expect(op('WARPSYNC 0xf')).toEqual({ kind: 'warpsync', mask: imm(0xf), ...unguarded });
    expect(op('WARPSYNC R4')).toMatchObject({ kind: 'warpsync', mask: reg(4) });
    expect(op('WARPSYNC.ALL')).toMatchObject({ kind: 'warpsync', mask: null });
  });

  it('YIELD and NANOSLEEP are scheduling points; BPT.TRAP traps', () => {
    expect(op('YIELD')).toEqual({ kind: 'yield', ...unguarded });
    expect(op('NANOSLEEP 0x10')).toMatchObject({ kind: 'yield' });
    expect(op('BPT.TRAP 0x1')).toEqual({ kind: 'trap', ...unguarded });
  });

  it('Fermi SSY/SYNC/PBK/BRK are stack operations with their target', () => {
    expect(op(listing('SSY L'))).toEqual({
      kind: 'stack-op',
      opcode: 'SSY',
      target: 2,
      ...unguarded,
    });
    expect(op('SYNC')).toMatchObject({ kind: 'stack-op', opcode: 'SYNC', target: null });
    expect(op(listing('PBK L'))).toMatchObject({ kind: 'stack-op', opcode: 'PBK', target: 2 });
    expect(op('@P0 BRK')).toMatchObject({
      kind: 'stack-op',
      opcode: 'BRK',
      target: null,
      guard: P(0),
    });
  });

  it('malformed control flow is a DecodeError with the PC', () => {
    // `BSSY 0x10`: a target but no barrier register.
    const bssy = decode1('NOP\nBSSY 0x10\nEXIT', 1);
    expect(bssy).toMatchObject({ pc: 1 });
    expect('message' in bssy && bssy.message).toContain('BSSY');
    const ret = decode1('RET', 0);
    expect(ret).toMatchObject({ pc: 0 });
    expect('message' in ret && ret.message).toContain('RET');
    expect(decode1('BSYNC')).toMatchObject({ pc: 0 });
  });

  it('decodeProgram collects DecodeErrors; loadProgram reports them at their line', () => {
    const text = 'NOP\n\nBSSY 0x0\nRET\nEXIT';
    const { errors, ops } = decodeProgram(programOf(text));
    expect(errors.map((e) => e.pc)).toEqual([1, 2]);
    expect(ops).toHaveLength(4);
    const r = loadProgram(text, 'bad.sass');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.map((d) => d.line)).toEqual([3, 4]);
  });
});
