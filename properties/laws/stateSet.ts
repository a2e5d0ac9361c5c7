import { VectorTable } from '../../model/explore/tables.ts';
import type { Memory } from '../../model/lanes/memory.ts';
import { KeyWriter } from '../../model/machine/key.ts';
import type { Machine, MachineState } from '../../model/machine/machine.ts';

/**
 * The states a search has met, exactly as `Machine.key` tells them apart (each warp's unreduced
 * `warpKey`, then the memory's key), without building that key as a string per state: a memory is
 * interned once as a number vector and stands in the state's vector as its id, and a memory object
 * met before (most steps leave memory as they found it: memories are persistent) is not keyed again.
 */
export class StateSet {
  private readonly states = new VectorTable();
  private readonly memories = new VectorTable();
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
      mem = this.memories.intern(kw.buf, kw.length);
      this.memIds.set(s.memory, mem);
    }
    kw.reset();
    for (const w of s.warps) this.m.warpKey(w, kw, false);
    kw.push(mem);
    const before = this.states.size;
    return this.states.intern(kw.buf, kw.length) === before;
  }
}
