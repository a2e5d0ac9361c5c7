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

/** `text` with the ranges `[from, to)` replaced by spaces. */
function blankRanges(
  text: string,
  ranges: readonly (readonly [number, number])[],
  upTo: number,
): string {
  let out = '';
  let at = 0;
  for (const [from, to] of ranges) {
    if (from >= upTo) break;
    out += text.slice(at, from) + ' '.repeat(Math.min(to, upTo) - from);
    at = Math.min(to, upTo);
  }
  return out + text.slice(at, upTo);
}

/** Lexes one line (without its newline); `state` carries an open `/* …` to the next line. */
export function lexLine(text: string, state: LexState): LexedLine {
  const blanks: [number, number][] = [];
  let address: LexedAddress | null = null;
  let directive: LexedLine['directive'] = null;
  let i = 0;
  if (state.inBlockComment) {
    const close = text.indexOf('*/');
    i = close < 0 ? text.length : close + 2;
    blanks.push([0, i]);
    state.inBlockComment = close < 0;
  }
  for (;;) {
    const slash = text.indexOf('/', i);
    if (slash < 0 || slash + 1 >= text.length) break;
    const next = text[slash + 1];
    if (next === '/') {
      const m = DIRECTIVE.exec(text.slice(slash));
      if (m && blankRanges(text, blanks, slash).trim() === '') {
        const at = slash + m[0].length;
        directive = { column: at + 1, text: text.slice(at).trimEnd() };
      }
      blanks.push([slash, text.length]);
      break;
    }
    if (next !== '*') {
      i = slash + 1;
      continue;
    }
    const close = text.indexOf('*/', slash + 2);
    if (close < 0) {
      state.inBlockComment = true;
      blanks.push([slash, text.length]);
      break;
    }
    const inner = text.slice(slash + 2, close);
    if (address === null && HEX_ONLY.test(inner)) {
      if (ADDRESS_PREFIX.test(blankRanges(text, blanks, slash))) {
        address = { value: Number.parseInt(inner, 16), text: inner, column: slash + 1 };
        blanks.length = 0;
        blanks.push([0, slash]); // the control word or margin marker before it
      }
    }
    blanks.push([slash, close + 2]);
    i = close + 2;
  }
  let code = blankRanges(text, blanks, text.length);
  // A lone `@` margin marker on an encoding-only line (hand-edited XS86): nothing to read.
  if (address === null && /^\s*@\s*$/.test(code)) code = ' '.repeat(code.length);
  return { code, address, directive };
}
