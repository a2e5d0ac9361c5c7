/**
 * Append-only typed arrays for the explorer's graph: one number per state or per edge, without
 * the per-element overhead of JS arrays (DESIGN.md "Performance notes").
 *
 * One class per element type, each with its own `push` and `get` (issue 10 §3): a single generic
 * class saw four typed-array kinds at the same property accesses, so V8 left its `push`
 * polymorphic and un-inlined (≈ 26 ns a call, 9 % of a search); here every call site and every
 * method body sees one kind only.
 */
type Typed = Int32Array | Uint32Array | Uint8Array | Uint16Array;

/** The shared, cold part: growth and views. `buf` is read by the subclasses' hot methods. */
export abstract class Growable<T extends Typed> {
  length = 0;

  constructor(protected buf: T) {}

  protected abstract make(n: number): T;

  /** Doubles the buffer (called by `push` when full). */
  protected grow(): void {
    const next = this.make(Math.max(16, this.buf.length * 2));
    next.set(this.buf);
    this.buf = next;
  }

  /** A view of the filled part (valid until the next push). */
  view(): T {
    return this.buf.subarray(0, this.length) as T;
  }
}

export class GrowableInt32 extends Growable<Int32Array> {
  protected make = (n: number) => new Int32Array(n);
  push(v: number): void {
    if (this.length === this.buf.length) this.grow();
    this.buf[this.length++] = v;
  }
  get(i: number): number {
    return this.buf[i]!;
  }
  /** Overwrites element `i` (< length). */
  set(i: number, v: number): void {
    this.buf[i] = v;
  }
}

export class GrowableUint32 extends Growable<Uint32Array> {
  protected make = (n: number) => new Uint32Array(n);
  push(v: number): void {
    if (this.length === this.buf.length) this.grow();
    this.buf[this.length++] = v;
  }
  get(i: number): number {
    return this.buf[i]!;
  }
}

export class GrowableUint16 extends Growable<Uint16Array> {
  protected make = (n: number) => new Uint16Array(n);
  push(v: number): void {
    if (this.length === this.buf.length) this.grow();
    this.buf[this.length++] = v;
  }
  get(i: number): number {
    return this.buf[i]!;
  }
}

export class GrowableUint8 extends Growable<Uint8Array> {
  protected make = (n: number) => new Uint8Array(n);
  push(v: number): void {
    if (this.length === this.buf.length) this.grow();
    this.buf[this.length++] = v;
  }
  get(i: number): number {
    return this.buf[i]!;
  }
  /** Overwrites element `i` (< length). */
  set(i: number, v: number): void {
    this.buf[i] = v;
  }
}

/*
 * Initial sizes of 64 bytes: V8 keeps a typed array that small on its heap (about 30 ns to make),
 * where a larger one gets an off-heap buffer (0.5–1 µs, and external memory that hastens GC). A
 * search allocates some 40 of these; `check` runs thousands of searches of a few hundred states,
 * so each starts small and doubles (issue 10 §3: lazy per-search allocation).
 */
export const int32 = (initial = 16) => new GrowableInt32(new Int32Array(initial));
export const uint32 = (initial = 16) => new GrowableUint32(new Uint32Array(initial));
export const uint16 = (initial = 32) => new GrowableUint16(new Uint16Array(initial));
export const uint8 = (initial = 64) => new GrowableUint8(new Uint8Array(initial));

/**
 * A map from ascending int keys to int values, appended in key order (edge and state ids as the
 * explorer creates them): two typed arrays and a binary search, instead of a `Map` whose inserts
 * cost a hash entry each (acceleration's compressed edges number in the millions).
 */
export class AscendingMap {
  private readonly keys = int32();
  private readonly values = int32();

  /** Adds `key` → `value`; `key` must exceed every key added before. */
  set(key: number, value: number): void {
    const n = this.keys.length;
    if (n > 0 && this.keys.get(n - 1) >= key)
      throw new Error(`AscendingMap: key ${key} out of order`);
    this.keys.push(key);
    this.values.push(value);
  }

  get(key: number): number | undefined {
    let lo = 0;
    let hi = this.keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const k = this.keys.get(mid);
      if (k === key) return this.values.get(mid);
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  get size(): number {
    return this.keys.length;
  }
}
