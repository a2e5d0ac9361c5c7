/**
 * The GCN lowering (seed 001 §2.2): expected listings written by hand from the rule "a Fork
 * instruction at entry and a Join instruction at exit" of each single-entry single-exit region,
 * the exit being the branch's IPDOM.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printProgram } from '../isa/printProgram.ts';
import type { Program } from '../isa/program.ts';
import { load, runListing } from '../testing/run.ts';
import { compileGcn, compileGcnReport } from './gcn.ts';

const scenarios = join(new URL('.', import.meta.url).pathname, '..', '..', 'scenarios');
const programOf = (text: string): Program => load(text).program;
const compiled = (text: string): Program => {
  const r = compileGcn(programOf(text));
  if (!r.ok) expect.fail(r.error.map((d) => d.message).join('\n'));
  return r.value;
};

const NESTED = `
	Function : nested
        ISETP.NE.AND P0, PT, R1, RZ, PT ;
   @P0  BRA \`(OUT) ;
        ISETP.NE.AND P1, PT, R2, RZ, PT ;
   @P1  BRA \`(IN) ;
        MOV R3, 0x1 ;
IN:
        MOV R4, 0x1 ;
OUT:
        EXIT ;
`;

// By hand: 7 instructions, 2 FORKs, 2 JOINs. The outer branch's IPDOM is OUT, the inner one's IN; two nested regions. The labels IN
// and OUT move to the JOINs, so the jumps land on them.
const NESTED_GCN = `
	Function : nested
        ISETP.NE.AND P0, PT, R1, RZ, PT ;
        FORK ;
   @P0  BRA \`(OUT) ;
        ISETP.NE.AND P1, PT, R2, RZ, PT ;
        FORK ;
   @P1  BRA \`(IN) ;
        MOV R3, 0x1 ;
IN:
        JOIN ;
        MOV R4, 0x1 ;
OUT:
        JOIN ;
        EXIT ;
`;

describe('compileGcn', () => {
  it('Fig. 1: one region for if(A && B) — FORK before A, JOIN at E (seed001-fig1-gcn.sass)', () => {
    const plain = readFileSync(join(scenarios, 'seed001-fig1.sass'), 'utf8');
    const lowered = readFileSync(join(scenarios, 'seed001-fig1-gcn.sass'), 'utf8');
    expect(printProgram(compiled(plain))).toBe(printProgram(programOf(lowered)));
    const r = compileGcnReport(programOf(plain));
    expect(r.ok && r.value.regions).toEqual([{ branch: 1, join: 7 }]);
  });

  it('nested ifs with different IPDOMs: nested regions', () => {
    expect(printProgram(compiled(NESTED))).toBe(printProgram(programOf(NESTED_GCN)));
  });

  it('offsets are renumbered with the stride', () => {
    const p = compiled(NESTED);
    expect(p.instructions.map((i) => i.offset)).toEqual(
      Array.from({ length: 11 }, (_, k) => k * 16),
    );
    expect(p.functions[0]).toMatchObject({ start: 0, end: 11 });
  });

  it('the spinlock loop is left alone (§2.2: "excludes non-trivial loops")', () => {
    const text = readFileSync(join(scenarios, 'spinlock.sass'), 'utf8');
    const r = compileGcnReport(programOf(text));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(printProgram(r.value.program)).toBe(printProgram(programOf(text)));
    expect(r.value.notes.join('\n')).toMatch(/loop/);
    const strict = compileGcn(programOf(text), { onSkip: 'error', file: 'spinlock.sass' });
    expect(strict.ok).toBe(false);
  });

  it('a program that already has FORK/JOIN is unchanged', () => {
    const p = programOf(NESTED_GCN);
    const r = compileGcn(p);
    expect(r.ok && r.value).toBe(p);
  });

  it('the lowered programs run on gcn and refine the reference', () => {
    const text = printProgram(compiled(NESTED));
    for (const inputs of ['R1=0 R2=0', 'R1@0=1 R2@1,2=1', 'R1=1']) {
      const { result } = runListing(`// @warpcheck warp-size=4 ${inputs}\n${text}`, 'gcn');
      expect(result.verdict, inputs).toBe('terminates');
    }
  });
});
