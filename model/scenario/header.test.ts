/**
 * The `// @warpcheck` launch header (SEMANTICS §5; syntax in `header.ts`): each item form, and
 * errors with the line and column of the offending item.
 */
import { describe, expect, it } from 'vitest';
import { parseSass } from '../isa/parseSass.ts';
import { parseHeader } from './header.ts';
import { loadProgram, resolveLaunch } from './loadProgram.ts';
import { readWord } from '../lanes/index.ts';
import { machineOf, regsOf } from '../testing/run.ts';

const dir = (text: string, line = 1, column = 15) => ({ line, column, text });

function header(...texts: string[]) {
  const r = parseHeader(
    texts.map((t, i) => dir(t, i + 1)),
    'h.sass',
  );
  if (!r.ok) return expect.fail(r.error.map((e) => e.message).join('\n'));
  return r.value;
}

describe('parseHeader: items', () => {
  it('warp-size and warps', () => {
    expect(header('warp-size=8 warps=2').launch).toEqual({ warpSize: 8, warps: 2 });
    expect(header('warp-size=0x20').launch).toEqual({ warpSize: 32 });
  });

  it('entry', () => {
    expect(header('entry=_Z6kernelPi').entry).toBe('_Z6kernelPi');
    expect(header('warps=1').entry).toBeNull();
  });

  it('mem[ADDR]=V, hex or decimal; negative values wrap to 32 bits', () => {
    expect(header('mem[0x100]=5 mem[512]=0x10 mem[0x104]=-1').launch.memory).toEqual([
      [0x100, 5],
      [512, 16],
      [0x104, 0xffffffff],
    ]);
  });

  it('c[BANK][OFF]=V', () => {
    expect(header('c[0x0][0x160]=0x100 c[0x3][8]=7').launch.constants).toEqual([
      { bank: 0, offset: 0x160, value: 0x100 },
      { bank: 3, offset: 8, value: 7 },
    ]);
  });

  it('Rn=V for every thread, Rn@t=V and Rn@t,u=V for listed thread ids', () => {
    expect(header('R5=3 R5@2=7 R6@0,1=0x9 R7=-2').launch.registers).toEqual([
      { reg: 5, value: 3 },
      { reg: 5, value: 7, threads: [2] },
      { reg: 6, value: 9, threads: [0, 1] },
      { reg: 7, value: 0xfffffffe },
    ]);
  });

  it('expect:MECHANISM=VERDICT, with a deadlock kind', () => {
    expect(header('expect:its=terminates expect:simt-stack=deadlock/livelock').expect).toEqual({
      its: 'terminates',
      'simt-stack': 'deadlock/livelock',
    });
  });

  it('items from several directive lines add up; an empty header is empty', () => {
    const h = header('warp-size=4', 'mem[0x10]=1', 'mem[0x14]=2 R1=1');
    expect(h.launch).toEqual({
      warpSize: 4,
      memory: [
        [0x10, 1],
        [0x14, 2],
      ],
      registers: [{ reg: 1, value: 1 }],
    });
    expect(header()).toEqual({ launch: {}, entry: null, expect: {} });
  });
});

describe('parseHeader: errors', () => {
  it('an unknown item: its line and the column where it starts', () => {
    // Directive text starts at column 15 of line 3; `lanes=4` is 8 characters further in.
    const r = parseHeader([dir('warps=1 lanes=4', 3, 15)], 'h.sass');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toHaveLength(1);
      expect(r.error[0]).toMatchObject({ file: 'h.sass', line: 3, column: 23 });
      expect(r.error[0]!.message).toContain("'lanes=4'");
    }
  });

  it('every bad item is reported, each at its own place', () => {
    const r = parseHeader([dir('bogus warps=1', 1, 15), dir('x=1 mem[0x1]=', 2, 20)], 'h.sass');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error.map((e) => [e.line, e.column])).toEqual([
        [1, 15],
        [2, 20],
        [2, 24],
      ]);
  });

  it('a register beyond R254', () => {
    const r = parseHeader([dir('R255=1')], 'h.sass');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error[0]!.message).toContain('R255');
  });

  it('through parseSass and loadProgram: positions in the real file', () => {
    const text = 'NOP\n// @warpcheck warps=1 lanes=4\nEXIT';
    const parsed = parseSass(text);
    if (!parsed.ok) return expect.fail('parse');
    // `// @warpcheck ` is 14 characters: the text starts at column 15, `lanes=4` at column 23.
    expect(parsed.value.directives).toEqual([{ line: 2, column: 15, text: 'warps=1 lanes=4' }]);
    const r = loadProgram(text, 'f.sass');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error[0]).toMatchObject({ file: 'f.sass', line: 2, column: 23 });
  });
});

describe('the header drives the launch', () => {
  it('R5@2=7: thread id 2 is lane 0 of warp 1 when W = 2 (thread id k·W + l)', () => {
    const m = machineOf(
      '// @warpcheck warp-size=2 warps=2 R5=3 R5@2=7 mem[0x100]=9\nMOV R6, R5\nEXIT',
      'its',
    );
    const s = m.initial();
    expect(regsOf(m, s, 5, 0)).toEqual([3, 3]);
    expect(regsOf(m, s, 5, 1)).toEqual([7, 3]);
    expect(readWord(s.memory, 0x100)).toBe(9);
    expect(m.launch).toMatchObject({ warpSize: 2, warps: 2 });
  });

  it('defaults (W = 4, K = 1), then the header, then explicit overrides', () => {
    const h = header('warps=2');
    expect(resolveLaunch(h)).toMatchObject({ ok: true, value: { warpSize: 4, warps: 2 } });
    expect(resolveLaunch(h, { warps: 3, warpSize: undefined })).toMatchObject({
      ok: true,
      value: { warpSize: 4, warps: 3 },
    });
  });

  it('out-of-range shapes are errors at the item (1 ≤ W ≤ 32, 1 ≤ K ≤ 8; issue 14)', () => {
    for (const item of ['warp-size=33', 'warp-size=0', 'warps=9']) {
      const r = parseHeader([dir(`R1=1 ${item}`, 3)], 'h.sass');
      expect(r.ok, item).toBe(false);
      if (!r.ok) expect(r.error[0]).toMatchObject({ line: 3, column: dir('', 3).column + 5 });
    }
    expect(resolveLaunch(header('warp-size=32 warps=8')).ok).toBe(true);
    // Overrides from the command line are still checked when the launch is resolved.
    expect(resolveLaunch(header('warps=2'), { warpSize: 33 }).ok).toBe(false);
  });
});
