/**
 * Splits the operand field of an instruction into operand strings. Operands are separated by `,`
 * at top level and also by whitespace at top level, because SASS prints a few trailing operands
 * after a space (`RET.ABS.NODEC R20 0x0`, `BRX R8 -0x200`, `CALL.REL.NOINC R6 `(f)``).
 * Brackets `[]`, parentheses `()` (including backquote-paren `` `( ``) and braces `{}` nest; a
 * separator inside them belongs to the operand (`32@lo((dummy + .L_x_0@srel))`).
 */

/** One operand's text and the 1-based column where it starts. */
export interface OperandText {
  readonly text: string;
  readonly column: number;
}

/** A problem found while splitting, at a 1-based column. */
export interface SplitError {
  readonly column: number;
  readonly message: string;
}

const OPEN: Readonly<Record<string, string>> = { '[': ']', '(': ')', '{': '}' };
const CLOSE = new Set([']', ')', '}']);

/**
 * Splits `field` (the text after the opcode, up to the `;`), which starts at 1-based column
 * `column` of its line. Returns the operands, or every error found (unbalanced brackets, empty
 * operands around commas).
 */
export function splitOperands(
  field: string,
  column: number,
): { ok: true; operands: OperandText[] } | { ok: false; errors: SplitError[] } {
  const operands: OperandText[] = [];
  const errors: SplitError[] = [];
  // Items between commas; `pendingComma` is the column of a comma still waiting for an operand.
  let itemsSinceComma = 0;
  let pendingComma: number | null = null;
  let start = -1;
  const stack: { close: string; at: number }[] = [];
  const finish = (end: number): void => {
    if (start < 0) return;
    operands.push({ text: field.slice(start, end), column: column + start });
    itemsSinceComma++;
    pendingComma = null;
    start = -1;
  };
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!;
    if (stack.length === 0 && (c === ',' || c === ' ' || c === '\t')) {
      finish(i);
      if (c === ',') {
        if (pendingComma !== null) {
          errors.push({ column: pendingComma, message: "expected an operand after ','" });
        } else if (itemsSinceComma === 0) {
          errors.push({ column: column + i, message: "expected an operand before ','" });
        }
        pendingComma = column + i;
        itemsSinceComma = 0;
      }
      continue;
    }
    if (start < 0) start = i;
    const close = OPEN[c];
    if (close !== undefined) {
      stack.push({ close, at: i });
    } else if (CLOSE.has(c)) {
      const top = stack[stack.length - 1];
      if (top === undefined || top.close !== c) {
        const expected = top === undefined ? '' : ` (expected '${top.close}')`;
        errors.push({ column: column + i, message: `unexpected '${c}'${expected}` });
        return { ok: false, errors };
      }
      stack.pop();
    }
  }
  const open = stack[stack.length - 1];
  if (open !== undefined) {
    const opener = field[open.at]!;
    errors.push({
      column: column + open.at,
      message: `unterminated '${opener}' (missing '${open.close}')`,
    });
    return { ok: false, errors };
  }
  finish(field.length);
  if (pendingComma !== null) {
    errors.push({ column: pendingComma, message: "expected an operand after ','" });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, operands };
}
