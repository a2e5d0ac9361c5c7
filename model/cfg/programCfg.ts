/**
 * The control-flow graph of a program as plain readonly data: basic blocks per function, their
 * edges, dominators, post-dominators, loops, and what the analysis could not know.
 *
 * Sources: seed 002 §2.3 ("the immediate post dominator is the earliest re-convergence point that
 * can be guaranteed at compile time"); SEMANTICS §3.2 (IPDOM in the function's CFG with a virtual
 * exit after EXIT and RET); SEMANTICS §2 (an undeclared BRX has an unknown successor set and its
 * IPDOM is the virtual exit).
 */
import type { Program } from '../isa/program.ts';

/**
 * The virtual exit node of every function's CFG: the successor of EXIT, KILL, RET and BPT.TRAP,
 * of a branch leaving its function and of a BRX/JMX with unknown targets. Used both as a block
 * id in `succs`/`ipdom` and as a PC in `ipdomOf` results. Each function has its own virtual exit;
 * no edge crosses functions, so one constant names them all unambiguously.
 */
export const VIRTUAL_EXIT = -1;

/** A CFG edge between blocks of one function; `to` may be `VIRTUAL_EXIT`. */
export interface CfgEdge {
  readonly from: number;
  readonly to: number;
}

/** A CALL with a resolved target: recorded apart from the CFG, where CALL falls through. */
export interface CallEdge {
  /** PC of the CALL. */
  readonly from: number;
  /** PC of the callee entry. */
  readonly to: number;
  /** The callee entry lies in the caller's own function (a subroutine of it, as nvcc emits). */
  readonly sameFunction: boolean;
  /**
   * False when the callee is in the caller's function and no RET is reachable from it: the CFG
   * then wires the CALL as a branch to `to` (see `basicBlocks`). True for other functions.
   */
  readonly returns: boolean;
}

/**
 * A maximal straight-line run of instructions `[start, end)`. Invariants: every instruction but
 * the last has control kind `none`; `start` is a leader; blocks of a function tile its range.
 */
export interface BasicBlock {
  /** Index in `ProgramCfg.blocks`; blocks are numbered in PC order over the whole program. */
  readonly id: number;
  /** Index of the function in `program.functions`. */
  readonly fn: number;
  readonly start: number;
  /** One past the last instruction. */
  readonly end: number;
  /**
   * Successor block ids, without duplicates: taken targets first (in operand order), then the
   * fall-through. `VIRTUAL_EXIT` for the virtual exit.
   */
  readonly succs: readonly number[];
  /** Predecessor block ids, ascending. The virtual entry (see `FunctionCfg.roots`) is not listed. */
  readonly preds: readonly number[];
  /** Ends in a BRX/JMX (or a JMP to a symbol) whose targets are unknown; `succs` has VIRTUAL_EXIT. */
  readonly unknownSuccessors: boolean;
  /** Reachable from one of the function's roots (its entry or an in-function CALL target). */
  readonly reachable: boolean;
  /** Some path leads from this block to the virtual exit. */
  readonly reachesExit: boolean;
  /**
   * Immediate dominator (block id), or null for a root, for a block dominated only by the virtual
   * entry (reachable from two roots), and for an unreachable block.
   */
  readonly idom: number | null;
  /**
   * Immediate post-dominator (block id), or `VIRTUAL_EXIT`. Defined as `VIRTUAL_EXIT` when the
   * block cannot reach the exit (`reachesExit` false): it then has no post-dominator path at all.
   */
  readonly ipdom: number;
}

/** A natural loop (dominator-based): the union of the natural loops of all back edges to `header`. */
export interface NaturalLoop {
  readonly irreducible: false;
  /** The header block; it dominates every block of the body. */
  readonly header: number;
  /** Sources of the back edges `latch → header`, ascending. */
  readonly latches: readonly number[];
  /** Block ids of the loop, ascending, header included. */
  readonly body: readonly number[];
  /** Edges from the body to outside it (to may be `VIRTUAL_EXIT`), in block order. */
  readonly exits: readonly CfgEdge[];
  /** Index in `FunctionCfg.loops` of the innermost enclosing natural loop, or null. */
  readonly parent: number | null;
}

/** A cycle with more than one entry: no block of it dominates the others, so no natural loop. */
export interface IrreducibleCycle {
  readonly irreducible: true;
  /** Blocks of the cycle with a predecessor outside it (or that are roots), ascending. */
  readonly entries: readonly number[];
  /** Block ids of the strongly connected region, ascending. */
  readonly body: readonly number[];
  readonly exits: readonly CfgEdge[];
}

/** The CFG of one function of the program. */
export interface FunctionCfg {
  /** Index in `program.functions`. */
  readonly index: number;
  readonly name: string;
  readonly start: number;
  readonly end: number;
  /** Block ids in PC order; the first is the entry. Empty only for an empty function. */
  readonly blocks: readonly number[];
  /** The block at `start`, or null for an empty function. */
  readonly entry: number | null;
  /**
   * Dominator roots: the entry, then the blocks that in-function CALLs target (subroutines that
   * nvcc places inside the caller's function), except targets that never return (wired as
   * branches instead). All hang off one virtual entry.
   */
  readonly roots: readonly number[];
  /** Blocks with an edge to the virtual exit, ascending. */
  readonly exitPreds: readonly number[];
  /** Natural loops in order of header PC. */
  readonly loops: readonly NaturalLoop[];
  /** Irreducible cycles, outermost first. */
  readonly irreducibleCycles: readonly IrreducibleCycle[];
  /** Some block has unknown successors: reachability and dominators are then a lower bound. */
  readonly unknownSuccessors: boolean;
}

/** The whole program's CFG: what `buildCfg` returns. */
export interface ProgramCfg {
  readonly program: Program;
  /** Every block of every function, in PC order; `blocks[i].id === i`. */
  readonly blocks: readonly BasicBlock[];
  /** One entry per `program.functions` entry, same order. */
  readonly functions: readonly FunctionCfg[];
  /** `blockOf[pc]` is the id of the block holding `pc` (-1 only for a PC outside every function). */
  readonly blockOf: readonly number[];
  /** CALL edges with resolved targets, in PC order. */
  readonly calls: readonly CallEdge[];
  /** Problems in the program that the CFG had to paper over, each naming its PC. */
  readonly warnings: readonly string[];
  /** Choices the analysis made that a reader of its results should know (infinite loops, …). */
  readonly notes: readonly string[];
}
