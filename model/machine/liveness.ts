import type { Op, Src } from '../isa/op.ts';
import { PT, RZ, type PredRef } from '../isa/program.ts';
import type { RegisterLayout } from '../lanes/laneData.ts';
import type { Policy } from '../mechanisms/mechanism.ts';

/**
 * Per-lane live registers and predicates at every PC: the dead-value reduction's static part.
 *
 * A lane's register (or predicate) is *dead* at a PC when on every path of instructions the lane
 * can execute from there it is written before it is read (or never read). Two states that differ
 * only in dead values are bisimilar — every step from one is matched by the same step from the
 * other, with the same issue, the same alternatives, the same stops and again only dead values
 * differing — so the explorer may treat them as one state without changing any verdict, fair
 * cycles included (the issue masks, enabled warps and ready lanes are the same on both sides).
 *
 * Soundness rests on three facts, each checked here or by the caller:
 * - *reads*: `uses` names every register and predicate an op's evaluation looks at, in
 *   `lanes/execute.ts` and `lanes/dataOps.ts`, including guards, address pairs and values that
 *   only feed an error check; mechanisms never see lane data (`Mechanism.advance` gets outcomes);
 * - *writes*: `kills` names only what an op writes for every lane that executes it, so a guarded
 *   op kills nothing (a lane that does not participate keeps its old value);
 * - *paths*: a lane only ever executes, after its current PCs (as the mechanism reports them with
 *   `lanePcs`), static successors of what it executed. A CALL's successor is its callee, a RET's
 *   every return site (the instruction after some CALL; context-insensitive), a BRX's its target
 *   table — the graph `mayReach` follows. A RET may jump elsewhere (SEMANTICS §1: to any offset
 *   its register holds); the explorer checks every RET step while anything that reads this
 *   analysis is on and then searches again on a machine whose liveness is built with
 *   `calls: 'opaque'` (`explore/offGraph.ts`, docs/semantics.md §13). Instructions whose
 *   successors are not known statically (BRX without a table, stack-ops, rejected foreign ones)
 *   make every value live.
 */
export interface Liveness {
  /** Words per PC in `regs` (one bit per register slot). */
  readonly words: number;
  /** regs[pc * words + (slot >> 5)] bit (slot & 31): the slot is live at pc. PC n (past the end) is all-dead. */
  readonly regs: Uint32Array;
  /** preds[pc] bit p: predicate Pp is live at pc. */
  readonly preds: Uint8Array;
  /**
   * The PCs from which a lane may still execute an instruction that `isTarget` accepts, along
   * the same static successors (an instruction whose successors are unknown reaches every
   * target). Lane symmetry pins the lanes that may still read their lane number so. A `blocked`
   * PC that is no target passes nothing on: the paths that matter stop there (a member of Bx at a
   * BSYNC on Bx that cannot be released yet, `bsyncPriority.ts`).
   */
  mayReach(isTarget: (pc: number) => boolean, blocked?: (pc: number) => boolean): Uint8Array;
  /**
   * Shared memory can influence control: some load's (or atomic's) result is relevant. When it
   * cannot, what memory holds is irrelevant too (`relevance` below).
   */
  readonly memoryRelevant: boolean;
  /** writes[pc * words + (slot >> 5)]: the slots the op at pc may write (guarded writes too). */
  readonly writes: Uint32Array;
  /** writesP[pc] bit p: the op at pc may write Pp. */
  readonly writesP: Uint8Array;
  /**
   * Convergence-barrier liveness (issue 16): bit x of the result at pc is set when a lane at pc
   * may still read Bx (BSYNC, BREAK, BMOV from Bx; BSSY too unless `bssyAssigns`) before an
   * instruction that assigns it (BSSY when `bssyAssigns`, BMOV to Bx), along the control
   * successors of `mayReach`. A mechanism keys a barrier no lane may read as empty.
   */
  barrierLive(bssyAssigns: boolean, plantUnsound?: boolean): Uint16Array;
}

const ALL_PREDS = 0x7f;

/**
 * A source that may read as one unknown value shared by the lanes — an unknown constant or a
 * uniform register — against which an ISETP is a choice among stand-ins
 * (`lanes/uniformCompare.ts`; a constant may be known at run time, so every constant counts).
 * A register that holds a shared unknown (`lanes/shared.ts`) is one too, but only where the
 * ISETP's predicates are live after it (`Op` isetp `deadOutputs`), where it reads it anyway.
 */
export const mayBeUniformUnknown = (s: Src): boolean =>
  s.kind === 'cbank' || (s.kind === 'unknown' && s.uniform === true);

/**
 * With `relevance` (the default) a value is live only where it may still influence control:
 * *strong* (faint-variable) liveness. An instruction reads its sources only when it is a sink —
 * control, barrier, WARPSYNC and atomic instructions, and stores while memory is relevant — or
 * when something it writes is itself live after it. A value that can only ever flow into other
 * such values (a sum that is stored and never read back, a loaded datum nobody branches on) then
 * is dead, and states differing only in it are one: every verdict is about control (which lanes
 * issue where, wait, exit or stop), which such values never reach. Data instructions end a run
 * only through values that reach control (BMOV, WARPSYNC masks), which are sinks.
 */
export function liveness(
  ops: readonly Op[],
  layout: RegisterLayout,
  policy: (op: Op) => Policy,
  relevance = true,
  /** The relevance law's planted bug only: BRA does not read its guard (never set elsewhere). */
  plantUnsound = false,
  /**
   * `follow` (the default): CALL goes into its callee, RET to every return site, BRX to its
   * target table — the graph `mayReach` has always used. `opaque`: every value is live after
   * them, for a search that has seen a RET leave that graph (`explore/offGraph.ts`). `plant`:
   * the law's planted bug only — a RET leads nowhere (nothing is live before it but its address).
   */
  calls: 'follow' | 'opaque' | 'plant' = 'follow',
): Liveness {
  const n = ops.length;
  const words = Math.max(1, Math.ceil(layout.count / 32));
  const slotOf = (r: number) => (r === RZ || r < 0 || r >= RZ ? -1 : layout.slot[r]!);
  // Per PC: use/kill sets, successors, and whether everything is live after it.
  const useR = new Uint32Array((n + 1) * words);
  const killR = new Uint32Array((n + 1) * words);
  const useP = new Uint8Array(n + 1);
  const killP = new Uint8Array(n + 1);
  const writes = new Uint32Array((n + 1) * words);
  const writesP = new Uint8Array(n + 1);
  const allOut = new Uint8Array(n + 1);
  const succ: number[][] = [];
  /** The instructions after a CALL, and the RETs (whose successors include every one of them). */
  const returnSites: number[] = [];
  const rets: number[] = [];
  for (let pc = 0; pc < n; pc++) {
    const op = ops[pc]!;
    const pol = policy(op);
    const base = pc * words;
    const useReg = (r: number) => {
      const s = slotOf(r);
      if (s >= 0) useR[base + (s >>> 5)]! |= 1 << (s & 31);
    };
    const killReg = (r: number) => {
      const s = slotOf(r);
      if (s >= 0) killR[base + (s >>> 5)]! |= 1 << (s & 31);
    };
    const usePred = (p: PredRef | null) => {
      if (p !== null && p.index !== PT) useP[pc]! |= 1 << p.index;
    };
    const killPred = (p: PredRef) => {
      if (p.index !== PT) killP[pc]! |= 1 << p.index;
    };
    const src = (s: Src | null | undefined) => {
      if (s?.kind === 'reg') useReg(s.index);
    };
    const addr = (a: { base: number; wide: boolean }) => {
      useReg(a.base);
      if (a.wide && a.base !== RZ) useReg(a.base + 1);
    };
    usePred(op.guard);
    usePred(op.pred2);
    const always = (p: PredRef | null) => p === null || (p.index === PT && !p.negated);
    const unconditional = always(op.guard) && always(op.pred2);
    const def = (r: number) => {
      const s = slotOf(r);
      if (s >= 0) writes[base + (s >>> 5)]! |= 1 << (s & 31);
      if (unconditional) killReg(r);
    };
    const defPred = (p: PredRef) => {
      if (p.index !== PT) writesP[pc]! |= 1 << p.index;
      if (unconditional) killPred(p);
    };
    if (pol === 'reject') {
      // The run stops here; nothing is read, but be conservative: everything live.
      allOut[pc] = 1;
      succ.push([]);
      continue;
    }
    const next = [pc + 1];
    if (pol === 'nop') {
      // Executed as NOP: reads and writes nothing, every lane goes on to pc+1.
      succ.push(next);
      continue;
    }
    // One exhaustive switch: a new op kind must be classified here before it compiles.
    switch (op.kind) {
      case 'exit':
        succ.push(unconditional ? [] : next);
        break;
      case 'bra':
        succ.push([pc + 1, op.target]);
        break;
      case 'trap':
      case 'bra-external':
        // Participating lanes end the run; the others fall through.
        succ.push(next);
        break;
      case 'brx':
        // A target table bounds where lanes go (a lane whose value leads elsewhere stops the run,
        // `lanes/execute.ts`); without one, everything is live after.
        useReg(op.reg);
        if (op.targets.length > 0 && calls !== 'opaque') succ.push([pc + 1, ...op.targets]);
        else {
          allOut[pc] = 1;
          succ.push([]);
        }
        break;
      case 'ret':
        // To the return sites (filled in below, once every CALL is known), as `mayReach` goes: a
        // RET elsewhere leaves the graph, which the explorer checks on every RET step
        // (`explore/offGraph.ts`) and then searches again without the reductions that read
        // liveness. A guarded RET's other lanes go on to pc + 1.
        useReg(op.reg);
        if (calls === 'opaque') {
          allOut[pc] = 1;
          succ.push([]);
        } else {
          succ.push(unconditional ? [] : next);
          if (calls === 'follow') rets.push(pc);
        }
        break;
      case 'call':
        // Into the callee; its RETs lead back to every return site (context-insensitive, so what
        // one caller still reads is live in the callee for all). pc + 1 for a guarded CALL's
        // other lanes (and harmless otherwise: it is a return site).
        if (calls === 'opaque') {
          allOut[pc] = 1;
          succ.push([]);
        } else succ.push([pc + 1, op.target]);
        returnSites.push(pc + 1);
        break;
      case 'stack-op':
        allOut[pc] = 1;
        succ.push([]);
        break;
      case 'warpsync':
        src(op.mask);
        succ.push(next);
        break;
      case 'bmov-to-barrier':
        src(op.src);
        succ.push(next);
        break;
      case 'mov':
        src(op.src);
        def(op.dst);
        succ.push(next);
        break;
      case 's2r':
        def(op.dst);
        succ.push(next);
        break;
      case 'arith':
        op.mul?.forEach(src);
        op.adds.forEach(src);
        def(op.dst);
        succ.push(next);
        break;
      case 'lop3':
        op.srcs.forEach(src);
        def(op.dst);
        if (op.pdst) defPred(op.pdst);
        succ.push(next);
        break;
      case 'shift':
        src(op.lo);
        src(op.amount);
        src(op.hi);
        def(op.dst);
        succ.push(next);
        break;
      case 'plop3':
        op.srcs.forEach(usePred);
        defPred(op.dst);
        defPred(op.dst2);
        succ.push(next);
        break;
      case 'isetp':
        src(op.a);
        src(op.b);
        usePred(op.c);
        defPred(op.dst);
        defPred(op.dst2);
        succ.push(next);
        break;
      case 'load':
        addr(op.addr);
        def(op.dst);
        succ.push(next);
        break;
      case 'store':
        addr(op.addr);
        src(op.src);
        succ.push(next);
        break;
      case 'atomic':
        addr(op.addr);
        src(op.a);
        src(op.b);
        def(op.dst);
        succ.push(next);
        break;
      case 'vote':
        usePred(op.src);
        def(op.dst);
        defPred(op.pdst);
        succ.push(next);
        break;
      case 'opaque':
        for (const r of op.regs) def(r);
        for (const p of op.preds) defPred({ index: p, negated: false });
        succ.push(next);
        break;
      case 'nop':
      case 'yield':
      case 'call-external':
      case 'bssy':
      case 'bsync':
      case 'break':
      case 'bmov-from-barrier':
        // Read and write no lane value (BMOV from a barrier is written by no lane-level code
        // either; `registerLayout` still gives its Rd a slot).
        succ.push(next);
        break;
      default: {
        const never: never = op;
        throw new Error(`liveness: unclassified op ${JSON.stringify(never)}`);
      }
    }
    // A register both read and written by one op is read first: uses win over kills below.
  }
  succ.push([]);
  for (const pc of rets) succ[pc]!.push(...returnSites);
  // How each op reads under relevance: 0 always (a sink), 1 when it writes something live, 2 a
  // store (when memory is relevant), 3 a load (when it writes something live).
  const reads = new Uint8Array(n + 1);
  for (let pc = 0; pc < n; pc++) {
    const op = ops[pc]!;
    const pol = policy(op);
    if (!relevance || pol === 'reject' || pol === 'nop') continue;
    if (plantUnsound && op.kind === 'bra') reads[pc] = 1;
    switch (op.kind) {
      case 'isetp':
        // Against an operand that may be one unknown value shared by the warp, whether the other
        // operand is known decides whether the step is a choice among stand-ins
        // (`lanes/uniformCompare.ts`), which flags the loop turn for widening — control, even
        // when the predicates it writes are dead: a sink. (Found by a review: a dead write left
        // that operand stale and unknown, and a loop that the plain search widened never was.)
        reads[pc] = mayBeUniformUnknown(op.a) || mayBeUniformUnknown(op.b) ? 0 : 1;
        break;
      case 'mov':
      case 's2r':
      case 'arith':
      case 'lop3':
      case 'shift':
      case 'plop3':
      case 'vote':
      case 'opaque':
        reads[pc] = 1;
        break;
      case 'load':
        reads[pc] = 3;
        break;
      case 'store':
        reads[pc] = 2;
        break;
      default:
        break;
    }
  }
  let memoryRelevant = !relevance || ops.some((op) => op.kind === 'atomic');
  // Backward fixpoint: live_in = use ∪ (live_out − kill); live_out = ∪ live_in(succ) or ALL.
  const regs = new Uint32Array((n + 1) * words);
  const preds = new Uint8Array(n + 1);
  const fullWord = (w: number) => {
    const bits = layout.count - w * 32;
    return bits >= 32 ? 0xffffffff : bits <= 0 ? 0 : ((1 << bits) - 1) >>> 0;
  };
  const out = new Uint32Array(words);
  /** Something op `pc` writes is live after it (`out`, `outP` hold live_out). */
  const writesLive = (pc: number, outP: number): boolean => {
    if ((writesP[pc]! & outP) !== 0) return true;
    for (let w = 0; w < words; w++) if ((writes[pc * words + w]! & out[w]!) !== 0) return true;
    return false;
  };
  const fixpoint = (): void => {
    let changed = true;
    while (changed) {
      changed = false;
      for (let pc = n - 1; pc >= 0; pc--) {
        let outP = 0;
        if (allOut[pc]) {
          for (let w = 0; w < words; w++) out[w] = fullWord(w);
          outP = ALL_PREDS;
        } else {
          out.fill(0);
          for (const t of succ[pc]!) {
            if (t < 0 || t > n) continue;
            for (let w = 0; w < words; w++) out[w]! |= regs[t * words + w]!;
            outP |= preds[t]!;
          }
        }
        const kind = reads[pc]!;
        const used = kind === 0 || (kind === 2 ? memoryRelevant : writesLive(pc, outP));
        for (let w = 0; w < words; w++) {
          const i = pc * words + w;
          const v = ((used ? useR[i]! : 0) | (out[w]! & ~killR[i]!)) >>> 0;
          if (v !== regs[i]) {
            regs[i] = v;
            changed = true;
          }
        }
        const p = (used ? useP[pc]! : 0) | (outP & ~killP[pc]!);
        if (p !== preds[pc]) {
          preds[pc] = p;
          changed = true;
        }
      }
    }
  };
  fixpoint();
  if (!memoryRelevant) {
    // Memory matters once a load's result does (then every store's value and address do).
    for (let pc = 0; pc < n && !memoryRelevant; pc++) {
      if (reads[pc] !== 3) continue;
      out.fill(0);
      let outP = 0;
      for (const t of succ[pc]!) {
        if (t < 0 || t > n) continue;
        for (let w = 0; w < words; w++) out[w]! |= regs[t * words + w]!;
        outP |= preds[t]!;
      }
      if (allOut[pc] || writesLive(pc, outP)) memoryRelevant = true;
    }
    if (memoryRelevant) fixpoint();
  }
  // Control successors: as `succ`, but a CALL goes to its callee and its return site, a RET to
  // every return site, a BRX to its declared targets (unknown ones: anywhere, null).
  const next = (pc: number): readonly number[] | null => {
    const op = ops[pc]!;
    if (policy(op) === 'reject') return [];
    if (op.kind === 'call') return [pc + 1, op.target];
    // A guarded RET's lanes whose guard fails go on to pc + 1. (A RET to a known address that is
    // not a return site leaves this graph: the explorer checks every RET step, `offGraph.ts`.)
    if (op.kind === 'ret')
      return op.guard === null && op.pred2 === null ? returnSites : [...returnSites, pc + 1];
    if (op.kind === 'brx') return op.targets.length > 0 ? [pc + 1, ...op.targets] : null;
    return allOut[pc] ? null : succ[pc]!;
  };
  const mayReach = (
    isTarget: (pc: number) => boolean,
    blocked?: (pc: number) => boolean,
  ): Uint8Array => {
    const out = new Uint8Array(n + 1);
    let any = false;
    for (let pc = 0; pc < n; pc++)
      if (isTarget(pc)) {
        out[pc] = 1;
        any = true;
      }
    if (!any) return out;
    for (let again = true; again;) {
      again = false;
      for (let pc = n - 1; pc >= 0; pc--) {
        if (out[pc] || blocked?.(pc) === true) continue;
        const ts = next(pc);
        let r = ts === null;
        if (ts) for (const t of ts) if (t >= 0 && t <= n && out[t]) r = true;
        if (r) {
          out[pc] = 1;
          again = true;
        }
      }
    }
    return out;
  };
  /** `plantUnsound`: the barrier law's planted bug only — BSYNC does not read its register. */
  const barrierLive = (bssyAssigns: boolean, plantUnsound = false): Uint16Array => {
    // Backward fixpoint: live_in = use ∪ (live_out − kill); unknown successors: all live.
    const use = new Uint16Array(n + 1);
    const kill = new Uint16Array(n + 1);
    for (let pc = 0; pc < n; pc++) {
      const op = ops[pc]!;
      if (policy(op) === 'reject') continue;
      const bit = 'barrier' in op ? 1 << op.barrier : 0;
      if (op.kind === 'bsync') use[pc] = plantUnsound ? 0 : bit;
      else if (op.kind === 'break' || op.kind === 'bmov-from-barrier') use[pc] = bit;
      else if (op.kind === 'bssy') {
        if (bssyAssigns && op.guard === null) kill[pc] = bit;
        else use[pc] = bit;
      } else if (op.kind === 'bmov-to-barrier' && op.guard === null) kill[pc] = bit;
    }
    const out = new Uint16Array(n + 1);
    for (let again = true; again;) {
      again = false;
      for (let pc = n - 1; pc >= 0; pc--) {
        const ts = next(pc);
        let after = 0;
        if (ts === null) after = 0xffff;
        else for (const t of ts) if (t >= 0 && t <= n) after |= out[t]!;
        const v = (use[pc]! | (after & ~kill[pc]!)) & 0xffff;
        if (v !== out[pc]) {
          out[pc] = v;
          again = true;
        }
      }
    }
    return out;
  };
  return { words, regs, preds, mayReach, memoryRelevant, writes, writesP, barrierLive };
}

/**
 * `op`, marked `deadOutputs` when it is an ISETP none of whose predicates is live after it
 * (`Liveness`): a register operand shared by the lanes is then no choice (`lanes/shared.ts`).
 */
export function deadOutputsAt(op: Op, pc: number, live: Liveness): Op {
  if (op.kind !== 'isetp') return op;
  const written =
    (op.dst.index < 7 ? 1 << op.dst.index : 0) | (op.dst2.index < 7 ? 1 << op.dst2.index : 0);
  return (live.preds[pc + 1]! & written) === 0 ? { ...op, deadOutputs: true } : op;
}
