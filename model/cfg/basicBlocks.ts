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

/** The blocks of one function and its roots (entry, then in-function CALL targets that return). */
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
  /** Decisions taken while wiring (CALLs that never return). */
  readonly notes: readonly string[];
}

/** `name+0x0040 (pc 4)`: how warnings and notes name an instruction. */
export function describePc(program: Program, fn: FunctionInfo, pc: number): string {
  const offset = program.instructions[pc]?.offset ?? 0;
  return `${fn.name}+0x${offset.toString(16).padStart(4, '0')} (pc ${pc})`;
}

/** Blocks cut, before wiring: what the leaders give. */
interface Cut {
  readonly blocks: readonly {
    readonly id: number;
    readonly fn: number;
    readonly start: number;
    readonly end: number;
  }[];
  readonly blockOf: readonly number[];
  readonly fnBlocks: readonly (readonly number[])[];
  /** In-function CALL targets per function, in PC order of the CALLs, without duplicates. */
  readonly callTargets: readonly (readonly number[])[];
  readonly warnings: readonly string[];
}

/**
 * Leaders: the function start, every direct or declared target inside the function (CALL targets
 * included: they start subroutines), and the instruction after any control transfer, conditional
 * or not (CALL included). A block ends at the first instruction whose control kind is not `none`.
 */
function cutBlocks(program: Program): Cut {
  const blockOf: number[] = new Array<number>(program.instructions.length).fill(-1);
  const blocks: { id: number; fn: number; start: number; end: number }[] = [];
  const warnings: string[] = [];
  const fnBlocks: number[][] = [];
  const callTargets: number[][] = [];
  program.functions.forEach((fn, fi) => {
    const mine: number[] = [];
    const targets: number[] = [];
    fnBlocks.push(mine);
    callTargets.push(targets);
    if (fn.end <= fn.start) {
      warnings.push(`function ${fn.name} (pc ${fn.start}) is empty: no blocks`);
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
      if (c.kind === 'call')
        for (const t of c.targets) if (inFn(t) && !targets.includes(t)) targets.push(t);
    }
    for (let pc = fn.start; pc < fn.end; pc++) {
      if (leader[pc - fn.start]) {
        const id = blocks.length;
        blocks.push({ id, fn: fi, start: pc, end: pc + 1 });
        mine.push(id);
      } else blocks[blocks.length - 1]!.end = pc + 1;
      blockOf[pc] = blocks.length - 1;
    }
  });
  return { blocks, blockOf, fnBlocks, callTargets, warnings };
}

/** The successor edges of every block, given which in-function CALL targets never return. */
interface Wiring {
  readonly succs: readonly (readonly number[])[];
  readonly unknown: readonly boolean[];
  readonly warnings: readonly string[];
  readonly fallOffs: readonly { readonly block: number; readonly warning: string }[];
}

function wireEdges(program: Program, cut: Cut, noReturn: ReadonlySet<number>): Wiring {
  const { blocks, blockOf } = cut;
  const succs: number[][] = blocks.map(() => []);
  const unknown: boolean[] = blocks.map(() => false);
  const warnings: string[] = [];
  const fallOffs: { block: number; warning: string }[] = [];
  for (const b of blocks) {
    const fn = program.functions[b.fn]!;
    const last = b.end - 1;
    const c = controlOf(program, last);
    const out = succs[b.id]!;
    const at = describePc(program, fn, last);
    const add = (s: number): void => {
      if (!out.includes(s)) out.push(s);
    };
    const jump = (t: number): void => {
      if (t >= fn.start && t < fn.end) add(blockOf[t]!);
      else {
        warnings.push(
          `${at}: target pc ${t} is outside the function; treated as an edge to the virtual exit`,
        );
        add(VIRTUAL_EXIT);
      }
    };
    const fallThrough = (): void => {
      if (last + 1 < fn.end) add(blockOf[last + 1]!);
      else {
        const warning = `${at}: falls through past the end of the function; treated as an edge to the virtual exit`;
        fallOffs.push({ block: b.id, warning });
        add(VIRTUAL_EXIT);
      }
    };
    match(c.kind)
      .with('none', () => fallThrough())
      .with('call', () => {
        // A CALL returns to pc+1; one whose in-function callee never returns is a jump.
        const jumpsTo = c.targets.filter((t) => noReturn.has(t));
        jumpsTo.forEach(jump);
        if (jumpsTo.length === 0 || c.conditional) fallThrough();
      })
      .with('branch', () => {
        c.targets.forEach(jump);
        if (c.conditional) fallThrough();
      })
      .with('indirect', () => {
        if (c.unknownTargets) {
          // SEMANTICS §2: an undeclared BRX has an unknown successor set; analyses stay conservative.
          unknown[b.id] = true;
          const opcode = program.instructions[last]!.opcode;
          const what =
            opcode === 'BRA' || opcode === 'JMP' ? 'no resolved target' : 'no declared targets';
          warnings.push(
            `${at}: ${opcode} with ${what}; successors unknown, its IPDOM is taken to be the virtual exit`,
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
  return { succs, unknown, warnings, fallOffs };
}

/**
 * Cuts every function of `program` into basic blocks (leaders as in `cutBlocks`) and connects
 * them.
 *
 * Edges: fall-through to pc+1; branch and declared indirect targets; CALL falls through (its
 * target goes to `calls`); EXIT/KILL/RET/BPT.TRAP go to the virtual exit, and fall through as well
 * when conditional. A target outside the function, a fall-through past the function's end and a
 * BRX/JMX with unknown targets become edges to the virtual exit, each with a warning (for a
 * fall-through, only if the block turns out reachable: see `fallOffs`).
 *
 * Decision: a CALL to an in-function target from which no RET can be reached never returns, so
 * it is wired as a branch to that target (falling through only when conditional), and the target
 * is not a root. nvcc emits `@P6 CALL.REL.NOINC` as a loop exit (cudad sm89
 * `box_blur_variable_radius` +0x1100); as a fall-through it would leave that loop without an
 * exit. Found by iterating to a fixpoint (`noReturnTargets`): the set only grows.
 */
export function basicBlocks(program: Program): BlockGraph {
  const cut = cutBlocks(program);
  let noReturn = new Set<number>();
  let wiring = wireEdges(program, cut, noReturn);
  for (;;) {
    const next = noReturnTargets(program, cut, wiring.succs);
    if (next.size === noReturn.size) break;
    noReturn = next;
    wiring = wireEdges(program, cut, noReturn);
  }
  const { blocks, blockOf } = cut;
  const { succs, unknown } = wiring;
  const preds: number[][] = blocks.map(() => []);
  for (const b of blocks)
    for (const s of succs[b.id]!) if (s !== VIRTUAL_EXIT) preds[s]!.push(b.id);
  const calls: CallEdge[] = [];
  for (const b of blocks) {
    const pc = b.end - 1;
    const c = controlOf(program, pc);
    if (c.kind !== 'call') continue;
    const fn = program.functions[b.fn]!;
    for (const to of c.targets) {
      const sameFunction = to >= fn.start && to < fn.end;
      calls.push({ from: pc, to, sameFunction, returns: !noReturn.has(to) });
    }
  }
  const notes = [...noReturn].map((t) => {
    const fn = program.functions[blocks[blockOf[t]!]!.fn]!;
    return `${fn.name}: no RET is reachable from the CALL target ${describePc(program, fn, t)}; CALLs to it are treated as jumps`;
  });
  return {
    blocks: blocks.map((b) => ({
      ...b,
      succs: succs[b.id]!,
      preds: preds[b.id]!,
      unknownSuccessors: unknown[b.id]!,
    })),
    functions: cut.fnBlocks.map((ids, index) => {
      const roots = ids.length > 0 ? [ids[0]!] : [];
      for (const t of cut.callTargets[index]!) {
        if (!noReturn.has(t) && !roots.includes(blockOf[t]!)) roots.push(blockOf[t]!);
      }
      return {
        index,
        blocks: ids,
        roots,
        exitPreds: ids.filter((id) => succs[id]!.includes(VIRTUAL_EXIT)),
        unknownSuccessors: ids.some((id) => unknown[id]),
      };
    }),
    blockOf,
    calls,
    warnings: [...cut.warnings, ...wiring.warnings],
    fallOffs: wiring.fallOffs,
    notes,
  };
}

/** In-function CALL targets from which no block ending in RET is reachable. */
function noReturnTargets(
  program: Program,
  cut: Cut,
  succs: readonly (readonly number[])[],
): Set<number> {
  const result = new Set<number>();
  cut.callTargets.forEach((targets) => {
    for (const t of targets) {
      const seen = new Set<number>([cut.blockOf[t]!]);
      const work = [cut.blockOf[t]!];
      let returns = false;
      while (work.length > 0 && !returns) {
        const b = cut.blocks[work.pop()!]!;
        if (controlOf(program, b.end - 1).kind === 'return') returns = true;
        for (const s of succs[b.id]!)
          if (s !== VIRTUAL_EXIT && !seen.has(s)) (seen.add(s), work.push(s));
      }
      if (!returns) result.add(t);
    }
  });
  return result;
}
