/** Escaping for the self-contained HTML pages: text and attribute values, and embedded JSON. */

/** `s` as HTML text or a double-quoted attribute value. */
export const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * `value` as JSON safe inside `<script type="application/json">`: `<` is written `\u003c`, so no
 * `</script>` or `<!--` in a program's text can end the element.
 */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028|\u2029/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
