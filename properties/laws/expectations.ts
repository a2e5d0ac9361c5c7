/**
 * Expected failures as data (issue 4 §3): (law, mechanism, kernel class) → 'fails' with the reason
 * and its source. Anything not declared holds — so a newly registered mechanism that breaks a law
 * fails the tests until its expectation is declared here — and a declared failure that never shows
 * within a run's budget is reported too ("expected failure did not occur").
 *
 * 'fails' means "may fail on kernels of this class, and does on some": a spin loop in a warp of
 * one lane cannot livelock, so not every spin kernel fails.
 */
import type { ExpectationClass } from './types.ts';

export interface Expectation {
  readonly law: string;
  readonly mechanism: string;
  readonly class: ExpectationClass;
  /** When set, the expectation covers only kernels of `class` that also have this class. */
  readonly with?: ExpectationClass;
  readonly expect: 'holds' | 'fails';
  readonly reason: string;
  /**
   * Shows only in long campaigns: a run of fewer than this many kernels does not report it as
   * "did not occur" (default 0: every run must see it).
   */
  readonly minRuns?: number;
}

const SPIN_NO_SWITCH =
  'no way to switch paths before reconvergence: the lock holder waits at the reconvergence point while the others spin (seed 000 §III "SIMT-induced deadlock"; issue 4 P1)';

const BASE: readonly Expectation[] = [
  {
    law: 'termination',
    mechanism: 'simt-stack',
    class: 'spin',
    expect: 'fails',
    reason: `seed 000 §III, Fig. 3: ${SPIN_NO_SWITCH}`,
  },
  {
    law: 'termination',
    mechanism: 'token-stack',
    class: 'spin',
    expect: 'fails',
    reason: `seed 003 §II, SEMANTICS §3.3: a divergent BRA runs the not-taken lanes first until a token is popped — on Fig. 3's spinlock those are the lock holder, so it terminates, but where the waiters fall through they spin forever: ${SPIN_NO_SWITCH}`,
    // Fig. 3's shape terminates on it; the failing shapes are rarer (seen at seed 7 within 1000).
    minRuns: 1000,
  },
  ...['mp-ipdom', 'dual-path', 'lcp'].map((mechanism): Expectation => ({
    law: 'termination',
    mechanism,
    class: 'spin',
    expect: 'fails',
    reason: `issue 4 P1 (seed 002 §3.10–3.11, seed 004): ${SPIN_NO_SWITCH}; mp-ipdom's free choice of split does not help: the holder's group starts at the loop's IPDOM and waits in the Reconvergence Table, in no split`,
  })),
  ...['dfs-minpc', 'sorted'].map((mechanism): Expectation => ({
    law: 'termination',
    mechanism,
    class: 'spin',
    expect: 'fails',
    reason:
      'seed 001 §2.1, §2.4: the path with the smallest PC always runs first — the spin loop, above the lock holder, so the holder never runs ("may keep scheduling the thread on the waiting loop")',
  })),
  {
    law: 'termination',
    mechanism: 'gcn',
    class: 'spin',
    expect: 'fails',
    reason:
      'seed 001 §2.2: the minority path runs first, which lets the holder go while it is the minority, but the last two spinners split 1/1 and the tie goes to the lower PC, the loop (option gcn.tie=higher-pc terminates)',
  },
  {
    law: 'termination',
    mechanism: 'opcode-convergent',
    class: 'spin',
    expect: 'fails',
    reason: `seed 002 §4–5: merged code runs on a SIMT stack (SEMANTICS §3.8), so ${SPIN_NO_SWITCH}`,
  },
  {
    law: 'termination',
    mechanism: 'hanoi',
    class: 'spin-without-yield',
    expect: 'fails',
    reason:
      'seed 000 §VI-C, Fig. 7: without YIELD Hanoi runs the majority path (the waiters) until it reconverges — on plain code, with no BSSY, never; only YIELD swaps sibling paths. Busy waiting of both shapes: a spin loop, and a lock taken inside an if (the Barnes-Hut shape terminates on the SIMT stack, not on Hanoi without barriers)',
  },
  {
    law: 'trace-equivalence',
    mechanism: 'hanoi',
    class: 'early-exit',
    expect: 'fails',
    reason:
      "an EXIT inside a region moves the branch's IPDOM to the virtual exit, so simt-stack runs one path to the end while Hanoi waits at the compiler's BSYNC (seed 000 §VI-B; found by this law)",
  },
  {
    law: 'trace-equivalence',
    mechanism: 'hanoi',
    class: 'break',
    expect: 'fails',
    reason:
      "hand-placed BREAK out of a nested region (arbitraries/turing.ts, seed 000 Fig. 6): the branch's IPDOM is the outer join, so the stack runs the paths apart until there, while Hanoi reconverges the others at the inner BSYNC (issue 4 P6: Hanoi on hand-placed barriers is a known departure)",
    minRuns: 1000,
  },
  {
    law: 'trace-equivalence',
    mechanism: 'hanoi',
    class: 'switch',
    expect: 'fails',
    reason:
      "a BRX splitting three or more ways: Hanoi orders the paths by lane count, ties to the lower PC, whatever its order option (SEMANTICS §3.4); the stack's order option orders BRX targets by PC (SEMANTICS §3.2) — no shared priority for multi-way branches (found by this law)",
  },
  {
    law: 'trace-equivalence',
    mechanism: 'hanoi',
    class: 'recursion',
    expect: 'fails',
    reason:
      "the compile pass places no BSSY region in a recursive function (the compiled listings show none): without reconvergence Hanoi runs the paths in its option's order, the SIMT stack reconverges at the IPDOM per activation (found by this law)",
  },
  {
    law: 'trace-equivalence',
    mechanism: 'hanoi',
    class: 'call',
    expect: 'fails',
    reason:
      "the compile pass gives a function called from inside a BSSY region no regions of its own (docs/semantics.md §9, a documented limitation): Hanoi runs the callee's divergent paths without reconverging while the SIMT stack reconverges at the callee's IPDOMs (found by the 10,000-run campaign, counterexamples/trace-equivalence/)",
    minRuns: 5000,
  },
  {
    law: 'priority-independence',
    mechanism: 'hanoi',
    class: 'call',
    expect: 'fails',
    reason:
      'the same compile-pass limitation: a lock taken inside a function called from a BSSY region gets no YIELD region, so whether Hanoi terminates depends on which path it runs first (taken-first livelocks, majority terminates; seed 000 §VI-A/C; found by the 10,000-run campaign, counterexamples/priority-independence/)',
    minRuns: 5000,
  },
  {
    law: 'compile-preserves',
    mechanism: 'hanoi',
    class: 'spin',
    with: 'syncwarp',
    expect: 'fails',
    reason:
      "the compile pass gives a flag wait's if/else no region when the setter is the other path, so the lanes reach the next region's BSSY one group at a time; BSSY assigns Bx, the second group's BSSY replaces the first's mask, and Hanoi's REC stack keeps an entry whose register is invalid once the second group reconverged: the first group waits forever (blocked; its lets it pass). Found by the P8 campaign (counterexamples/compile-preserves/); the pass should reconverge a flag wait before the next region (docs/semantics.md §9)",
    minRuns: 3000,
  },
  {
    law: 'compile-preserves',
    mechanism: 'hanoi',
    class: 'recursion',
    expect: 'fails',
    reason:
      'the compile pass places no region in a recursive function and saves no B register across calls (docs/semantics.md §9, "calls on Hanoi"): lanes returning from a divergent recursion reach the next region one group at a time, and Hanoi blocks on the REC entry of the first group (found by the 10,000-run P8 campaign, counterexamples/compile-preserves/)',
    minRuns: 10000,
  },
  {
    law: 'trace-equivalence',
    mechanism: 'hanoi',
    class: 'yield',
    expect: 'fails',
    reason:
      'YIELD swaps sibling paths in Hanoi (seed 000 §VII-C) and is a no-op on the stack; compiled code has YIELD only in spin loops, the generator puts it anywhere',
  },
];

/**
 * P9 (issue 11): where IPDOM reconvergence and maximal reconvergence part, by nature
 * (docs/semantics.md, "IPDOM and maximal reconvergence"; ../shared/cases/reconvergence/simt-stack-*).
 */
const IPDOM_VS_MAXIMAL: readonly Expectation[] = [
  {
    law: 'maximal-reconvergence',
    mechanism: 'simt-stack',
    class: 'loop-escape',
    expect: 'fails',
    reason:
      "a break or continue inside an if/switch leaves by an edge that bypasses the construct's end, so the branch's IPDOM is the loop exit or latch and the other paths run the code after the construct apart; and when the only way out of a loop runs through an if-body, that body post-dominates the branch, so lanes elected in different iterations merge there (simt-stack-break-continue-escape, simt-stack-cross-iteration-merge; SEMANTICS §3.2 IPDOM)",
    minRuns: 200,
  },
  {
    law: 'maximal-reconvergence',
    mechanism: 'simt-stack',
    class: 'exit-escape',
    expect: 'fails',
    reason:
      'a return (EXIT) inside a construct makes the branch IPDOM the virtual exit, so the surviving paths never merge again; maximal reconvergence drops the exited lanes and merges the rest at the construct end (simt-stack-exit-escape; docs/semantics.md §4 simt-stack)',
    minRuns: 200,
  },
];

/** Mechanisms designed before Volta: no way to wait at a WARPSYNC for lanes on another path. */
const PRE_VOLTA = [
  'simt-stack',
  'token-stack',
  'dfs-minpc',
  'gcn',
  'bfs',
  'sorted',
  'mp-ipdom',
  'dual-path',
  'lcp',
  'opcode-convergent',
  // issue 13: warp-splits (seed 002 §3.9) and the hybrid traversal (seed 001 §2.3) are path lists
  // with no way to wait: a split runs past the WARPSYNC while the named lanes are elsewhere.
  'dws',
  'hybrid',
];
const NO_WAITING_AT_WARPSYNC =
  "a `__syncwarp` reached while the named lanes are on another path is a violation: a pre-Volta mechanism cannot wait for them (seed 000 §V-D: WARPSYNC is Volta's; SEMANTICS §2, the 'check' policy)";

/** Known departures of Hanoi from the reference (scenarios/hanoi-departs-*.sass). */
const HANOI_WARPSYNC =
  'Hanoi resumes every lane released from a WARPSYNC after the WARPSYNC that pushed the REC entry, not after its own (seed 000 §VII-B; scenarios/hanoi-departs-warpsync.sass)';

const DECLARED: readonly Expectation[] = [
  ...PRE_VOLTA.flatMap((mechanism): Expectation[] =>
    ['termination', 'trace-equivalence'].map((law) => ({
      law,
      mechanism,
      class: 'syncwarp',
      expect: 'fails',
      reason: NO_WAITING_AT_WARPSYNC,
    })),
  ),
  ...['no-lane-lost', 'trace-equivalence'].map((law): Expectation => ({
    law,
    mechanism: 'hanoi',
    class: 'syncwarp',
    expect: 'fails',
    reason: HANOI_WARPSYNC,
  })),
];

/** Block-level mechanisms (issue 13; model/mechanisms/blockMechanism.ts). */
const BLOCK = ['tbc', 'dwf', 'lwm'];
const BLOCK_UNSUPPORTED =
  'a block mechanism regroups threads of different warps, so what names the lanes of one warp (WARPSYNC, VOTE) and CALL/RET (the papers\' stacks have no call frames) has no meaning there: the run ends unsupported (docs/semantics.md "Block mechanisms"; seed 002 §3.2-3.4 describe none of them)';
const BLOCK_EXPECTATIONS: readonly Expectation[] = [
  ...['tbc', 'lwm'].map((mechanism): Expectation => ({
    law: 'termination',
    mechanism,
    class: 'spin',
    expect: 'fails',
    reason: `seed 002 §3.3-3.4: ${mechanism === 'tbc' ? 'one block-wide reconvergence stack' : 'one SIMT stack for the large warp'}, so ${SPIN_NO_SWITCH}`,
  })),
  ...BLOCK.flatMap((mechanism): Expectation[] =>
    (['call', 'recursion', 'syncwarp'] as const).map((cls) => ({
      law: 'trace-equivalence',
      mechanism,
      class: cls,
      expect: 'fails',
      reason: BLOCK_UNSUPPORTED,
    })),
  ),
];

/** The whole table. */
export const EXPECTATIONS: readonly Expectation[] = [
  ...BASE,
  ...DECLARED,
  ...IPDOM_VS_MAXIMAL,
  ...BLOCK_EXPECTATIONS,
];

/** The expectation of (law, mechanism) on a kernel of `classes`: the failing classes, if any. */
export function expectedFailures(
  law: string,
  mechanism: string,
  classes: ReadonlySet<ExpectationClass>,
): readonly Expectation[] {
  return EXPECTATIONS.filter(
    (e) =>
      e.law === law &&
      e.mechanism === mechanism &&
      e.expect === 'fails' &&
      classes.has(e.class) &&
      (e.with === undefined || classes.has(e.with)),
  );
}

/** Every declared failure of (law, mechanism). */
export const declaredFailures = (law: string, mechanism: string): readonly Expectation[] =>
  EXPECTATIONS.filter((e) => e.law === law && e.mechanism === mechanism && e.expect === 'fails');
