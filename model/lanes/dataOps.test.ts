/**
 * The pure data operations: LOP3.LUT truth tables and the SHF funnel shift. Expected values come
 * from the hardware definitions: a LOP3 table is the result of the operation applied to the
 * canonical inputs a = 0xf0, b = 0xcc, c = 0xaa (so bit i of the result is bit (a_i b_i c_i) of the
 * table); SHF shifts the 64-bit value hi:lo and keeps the low or the high word.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lop3, shift, UNKNOWN } from './index.ts';
import { lop3NonZero } from './dataOps.ts';

const u32 = fc.integer({ min: 0, max: 0xffffffff });

describe('lop3', () => {
  it('returns the table itself on the canonical inputs 0xf0, 0xcc, 0xaa', () => {
    // Low byte: the table. Bits 8..31 see a = b = c = 0, so they all equal table bit 0.
    for (let lut = 0; lut < 256; lut++) {
      const high = lut & 1 ? 0xffffff00 : 0;
      expect(lop3(0xf0, 0xcc, 0xaa, lut)).toBe((high | lut) >>> 0);
    }
  });

  it('the named tables: 0xc0 = a&b, 0xfc = a|b, 0x3c = a^b, 0x96 = a^b^c, 0xe8 = majority', () => {
    fc.assert(
      fc.property(u32, u32, u32, (a, b, c) => {
        expect(lop3(a, b, c, 0xc0)).toBe((a & b) >>> 0);
        expect(lop3(a, b, c, 0xfc)).toBe((a | b) >>> 0);
        expect(lop3(a, b, c, 0x3c)).toBe((a ^ b) >>> 0);
        expect(lop3(a, b, c, 0x96)).toBe((a ^ b ^ c) >>> 0);
        expect(lop3(a, b, c, 0xe8)).toBe(((a & b) | (a & c) | (b & c)) >>> 0);
        expect(lop3(a, b, c, 0x00)).toBe(0);
        expect(lop3(a, b, c, 0xff)).toBe(0xffffffff);
        expect(lop3(a, b, c, 0x0f)).toBe(~a >>> 0); // NOT a
      }),
    );
  });

  it('bit i of the result is table bit (a_i<<2 | b_i<<1 | c_i)', () => {
    fc.assert(
      fc.property(u32, u32, u32, fc.integer({ min: 0, max: 255 }), (a, b, c, lut) => {
        const r = lop3(a, b, c, lut);
        for (let i = 0; i < 32; i++) {
          const idx = (((a >>> i) & 1) << 2) | (((b >>> i) & 1) << 1) | ((c >>> i) & 1);
          expect((r >>> i) & 1).toBe((lut >>> idx) & 1);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('an unknown operand gives unknown', () => {
    expect(lop3(UNKNOWN, 1, 2, 0xc0)).toBe(UNKNOWN);
    expect(lop3(1, 2, UNKNOWN, 0xc0)).toBe(UNKNOWN);
  });
});

describe('shift (SHF funnel shift, SHL/SHR)', () => {
  const L = { left: true, signed: false, high: false };
  const LH = { left: true, signed: false, high: true };
  const R = { left: false, signed: false, high: false };
  const RH = { left: false, signed: false, high: true };
  const RHS = { left: false, signed: true, high: true };

  it('worked examples', () => {
    // SHF.L.U32 R1, R2, 0x4, RZ with R2 = 0x80000001: the top bit falls off the low word.
    expect(shift(0x80000001, 4, 0, L)).toBe(0x00000010);
    // SHF.L.U64.HI: (0x00000001:f0000000) << 4 = 0x1f:00000000, high word 0x1f.
    expect(shift(0xf0000000, 4, 0x1, LH)).toBe(0x1f);
    // SHF.R.U32 (low word of the funnel): (0xab:12345678) >> 8 = 0xab123456.
    expect(shift(0x12345678, 8, 0xab, R)).toBe(0xab123456);
    // SHF.R.U32.HI R1, RZ, 0x4, R3 with R3 = 0x80000000: logical, 0x08000000.
    expect(shift(0, 4, 0x80000000, RH)).toBe(0x08000000);
    // SHF.R.S32.HI R1, RZ, 0x1f, R3: the sign of R3 spread over the word.
    expect(shift(0, 31, 0x80000000, RHS)).toBe(0xffffffff);
    expect(shift(0, 31, 0x7fffffff, RHS)).toBe(0);
    // SHL R1, R2, 0x3 with R2 = 0x20000001: bit 29 leaves the word.
    expect(shift(0x20000001, 3, 0, L)).toBe(0x8);
    // SHR R1, R2, 0x3 with R2 = 0x80000000: logical.
    expect(shift(0x80000000, 3, 0, R)).toBe(0x10000000);
    expect(shift(0x12345678, 0, 0x9, R)).toBe(0x12345678);
  });

  it('agrees with 32-bit formulas for amounts 0..31', () => {
    fc.assert(
      fc.property(u32, u32, fc.integer({ min: 0, max: 31 }), (lo, hi, n) => {
        const carryIn = n === 0 ? 0 : lo >>> (32 - n);
        const carryDown = n === 0 ? 0 : hi << (32 - n);
        expect(shift(lo, n, hi, L)).toBe((lo << n) >>> 0);
        expect(shift(lo, n, hi, LH)).toBe(((hi << n) | carryIn) >>> 0);
        expect(shift(lo, n, hi, R)).toBe(((lo >>> n) | carryDown) >>> 0);
        expect(shift(lo, n, hi, RH)).toBe(hi >>> n);
        expect(shift(lo, n, hi, RHS)).toBe((hi >> n) >>> 0);
      }),
    );
  });

  it('an unknown operand gives unknown', () => {
    expect(shift(UNKNOWN, 1, 0, L)).toBe(UNKNOWN);
    expect(shift(1, UNKNOWN, 0, L)).toBe(UNKNOWN);
    expect(shift(1, 1, UNKNOWN, RH)).toBe(UNKNOWN);
  });
});

describe('lop3NonZero (LOP3.LUT P, … with unknown operands)', () => {
  it('never contradicts a concrete run: whatever the unknown operands hold', () => {
    fc.assert(
      fc.property(
        u32,
        u32,
        u32,
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 7 }),
        (a, b, c, lut, hidden) => {
          // Hide some operands; the answer must hold for the real values behind them.
          const r = lop3NonZero(
            hidden & 4 ? UNKNOWN : a,
            hidden & 2 ? UNKNOWN : b,
            hidden & 1 ? UNKNOWN : c,
            lut,
          );
          const real = lop3(a, b, c, lut) !== 0 ? 1 : 0;
          if (hidden === 0) expect(r).toBe(real);
          else if (r !== -1) expect(r).toBe(real);
        },
      ),
    );
  });

  it('decides what the bits force: a | x ≠ 0 when a ≠ 0, a & x = 0 when a = 0', () => {
    const x = UNKNOWN;
    expect(lop3NonZero(5, x, 0, 0xfc)).toBe(1); // 5 | x has bit 0 and bit 2 set
    expect(lop3NonZero(0, x, 0, 0xfc)).toBe(-1); // 0 | x: x decides
    expect(lop3NonZero(0, x, 0, 0xc0)).toBe(0); // 0 & x = 0
    expect(lop3NonZero(1, x, 0, 0xc0)).toBe(-1); // 1 & x: bit 0 of x decides
    expect(lop3NonZero(x, x, 0, 0x00)).toBe(0); // the empty table
    expect(lop3NonZero(x, x, x, 0xff)).toBe(1); // the full table
    // a ^ x is unknown even for a known a; x ^ x cannot be expressed (two operands, two unknowns).
    expect(lop3NonZero(0xff, x, 0, 0x3c)).toBe(-1);
  });
});
