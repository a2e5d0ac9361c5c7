import type { Op } from '../isa/op.ts';
import type { ExecContext } from '../lanes/execContext.ts';
import type { LaneData } from '../lanes/laneData.ts';
import { emptyMemory, writeMemoryKey } from '../lanes/memory.ts';
import type { BlockMechanism } from '../mechanisms/blockMechanism.ts';
import type { ThreadMask } from '../mechanisms/threadMask.ts';
import type { BlockWarp } from './blockMachine.ts';
import type { KeySink } from './key.ts';
import type { Liveness } from './liveness.ts';
import type { WarpState } from './machineTypes.ts';

/**
 * The block machine's warp key (`blockMachine.ts`; `Machine.warpKey`): the block mechanism's
 * state, then each home warp's lanes as `warpKeys.ts` writes a warp's — exact, or with
 * `reduced` only the values some thread may still read (`live`, relevance).
 */
export function blockWarpKey(
  ops: readonly Op[],
  ctx: ExecContext,
  bm: BlockMechanism<unknown>,
  live: Liveness,
): (ws: WarpState, out: KeySink, reduced: boolean) => void {
  const K = ctx.warps;
  const W = ctx.warpSize;
  const n = ops.length;
  const hasLocal = ops.some(
    (op) => (op.kind === 'load' || op.kind === 'store') && op.local === true,
  );
  /**
   * The dead-value reduction (`liveness.ts`, relevance; as `warpKeys.ts` does per warp): only the
   * registers and predicates some thread may still read from the PCs the mechanism reports for
   * it (`BlockMechanism.lanePcs`, the same contract per thread as `Mechanism.lanePcs`), per home
   * warp. Block mechanisms own no B registers, so there is nothing else to reduce.
   */
  const nSlots = ctx.layout.count;
  /** slotLanes[k * nSlots + slot]: home warp k's lanes for which the slot is live. */
  const slotLanes = new Int32Array(Math.max(1, K * nSlots));
  const predLanes = new Int32Array(K * 7);
  const visitLive = (pc: number, threads: ThreadMask): void => {
    if (!(pc >= 0 && pc < n)) return; // the virtual exit: nothing is read
    for (let w = 0; w < live.words; w++) {
      let bits = live.regs[pc * live.words + w]!;
      while (bits !== 0) {
        const slot = w * 32 + 31 - Math.clz32(bits & -bits);
        bits &= bits - 1;
        for (let k = 0; k < K; k++) slotLanes[k * nSlots + slot]! |= threads[k]!;
      }
    }
    let p = live.preds[pc]!;
    while (p !== 0) {
      const b = 31 - Math.clz32(p & -p);
      p &= p - 1;
      for (let k = 0; k < K; k++) predLanes[k * 7 + b]! |= threads[k]!;
    }
  };
  /** One home warp's lanes into a key (as `warpKeys.ts` writes a warp's). */
  const localSink = {
    out: null as KeySink | null,
    push(v: number) {
      this.out!.push(v);
    },
  };
  /** Home warp `k`'s lanes, reduced (`k` ≥ 0, after `visitLive`) or exact (`k` = -1). */
  const writeHome = (d: LaneData, out: KeySink, k: number): void => {
    out.push(d.exited);
    for (let l = 0; l < W; l++) {
      const c = d.calls[l]!;
      out.push(c.length);
      for (let i = 0; i < c.length; i++) out.push(c[i]!);
    }
    if (hasLocal) {
      localSink.out = out;
      for (let l = 0; l < W; l++) writeMemoryKey(d.local?.[l] ?? emptyMemory, localSink);
    }
    if (k >= 0) {
      // Reduced: only values live for some thread (filled by `visitLive`); which ones is a
      // function of the mechanism state and `exited`, both written, so the key stays exact on
      // every value that can still be read.
      const liveLanes = ~d.exited;
      for (let sl = 0; sl < nSlots; sl++) {
        let m = slotLanes[k * nSlots + sl]! & liveLanes;
        const col = d.regs[sl]!;
        while (m !== 0) {
          const l = 31 - Math.clz32(m & -m);
          m &= m - 1;
          out.push(col[l]!);
        }
      }
      for (let p = 0; p < 7; p++) {
        const m = predLanes[k * 7 + p]! & liveLanes;
        out.push((d.preds[p]! & m) >>> 0);
        out.push((d.predsUnknown[p]! & m) >>> 0);
      }
      return;
    }
    for (let l = 0; l < W; l++) for (const col of d.regs) out.push(col[l]!);
    for (let p = 0; p < 7; p++) {
      out.push(d.preds[p]!);
      out.push(d.predsUnknown[p]!);
    }
  };
  const warpKey = (ws: WarpState, out: KeySink, reduced: boolean): void => {
    const b = ws.mech as BlockWarp;
    bm.key(b.block, out);
    if (reduced) {
      slotLanes.fill(0);
      predLanes.fill(0);
      bm.lanePcs(b.block, visitLive);
    }
    for (let k = 0; k < K; k++) writeHome(b.homes[k]!, out, reduced ? k : -1);
  };
  return warpKey;
}
