/**
 * What the kernel generators (`structured.ts`, `unstructured.ts`) hand to the laws: a listing with
 * its `// @warpcheck` launch header, its block shape, and the classes of control flow it contains,
 * so that a law can declare its expected failures per mechanism and class (issue 4, item 3).
 */
import fc from 'fast-check';
import type { Machine, MachineState } from '../../model/machine/machine.ts';

/**
 * A class of control flow or synchronisation present in a generated kernel. Classes are computed
 * from what the renderer actually emitted, never from what the generator merely asked for.
 *
 * | class | the kernel contains |
 * | --- | --- |
 * | `spin` | a spin loop whose exit needs another lane to make progress (spinlock of seed 000 Fig. 3, ticket lock, flag wait) and that two or more lanes of one warp may reach: the shape on which mechanisms without a way to switch paths before reconvergence may livelock (seed 000 §III) |
 * | `lock-in-if` | the Barnes-Hut shape (`../shared/sass/linuohai-accel-sim__ls_bh_v2_TreeBuildingKernel_excerpt.sm80.sass`): `while (!done) if (CAS(lock) == 0) { critical; release; done = 1; }` — busy waiting that releases before the if's reconvergence point, so it terminates on the SIMT stack too |
 * | `syncwarp` | a WARPSYNC |
 * | `partial-syncwarp` | a WARPSYNC whose mask names fewer than all lanes of the warp |
 * | `split-syncwarp` | lanes that wait with one mask at two different WARPSYNC instructions (both sides of a divergent if end in `__syncwarp()`), released together, each after its own (SEMANTICS §2): Hanoi departs here (`scenarios/hanoi-departs-warpsync.sass`) |
 * | `ill-formed-syncwarp` | a WARPSYNC that breaks SEMANTICS §2 on purpose (a lane not named in its own mask); only when asked for |
 * | `call` | a CALL/RET pair (return address in a register, seed 000 §V-D) |
 * | `recursion` | a function that calls itself |
 * | `switch` | a BRX with declared `BRANCH_TARGETS` |
 * | `loop` | a cycle in the CFG |
 * | `break` / `continue` | a loop left early / a loop iteration cut short |
 * | `early-exit` | an EXIT (or an early RET from a function) before the end of the code |
 * | `atomics` | an atomic instruction |
 * | `memory-race` | a plain load and store of one word by different threads without synchronisation |
 * | `irreducible` | a cycle with two or more entries |
 * | `multi-warp` | more than one warp in the block |
 * | `loop-escape` | a break or continue inside an if or switch (P9 ballot programs, issue 11) |
 * | `exit-escape` | a return inside an if, switch or loop (P9 ballot programs, issue 11) |
 */
export type KernelClass =
  | 'spin'
  | 'lock-in-if'
  | 'syncwarp'
  | 'partial-syncwarp'
  | 'split-syncwarp'
  | 'ill-formed-syncwarp'
  | 'call'
  | 'recursion'
  | 'switch'
  | 'loop'
  | 'break'
  | 'continue'
  | 'early-exit'
  | 'atomics'
  | 'memory-race'
  | 'irreducible'
  | 'multi-warp'
  | 'loop-escape'
  | 'exit-escape';

/** Every class of the kernel generators, in a fixed order (for reports and distributions). */
export const KERNEL_CLASSES: readonly KernelClass[] = [
  'spin',
  'lock-in-if',
  'syncwarp',
  'partial-syncwarp',
  'split-syncwarp',
  'ill-formed-syncwarp',
  'call',
  'recursion',
  'switch',
  'loop',
  'break',
  'continue',
  'early-exit',
  'atomics',
  'memory-race',
  'irreducible',
  'multi-warp',
  // `loop-escape` and `exit-escape` are the P9 ballot programs' (properties/reconvergence/),
  // which the kernel generators here never produce.
];

/** A generated kernel, ready for `machineOf(text, mechanism)`. */
export interface GeneratedKernel {
  /** A SASS listing whose first line is a `// @warpcheck` header (model/scenario/header.ts). */
  readonly text: string;
  readonly warpSize: number;
  readonly warps: number;
  readonly classes: ReadonlySet<KernelClass>;
  /** The generator's own tree, for debugging a counterexample. */
  readonly ast: unknown;
}

/** Number of instructions in a listing (lines that are neither labels, headers nor comments). */
export function instructionCount(text: string): number {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.endsWith(';')).length;
}

/**
 * A schedule: choice indices into `Machine.successors`, taken modulo the number of successors when
 * replayed. Shrinks towards shorter schedules of zeros.
 */
export const scheduleArbitrary = (maxLength = 64): fc.Arbitrary<readonly number[]> =>
  fc.array(fc.nat(7), { maxLength });

/** Where a single run ended: every lane exited, nothing could issue, a step stopped it, or it ran too long. */
export type RunEnd = 'terminated' | 'blocked' | 'stopped' | 'too-long';

/**
 * Runs one schedule to its end: in every state, `choose(n, step)` picks one of the `n` successors.
 * Returns each thread's trace — the PCs it was issued at, in order (thread id = warp · W + lane) —
 * and how the run ended. Per-lane traces of a deterministic kernel do not depend on `choose`.
 */
export function laneTraces(
  machine: Machine,
  choose: (n: number, step: number) => number,
  maxSteps = 20_000,
): { traces: number[][]; end: RunEnd; state: MachineState } {
  const W = machine.launch.warpSize;
  const traces: number[][] = Array.from({ length: W * machine.launch.warps }, () => []);
  let s = machine.initial();
  for (let step = 0; step < maxSteps; step++) {
    const succ = machine.successors(s);
    if (succ.length === 0)
      return {
        traces,
        end: machine.status(s) === 'terminated' ? 'terminated' : 'blocked',
        state: s,
      };
    const t = succ[choose(succ.length, step) % succ.length]!;
    for (const { pc, mask } of t.issue.merged ? [t.issue, t.issue.merged] : [t.issue])
      for (let l = 0; l < W; l++) if ((mask >>> l) & 1) traces[t.warp * W + l]!.push(pc);
    if (!t.next) return { traces, end: 'stopped', state: s };
    s = t.next;
  }
  return { traces, end: 'too-long', state: s };
}
