/**
 * Canonical state keys (DESIGN.md "Performance notes"): every state type appends its numbers to
 * one `KeyWriter`. The numbers stay in a reusable `Float64Array` (no allocation per key), which the
 * explorer interns directly (`VectorTable`); `finish` packs them into a compact string for callers
 * that want a key value — one UTF-16 unit for a small non-negative integer (PCs, masks below
 * 2^15·7, lane counts), a tagged form otherwise. Equal states give equal keys; keys are exact (no
 * hashing), so no two distinct states ever share one.
 */
/**
 * Where a state type writes its key. Besides plain numbers it says which numbers are *lane sets*
 * (masks, bit l = lane l) and which belong to one lane, so that lane symmetry (`laneCanon.ts`)
 * can relabel lanes consistently; the plain `KeyWriter` writes all three as numbers.
 */
export interface KeySink {
  push(n: number): void;
  pushAll(ns: readonly number[]): void;
  /** A set of lanes: relabelled when lanes are permuted. */
  mask(m: number): void;
  /** A value that belongs to lane `l` (a per-lane array written lane by lane). */
  lane(l: number, v: number): void;
  /** A lane set that belongs to lane `l` (the mask an `its` lane waits with at WARPSYNC). */
  laneMask(l: number, m: number): void;
}

export class KeyWriter implements KeySink {
  /** The numbers written since the last `reset`/`finish`: `buf[0 .. length-1]`. */
  buf = new Float64Array(256);
  length = 0;

  /** Appends one number (any integer, or a float written in full). */
  push(n: number): void {
    if (this.length === this.buf.length) this.grow();
    this.buf[this.length++] = n;
  }

  pushAll(ns: readonly number[]): void {
    this.push(ns.length);
    for (let i = 0; i < ns.length; i++) this.push(ns[i]!);
  }

  mask(m: number): void {
    this.push(m);
  }

  lane(_l: number, v: number): void {
    this.push(v);
  }

  laneMask(_l: number, m: number): void {
    this.push(m);
  }

  reset(): void {
    this.length = 0;
  }

  /** The same numbers written as `other` since their last `reset`. */
  equals(other: KeyWriter): boolean {
    if (this.length !== other.length) return false;
    for (let i = 0; i < this.length; i++) if (this.buf[i] !== other.buf[i]) return false;
    return true;
  }

  /** The key so far as a string; the writer is reset for reuse. */
  finish(): string {
    const b = this.buf;
    let c = this.codes;
    let j = 0;
    for (let i = 0; i < this.length; i++) {
      // Room for the longest token: a tag, a float written out in full (< 32 chars), an end tag.
      if (j + 40 > c.length) c = this.codes = growCodes(c);
      const n = b[i]!;
      if (n >= 0 && n < 0xe000 && (n | 0) === n) c[j++] = n;
      else if (n >= 0 && n <= 0xffffffff && Math.floor(n) === n) {
        c[j++] = 0xe001;
        c[j++] = n >>> 16;
        c[j++] = n & 0xffff;
      } else if (n < 0 && n >= -0xe000 && (n | 0) === n) {
        c[j++] = 0xe002;
        c[j++] = -n;
      } else {
        c[j++] = 0xe003;
        const s = String(n);
        for (let k = 0; k < s.length; k++) c[j++] = s.charCodeAt(k);
        c[j++] = 0xe004;
      }
    }
    this.length = 0;
    let s = '';
    for (let i = 0; i < j; i += 8192)
      s += String.fromCharCode.apply(
        null,
        c.subarray(i, Math.min(j, i + 8192)) as unknown as number[],
      );
    return s;
  }

  private codes: Uint16Array = new Uint16Array(1024);

  private grow(): void {
    const next = new Float64Array(this.buf.length * 2);
    next.set(this.buf);
    this.buf = next;
  }
}

function growCodes(c: Uint16Array): Uint16Array {
  const next = new Uint16Array(c.length * 2);
  next.set(c);
  return next;
}
