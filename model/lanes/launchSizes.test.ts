/**
 * Launch sizes in constant bank 0 (issue 16, `launchSizeConstants`): where the listings in
 * `../shared/sass/` read blockDim and gridDim — c[0x0][0x0] and c[0x0][0xc] up to sm_90,
 * c[0x0][0x360] and c[0x0][0x370] on sm_100/sm_120 — hold one block of K·W threads; the header
 * still overrides them, and the architecture is read from the listing.
 */
import { describe, expect, it } from 'vitest';
import { machineOf, load } from '../testing/run.ts';
import { readReg } from './laneData.ts';

/** R0..R3 after the four loads, lane 0 of warp 0. */
function sizes(text: string): number[] {
  const m = machineOf(text, 'its');
  let s = m.initial();
  for (let i = 0; i < 4; i++) s = m.successors(s)[0]!.next!;
  const d = s.warps[0]!.data;
  return [0, 1, 2, 3].map((r) => readReg(d, m.ctx.layout, 0, r));
}

const listing = (flags: string, header: string, offsets: readonly number[]) =>
  [
    `// @warpcheck warp-size=8 warps=2${header}`,
    `\t.headerflags    @"${flags}"`,
    '\t\tFunction : k',
    ...offsets.map((o, r) => `        MOV R${r}, c[0x0][0x${o.toString(16)}] ;`),
    '        EXIT ;',
  ].join('\n');

describe('launch sizes in constant bank 0', () => {
  it('reads the architecture from the header flags or the cuobjdump line', () => {
    expect(
      load(listing('EF_CUDA_SM89 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM89)', '', [0])).program.arch,
    ).toBe(89);
    expect(load('\tcode for sm_70\n\t\tFunction : k\n        EXIT ;\n').program.arch).toBe(70);
    expect(load('EXIT\n').program.arch).toBeUndefined();
  });

  it('gives blockDim.x = K·W = 16 and gridDim.x = 1 where each architecture keeps them', () => {
    // sm_89: blockDim at 0x0, 0x4; gridDim at 0xc, 0x10.
    expect(sizes(listing('EF_CUDA_SM89', '', [0x0, 0x4, 0xc, 0x10]))).toEqual([16, 1, 1, 1]);
    // sm_100: blockDim at 0x360, 0x364; gridDim at 0x370, 0x374; 0x0 is not a size there.
    expect(sizes(listing('EF_CUDA_SM100', '', [0x360, 0x364, 0x370, 0x0]))).toEqual([16, 1, 1, -1]);
  });

  it('lets the launch header override them', () => {
    expect(
      sizes(listing('EF_CUDA_SM89', ' c[0x0][0x0]=64 c[0x0][0xc]=4', [0x0, 0x4, 0xc, 0x10])),
    ).toEqual([64, 1, 4, 1]);
  });
});
