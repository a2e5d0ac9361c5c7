/**
 * One instruction line of a `.traceg` file, read column by column as its `TraceLayout` says.
 * Never throws: every malformed column becomes a `{ column, message }` pointing at the token.
 */
import type { TraceAddresses, TraceInst } from './trace.ts';
import type { TraceLayout } from './traceLayout.ts';

/** A whitespace-separated token and its 1-based column. */
export interface Token {
  readonly text: string;
  readonly column: number;
}

/** Splits a line on spaces and tabs, keeping each token's 1-based column. */
export function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  const re = /[^ \t]+/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    tokens.push({ text: m[0], column: m.index + 1 });
  }
  return tokens;
}

/** What the leading columns of the older format say: thread block and warp of the line. */
export interface TraceLinePrefix {
  readonly block: readonly [number, number, number];
  readonly warp: number;
}

export type ParsedLine =
  | { readonly ok: true; readonly inst: TraceInst; readonly prefix: TraceLinePrefix | null }
  | { readonly ok: false; readonly column: number; readonly message: string };

const HEX = /^(0[xX])?[0-9a-fA-F]{1,16}$/;
const DEC = /^[0-9]{1,15}$/;
const SIGNED = /^-?[0-9]{1,15}$/;

class LineError {
  constructor(
    readonly column: number,
    readonly message: string,
  ) {}
}

/** Reads `tokens` of the instruction on line `line`. */
export function parseTraceInst(
  tokens: readonly Token[],
  layout: TraceLayout,
  line: number,
): ParsedLine {
  try {
    return readLine(tokens, layout, line);
  } catch (e) {
    // Only LineError is thrown below; it never leaves this module.
    if (e instanceof LineError) return { ok: false, column: e.column, message: e.message };
    return { ok: false, column: 1, message: `internal error reading the line: ${String(e)}` };
  }
}

function readLine(tokens: readonly Token[], layout: TraceLayout, line: number): ParsedLine {
  let i = 0;
  const endColumn = (): number => {
    const last = tokens[tokens.length - 1];
    return last === undefined ? 1 : last.column + last.text.length;
  };
  const next = (what: string): Token => {
    const t = tokens[i];
    if (t === undefined) {
      throw new LineError(
        endColumn(),
        `line ends early: expected ${what} (column ${i + 1} of the line)`,
      );
    }
    i++;
    return t;
  };
  const dec = (what: string, max: number): number => {
    const t = next(what);
    if (!DEC.test(t.text) || Number(t.text) > max) {
      throw new LineError(
        t.column,
        `expected ${what} (a decimal number up to ${max}), found '${t.text}'`,
      );
    }
    return Number(t.text);
  };
  const signed = (what: string): number => {
    const t = next(what);
    if (!SIGNED.test(t.text))
      throw new LineError(t.column, `expected ${what} (a decimal integer), found '${t.text}'`);
    return Number(t.text);
  };
  const hex = (what: string, maxDigits: number): number => {
    const t = next(what);
    const digits = t.text.replace(/^0[xX]/, '');
    if (!HEX.test(t.text) || digits.length > maxDigits) {
      throw new LineError(
        t.column,
        `expected ${what} (up to ${maxDigits} hex digits), found '${t.text}'`,
      );
    }
    const v = Number.parseInt(digits, 16);
    if (!Number.isSafeInteger(v))
      throw new LineError(t.column, `${what} '${t.text}' is larger than 2^53`);
    return v;
  };
  const reg = (what: string): number => {
    const t = next(what);
    const m = /^R([0-9]{1,3})$/.exec(t.text);
    if (m === null || Number(m[1]) > 255) {
      throw new LineError(
        t.column,
        `expected ${what} as R<n> with n 0..255 (R255 is RZ), found '${t.text}'`,
      );
    }
    return Number(m[1]);
  };

  let prefix: TraceLinePrefix | null = null;
  if (layout.format === 'with-tb-warp') {
    const x = dec('threadblock_x', 2 ** 31);
    const y = dec('threadblock_y', 2 ** 31);
    const z = dec('threadblock_z', 2 ** 31);
    prefix = { block: [x, y, z], warp: dec('warpid_tb', 2 ** 31) };
  }
  const pc = hex('the PC', 13);
  const mask = hex('the active mask', 8);
  const destNum = dec('dest_num', 8);
  const dests: number[] = [];
  for (let k = 0; k < destNum; k++) dests.push(reg(`destination register ${k + 1} of ${destNum}`));
  const opTok = next('the opcode');
  if (!/^[A-Z_][A-Z0-9_]*(\.[A-Za-z0-9_]+)*$/.test(opTok.text)) {
    throw new LineError(
      opTok.column,
      `expected an opcode such as 'LDG.E.SYS', found '${opTok.text}'`,
    );
  }
  const [opcode, ...modifiers] = opTok.text.split('.');
  const srcNum = dec('src_num', 8);
  const srcs: number[] = [];
  for (let k = 0; k < srcNum; k++) srcs.push(reg(`source register ${k + 1} of ${srcNum}`));
  const memWidth = dec('mem_width', 1024);
  const active = popcount(mask);
  let addresses: TraceAddresses = { kind: 'none' };
  if (memWidth > 0) {
    const modeTok = tokens[i];
    const compressed =
      layout.compressed === 'auto'
        ? modeTok !== undefined && /^[0-9]$/.test(modeTok.text)
        : layout.compressed;
    const mode = compressed ? dec('the address compression mode (0, 1 or 2)', 9) : 0;
    if (mode === 0) {
      const addrs: number[] = [];
      for (let k = 0; k < active; k++)
        addrs.push(hex(`address ${k + 1} of ${active} (one per active lane)`, 16));
      addresses = { kind: 'list', addrs };
    } else if (mode === 1) {
      addresses = {
        kind: 'stride',
        base: hex('the base address', 16),
        stride: signed('the address stride'),
      };
    } else if (mode === 2) {
      const base = hex('the base address', 16);
      const deltas: number[] = [];
      for (let k = 1; k < active; k++) deltas.push(signed(`address delta ${k} of ${active - 1}`));
      addresses = { kind: 'delta', base, deltas };
    } else {
      const t = tokens[i - 1]!;
      throw new LineError(
        t.column,
        `unknown address compression mode ${mode}: expected 0 (list), 1 (base, stride) or 2 (base, deltas)`,
      );
    }
  }
  const imm = layout.immediate ? signed('the immediate') : null;
  if (i < tokens.length) {
    const t = tokens[i]!;
    throw new LineError(
      t.column,
      `unexpected extra column '${t.text}': the line has ${tokens.length} columns, the format and counts on it account for ${i}`,
    );
  }
  const inst: TraceInst = {
    line,
    pc,
    mask,
    opcode: opcode!,
    modifiers,
    dests,
    srcs,
    memWidth,
    addresses,
    imm,
  };
  return { ok: true, inst, prefix };
}

/** Number of set bits of a 32-bit mask. */
function popcount(mask: number): number {
  let n = 0;
  for (let m = mask >>> 0; m !== 0; m >>>= 1) n += m & 1;
  return n;
}
