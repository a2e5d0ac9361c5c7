import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryEntries } from '../lanes/memory.ts';
import type { Machine, MachineState, Transition } from '../machine/machine.ts';
import { machineFor } from '../scenario/session.ts';
import { launchOf, load, machineOf, regsOf, runListing } from '../testing/run.ts';
import { renderTwoPath, twoPathKernel } from './opcodeConvergent.kernels.ts';

/** Runs `machine` taking choice 0 at every step until no lane can issue; a stop fails the test. */
function run(machine: Machine, maxSteps = 5000): { steps: Transition[]; final: MachineState } {
  let s = machine.initial();
  const steps: Transition[] = [];
  while (machine.status(s) === 'running') {
    if (steps.length >= maxSteps) expect.fail(`no end after ${maxSteps} steps`);
    const t = machine.successors(s)[0]!;
    if (t.stop)
      expect.fail(`${machine.mechanism.id} stopped: ${t.stop.verdict}: ${t.stop.message}`);
    steps.push(t);
    s = t.next!;
  }
  expect(machine.status(s)).toBe('terminated');
  return { steps, final: s };
}

/** Per lane, the PCs it executed, in order (a merged issue counts for both of its groups). */
function laneTraces(steps: readonly Transition[], W: number): number[][] {
  const out = Array.from({ length: W }, () => [] as number[]);
  for (const t of steps) {
    for (let l = 0; l < W; l++) {
      if ((t.issue.mask >>> l) & 1) out[l]!.push(t.issue.pc);
      if (t.issue.merged && (t.issue.merged.mask >>> l) & 1) out[l]!.push(t.issue.merged.pc);
    }
  }
  return out;
}

/** Everything a lane can observe at the end: registers R1..R6 and memory. */
const finalData = (m: Machine, s: MachineState) => ({
  regs: [1, 2, 3, 4, 5, 6].map((r) => regsOf(m, s, r)),
  memory: memoryEntries(s.memory),
});

/**
 * A machine without the built-in refinement check (SEMANTICS §6), so that the properties below are
 * what catches a wrong run, not the reference's `refines-its` stop.
 */
function bare(text: string, mechanism: string): Machine {
  const loaded = load(text);
  const m = machineFor(loaded, launchOf(loaded), mechanism, {}, 'ascending', false, false);
  if (!m.ok) return expect.fail(m.error.join('; '));
  return m.value;
}

const W = 4;
const SEED = 0x5eed002;

describe('opcode-convergent (seed 002 §4–5)', () => {
  it('per-lane traces and final values equal the reference (its) on generated two-path code', () => {
    let merged = 0;
    fc.assert(
      fc.property(twoPathKernel({ exits: true }), (nodes) => {
        const text = renderTwoPath(nodes, W);
        const oc = bare(text, 'opcode-convergent');
        const ref = bare(text, 'its');
        const a = run(oc);
        const b = run(ref);
        merged += a.steps.filter((t) => t.issue.merged).length;
        expect(laneTraces(a.steps, W)).toEqual(laneTraces(b.steps, W));
        expect(finalData(oc, a.final)).toEqual(finalData(ref, b.final));
        // With the built-in refinement check on, no step stops either (each half is checked).
        run(machineOf(text, 'opcode-convergent'));
      }),
      { seed: SEED, numRuns: 120 },
    );
    // Not vacuous: the generated code does merge.
    expect(merged).toBeGreaterThan(50);
  });

  it('never issues more instructions than simt-stack on the same program and schedule', () => {
    fc.assert(
      fc.property(twoPathKernel({ exits: false }), (nodes) => {
        const text = renderTwoPath(nodes, W);
        const a = run(bare(text, 'opcode-convergent')).steps.length;
        const b = run(bare(text, 'simt-stack')).steps.length;
        expect(a).toBeLessThanOrEqual(b);
      }),
      { seed: SEED + 1, numRuns: 150 },
    );
  });

  it('saves issued instructions on generated two-path code (the thesis: 21 % on its benchmarks)', () => {
    const programs = fc.sample(twoPathKernel({ exits: false }), { seed: SEED + 2, numRuns: 60 });
    let oc = 0;
    let simt = 0;
    for (const nodes of programs) {
      const text = renderTwoPath(nodes, W);
      oc += run(machineOf(text, 'opcode-convergent')).steps.length;
      simt += run(machineOf(text, 'simt-stack')).steps.length;
    }
    // Only a lower bound is asserted (the figure itself is measured by bench/opcodeConvergent.ts).
    expect(oc).toBeLessThan(simt);
  });

  it('the scenario listing: 11 issues against simt-stack 13, merged issues carry both groups', () => {
    const text = readFileSync(
      new URL('../../scenarios/seed002-opcode-convergent.sass', import.meta.url),
      'utf8',
    );
    const a = run(machineOf(text, 'opcode-convergent'));
    expect(a.steps).toHaveLength(11);
    expect(run(machineOf(text, 'simt-stack')).steps).toHaveLength(13);
    // Worked by hand: steps 4 and 6 are the two merged IADD3 pairs (taken lanes 0,1 = 0b0011).
    expect(
      a.steps.filter((t) => t.issue.merged).map((t) => [t.issue.pc, t.issue.merged!.pc]),
    ).toEqual([
      [8, 3],
      [9, 5],
    ]);
    // Each lane ran its own side's operands: taken R1 = lane + 7, not-taken R1 = lane + 5.
    const m = machineOf(text, 'opcode-convergent');
    expect(regsOf(m, run(m).final, 1)).toEqual([7, 8, 7, 8]);
  });

  it('livelocks on the spinlock like simt-stack (no path switching, seed 000 §III)', () => {
    const text = readFileSync(new URL('../../scenarios/spinlock.sass', import.meta.url), 'utf8');
    const oc = runListing(text, 'opcode-convergent').result;
    const simt = runListing(text, 'simt-stack').result;
    expect([oc.verdict, oc.kind]).toEqual(['deadlock', 'livelock']);
    expect([oc.verdict, oc.kind]).toEqual([simt.verdict, simt.kind]);
  });

  it('runs a nested structure inside a merged region as an ordinary entry (§4.9, outer merged on a tie)', () => {
    // The outer if/else (P0 = lane odd) merges 2 IADD3 pairs; its taken side holds an inner
    // if/else (P1 = lane & 2) that saves 2 too, so the outer level is merged and the inner one
    // runs as a `sub` slot: a plain entry (rpc = IJ) pushed above the region entry.
    const text = `// @warpcheck warp-size=4 warps=1
\tFunction : n
        S2R R0, SR_LANEID ;
        LOP3.LUT R8, R0, 0x1, RZ, 0xc0, !PT ;
        ISETP.NE.AND P0, PT, R8, RZ, PT ;
        LOP3.LUT R9, R0, 0x2, RZ, 0xc0, !PT ;
        ISETP.NE.AND P1, PT, R9, RZ, PT ;
   @P0  BRA OT ;
        IADD3 R1, R0, 0x1, RZ ;
        IADD3 R2, R0, 0x2, RZ ;
        IADD3 R3, R0, 0x3, RZ ;
        BRA J ;
OT:
        IADD3 R1, R0, 0x4, RZ ;
   @P1  BRA IT ;
        LOP3.LUT R4, R0, 0x1, RZ, 0xfc, !PT ;
        LOP3.LUT R4, R4, 0x2, RZ, 0xfc, !PT ;
        BRA IJ ;
IT:
        LOP3.LUT R5, R0, 0x1, RZ, 0xfc, !PT ;
        LOP3.LUT R5, R5, 0x2, RZ, 0xfc, !PT ;
IJ:
        IADD3 R6, R0, 0x5, RZ ;
J:
        EXIT ;
`;
    const oc = bare(text, 'opcode-convergent');
    const ref = bare(text, 'its');
    const a = run(oc);
    const b = run(ref);
    expect(laneTraces(a.steps, W)).toEqual(laneTraces(b.steps, W));
    expect(finalData(oc, a.final)).toEqual(finalData(ref, b.final));
    // Merged, by hand (PCs 6-9 not-taken, OT = 10, inner branch 11, IJ = 17): taken units are
    // 10, sub(11..17), 17; not-taken 6, 7, 8, BRA. The trace-back from the last cell pairs 17 with
    // 8, skips the sub unit, and pairs 10 with 7 (each taken element as late as possible); 6 runs
    // alone first.
    expect(
      a.steps.filter((t) => t.issue.merged).map((t) => [t.issue.pc, t.issue.merged!.pc]),
    ).toEqual([
      [10, 7],
      [17, 8],
    ]);
    // While the inner structure runs, a plain entry for the taken group (lanes 1, 3) sits above the
    // region entry.
    const views = a.steps.map(
      (t) =>
        (
          oc.mechanism.view(t.next!.warps[0]!.mech, oc.fmt).data as {
            stack: { region?: string; rpc?: string }[];
          }
        ).stack,
    );
    expect(
      views.some(
        (st) => st.length >= 2 && st[0]!.region === undefined && st[1]!.region !== undefined,
      ),
    ).toBe(true);
    // simt-stack: outer 4 + 3 (+ inner 3 + 2) against 2 merges saved here.
    expect(a.steps.length).toBe(run(bare(text, 'simt-stack')).steps.length - 2);
  });
});
