/**
 * `buildCfg`: blocks, dominators, post-dominators and loops of every function of a program.
 *
 * Each function is analysed on a local graph: its blocks (in PC order), then a virtual exit (the
 * successor of EXIT/KILL/RET/BPT.TRAP, SEMANTICS §3.2), then a virtual entry whose successors are
 * the function's roots. Dominators are computed from the virtual entry, post-dominators on the
 * reverse graph from the virtual exit (Cooper–Harvey–Kennedy, `dominators.ts`).
 *
 * Decisions, each also stated in `ProgramCfg.notes` when it applies:
 * - Roots: the function's entry and every in-function CALL target that returns (nvcc puts
 *   subroutines such as the slow path of a division inside the caller's function and reaches
 *   them only by CALL; they would otherwise look unreachable and get no dominators or loops).
 *   A block that no root reaches is kept and marked `reachable: false`.
 * - Post-dominance follows the textbook definition over paths to the exit (seed 002 §2.3: "every
 *   path from a to the end of the program has to go through b"): a path that never reaches the
 *   exit imposes nothing. A block that cannot reach the exit at all (the padding `BRA self` after
 *   the last EXIT, a `while(true)` spin) has no post-dominator path; its IPDOM is *defined* as the
 *   virtual exit and it is marked `reachesExit: false`.
 * - A CALL whose in-function callee can reach no RET never returns: it is a branch to the callee
 *   (see `basicBlocks`), and the callee is not a root.
 * - Unknown successors (BRX/JMX without declared targets) are an edge to the virtual exit. The
 *   post-dominators computed are then a subset of the true ones (sound: every reported
 *   post-dominator is one), while reachability and dominators are only a lower bound: the jump
 *   table's targets look unreachable.
 */
import { basicBlocks, describePc } from './basicBlocks.ts';
import { dominatorTree, immediateDominators, reversed, type LocalGraph } from './dominators.ts';
import { findLoops } from './loops.ts';
import type { Program } from '../isa/program.ts';
import { VIRTUAL_EXIT, type BasicBlock, type FunctionCfg, type ProgramCfg } from './programCfg.ts';

/** Builds the CFG of every function of `program` and analyses it. Never throws on valid input. */
export function buildCfg(program: Program): ProgramCfg {
  const graph = basicBlocks(program);
  const blocks: BasicBlock[] = graph.blocks.map((b) => ({
    ...b,
    reachable: false,
    reachesExit: false,
    idom: null,
    ipdom: VIRTUAL_EXIT,
  }));
  const notes: string[] = [...graph.notes];
  const functions: FunctionCfg[] = graph.functions.map((raw) => {
    const fn = program.functions[raw.index]!;
    const ids = raw.blocks;
    const k = ids.length;
    const exitNode = k;
    const entryNode = k + 1;
    const local = new Map<number, number>(ids.map((id, i) => [id, i]));
    const toLocal = (id: number): number => (id === VIRTUAL_EXIT ? exitNode : local.get(id)!);
    const succs: number[][] = ids.map((id) => graph.blocks[id]!.succs.map(toLocal));
    succs.push([], raw.roots.map(toLocal));
    const preds: number[][] = succs.map(() => []);
    succs.forEach((out, v) => out.forEach((w) => preds[w]!.push(v)));
    const g: LocalGraph = { size: k + 2, succs, preds };

    const idom = immediateDominators(g, entryNode);
    const ipdom = immediateDominators(reversed(g), exitNode);
    const reachable = (v: number): boolean => idom[v] !== -1;
    const stuck: number[] = [];
    ids.forEach((id, v) => {
      const d = idom[v]!;
      const pd = ipdom[v]!;
      blocks[id] = {
        ...blocks[id]!,
        reachable: reachable(v),
        reachesExit: pd !== -1,
        idom: d === -1 || d === entryNode ? null : ids[d]!,
        // No post-dominator path (pd === -1): IPDOM defined as the virtual exit (see above).
        ipdom: pd === -1 || pd === exitNode ? VIRTUAL_EXIT : ids[pd]!,
      };
      if (pd === -1) stuck.push(id);
    });
    if (stuck.length > 0) {
      const where = stuck.map((id) => describePc(program, fn, blocks[id]!.start)).join(', ');
      notes.push(
        `${fn.name}: blocks at ${where} cannot reach the exit (infinite loop or padding); their IPDOM is defined as the virtual exit`,
      );
    }
    if (raw.unknownSuccessors) {
      notes.push(
        `${fn.name}: some indirect jump has unknown targets; post-dominators are conservative and reachability/dominators are a lower bound`,
      );
    }
    const { loops, irreducibleCycles } = findLoops({
      graph: g,
      blockIds: ids,
      exitNode,
      entryNode,
      dom: dominatorTree(idom, entryNode),
      reachable,
    });
    return {
      index: raw.index,
      name: fn.name,
      start: fn.start,
      end: fn.end,
      blocks: ids,
      entry: k > 0 ? ids[0]! : null,
      roots: raw.roots,
      exitPreds: raw.exitPreds,
      loops,
      irreducibleCycles,
      unknownSuccessors: raw.unknownSuccessors,
    };
  });
  return {
    program,
    blocks,
    functions,
    blockOf: graph.blockOf,
    calls: graph.calls,
    warnings: [
      ...graph.warnings,
      ...graph.fallOffs.filter((f) => blocks[f.block]!.reachable).map((f) => f.warning),
    ],
    notes,
  };
}
