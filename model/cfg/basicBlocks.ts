/**
 * Basic blocks and their edges, before any analysis. One pass finds the leaders, one cuts the
 * blocks, one wires the edges from `controlOf` (the static control behaviour, SEMANTICS §2).
 */
import { match } from 'ts-pattern';
import { controlOf } from '../isa/control.ts';
import type { FunctionInfo, Program } from '../isa/program.ts';
import { VIRTUAL_EXIT, type CallEdge } from './programCfg.ts';

/** A block with its edges but no analysis results yet. */
export interface RawBlock {
  readonly id: number;
  readonly fn: number;
  readonly start: number;
  readonly end: number;
  readonly succs: readonly number[];
  readonly preds: readonly number[];
  readonly unknownSuccessors: boolean;
}

/** The blocks of one function and its roots (entry, then in-function CALL targets). */
export interface RawFunction {
  readonly index: number;
  readonly blocks: readonly number[];
  readonly roots: readonly number[];
  readonly exitPreds: readonly number[];
  readonly unknownSuccessors: boolean;
}

/** What `basicBlocks` returns: the block graph of every function. */
export interface BlockGraph {
  readonly blocks: readonly RawBlock[];
  readonly functions: readonly RawFunction[];
  readonly blockOf: readonly number[];
  readonly calls: readonly CallEdge[];
  readonly warnings: readonly string[];
  /**
   * Blocks that fall through past their function's end (an edge to the virtual exit), with the
   * warning to give if the block is reachable: the NOPs after every function's padding loop do
   * this in every real listing, harmlessly.
   */
  readonly fallOffs: readonly { readonly block: number; readonly warning: string }[];
}

/** `name+0x0040 (pc 4)`: how warnings and notes name an instruction. */
export function describePc(program: Program, fn: FunctionInfo, pc: number): string {
  const offset = program.instructions[pc]?.offset ?? 0;
  return `${fn.name}+0x${offset.toString(16).padStart(4, '0')} (pc ${pc})`;
}

/**
 * Cuts every function of `program` into basic blocks and connects them.
 *
 * Leaders: the function start, every direct or declared target inside the function (CALL targets
 * included: they start subroutines), and the instruction after any control transfer, conditional
 * or not (CALL included). A block ends at the first instruction whose control kind is not `none`.
 *
 * Edges: fall-through to pc+1; branch and declared indirect targets; CALL falls through (its
 * target goes to `calls`); EXIT/KILL/RET/BPT.TRAP go to the virtual exit, and fall through as well
 * when conditional. A target outside the function, a fall-through past the function's end and a
 * BRX/JMX with unknown targets become edges to the virtual exit, each with a warning (for a
 * fall-through, only if the block turns out reachable: see `fallOffs`).
 */
export function basicBlocks(program: Program): BlockGraph {
  const n = program.instructions.length;
  const blockOf: number[] = new Array<number>(n).fill(-1);
  const blocks: { id: number; fn: number; start: number; end: number }[] = [];
  const warnings: string[] = [];
  const fallOffs: { block: number; warning: string }[] = [];
  const calls: CallEdge[] = [];
  const fnBlocks: number[][] = [];
  const fnRoots: number[][] = [];

  program.functions.forEach((fn, fi) => {
    const mine: number[] = [];
    fnBlocks.push(mine);
    const callTargets: number[] = [];
    if (fn.end <= fn.start) {
      warnings.push(`function ${fn.name} (pc ${fn.start}) is empty: no blocks`);
      fnRoots.push([]);
      return;
    }
    const leader = new Uint8Array(fn.end - fn.start);
    leader[0] = 1;
    const inFn = (t: number): boolean => t >= fn.start && t < fn.end;
    for (let pc = fn.start; pc < fn.end; pc++) {
      const c = controlOf(program, pc);
      if (c.kind === 'none') continue;
      if (pc + 1 < fn.end) leader[pc + 1 - fn.start] = 1;
      for (const t of c.targets) if (inFn(t)) leader[t - fn.start] = 1;
      if (c.kind === 'call') {
        for (const t of c.targets) {
          calls.push({ from: pc, to: t, sameFunction: inFn(t) });
          if (inFn(t)) callTargets.push(t);
        }
      }
    }
    for (let pc = fn.start; pc < fn.end; pc++) {
      if (leader[pc - fn.start]) {
        const id = blocks.length;
        blocks.push({ id, fn: fi, start: pc, end: pc + 1 });
        mine.push(id);
      } else blocks[blocks.length - 1]!.end = pc + 1;
      blockOf[pc] = blocks.length - 1;
    }
    const roots = [blockOf[fn.start]!];
    for (const t of callTargets) if (!roots.includes(blockOf[t]!)) roots.push(blockOf[t]!);
    fnRoots.push(roots);
  });

  const succs: number[][] = blocks.map(() => []);
  const unknown: boolean[] = blocks.map(() => false);
  for (const b of blocks) {
    const fn = program.functions[b.fn]!;
    const last = b.end - 1;
    const c = controlOf(program, last);
    const out = succs[b.id]!;
    const add = (s: number): void => {
      if (!out.includes(s)) out.push(s);
    };
    const jump = (t: number): void => {
      if (t >= fn.start && t < fn.end) add(blockOf[t]!);
      else {
        warnings.push(
          `${describePc(program, fn, last)}: target pc ${t} is outside the function; treated as an edge to the virtual exit`,
        );
        add(VIRTUAL_EXIT);
      }
    };
    const fallThrough = (): void => {
      if (last + 1 < fn.end) add(blockOf[last + 1]!);
      else {
        fallOffs.push({
          block: b.id,
          warning: `${describePc(program, fn, last)}: falls through past the end of the function; treated as an edge to the virtual exit`,
        });
        add(VIRTUAL_EXIT);
      }
    };
    match(c.kind)
      .with('none', 'call', () => fallThrough())
      .with('branch', () => {
        c.targets.forEach(jump);
        if (c.conditional) fallThrough();
      })
      .with('indirect', () => {
        if (c.unknownTargets) {
          // SEMANTICS §2: an undeclared BRX has an unknown successor set; analyses stay conservative.
          unknown[b.id] = true;
          warnings.push(
            `${describePc(program, fn, last)}: ${program.instructions[last]!.opcode} without declared targets; successors unknown, its IPDOM is taken to be the virtual exit`,
          );
          add(VIRTUAL_EXIT);
        } else c.targets.forEach(jump);
        if (c.conditional) fallThrough();
      })
      .with('return', 'exit', 'trap', () => {
        add(VIRTUAL_EXIT);
        if (c.conditional) fallThrough();
      })
      .exhaustive();
  }

  const preds: number[][] = blocks.map(() => []);
  for (const b of blocks)
    for (const s of succs[b.id]!) if (s !== VIRTUAL_EXIT) preds[s]!.push(b.id);
  const rawBlocks: RawBlock[] = blocks.map((b) => ({
    ...b,
    succs: succs[b.id]!,
    preds: preds[b.id]!,
    unknownSuccessors: unknown[b.id]!,
  }));
  const functions: RawFunction[] = fnBlocks.map((ids, index) => ({
    index,
    blocks: ids,
    roots: fnRoots[index]!,
    exitPreds: ids.filter((id) => succs[id]!.includes(VIRTUAL_EXIT)),
    unknownSuccessors: ids.some((id) => unknown[id]),
  }));
  return { blocks: rawBlocks, functions, blockOf, calls, warnings, fallOffs };
}
