/**
 * Second pass of the parser: resolves the code target of BRA, JMP, CALL, BSSY and the Fermi
 * SSY/PBK/PCNT/PRET to a PC. The target is the instruction's last operand, written as a hex
 * offset in the current function, `` `(NAME) `` or a bare NAME (a label or a function name).
 * Register-indirect forms (BRX, JMX, `CALL R6 …`) have no direct target (`isRegisterIndirect`).
 *
 * - On JMP/CALL a name or address that is not in the program becomes a `symbol`; an absolute
 *   address equal to a cuobjdump block's `Entry Point` resolves to that function's start.
 * - Elsewhere an unknown name or an offset that is no instruction of the function is an error,
 *   except in an *incomplete* function — an excerpt that does not start at `/*0000*\/`, or a
 *   listing cut off in its last function — where a reference outside the listed code becomes a
 *   `symbol` (the target exists, it is just not in the text).
 */
import type { Operand } from './program.ts';
import type { RawInstruction } from './parseLine.ts';
import { lookupName, type NameScope } from './parseScope.ts';
import type { FunctionBuild } from './parseStructure.ts';
import {
  EXTERNAL_OPCODES,
  INSTRUCTION_STRIDE,
  isRegisterIndirect,
  NAME_PATTERN,
  REQUIRED_TARGET_OPCODES,
  TARGET_OPCODES,
} from './sassSyntax.ts';

/** What the resolver needs to know about the function an instruction is in. */
export interface TargetContext {
  readonly scope: NameScope;
  readonly functions: readonly FunctionBuild[];
  /** Display names of the functions (unnamed blocks already named). */
  readonly names: readonly string[];
  /** Per function: true when references outside the listed code are tolerated (see above). */
  readonly incomplete: readonly boolean[];
  /** Per function: the offsets of its first and last instructions. */
  readonly bounds: readonly { readonly first: number; readonly last: number }[];
}

/** The operands with the target resolved, or an error at a 1-based column. */
export type TargetResult =
  | { readonly ok: true; readonly operands: readonly Operand[] }
  | { readonly ok: false; readonly column: number; readonly message: string };

const BACKQUOTED = /^`\((.*)\)$/;

/** Resolves the target operand of `raw`, an instruction of function `fn`. */
export function resolveTargets(raw: RawInstruction, fn: number, ctx: TargetContext): TargetResult {
  const operands = raw.operands.map((o) => o.operand);
  const op = raw.opcode;
  const declared = declaredTargets(raw, fn, ctx);
  if (declared !== null) return declared;
  if (!TARGET_OPCODES.has(op) || isRegisterIndirect(op, operands)) return { ok: true, operands };
  const last = raw.operands[raw.operands.length - 1];
  const fail = (column: number, message: string): TargetResult => ({ ok: false, column, message });
  if (last === undefined) {
    return REQUIRED_TARGET_OPCODES.has(op)
      ? fail(raw.opcodeColumn, `${op} needs a target: a label, a function name or a hex offset`)
      : { ok: true, operands };
  }
  const replace = (operand: Operand): TargetResult => ({
    ok: true,
    operands: [...operands.slice(0, -1), operand],
  });
  const external = EXTERNAL_OPCODES.has(op);
  const outside = (what: string, message: string): TargetResult =>
    external || ctx.incomplete[fn] === true
      ? replace({ kind: 'symbol', name: what })
      : fail(last.column, message);
  const fname = ctx.names[fn] ?? 'kernel';

  const quoted = BACKQUOTED.exec(last.text);
  const name =
    quoted?.[1] ??
    (last.operand.kind === 'text' && NAME_PATTERN.test(last.text) ? last.text : null);
  if (name !== null) {
    const found = lookupName(ctx.scope, name, fn);
    if (found.kind === 'pc') return replace({ kind: 'target', pc: found.pc });
    if (found.kind === 'ambiguous') {
      return fail(
        last.column,
        `label '${name}' is ambiguous: it is defined in several functions and not in ${fname}`,
      );
    }
    return outside(
      name,
      `unknown label '${name}' (no label or function of that name in function ${fname})`,
    );
  }
  if (last.operand.kind === 'imm') {
    const value = last.operand.value;
    const f = ctx.functions[fn]!;
    const pc = f.offsets.get(value);
    if (pc !== undefined) return replace({ kind: 'target', pc });
    const { first, last: lastOffset } = ctx.bounds[fn]!;
    if (value === lastOffset + INSTRUCTION_STRIDE) return replace({ kind: 'target', pc: f.end });
    if (external) {
      const entry = ctx.functions.findIndex((g) => g.entry === value);
      if (entry >= 0) return replace({ kind: 'target', pc: ctx.functions[entry]!.start });
      return replace({ kind: 'symbol', name: last.text });
    }
    const listed = value >= first && value <= lastOffset;
    const message = `no instruction at offset ${last.text} in function ${fname} (a target must be the address of one of its instructions)`;
    return listed ? fail(last.column, message) : outside(last.text, message);
  }
  if (REQUIRED_TARGET_OPCODES.has(op)) {
    return fail(
      last.column,
      `${op} target must be a label, a function name or a hex offset, not '${last.text}'`,
    );
  }
  return { ok: true, operands };
}

const BRANCH_TARGETS = /^\(\*"BRANCH_TARGETS\s+([^"]*)"\*\)$/;

/**
 * nvdisasm's declared targets of an indirect branch, `(*"BRANCH_TARGETS .L_1,.L_2"*)` (SEMANTICS §2):
 * each name (or hex offset) becomes a `target` operand in place of the annotation. Null when the
 * instruction carries no such annotation.
 */
function declaredTargets(raw: RawInstruction, fn: number, ctx: TargetContext): TargetResult | null {
  const i = raw.operands.findIndex((o) => BRANCH_TARGETS.test(o.text));
  if (i < 0) return null;
  const annotation = raw.operands[i]!;
  const names = BRANCH_TARGETS.exec(annotation.text)![1]!
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const targets: Operand[] = [];
  for (const name of names) {
    const offset = /^0x[0-9a-fA-F]+$/.test(name)
      ? ctx.functions[fn]!.offsets.get(parseInt(name, 16))
      : undefined;
    const found = offset === undefined ? lookupName(ctx.scope, name, fn) : null;
    const pc = offset ?? (found?.kind === 'pc' ? found.pc : undefined);
    if (pc === undefined)
      return {
        ok: false,
        column: annotation.column,
        message: `BRANCH_TARGETS names '${name}', which is no label or instruction of function ${ctx.names[fn] ?? 'kernel'}`,
      };
    targets.push({ kind: 'target', pc });
  }
  const operands = raw.operands.map((o) => o.operand);
  return { ok: true, operands: [...operands.slice(0, i), ...targets, ...operands.slice(i + 1)] };
}

/** Can control fall off the end of this instruction sequence (a listing cut off mid-code)? */
export function fallsOffEnd(opcodes: readonly { opcode: string; guarded: boolean }[]): boolean {
  const STOPS = new Set(['BRA', 'JMP', 'EXIT', 'KILL', 'RET', 'BRX', 'JMX', 'BRXU', 'JMXU']);
  for (let i = opcodes.length - 1; i >= 0; i--) {
    const { opcode, guarded } = opcodes[i]!;
    if (opcode === 'NOP') continue; // alignment padding after the final self-loop
    return guarded || !STOPS.has(opcode);
  }
  return true;
}
