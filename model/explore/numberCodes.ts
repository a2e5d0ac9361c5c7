/**
 * The canonical byte code of the numbers of a key (`VectorTable`, `tables.ts`): one code per
 * number, short for the small integers, masks and -1 that keys are made of, and read back one way
 * only — so two vectors are equal exactly when their codes are.
 */

/** First bytes of the codes that are not a non-negative integer (`encodeNumber`). */
const NEG_INT = 0x40;
const FLOAT = 0x41;
const MINUS_HALF = 0x42;
const MINUS_ONE = 0x43;

/** Bytes of a float's code (a scratch shared by `encodeNumber` and `decodeNumbers`). */
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

/**
 * Writes the code of `x` at `out[j]` and returns the index after it. Codes (one per number; -0
 * is 0, as `===` sees them):
 * - an integer 0 ≤ x < 64: the one byte x;
 * - an integer 64 ≤ x < 2^32: little-endian base-128 digits, the high bit set on every byte but
 *   the last (so the first byte is ≥ 0x80), as many as x needs and at least two;
 * - -1 and -0.5: the bytes `MINUS_ONE`, `MINUS_HALF`;
 * - another negative 32-bit integer: `NEG_INT`, then the base-128 digits of -x (one or more);
 * - anything else: `FLOAT` and the 8 bytes of the float.
 * The first byte tells the form and each form ends by itself, so a code reads back one way only.
 */
export function encodeNumber(x: number, out: Uint8Array, j: number): number {
  if (x >>> 0 === x) {
    if (x < 64) {
      out[j] = x;
      return j + 1;
    }
    if (x < 0x80) {
      // Two digits, so that the first byte (≥ 0x80) says "digits".
      out[j] = 0x80 | x;
      out[j + 1] = 0;
      return j + 2;
    }
    return digits(x, out, j);
  }
  if (x === -1) {
    out[j] = MINUS_ONE;
    return j + 1;
  }
  if ((x | 0) === x) {
    out[j] = NEG_INT;
    return digits(-x, out, j + 1);
  }
  if (x === -0.5) {
    out[j] = MINUS_HALF;
    return j + 1;
  }
  out[j] = FLOAT;
  f64[0] = x;
  for (let k = 0; k < 8; k++) out[j + 1 + k] = f64Bytes[k]!;
  return j + 9;
}

/** Little-endian base-128 digits of `x` (< 2^32), the high bit set on every byte but the last. */
function digits(x: number, out: Uint8Array, j: number): number {
  let u = x >>> 0;
  while (u >= 0x80) {
    out[j++] = 0x80 | (u & 0x7f);
    u >>>= 7;
  }
  out[j++] = u;
  return j;
}

/** Reads back the numbers whose codes are `a[o .. o+len-1]` (`encodeNumber`). */
export function decodeNumbers(a: Uint8Array, o: number, len: number): Float64Array {
  const out: number[] = [];
  const end = o + len;
  const readDigits = (): number => {
    let x = 0;
    let scale = 1;
    for (;;) {
      const b = a[o++]!;
      x += (b & 0x7f) * scale;
      scale *= 128;
      if (b < 0x80) return x;
    }
  };
  while (o < end) {
    const b = a[o]!;
    if (b < 0x40) {
      out.push(b);
      o++;
    } else if (b >= 0x80) out.push(readDigits());
    else if (b === MINUS_ONE) {
      out.push(-1);
      o++;
    } else if (b === MINUS_HALF) {
      out.push(-0.5);
      o++;
    } else if (b === NEG_INT) {
      o++;
      out.push(-readDigits());
    } else {
      for (let k = 0; k < 8; k++) f64Bytes[k] = a[o + 1 + k]!;
      out.push(f64[0]!);
      o += 9;
    }
  }
  return Float64Array.from(out);
}
