/**
 * The lane-symmetry reduction against the plain search (issue 16; DESIGN.md "check each reduction
 * by comparing verdicts with and without it"): on generated kernels of both generators and the
 * explorer's own random kernels (lane ids, atomics, stores, VOTE, WARPSYNC, unknown values), at
 * W ≤ 6, on every registered mechanism, the search with lane symmetry gives the verdict, kind and
 * property of the search without it, finds the same set of outcomes, and every finding it reports
 * replays on its own machine. A planted unsound canonicalisation (lanes' own values left out of the
 * key) must make the law fail. `dws` runs lane-symmetric with fairness per split place (PC, call
 * depth; `Mechanism.fairPlaces`): the law counts its symmetric runs, and a planted place that
 * ignores the depth must fail it on a hand-derived kernel.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mixedKernels } from '../testing/groupKernels.ts';
import { createMachine, type Machine, type MachineSpec } from '../machine/machine.ts';
import { MECHANISMS, findMechanism, resolveOptions } from '../mechanisms/registry.ts';
import { loadProgram, resolveLaunch } from '../scenario/loadProgram.ts';
import { replay } from '../testing/run.ts';
import { explore, type Budget, type ExploreOptions } from './exhaustive.ts';
import { outcomes, verdictOf } from '../testing/outcomes.ts';
import { SPINLOCK_W2 } from '../core/coreTesting.ts';

const budget: Budget = { maxStates: 8_000, maxDepth: 5_000, timeoutMs: 10_000 };

/**
 * Planted bugs: `canon` leaves the lanes' own values out of the key (`LaneCanon`); `places` makes
 * fairness places bare PCs (`MachineSpec.plantUnsoundPlaces`: `dws` ignores the call depth);
 * `one-place` puts every lane at one place (the place check dropped: any issue is fair to all).
 */
type Plant = 'none' | 'canon' | 'places' | 'one-place';

/** The plain machine and the lane-symmetric one (optionally with a planted bug) for a listing. */
function pair(
  text: string,
  mechanism: string,
  plant: Plant = 'none',
  options: Readonly<Record<string, string>> = {},
): [Machine, Machine] | null {
  const loaded = loadProgram(text, 'kernel.sass');
  if (!loaded.ok) return null;
  const launch = resolveLaunch(loaded.value.header, {});
  const factory = findMechanism(mechanism)!;
  const opts = resolveOptions(factory, options);
  if (!launch.ok || !opts.ok) return null;
  const spec: MachineSpec = {
    program: loaded.value.program,
    ops: loaded.value.ops,
    launch: launch.value,
    factory,
    options: opts.options,
    lanes: { atomicOrder: 'ascending', strict: false },
    entry: loaded.value.entry,
    ipdom: loaded.value.ipdom,
    ...(loaded.value.likelyConvergence
      ? { likelyConvergence: loaded.value.likelyConvergence }
      : {}),
  };
  return [
    createMachine({ ...spec, laneSymmetry: false }),
    createMachine({
      ...spec,
      laneSymmetry: true,
      plantUnsoundSymmetry: plant === 'canon',
      ...(plant === 'places' ? { plantUnsoundPlaces: 'pc' as const } : {}),
      ...(plant === 'one-place' ? { plantUnsoundPlaces: 'one' as const } : {}),
    }),
  ];
}

interface Tally {
  compared: number;
  smaller: number;
  symmetric: number;
  /** Runs of a lane-fair mechanism (`its`, `dws`) with symmetry on: fairness per place. */
  placeFair: number;
  /** Runs of `dws` with symmetry on. */
  dws: number;
  /** Runs whose fair-per-place cycle was confirmed without symmetry (`Mechanism.coarsePlaces`). */
  confirmed: number;
}

const newTally = (): Tally => ({
  compared: 0,
  smaller: 0,
  symmetric: 0,
  placeFair: 0,
  dws: 0,
  confirmed: 0,
});

/** The law on one kernel and mechanism; throws (via expect) when it breaks. */
function check(
  text: string,
  mechanism: string,
  tally: Tally,
  plant: Plant = 'none',
  options: Readonly<Record<string, string>> = {},
  searchOptions: ExploreOptions = {},
): void {
  const machines = pair(text, mechanism, plant, options);
  if (!machines) return;
  const [plainM, symM] = machines;
  const plain = explore(plainM, budget);
  const sym = explore(symM, budget, undefined, searchOptions);
  if (plain.bound !== null || sym.bound !== null) return;
  tally.compared++;
  if (sym.notes.some((n) => n.includes('a cycle is fair per PC'))) tally.confirmed++;
  if (symM.symmetric && sym.laneSymmetry) {
    tally.symmetric++;
    if (symM.mechanism.laneFairness) tally.placeFair++;
    if (mechanism === 'dws') tally.dws++;
  }
  if (sym.states < plain.states) tally.smaller++;
  const label = `${mechanism}\n${text}`;
  expect(`${sym.verdict}/${sym.kind ?? ''}/${sym.findings[0]?.property ?? ''}`, label).toBe(
    `${plain.verdict}/${plain.kind ?? ''}/${plain.findings[0]?.property ?? ''}`,
  );
  expect(outcomes(sym), label).toEqual(outcomes(plain));
  // Every finding replays, on the machine the search ran with, to its outcome.
  const ran = sym.laneSymmetry ? symM : plainM;
  for (const f of sym.findings) {
    const { states, last } = replay(ran, f.schedule);
    const end = states.at(-1)!;
    if (f.loop !== null)
      expect(ran.behaviourKey(states[f.loop]!), label).toBe(ran.behaviourKey(end));
    else if (f.verdict === 'terminates') expect(ran.status(end), label).toBe('terminated');
    else if (f.verdict === 'deadlock') expect(ran.status(end), label).toBe('blocked');
    else expect(last?.stop?.verdict, label).toBe(f.verdict);
  }
}

/**
 * Lanes told apart by their numbers are pinned, and the generators branch on lane ids; so half of
 * the kernels read an unknown special register instead (SR_CLOCKLO: unknown in abstract mode,
 * SEMANTICS §5), which makes their lanes interchangeable and their branches unknown — where the
 * reduction does its work.
 */
const kernels = mixedKernels;
const mechanisms = MECHANISMS.map((m) => m.id);

/**
 * Readers that name no lane (laneSymmetry.ts `readsLaneNumber`): `BMOV.32.CLEAR RZ, Bx` only
 * empties Bx, and a VOTE whose ballot goes to RZ gives only a predicate that is the same for any
 * renumbering of the voting lanes; neither may pin lanes. A barrier mask read into a register
 * (`BMOV.32.CLEAR R2, B0`) names lanes by number and still pins every lane that may reach it.
 */
const namesNoLane = (bmovDst: string, w: number) => `// @warpcheck warp-size=${w} warps=1
	Function : k
        S2R R0, SR_CLOCKLO ;
        ISETP.GT.AND P0, PT, R0, 0x5, PT ;
        VOTE.ANY RZ, P1, P0 ;
   @P0  BRA \`(.L_x) ;
        MOV R1, 0x1 ;
.L_x:
        BMOV.32.CLEAR ${bmovDst}, B0 ;
        VOTE.ALL RZ, P2, P0 ;
        EXIT ;
`;

/**
 * Two `dws` splits at one PC and different call depths (hand-derived; docs/semantics.md "dws").
 * Lane 0 CALLs `.L_loop` (depth 1) and spins there until the word at 0x100 is non-zero, storing
 * 0 to a dummy word each turn (memory does not change); the other lanes branch to `.L_loop` at
 * depth 0, where their first store sets 0x100 to 1 and they exit. (They store one value, so no
 * race of lane classes switches symmetry off.)
 * Under weak fairness per lane every run terminates: the direct split is ready at
 * (`.L_loop`, depth 0) until it issues, and once it has, lane 0 leaves the loop and RETurns. The
 * one cycle — lane 0 spinning while the direct split waits at (`.L_loop`, 0) — is unfair to that
 * split; but it issues `.L_loop` every turn (at depth 1), so a fairness place of the bare PC
 * (the planted bug) calls it fair: a livelock.
 */
const twoDepths = (w: number) => `// @warpcheck warp-size=${w} warps=1 mem[0x100]=0 mem[0x104]=0
	Function : k
        S2R R0, SR_LANEID ;
        ISETP.NE.AND P0, PT, R0, RZ, PT ;
        MOV R2, 0x104 ;
        MOV R3, RZ ;
   @P0  MOV R2, 0x100 ;
   @P0  MOV R3, 0x1 ;
   @P0  BRA \`(.L_loop) ;
        MOV R20, \`(.L_back) ;
        CALL.REL.NOINC \`(.L_loop) ;
.L_back:
        EXIT ;
.L_loop:
        STS [R2], R3 ;
        LDS R4, [0x100] ;
        ISETP.EQ.AND P1, PT, R4, RZ, PT ;
   @P1  BRA \`(.L_loop) ;
   @P0  EXIT ;
        RET.REL.NODEC R20 0x0 ;
`;

/**
 * Single-lane issues (`its`, `grouping=single`) starving a lane of a PC (hand-derived; docs/
 * semantics.md §13 "Fairness under symmetry"). Each lane takes a ticket (0 or 1) from the word at
 * 0x100, then waits at `.L_wait` until the flag at 0x104 is set; the lane with ticket 0 sets it.
 * Under weak fairness per lane every run terminates: the ticket-0 lane is ready at `.L_wait`
 * (or on its way to the STS) until it runs, and once it has, both lanes leave. The one cycle —
 * the ticket-1 lane spinning (LDS, ISETP, BRA, ISETP, BRA) while the ticket-0 lane waits at
 * `.L_wait` — is unfair to that lane; but the spinner issues `.L_wait` every turn, so fairness per
 * PC calls the cycle fair. The symmetric search must confirm it without symmetry (terminates);
 * trusting the places (the planted bug) reports a livelock.
 */
const ticketFlag = (w: number) => `// @warpcheck warp-size=${w} warps=1 mem[0x100]=0 mem[0x104]=0
	Function : k
        MOV R2, 0x100 ;
        MOV R3, 0x1 ;
        MOV R4, 0x104 ;
        ATOMS.ADD R0, [R2], R3 ;
.L_wait:
        LDS R1, [R4] ;
        ISETP.NE.AND P0, PT, R1, RZ, PT ;
   @P0  BRA \`(.L_done) ;
        ISETP.NE.AND P1, PT, R0, RZ, PT ;
   @P1  BRA \`(.L_wait) ;
        STS [R4], R3 ;
        BRA \`(.L_wait) ;
.L_done:
        EXIT ;
`;

const SINGLE = { grouping: 'single' } as const;

describe('lane symmetry (issue 16)', () => {
  it('does not pin lanes for BMOV.32.CLEAR RZ or a ballot into RZ, and still does for a mask read', () => {
    // 32 interchangeable lanes split on an unknown predicate: 33 counted outcomes (§13). Pinned,
    // they would be 2^32 outcomes, past the branching budget (4,096): bound-reached (branching).
    // The same on dws, which runs lane-symmetric with fairness per split place.
    for (const mech of ['its', 'dws']) {
      const [, free] = pair(namesNoLane('RZ', 32), mech)!;
      const r = explore(free, budget);
      expect(r.bound, mech).toBeNull();
      expect(r.verdict, mech).toBe('terminates');
    }
    const [, pinned] = pair(namesNoLane('R2', 32), 'its')!;
    expect(explore(pinned, budget).bound).toBe('branching');
    // And the plain search agrees with the symmetric one on every mechanism at a small size.
    const tally = newTally();
    for (const mech of mechanisms)
      for (const dst of ['RZ', 'R2']) check(namesNoLane(dst, 5), mech, tally);
    expect(tally.compared).toBeGreaterThan(mechanisms.length);
  });

  it('gives the verdicts of the plain search on every mechanism, and its findings replay', () => {
    const tally = newTally();
    fc.assert(
      fc.property(kernels, fc.constantFrom(...mechanisms), (text, mech) =>
        check(text, mech, tally),
      ),
      { seed: 20261124, numRuns: 300 },
    );
    // The kernels must exercise the reduction, not only pass through it.
    // (seed 20261124, 400 runs: 373 compared, 282 with symmetry on, 16 smaller.)
    expect(tally.compared).toBeGreaterThan(200);
    expect(tally.symmetric).toBeGreaterThan(150);
    expect(tally.smaller).toBeGreaterThan(8);
    // Lane-fair mechanisms run symmetric with fairness per place: `its` per PC, `dws` per split.
    // (seed 20261124, 300 runs: 286 compared, 184 symmetric, 32 fair per place, 18 of them dws.)
    expect(tally.placeFair).toBeGreaterThan(20);
    expect(tally.dws).toBeGreaterThan(10);
  });

  it('dws: fairness per split place (PC, depth) keeps the plain verdict where two splits share a PC', () => {
    for (const w of [2, 4]) {
      const [plainM, symM] = pair(twoDepths(w), 'dws')!;
      expect(symM.symmetric).toBe(true);
      expect(verdictOf(explore(plainM, budget))).toBe('terminates//');
      const sym = explore(symM, budget);
      expect(sym.laneSymmetry).toBe(true);
      expect(verdictOf(sym)).toBe('terminates//');
      // The planted place (the bare PC) makes the spinning split's issues count for the waiting one.
      const [, planted] = pair(twoDepths(w), 'dws', 'places')!;
      expect(verdictOf(explore(planted, budget))).toBe('deadlock/livelock/');
      expect(() => check(twoDepths(w), 'dws', newTally(), 'places')).toThrow();
      // The law holds on every mechanism without the plant.
      const tally = newTally();
      for (const mech of mechanisms) check(twoDepths(w), mech, tally);
      expect(tally.dws).toBe(1);
    }
  });

  it('fails where the place check is dropped (every lane at one place): the spinlock, its and dws', () => {
    // Seed 000 Fig. 3 (scenarios/spinlock.sass's code) on two lanes. Seed 000 §IV: under
    // independent thread scheduling it terminates — the lock holder is ready until it runs,
    // and weak fairness per lane (per place: its PC, or its split) makes it run. With one place
    // for every lane, the spinner's turns count for the holder: the spin is called a livelock.
    const spinlock = SPINLOCK_W2;
    for (const mech of ['its', 'dws']) {
      const [, symM] = pair(spinlock, mech)!;
      expect(symM.symmetric, mech).toBe(true);
      expect(verdictOf(explore(symM, budget)), mech).toBe('terminates//');
      const [, planted] = pair(spinlock, mech, 'one-place')!;
      expect(verdictOf(explore(planted, budget)), mech).toBe('deadlock/livelock/');
      expect(() => check(spinlock, mech, newTally(), 'one-place')).toThrow();
    }
  });

  it('its with single-lane issues: a cycle fair per PC is confirmed without symmetry', () => {
    for (const w of [2, 3]) {
      const [plainM, symM] = pair(ticketFlag(w), 'its', 'none', SINGLE)!;
      expect(symM.symmetric).toBe(true);
      expect(verdictOf(explore(plainM, budget))).toBe('terminates//');
      const sym = explore(symM, budget);
      expect(verdictOf(sym)).toBe('terminates//');
      expect(sym.notes.join('\n')).toMatch(/a cycle is fair per PC/);
      // Trusting the places: the spinner's turns at `.L_wait` count for the waiting lane.
      const planted = explore(symM, budget, undefined, { plantTrustCoarsePlaces: true });
      expect(verdictOf(planted)).toBe('deadlock/livelock/');
      expect(() =>
        check(ticketFlag(w), 'its', newTally(), 'none', SINGLE, { plantTrustCoarsePlaces: true }),
      ).toThrow();
    }
    // The spinlock (seed 000 Fig. 3) has no cycle fair per PC: no confirmation is needed, and the
    // symmetric search is the smaller one.
    const [plainM, symM] = pair(SPINLOCK_W2, 'its', 'none', SINGLE)!;
    const plain = explore(plainM, budget);
    const sym = explore(symM, budget);
    expect(verdictOf(sym)).toBe('terminates//');
    expect(verdictOf(plain)).toBe('terminates//');
    expect(sym.laneSymmetry).toBe(true);
    expect(sym.notes.join('\n')).not.toMatch(/a cycle is fair per PC/);
  });

  it('its with single-lane issues: the verdicts of the plain search on generated kernels', () => {
    const tally = newTally();
    fc.assert(
      fc.property(kernels, (text) => check(text, 'its', tally, 'none', SINGLE)),
      { seed: 20261125, numRuns: 150 },
    );
    // (seed 20261125, 150 runs: 130 compared, 119 symmetric, 79 smaller, 11 confirmed.)
    expect(tally.compared).toBeGreaterThan(100);
    expect(tally.placeFair).toBeGreaterThan(80);
    expect(tally.smaller).toBeGreaterThan(40);
    expect(tally.confirmed).toBeGreaterThan(3);
    // Trusting the places fails the law on the same kernels.
    expect(() =>
      fc.assert(
        fc.property(kernels, (text) =>
          check(text, 'its', newTally(), 'none', SINGLE, { plantTrustCoarsePlaces: true }),
        ),
        { seed: 20261125, numRuns: 150 },
      ),
    ).toThrow();
  });

  it('fails on a planted unsound canonicalisation (lanes’ own values left out of the key)', () => {
    const tally = newTally();
    expect(() =>
      fc.assert(
        fc.property(kernels, fc.constantFrom(...mechanisms), (text, mech) =>
          check(text, mech, tally, 'canon'),
        ),
        { seed: 20261124, numRuns: 300 },
      ),
    ).toThrow();
  });
});
