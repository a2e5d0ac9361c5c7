import { printInstruction } from '../isa/printProgram.ts';
import type { Program } from '../isa/program.ts';

/**
 * The instruction at `pc` as a replay step prints it: without its `/*offset*\/` column and
 * trimmed. A PC outside the program — a run that fell off the end of its last instruction, which
 * the machine reports as undefined behaviour — prints as a marker instead of crashing (issue 14,
 * fault 1: `explore` saved such runs and `replay` could not read them back).
 */
export function issuedText(program: Program, pc: number, target: (pc: number) => string): string {
  const ins = program.instructions[pc];
  if (!ins) return '(past the end of the program)';
  return printInstruction(ins, target)
    .replace(/^\s*\/\*[0-9a-f]+\*\/\s*/, '')
    .trim();
}
