/**
 * `printTraceg` writes what `parseTraceg` reads, in the layout of the real Accel-Sim trace: the
 * LUD trace of `shared/traces/` is reprinted byte for byte, and hand-written traces of both
 * layouts (every address mode, the v5 immediate) survive print → parse.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTraceg, type Trace } from './index.ts';
import { compressAddresses, printKernelsList, printTraceg } from './printTraceg.ts';

/** A trace without the source line numbers (which printing renumbers). */
const withoutLines = (t: Trace) => ({
  ...t,
  blocks: t.blocks.map((b) => ({
    ...b,
    warps: b.warps.map((w) => ({ ...w, insts: w.insts.map((i) => ({ ...i, line: 0 })) })),
  })),
});

const parsed = (text: string): Trace => {
  const r = parseTraceg(text);
  if (!r.ok) throw new Error(r.error.map((d) => `${d.line}:${d.column}: ${d.message}`).join('\n'));
  return r.value;
};

const OLDER = [
  '-kernel name = k',
  '-block dim = (4,1,1)',
  '',
  '#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num reg_dests opcode src_num reg_srcs mem_width mem_addresses',
  '',
  '',
  '#BEGIN_TB',
  '',
  'thread block = 1,0,0',
  '',
  'warp = 0',
  'insts = 3',
  '1 0 0 0 0000 0000000f 1 R1 LDS 1 R2 4 0 0x0000000000000100 0x0000000000000108 0x0000000000000104 0x0000000000000110 ',
  '1 0 0 0 0010 00000005 0 STS 2 R2 R1 4 1 0x0000000000000200 8 ',
  '1 0 0 0 0020 0000000f 0 EXIT 0 0 ',
  '',
  '#END_TB',
  '',
].join('\n');

const COMPACT = [
  '-kernel name = bar',
  '-accelsim tracer version = 5',
  '',
  '#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate',
  '',
  '',
  '#BEGIN_TB',
  '',
  'thread block = 0,2,0',
  '',
  'warp = 3',
  'insts = 2',
  '0060 00000007 1 R4 LDG.E.32 1 R2 4 2 0x0000000000001000 -8 12 0 ',
  '0080 ffffffff 0 WARPSYNC 0 0 -1 ',
  '',
  '#END_TB',
  '',
].join('\n');

describe('printTraceg', () => {
  it('writes both layouts back as they were read (list, stride and delta addresses; immediates)', () => {
    for (const text of [OLDER, COMPACT]) {
      const t = parsed(text);
      expect(printTraceg(t)).toBe(text);
      expect(withoutLines(parsed(printTraceg(t)))).toEqual(withoutLines(t));
    }
  });

  it('compresses addresses as the tracer does: base and stride when regular, else the list', () => {
    expect(compressAddresses([0x100, 0x104, 0x108])).toEqual({
      kind: 'stride',
      base: 0x100,
      stride: 4,
    });
    expect(compressAddresses([0x100])).toEqual({ kind: 'stride', base: 0x100, stride: 0 });
    expect(compressAddresses([0x100, 0x108, 0x104])).toEqual({
      kind: 'list',
      addrs: [0x100, 0x108, 0x104],
    });
  });

  it('names each kernel file on its own line of kernelslist.g', () => {
    expect(printKernelsList(['kernel-1.traceg', 'kernel-2.traceg'])).toBe(
      'kernel-1.traceg\nkernel-2.traceg\n',
    );
  });
});

const REAL = new URL('../../../shared/traces/accel-sim-hbf__lud_kernel-8.traceg', import.meta.url);
describe.skipIf(!existsSync(fileURLToPath(REAL)))(
  'printTraceg: the real LUD trace (skipped: ../shared absent)',
  () => {
    it('reprints byte for byte', () => {
      const text = readFileSync(REAL, 'utf8');
      expect(printTraceg(parsed(text))).toBe(text);
    });
  },
);
