import type { Op } from '../isa/op.ts';
import { PT, RZ, type PredRef } from '../isa/program.ts';
import { STACK_LIMIT, type ExecContext } from './execContext.ts';
import type { ExecResult, Event } from './execute.ts';
import { addrValue, atomicWrite, predTrue, predUnknown, srcValue } from './execute.ts';
import { withColumn, type LaneData, type RegFile } from './laneData.ts';
import { emptyMemory, havocMemory, readWord, writeWord, type Memory } from './memory.ts';
import { UNKNOWN, lanesOf, popcount, u32 } from './values.ts';
import { shareResult } from './shared.ts';

/**
 * The data subset of SEMANTICS §2, and the non-branching control instructions (WARPSYNC, YIELD,
 * barriers), for the lanes of `active`: `sure` lanes participate, `maybe` lanes might (their guard
 * is unknown), so whatever they would write becomes unknown. Every active lane goes to pc+1.
 *
 * This is the explorer's innermost loop: a `switch` over `op.kind` with a `never` default keeps it
 * exhaustive; lanes are visited by bit tricks in ascending order, and no closure or tuple is
 * created per step (under tsx, which compiles with esbuild's `keepNames`, every function
 * expression evaluated costs a `defineProperty`). ts-pattern is used where ops are decoded.
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
  const lanes = (sure | maybe) >>> 0;
  switch (op.kind) {
    case 'nop':
    case 'call-external':
      return [done(d, mem, pc, active, NONE)];
    case 'stack-op':
      // The mechanism that gives it meaning needs the participating lanes (`@P0 BRK`, seed 003).
      return [done(d, mem, pc, active, { kind: 'barrier', mask: sure, value: null })];
    case 'yield':
      return [done(d, mem, pc, active, { kind: 'yield' })];
    case 'warpsync': {
      // The mask each participating lane names (SEMANTICS §2); null when they disagree.
      let named: number | null = null;
      let agree = true;
      const masks = new Array<number>(ctx.warpSize).fill(0);
      for (let m = sure; m !== 0; m &= m - 1) {
        const l = 31 - Math.clz32(m & -m);
        const v = op.mask === null ? ctx.full : srcValue(ctx, d, l, op.mask);
        masks[l] = v;
        if (named === null) named = v;
        else if (named !== v) agree = false;
      }
      return [
        done(d, mem, pc, active, {
          kind: 'warpsync',
          mask: sure,
          named: agree ? (named ?? ctx.full) : null,
          masks,
        }),
      ];
    }
    case 'bmov-to-barrier': {
      // BMOV Bx, Rs: the value every participating lane holds (SEMANTICS §2: they must agree).
      let value: number | null = null;
      let first = true;
      for (let m = sure; m !== 0; m &= m - 1) {
        const v = srcValue(ctx, d, 31 - Math.clz32(m & -m), op.src);
        if (first) value = v;
        else if (value !== v) value = null;
        first = false;
      }
      return [done(d, mem, pc, active, { kind: 'barrier', mask: sure, value })];
    }
    case 'bssy':
    case 'bsync':
    case 'break':
    case 'bmov-from-barrier':
      return [done(d, mem, pc, active, { kind: 'barrier', mask: sure, value: null })];
    case 'lop3': {
      if (!op.pdst)
        return [done(writeComputed(ctx, op, warp, d, mem, lanes, maybe), mem, pc, active, NONE)];
      // `LOP3.LUT P, Rd, …`: P = (result ≠ 0), read from the sources before Rd is written.
      let t = 0;
      let u = 0;
      for (let m = sure; m !== 0; m &= m - 1) {
        const l = 31 - Math.clz32(m & -m);
        const r = lop3NonZero(
          srcValue(ctx, d, l, op.srcs[0]),
          srcValue(ctx, d, l, op.srcs[1]),
          srcValue(ctx, d, l, op.srcs[2]),
          op.lut,
        );
        if (r === -1) u |= 1 << l;
        else if (r === 1) t |= 1 << l;
      }
      u = (u | maybe) >>> 0;
      t = (t & ~maybe) >>> 0;
      const data = writeComputed(ctx, op, warp, d, mem, lanes, maybe);
      return [done(writePred(data, op.pdst, lanes, t, u), mem, pc, active, NONE)];
    }
    case 'mov':
    case 's2r':
    case 'arith':
    case 'shift':
    case 'load':
      return [done(writeComputed(ctx, op, warp, d, mem, lanes, maybe), mem, pc, active, NONE)];
    case 'plop3': {
      // PLOP3.LUT (docs/semantics.md, data subset): each destination is its truth table at the
      // lane's three source predicates; an unknown source is tried both ways, and the result is
      // known where every try agrees.
      const tt = op.srcs.map((p) => predTrue(d, p, ctx.full));
      const uu = op.srcs.map((p) => predUnknown(d, p));
      const lanePreds = (table: number): [number, number] => {
        let t = 0;
        let u = 0;
        for (let m = sure; m !== 0; m &= m - 1) {
          const l = 31 - Math.clz32(m & -m);
          let seen = 0; // bit 0: a try gave false, bit 1: a try gave true
          for (let k = 0; k < 8; k++) {
            let ok = true;
            for (let i = 0; i < 3 && ok; i++) {
              const bit = (k >> (2 - i)) & 1;
              if (!((uu[i]! >>> l) & 1) && ((tt[i]! >>> l) & 1) !== bit) ok = false;
            }
            if (ok) seen |= 1 << ((table >> k) & 1);
          }
          if (seen === 3) u |= 1 << l;
          else if (seen === 2) t |= 1 << l;
        }
        return [((t & ~maybe) >>> 0) as number, ((u | maybe) >>> 0) as number];
      };
      const [t, u] = lanePreds(op.lut);
      let data = writePred(d, op.dst, lanes, t, u);
      if (op.dst2.index !== PT) {
        const [t2, u2] = lanePreds(op.lut2);
        data = writePred(data, op.dst2, lanes, t2, u2);
      }
      return [done(data, mem, pc, active, NONE)];
    }
    case 'isetp': {
      let t = 0;
      let u = 0;
      let t2 = 0;
      let u2 = 0;
      const both = op.dst2.index !== PT;
      const ct = predTrue(d, op.c, ctx.full);
      const cu = predUnknown(d, op.c);
      for (let m = sure; m !== 0; m &= m - 1) {
        const l = 31 - Math.clz32(m & -m);
        const r = compare(
          srcValue(ctx, d, l, op.a),
          srcValue(ctx, d, l, op.b),
          op.cmp,
          op.unsigned,
        );
        const c = (cu >>> l) & 1 ? -1 : (ct >>> l) & 1;
        const res = combine(r, c, op.bool);
        if (res === -1) u |= 1 << l;
        else if (res === 1) t |= 1 << l;
        if (both) {
          // Q = !(a cmp b) bool C.
          const res2 = combine(r === -1 ? -1 : 1 - r, c, op.bool);
          if (res2 === -1) u2 |= 1 << l;
          else if (res2 === 1) t2 |= 1 << l;
        }
      }
      u = (u | maybe) >>> 0;
      t = (t & ~maybe) >>> 0;
      if (both) {
        u2 = (u2 | maybe) >>> 0;
        t2 = (t2 & ~maybe) >>> 0;
      }
      let data = writePred(d, op.dst, lanes, t, u);
      data = writePred(data, op.dst2, lanes, t2, u2);
      return [done(data, mem, pc, active, NONE)];
    }
    case 'store': {
      if (op.local) return [done(storeLocal(ctx, op, d, lanes, maybe), mem, pc, active, NONE)];
      let m = mem;
      for (let r = lanes; r !== 0; r &= r - 1) {
        const l = 31 - Math.clz32(r & -r);
        const a = addrValue(ctx, d, l, op.addr);
        m =
          a === UNKNOWN
            ? havocMemory()
            : writeWord(m, a, (maybe >>> l) & 1 ? UNKNOWN : srcValue(ctx, d, l, op.src));
      }
      return [done(d, m, pc, active, NONE)];
    }
    case 'atomic':
      return atomics(ctx, op, pc, active, d, mem, sure, maybe);
    case 'vote': {
      const pt = predTrue(d, op.src, ctx.full);
      const pu = predUnknown(d, op.src);
      const unknown = (pu & sure) !== 0 || maybe !== 0;
      const ballot = (pt & sure) >>> 0;
      const value = unknown ? UNKNOWN : ballot;
      let data = writeConst(ctx, d, op.dst, lanes, maybe, value);
      const res = unknown ? -1 : op.mode === 'ANY' ? +(ballot !== 0) : +(ballot === sure);
      data = writePred(data, op.pdst, lanes, res === 1 ? lanes : 0, res === -1 ? lanes : 0);
      return [done(data, mem, pc, active, NONE)];
    }
    case 'opaque': {
      // Abstract mode (SEMANTICS §5): an opaque instruction writes unknown values.
      let data = d;
      for (const r of op.regs) data = writeRegUnknown(ctx, data, r, lanes);
      for (const p of op.preds)
        data = writePred(data, { index: p, negated: false }, lanes, 0, lanes);
      return [done(data, op.havoc && lanes !== 0 ? havocMemory() : mem, pc, active, NONE)];
    }
    case 'exit':
    case 'bra':
    case 'bra-external':
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

/** The one result of a data op: every active lane goes on to pc+1. */
function done(
  data: LaneData,
  memory: Memory,
  pc: number,
  active: number,
  event: Event,
  choice: string | null = null,
): ExecResult {
  return {
    kind: 'step',
    data,
    memory,
    outcome: { groups: active === 0 ? [] : [{ pc: pc + 1, mask: active }], exited: 0, event },
    choice,
  };
}

/** `d` with other registers (a literal rather than a spread: one hidden class for all LaneData). */
const withRegs = (d: LaneData, regs: RegFile): LaneData => ({
  regs,
  preds: d.preds,
  predsUnknown: d.predsUnknown,
  exited: d.exited,
  calls: d.calls,
  local: d.local,
});

type Computed = Extract<Op, { kind: 'mov' | 's2r' | 'arith' | 'lop3' | 'shift' | 'load' }>;

/** The value `op` computes for one participating lane. */
function laneValue(
  ctx: ExecContext,
  op: Computed,
  warp: number,
  d: LaneData,
  mem: Memory,
  l: number,
): number {
  switch (op.kind) {
    case 'mov':
      return srcValue(ctx, d, l, op.src);
    case 's2r':
      return specialRegister(ctx, op.sreg, warp, l);
    case 'arith': {
      let acc = 0;
      if (op.mul) {
        const a = srcValue(ctx, d, l, op.mul[0]);
        const b = srcValue(ctx, d, l, op.mul[1]);
        if (a === UNKNOWN || b === UNKNOWN) return UNKNOWN;
        acc = Math.imul(a, b) >>> 0;
      }
      const adds = op.adds;
      for (let i = 0; i < adds.length; i++) {
        const x = srcValue(ctx, d, l, adds[i]!);
        if (x === UNKNOWN) return UNKNOWN;
        acc = (acc + x) >>> 0;
      }
      return acc;
    }
    case 'lop3':
      return lop3(
        srcValue(ctx, d, l, op.srcs[0]),
        srcValue(ctx, d, l, op.srcs[1]),
        srcValue(ctx, d, l, op.srcs[2]),
        op.lut,
      );
    case 'shift':
      return shift(
        srcValue(ctx, d, l, op.lo),
        srcValue(ctx, d, l, op.amount),
        srcValue(ctx, d, l, op.hi),
        op,
      );
    case 'load':
      return readWord(
        op.local ? (d.local?.[l] ?? emptyMemory) : mem,
        addrValue(ctx, d, l, op.addr),
      );
  }
}

/**
 * STL: each participating lane writes its own local memory (`LaneData.local`), so lanes never
 * race on it; an unknown address havocs only the storing lane's local memory, an unknown
 * (`maybe`) lane stores an unknown value.
 */
function storeLocal(
  ctx: ExecContext,
  op: Extract<Op, { kind: 'store' }>,
  d: LaneData,
  lanes: number,
  maybe: number,
): LaneData {
  if (lanes === 0) return d;
  const local = d.local ? d.local.slice() : new Array<Memory>(d.calls.length).fill(emptyMemory);
  for (let r = lanes; r !== 0; r &= r - 1) {
    const l = 31 - Math.clz32(r & -r);
    const a = addrValue(ctx, d, l, op.addr);
    // `writeWord` havocs the lane's map at an unknown address.
    local[l] = writeWord(local[l]!, a, (maybe >>> l) & 1 ? UNKNOWN : srcValue(ctx, d, l, op.src));
  }
  return { ...d, local };
}

/** Writes `op`'s value to Rd for every participating lane (unknown for `maybe` lanes). */
function writeComputed(
  ctx: ExecContext,
  op: Computed,
  warp: number,
  d: LaneData,
  mem: Memory,
  lanes: number,
  maybe: number,
): LaneData {
  const dst = op.dst;
  const slot = ctx.layout.slot[dst] ?? -1;
  if (dst === RZ || slot < 0 || lanes === 0) return d;
  // Only Rd's column is copied (`RegFile`); a write that changes no value keeps `d`.
  const old = d.regs[slot]!;
  let col: number[] | null = null;
  for (let m = lanes; m !== 0; m &= m - 1) {
    const l = 31 - Math.clz32(m & -m);
    const v = (maybe >>> l) & 1 ? UNKNOWN : laneValue(ctx, op, warp, d, mem, l);
    if (col === null) {
      if (v === old[l]) continue;
      col = old.slice();
    }
    col[l] = v;
  }
  // An unknown word the lanes surely issued all computed from the same sources is one word.
  col = shareResult(ctx, op, d, old, col, (lanes & ~maybe) >>> 0) ?? col;
  return col === null ? d : withRegs(d, withColumn(d.regs, slot, col));
}

/** Writes `value` to Rd for every participating lane (unknown for `maybe` lanes). */
function writeConst(
  ctx: ExecContext,
  d: LaneData,
  dst: number,
  lanes: number,
  maybe: number,
  value: number,
): LaneData {
  const slot = ctx.layout.slot[dst] ?? -1;
  if (dst === RZ || slot < 0 || lanes === 0) return d;
  const old = d.regs[slot]!;
  let col: number[] | null = null;
  for (let m = lanes; m !== 0; m &= m - 1) {
    const l = 31 - Math.clz32(m & -m);
    const v = (maybe >>> l) & 1 ? UNKNOWN : value;
    if (col === null) {
      if (v === old[l]) continue;
      col = old.slice();
    }
    col[l] = v;
  }
  return col === null ? d : withRegs(d, withColumn(d.regs, slot, col));
}

function writeRegUnknown(ctx: ExecContext, d: LaneData, r: number, lanes: number): LaneData {
  const slot = ctx.layout.slot[r] ?? -1;
  if (slot < 0 || lanes === 0) return d;
  const old = d.regs[slot]!;
  let col: number[] | null = null;
  for (let m = lanes; m !== 0; m &= m - 1) {
    const l = 31 - Math.clz32(m & -m);
    if (old[l] === UNKNOWN) continue;
    (col ??= old.slice())[l] = UNKNOWN;
  }
  return col === null ? d : withRegs(d, withColumn(d.regs, slot, col));
}

/** Sets predicate `p` on `lanes`: true on `t`, unknown on `u`, false elsewhere in `lanes`. */
function writePred(d: LaneData, p: PredRef, lanes: number, t: number, u: number): LaneData {
  if (p.index === PT || lanes === 0) return d;
  // A negated destination stores the complement (as `!P` reads it back).
  const known = (lanes & ~u) >>> 0;
  const value = p.negated ? (known & ~t) >>> 0 : (t & known) >>> 0;
  const t1 = ((d.preds[p.index]! & ~lanes) | value) >>> 0;
  const u1 = ((d.predsUnknown[p.index]! & ~lanes) | (u & lanes)) >>> 0;
  // Arrays copied only where a value changes: a stored state shares the rest with its predecessor.
  const preds = t1 === d.preds[p.index] ? d.preds : withWord(d.preds, p.index, t1);
  const predsUnknown =
    u1 === d.predsUnknown[p.index] ? d.predsUnknown : withWord(d.predsUnknown, p.index, u1);
  if (preds === d.preds && predsUnknown === d.predsUnknown) return d;
  return { regs: d.regs, preds, predsUnknown, exited: d.exited, calls: d.calls, local: d.local };
}

/** `a` with element `i` set to `v` (a copy). */
function withWord(a: readonly number[], i: number, v: number): number[] {
  const out = a.slice();
  out[i] = v;
  return out;
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

/**
 * Whether LOP3's result is not zero — 1, 0, or -1 (unknown) — when some operands are unknown.
 * The operation is bitwise: bit i of the result depends on bit i of each operand only, and an
 * unknown operand's bits are each 0 or 1. Evaluating every unknown operand as all zeros and all
 * ones (at most 8 combinations) gives, for every bit, every value its inputs can give it: the
 * bits set in all results are surely 1, those set in none surely 0. So `R0 | UR4` is surely
 * non-zero on every lane whose R0 is, whatever UR4 holds (power_series's `if (tid | ctaid)`).
 */
export function lop3NonZero(a: number, b: number, c: number, lut: number): -1 | 0 | 1 {
  let always = 0xffffffff;
  let ever = 0;
  for (let k = 0; k < 8; k++) {
    // Combination k: bit 2 for a, 1 for b, 0 for c; a known operand takes its value once.
    if ((k & 4 && a !== UNKNOWN) || (k & 2 && b !== UNKNOWN) || (k & 1 && c !== UNKNOWN)) continue;
    const r = lop3(
      a !== UNKNOWN ? a : k & 4 ? 0xffffffff : 0,
      b !== UNKNOWN ? b : k & 2 ? 0xffffffff : 0,
      c !== UNKNOWN ? c : k & 1 ? 0xffffffff : 0,
      lut,
    );
    always &= r;
    ever |= r;
  }
  return always >>> 0 !== 0 ? 1 : ever >>> 0 === 0 ? 0 : -1;
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

/**
 * SR_LANEID, SR_TID.X (thread id k·W + l, SEMANTICS §1); one block of K warps (SR_CTAID.* = 0,
 * SR_NCTAID.* = 1, SR_NTID.X = K·W); plausible values for what the launch decides (issue 16, a
 * decision): the SM and virtual ids 0, `SR_LMEMHIOFF` the stack limit below the initial stack
 * pointer (`execContext.ts`). Anything else is unknown (SEMANTICS §5).
 */
function specialRegister(ctx: ExecContext, name: string, warp: number, lane: number): number {
  switch (name) {
    case 'SR_LANEID':
      return ctx.homeWarpSize === undefined ? lane : lane % ctx.homeWarpSize;
    case 'SR_TID.X':
      return warp * ctx.warpSize + lane;
    case 'SR_TID.Y':
    case 'SR_TID.Z':
    case 'SR_CTAID.X':
    case 'SR_CTAID.Y':
    case 'SR_CTAID.Z':
    case 'SR_VIRTID':
    case 'SR_VIRTUALSMID':
      return 0;
    case 'SR_NCTAID.X':
    case 'SR_NCTAID.Y':
    case 'SR_NCTAID.Z':
    case 'SR_NTID.Y':
    case 'SR_NTID.Z':
      return 1;
    case 'SR_NTID.X':
      return ctx.warps * ctx.warpSize;
    case 'SR_LMEMHIOFF':
      return STACK_LIMIT;
    default:
      return UNKNOWN;
  }
}

/** Atomics, one lane at a time in the configured order (SEMANTICS §1; `explore`: each lane may go first). */
function atomics(
  ctx: ExecContext,
  op: Extract<Op, { kind: 'atomic' }>,
  pc: number,
  active: number,
  d: LaneData,
  mem: Memory,
  sure: number,
  maybe: number,
): ExecResult[] {
  if (ctx.atomicOrder === 'explore' && popcount(sure) > 1) {
    const ascending = lanesOf(sure);
    const out: ExecResult[] = [];
    for (const first of ascending) {
      const order = [first];
      for (const l of ascending) if (l !== first) order.push(l);
      out.push(
        atomicOrder(ctx, op, pc, active, d, mem, order, maybe, `atomic: lane ${first} first`),
      );
    }
    return out;
  }
  const order = lanesOf(sure);
  if (ctx.atomicOrder === 'descending') order.reverse();
  return [atomicOrder(ctx, op, pc, active, d, mem, order, maybe, null)];
}

/** The atomic for the lanes of `order`, one after another, then the `maybe` lanes. */
function atomicOrder(
  ctx: ExecContext,
  op: Extract<Op, { kind: 'atomic' }>,
  pc: number,
  active: number,
  d: LaneData,
  mem: Memory,
  order: readonly number[],
  maybe: number,
  label: string | null,
): ExecResult {
  const slot = ctx.layout.slot[op.dst] ?? -1;
  const writes = op.dst !== RZ && slot >= 0;
  let m = mem;
  let col: number[] | null = null;
  for (let i = 0; i < order.length; i++) {
    const l = order[i]!;
    const a = addrValue(ctx, d, l, op.addr);
    const old = readWord(m, a);
    m = atomicWrite(op, m, a, old, srcValue(ctx, d, l, op.a), srcValue(ctx, d, l, op.b));
    if (writes) (col ??= d.regs[slot]!.slice())[l] = old;
  }
  for (let r = maybe; r !== 0; r &= r - 1) {
    // A lane that may or may not take part: its result and the word become unknown.
    const l = 31 - Math.clz32(r & -r);
    const a = addrValue(ctx, d, l, op.addr);
    m = a === UNKNOWN ? havocMemory() : writeWord(m, a, UNKNOWN);
    if (writes) (col ??= d.regs[slot]!.slice())[l] = UNKNOWN;
  }
  return done(
    col === null ? d : withRegs(d, withColumn(d.regs, slot, col)),
    m,
    pc,
    active,
    NONE,
    label,
  );
}

export { u32 };
