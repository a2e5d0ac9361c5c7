/**
 * Reconvergence points: the immediate post-dominator of an instruction, at instruction level.
 *
 * seed 002 §2.3: "the immediate post dominator is the earliest re-convergence point that can be
 * guaranteed at compile time"; seed 000 §II: the SIMT stack pushes the IPDOM's PC at a divergent
 * branch; SEMANTICS §3.2: computed in the function's CFG with a virtual exit after EXIT and RET.
 */
import { controlOf } from '../isa/control.ts';
import { VIRTUAL_EXIT, type ProgramCfg } from './programCfg.ts';

/**
 * The PC of the immediate post-dominator of the instruction at `pc`, or `VIRTUAL_EXIT` (-1).
 *
 * Inside a block the only successor of an instruction is the next one, so its IPDOM is `pc + 1`;
 * for the last instruction of a block (where every branch sits) it is the first instruction of
 * the block's immediate post-dominator. For an instruction in a block that cannot reach the exit
 * (an infinite loop) the IPDOM is defined as `VIRTUAL_EXIT` (see `buildCfg`).
 *
 * @throws RangeError when `pc` is not an instruction of the program (a programmer error).
 */
export function ipdomOf(cfg: ProgramCfg, pc: number): number {
  const id = cfg.blockOf[pc];
  if (id === undefined || id < 0) throw new RangeError(`ipdomOf: pc ${pc} is not in any function`);
  const block = cfg.blocks[id]!;
  if (!block.reachesExit) return VIRTUAL_EXIT;
  if (pc + 1 < block.end) return pc + 1;
  return block.ipdom === VIRTUAL_EXIT ? VIRTUAL_EXIT : cfg.blocks[block.ipdom]!.start;
}

/**
 * True for the instructions at which lanes may diverge and whose IPDOM a SIMT stack needs:
 * control kind `branch` or `indirect` (conditional or not), and conditional EXIT/KILL.
 * CALL and RET are not branches here (the SIMT stack handles them as frames, SEMANTICS §3.2).
 */
export function isBranchLike(cfg: ProgramCfg, pc: number): boolean {
  const c = controlOf(cfg.program, pc);
  return c.kind === 'branch' || c.kind === 'indirect' || (c.kind === 'exit' && c.conditional);
}

/** `ipdomOf` for every branch-like instruction (`isBranchLike`), keyed by PC in ascending order. */
export function ipdomTable(cfg: ProgramCfg): ReadonlyMap<number, number> {
  const table = new Map<number, number>();
  for (let pc = 0; pc < cfg.program.instructions.length; pc++) {
    if (cfg.blockOf[pc]! >= 0 && isBranchLike(cfg, pc)) table.set(pc, ipdomOf(cfg, pc));
  }
  return table;
}
