import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { controlSkeleton, lanePaths, lanePathStats, parseTraceg } from './index.ts';
import type { TraceWarp } from './index.ts';

/** A one-warp compact (v5) trace from `PC MASK OPCODE` rows. */
function warpOf(rows: readonly string[]): TraceWarp {
  const text = [
    '-kernel name = t',
    '-accelsim tracer version = 5',
    '#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate',
    '#BEGIN_TB',
    'thread block = 0,0,0',
    'warp = 0',
    `insts = ${rows.length}`,
    ...rows.map((r) => {
      const [pc, mask, op] = r.trim().split(/\s+/);
      return `${pc} ${mask} 0 ${op} 0 0 0 `;
    }),
    '#END_TB',
  ].join('\n');
  const r = parseTraceg(text);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value.blocks[0]!.warps[0]!;
}

describe('lanePaths: hand-written traces (warp of 4 lanes)', () => {
  // 0x00 BSSY B0, 0x60 ; 0x10 @P0 BRA 0x40 ; 0x20 MOV ; 0x30 BRA 0x50 ; 0x40 MOV ; 0x50 BSYNC B0 ;
  // 0x60 EXIT. P0 true for lanes 0,1: lanes 2,3 (fall-through) run first, then lanes 0,1.
  const IF_ELSE = warpOf([
    '0000 0000000f BSSY.RECONVERGENT',
    '0010 00000003 BRA',
    '0020 0000000c MOV',
    '0030 0000000c BRA',
    '0050 0000000c BSYNC',
    '0040 00000003 MOV',
    '0050 00000003 BSYNC',
    '0060 0000000f EXIT',
  ]);

  it('if/else: fall-through lanes first, then taken lanes, BSYNC once per path', () => {
    const p = lanePaths(IF_ELSE, 4);
    expect(p.uncertain).toEqual([]);
    expect(p.inconsistencies).toEqual([]);
    for (const l of [0, 1]) {
      const lane = p.lanes[l]!;
      expect(lane.pcs).toEqual([0x00, 0x10, 0x40, 0x50, 0x60]);
      expect(lane.steps.map((s) => s.index)).toEqual([0, 1, 5, 6, 7]);
      expect(lane.branches).toEqual([{ index: 1, pc: 0x10, taken: true, target: 0x40 }]);
      expect(lane.syncs).toEqual([{ index: 6, pc: 0x50, opcode: 'BSYNC' }]);
      expect(lane.exitIndex).toBe(7);
    }
    for (const l of [2, 3]) {
      const lane = p.lanes[l]!;
      expect(lane.pcs).toEqual([0x00, 0x10, 0x20, 0x30, 0x50, 0x60]);
      expect(lane.steps.map((s) => s.kind)).toEqual([
        'issued',
        'predicated-off',
        'issued',
        'issued',
        'issued',
        'issued',
      ]);
      expect(lane.branches).toEqual([
        { index: 1, pc: 0x10, taken: false, target: 0x20 },
        { index: 3, pc: 0x30, taken: true, target: 0x50 },
      ]);
      expect(lane.syncs).toEqual([{ index: 4, pc: 0x50, opcode: 'BSYNC' }]);
      expect(lane.exitIndex).toBe(7);
    }
  });

  it('if/else: the control skeleton', () => {
    const s = controlSkeleton(IF_ELSE, 4);
    expect(s.map((e) => [e.pc, e.opcode, e.control, e.issues, e.successors])).toEqual([
      [0x00, 'BSSY', true, 1, [0x10]],
      [0x10, 'BRA', true, 1, [0x20, 0x40]],
      [0x20, 'MOV', false, 1, []],
      [0x30, 'BRA', true, 1, [0x50]],
      [0x40, 'MOV', false, 1, []],
      [0x50, 'BSYNC', true, 2, [0x60]],
      [0x60, 'EXIT', true, 1, []],
    ]);
    expect(s[0]!.modifiers).toEqual(['RECONVERGENT']);
  });

  it('a predicated-off instruction: @P0 MOV with mask 0x3, lanes 2,3 fall through', () => {
    const p = lanePaths(
      warpOf(['0000 0000000f MOV', '0010 00000003 MOV', '0020 0000000f EXIT']),
      4,
    );
    expect(p.uncertain).toEqual([]);
    expect(p.inconsistencies).toEqual([]);
    for (const lane of p.lanes) {
      expect(lane.pcs).toEqual([0x00, 0x10, 0x20]);
      expect(lane.steps[1]!.kind).toBe(lane.lane < 2 ? 'issued' : 'predicated-off');
      expect(lane.exitIndex).toBe(2);
    }
  });

  it('an early EXIT of some lanes: @P0 EXIT with mask 0x5', () => {
    const p = lanePaths(
      warpOf([
        '0000 0000000f MOV',
        '0010 00000005 EXIT',
        '0020 0000000a MOV',
        '0030 0000000a EXIT',
      ]),
      4,
    );
    expect(p.uncertain).toEqual([]);
    expect(p.inconsistencies).toEqual([]);
    expect(p.lanes.map((l) => l.pcs)).toEqual([
      [0x00, 0x10],
      [0x00, 0x10, 0x20, 0x30],
      [0x00, 0x10],
      [0x00, 0x10, 0x20, 0x30],
    ]);
    expect(p.lanes.map((l) => l.exitIndex)).toEqual([1, 3, 1, 3]);
    expect(p.lanes[1]!.steps[1]!.kind).toBe('predicated-off');
  });

  it('a fully predicated-off instruction (mask 0) is executed by every lane', () => {
    const p = lanePaths(warpOf(['0000 00000000 SHFL.IDX', '0010 0000000f EXIT']), 4);
    expect(p.uncertain).toEqual([]);
    expect(p.lanes.map((l) => l.pcs)).toEqual(Array(4).fill([0x00, 0x10]));
  });

  it('a called function starting with a predicated-off instruction (mask 0) is its target', () => {
    // 0x00 CALL.REL.NOINC 0x30 ; 0x10 BSYNC ; 0x20 EXIT ; 0x30 @!PT SHFL.IDX ; 0x40 RET
    const p = lanePaths(
      warpOf([
        '0000 00000003 CALL.REL.NOINC',
        '0030 00000000 SHFL.IDX',
        '0040 00000003 RET.REL.NODEC',
        '0010 00000003 BSYNC',
        '0020 00000003 EXIT',
      ]),
      2,
    );
    expect(p.uncertain).toEqual([]);
    expect(p.lanes.map((l) => l.pcs)).toEqual(Array(2).fill([0x00, 0x30, 0x40, 0x10, 0x20]));
    expect(p.lanes[0]!.steps[1]!.kind).toBe('predicated-off');
  });

  it('a trace cut short (a livelock written for some turns): a lane that ran, was expected at a PC and never issues again was predicated off there', () => {
    // The spinlock on a SIMT stack, two lanes: CAS, ISETP, @P0 BRA for both; lane 0 got the lock
    // (guard false: it falls through and waits at the reconvergence point), lane 1 spins.
    const p = lanePaths(
      warpOf([
        '0000 00000003 ATOMS',
        '0010 00000003 ISETP',
        '0020 00000002 BRA',
        '0000 00000002 ATOMS',
        '0010 00000002 ISETP',
        '0020 00000002 BRA',
      ]),
      2,
    );
    expect(p.lanes[0]!.pcs).toEqual([0x00, 0x10, 0x20]);
    expect(p.lanes[0]!.steps[2]!.kind).toBe('predicated-off');
    expect(p.lanes[0]!.branches).toEqual([{ index: 2, pc: 0x20, taken: false, target: 0x30 }]);
    // Still reported: the trace alone cannot rule out that lane 0 was elsewhere.
    expect(p.uncertain.map((u) => [u.lane, u.pc])).toEqual([[0, 0x20]]);
  });

  it('says so where it cannot tell', () => {
    // Lane 3 is never issued: predicated off at 0x00 or never launched?
    const p = lanePaths(warpOf(['0000 00000007 MOV', '0010 00000007 EXIT']), 4);
    expect(p.uncertain).toHaveLength(1);
    expect(p.uncertain[0]).toMatchObject({ lane: 3, index: 0, pc: 0 });
    expect(p.lanes[3]!.pcs).toEqual([]);
    // A lane absent at BSYNC (never predicated) and next issued further on.
    const q = lanePaths(warpOf(['0000 00000003 BSYNC', '0010 00000003 EXIT']), 2);
    expect(q.uncertain).toEqual([]);
    const r = lanePaths(warpOf(['0000 00000001 BSYNC', '0010 00000003 EXIT']), 2);
    expect(r.uncertain.map((u) => [u.lane, u.pc])).toEqual([[1, 0]]);
    expect(r.lanes[1]!.pcs).toEqual([0x10]);
  });

  it('records an inconsistency when a lane is issued away from where it must be', () => {
    const p = lanePaths(warpOf(['0000 00000003 MOV', '0020 00000003 EXIT']), 2);
    expect(p.inconsistencies).toHaveLength(2);
    expect(p.inconsistencies[0]).toMatchObject({ lane: 0, index: 1, pc: 0x20, expected: 0x10 });
  });
});

const REAL = new URL('../../../shared/traces/accel-sim-hbf__lud_kernel-8.traceg', import.meta.url);
const exists = existsSync(fileURLToPath(REAL));

describe.skipIf(!exists)(
  `lanePaths: the real LUD trace${exists ? '' : ' (skipped: ../shared/traces absent)'}`,
  () => {
    it('every lane has a path and exits exactly once', () => {
      const r = parseTraceg(readFileSync(REAL, 'utf8'));
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      const w = r.value.blocks[0]!.warps[0]!;
      const p = lanePaths(w);
      const stats = lanePathStats(p);
      for (const lane of p.lanes) {
        expect(lane.pcs.length).toBeGreaterThan(0);
        expect(
          lane.steps.filter((s) => s.kind === 'issued' && w.insts[s.index]!.opcode === 'EXIT'),
        ).toHaveLength(1);
        expect(lane.exitIndex).not.toBeNull();
      }
      expect(w.insts.filter((i) => i.opcode === 'EXIT')).toHaveLength(2);
      console.log(
        `LUD lanePaths: steps per lane ${[...new Set(stats.steps)].join('/')}, uncertain points ${stats.uncertain}, inconsistencies ${stats.inconsistencies}`,
      );
      expect(p.inconsistencies).toEqual([]);
      const s = controlSkeleton(w);
      const bra = s.find((e) => e.pc === 0x90)!;
      expect(bra.successors).toEqual([0xa0, 0x5c0]);
      for (const e of s.filter((e) => e.opcode === 'CALL')) expect(e.successors).toEqual([0x3020]);
      const calls = s.filter((e) => e.opcode === 'CALL').map((e) => e.pc + 16);
      expect(calls).toHaveLength(16);
      expect(s.find((e) => e.opcode === 'RET')!.successors).toEqual(calls);
      expect(s.find((e) => e.pc === 0x3050)!.successors).toEqual([0x3060]);
    });
  },
);
