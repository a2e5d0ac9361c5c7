/**
 * What `replay` accepts and how long it may run (issue 14, fault 5: `core.maxCycles` 1e7 ran
 * 200 s and 3.9 GB, 2^52 never ended; an `expect` state nested 10,000 deep overflowed the stack).
 * A scenario beyond a limit is bad input (exit 2) with the limit named, never a hang or a crash.
 * Every hand-written scenario and every saved counterexample is far inside them.
 */
export const SCENARIO_LIMITS = {
  /** Bytes of a scenario file. */
  fileBytes: 32 * 1024 * 1024,
  /** Nesting of JSON arrays and objects (view data nests about five deep). */
  depth: 64,
  /** Choices in `schedule` (explore's depth budget is 100,000 steps by default). */
  scheduleSteps: 1_000_000,
  /** Initial memory words, constants and register values of `launch`, each. */
  launchItems: 100_000,
  /** `core.maxCycles` (the simulate default is 1,000,000). */
  coreCycles: 1_000_000,
  /** Latency of any class, in cycles. */
  latency: 100_000,
  /** Expected states in `expect.states`. */
  expectedStates: 100_000,
  /** Characters of an embedded program. */
  programChars: 16 * 1024 * 1024,
} as const;

/** The default time limit of one replay (`warpcheck replay --timeout`), in seconds. */
export const REPLAY_TIMEOUT_S = 60;
