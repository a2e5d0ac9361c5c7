import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { machineOf } from '../testing/run.ts';
import { createCore, scheduleOf, type CoreConfig } from './core.ts';
import type { Latencies } from './latency.ts';
import { simulate } from './simulate.ts';

/**
 * The search for a write-after-read counterexample of the operand collector's out-of-order dispatch
 * (issue 6 item 3): fast-check over generated straight-line kernels (ALU instructions over a few
 * registers, so reads land in few banks and a younger write can overtake an older read) and
 * collector settings; shrunk to a minimal kernel and setting. `npx tsx model/core/operandCollectorSearch.ts`
 * saves it under counterexamples/core/ (`warScenario`).
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

/**
 * The scenario file of a case (model/scenario/schema.ts with `core`): the program embedded, the
 * core settings, the machine schedule the core takes, and the expected `violation` / `war-hazard`.
 */
export function warScenario(c: WarCase & { seed?: number; path?: string }): {
  name: string;
  json: Record<string, unknown>;
} {
  const m = machineOf(c.text, 'simt-stack');
  const r = simulate(createCore(m, warConfig(c, 'out-of-order')), {
    maxCycles: 20_000,
    timeoutMs: 5_000,
  });
  const hash = createHash('sha256')
    .update(JSON.stringify([c.text, c.latencies, c.banks, c.units]))
    .digest('hex')
    .slice(0, 8);
  return {
    name: `war-hazard-${hash}.json`,
    json: {
      format: 'warpcheck-scenario',
      version: 1,
      name: 'operand collector: out-of-order dispatch shows a write-after-read hazard',
      description:
        r.end.kind === 'stop'
          ? r.end.stop.message
          : 'expected a war-hazard (the saved case no longer shows it)',
      source: 'seed 002 §2.5 (operand collector, banked register file); issue 6 item 2',
      program: { text: c.text },
      launch: { warpSize: m.launch.warpSize, warps: m.launch.warps },
      mechanism: 'simt-stack',
      core: {
        scheduler: 'lrr',
        scoreboard: 'warp',
        latencies: c.latencies,
        collector: 'out-of-order',
        banks: c.banks,
        units: c.units,
      },
      schedule: scheduleOf(r.state),
      expect: { verdict: 'violation', property: 'war-hazard' },
      ...(c.seed !== undefined ? { seed: c.seed } : {}),
      ...(c.path !== undefined ? { path: c.path } : {}),
      found: {
        command: 'npx tsx model/core/operandCollectorSearch.ts',
        search: 'fast-check over straightKernel × collectorSettingArb, out-of-order, shrunk',
      },
    },
  };
}

// `npx tsx model/core/operandCollectorSearch.ts [seed]`: search, shrink and save under counterexamples/core/.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seed = Number(process.argv[2] ?? 20261122);
  const c = findWarHazard(seed, 500);
  if (!c) {
    console.log(`no war-hazard found with seed ${seed}`);
    process.exit(1);
  }
  const { name, json } = warScenario(c);
  const dir = new URL('../../counterexamples/core/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL(name, dir);
  writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
  console.log(`seed ${seed}: saved ${fileURLToPath(file)}`);
}
