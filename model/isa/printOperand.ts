/**
 * Prints one operand in SASS syntax, so that `parseOperand` reads it back to an equal value.
 * Targets are printed by `printProgram.ts`, which knows labels and functions; here a target gets
 * the text its caller chose.
 */
import { RZ, URZ, type Operand, type PredRef } from './program.ts';

/** `0x10`, `-0x200`. */
export function formatHex(value: number): string {
  return `${value < 0 ? '-' : ''}0x${Math.abs(value).toString(16)}`;
}

/**
 * A float immediate that reads back to the same number and never looks like an integer:
 * `1.0`, `0.5`, `1e-05` → `0.00001`, `-0.0`, `1e+21`. JavaScript's shortest round-trip digits.
 */
export function formatFloat(value: number): string {
  if (Number.isNaN(value)) return '+QNAN';
  if (!Number.isFinite(value)) return value > 0 ? '+INF' : '-INF';
  if (Object.is(value, -0)) return '-0.0';
  const s = String(value);
  return /^-?\d+$/.test(s) ? `${s}.0` : s;
}

const predText = (p: PredRef, prefix: '' | 'U'): string =>
  `${p.negated ? '!' : ''}${prefix}P${p.index === 7 ? 'T' : p.index}`;

const regText = (index: number): string => (index === RZ ? 'RZ' : `R${index}`);
const uregText = (index: number): string => (index === URZ ? 'URZ' : `UR${index}`);

/** `+0x10`, `+-0x4` as SASS writes an offset after a register inside brackets. */
const plusOffset = (offset: number): string => `+${formatHex(offset)}`;

/** Prints a non-target operand; `target` and `symbol` print through `targetText`. */
export function printOperand(op: Operand, targetText: (pc: number) => string): string {
  switch (op.kind) {
    case 'reg':
      return `${regText(op.index)}${op.reuse ? '.reuse' : ''}`;
    case 'ureg':
      return uregText(op.index);
    case 'pred':
      return predText(op.pred, '');
    case 'upred':
      return predText(op.pred, 'U');
    case 'breg':
      return `B${op.index}`;
    case 'sreg':
      return op.name;
    case 'imm':
      return formatHex(op.value);
    case 'float':
      return formatFloat(op.value);
    case 'cbank': {
      const inner =
        op.offsetReg === null
          ? formatHex(op.offset)
          : `${regText(op.offsetReg)}${op.offset === 0 ? '' : plusOffset(op.offset)}`;
      return `c[${formatHex(op.bank)}][${inner}]`;
    }
    case 'mem': {
      const parts: string[] = [];
      if (op.base !== RZ || op.wide) parts.push(`${regText(op.base)}${op.wide ? '.64' : ''}`);
      if (op.ureg !== null) parts.push(uregText(op.ureg));
      if (parts.length === 0) return `[${op.offset === 0 ? 'RZ' : formatHex(op.offset)}]`;
      return `[${parts.join('+')}${op.offset === 0 ? '' : plusOffset(op.offset)}]`;
    }
    case 'target':
      return targetText(op.pc);
    case 'symbol':
      // An absolute address stays bare (`JMP 0x7fbb52fc3000`); a name is backquoted.
      return /^[+-]?(0x[0-9a-fA-F]+|\d+)$/.test(op.name) ? op.name : `\`(${op.name})`;
    case 'text':
      return op.text;
  }
}
