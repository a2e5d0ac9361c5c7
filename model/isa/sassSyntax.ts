/**
 * Syntax tables shared by the SASS parser and printer: which opcodes carry a code target, which
 * print a space-separated trailing operand, which names are special registers. Everything here is
 * spelling, not meaning (SEMANTICS §2 says what the instructions do).
 */
import type { Instruction, Operand } from './program.ts';

/** Byte distance between consecutive instructions when a listing gives no addresses. */
export const INSTRUCTION_STRIDE = 16;

/**
 * Opcodes whose *last* operand is a code target (SYNTAX.md §3): a hex offset in the current
 * function, a label, or a function name. BSSY's target is its second (= last) operand. A CALL
 * through a register is not a direct call: see `isRegisterIndirect`.
 */
export const TARGET_OPCODES: ReadonlySet<string> = new Set([
  'BRA',
  'JMP',
  'CALL',
  'BSSY',
  'SSY',
  'PBK',
  'PCNT',
  'PRET',
]);

/**
 * Register-indirect transfers: BRX/JMX, and CALL whose first operand (after a second predicate)
 * is a register. Their trailing operand is added to the register — `BRX R8 -0x200` (minus the
 * next instruction's offset), `CALL.REL.NOINC R6 `(f)` and `RET.REL.NODEC R20 `(f)` (relative to
 * function f) — so it is never resolved to a PC: it stays `imm` or `text` (SEMANTICS §1).
 */
export function isRegisterIndirect(opcode: string, operands: readonly Operand[]): boolean {
  if (opcode === 'BRX' || opcode === 'BRXU' || opcode === 'JMX' || opcode === 'JMXU') return true;
  const lead = operands[0]?.kind === 'pred' ? 1 : 0;
  return opcode === 'CALL' && operands[lead]?.kind === 'reg';
}

/**
 * Opcodes that may leave the program: on them a name or address that is not in the program becomes
 * a `symbol` operand (`` CALL.ABS.NOINC `(vprintf) ``, `JMP 0x7fbb52fc3000`) instead of an error.
 */
export const EXTERNAL_OPCODES: ReadonlySet<string> = new Set(['JMP', 'CALL']);

/** Opcodes that a target operand is required on (a listing without one is malformed). */
export const REQUIRED_TARGET_OPCODES: ReadonlySet<string> = new Set([
  'BRA',
  'BSSY',
  'SSY',
  'PBK',
  'PCNT',
  'PRET',
]);

/** Convergence-unit state names that BMOV reads and writes (SYNTAX.md §3, BMOV). */
const SPECIAL_STATE = new Set([
  'MACTIVE',
  'MEXITED',
  'MATEXIT',
  'OPT_STACK',
  'TRAP_RETURN_MASK',
  'API_CALL_DEPTH',
  'ATEXIT_PC',
  'ATEXIT_PC.LO',
  'ATEXIT_PC.HI',
  'TRAP_RETURN_PC.LO',
  'TRAP_RETURN_PC.HI',
]);

/** True for names printed as `sreg`: `SR_TID.X`, `SRZ`, `MACTIVE`, `THREAD_STATE_ENUM.3`, … */
export function isSpecialRegister(name: string): boolean {
  return (
    /^SR_[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?$/.test(name) ||
    name === 'SRZ' ||
    /^THREAD_STATE_ENUM(\.\d+)?$/.test(name) ||
    SPECIAL_STATE.has(name)
  );
}

/** A label or symbol name as it may appear bare (`loop`, `.L_x_3`, `$str`, `_Z3fooPi`). */
export const NAME_PATTERN = /^[A-Za-z_.$][A-Za-z0-9_.$]*$/;

/**
 * How many leading operands are separated by `, ` before the space-separated tail that SASS prints
 * for RET, BRX, JMX and CALL with a register: `RET.REL.NODEC R2 0x0`, `BRX R8 -0x200`,
 * `CALL.REL.NOINC R6 `(f)``. A leading second-predicate operand keeps its comma (`RET P0, R2 0x0`).
 * Returns `null` when every operand is comma-separated.
 */
export function spaceSeparatedFrom(ins: Instruction): number | null {
  const ops: readonly Operand[] = ins.operands;
  const lead = ops[0]?.kind === 'pred' ? 1 : 0;
  switch (ins.opcode) {
    case 'RET':
    case 'BRX':
    case 'BRXU':
    case 'JMX':
    case 'JMXU':
      return lead;
    case 'CALL':
      return ops[lead]?.kind === 'reg' ? lead : null;
    default:
      return null;
  }
}
