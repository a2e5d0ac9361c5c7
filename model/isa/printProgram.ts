/**
 * Prints a program as a cuobjdump-style listing that `parseSass` reads back to an equal program:
 * a `\t\tFunction : NAME` header per function, `/*XXXX*\/` addresses, the guard right-aligned
 * into the padding, labels on their own line, `` `(LABEL) `` / `` `(FUNCTION) `` / hex targets.
 *
 * A target prints, in order of preference, as a label at its PC that resolves back to it, as the
 * name of the function starting there (another function), or as a hex offset in the current
 * function. A PC that none of these reach (a PC inside another function with no label) cannot be
 * written in SASS syntax; it is printed as `` `(@pc_N) ``, which the parser rejects as an unknown
 * label (or keeps as a symbol on JMP/CALL) — `programArbitrary` never generates one.
 */
import type { Instruction, Program } from './program.ts';
import { formatHex, printOperand } from './printOperand.ts';
import { lookupName, scopeOfProgram, type NameScope } from './parseScope.ts';
import { INSTRUCTION_STRIDE, spaceSeparatedFrom } from './sassSyntax.ts';

/** Width of the guard column: the opcode starts this many characters after the address. */
const GUARD_COLUMN = 19;
const INDENT = ' '.repeat(8);

/** Prints `program` as a listing. */
export function printProgram(program: Program): string {
  const scope = scopeOfProgram(program);
  const labelsAt = new Map<number, string[]>();
  for (const l of program.labels) {
    const list = labelsAt.get(l.pc);
    if (list === undefined) labelsAt.set(l.pc, [l.name]);
    else list.push(l.name);
  }
  // As cuobjdump writes it, so that the architecture reads back (`Program.arch`).
  const lines: string[] = program.arch !== undefined ? [`\tcode for sm_${program.arch}`] : [];
  const printLabels = (pc: number): void => {
    for (const name of labelsAt.get(pc) ?? []) lines.push(`${name}:`);
  };
  program.functions.forEach((f, fn) => {
    if (fn > 0) lines.push('', '');
    lines.push(`\t\tFunction : ${f.name}`);
    for (let pc = f.start; pc < f.end; pc++) {
      printLabels(pc);
      const ins = program.instructions[pc]!;
      lines.push(printInstruction(ins, (t) => targetText({ program, scope, labelsAt }, fn, t)));
    }
    if (fn === program.functions.length - 1) printLabels(program.instructions.length);
    lines.push('\t\t..........');
  });
  if (program.functions.length === 0) printLabels(program.instructions.length);
  return lines.join('\n') + '\n';
}

/** One instruction line: address, right-aligned guard, opcode, operands, ` ;`. */
export function printInstruction(ins: Instruction, targetText: (pc: number) => string): string {
  const guard =
    ins.guard === null
      ? ''
      : `@${ins.guard.negated ? '!' : ''}P${ins.guard.index === 7 ? 'T' : ins.guard.index}`;
  const pad =
    guard === ''
      ? ' '.repeat(GUARD_COLUMN)
      : `${' '.repeat(Math.max(1, GUARD_COLUMN - guard.length - 1))}${guard} `;
  const address = `/*${ins.offset.toString(16).padStart(4, '0')}*/`;
  const name = [ins.opcode, ...ins.modifiers].join('.');
  // Declared targets of an indirect branch print as nvdisasm's annotation (SEMANTICS §2).
  const indirect = ['BRX', 'BRXU', 'JMX', 'JMXU'].includes(ins.opcode);
  const declared = indirect ? ins.operands.filter((o) => o.kind === 'target') : [];
  const plain = indirect ? ins.operands.filter((o) => o.kind !== 'target') : ins.operands;
  const ops = plain.map((o) => printOperand(o, targetText));
  if (declared.length > 0)
    ops.push(
      `(*"BRANCH_TARGETS ${declared.map((o) => printOperand(o, targetText).replace(/^\`\((.*)\)$/, '$1')).join(',')}"*)`,
    );
  const from = spaceSeparatedFrom(ins);
  const operands =
    from === null || from >= ops.length
      ? ops.join(', ')
      : [...ops.slice(0, from), ops.slice(from).join(' ')].join(', ');
  return `${INDENT}${address}${pad}${name}${operands === '' ? '' : ` ${operands}`} ;`;
}

interface PrintContext {
  readonly program: Program;
  readonly scope: NameScope;
  readonly labelsAt: ReadonlyMap<number, readonly string[]>;
}

/** How a target PC is written from function `fn` (see the module comment). */
function targetText({ program, scope, labelsAt }: PrintContext, fn: number, pc: number): string {
  const resolves = (name: string): boolean => {
    const found = lookupName(scope, name, fn);
    return found.kind === 'pc' && found.pc === pc;
  };
  const label = labelsAt.get(pc)?.find(resolves);
  if (label !== undefined) return `\`(${label})`;
  const here = program.functions[fn];
  const starting = program.functions.find((f, i) => i !== fn && f.start === pc && f.start < f.end);
  if (starting !== undefined && resolves(starting.name)) return `\`(${starting.name})`;
  if (here !== undefined && pc >= here.start && pc <= here.end && here.end > here.start) {
    const offset =
      pc < here.end
        ? program.instructions[pc]!.offset
        : program.instructions[here.end - 1]!.offset + INSTRUCTION_STRIDE;
    return formatHex(offset);
  }
  return `\`(@pc_${pc})`; // no name reaches it: reads back as an unknown label, loudly
}
