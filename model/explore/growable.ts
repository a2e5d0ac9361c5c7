/**
 * Append-only typed arrays for the explorer's graph: one number per state or per edge, without
 * the per-element overhead of JS arrays (DESIGN.md "Performance notes").
 */
type Typed = Int32Array | Uint32Array | Uint8Array | Uint16Array;

export class Growable<T extends Typed> {
  private buf: T;
  length = 0;

  constructor(
    private readonly make: (n: number) => T,
    initial = 1024,
  ) {
    this.buf = make(initial);
  }

  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = this.make(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = v;
  }

  get(i: number): number {
    return this.buf[i]!;
  }

  /** A view of the filled part (valid until the next push). */
  view(): T {
    return this.buf.subarray(0, this.length) as T;
  }
}

export const int32 = (initial?: number) => new Growable((n) => new Int32Array(n), initial);
export const uint32 = (initial?: number) => new Growable((n) => new Uint32Array(n), initial);
export const uint16 = (initial?: number) => new Growable((n) => new Uint16Array(n), initial);
export const uint8 = (initial?: number) => new Growable((n) => new Uint8Array(n), initial);
