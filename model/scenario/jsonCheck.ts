/**
 * A JSON syntax check that says where (issue 14, fault 4: `JSON.parse`'s messages carry no line
 * and column, or a snippet spanning several lines) and that bounds nesting (fault 5: an `expect`
 * state nested 10,000 deep overflowed the stack later, in comparison and printing). Iterative, one
 * pass, RFC 8259 grammar; it only checks — `JSON.parse` builds the value once the text passed.
 */
export type JsonCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly line: number;
      readonly column: number;
      readonly message: string;
    };

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

export function checkJson(text: string, maxDepth: number): JsonCheck {
  let i = 0;
  const n = text.length;
  const fail = (at: number, message: string): JsonCheck => {
    let line = 1;
    let col = 1;
    for (let k = 0; k < at && k < n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++;
        col = 1;
      } else col++;
    }
    return { ok: false, line, column: col, message };
  };
  // The offending character, escaped when it would not print (never raw to the terminal).
  const show = (at: number) => {
    if (at >= n) return 'the end of the file';
    const c = text.codePointAt(at)!;
    return c < 0x20 || (c >= 0x7f && c < 0xa0) || c === 0xfeff
      ? `character U+${c.toString(16).toUpperCase().padStart(4, '0')}`
      : `'${String.fromCodePoint(c)}'`;
  };
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  // Containers open so far: '{' or '['; `want` is what the grammar expects next.
  const stack: string[] = [];
  let want: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    ws();
    if (want === 'value') {
      const c = text[i];
      if (c === '{' || c === '[') {
        if (stack.length >= maxDepth)
          return fail(i, `nesting deeper than ${maxDepth} levels: not a scenario`);
        stack.push(c);
        i++;
        ws();
        if (text[i] === (c === '{' ? '}' : ']')) {
          stack.pop();
          i++;
          want = 'after';
        } else want = c === '{' ? 'key' : 'value';
        continue;
      }
      if (c === '"') {
        const e = string();
        if (e) return e;
      } else if (c === 't' || c === 'f' || c === 'n') {
        const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
        if (text.startsWith(word, i)) i += word.length;
        else return fail(i, `unexpected ${show(i)}: expected a value`);
      } else {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (!m) return fail(i, `unexpected ${show(i)}: expected a value`);
        i += m[0].length;
      }
      want = 'after';
      continue;
    }
    if (want === 'key') {
      if (text[i] !== '"')
        return fail(i, `unexpected ${show(i)}: expected a property name in double quotes`);
      const e = string();
      if (e) return e;
      ws();
      if (text[i] !== ':')
        return fail(i, `unexpected ${show(i)}: expected ':' after the property name`);
      i++;
      want = 'value';
      continue;
    }
    // after a value
    const top = stack[stack.length - 1];
    if (top === undefined) {
      if (i < n) return fail(i, `unexpected ${show(i)} after the end of the JSON value`);
      return { ok: true };
    }
    const close = top === '{' ? '}' : ']';
    if (text[i] === ',') {
      i++;
      want = top === '{' ? 'key' : 'value';
    } else if (text[i] === close) {
      i++;
      stack.pop();
    } else return fail(i, `unexpected ${show(i)}: expected ',' or '${close}'`);
  }

  function string(): JsonCheck | null {
    const start = i;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return null;
      }
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
            return fail(i, 'bad \\u escape: expected four hex digits');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return fail(i, `bad escape '\\${e ?? ''}' in a string`);
        continue;
      }
      if (c < 0x20) return fail(i, 'a control character in a string (write it as an escape)');
      i++;
    }
    return fail(start, 'a string that is never closed');
  }
}
