import type { Op, Src } from '../isa/op.ts';
import { PT, RZ, type PredRef } from '../isa/program.ts';
import type { RegisterLayout } from '../lanes/laneData.ts';
import type { Policy } from '../mechanisms/mechanism.ts';
import type { Liveness } from './liveness.ts';

/**
 * What a CALL may leave changed when it returns (issue 16, docs/semantics.md §13 "Loop
 * widening"): the register slots whose value at the callee's RET may differ from their value at
 * its entry, and the predicates it may write. Loop widening forgets these for a loop that calls
 * the function, instead of every register — a callee's stack prologue `IADD3 R1, R1, -N` and
 * epilogue `IADD3 R1, R1, N` leave the stack pointer as the call found it, so a loop that calls
 * it keeps R1 known and the callee's stack-limit check `R1 >= SR_LMEMHIOFF` keeps passing.
 */
export interface CallEffect {
  /** changed[slot >> 5] bit (slot & 31): the slot may differ after the call. */
  readonly changed: Uint32Array;
  /** Bit p: the callee (or one it calls) may write Pp. */
  readonly preds: number;
}

/**
 * Per register slot, its value relative to the function's entry: `off[s]` added to the entry
 * value when `known[s]`, anything otherwise. The lattice is flat per slot (a known offset, then
 * unknown), so the forward fixpoint below ends after at most one lowering per slot and PC.
 */
interface Offsets {
  readonly known: Uint8Array;
  readonly off: Int32Array;
}

const always = (p: PredRef | null) => p === null || (p.index === PT && !p.negated);
const isZero = (s: Src) =>
  (s.kind === 'reg' && s.index === RZ) || (s.kind === 'imm' && s.value === 0);

/**
 * The call effects of `ops` (memoised per callee entry). The analysis follows the model's own
 * semantics (`lanes/execute.ts`, `lanes/dataOps.ts`), not the hardware's: an unguarded
 * `IADD3 Rd, Rd, k, RZ` (any operand order; `mul` null) adds k to Rd, `MOV Rd, Rd` keeps it,
 * anything else that may write a slot (`Liveness.writes`, guarded writes too) makes it unknown;
 * a nested CALL composes its callee's offsets. Paths that end (EXIT, an unguarded BPT.TRAP, a
 * rejected op) never return and do not count; only the states at the callee's RETs do. What the
 * analysis cannot follow — BRX without a target table, a Fermi stack-op, recursion — changes
 * everything (sound: widening forgets more). Values a callee restores through memory (a spilled
 * R16 reloaded with LDL) count as changed: memory is not tracked here.
 *
 * `plantUnsound` (the widening plant only) claims that no call changes any register.
 */
export function callEffects(
  ops: readonly Op[],
  live: Liveness,
  layout: RegisterLayout,
  policy: (op: Op) => Policy,
  plantUnsound = false,
): (target: number) => CallEffect {
  const n = ops.length;
  const slots = layout.count;
  const words = live.words;
  const slotOf = (r: number) => (r < 0 || r >= RZ ? -1 : layout.slot[r]!);
  const none: CallEffect = { changed: new Uint32Array(words), preds: 0 };
  type Summary = { offsets: Offsets | null; preds: number };
  const done = new Map<number, Summary>();
  const active = new Set<number>();

  /** Join `b` into `a` (null: unreached); returns whether `a` changed. */
  const join = (a: Offsets, b: Offsets): boolean => {
    let changed = false;
    for (let s = 0; s < slots; s++)
      if (a.known[s] && (!b.known[s] || a.off[s] !== b.off[s])) {
        a.known[s] = 0;
        changed = true;
      }
    return changed;
  };
  const copy = (o: Offsets): Offsets => ({ known: o.known.slice(), off: o.off.slice() });
  const top = (): Offsets => ({ known: new Uint8Array(slots), off: new Int32Array(slots) });

  const summarise = (entry: number): Summary => {
    const hit = done.get(entry);
    if (hit) return hit;
    // Recursion: everything may change (a recursive loop has a growing call stack anyway).
    if (active.has(entry) || entry < 0 || entry >= n) return { offsets: top(), preds: 0x7f };
    active.add(entry);
    const at: (Offsets | null)[] = new Array(n).fill(null);
    at[entry] = { known: new Uint8Array(slots).fill(1), off: new Int32Array(slots) };
    let atRet: Offsets | null = null;
    let preds = 0;
    let giveUp = false;
    const work: number[] = [entry];
    const flow = (to: number, o: Offsets) => {
      if (to < 0 || to >= n) return;
      const cur = at[to];
      if (cur === null) {
        at[to] = copy(o);
        work.push(to);
      } else if (join(cur, o)) work.push(to);
    };
    while (work.length > 0 && !giveUp) {
      const pc = work.pop()!;
      const op = ops[pc]!;
      const inS = at[pc]!;
      const pol = policy(op);
      const unconditional = always(op.guard) && always(op.pred2);
      if (pol === 'reject') continue;
      if (pol === 'nop') {
        flow(pc + 1, inS);
        continue;
      }
      preds |= live.writesP[pc]!;
      switch (op.kind) {
        case 'exit':
        case 'trap':
          if (!unconditional) flow(pc + 1, inS);
          break;
        case 'bra':
          if (!unconditional) flow(pc + 1, inS);
          flow(op.target, inS);
          break;
        case 'brx':
          if (op.targets.length === 0) giveUp = true;
          if (!unconditional) flow(pc + 1, inS);
          for (const t of op.targets) flow(t, inS);
          break;
        case 'ret':
          if (atRet === null) atRet = copy(inS);
          else join(atRet, inS);
          if (!unconditional) flow(pc + 1, inS);
          break;
        case 'stack-op':
          giveUp = true;
          break;
        case 'call': {
          const callee = summarise(op.target);
          preds |= callee.preds;
          if (!unconditional) flow(pc + 1, inS);
          if (callee.offsets === null) break; // never returns
          const o = copy(inS);
          for (let s = 0; s < slots; s++) {
            if (!callee.offsets.known[s]) o.known[s] = 0;
            else o.off[s] = (o.off[s]! + callee.offsets.off[s]!) | 0;
          }
          flow(pc + 1, o);
          break;
        }
        default: {
          const o = copy(inS);
          const keep = selfOffset(op);
          for (let s = 0; s < slots; s++) {
            if (!((live.writes[pc * words + (s >>> 5)]! >>> (s & 31)) & 1)) continue;
            if (keep !== null && unconditional && slotOf(keep.reg) === s)
              o.off[s] = (o.off[s]! + keep.add) | 0;
            else o.known[s] = 0;
          }
          flow(pc + 1, o);
        }
      }
    }
    active.delete(entry);
    const summary: Summary = giveUp ? { offsets: top(), preds: 0x7f } : { offsets: atRet, preds };
    done.set(entry, summary);
    return summary;
  };

  const effects = new Map<number, CallEffect>();
  return (target) => {
    if (plantUnsound) return none;
    let e = effects.get(target);
    if (e) return e;
    const { offsets, preds } = summarise(target);
    if (offsets === null) e = { changed: new Uint32Array(words), preds };
    else {
      const changed = new Uint32Array(words);
      for (let s = 0; s < slots; s++)
        if (!offsets.known[s] || offsets.off[s] !== 0) changed[s >>> 5]! |= 1 << (s & 31);
      e = { changed, preds };
    }
    effects.set(target, e);
    return e;
  };
}

/**
 * `Rd = Rd + k` in the model's semantics: IADD3/IADD with no multiply whose sources are Rd, an
 * immediate k and zeros (RZ or 0), or `MOV Rd, Rd` (k = 0). Null for anything else.
 */
function selfOffset(op: Op): { reg: number; add: number } | null {
  if (op.kind === 'mov')
    return op.src.kind === 'reg' && op.src.index === op.dst ? { reg: op.dst, add: 0 } : null;
  if (op.kind !== 'arith' || op.mul !== null || op.dst === RZ) return null;
  let self = 0;
  let add = 0;
  for (const s of op.adds) {
    if (s.kind === 'reg' && s.index === op.dst && !s.negated) self++;
    else if (s.kind === 'imm') add = (add + s.value) | 0;
    else if (!isZero(s)) return null;
  }
  return self === 1 ? { reg: op.dst, add } : null;
}
