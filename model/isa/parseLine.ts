/**
 * Classifies one lexed line of a listing: an instruction (guard, opcode, modifiers, operands), a
 * label, a function or section header, a line of the cuobjdump/nvdisasm/CuAssembler furniture
 * that carries nothing for the program, or an error. Knows nothing about other lines.
 */
import type { PredRef } from './program.ts';
import type { LexedLine } from './lexLine.ts';
import { parseOperand } from './parseOperand.ts';
import { splitOperands, type SplitError } from './parseOperandList.ts';
import type { Operand } from './program.ts';

/** An operand with where it was written and what was written (targets are resolved later). */
export interface RawOperand {
  readonly operand: Operand;
  readonly text: string;
  readonly column: number;
}

/** An instruction line before its targets are resolved. */
export interface RawInstruction {
  readonly address: {
    readonly value: number;
    readonly text: string;
    readonly column: number;
  } | null;
  readonly guard: PredRef | null;
  readonly opcode: string;
  readonly opcodeColumn: number;
  readonly modifiers: readonly string[];
  readonly operands: readonly RawOperand[];
}

/** What one line means. `ignore` covers blank lines, comments, directives and fatbin headers. */
export type LineItem =
  | { readonly kind: 'ignore' }
  | { readonly kind: 'fatbin'; readonly ptx: boolean }
  | { readonly kind: 'codeFor' }
  | { readonly kind: 'end' }
  | { readonly kind: 'function'; readonly name: string }
  | { readonly kind: 'entryPoint'; readonly address: number }
  | { readonly kind: 'section'; readonly name: string }
  | { readonly kind: 'label'; readonly name: string; readonly column: number }
  | { readonly kind: 'data' }
  | { readonly kind: 'instruction'; readonly instruction: RawInstruction }
  | { readonly kind: 'error'; readonly errors: readonly SplitError[] };

const IGNORE: LineItem = { kind: 'ignore' };

/** Whole-line forms, tried in order on the trimmed code. */
const HEADERS: readonly [RegExp, (m: RegExpExecArray) => LineItem][] = [
  [/^Fatbin (\w+) code:$/, (m) => ({ kind: 'fatbin', ptx: m[1] !== 'elf' })],
  [/^(=+|compressed|[a-z][a-z_ ]*\s=\s.*)$/, () => IGNORE], // fatbin header: `arch = sm_70`
  [/^code for sm_\w+$/, () => ({ kind: 'codeFor' })],
  [/^\.{4,}$/, () => ({ kind: 'end' })], // `\t\t..........` function terminator
  [/^Function(?: Name)?\s*:\s*(\S+)$/, (m) => ({ kind: 'function', name: m[1]! })],
  [
    /^Entry Point\s*:\s*0x([0-9a-fA-F]+)$/,
    (m) => ({ kind: 'entryPoint', address: parseInt(m[1]!, 16) }),
  ],
  [/^\.section\s+"?([^\s,"]*)"?.*$/, (m) => ({ kind: 'section', name: m[1]! })],
  [/^\.text\.(\S+):$/, (m) => ({ kind: 'function', name: m[1]! })],
];

const LABEL = /^([A-Za-z_.$][^\s:]*):$/;
const DIRECTIVE = /^\.[A-Za-z_][A-Za-z0-9_.]*(\s|$)/;
const INSTRUCTION = /^(?:@(\S*)\s+)?([A-Za-z][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)*)(?=\s|$)/;
/** sm_120 scheduling annotations before the `;`: `&req={1,0}`, `&wr=0x0`, `?trans5`. */
const ANNOTATION = /(^|\s)(&[a-z]+=(\{[^}]*\}|\S+)|\?[A-Za-z0-9_]+)(?=\s|$)/g;

const err = (column: number, message: string): LineItem => ({
  kind: 'error',
  errors: [{ column, message }],
});

/** Classifies one lexed line. */
export function parseLine(line: LexedLine): LineItem {
  const code = line.code;
  const trimmed = code.trim();
  const firstColumn = code.length - code.trimStart().length + 1;
  if (trimmed === '') {
    return line.address === null
      ? IGNORE
      : err(line.address.column, 'expected an instruction after the address');
  }
  if (line.address === null) {
    for (const [re, make] of HEADERS) {
      const m = re.exec(trimmed);
      if (m) return make(m);
    }
    const label = LABEL.exec(trimmed);
    if (label) return { kind: 'label', name: label[1]!, column: firstColumn };
    if (DIRECTIVE.test(trimmed)) return IGNORE;
  } else if (trimmed.startsWith('.')) {
    return { kind: 'data' }; // `/*0000*/ .byte 0x00` in a CuAssembler data section
  }
  return parseInstruction(code, firstColumn, line);
}

function parseInstruction(code: string, firstColumn: number, line: LexedLine): LineItem {
  const semicolon = code.indexOf(';'); // free text after the `;` is a remark (XS70, ERGO)
  const cut = semicolon < 0 ? code : code.slice(0, semicolon);
  const annotated = cut.includes('&') || cut.includes('?');
  const body = annotated ? cut.replace(ANNOTATION, (s) => ' '.repeat(s.length)) : cut;
  const start = firstColumn - 1;
  const m = INSTRUCTION.exec(body.slice(start));
  if (!m) {
    const what =
      line.address === null ? 'an instruction, a label (name:), or a directive' : 'an opcode';
    return err(firstColumn, `cannot read '${body.trim().split(/\s+/)[0]}': expected ${what}`);
  }
  const [whole, guardText, opcode, mods] = m;
  let guard: PredRef | null = null;
  if (guardText !== undefined) {
    const g = /^(!?)P([0-6T])$/.exec(guardText);
    if (!g) {
      return err(
        firstColumn,
        `bad guard '@${guardText}' (expected @P0..@P6 or @PT, optionally negated: @!P0)`,
      );
    }
    guard =
      g[2] === 'T' && g[1] === ''
        ? null
        : { index: g[2] === 'T' ? 7 : Number(g[2]), negated: g[1] === '!' };
  }
  const opcodeColumn = firstColumn + whole.length - opcode!.length - mods!.length;
  if (opcode !== opcode!.toUpperCase()) {
    return err(opcodeColumn, `opcode '${opcode}' must be upper case ('${opcode!.toUpperCase()}')`);
  }
  const fieldStart = start + whole.length;
  const split = splitOperands(body.slice(fieldStart).trimEnd(), fieldStart + 1);
  if (!split.ok) return { kind: 'error', errors: split.errors };
  const operands: RawOperand[] = [];
  const errors: SplitError[] = [];
  for (const { text, column } of split.operands) {
    const parsed = parseOperand(text);
    if (parsed.ok) operands.push({ operand: parsed.operand, text, column });
    else errors.push({ column, message: parsed.message });
  }
  if (errors.length > 0) return { kind: 'error', errors };
  const instruction: RawInstruction = {
    address: line.address,
    guard,
    opcode: opcode!,
    opcodeColumn,
    modifiers: mods === '' ? [] : mods!.slice(1).split('.'),
    operands,
  };
  return { kind: 'instruction', instruction };
}
