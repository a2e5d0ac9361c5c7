import type { Op } from '../isa/op.ts';
import { printInstruction } from '../isa/printProgram.ts';
import type { Machine } from '../machine/machine.ts';

/**
 * A step of a finding's schedule that rests on abstraction (issue 16): a branch on an unknown
 * value (SEMANTICS §5) resolved one way, or a loop widened (`machine/widening.ts`). A finding
 * whose every path takes one is *possible*: real inputs may never take it.
 */
export interface Decision {
  /** 1-based step of the schedule. */
  readonly step: number;
  readonly kind: 'unknown-branch' | 'widened';
  /** The PC (label or offset) and instruction of the step. */
  readonly pc: string;
  readonly instruction: string;
  /** The alternative taken (which lanes took part), for an unknown branch. */
  readonly choice: string | null;
  /**
   * Where the unknown came from: the last instruction on the path before this step that wrote
   * the predicate it branches on (`pc: instruction`), or null.
   */
  readonly source: string | null;
}

/** Predicates an op writes (ISETP's two, VOTE's, an opaque op's). */
function predsWritten(op: Op): number[] {
  switch (op.kind) {
    case 'isetp':
    case 'plop3':
      return [op.dst.index, op.dst2.index];
    case 'vote':
      return [op.pdst.index];
    case 'opaque':
      return [...op.preds];
    default:
      return [];
  }
}

/** The abstract steps of `schedule` on `machine`, replayed from the initial state. */
export function decisionsOf(machine: Machine, schedule: readonly number[]): Decision[] {
  const out: Decision[] = [];
  const printed = (pc: number) =>
    printInstruction(machine.program.instructions[pc]!, machine.fmt.pc)
      .replace(/^\s*\/\*[0-9a-f]+\*\/\s*/, '')
      .trim();
  const issued: number[] = [];
  let s = machine.initial();
  for (let i = 0; i < schedule.length; i++) {
    const t = machine.successors(s)[schedule[i]!];
    if (!t) break;
    const pc = t.issue.pc;
    if (t.unknownChoice || t.widened) {
      let source: string | null = null;
      if (t.unknownChoice) {
        const op = machine.ops[pc]!;
        const guards = [op.guard, op.pred2].filter((p) => p !== null).map((p) => p!.index);
        for (let j = issued.length - 1; j >= 0 && source === null; j--) {
          const w = predsWritten(machine.ops[issued[j]!]!);
          if (guards.some((g) => w.includes(g)))
            source = `${machine.fmt.pc(issued[j]!)}: ${printed(issued[j]!)}`;
        }
      }
      out.push({
        step: i + 1,
        kind: t.unknownChoice ? 'unknown-branch' : 'widened',
        pc: machine.fmt.pc(pc),
        instruction: printed(pc),
        choice: t.unknownChoice ? t.choice : null,
        source,
      });
    }
    issued.push(pc);
    if (!t.next) break;
    s = t.next;
  }
  return out;
}
