import fc from 'fast-check';
import { machineOf } from '../testing/run.ts';
import { createCore, type CoreConfig } from './core.ts';
import type { Latencies } from './latency.ts';
import { simulate } from './simulate.ts';

/**
 * The search for a write-after-read counterexample of the operand collector's out-of-order dispatch
 * (issue 6 item 3): fast-check over generated straight-line kernels (ALU instructions over a few
 * registers, so reads land in few banks and a younger write can overtake an older read) and
 * collector settings; shrunk to a minimal kernel and setting. `npx tsx model/core/operandCollectorSearch.ts`
 * saves it under counterexamples/core/ (operandCollectorSave.ts).
 */
export interface WarCase {
  readonly text: string;
  readonly latencies: Latencies;
  readonly banks: number;
  readonly units: number;
}

type Ins =
  | {
      readonly kind: 'add';
      readonly d: number;
      readonly a: number;
      readonly b: number;
      readonly c: number;
    }
  | { readonly kind: 'mov'; readonly d: number; readonly k: number };

const reg = fc.integer({ min: 0, max: 7 });
const insArb: fc.Arbitrary<Ins> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), d: reg, a: reg, b: reg, c: reg }),
  fc.record({ kind: fc.constant('mov' as const), d: reg, k: fc.integer({ min: 0, max: 15 }) }),
);

export function renderStraight(body: readonly Ins[], warpSize: number, warps: number): string {
  return [
    `// @warpcheck warp-size=${warpSize} warps=${warps}`,
    '\tFunction : straight',
    ...body.map((i) =>
      i.kind === 'add'
        ? `        IADD3 R${i.d}, R${i.a}, R${i.b}, R${i.c} ;`
        : `        MOV R${i.d}, 0x${i.k.toString(16)} ;`,
    ),
    '        EXIT ;',
    '',
  ].join('\n');
}

/** Straight-line ALU kernels: 1–8 instructions over R0–R7, 1–2 warps of 1–2 lanes. */
export const straightKernel = fc
  .record({
    body: fc.array(insArb, { minLength: 1, maxLength: 8 }),
    warpSize: fc.integer({ min: 1, max: 2 }),
    warps: fc.integer({ min: 1, max: 2 }),
  })
  .map(({ body, warpSize, warps }) => ({ text: renderStraight(body, warpSize, warps), warpSize }));

export const collectorSettingArb = fc.record({
  latencies: fc.record({
    alu: fc.integer({ min: 1, max: 8 }),
    sfu: fc.constant(20),
    shared: fc.constant(30),
    global: fc.constant(200),
  }),
  banks: fc.integer({ min: 1, max: 4 }),
  units: fc.integer({ min: 1, max: 4 }),
});

export const warConfig = (
  c: Omit<WarCase, 'text'>,
  collector: 'in-order' | 'out-of-order',
): CoreConfig => ({
  scheduler: 'lrr',
  scoreboard: 'warp',
  latencies: c.latencies,
  issueWidth: 1,
  collector,
  banks: c.banks,
  collectorUnits: c.units,
});

/** Whether the run of `text` on simt-stack under this setting stops with a war-hazard. */
export function showsWar(c: WarCase, collector: 'in-order' | 'out-of-order'): boolean {
  const r = simulate(createCore(machineOf(c.text, 'simt-stack'), warConfig(c, collector)), {
    maxCycles: 20_000,
    timeoutMs: 5_000,
  });
  return r.end.kind === 'stop' && r.end.stop.property === 'war-hazard';
}

/** Runs the search; returns the shrunk case (null if none was found within `numRuns`). */
export function findWarHazard(
  seed: number,
  numRuns = 500,
): (WarCase & { seed: number; path?: string }) | null {
  const r = fc.check(
    fc.property(
      straightKernel,
      collectorSettingArb,
      (k, s) => !showsWar({ text: k.text, ...s }, 'out-of-order'),
    ),
    { seed, numRuns },
  );
  if (!r.failed || !r.counterexample) return null;
  const [k, s] = r.counterexample;
  return {
    text: k.text,
    ...s,
    seed,
    ...(r.counterexamplePath ? { path: r.counterexamplePath } : {}),
  };
}
