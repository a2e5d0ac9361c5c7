import type { Op, Src } from './op.ts';
import { PT, RZ, type PredRef } from './program.ts';

/**
 * The storage an instruction reads and writes, as the issue stage sees it: general registers,
 * predicates and convergence-barrier registers. The scoreboard of `model/core/` reserves `writes`
 * at issue and stalls an instruction whose `reads` or `writes` overlap a pending write (RAW and
 * WAW; SEMANTICS §4). Unlike `machine/liveness.ts`, a guarded write counts: the hardware reserves
 * the destination whatever the guard turns out to be. RZ and PT are never tracked.
 *
 * Opaque instructions (outside the modelled subset) write their decoded destinations; what they
 * read is not known to the model, so they read nothing here (a documented under-approximation).
 */
export interface Operands {
  readonly readRegs: readonly number[];
  readonly writeRegs: readonly number[];
  readonly readPreds: readonly number[];
  readonly writePreds: readonly number[];
  readonly readBarriers: readonly number[];
  readonly writeBarriers: readonly number[];
}

export function operandsOf(op: Op): Operands {
  const readRegs: number[] = [];
  const writeRegs: number[] = [];
  const readPreds: number[] = [];
  const writePreds: number[] = [];
  const readBarriers: number[] = [];
  const writeBarriers: number[] = [];
  const reg = (into: number[], r: number) => {
    if (r !== RZ && r >= 0 && r < RZ && !into.includes(r)) into.push(r);
  };
  const src = (s: Src | null | undefined) => {
    if (s?.kind === 'reg') reg(readRegs, s.index);
  };
  const pred = (into: number[], p: PredRef | null) => {
    if (p !== null && p.index !== PT && !into.includes(p.index)) into.push(p.index);
  };
  const addr = (a: { base: number; wide: boolean }) => {
    reg(readRegs, a.base);
    if (a.wide && a.base !== RZ) reg(readRegs, a.base + 1);
  };
  pred(readPreds, op.guard);
  pred(readPreds, op.pred2);
  switch (op.kind) {
    case 'brx':
    case 'ret':
      reg(readRegs, op.reg);
      break;
    case 'warpsync':
      src(op.mask);
      break;
    case 'bssy':
      writeBarriers.push(op.barrier);
      break;
    case 'bsync':
      readBarriers.push(op.barrier);
      break;
    case 'break':
      readBarriers.push(op.barrier);
      writeBarriers.push(op.barrier);
      break;
    case 'bmov-from-barrier':
      readBarriers.push(op.barrier);
      if (op.clear) writeBarriers.push(op.barrier);
      reg(writeRegs, op.dst);
      break;
    case 'bmov-to-barrier':
      src(op.src);
      writeBarriers.push(op.barrier);
      break;
    case 'mov':
      src(op.src);
      reg(writeRegs, op.dst);
      break;
    case 's2r':
      reg(writeRegs, op.dst);
      break;
    case 'arith':
      op.mul?.forEach(src);
      op.adds.forEach(src);
      reg(writeRegs, op.dst);
      break;
    case 'lop3':
      op.srcs.forEach(src);
      reg(writeRegs, op.dst);
      if (op.pdst) pred(writePreds, op.pdst);
      break;
    case 'shift':
      src(op.lo);
      src(op.amount);
      src(op.hi);
      reg(writeRegs, op.dst);
      break;
    case 'plop3':
      op.srcs.forEach((p) => pred(readPreds, p));
      pred(writePreds, op.dst);
      pred(writePreds, op.dst2);
      break;
    case 'isetp':
      src(op.a);
      src(op.b);
      pred(readPreds, op.c);
      pred(writePreds, op.dst);
      pred(writePreds, op.dst2);
      break;
    case 'load':
      addr(op.addr);
      reg(writeRegs, op.dst);
      break;
    case 'store':
      addr(op.addr);
      src(op.src);
      break;
    case 'atomic':
      addr(op.addr);
      src(op.a);
      src(op.b);
      reg(writeRegs, op.dst);
      break;
    case 'vote':
      pred(readPreds, op.src);
      reg(writeRegs, op.dst);
      pred(writePreds, op.pdst);
      break;
    case 'opaque':
      for (const r of op.regs) reg(writeRegs, r);
      for (const p of op.preds) pred(writePreds, { index: p, negated: false });
      break;
    case 'exit':
    case 'bra':
    case 'bra-external':
    case 'call':
    case 'call-external':
    case 'yield':
    case 'trap':
    case 'stack-op':
    case 'nop':
      break;
    default: {
      const never: never = op;
      throw new Error(`operandsOf: unclassified op ${JSON.stringify(never)}`);
    }
  }
  return { readRegs, writeRegs, readPreds, writePreds, readBarriers, writeBarriers };
}
