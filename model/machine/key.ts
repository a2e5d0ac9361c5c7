/**
 * Canonical state keys (DESIGN.md "Performance notes"): every state type appends its numbers to
 * one `KeyWriter`, which packs them into a compact string — one UTF-16 unit for a small
 * non-negative integer (PCs, masks below 2^15·7, lane counts), a tagged form otherwise. Equal
 * states give equal keys; the key is exact (no hashing), so the visited set never collides.
 */
export class KeyWriter {
  private codes: number[] = [];

  /** Appends one number (any integer, or a float written in full). */
  push(n: number): void {
    const c = this.codes;
    if (n >= 0 && n < 0xe000 && (n | 0) === n) c.push(n);
    else if (n >= 0 && n <= 0xffffffff && Math.floor(n) === n) c.push(0xe001, n >>> 16, n & 0xffff);
    else if (n < 0 && n >= -0xe000 && (n | 0) === n) c.push(0xe002, -n);
    else {
      c.push(0xe003);
      const s = String(n);
      for (let i = 0; i < s.length; i++) c.push(s.charCodeAt(i));
      c.push(0xe004);
    }
  }

  pushAll(ns: readonly number[]): void {
    this.push(ns.length);
    for (let i = 0; i < ns.length; i++) this.push(ns[i]!);
  }

  /** The key so far; the writer is reset for reuse. */
  finish(): string {
    const c = this.codes;
    let s = '';
    for (let i = 0; i < c.length; i += 8192)
      s += String.fromCharCode.apply(null, c.slice(i, i + 8192));
    this.codes = [];
    return s;
  }
}
