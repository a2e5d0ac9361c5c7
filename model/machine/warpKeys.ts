import { emptyMemory, writeMemoryKey, type Memory } from '../lanes/memory.ts';
import { KeyWriter, type KeySink } from './key.ts';
import type { MachineSetup } from './machineSetup.ts';
import type { MachineState, WarpState } from './machineTypes.ts';

/** Writes a warp into a key sink; `reduced` leaves out dead values (`liveness.ts`). */
export type WarpWriter = (ws: WarpState, out: KeySink, reduced: boolean) => void;

/**
 * Stage 2 of `createMachine`: the writer of a warp's canonical numbers — the mechanism, the
 * reference, then the lanes' data. With `reduced` (only when the mechanism reports its lanes'
 * PCs), values no lane may still read are left out (`liveness.ts`, relevance): equal reduced
 * keys mean bisimilar warps. Lane symmetry canonicalises what this writes (`laneSymmetry.ts`).
 */
export function warpWriter(setup: MachineSetup): WarpWriter {
  const { mech, refMech, nSlots, W, n, canReduce, symmetric } = setup;
  const live = setup.live;
  const keyLoops = setup.spec.keyLoopVisits === true;
  /** Per PC: the B registers a lane there may still read (`Liveness.barrierLive`). */
  const barrierLive = live
    ? live.barrierLive(
        setup.spec.options['bssy'] !== 'or',
        setup.spec.plantUnsoundBarriers ?? false,
      )
    : null;
  /** The B registers some lane may still read (filled by `visitLive`). */
  let liveBarriers = 0;
  /** Per register slot / predicate: the lanes for which it is live (filled by `visitLive`). */
  const slotLanes = new Int32Array(Math.max(1, nSlots));
  const predLanes = new Int32Array(7);
  const visitLive = (pc: number, mask: number): void => {
    if (!(pc >= 0 && pc < n)) return; // the virtual exit, or past the end: nothing is read
    const lv = live!;
    const words = lv.words;
    for (let w = 0; w < words; w++) {
      let bits = lv.regs[pc * words + w]!;
      while (bits !== 0) {
        const b = 31 - Math.clz32(bits & -bits);
        bits &= bits - 1;
        slotLanes[w * 32 + b]! |= mask;
      }
    }
    liveBarriers |= barrierLive![pc]!;
    let p = lv.preds[pc]!;
    while (p !== 0) {
      const b = 31 - Math.clz32(p & -p);
      p &= p - 1;
      predLanes[b]! |= mask;
    }
  };

  /**
   * The program has LDL/STL: every lane's local memory is part of the key — always, not pruned by
   * liveness (which does not follow memory) — as that lane's own values, so lane symmetry moves
   * it with its lane. Programs without them write nothing for it.
   */
  const hasLocal = setup.spec.ops.some(
    (op) => (op.kind === 'load' || op.kind === 'store') && op.local === true,
  );
  const laneSink = {
    lane: 0,
    out: null as KeySink | null,
    push(v: number): void {
      this.out!.lane(this.lane, v);
    },
  };

  return (ws: WarpState, out: KeySink, reduced: boolean): void => {
    const reduce = reduced && canReduce;
    if (reduce) {
      // One pass over the lanes' PCs: the registers, predicates and B registers still live.
      slotLanes.fill(0);
      predLanes.fill(0);
      liveBarriers = 0;
      mech.lanePcs!(ws.mech, visitLive);
      // Barrier registers no lane may read before they are assigned again are keyed empty.
      if (refMech && ws.ref) {
        // Lanes `hanoi` counts in at its top BSYNC: only those the reference holds waiting
        // there too, keyed as standing ready in both (`Mechanism.arrivalPc`, `hanoiRuns.ts`).
        const pc = mech.arrivalPc ? mech.arrivalPc(ws.mech) : -1;
        const arrived =
          pc >= 0 && refMech.waitingAt
            ? (mech.waitingLanes!(ws.mech) & refMech.waitingAt(ws.ref, pc)) >>> 0
            : 0;
        mech.key(ws.mech, out, liveBarriers, arrived);
        refMech.key(ws.ref, out, liveBarriers, arrived);
      } else mech.key(ws.mech, out, liveBarriers);
    } else {
      mech.key(ws.mech, out);
      if (refMech && ws.ref) refMech.key(ws.ref, out);
    }
    const d = ws.data;
    out.mask(d.exited);
    const calls = d.calls;
    for (let l = 0; l < calls.length; l++) {
      const c = calls[l]!;
      out.lane(l, c.length);
      for (let i = 0; i < c.length; i++) out.lane(l, c[i]!);
    }
    if (hasLocal) {
      laneSink.out = out;
      for (let l = 0; l < W; l++) {
        laneSink.lane = l;
        writeMemoryKey(d.local?.[l] ?? emptyMemory, laneSink);
      }
    }
    // Loop visits are bookkeeping, not data (`widening.ts`): two states with the same data stand
    // for the same concrete states, so the reduced key leaves them out (docs/semantics.md §13
    // "Loop visits"), unless the machine keys them (`MachineSpec.keyLoopVisits`). The exact key
    // keeps them.
    if (ws.loops && (!reduced || keyLoops)) {
      for (let l = 0; l < W; l++) out.lane(l, ws.loops.counts[l]!);
      out.mask(ws.loops.flagged);
    }
    if (symmetric) out.mask(ws.anonymous ?? 0);
    const regs = d.regs;
    if (reduce) {
      // Only values some lane may still read (liveness.ts, filled above); which ones is a
      // function of the mechanism state and `exited`. Both are written above — up to `hanoi`'s
      // arrival runs, which key a waiting lane like one about to arrive at the same BSYNC: such
      // a lane's live set can only be smaller (a waiting lane resumes at reconvergence PCs only),
      // so two states keyed alike up to there write equally long lists only when they agree.
      // (Within one warp; the key is per warp.)
      const liveLanes = ~d.exited;
      for (let sl = 0; sl < nSlots; sl++) {
        let m = slotLanes[sl]! & liveLanes;
        const col = regs[sl]!;
        while (m !== 0) {
          const l = 31 - Math.clz32(m & -m);
          m &= m - 1;
          out.lane(l, col[l]!);
        }
      }
      for (let p = 0; p < 7; p++) {
        const m = predLanes[p]! & liveLanes;
        out.mask((d.preds[p]! & m) >>> 0);
        out.mask((d.predsUnknown[p]! & m) >>> 0);
      }
      return;
    }
    for (let l = 0; l < W; l++) for (let sl = 0; sl < nSlots; sl++) out.lane(l, regs[sl]![l]!);
    for (let p = 0; p < 7; p++) {
      out.mask(d.preds[p]!);
      out.mask(d.predsUnknown[p]!);
    }
  };
}

/** A state's keys (`Machine.key`, `Machine.behaviourKey`) and the memory's part of them. */
export interface StateKeys {
  key(s: MachineState): string;
  behaviourKey(s: MachineState): string;
  memoryKey(m: Memory, out: KeyWriter): void;
}

/**
 * Stage 4 of `createMachine`: whole-state keys from the warps' (`warpKey`, canonical under lane
 * symmetry) and the memory's. The behaviour key leaves memory out when the relevance analysis
 * shows it cannot influence control (`Liveness.memoryRelevant`).
 */
export function stateKeys(
  setup: MachineSetup,
  writeWarp: WarpWriter,
  warpKey: (ws: WarpState, out: KeyWriter, reduced: boolean) => void,
): StateKeys {
  const { canReduce, live } = setup;
  const keyWriter = new KeyWriter();
  const memoryKey = (m: Memory, out: KeyWriter): void => writeMemoryKey(m, out);
  return {
    memoryKey,
    key(s) {
      keyWriter.reset();
      for (const w of s.warps) warpKey(w, keyWriter, false);
      memoryKey(s.memory, keyWriter);
      return keyWriter.finish();
    },
    behaviourKey(s) {
      keyWriter.reset();
      for (const w of s.warps) writeWarp(w, keyWriter, canReduce);
      if (!canReduce || live!.memoryRelevant) memoryKey(s.memory, keyWriter);
      return keyWriter.finish();
    },
  };
}

/**
 * `Machine.liveBarriers`: the B registers some lane of a warp may still read — `barrierLive` at
 * each lane's PC (`Mechanism.lanePcs`, where a waiting lane resumes), as the reduced key computes
 * them (the mechanism's key adds those its lanes wait on, as this does through `laneContext`'s
 * users); all sixteen without liveness.
 */
export function barrierLiveness(setup: MachineSetup): (ws: WarpState) => number {
  const { mech, n, canReduce } = setup;
  const live = setup.live;
  if (!live || !canReduce || !mech.lanePcs) return () => 0xffff;
  const barrierLive = live.barrierLive(
    setup.spec.options['bssy'] !== 'or',
    setup.spec.plantUnsoundBarriers ?? false,
  );
  let acc = 0;
  const visit = (pc: number): void => {
    if (pc >= 0 && pc < n) acc |= barrierLive[pc]!;
  };
  return (ws: WarpState): number => {
    acc = 0;
    mech.lanePcs!(ws.mech, visit);
    return acc;
  };
}
