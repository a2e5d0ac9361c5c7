import type { Memory } from '../lanes/memory.ts';
import { KeyWriter } from '../machine/key.ts';
import type { Machine, MachineState, WarpState } from '../machine/machine.ts';
import { int32 } from './growable.ts';
import { TupleTable, VectorTable } from './tables.ts';

/**
 * The visited set of `explore` (a stage of its own; DESIGN.md "Performance notes"): a state is a
 * tuple of interned ids — one per warp, one for memory — in a `TupleTable`; warps and memories
 * are interned once as number vectors (`VectorTable`) by their canonical keys (`Machine.warpKey`,
 * `memoryKey`; with the dead-value reduction, exact on every value that can still be read), with
 * the first-seen object as the representative of each id. Each state keeps its breadth-first
 * parent, the choice taken from it and its depth.
 */
export class VisitedStates {
  private readonly warpTable = new VectorTable();
  readonly warpObjs: WarpState[] = [];
  private readonly memTable = new VectorTable();
  readonly memObjs: Memory[] = [];
  private readonly states: TupleTable;
  private readonly kw = new KeyWriter();
  /** The state being built: warp ids 0..K-1, memory id at K. `add` interns it. */
  readonly tuple: Int32Array;
  readonly parent = int32();
  readonly parentChoice = int32();
  readonly depthOf = int32();
  /**
   * Per state: the machine steps from the initial state along the path that first reached it
   * (a chain's steps counted in full); fixed once the state is added. The cycle proviso compares
   * it (`ampleChoice.ts`).
   */
  readonly stepsOf = int32();
  maxDepth = 0;

  constructor(
    private readonly machine: Machine,
    /** The dead-value reduction is on (`Reductions.deadValues` and `Machine.canReduce`). */
    private readonly reduced: boolean,
  ) {
    const K = machine.launch.warps;
    this.states = new TupleTable(K + 1);
    this.tuple = new Int32Array(K + 1);
  }

  get size(): number {
    return this.states.size;
  }

  /** Entry j of state `id`'s tuple (a warp id for j < K, the memory id at K). */
  at(id: number, j: number): number {
    return this.states.at(id, j);
  }

  /** Copies state `id`'s tuple into `out`. */
  copy(id: number, out: Int32Array): void {
    this.states.copy(id, out);
  }

  warpId(ws: WarpState): number {
    const kw = this.kw;
    kw.reset();
    this.machine.warpKey(ws, kw, this.reduced);
    const id = this.warpTable.intern(kw.buf, kw.length);
    if (id === this.warpObjs.length) this.warpObjs.push(ws);
    return id;
  }

  memId(m: Memory): number {
    const kw = this.kw;
    this.memKey(m);
    const id = this.memTable.intern(kw.buf, kw.length);
    if (id === this.memObjs.length) this.memObjs.push(m);
    return id;
  }

  /**
   * Interns `tuple`; records parent, choice, depth (stored levels) and `steps` (machine steps
   * from the initial state along the path that first reached it, chains counted in full) when the
   * state is new.
   */
  add(from: number, choice: number, depth: number, steps: number): number {
    const before = this.states.size;
    const id = this.states.intern(this.tuple);
    if (id === before) {
      this.parent.push(from);
      this.parentChoice.push(choice);
      this.depthOf.push(depth);
      this.stepsOf.push(steps);
      if (depth > this.maxDepth) this.maxDepth = depth;
    }
    return id;
  }

  /** The id of `tuple` if it was reached, else -1 (nothing is added). */
  find(): number {
    return this.states.find(this.tuple);
  }

  /** State `id` as an object, from its warps' and memory's representatives. */
  rebuild(id: number): MachineState {
    const K = this.tuple.length - 1;
    const warps: WarpState[] = new Array(K);
    for (let k = 0; k < K; k++) warps[k] = this.warpObjs[this.states.at(id, k)]!;
    return { warps, memory: this.memObjs[this.states.at(id, K)]! };
  }

  /** `st` is in the class of stored state `id`: its canonical warp and memory keys are id's. */
  readonly inClass = (st: MachineState, id: number): boolean => {
    const K = this.tuple.length - 1;
    for (let k = 0; k < K; k++) {
      this.kw.reset();
      this.machine.warpKey(st.warps[k]!, this.kw, this.reduced);
      if (!this.sameVector(this.warpTable.get(this.states.at(id, k)))) return false;
    }
    this.memKey(st.memory);
    return this.sameVector(this.memTable.get(this.states.at(id, K)));
  };

  /** Memory is keyed unless the reduction knows it cannot influence control. */
  private memKey(m: Memory): void {
    this.kw.reset();
    if (!this.reduced || this.machine.memoryRelevant) this.machine.memoryKey(m, this.kw);
  }

  private sameVector(v: Float64Array): boolean {
    const kw = this.kw;
    if (v.length !== kw.length) return false;
    for (let i = 0; i < v.length; i++) if (v[i] !== kw.buf[i]) return false;
    return true;
  }
}
