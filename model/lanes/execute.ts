import type { Addr, Op, Src } from '../isa/op.ts';
import { PT, RZ, type PredRef } from '../isa/program.ts';
import type { ExecContext } from './execContext.ts';
import type { LaneData } from './laneData.ts';
import { readWord, writeWord, havocMemory, type Memory } from './memory.ts';
import { UNKNOWN, u32, lanesOf, popcount } from './values.ts';
import { evalDataOp } from './dataOps.ts';
import { uniformCompare } from './uniformCompare.ts';

/** Where a set of issued lanes goes next. */
export interface Group {
  readonly pc: number;
  readonly mask: number;
}

/**
 * What the mechanism is told about one issued instruction (SEMANTICS §1): per lane next PC
 * (grouped), the lanes that exited, and the control event. Lanes are never lost: the groups and
 * `exited` partition the issued mask.
 */
export interface Outcome {
  /** Next PCs of the issued lanes that did not exit, one group per distinct PC, ascending PC. */
  readonly groups: readonly Group[];
  readonly exited: number;
  readonly event: Event;
}

export type Event =
  | { readonly kind: 'none' }
  /** CALL: `mask` lanes entered the callee; they come back at `returnPc`. */
  | { readonly kind: 'call'; readonly mask: number; readonly returnPc: number }
  /** RET: `mask` lanes left their function. */
  | { readonly kind: 'ret'; readonly mask: number }
  /**
   * WARPSYNC by `mask` participating lanes naming `named` (null when lanes disagree); `masks[l]`
   * is the mask lane l names (0 for lanes that do not participate; UNKNOWN when unknown).
   */
  | {
      readonly kind: 'warpsync';
      readonly mask: number;
      readonly named: number | null;
      readonly masks: readonly number[];
    }
  | { readonly kind: 'yield' }
  /**
   * A convergence-barrier instruction for a mechanism that gives it meaning: `mask` participating
   * lanes; for BMOV Bx, Rs the value they hold (null when they disagree, UNKNOWN when unknown).
   */
  | { readonly kind: 'barrier'; readonly mask: number; readonly value: number | null };

/** One possible result of an instruction (several when unknown values or atomic order branch). */
export type ExecResult =
  | {
      readonly kind: 'step';
      readonly data: LaneData;
      readonly memory: Memory;
      readonly outcome: Outcome;
      /** How this alternative was chosen (unknown predicate outcome, atomic winner), for traces. */
      readonly choice: string | null;
    }
  | {
      readonly kind: 'stop';
      /** `bound-reached`: too many outcomes of unknown branches (the branching budget). */
      readonly verdict: 'undefined-behavior' | 'trap' | 'unsupported' | 'bound-reached';
      readonly message: string;
    };

/** Lanes where a predicate is known true, and where it is unknown. */
export function predMasks(d: LaneData, p: PredRef | null, full: number): [number, number] {
  return [predTrue(d, p, full), predUnknown(d, p)];
}

/** Lanes where `p` (as written, `!` included) is known true; `null` = no predicate = all lanes. */
export function predTrue(d: LaneData, p: PredRef | null, full: number): number {
  if (p === null) return full;
  if (p.index === PT) return p.negated ? 0 : full;
  const t = d.preds[p.index]!;
  return p.negated ? (~t & ~d.predsUnknown[p.index]! & full) >>> 0 : t;
}

/** Lanes where `p` is unknown (abstract mode). */
export function predUnknown(d: LaneData, p: PredRef | null): number {
  return p === null || p.index === PT ? 0 : d.predsUnknown[p.index]!;
}

const groupsOf = (entries: readonly (readonly [number, number])[]): Group[] => {
  const byPc = new Map<number, number>();
  for (const [pc, lane] of entries) byPc.set(pc, ((byPc.get(pc) ?? 0) | (1 << lane)) >>> 0);
  return [...byPc.entries()].sort((a, b) => a[0] - b[0]).map(([pc, mask]) => ({ pc, mask }));
};

const simple = (pc: number, mask: number, target: number | null, takers: number): Group[] => {
  if (target === null || takers === 0) return mask === 0 ? [] : [{ pc: pc + 1, mask }];
  const rest = (mask & ~takers) >>> 0;
  if (target === pc + 1) return [{ pc: pc + 1, mask }];
  if (rest === 0) return [{ pc: target, mask: takers }];
  // Ascending PC (`Outcome.groups`), without a sort's scratch: the two groups in order.
  const fall = { pc: pc + 1, mask: rest };
  const taken = { pc: target, mask: takers };
  return target < pc + 1 ? [taken, fall] : [fall, taken];
};

const NONE: Event = { kind: 'none' };

/**
 * Executes `op` at `pc` for the `active` lanes of warp `warp` (SEMANTICS §1–2): effects applied
 * lane by lane in ascending lane order (atomics: per `ctx.atomicOrder`). Control instructions whose
 * participation depends on unknown predicates branch into one result per outcome.
 */
export function execute(
  ctx: ExecContext,
  op: Op,
  pc: number,
  warp: number,
  d: LaneData,
  mem: Memory,
  active: number,
  classes: readonly number[] | null = null,
): readonly ExecResult[] {
  const full = ctx.full;
  // Participation (seed 000 §V-A): both the guard and the second predicate must hold.
  const t1 = predTrue(d, op.guard, full);
  const u1 = predUnknown(d, op.guard);
  const t2 = predTrue(d, op.pred2, full);
  const u2 = predUnknown(d, op.pred2);
  const sure = (t1 & t2 & active) >>> 0;
  const maybe = ((t1 | u1) & (t2 | u2) & active & ~sure) >>> 0;
  const controlOp = isControl(op);
  if (maybe !== 0 && (controlOp || isBarrier(op))) {
    // One alternative per outcome of the unknown lanes: 2^n for n lanes in general; with
    // `classes` (lane symmetry, `machine/laneCanon.ts`) lanes of one class are interchangeable,
    // so only how many of each class take part matters — the lowest k lanes stand for every
    // k-subset (issue 16: n + 1 outcomes for n interchangeable lanes).
    const groups: number[][] = [];
    if (classes)
      for (const c of classes) {
        const m = (maybe & c) >>> 0;
        if (m !== 0) groups.push(lanesOf(m));
      }
    else for (const l of lanesOf(maybe)) groups.push([l]);
    let total = 1;
    for (const g of groups) total *= g.length + 1;
    if (total > ctx.maxAlternatives)
      return [
        {
          kind: 'stop',
          verdict: 'bound-reached',
          message: `${popcount(maybe)} lanes in ${groups.length} classes branch on unknown predicates at pc ${pc}: ${total > 1e15 ? total.toExponential(1) : total} outcomes exceed the branching budget (${ctx.maxAlternatives}); give the inputs in the launch header`,
        },
      ];
    const lanesText = lanesOf(maybe).join(',');
    const counts = new Array<number>(groups.length).fill(0);
    const out: ExecResult[] = [];
    for (let alt = 0; alt < total; alt++) {
      // Mixed radix, the first group the lowest digit (without classes: bit i = lane i, as before).
      let take = sure;
      for (let i = 0; i < groups.length; i++) {
        const g = groups[i]!;
        for (let j = 0; j < counts[i]!; j++) take |= 1 << g[j]!;
      }
      take >>>= 0;
      // The outcome fixes the unknown predicate for these lanes: later instructions that read it
      // (the BRA after a BREAK on the same guard) must see the same value (SEMANTICS §5).
      const resolved = resolvePredicates(d, op, maybe, take, t1, u1, t2, u2);
      // A barrier instruction (BSYNC, WARPSYNC, BSSY, BMOV) runs with exactly the chosen lanes.
      const r = controlOp
        ? control(ctx, op, pc, warp, resolved, mem, active, take)
        : evalDataOp(ctx, op, pc, warp, resolved, mem, active, take, 0)[0]!;
      // The chosen lanes, ascending: the bits of `take` among the unknown ones (no array, no sort).
      let chosen = '';
      for (let m = (take & maybe) >>> 0; m !== 0; m &= m - 1)
        chosen += (chosen === '' ? '' : ',') + (31 - Math.clz32(m & -m));
      let label = `unknown predicate: lanes [${chosen}] of [${lanesText}] participate`;
      if (classes) {
        let counted = '';
        for (let i = 0; i < groups.length; i++)
          counted += `${i === 0 ? '' : ', '}${counts[i]} of ${groups[i]!.length}`;
        label += ` (counted: ${counted})`;
      }
      out.push(r.kind === 'step' ? { ...r, choice: label } : r);
      for (let i = 0; i < groups.length; i++) {
        if (counts[i]! < groups[i]!.length) {
          counts[i]!++;
          break;
        }
        counts[i] = 0;
      }
    }
    return out;
  }
  if (controlOp) return [control(ctx, op, pc, warp, d, mem, active, sure)];
  const uniform = uniformCompare(ctx, op, d, sure);
  if (uniform)
    return resolveUniform(ctx, uniform.alternatives, pc, warp, d, mem, active, sure, maybe);
  return evalDataOp(ctx, op, pc, warp, d, mem, active, sure, maybe);
}

/**
 * `d` with the unknown predicates of `op`'s guard and second predicate fixed on the `maybe` lanes
 * as the outcome `take` says: a lane that participates has both true; one that does not has the
 * unknown one false when the other is known true (if both are unknown it stays unknown).
 */
function resolvePredicates(
  d: LaneData,
  op: Op,
  maybe: number,
  take: number,
  t1: number,
  u1: number,
  t2: number,
  u2: number,
): LaneData {
  const preds = d.preds.slice();
  const unknown = d.predsUnknown.slice();
  const set = (p: { index: number; negated: boolean } | null, lane: number, holds: boolean) => {
    if (p === null || p.index === PT) return;
    const bit = 1 << lane;
    const raw = holds !== p.negated;
    preds[p.index] = raw ? (preds[p.index]! | bit) >>> 0 : (preds[p.index]! & ~bit) >>> 0;
    unknown[p.index] = (unknown[p.index]! & ~bit) >>> 0;
  };
  for (let m = maybe; m !== 0; m &= m - 1) {
    const l = 31 - Math.clz32(m & -m);
    const bit = 1 << l;
    const joins = (take & bit) !== 0;
    const g = (u1 & bit) !== 0;
    const q = (u2 & bit) !== 0;
    if (joins) {
      if (g) set(op.guard, l, true);
      if (q) set(op.pred2, l, true);
    } else if (g && !q && (t2 & bit) !== 0) set(op.guard, l, false);
    else if (q && !g && (t1 & bit) !== 0) set(op.pred2, l, false);
  }
  return { ...d, preds, predsUnknown: unknown };
}

/** Barrier and stack instructions (BRK): an unknown guard on them is a choice too (SEMANTICS §5). */
/** Control, barrier and stack instructions: an unknown guard on them splits the run (SEMANTICS §5). */
export const splitsOnUnknown = (op: Op): boolean => isControl(op) || isBarrier(op);

const isBarrier = (op: Op): boolean =>
  op.kind === 'bssy' ||
  op.kind === 'bsync' ||
  op.kind === 'bmov-from-barrier' ||
  op.kind === 'bmov-to-barrier' ||
  op.kind === 'warpsync' ||
  op.kind === 'stack-op';

const isControl = (op: Op): boolean => {
  switch (op.kind) {
    case 'break':
    case 'exit':
    case 'bra':
    case 'bra-external':
    case 'brx':
    case 'call':
    case 'ret':
    case 'trap':
      return true;
    default:
      return false;
  }
};

function step(
  d: LaneData,
  mem: Memory,
  groups: readonly Group[],
  exited: number,
  event: Event,
): ExecResult {
  return { kind: 'step', data: d, memory: mem, outcome: { groups, exited, event }, choice: null };
}

/** Control-flow instructions with a known participating mask `take` (SEMANTICS §2). */
function control(
  ctx: ExecContext,
  op: Op,
  pc: number,
  warp: number,
  d: LaneData,
  mem: Memory,
  active: number,
  take: number,
): ExecResult {
  switch (op.kind) {
    case 'exit': {
      const exited = take;
      const data = exited === 0 ? d : { ...d, exited: (d.exited | exited) >>> 0 };
      return step(data, mem, simple(pc, (active & ~exited) >>> 0, null, 0), exited, NONE);
    }
    case 'bra': {
      // BRA.DIV/.CONV (SEMANTICS §2, a decision): taken iff the warp is diverged / converged.
      const live = (ctx.full & ~d.exited) >>> 0;
      const cond = op.cond === 'none' || (op.cond === 'div' ? active !== live : active === live);
      return step(d, mem, simple(pc, active, op.target, cond ? take : 0), 0, NONE);
    }
    case 'trap':
      if (take !== 0)
        return {
          kind: 'stop',
          verdict: 'trap',
          message: `BPT.TRAP at pc ${pc} by lanes ${lanesOf(take).join(',')}`,
        };
      return step(d, mem, simple(pc, active, null, 0), 0, NONE);
    case 'break':
      // BREAK is a control instruction for unknown guards (a choice, so that the BRA that
      // follows it on the same guard agrees); its effect on Bx is the mechanism's.
      return step(d, mem, simple(pc, active, null, 0), 0, {
        kind: 'barrier',
        mask: take,
        value: null,
      });
    case 'bra-external':
      if (take !== 0)
        return {
          kind: 'stop',
          verdict: 'unsupported',
          message: `lanes ${lanesOf(take).join(',')} branch at pc ${pc} to ${op.name}, outside the listing`,
        };
      return step(d, mem, simple(pc, active, null, 0), 0, NONE);
    case 'call': {
      if (take === 0) return step(d, mem, simple(pc, active, null, 0), 0, NONE);
      const calls = d.calls.map((c, l) => ((take >>> l) & 1 ? [...c, pc + 1] : c));
      if (calls.some((c) => c.length > ctx.maxCallDepth))
        return {
          kind: 'stop',
          verdict: 'unsupported',
          message: `call depth exceeds ${ctx.maxCallDepth} at pc ${pc} (unbounded recursion?)`,
        };
      return step({ ...d, calls }, mem, simple(pc, active, op.target, take), 0, {
        kind: 'call',
        mask: take,
        returnPc: pc + 1,
      });
    }
    case 'ret':
    case 'brx': {
      const entries: [number, number][] = [];
      const calls = d.calls.slice();
      let ended = 0;
      for (const l of lanesOf(active)) {
        if (!((take >>> l) & 1)) {
          entries.push([pc + 1, l]);
          continue;
        }
        const v = d.regs[ctx.layout.slot[op.reg] ?? -1]?.[l] ?? 0;
        const value = op.reg === RZ ? 0 : v < 0 ? UNKNOWN : v;
        let target: number | undefined;
        if (op.kind === 'ret') {
          const stack = calls[l]!;
          const back = stack[stack.length - 1];
          // A RET with no open CALL returns from the entry function to its caller, which the
          // program does not contain: the thread ends, as at EXIT (a decision, docs/semantics.md).
          if (back === undefined) {
            ended |= 1 << l;
            continue;
          }
          // A return address is a byte offset in the caller's function (SEMANTICS §1); an unknown
          // one is assumed to be the structured return (a decision, docs/semantics.md).
          if (value === UNKNOWN) target = back;
          else target = ctx.pcAt(back !== undefined ? back : pc, u32(value + op.imm));
          if (target === undefined)
            return {
              kind: 'stop',
              verdict: value === UNKNOWN ? 'unsupported' : 'undefined-behavior',
              message: `RET at pc ${pc}: lane ${l} returns to ${value === UNKNOWN ? 'an unknown address with no open CALL' : `offset 0x${u32(value + op.imm).toString(16)}, not an instruction`}`,
            };
          calls[l] = stack.slice(0, -1);
        } else {
          if (value === UNKNOWN)
            return {
              kind: 'stop',
              verdict: 'unsupported',
              message: `BRX at pc ${pc}: lane ${l} jumps to an unknown address`,
            };
          const offset = u32(value + op.imm + (op.relative ? ctx.offsetOf(pc) + 16 : 0));
          target = ctx.pcAt(pc, offset);
          if (target === undefined || (op.targets.length > 0 && !op.targets.includes(target)))
            return {
              kind: 'stop',
              verdict: 'undefined-behavior',
              message: `BRX at pc ${pc}: lane ${l} jumps to offset 0x${offset.toString(16)}, ${target === undefined ? 'not an instruction of the function' : 'not a declared target'}`,
            };
        }
        entries.push([target, l]);
      }
      ended >>>= 0;
      const returned = (take & ~ended) >>> 0;
      const event: Event =
        op.kind === 'ret' && returned !== 0 ? { kind: 'ret', mask: returned } : NONE;
      const data = op.kind === 'ret' ? { ...d, calls, exited: (d.exited | ended) >>> 0 } : d;
      return step(data, mem, groupsOf(entries), ended, event);
    }
    default:
      throw new Error(`control(): ${op.kind} is not a control-flow op`);
  }
}

/** Atomic read-modify-write of one lane; returns the old value and the new memory. */
export function atomicStep(
  op: Extract<Op, { kind: 'atomic' }>,
  mem: Memory,
  addr: number,
  a: number,
  b: number,
): [number, Memory] {
  const old = readWord(mem, addr);
  return [old, atomicWrite(op, mem, addr, old, a, b)];
}

/** The memory after one lane's atomic, given the word's `old` value (`readWord(mem, addr)`). */
export function atomicWrite(
  op: Extract<Op, { kind: 'atomic' }>,
  mem: Memory,
  addr: number,
  old: number,
  a: number,
  b: number,
): Memory {
  let next: number;
  if (op.op === 'EXCH') next = a;
  else if (op.op === 'ADD') next = old === UNKNOWN || a === UNKNOWN ? UNKNOWN : u32(old + a);
  else next = old === UNKNOWN || a === UNKNOWN ? UNKNOWN : old === a ? b : old;
  if (op.op === 'CAS' && next !== UNKNOWN && next === old) return mem;
  return addr === UNKNOWN ? havocMemory() : writeWord(mem, addr, next);
}

/** Evaluates a source operand for one lane. */
export function srcValue(ctx: ExecContext, d: LaneData, lane: number, s: Src): number {
  switch (s.kind) {
    case 'reg': {
      if (s.index === RZ) return 0;
      const slot = ctx.layout.slot[s.index] ?? -1;
      const v = slot < 0 ? 0 : d.regs[slot]![lane]!;
      // A shared unknown (`shared.ts`) is an unknown word to everything that computes with it.
      if (v < 0) return UNKNOWN;
      return s.negated ? u32(-v) : v;
    }
    case 'imm':
      return u32(s.value);
    case 'cbank':
      return ctx.constant(s.bank, s.offset);
    case 'unknown':
      return UNKNOWN;
  }
}

/** The address of `[Ra(.64)+imm]` for one lane (SEMANTICS §2: `.64` is the pair Ra, Ra+1). */
export function addrValue(ctx: ExecContext, d: LaneData, lane: number, a: Addr): number {
  if (a.opaque) return UNKNOWN;
  const lo = srcValue(ctx, d, lane, { kind: 'reg', index: a.base });
  if (lo === UNKNOWN) return UNKNOWN;
  let base = lo;
  if (a.wide && a.base !== RZ) {
    const hi = srcValue(ctx, d, lane, { kind: 'reg', index: a.base + 1 });
    if (hi === UNKNOWN) return UNKNOWN;
    base = hi * 0x100000000 + lo;
  }
  return base + a.offset;
}

export { popcount };

/**
 * The alternatives of an ISETP against an unknown uniform value (`uniformCompare.ts`): one per
 * distinct outcome of the stand-in values, in ascending stand-in order; a single outcome is no
 * choice.
 */
function resolveUniform(
  ctx: ExecContext,
  alternatives: readonly { readonly op: Op; readonly label: string }[],
  pc: number,
  warp: number,
  d: LaneData,
  mem: Memory,
  active: number,
  sure: number,
  maybe: number,
): readonly ExecResult[] {
  const out: ExecResult[] = [];
  const seen = new Set<string>();
  for (const alt of alternatives) {
    const r = evalDataOp(ctx, alt.op, pc, warp, d, mem, active, sure, maybe)[0]!;
    const k =
      r.kind === 'step' ? `${r.data.preds.join()}/${r.data.predsUnknown.join()}` : r.message;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(r.kind === 'step' ? { ...r, choice: alt.label } : r);
  }
  const only = out[0]!;
  return out.length === 1 ? [only.kind === 'step' ? { ...only, choice: null } : only] : out;
}

/**
 * Lanes of a store (to the block's memory) or atomic whose result depends on the order in which lanes apply it
 * (SEMANTICS §1 applies them in ascending lane order): two or more lanes at one known address —
 * for a store, only when they write different (or unknown) values. Lane symmetry must not
 * renumber such lanes unless they are interchangeable (`machine.ts`).
 */
export function orderedLanes(ctx: ExecContext, op: Op, d: LaneData, active: number): number {
  if (op.kind !== 'store' && op.kind !== 'atomic') return 0;
  // STL: each lane writes its own local memory; lanes never race there.
  if (op.kind === 'store' && op.local) return 0;
  const t1 = predTrue(d, op.guard, ctx.full);
  const lanes = ((t1 | predUnknown(d, op.guard)) & active) >>> 0;
  if ((lanes & (lanes - 1)) === 0) return 0;
  const byAddr = new Map<number, number[]>();
  for (const l of lanesOf(lanes)) {
    const a = addrValue(ctx, d, l, op.addr);
    if (a === UNKNOWN) continue;
    const g = byAddr.get(a);
    if (g) g.push(l);
    else byAddr.set(a, [l]);
  }
  let out = 0;
  for (const g of byAddr.values()) {
    if (g.length < 2) continue;
    if (op.kind === 'store') {
      const v0 = srcValue(ctx, d, g[0]!, op.src);
      const uncertain = (t1 & lanes) !== lanes;
      if (!uncertain && v0 !== UNKNOWN && g.every((l) => srcValue(ctx, d, l, op.src) === v0))
        continue;
    }
    for (const l of g) out |= 1 << l;
  }
  return out >>> 0;
}
