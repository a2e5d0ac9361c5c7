import type { Op } from '../isa/op.ts';
import { PT, RZ, type PredRef } from '../isa/program.ts';
import type { ExecContext } from './execContext.ts';
import type { ExecResult, Event } from './execute.ts';
import { addrValue, atomicStep, predMasks, srcValue } from './execute.ts';
import type { LaneData } from './laneData.ts';
import { havocMemory, readWord, writeWord, type Memory } from './memory.ts';
import { UNKNOWN, lanesOf, u32 } from './values.ts';

/**
 * The data subset of SEMANTICS §2, and the non-branching control instructions (WARPSYNC, YIELD,
 * barriers), for the lanes of `active`: `sure` lanes participate, `maybe` lanes might (their guard
 * is unknown), so whatever they would write becomes unknown. Every active lane goes to pc+1.
 *
 * This is the explorer's innermost loop: a `switch` over `op.kind` with a `never` default keeps it
 * exhaustive without allocating per step (ts-pattern is used where ops are decoded, not here).
 */
export function evalDataOp(
  ctx: ExecContext,
  op: Op,
  pc: number,
  warp: number,
  d: LaneData,
  mem: Memory,
  active: number,
  sure: number,
  maybe: number,
): readonly ExecResult[] {
  const next = active === 0 ? [] : [{ pc: pc + 1, mask: active }];
  const done = (
    data: LaneData,
    memory: Memory,
    event: Event = NONE,
    choice: string | null = null,
  ): ExecResult => ({
    kind: 'step',
    data,
    memory,
    outcome: { groups: next, exited: 0, event },
    choice,
  });
  const n = ctx.layout.count;
  const lanes = (sure | maybe) >>> 0;
  /** Writes f(lane) to Rd for every participating lane (unknown for `maybe` lanes). */
  const writeReg = (dst: number, f: (lane: number) => number): LaneData => {
    const slot = ctx.layout.slot[dst] ?? -1;
    if (dst === RZ || slot < 0 || lanes === 0) return d;
    const regs = d.regs.slice();
    for (let l = 0, m = lanes; m !== 0; l++, m >>>= 1)
      if (m & 1) regs[l * n + slot] = (maybe >>> l) & 1 ? UNKNOWN : f(l);
    return { ...d, regs };
  };
  const v = (l: number, s: Parameters<typeof srcValue>[3]) => srcValue(ctx, d, l, s);

  switch (op.kind) {
    case 'nop':
    case 'call-external':
    case 'stack-op':
      return [done(d, mem)];
    case 'yield':
      return [done(d, mem, { kind: 'yield' })];
    case 'warpsync': {
      // The mask each participating lane names (SEMANTICS §2); null when they disagree.
      let named: number | null = null;
      let agree = true;
      for (const l of lanesOf(sure)) {
        const m = op.mask === null ? ctx.full : v(l, op.mask);
        if (named === null) named = m;
        else if (named !== m) agree = false;
      }
      return [
        done(d, mem, { kind: 'warpsync', mask: sure, named: agree ? (named ?? ctx.full) : null }),
      ];
    }
    case 'bssy':
    case 'bsync':
    case 'break':
    case 'bmov-from-barrier':
    case 'bmov-to-barrier':
      return [done(d, mem, { kind: 'barrier', mask: sure })];
    case 'mov':
      return [
        done(
          writeReg(op.dst, (l) => v(l, op.src)),
          mem,
        ),
      ];
    case 's2r':
      return [
        done(
          writeReg(op.dst, (l) => specialRegister(ctx, op.sreg, warp, l)),
          mem,
        ),
      ];
    case 'arith':
      return [
        done(
          writeReg(op.dst, (l) => {
            let acc = 0;
            if (op.mul) {
              const a = v(l, op.mul[0]);
              const b = v(l, op.mul[1]);
              if (a === UNKNOWN || b === UNKNOWN) return UNKNOWN;
              acc = Math.imul(a, b) >>> 0;
            }
            for (const s of op.adds) {
              const x = v(l, s);
              if (x === UNKNOWN) return UNKNOWN;
              acc = (acc + x) >>> 0;
            }
            return acc;
          }),
          mem,
        ),
      ];
    case 'lop3':
      return [
        done(
          writeReg(op.dst, (l) =>
            lop3(v(l, op.srcs[0]), v(l, op.srcs[1]), v(l, op.srcs[2]), op.lut),
          ),
          mem,
        ),
      ];
    case 'shift':
      return [
        done(
          writeReg(op.dst, (l) => shift(v(l, op.lo), v(l, op.amount), v(l, op.hi), op)),
          mem,
        ),
      ];
    case 'isetp': {
      let t = 0;
      let u = 0;
      const [ct, cu] = predMasks(d, op.c, ctx.full);
      for (const l of lanesOf(sure)) {
        const r = compare(v(l, op.a), v(l, op.b), op.cmp, op.unsigned);
        const c = (cu >>> l) & 1 ? -1 : (ct >>> l) & 1;
        const res = combine(r, c, op.bool);
        if (res === -1) u |= 1 << l;
        else if (res === 1) t |= 1 << l;
      }
      u = (u | maybe) >>> 0;
      t = (t & ~maybe) >>> 0;
      // Q = !(a cmp b) bool C: recompute with the negated comparison.
      let t2 = 0;
      let u2 = 0;
      if (op.dst2.index !== PT) {
        for (const l of lanesOf(sure)) {
          const r = compare(v(l, op.a), v(l, op.b), op.cmp, op.unsigned);
          const c = (cu >>> l) & 1 ? -1 : (ct >>> l) & 1;
          const res = combine(r === -1 ? -1 : 1 - r, c, op.bool);
          if (res === -1) u2 |= 1 << l;
          else if (res === 1) t2 |= 1 << l;
        }
        u2 = (u2 | maybe) >>> 0;
        t2 = (t2 & ~maybe) >>> 0;
      }
      let data = writePred(d, op.dst, lanes, t, u);
      data = writePred(data, op.dst2, lanes, t2, u2);
      return [done(data, mem)];
    }
    case 'load':
      return [
        done(
          writeReg(op.dst, (l) => readWord(mem, addrValue(ctx, d, l, op.addr))),
          mem,
        ),
      ];
    case 'store': {
      let m = mem;
      for (const l of lanesOf(lanes)) {
        const a = addrValue(ctx, d, l, op.addr);
        m =
          a === UNKNOWN
            ? havocMemory()
            : writeWord(m, a, (maybe >>> l) & 1 ? UNKNOWN : v(l, op.src));
      }
      return [done(d, m)];
    }
    case 'atomic':
      return atomics(ctx, op, d, mem, sure, maybe, done, n);
    case 'vote': {
      let ballot = 0;
      let unknown = false;
      const [pt, pu] = predMasks(d, op.src, ctx.full);
      if ((pu & sure) !== 0 || maybe !== 0) unknown = true;
      ballot = (pt & sure) >>> 0;
      const value = unknown ? UNKNOWN : ballot;
      let data = writeReg(op.dst, () => value);
      const res = unknown ? -1 : op.mode === 'ANY' ? +(ballot !== 0) : +(ballot === sure);
      data = writePred(data, op.pdst, lanes, res === 1 ? lanes : 0, res === -1 ? lanes : 0);
      return [done(data, mem)];
    }
    case 'opaque': {
      // Abstract mode (SEMANTICS §5): an opaque instruction writes unknown values.
      let data = d;
      for (const r of op.regs) data = writeRegUnknown(ctx, data, r, lanes);
      for (const p of op.preds)
        data = writePred(data, { index: p, negated: false }, lanes, 0, lanes);
      return [done(data, op.havoc && lanes !== 0 ? havocMemory() : mem)];
    }
    case 'exit':
    case 'bra':
    case 'brx':
    case 'call':
    case 'ret':
    case 'trap':
      throw new Error(`evalDataOp(): ${op.kind} is a control-flow op`);
    default: {
      const never: never = op;
      throw new Error(`unhandled op ${JSON.stringify(never)}`);
    }
  }
}

const NONE: Event = { kind: 'none' };

function writeRegUnknown(ctx: ExecContext, d: LaneData, r: number, lanes: number): LaneData {
  const slot = ctx.layout.slot[r] ?? -1;
  if (slot < 0 || lanes === 0) return d;
  const regs = d.regs.slice();
  for (const l of lanesOf(lanes)) regs[l * ctx.layout.count + slot] = UNKNOWN;
  return { ...d, regs };
}

/** Sets predicate `p` on `lanes`: true on `t`, unknown on `u`, false elsewhere in `lanes`. */
function writePred(d: LaneData, p: PredRef, lanes: number, t: number, u: number): LaneData {
  if (p.index === PT || lanes === 0) return d;
  // A negated destination stores the complement (as `!P` reads it back).
  const known = (lanes & ~u) >>> 0;
  const value = p.negated ? (known & ~t) >>> 0 : (t & known) >>> 0;
  const preds = d.preds.slice();
  const predsUnknown = d.predsUnknown.slice();
  preds[p.index] = ((preds[p.index]! & ~lanes) | value) >>> 0;
  predsUnknown[p.index] = ((predsUnknown[p.index]! & ~lanes) | (u & lanes)) >>> 0;
  return { ...d, preds, predsUnknown };
}

/** 1 true, 0 false, -1 unknown. */
function compare(a: number, b: number, cmp: string, unsigned: boolean): number {
  if (a === UNKNOWN || b === UNKNOWN) return -1;
  const x = unsigned ? a : a | 0;
  const y = unsigned ? b : b | 0;
  switch (cmp) {
    case 'EQ':
      return +(x === y);
    case 'NE':
      return +(x !== y);
    case 'LT':
      return +(x < y);
    case 'LE':
      return +(x <= y);
    case 'GT':
      return +(x > y);
    default:
      return +(x >= y);
  }
}

/** Three-valued AND/OR/XOR. */
function combine(r: number, c: number, op: string): number {
  if (op === 'AND') return r === 0 || c === 0 ? 0 : r === -1 || c === -1 ? -1 : 1;
  if (op === 'OR') return r === 1 || c === 1 ? 1 : r === -1 || c === -1 ? -1 : 0;
  return r === -1 || c === -1 ? -1 : r ^ c;
}

/** LOP3.LUT: bit i of the result is lut[(a_i << 2) | (b_i << 1) | c_i] (a = 0xf0, b = 0xcc, c = 0xaa). */
export function lop3(a: number, b: number, c: number, lut: number): number {
  if (a === UNKNOWN || b === UNKNOWN || c === UNKNOWN) return UNKNOWN;
  let r = 0;
  for (let i = 0; i < 8; i++) {
    if (!((lut >>> i) & 1)) continue;
    const ma = i & 4 ? a : ~a;
    const mb = i & 2 ? b : ~b;
    const mc = i & 1 ? c : ~c;
    r |= ma & mb & mc;
  }
  return r >>> 0;
}

/** SHF funnel shift over the 64-bit value hi:lo (SEMANTICS §2). */
export function shift(
  lo: number,
  amount: number,
  hi: number,
  op: { left: boolean; signed: boolean; high: boolean },
): number {
  if (lo === UNKNOWN || amount === UNKNOWN || hi === UNKNOWN) return UNKNOWN;
  const s = BigInt(Math.min(amount, 64));
  const hiPart = op.signed ? BigInt(hi | 0) : BigInt(hi);
  const value = (hiPart << 32n) | BigInt(lo);
  const r = op.left ? value << s : value >> s;
  const word = op.high ? r >> 32n : r;
  return Number(BigInt.asUintN(32, word));
}

/** SR_LANEID, SR_TID.X (thread id k·W + l, SEMANTICS §1); one block, so SR_CTAID.* = 0. */
function specialRegister(ctx: ExecContext, name: string, warp: number, lane: number): number {
  switch (name) {
    case 'SR_LANEID':
      return lane;
    case 'SR_TID.X':
      return warp * ctx.warpSize + lane;
    case 'SR_TID.Y':
    case 'SR_TID.Z':
    case 'SR_CTAID.X':
    case 'SR_CTAID.Y':
    case 'SR_CTAID.Z':
      return 0;
    default:
      return UNKNOWN;
  }
}

/** Atomics, one lane at a time in the configured order (SEMANTICS §1; `explore`: each lane may go first). */
function atomics(
  ctx: ExecContext,
  op: Extract<Op, { kind: 'atomic' }>,
  d: LaneData,
  mem: Memory,
  sure: number,
  maybe: number,
  done: (data: LaneData, memory: Memory, event?: Event, choice?: string | null) => ExecResult,
  n: number,
): ExecResult[] {
  const ascending = lanesOf(sure);
  const orders: { order: number[]; label: string | null }[] =
    ctx.atomicOrder === 'explore' && ascending.length > 1
      ? ascending.map((first) => ({
          order: [first, ...ascending.filter((l) => l !== first)],
          label: `atomic: lane ${first} first`,
        }))
      : [
          {
            order: ctx.atomicOrder === 'descending' ? ascending.reverse() : ascending,
            label: null,
          },
        ];
  const slot = ctx.layout.slot[op.dst] ?? -1;
  return orders.map(({ order, label }) => {
    let m = mem;
    const regs = d.regs.slice();
    for (const l of order) {
      const a = addrValue(ctx, d, l, op.addr);
      const [old, next] = atomicStep(
        op,
        m,
        a,
        srcValue(ctx, d, l, op.a),
        srcValue(ctx, d, l, op.b),
      );
      m = next;
      if (op.dst !== RZ && slot >= 0) regs[l * n + slot] = old;
    }
    for (const l of lanesOf(maybe)) {
      // A lane that may or may not take part: its result and the word become unknown.
      const a = addrValue(ctx, d, l, op.addr);
      m = a === UNKNOWN ? havocMemory() : writeWord(m, a, UNKNOWN);
      if (op.dst !== RZ && slot >= 0) regs[l * n + slot] = UNKNOWN;
    }
    return done({ ...d, regs }, m, NONE, label);
  });
}

export { u32 };
