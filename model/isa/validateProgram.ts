/**
 * Checks the invariants that `program.ts` states for every `Program`. The parser's tests run it on
 * everything the parser produces; other layers may run it on programs they build by hand.
 */
import { RZ, URZ, type Operand, type PredRef, type Program } from './program.ts';

const predOk = (p: PredRef): boolean => Number.isInteger(p.index) && p.index >= 0 && p.index <= 7;
const inRange = (n: number, max: number): boolean => Number.isInteger(n) && n >= 0 && n <= max;

/** Checks register indices and target PCs of one operand; returns a problem or null. */
function operandProblem(op: Operand, pcs: number): string | null {
  switch (op.kind) {
    case 'reg':
      return inRange(op.index, RZ) ? null : `register index ${op.index}`;
    case 'ureg':
      return inRange(op.index, URZ) ? null : `uniform register index ${op.index}`;
    case 'pred':
    case 'upred':
      return predOk(op.pred) ? null : `predicate index ${op.pred.index}`;
    case 'breg':
      return inRange(op.index, 15) ? null : `barrier register index ${op.index}`;
    case 'target':
      return inRange(op.pc, pcs) ? null : `target pc ${op.pc} outside [0, ${pcs}]`;
    case 'mem':
      return inRange(op.base, RZ) && (op.ureg === null || inRange(op.ureg, URZ))
        ? null
        : 'memory register index';
    default:
      return null;
  }
}

/**
 * Returns every violated invariant as a sentence (empty when the program is well formed):
 * functions are contiguous, in order, non-overlapping and cover every instruction; offsets
 * strictly increase within a function; targets and labels name PCs in `[0, instructions.length]`.
 */
export function validateProgram(program: Program): string[] {
  const problems: string[] = [];
  const n = program.instructions.length;
  let next = 0;
  for (const f of program.functions) {
    if (f.start !== next)
      problems.push(`function ${f.name} starts at ${f.start}, expected ${next}`);
    if (f.end < f.start) problems.push(`function ${f.name} ends before it starts`);
    for (let pc = f.start + 1; pc < f.end; pc++) {
      const [a, b] = [program.instructions[pc - 1], program.instructions[pc]];
      if (a !== undefined && b !== undefined && b.offset <= a.offset) {
        problems.push(`function ${f.name}: offset at pc ${pc} does not increase`);
      }
    }
    next = f.end;
  }
  if (next !== n) problems.push(`functions cover ${next} of ${n} instructions`);
  program.instructions.forEach((ins, pc) => {
    if (ins.guard !== null && !predOk(ins.guard)) problems.push(`pc ${pc}: bad guard`);
    for (const op of ins.operands) {
      const p = operandProblem(op, n);
      if (p !== null) problems.push(`pc ${pc}: ${p}`);
    }
  });
  for (const l of program.labels) {
    if (!inRange(l.pc, n)) problems.push(`label ${l.name} at pc ${l.pc} outside [0, ${n}]`);
  }
  return problems;
}
