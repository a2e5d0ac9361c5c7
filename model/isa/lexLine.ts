/**
 * Line lexer: removes comments from one source line while keeping columns, and picks out the parts
 * that live inside comment syntax but carry meaning — the `/*0070*\/` address, the `// @warpcheck`
 * launch-header directive — and the prefixes that carry none (CuAssembler's control word
 * `[B------:R-:W-:-:S01]`, the `@` margin marker of hand-edited listings).
 *
 * Invariant: `code.length === text.length`, and every character of `code` is either the source
 * character at that column or a space (comments and ignored prefixes are blanked), so a column
 * found in `code` is a column of the source line.
 */

/** Whether the previous line left a block comment open. Mutated by `lexLine`. */
export interface LexState {
  inBlockComment: boolean;
}

/** The `/*0070*\/` address of an instruction line. `column` is 1-based, at the `/`. */
export interface LexedAddress {
  readonly value: number;
  readonly text: string;
  readonly column: number;
}

/** One source line with its comments removed. */
export interface LexedLine {
  /** The line with comments, control word and margin marker replaced by spaces. */
  readonly code: string;
  /** The address comment, when it is the first thing on the line (after a control word). */
  readonly address: LexedAddress | null;
  /** `// @warpcheck <text>` on a line of its own: 1-based column of `<text>`, and the text. */
  readonly directive: { readonly column: number; readonly text: string } | null;
}

const HEX_ONLY = /^[0-9a-fA-F]+$/;
/** What may precede an address on its line: nothing, a CuAssembler control word, or an `@` marker. */
const ADDRESS_PREFIX = /^\s*(\[[^\]]*\]|@)?\s*$/;
const DIRECTIVE = /^\/\/\s*@warpcheck\b[ \t]*/;

/** Lexes one line (without its newline); `state` carries an open `/* …` to the next line. */
export function lexLine(text: string, state: LexState): LexedLine {
  const out = text.split('');
  let address: LexedAddress | null = null;
  let directive: LexedLine['directive'] = null;
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to && k < out.length; k++) out[k] = ' ';
  };
  let i = 0;
  while (i < text.length) {
    if (state.inBlockComment) {
      const close = text.indexOf('*/', i);
      const end = close < 0 ? text.length : close + 2;
      blank(i, end);
      if (close >= 0) state.inBlockComment = false;
      i = end;
      continue;
    }
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      const before = out.slice(0, i).join('');
      const m = DIRECTIVE.exec(text.slice(i));
      if (m && before.trim() === '') {
        directive = { column: i + m[0].length + 1, text: text.slice(i + m[0].length).trimEnd() };
      }
      blank(i, text.length);
      break;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) {
        state.inBlockComment = true;
        blank(i, text.length);
        break;
      }
      const inner = text.slice(i + 2, close);
      const before = out.slice(0, i).join('');
      if (address === null && HEX_ONLY.test(inner) && ADDRESS_PREFIX.test(before)) {
        address = { value: Number.parseInt(inner, 16), text: inner, column: i + 1 };
        blank(0, i); // the control word or margin marker before it
      }
      blank(i, close + 2);
      i = close + 2;
      continue;
    }
    i++;
  }
  let code = out.join('');
  // A lone `@` margin marker on an encoding-only line (hand-edited XS86): nothing to read.
  if (address === null && /^\s*@\s*$/.test(code)) code = ' '.repeat(code.length);
  return { code, address, directive };
}
