/**
 * Reads one operand string into the structured `Operand` forms of `program.ts`. A form that does
 * not fit (`-R2`, `|R4|`, `R2.H1`, `desc[UR4][R2.64]`, `+INF`, `32@lo(...)`) is kept verbatim as
 * `text`; a form that fits but is out of range (`R300`, `P9`, `B16`) is an error. Targets are not
 * decided here: `parseTargets.ts` looks at the last operand of a branch again.
 */
import { RZ, URZ, type Operand, type PredRef } from './program.ts';
import { isSpecialRegister } from './sassSyntax.ts';

/** An operand, or a message about why its text is malformed. */
export type OperandParse =
  | { readonly ok: true; readonly operand: Operand }
  | { readonly ok: false; readonly message: string };

const good = (operand: Operand): OperandParse => ({ ok: true, operand });
const bad = (message: string): OperandParse => ({ ok: false, message });

const INT = /^[+-]?(0x[0-9a-fA-F]+|\d+)$/;
const FLOAT = /^[+-]?(\d+\.\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|\d+[eE][+-]?\d+)$/;

/** Integer value of `0x10`, `-0x200`, `5`, `+3`; null when not an integer or not exact in a double. */
export function parseInteger(text: string): number | null {
  if (!INT.test(text)) return null;
  const negative = text.startsWith('-');
  const digits = text.replace(/^[+-]/, '');
  const magnitude = digits.startsWith('0x')
    ? Number.parseInt(digits.slice(2), 16)
    : Number.parseInt(digits, 10);
  if (!Number.isSafeInteger(magnitude)) return null;
  return negative ? -magnitude : magnitude;
}

const PRED: Readonly<Record<'' | 'U', RegExp>> = { '': /^(!?)P(T|\d+)$/, U: /^(!?)UP(T|\d+)$/ };

/** `P3`, `!P3`, `PT`, `!PT` (with `prefix` 'U': `UP3`, `!UPT`); null if not that shape. */
function parsePred(text: string, prefix: '' | 'U'): PredRef | 'range' | null {
  const m = PRED[prefix].exec(text);
  if (!m) return null;
  const index = m[2] === 'T' ? 7 : Number(m[2]);
  if (index > 6 && m[2] !== 'T') return 'range';
  return { index, negated: m[1] === '!' };
}

/** `R4`/`RZ` → index, `R300` → 'range', anything else → null. */
function parseReg(text: string): number | 'range' | null {
  if (text === 'RZ') return RZ;
  const m = /^R(\d+)$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  return n <= 254 ? n : 'range';
}

/** `UR4`/`URZ` → index, `UR99` → 'range', anything else → null. */
function parseUreg(text: string): number | 'range' | null {
  if (text === 'URZ') return URZ;
  const m = /^UR(\d+)$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  return n < URZ ? n : 'range';
}

/** Parses one operand's text (already trimmed, no separators at top level). */
export function parseOperand(text: string): OperandParse {
  const regText = text.endsWith('.reuse') ? text.slice(0, -'.reuse'.length) : text;
  const reg = parseReg(regText);
  if (reg === 'range') return bad(`register '${regText}' out of range (R0..R254 or RZ)`);
  if (reg !== null) return good({ kind: 'reg', index: reg, reuse: regText !== text });
  const ureg = parseUreg(text);
  if (ureg === 'range') return bad(`uniform register '${text}' out of range (UR0..UR62 or URZ)`);
  if (ureg !== null) return good({ kind: 'ureg', index: ureg });
  for (const prefix of ['', 'U'] as const) {
    const pred = parsePred(text, prefix);
    if (pred === 'range')
      return bad(`predicate '${text}' out of range (${prefix}P0..${prefix}P6 or ${prefix}PT)`);
    if (pred !== null) return good({ kind: prefix === '' ? 'pred' : 'upred', pred });
  }
  const breg = /^B(\d+)$/.exec(text);
  if (breg) {
    const n = Number(breg[1]);
    return n <= 15
      ? good({ kind: 'breg', index: n })
      : bad(`barrier register '${text}' out of range (B0..B15)`);
  }
  if (isSpecialRegister(text)) return good({ kind: 'sreg', name: text });
  const value = parseInteger(text);
  if (value !== null) return good({ kind: 'imm', value });
  if (FLOAT.test(text)) return good({ kind: 'float', value: Number.parseFloat(text) });
  if (text.startsWith('c[')) return parseConstBank(text);
  if (text.startsWith('[')) return parseMemory(text);
  return good({ kind: 'text', text });
}

/** `c[0x0][0x160]`, `c[0x3][R2]`, `c[0x3][R2+0x10]`; other bank forms stay text. */
function parseConstBank(text: string): OperandParse {
  const m = /^c\[([^\]]+)\]\[([^\]]+)\]$/.exec(text);
  const bank = m ? parseInteger(m[1]!) : null;
  if (!m || bank === null || bank < 0) return good({ kind: 'text', text });
  const inner = parseAddressTerms(m[2]!);
  if (inner === 'text') return good({ kind: 'text', text });
  if (typeof inner === 'string') return bad(inner);
  if (inner.ureg !== null || inner.wide) return good({ kind: 'text', text });
  return good({ kind: 'cbank', bank, offset: inner.offset, offsetReg: inner.base });
}

/** `[R2]`, `[R2.64+0x10]`, `[R2.64+UR4+0x8]`, `[UR4]`, `[0x10]`, `[R2+-0x4]`; others stay text. */
function parseMemory(text: string): OperandParse {
  if (!text.endsWith(']')) return good({ kind: 'text', text });
  const inner = parseAddressTerms(text.slice(1, -1));
  if (inner === 'text') return good({ kind: 'text', text });
  if (typeof inner === 'string') return bad(inner);
  const { base, wide, ureg, offset } = inner;
  return good({ kind: 'mem', base: base ?? RZ, wide, ureg, offset });
}

interface AddressTerms {
  base: number | null;
  wide: boolean;
  ureg: number | null;
  offset: number;
}

/**
 * The inside of an address, `R2.64+UR4+-0x8`: optional register (with `.64`), optional uniform
 * register, optional signed integer, in that order. 'text' when the shape is different; a string
 * message when a register is out of range.
 */
function parseAddressTerms(inner: string): AddressTerms | 'text' | string {
  const terms = inner
    .replace(/\s+/g, '')
    .replace(/([0-9A-Za-z])-/g, '$1+-')
    .split('+');
  const out: AddressTerms = { base: null, wide: false, ureg: null, offset: 0 };
  let stage = 0; // 0: expecting base, 1: ureg, 2: offset, 3: done
  for (const term of terms) {
    const wide = term.endsWith('.64');
    const reg = parseReg(wide ? term.slice(0, -3) : term);
    const ureg = parseUreg(term);
    const value = parseInteger(term);
    if (reg !== null && stage === 0) {
      if (reg === 'range') return `register '${term}' out of range (R0..R254 or RZ)`;
      [out.base, out.wide, stage] = [reg, wide, 1];
    } else if (ureg !== null && stage <= 1) {
      if (ureg === 'range') return `uniform register '${term}' out of range (UR0..UR62 or URZ)`;
      [out.ureg, stage] = [ureg, 2];
    } else if (value !== null && stage <= 2) {
      [out.offset, stage] = [value, 3];
    } else {
      return 'text';
    }
  }
  return stage === 0 ? 'text' : out;
}
