/**
 * The block machine (`blockMachine.ts`) against the block view at K·W ≤ 32, where both apply: the
 * same block mechanism rules, two ways of running the lanes. They must agree on every issue of a
 * run (threads, in order) and on the exploration's verdicts — the check that running a formed
 * warp home warp by home warp (ascending) is the block view's ascending thread order, and that
 * fairness per formed warp is fairness per thread (docs/semantics.md "Block mechanisms").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultBudget, explore } from '../explore/exhaustive.ts';
import { findMechanism, resolveOptions } from '../mechanisms/registry.ts';
import { toBlockView } from '../mechanisms/threadMask.ts';
import { launchOf, load, runListing } from '../testing/run.ts';
import { createBlockMachine } from './blockMachine.ts';
import { createMachine, type Machine, type MachineSpec } from './machine.ts';

const scenario = (name: string) =>
  readFileSync(new URL(`../../scenarios/${name}`, import.meta.url), 'utf8');

function specOf(
  text: string,
  id: string,
  launch: { warps: number; warpSize: number },
  options: Record<string, string> = {},
): MachineSpec {
  const loaded = load(text);
  const factory = findMechanism(id)!;
  const opts = resolveOptions(factory, options);
  if (!opts.ok) throw new Error(opts.problems.join('; '));
  return {
    program: loaded.program,
    ops: loaded.ops,
    launch: launchOf(loaded, launch),
    factory,
    options: opts.options,
    lanes: { atomicOrder: 'ascending', strict: false },
    entry: loaded.entry,
    ipdom: loaded.ipdom,
  };
}

/** Issues along the first successor, as block-view masks (threads on the block machine). */
function firstIssues(m: Machine, spec: MachineSpec, wide: boolean): string[] {
  const shape = { warps: spec.launch.warps, warpSize: spec.launch.warpSize };
  const out: string[] = [];
  let s = m.initial();
  for (let i = 0; i < 300 && m.status(s) === 'running'; i++) {
    const t = m.successors(s)[0]!;
    const mask = wide ? toBlockView(shape, t.issue.threads!) : t.issue.mask;
    out.push(`${t.issue.pc}:${mask.toString(2)}${t.stop ? ` ${t.stop.verdict}` : ''}`);
    if (!t.next) break;
    s = t.next;
  }
  out.push(m.status(s));
  // The final memory: which thread's store or atomic landed last.
  out.push(JSON.stringify(s.memory));
  return out;
}

/**
 * Threads 0, 1 and 6 of two warps of four take the branch: tbc and lwm compact them into one warp
 * of both home warps (lanes 0, 1, 2), which stores each thread's id to one word and adds it to
 * another — the block view's ascending thread order leaves 6 in the first word and, for the
 * exchange, hands each thread the previous one's value.
 */
const racing = `// @warpcheck warp-size=4 warps=2 R1@0,1,6=1 mem[0x100]=0 mem[0x104]=0
\tFunction : racing
        S2R R0, SR_TID.X ;
        MOV R2, 0x100 ;
        MOV R3, 0x104 ;
        ISETP.NE.AND P0, PT, R1, RZ, PT ;
   @P0  BRA C ;
        EXIT ;
C:
        STS [R2], R0 ;
        ATOMS.EXCH R4, [R3], R0 ;
        STS [R0], R4 ;
        EXIT ;
`;

const verdicts = (m: Machine) =>
  explore(m, { ...defaultBudget, maxStates: 200_000 })
    .findings.map((f) => `${f.verdict}/${f.kind ?? ''}`)
    .sort();

const cases: readonly [
  string,
  string,
  { warps: number; warpSize: number },
  Record<string, string>,
][] = [
  ['seed002-block-tbc.sass', 'tbc', { warps: 2, warpSize: 4 }, {}],
  ['seed002-block-tbc.sass', 'lwm', { warps: 2, warpSize: 4 }, {}],
  ['seed002-block-dwf.sass', 'dwf', { warps: 2, warpSize: 4 }, { schedule: 'pc' }],
  ['seed002-block-dwf.sass', 'tbc', { warps: 2, warpSize: 4 }, { order: 'not-taken-first' }],
  ['spinlock.sass', 'tbc', { warps: 2, warpSize: 4 }, {}],
  ['spinlock.sass', 'lwm', { warps: 4, warpSize: 2 }, {}],
  ['spinlock.sass', 'dwf', { warps: 2, warpSize: 2 }, {}],
  ['spinlock.sass', 'dwf', { warps: 2, warpSize: 2 }, { schedule: 'majority' }],
  ['spinlock.sass', 'dwf', { warps: 3, warpSize: 2 }, { schedule: 'pc' }],
];

describe('the block machine agrees with the block view at K·W ≤ 32', () => {
  for (const id of ['tbc', 'lwm', 'dwf'])
    it(`${id}: a formed warp of two home warps stores and exchanges in ascending thread order`, () => {
      const spec = { ...specOf(racing, id, { warps: 2, warpSize: 4 }), refine: false };
      const view = firstIssues(createMachine(spec), spec, false);
      expect(firstIssues(createBlockMachine(spec), spec, true)).toEqual(view);
    });
  for (const [file, id, launch, options] of cases)
    it(`${id} on ${file} at K = ${launch.warps}, W = ${launch.warpSize} ${JSON.stringify(options)}`, () => {
      // The block view runs with the refinement check; the block machine has none, so the
      // verdicts compared are those without it (refines-its never fails on these three here).
      const spec = { ...specOf(scenario(file), id, launch, options), refine: false };
      const view = createMachine(spec);
      const wide = createBlockMachine(spec);
      expect(view.launch.warps).toBe(1);
      expect(firstIssues(wide, spec, true)).toEqual(firstIssues(view, spec, false));
      expect(verdicts(wide)).toEqual(verdicts(view));
    });
});

/** Home warp 1 sets a flag that home warp 0 spins on (as in scenarios/seed002-wide.test.ts). */
const flag = `// @warpcheck warp-size=32 warps=2 mem[0x100]=0
\tFunction : flag
        S2R R0, SR_TID.X ;
        MOV R2, 0x100 ;
        MOV R3, 0x1 ;
        ISETP.GE.AND P1, PT, R0, 0x20, PT ;
   @P1  BRA SET ;
SPIN:
        ATOMS.ADD R1, [R2], RZ ;
        ISETP.EQ.AND P0, PT, R1, RZ, PT ;
   @P0  BRA SPIN ;
        EXIT ;
SET:
        ATOMS.EXCH RZ, [R2], R3 ;
        EXIT ;
`;

describe('the dead-value reduction on the block machine (K·W = 64)', () => {
  const wide = { warps: 2, warpSize: 32 };
  const found = (r: ReturnType<typeof runListing>) =>
    r.result.findings.map((f) => `${f.verdict}/${f.kind ?? ''}`).sort();
  const runs: readonly [string, string, string, number][] = [
    ['flag', flag, 'dwf', 20_000],
    ['flag', flag, 'tbc', 20_000],
    ['spinlock', scenario('spinlock.sass'), 'tbc', 20_000],
    ['spinlock', scenario('spinlock.sass'), 'lwm', 20_000],
    // Bound-reached at this budget either way: no finding.
    ['spinlock', scenario('spinlock.sass'), 'dwf', 5_000],
  ];
  for (const [name, text, id, maxStates] of runs)
    it(`reduced and exact searches agree: ${id} on ${name}`, () => {
      const budget = { maxStates };
      const exact = runListing(text, id, { launch: wide, budget, reduce: { deadValues: false } });
      const reduced = runListing(text, id, { launch: wide, budget });
      expect(reduced.machine.canReduce).toBe(true);
      expect(found(reduced)).toEqual(found(exact));
    });
  it('fails on the relevance law’s planted bug (a BRA that does not read its guard)', () => {
    // The spinning threads' P0 is then dead at the loop's branch: the holder's state and a
    // spinner's merge, and a livelock appears that the exact search does not have.
    const budget = { maxStates: 5_000 };
    const text = scenario('spinlock.sass');
    const exact = runListing(text, 'dwf', { launch: wide, budget, reduce: { deadValues: false } });
    const planted = runListing(text, 'dwf', { launch: wide, budget, plantUnsoundRelevance: true });
    expect(found(planted)).not.toEqual(found(exact));
  });
});
