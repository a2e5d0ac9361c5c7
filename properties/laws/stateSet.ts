import type { Memory } from '../../model/lanes/memory.ts';
import { KeyWriter } from '../../model/machine/key.ts';
import type { Machine, MachineState } from '../../model/machine/machine.ts';

/**
 * The states a search has met, exactly as `Machine.key` tells them apart (each warp's unreduced
 * `warpKey`, then the memory's key), with the memory's part replaced by an id: a memory is keyed
 * once and interned, and a memory object met before (most steps leave memory as they found it:
 * memories are persistent) is not keyed again. Keys are `KeyWriter.finish` strings — exact, and one
 * UTF-16 unit for a small number, four times smaller than a `Float64Array` copy: on this machine a
 * page of fresh memory costs tens of µs to touch, so the smaller key is the faster one at W = 32.
 */
export class StateSet {
  private readonly states = new Set<string>();
  private readonly memories = new Map<string, number>();
  private readonly memIds = new WeakMap<Memory, number>();
  private readonly kw = new KeyWriter();

  constructor(private readonly m: Machine) {}

  /** Adds `s`; false when an equal state was added before. */
  add(s: MachineState): boolean {
    const kw = this.kw;
    let mem = this.memIds.get(s.memory);
    if (mem === undefined) {
      kw.reset();
      this.m.memoryKey(s.memory, kw);
      const k = kw.finish();
      mem = this.memories.get(k);
      if (mem === undefined) this.memories.set(k, (mem = this.memories.size));
      this.memIds.set(s.memory, mem);
    }
    kw.reset();
    for (const w of s.warps) this.m.warpKey(w, kw, false);
    kw.push(mem);
    const k = kw.finish();
    if (this.states.has(k)) return false;
    this.states.add(k);
    return true;
  }
}
