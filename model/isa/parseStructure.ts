/**
 * First pass of the parser: walks the lines, groups instructions into functions, places labels,
 * assigns offsets and collects `// @warpcheck` directives. Targets are left for `parseTargets.ts`.
 *
 * Function boundaries: `Function : NAME` / `Function Name: NAME` (cuobjdump), `.section .text.NAME`
 * and `.text.NAME:` (nvdisasm, CuAssembler), `code for sm_XX` and `Entry Point : 0x…` (cuobjdump
 * blocks, possibly unnamed), the `\t\t..........` terminator, `Fatbin … code:`. A header only
 * *opens* a function; the function exists once it holds an instruction, so a header with no code
 * (an empty `code for` block) leaves nothing behind, and two headers in a row merge (nvdisasm's
 * `.section .text.f` … `.text.f:`).
 *
 * Invariants of the result: functions are in order, contiguous, non-empty; a label's `pc` is in
 * `[fn.start, fn.end]` of its `fn` (the end when it follows the function's last instruction).
 */
import type { Directive } from './program.ts';
import { lexLine, type LexState } from './lexLine.ts';
import { parseLine, type RawInstruction } from './parseLine.ts';
import { INSTRUCTION_STRIDE } from './sassSyntax.ts';

/** A function being built. `name` is null for an unnamed cuobjdump block. */
export interface FunctionBuild {
  name: string | null;
  entry: number | null;
  start: number;
  end: number;
  /** True when some instruction of the function carried a `/*XXXX*\/` address. */
  hasAddress: boolean;
  /** Instruction offset → PC. */
  readonly offsets: Map<number, number>;
}

/** A placed label; `fn` indexes `functions` (-1 when the listing has no function at all). */
export interface LabelBuild {
  readonly name: string;
  readonly pc: number;
  readonly fn: number;
}

/** A placed instruction. */
export interface InstructionBuild {
  readonly raw: RawInstruction;
  readonly offset: number;
  readonly line: number;
  readonly fn: number;
}

/** An error before it gets its file name. */
export interface LineError {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** Everything the first pass found. */
export interface Structure {
  readonly functions: readonly FunctionBuild[];
  readonly instructions: readonly InstructionBuild[];
  readonly labels: readonly LabelBuild[];
  readonly directives: readonly Directive[];
  readonly errors: readonly LineError[];
}

const hex4 = (n: number): string => n.toString(16).padStart(4, '0');

/** Runs the first pass; stops reading lines once `maxErrors` errors are found. */
export function parseStructure(text: string, maxErrors: number): Structure {
  const functions: FunctionBuild[] = [];
  const instructions: InstructionBuild[] = [];
  const labels: LabelBuild[] = [];
  const directives: Directive[] = [];
  const errors: LineError[] = [];
  const lex: LexState = { inBlockComment: false };
  let mode: 'code' | 'data' | 'ptx' = 'code';
  let header: { name: string | null; entry: number | null } | null = null;
  let active: FunctionBuild | null = null; // the function receiving instructions
  let lastOffset: number | null = null;
  let pending: { name: string; line: number; column: number }[] = [];
  const labelLines = new Map<string, number>(); // `${fn}:${name}` → line, for duplicate reports

  const place = (fn: number, pc: number): void => {
    for (const l of pending) {
      const f = functions[fn];
      if (f !== undefined && l.name === f.name && pc === f.start) continue; // the function's symbol
      const key = `${fn}:${l.name}`;
      const previous = labelLines.get(key);
      if (previous !== undefined) {
        const where = f?.name ?? 'kernel';
        errors.push({
          ...l,
          message: `label '${l.name}' is already defined in function ${where} (line ${previous})`,
        });
        continue;
      }
      labelLines.set(key, l.line);
      labels.push({ name: l.name, pc, fn });
    }
    pending = [];
  };
  const close = (): void => {
    if (active !== null) place(functions.length - 1, instructions.length);
    active = null;
    header = null;
  };
  const open = (name: string | null, entry: number | null): void => {
    if (active === null && header !== null) {
      header = { name: name ?? header.name, entry: entry ?? header.entry }; // merge with an empty header
      return;
    }
    close();
    header = { name, entry };
  };

  const lines = text.split(/\r\n|\r|\n/);
  for (let index = 0; index < lines.length && errors.length < maxErrors; index++) {
    const lineNo = index + 1;
    const lexed = lexLine(lines[index]!, lex);
    const item = parseLine(lexed);
    if (mode === 'ptx' && item.kind !== 'fatbin') continue; // PTX text after `Fatbin ptx code:`
    if (lexed.directive !== null) directives.push({ line: lineNo, ...lexed.directive });
    switch (item.kind) {
      case 'ignore':
      case 'data':
        break;
      case 'error':
        for (const e of item.errors) errors.push({ line: lineNo, ...e });
        break;
      case 'fatbin':
        close();
        mode = item.ptx ? 'ptx' : 'code';
        break;
      case 'codeFor':
        close();
        header = { name: null, entry: null };
        break;
      case 'end':
        close();
        break;
      case 'function':
        mode = 'code';
        open(item.name, null);
        break;
      case 'entryPoint':
        open(null, item.address);
        break;
      case 'section':
        close();
        mode = item.name.startsWith('.text.') ? 'code' : 'data';
        if (mode === 'code') open(item.name.slice('.text.'.length), null);
        break;
      case 'label':
        if (mode === 'code') pending.push({ name: item.name, line: lineNo, column: item.column });
        break;
      case 'instruction': {
        if (mode !== 'code') break;
        const raw = item.instruction;
        if (active === null) {
          const h: { name: string | null; entry: number | null } = header ?? {
            name: null,
            entry: null,
          };
          active = {
            ...h,
            start: instructions.length,
            end: instructions.length,
            hasAddress: false,
            offsets: new Map(),
          };
          functions.push(active);
          lastOffset = null;
        }
        let offset: number = lastOffset === null ? 0 : lastOffset + INSTRUCTION_STRIDE;
        if (raw.address !== null) {
          offset = raw.address.value;
          active.hasAddress = true;
          if (lastOffset !== null && offset <= lastOffset) {
            const was = `/*${hex4(lastOffset)}*/`;
            const message =
              offset === lastOffset
                ? `address /*${raw.address.text}*/ repeats the previous address ${was}`
                : `address /*${raw.address.text}*/ goes backwards (previous was ${was})`;
            errors.push({ line: lineNo, column: raw.address.column, message });
          }
        }
        lastOffset = offset;
        const pc = instructions.length;
        place(functions.length - 1, pc);
        active.offsets.set(offset, pc);
        instructions.push({ raw, offset, line: lineNo, fn: functions.length - 1 });
        active.end = pc + 1;
        break;
      }
    }
  }
  close();
  if (pending.length > 0) place(functions.length - 1, instructions.length);
  return { functions, instructions, labels, directives, errors };
}
