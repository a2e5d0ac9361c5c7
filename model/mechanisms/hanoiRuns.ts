import { unguarded, type Op, type Src } from '../isa/op.ts';
import type { KeySink } from '../machine/key.ts';
import type { HanoiState } from './hanoi.ts';
import type { MechanismContext } from './mechanism.ts';

/**
 * Arrival runs: how `hanoi`'s reduced key writes the WS stack (docs/semantics.md §13 "Arrival
 * runs"; issue 16).
 *
 * Hanoi pushes the lanes that leave a loop as a new WS entry under the loop's path whenever they
 * are the minority (seed 000 §VII-C), so after k turns the stack holds k adjacent entries at the
 * loop's BSYNC, one per turn in which lanes left: the stack records an ordered composition of
 * the leavers, and the states grow exponentially in W (`bench/RESULTS.md`, `find_max`). Yet
 * such a run of entries only ever does one thing: when it comes to the top its entries arrive at
 * the BSYNC one after the other, each arrival ORing its lanes into `waiting` — the same set at
 * the end whatever the split. The reduced key therefore writes a run of k adjacent entries at
 * one unguarded BSYNC as one item (pc, k, union of the masks), and the top item at an unguarded
 * BSYNC with every waiting lane counted in (its arrivals end with `waiting ∪ union` whatever
 * part of it already waits), when:
 *
 * - no reconvergence entry's valid register holds some but not all of the run's lanes (then no
 *   arrival before the run's last pops a REC entry: a pop needs every lane of the register
 *   waiting, and the run's lanes not yet arrived are in it and do not wait — the key's states
 *   were closed under `reconverge`, so an entry not poppable before stays so unless an arrival
 *   brings in one of its lanes); and
 * - no instruction a lane of the kernel may reach (`kernelOps`) is a WARPSYNC whose mask is not
 *   the whole warp, a BMOV into a B register or a YIELD. That keeps the first
 *   condition true until the run reaches the top: the lanes of a non-top entry do not run, so a
 *   B register's intersection with them changes only by an assignment to the issuing lanes
 *   (BSSY: disjoint from the run), by removing issuing or exiting lanes (BREAK, EXIT: not the
 *   run's), by clearing (BMOV B→R .CLEAR) — or by the three excluded instructions, which write
 *   any mask (WARPSYNC, BMOV) or swap the top entry with the one below it (YIELD).
 *
 * Two states with the same key then differ at most in how a run's lanes are split into entries
 * (and, for the top item, which of them already wait): they issue the same instructions on the
 * same lanes' data until the run surfaces, then take k arrival steps each — k is in the key — that
 * lead to states with the same key again, and after the last one to equal states. So the
 * relation is a bisimulation that maps each step to one step: verdicts, cycles, the length of
 * every path and the classes replay walks (`concretize.ts`) are those of the exact stack. A run
 * of one entry needs no condition; nor does the top item's counting in of waiting lanes when
 * k = 1 (the one arrival ORs the same set).
 *
 * With a reference (`refines-its`, `Mechanism.arrivalPc`), the reference's state is part of the
 * key too, and it is not a function of Hanoi's: a lane Hanoi holds waiting may stand ready at the
 * BSYNC in `its` (a lane outside Bx waits at Hanoi's BSYNC but passes `its`'s), and a lane Hanoi
 * issues at the BSYNC again (a reconvergence entry sent it back there) may still wait there in
 * `its`. So only the lanes waiting at that BSYNC in both are counted in (`countable`), and the
 * reference keys exactly those as standing ready there; both cases above, which a review found
 * with the first version that counted in every waiting lane, are tests of the law.
 */
export interface ArrivalRuns {
  /**
   * Writes the WS stack, counting the waiting lanes of `countable` into a top item at an
   * unguarded BSYNC; returns the `waiting` mask the key should write (without those lanes).
   */
  key(s: HanoiState, out: KeySink, countable: number): number;
  /** The top entry's PC when it is an unguarded BSYNC (waiting lanes counted in), else -1. */
  arrivalPc(s: HanoiState): number;
}

/** Planted bugs for the law (`hanoiRuns.test.ts`); never defaults. */
export type PlantUnsoundRuns =
  /** Runs merged although a reconvergence register holds part of them. */
  | 'splits'
  /** Runs merged at any instruction, not only an unguarded BSYNC. */
  | 'any-pc'
  /**
   * Every waiting lane counted in at the top BSYNC although the reference (`its`) holds some
   * of them elsewhere — ready at the BSYNC because `its` let a lane outside Bx pass its own
   * BSYNC, or issued there again after a reconvergence entry sent it back.
   */
  | 'all-waiting';

export function arrivalRuns(
  ctx: MechanismContext,
  plantUnsound: PlantUnsoundRuns | null = null,
): ArrivalRuns {
  const ops = ctx.ops;
  /** 1 at an unguarded BSYNC: every lane of an entry there arrives in one step. */
  const arrival = new Uint8Array(ops.length);
  for (let pc = 0; pc < ops.length; pc++) {
    const op = ops[pc]!;
    if ((op.kind === 'bsync' && unguarded(op)) || plantUnsound === 'any-pc') arrival[pc] = 1;
  }
  const mergeable = !kernelOps(ctx).some(
    (op) =>
      (op.kind === 'warpsync' && !fullMask(ctx, op.mask)) ||
      op.kind === 'bmov-to-barrier' ||
      op.kind === 'yield',
  );
  /** The current key's items: index of the last entry of item i, and the union of its masks. */
  const ends = new Int32Array(33);
  const unions = new Uint32Array(33);

  /** Some valid register a REC entry names holds part of `u`, not all of it. */
  const splits = (s: HanoiState, u: number): boolean => {
    if (plantUnsound === 'splits') return false;
    for (const r of s.rec) {
      if (!((s.valid >>> r.reg) & 1)) continue;
      const m = (s.b[r.reg]! & u) >>> 0;
      if (m !== 0 && m !== u) return true;
    }
    return false;
  };

  return {
    arrivalPc(s) {
      const top = s.ws[s.ws.length - 1];
      return top !== undefined && arrival[top.pc] === 1 ? top.pc : -1;
    },
    key(s, out, countable) {
      const ws = s.ws;
      const n = ws.length;
      let items = 0;
      for (let i = 0; i < n;) {
        const pc = ws[i]!.pc;
        let j = i;
        let u = ws[i]!.mask;
        if (mergeable && arrival[pc] === 1)
          while (j + 1 < n && ws[j + 1]!.pc === pc) u = (u | ws[++j]!.mask) >>> 0;
        if (j > i && splits(s, u)) {
          j = i;
          u = ws[i]!.mask;
        }
        unions[items] = u;
        ends[items++] = j;
        i = j + 1;
      }
      out.push(items);
      let start = 0;
      let waiting = s.waiting;
      for (let t = 0; t < items; t++) {
        const end = ends[t]!;
        const pc = ws[start]!.pc;
        let u = unions[t]!;
        if (t === items - 1 && arrival[pc] === 1) {
          const counted = plantUnsound === 'all-waiting' ? waiting : (waiting & countable) >>> 0;
          u = (u | counted) >>> 0;
          waiting = (waiting & ~counted) >>> 0;
        }
        out.push(pc);
        out.push(end - start + 1);
        out.mask(u);
        start = end + 1;
      }
      return waiting;
    },
  };
}

/**
 * A WARPSYNC whose mask names every lane of the warp (`.ALL`, or an immediate with every lane's
 * bit) gives its B register every live lane: it holds all of a run or none.
 */
function fullMask(ctx: MechanismContext, mask: Src | null): boolean {
  return mask === null || (mask.kind === 'imm' && (mask.value & ctx.full) >>> 0 === ctx.full);
}

/**
 * The ops a lane of the kernel may run, over-approximated: those reachable from the entry along
 * the fall-through of every instruction and the targets of BRA, CALL and BSSY (a reconvergence
 * PC); every op of the listing when a BRX may go anywhere. (The listing holds other kernels,
 * whose instructions no lane of this one reaches — a WARPSYNC there must not turn runs off.)
 */
function kernelOps(ctx: MechanismContext): readonly Op[] {
  const ops = ctx.ops;
  const seen = new Uint8Array(ops.length);
  const todo = [ctx.entry];
  const out: Op[] = [];
  const visit = (pc: number | null) => {
    if (pc !== null && pc >= 0 && pc < ops.length && seen[pc] === 0) {
      seen[pc] = 1;
      todo.push(pc);
    }
  };
  if (ctx.entry >= 0 && ctx.entry < ops.length) seen[ctx.entry] = 1;
  while (todo.length > 0) {
    const pc = todo.pop()!;
    const op = ops[pc];
    if (op === undefined) continue;
    out.push(op);
    if (op.kind === 'brx') return ops;
    visit(pc + 1);
    if (op.kind === 'bra' || op.kind === 'call' || op.kind === 'bssy') visit(op.target);
  }
  return out;
}
