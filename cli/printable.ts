/**
 * Text from a file, made safe to print (issue 14: control characters in a scenario's name reached
 * the terminal, where an escape sequence can recolour, move the cursor or retitle the window).
 * C0 and C1 control characters and DEL become `\u00XX`-style escapes; tabs and newlines too, so a
 * name stays on its line.
 */
export function printable(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
