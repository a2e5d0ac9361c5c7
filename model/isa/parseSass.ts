/**
 * The SASS listing parser: cuobjdump, nvdisasm and CuAssembler text, and our own hand-written
 * listings (no addresses, bare `loop:` labels, optional `;`). See
 * `/work/shared/sass/SYNTAX.md` for the line forms. Never throws: every problem in the text is a
 * `Diagnostic` with its line and column (at most `MAX_ERRORS` of them).
 */
import {
  err,
  ok,
  type Diagnostic,
  type Directive,
  type FunctionInfo,
  type Instruction,
  type Label,
  type Program,
  type Result,
} from './program.ts';
import { makeScope } from './parseScope.ts';
import { parseStructure, type FunctionBuild, type LineError } from './parseStructure.ts';
import { fallsOffEnd, resolveTargets, type TargetContext } from './parseTargets.ts';

/** What `parseSass` returns: the program, the launch-header directives, and where each PC came from. */
export interface ParsedListing {
  readonly program: Program;
  /** The `// @warpcheck …` comment lines, in order. */
  readonly directives: readonly Directive[];
  /** `sourceLines[pc]` is the 1-based line of instruction `pc`. */
  readonly sourceLines: readonly number[];
}

/** Options of `parseSass`. */
export interface ParseOptions {
  /** File name put in diagnostics (default `<input>`). */
  readonly file?: string;
}

/** The parser reports at most this many errors, then stops. */
export const MAX_ERRORS = 20;

/** Name of a function that no header names: `kernel`, or `entry_0x…` after an `Entry Point`. */
function displayName(f: FunctionBuild): string {
  if (f.name !== null) return f.name;
  return f.entry === null ? 'kernel' : `entry_0x${f.entry.toString(16)}`;
}

/** Parses a SASS listing into a program. */
export function parseSass(text: string, options: ParseOptions = {}): Result<ParsedListing> {
  const file = options.file ?? '<input>';
  const toDiagnostic = (e: LineError): Diagnostic => ({ file, ...e });
  try {
    return parseChecked(text, toDiagnostic);
  } catch (e) {
    // Not expected: a bug in the parser must still reach the user as a diagnostic, not a crash.
    const message = `internal error in the SASS parser: ${e instanceof Error ? e.message : String(e)}`;
    return err([{ file, line: 1, column: 1, message }]);
  }
}

function parseChecked(
  text: string,
  toDiagnostic: (e: LineError) => Diagnostic,
): Result<ParsedListing> {
  const s = parseStructure(text, MAX_ERRORS);
  const errors: LineError[] = [...s.errors];
  const names = s.functions.map(displayName);
  const lastFn = s.functions.length - 1;
  const incomplete = s.functions.map((f, i) => {
    if (!f.hasAddress) return false;
    const body = s.instructions.slice(f.start, f.end);
    const cut =
      i === lastFn &&
      fallsOffEnd(body.map((b) => ({ opcode: b.raw.opcode, guarded: b.raw.guard !== null })));
    return body[0]!.offset !== 0 || cut;
  });
  const ctx: TargetContext = {
    scope: makeScope(
      s.functions.map((f, i) => ({ name: names[i]!, start: f.start })),
      s.labels,
    ),
    functions: s.functions,
    names,
    incomplete,
    bounds: s.functions.map((f) => ({
      first: s.instructions[f.start]!.offset,
      last: s.instructions[f.end - 1]!.offset,
    })),
  };
  const instructions: Instruction[] = [];
  for (const ins of s.instructions) {
    if (errors.length >= MAX_ERRORS) break;
    const resolved = resolveTargets(ins.raw, ins.fn, ctx);
    if (!resolved.ok) {
      errors.push({ line: ins.line, column: resolved.column, message: resolved.message });
      continue;
    }
    const { guard, opcode, modifiers } = ins.raw;
    instructions.push({
      offset: ins.offset,
      guard,
      opcode,
      modifiers,
      operands: resolved.operands,
    });
  }
  if (errors.length > 0) {
    const sorted = [...errors].sort((a, b) => a.line - b.line || a.column - b.column);
    return err(sorted.slice(0, MAX_ERRORS).map(toDiagnostic));
  }
  const functions: FunctionInfo[] = s.functions.map((f, i) => ({
    name: names[i]!,
    start: f.start,
    end: f.end,
  }));
  const labels: Label[] = s.labels.map(({ name, pc }) => ({ name, pc }));
  const sm = /EF_CUDA_SM(\d+)\b|code for sm_(\d+)/.exec(text);
  const arch = sm ? Number(sm[1] ?? sm[2]) : undefined;
  return ok({
    program: { functions, instructions, labels, ...(arch !== undefined ? { arch } : {}) },
    directives: s.directives,
    sourceLines: s.instructions.map((i) => i.line),
  });
}
