import { z } from 'zod';
import { VERDICTS } from '../explore/verdict.ts';
import { SCENARIO_LIMITS as L } from './limits.ts';

/**
 * The scenario file (DESIGN.md "Every random run is reproducible"): one JSON format for
 * hand-written examples and for saved counterexamples, versioned. A saved scenario embeds its
 * program text, so it replays from the file alone; a hand-written one in the repository may point
 * at a program file relative to itself.
 */
export const SCENARIO_FORMAT = 'warpcheck-scenario';
export const SCENARIO_VERSION = 1;

const int = z.number().int();
const word = int.min(0).max(0xffffffff);

const launchSchema = z
  .object({
    warpSize: int.min(1).max(32).optional(),
    warps: int.min(1).max(8).optional(),
    memory: z
      .array(z.tuple([int, word]))
      .max(L.launchItems)
      .optional(),
    constants: z
      .array(z.object({ bank: int.min(0), offset: int.min(0), value: word }).strict())
      .max(L.launchItems)
      .optional(),
    registers: z
      .array(
        z
          .object({
            reg: int.min(0).max(254),
            value: word,
            threads: z.array(int.min(0)).max(256).optional(),
          })
          .strict(),
      )
      .max(L.launchItems)
      .optional(),
  })
  .strict();

/** An expected state after `step` steps (0 = initial): the issue that led there, and the view data. */
const expectedStateSchema = z
  .object({
    step: int.min(0),
    /** Which warp's mechanism state `state` describes (default 0). */
    warp: int.min(0).optional(),
    /** The issue of step `step` (for step ≥ 1): PC as the view prints it, mask in binary. */
    issue: z.object({ pc: z.string(), mask: z.string() }).strict().optional(),
    /** The mechanism's view data (`StateView.data`), compared exactly. */
    state: z.unknown().optional(),
    /** Where the expected values come from (a figure, derived by hand from the prose). */
    note: z.string().optional(),
  })
  .strict();

export const scenarioSchema = z
  .object({
    format: z.literal(SCENARIO_FORMAT),
    version: z.literal(SCENARIO_VERSION),
    name: z.string().min(1),
    description: z.string().optional(),
    /** Where the example comes from: seed file and section. */
    source: z.string().optional(),
    program: z.union([
      z.object({ text: z.string().max(L.programChars) }).strict(),
      z.object({ file: z.string() }).strict(),
    ]),
    entry: z.string().optional(),
    strict: z.boolean().optional(),
    /** Check refinement against the reference (`refines-its`); default true. */
    refine: z.boolean().optional(),
    launch: launchSchema.optional(),
    mechanism: z.string(),
    options: z.record(z.string(), z.string()).optional(),
    atomicOrder: z.enum(['ascending', 'descending', 'explore']).optional(),
    /**
     * Lane symmetry (issue 16): unknown branches split by counts of interchangeable lanes, so
     * the schedule's choices index those splits; default false.
     */
    laneSymmetry: z.boolean().optional(),
    /** Loop widening (issue 16): turns after unknown branches before a lane forgets; default 0 (off). */
    widen: int.min(0).max(1000).optional(),
    /** Choice indices from the initial state. */
    schedule: z.array(int.min(0)).max(L.scheduleSteps),
    /** For a livelock: the index in `schedule` where the cycle starts (a lasso). */
    loop: int.min(0).nullable().optional(),
    expect: z
      .object({
        /**
         * `incomplete`: the schedule ends while lanes still run — a law counterexample that broke
         * in a running state (`law` says which law; the replay test re-checks it).
         */
        verdict: z.enum([...VERDICTS, 'incomplete'] as unknown as [string, ...string[]]),
        kind: z.enum(['blocked', 'livelock']).nullable().optional(),
        property: z.string().nullable().optional(),
        states: z.array(expectedStateSchema).max(L.expectedStates).optional(),
      })
      .strict(),
    /**
     * Replay on the issue core (model/core/, `replayCore.ts`) instead of step by step: the core's
     * settings. `schedule` is then the machine schedule the core takes (checked), and `expect` the
     * verdict of the timed run (e.g. `violation` / `war-hazard` of the operand collector).
     */
    core: z
      .object({
        scheduler: z.enum(['lrr', 'gto']).optional(),
        scoreboard: z.enum(['warp', 'mask', 'dual']).optional(),
        latencies: z
          .object({
            alu: int.min(1).max(L.latency).optional(),
            sfu: int.min(1).max(L.latency).optional(),
            shared: int.min(1).max(L.latency).optional(),
            global: int.min(1).max(L.latency).optional(),
          })
          .strict()
          .optional(),
        issueWidth: int.min(1).max(64).optional(),
        collector: z.enum(['none', 'in-order', 'out-of-order']).optional(),
        banks: int.min(1).max(64).optional(),
        units: int.min(1).max(64).optional(),
        maxCycles: int.min(1).max(L.coreCycles).optional(),
      })
      .strict()
      .optional(),
    /** The law a saved counterexample breaks (`properties/laws/`), and fast-check's seed and path. */
    law: z.string().optional(),
    seed: int.optional(),
    path: z.string().optional(),
    /** How a saved counterexample was found (command, seed, tool version, date). */
    found: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type Scenario = z.infer<typeof scenarioSchema>;
export type ExpectedState = z.infer<typeof expectedStateSchema>;
