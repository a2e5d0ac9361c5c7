import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ERRORS, parseTraceg } from './index.ts';
import type { Trace } from './index.ts';

const OLD = [
  '-kernel name = _Z3fooPi',
  '-binary version = 70',
  '',
  '#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num reg_dests opcode src_num reg_srcs mem_width mem_addresses',
  '',
  '#BEGIN_TB',
  '',
  'thread block = 1,0,0',
  '',
  'warp = 0',
  'insts = 3',
  '1 0 0 0 0090 0000ffff 0 BRA 0 0 ',
  '1 0 0 0 00a0 ffff0000 1 R49 MOV 0 0 ',
  '1 0 0 0 0290 ffff0000 1 R8 LDG.E.SYS 1 R2 4 1 0x00007fe033702880 4 ',
  '',
  'warp = 1',
  'insts = 1',
  '1 0 0 1 0000 00000000 0 SHFL.IDX 4 R255 R255 R255 R255 0 ',
  '',
  '#END_TB',
  '',
].join('\n');

const COMPACT = [
  '-kernel name = bar',
  '-accelsim tracer version = 5',
  '-enable lineinfo = 0',
  '',
  '#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate',
  '',
  '#BEGIN_TB',
  'thread block = 0,2,0',
  'warp = 3',
  'insts = 4',
  '0050 00000000 0 BRA 0 0 528 ',
  '0060 00000005 1 R4 LDG.E.32 1 R2 4 2 0x1000 -8 0 ',
  '0070 00000003 0 STG.E.32 2 R2 R4 4 0 0x10 0x20 0 ',
  '0080 ffffffff 0 EXIT 0 0 0 ',
  '#END_TB',
].join('\n');

describe('parseTraceg: hand-written traces', () => {
  it('reads the older format with tb/warp columns', () => {
    const r = parseTraceg(OLD, { file: 'old.traceg' });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const t: Trace = r.value;
    expect(t.format).toBe('with-tb-warp');
    expect(t.header['-kernel name']).toBe('_Z3fooPi');
    expect(t.header['-binary version']).toBe('70');
    expect(t.header['traces format']).toMatch(/^threadblock_x /);
    expect(t.blocks).toHaveLength(1);
    expect(t.blocks[0]!.block).toEqual([1, 0, 0]);
    expect(t.blocks[0]!.warps.map((w) => [w.warp, w.declared, w.insts.length])).toEqual([
      [0, 3, 3],
      [1, 1, 1],
    ]);
    const [bra, mov, ldg] = t.blocks[0]!.warps[0]!.insts;
    expect(bra).toEqual({
      line: 12,
      pc: 0x90,
      mask: 0x0000ffff,
      opcode: 'BRA',
      modifiers: [],
      dests: [],
      srcs: [],
      memWidth: 0,
      addresses: { kind: 'none' },
      imm: null,
    });
    expect(mov).toMatchObject({
      line: 13,
      pc: 0xa0,
      mask: 0xffff0000,
      opcode: 'MOV',
      dests: [49],
      srcs: [],
    });
    expect(ldg).toEqual({
      line: 14,
      pc: 0x290,
      mask: 0xffff0000,
      opcode: 'LDG',
      modifiers: ['E', 'SYS'],
      dests: [8],
      srcs: [2],
      memWidth: 4,
      addresses: { kind: 'stride', base: 0x7fe033702880, stride: 4 },
      imm: null,
    });
    const shfl = t.blocks[0]!.warps[1]!.insts[0]!;
    expect(shfl).toMatchObject({
      mask: 0,
      opcode: 'SHFL',
      modifiers: ['IDX'],
      srcs: [255, 255, 255, 255],
    });
  });

  it('reads the compact (v5) format with an immediate column', () => {
    const r = parseTraceg(COMPACT);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const t = r.value;
    expect(t.format).toBe('compact');
    expect(t.blocks[0]!.block).toEqual([0, 2, 0]);
    const w = t.blocks[0]!.warps[0]!;
    expect([w.warp, w.declared]).toEqual([3, 4]);
    const [bra, ldg, stg, exit] = w.insts;
    expect(bra).toEqual({
      line: 11,
      pc: 0x50,
      mask: 0,
      opcode: 'BRA',
      modifiers: [],
      dests: [],
      srcs: [],
      memWidth: 0,
      addresses: { kind: 'none' },
      imm: 528,
    });
    // mask 0b101: two active lanes, so base-delta mode carries one delta.
    expect(ldg).toMatchObject({
      dests: [4],
      srcs: [2],
      memWidth: 4,
      addresses: { kind: 'delta', base: 0x1000, deltas: [-8] },
      imm: 0,
    });
    // mask 0b11: list mode lists one address per active lane.
    expect(stg).toMatchObject({
      srcs: [2, 4],
      addresses: { kind: 'list', addrs: [0x10, 0x20] },
      imm: 0,
    });
    expect(exit).toMatchObject({ opcode: 'EXIT', mask: 0xffffffff, imm: 0 });
  });
});

/** Replaces 1-based line `n` of `text`. */
const withLine = (text: string, n: number, line: string): string => {
  const ls = text.split('\n');
  ls[n - 1] = line;
  return ls.join('\n');
};

describe('parseTraceg: errors', () => {
  const errorsOf = (text: string) => {
    const r = parseTraceg(text, { file: 'bad.traceg' });
    expect(r.ok).toBe(false);
    return r.ok ? [] : r.error;
  };

  it('wrong column count', () => {
    const es = errorsOf(withLine(OLD, 13, '1 0 0 0 00a0 ffff0000 1 R49 MOV 0 0 7 '));
    expect(es).toHaveLength(1);
    expect(es[0]).toMatchObject({ file: 'bad.traceg', line: 13, column: 37 });
    expect(es[0]!.message).toMatch(/extra column '7'/);
    const short = errorsOf(withLine(OLD, 13, '1 0 0 0 00a0 ffff0000 1 R49 MOV 0 '));
    expect(short[0]).toMatchObject({ line: 13 });
    expect(short[0]!.message).toMatch(/ends early.*mem_width/);
  });

  it('non-hex PC or mask', () => {
    expect(errorsOf(withLine(OLD, 12, '1 0 0 0 00g0 0000ffff 0 BRA 0 0 '))[0]).toMatchObject({
      line: 12,
      column: 9,
    });
    const m = errorsOf(withLine(OLD, 12, '1 0 0 0 0090 1ffffffff 0 BRA 0 0 '));
    expect(m[0]).toMatchObject({ line: 12, column: 14 });
    expect(m[0]!.message).toMatch(/active mask/);
  });

  it('a register that is not R<n>', () => {
    const es = errorsOf(withLine(OLD, 13, '1 0 0 0 00a0 ffff0000 1 P0 MOV 0 0 '));
    expect(es[0]).toMatchObject({ line: 13, column: 25 });
    expect(es[0]!.message).toMatch(/R<n>/);
    expect(errorsOf(withLine(OLD, 13, '1 0 0 0 00a0 ffff0000 1 R256 MOV 0 0 '))[0]).toMatchObject({
      line: 13,
    });
  });

  it('an insts count that does not match', () => {
    const es = errorsOf(withLine(OLD, 11, 'insts = 4'));
    expect(es).toHaveLength(1);
    expect(es[0]).toMatchObject({ line: 11, column: 1 });
    expect(es[0]!.message).toMatch(/insts = 4 but 3/);
  });

  it('an instruction outside a warp section', () => {
    const text = withLine(OLD, 9, '1 0 0 0 0000 ffffffff 0 EXIT 0 0 ');
    expect(errorsOf(text)[0]).toMatchObject({ line: 9, column: 1 });
    expect(errorsOf(text)[0]!.message).toMatch(/outside a warp section/);
  });

  it('leading columns that disagree with the section, missing #END_TB, missing format', () => {
    expect(errorsOf(withLine(OLD, 13, '1 0 0 1 00a0 ffff0000 1 R49 MOV 0 0 '))[0]).toMatchObject({
      line: 13,
    });
    expect(errorsOf(withLine(OLD, 20, ''))[0]!.message).toMatch(/#END_TB/);
    expect(errorsOf(withLine(OLD, 4, ''))[0]).toMatchObject({ line: 12 });
  });

  it('reports at most MAX_ERRORS errors', () => {
    const bad = Array.from({ length: 50 }, () => '1 0 0 0 zz 0 0 EXIT 0 0 ');
    const text = OLD.replace('insts = 1\n', `insts = 1\n${bad.join('\n')}\n`);
    expect(errorsOf(text)).toHaveLength(MAX_ERRORS);
  });
});

describe('parseTraceg: never throws', () => {
  const check = (text: string): void => {
    const r = parseTraceg(text);
    if (!r.ok) {
      expect(r.error.length).toBeGreaterThan(0);
      expect(r.error.length).toBeLessThanOrEqual(MAX_ERRORS);
      for (const d of r.error) {
        expect(Number.isInteger(d.line) && d.line >= 1).toBe(true);
        expect(Number.isInteger(d.column) && d.column >= 1).toBe(true);
      }
    }
  };
  it('on random strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), check), {
      numRuns: 500,
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            '#BEGIN_TB',
            '#END_TB',
            'warp = 0',
            'insts = 1',
            'thread block = 0,0,0',
            '0 0 0',
            'R1',
            '\n',
            ' ',
          ),
          { maxLength: 40 },
        ),
        (parts) => check(parts.join(' ')),
      ),
      { numRuns: 300 },
    );
  });
  it('on real lines with random corruption', () => {
    for (const base of [OLD, COMPACT]) {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.nat(), fc.nat(), fc.string({ maxLength: 4 })), {
            minLength: 1,
            maxLength: 5,
          }),
          (edits) => {
            let text = base;
            for (const [pos, del, ins] of edits) {
              const p = pos % (text.length + 1);
              text = text.slice(0, p) + ins + text.slice(p + (del % 4));
            }
            check(text);
          },
        ),
        { numRuns: 500 },
      );
    }
  });
});

const REAL = new URL('../../../shared/traces/accel-sim-hbf__lud_kernel-8.traceg', import.meta.url);
const exists = existsSync(fileURLToPath(REAL));

describe.skipIf(!exists)('parseTraceg: the real LUD trace (../shared absent)', () => {
  it('parses into one block, one warp, 1,027 instructions', () => {
    const r = parseTraceg(readFileSync(REAL, 'utf8'), {
      file: 'accel-sim-hbf__lud_kernel-8.traceg',
    });
    if (!r.ok)
      throw new Error(r.error.map((d) => `${d.line}:${d.column}: ${d.message}`).join('\n'));
    const t = r.value;
    expect(t.format).toBe('with-tb-warp');
    expect(t.header['-kernel name']).toBe('_Z13lud_perimeterPfii');
    expect(t.header['-binary version']).toBe('70');
    expect(t.blocks).toHaveLength(1);
    expect(t.blocks[0]!.block).toEqual([0, 0, 0]);
    expect(t.blocks[0]!.warps).toHaveLength(1);
    const w = t.blocks[0]!.warps[0]!;
    expect(w.declared).toBe(1027);
    expect(w.insts).toHaveLength(1027);
    const bra = w.insts.find((i) => i.opcode === 'BRA')!;
    expect(bra).toMatchObject({ pc: 0x0090, mask: 0x0000ffff });
    expect(w.insts[0]).toMatchObject({ opcode: 'SHFL', pc: 0, mask: 0 });
    for (const i of w.insts) expect(i.mask >>> 0).toBe(i.mask);
  });
});
