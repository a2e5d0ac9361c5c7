/** The compile-target registry: what `warpcheck compile --target` offers and how outputs read. */
import { describe, expect, it } from 'vitest';
import { parseSass, type Program } from '../isa/index.ts';
import type { Result } from '../isa/program.ts';
import { compileFermi } from './fermi.ts';
import { compileGcn } from './gcn.ts';
import { TARGETS, loweredOf, targetOf, type CompileTarget } from './targets.ts';

const parse = (text: string): Program => {
  const r = parseSass(text);
  if (!r.ok) return expect.fail(r.error.map((d) => d.message).join('\n'));
  return r.value.program;
};

describe('compile targets', () => {
  it('registers turing, found by id', () => {
    expect(TARGETS.map((t) => t.id)).toContain('turing');
    expect(targetOf('turing')?.id).toBe('turing');
    expect(targetOf('volta')).toBeUndefined();
  });

  it('a target returning a bare Program fits the registry (as compileFermi/compileGcn do)', () => {
    // A stand-in with the shape of `compileFermi(program, options): Result<Program>`.
    const identity = (program: Program, _o: { readonly file?: string }): Result<Program> => ({
      ok: true,
      value: program,
    });
    const t: CompileTarget = { id: 'identity', summary: 'no change', compile: identity };
    const p = parse('        EXIT ;\n');
    const r = t.compile(p, {});
    expect(r.ok).toBe(true);
    if (r.ok)
      expect(loweredOf(r.value)).toEqual({ program: p, regions: [], yields: [], notes: [] });
  });

  it('compileFermi and compileGcn fit the registry as they are (checked by tsc)', () => {
    const fits: CompileTarget['compile'][] = [compileFermi, compileGcn];
    const p = parse('        EXIT ;\n');
    for (const f of fits) expect(f(p, {}).ok).toBe(true);
  });

  it('the turing target reports its regions through the same view', () => {
    const p = parse(
      '        S2R R0, SR_LANEID ;\n        ISETP.LT.AND P0, PT, R0, 0x2, PT ;\n   @P0  BRA L ;\n        MOV R1, 0x1 ;\nL:\n        EXIT ;\n',
    );
    const r = targetOf('turing')!.compile(p, {});
    expect(r.ok).toBe(true);
    if (r.ok) {
      const l = loweredOf(r.value);
      // One if-then: one region, joining at L (source pc 4), entered at the branch (pc 2).
      expect(l.regions.map((x) => [x.entry, x.join])).toEqual([[2, 4]]);
      expect(l.program.instructions.map((i) => i.opcode)).toEqual([
        'S2R',
        'ISETP',
        'BSSY',
        'BRA',
        'MOV',
        'BSYNC',
        'EXIT',
      ]);
    }
  });
});
