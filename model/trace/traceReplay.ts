/**
 * Trace-driven replay (issue 7; seed 000 §VIII–IX): a mechanism runs the program a hardware trace
 * implies (`traceProgram`), and every lane's control decision comes from its recorded path: the
 * k-th time lane l runs the instruction at pc, it goes where it went after its k-th run of pc on
 * hardware, and its guard is what it was then (true: in the trace's mask; false: predicated off).
 * The mechanism decides only what it exists to decide — which lanes run together, in which order
 * the paths run, who waits at a barrier.
 *
 * The result is the mechanism's warp trace in the trace's own mask convention: per issue, the PC
 * and the issued lanes whose guard was true.
 *
 * Choices: where a mechanism offers several candidates (its, free-choice mechanisms), the replay
 * takes the candidate whose (PC, mask) equals the hardware's instruction at the same index of the
 * trace, else one with that PC, else the first (`choice: 'hardware'`); `choice: 'first'` always
 * takes the first. Both are deterministic; the number of choices made is reported.
 */
import type { BlockContext } from '../mechanisms/blockMechanism.ts';
import { buildCfg, ipdomOf } from '../cfg/index.ts';
import { decodeProgram } from '../isa/decode.ts';
import type { Op } from '../isa/op.ts';
import { err, ok, type Program, type Result } from '../isa/program.ts';
import { withListingOperands } from './listingOperands.ts';
import { bmovSpills, eventOf } from './traceEvents.ts';
import { listingAgreement } from './traceReplayListing.ts';
import type { Event, Group, Outcome } from '../lanes/execute.ts';
import type {
  Issue,
  Mechanism,
  MechanismContext,
  MechanismFactory,
} from '../mechanisms/mechanism.ts';
import { INST_STRIDE, lanePaths, type LanePaths } from './lanePaths.ts';
import type { TraceWarp } from './trace.ts';
import { traceProgram, type TraceProgram } from './traceReplayProgram.ts';

/** One issued warp instruction: byte PC and the lanes whose guard was true (the trace's mask). */
export interface WarpIssue {
  readonly pc: number;
  readonly mask: number;
}

/** Everything a replay needs from one traced warp, built once and shared by every mechanism. */
export interface TraceSetup {
  readonly warp: TraceWarp;
  readonly paths: LanePaths;
  readonly built: TraceProgram;
  /** The program from the trace alone (equal to `built` unless a listing supplied operands). */
  readonly reconstructed: TraceProgram;
  readonly ops: readonly Op[];
  readonly ctx: MechanismContext;
  /** The hardware's warp trace. */
  readonly hardware: readonly WarpIssue[];
  /**
   * Per lane, per instruction index: the positions in the lane's `steps` of its runs of that
   * instruction, in order (the k-th run is `visits[l].get(pc)[k]`).
   */
  readonly visits: readonly ReadonlyMap<number, readonly number[]>[];
}

/**
 * Lanes of a traced warp: the highest lane any mask holds, plus one (1 for a warp that shows no
 * lane). A lane in no mask never ran a guard-true EXIT, so it was not launched (a block of fewer
 * threads than the warp) — or it only ever ran predicated off; `blockLanes` tells from the header.
 */
export function launchedLanes(warp: TraceWarp): number {
  let union = 0;
  for (const i of warp.insts) union |= i.mask;
  return union === 0 ? 1 : 32 - Math.clz32(union >>> 0);
}

/**
 * Lanes of warp `warp` of a block, from the trace header's `-block dim = (x,y,z)`: the block's
 * threads fill warps of 32 in order. Null when the header does not say.
 */
export function blockLanes(header: Readonly<Record<string, string>>, warp: number): number | null {
  const m = /^\(?\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)?$/.exec(header['-block dim'] ?? '');
  if (!m) return null;
  const threads = Number(m[1]) * Number(m[2]) * Number(m[3]);
  return Math.max(0, Math.min(32, threads - 32 * warp));
}

/**
 * Builds the program, decodes it and computes IPDOMs for `warp` (`warpSize` lanes; default
 * `launchedLanes`).
 */
export function traceSetup(
  warp: TraceWarp,
  options: {
    readonly warpSize?: number;
    readonly file?: string;
    readonly kernel?: string;
    /**
     * A listing of the kernel: when it agrees with the trace, the operands the trace lacks come
     * from it (`withListingOperands`), and its likely convergence points.
     */
    readonly listing?: {
      readonly program: Program;
      readonly likelyConvergence?: ReadonlyMap<number, number>;
    };
  } = {},
): Result<TraceSetup> {
  const warpSize = options.warpSize ?? launchedLanes(warp);
  const paths = lanePaths(warp, warpSize);
  const rebuilt = traceProgram(warp, paths, options);
  if (!rebuilt.ok) return rebuilt;
  let built: { readonly value: TraceProgram } = rebuilt;
  let likelyConvergence: ReadonlyMap<number, number> | null = null;
  if (options.listing) {
    const agree = listingAgreement(rebuilt.value, options.listing.program, String);
    if (agree.disagreements.length === 0) {
      const w = withListingOperands(
        rebuilt.value,
        options.listing.program,
        options.listing.likelyConvergence ?? null,
      );
      built = { value: w.built };
      likelyConvergence = w.likelyConvergence;
    }
  }
  const { program, base, entry } = built.value;
  const decoded = decodeProgram(program);
  if (decoded.errors.length > 0)
    return err(
      decoded.errors.map((e) => ({
        file: options.file ?? '<traceg>',
        line: 1,
        column: 1,
        message: `rebuilt instruction at ${base + e.pc * INST_STRIDE}: ${e.message} (a bug in traceProgram)`,
      })),
    );
  const cfg = buildCfg(program);
  const full = warpSize >= 32 ? 0xffffffff : (1 << warpSize) - 1;
  const ctx: MechanismContext = {
    program,
    ops: decoded.ops,
    warpSize,
    full,
    entry,
    ipdom: (pc) => ipdomOf(cfg, pc),
    ...(likelyConvergence ? { likelyConvergence } : {}),
  };
  const visits = paths.lanes.map((lane) => {
    const m = new Map<number, number[]>();
    lane.steps.forEach((s, k) => {
      const i = (s.pc - base) / INST_STRIDE;
      const v = m.get(i);
      if (v) v.push(k);
      else m.set(i, [k]);
    });
    return m;
  });
  const hardware = warp.insts.map((i) => ({ pc: i.pc, mask: (i.mask & full) >>> 0 }));
  return ok({
    warp,
    paths,
    built: built.value,
    reconstructed: rebuilt.value,
    ops: decoded.ops,
    ctx,
    hardware,
    visits,
  });
}

/** How a replay ended. */
export type ReplayEnd =
  /** Every lane exited. */
  | { readonly kind: 'terminated' }
  /** The mechanism offers nothing while `live` lanes have not exited. */
  | { readonly kind: 'blocked'; readonly live: number }
  /** The mechanism stopped the run (a violation, unsupported instruction …). */
  | { readonly kind: 'stopped'; readonly verdict: string; readonly message: string }
  /** The mechanism ran a lane where its recorded path does not go. */
  | {
      readonly kind: 'off-path';
      readonly lane: number;
      readonly pc: number;
      readonly message: string;
    }
  /** The steps budget ran out. */
  | { readonly kind: 'budget'; readonly steps: number };

export interface ReplayOptions {
  /** Steps budget; default 4 × the hardware trace length + 1,000. */
  readonly maxSteps?: number;
  readonly choice?: 'hardware' | 'first';
}

export interface ReplayResult {
  readonly mechanism: string;
  readonly options: Readonly<Record<string, string>>;
  /** The mechanism's warp trace, in the trace's mask convention. */
  readonly trace: readonly WarpIssue[];
  /** The mechanism's own active mask of each issue (guard-false lanes included). */
  readonly active: readonly number[];
  readonly end: ReplayEnd;
  /** Issues at which the mechanism offered several candidates. */
  readonly choices: number;
  /** Of those, how many were settled by a candidate equal to the hardware's instruction. */
  readonly matchedChoices: number;
}

const lowest = (m: number) => 31 - Math.clz32(m & -m);
const hex = (pc: number) => '0x' + pc.toString(16).padStart(4, '0');

/**
 * Runs `factory` (with `options` already resolved) on the traced warp. Never throws for a
 * mechanism that keeps its own contract.
 */
export function replayTrace(
  setup: TraceSetup,
  factory: MechanismFactory,
  options: Readonly<Record<string, string>>,
  ro: ReplayOptions = {},
): ReplayResult {
  // A trace is one warp's: a block mechanism (`blockMechanism.ts`) sees a block of that one warp.
  const mech: Mechanism<unknown> = factory.create(
    factory.level === 'block'
      ? ({ ...setup.ctx, block: { warps: 1, warpSize: setup.ctx.warpSize } } as BlockContext)
      : setup.ctx,
    options,
  );
  const { ctx, paths, visits, hardware } = setup;
  const { base } = setup.built;
  const byte = (i: number) => base + i * INST_STRIDE;
  const maxSteps = ro.maxSteps ?? 4 * hardware.length + 1000;
  const count = new Map<number, number>(); // lane * n + pc → runs so far
  const n = ctx.ops.length;
  const trace: WarpIssue[] = [];
  const active: number[] = [];
  let state = mech.init();
  let exited = 0;
  let choices = 0;
  let matched = 0;
  const done = (end: ReplayEnd): ReplayResult => ({
    mechanism: factory.id,
    options,
    trace,
    active,
    end,
    choices,
    matchedChoices: matched,
  });

  const spills = bmovSpills();

  /** The k-th run of `pc` by lane `l`: its step index, or null past the recorded path. */
  const visit = (l: number, pc: number): number | null => {
    const k = count.get(l * n + pc) ?? 0;
    return visits[l]!.get(pc)?.[k] ?? null;
  };
  /** Lanes of `mask` whose guard was true at their next run of `pc`. */
  const guardTrue = (pc: number, mask: number): number => {
    let t = 0;
    for (let m = mask; m !== 0; m &= m - 1) {
      const l = lowest(m);
      const s = visit(l, pc);
      if (s !== null && paths.lanes[l]!.steps[s]!.kind === 'issued') t |= 1 << l;
    }
    return t >>> 0;
  };

  for (let step = 0; ; step++) {
    if ((ctx.full & ~exited) >>> 0 === 0) return done({ kind: 'terminated' });
    const cands = mech.candidates(state);
    if (cands.length === 0) return done({ kind: 'blocked', live: (ctx.full & ~exited) >>> 0 });
    if (step >= maxSteps) return done({ kind: 'budget', steps: step });
    let issue: Issue = cands[0]!;
    if (cands.length > 1) {
      choices++;
      const hw = hardware[trace.length];
      if (ro.choice !== 'first' && hw !== undefined) {
        const same = cands.filter((c) => byte(c.pc) === hw.pc);
        const exact = same.find((c) => guardTrue(c.pc, c.mask) === hw.mask);
        if (exact) matched++;
        issue = exact ?? same[0] ?? issue;
      }
    }
    // A merged issue (Issue.merged, seed 002 §4.5) runs two PCs at once: both are recorded, in
    // order, as two warp instructions, and the mechanism sees one outcome for both.
    const halves: readonly Issue[] =
      issue.merged === undefined ? [issue] : [{ pc: issue.pc, mask: issue.mask }, issue.merged];
    const next = new Map<number, number>();
    let gone = 0;
    let event: Event = { kind: 'none' };
    for (const half of halves) {
      const pc = half.pc;
      if (!(pc >= 0 && pc < n))
        return done({
          kind: 'off-path',
          lane: lowest(half.mask),
          pc,
          message: `lanes run past the rebuilt program (instruction ${pc})`,
        });
      const op = ctx.ops[pc]!;
      const policy = mech.policy(op);
      if (policy === 'reject') {
        const ins = ctx.program.instructions[pc]!;
        return done({
          kind: 'stopped',
          verdict: 'unsupported',
          message: `${mech.id} has no meaning for ${[ins.opcode, ...ins.modifiers].join('.')} at ${hex(byte(pc))}`,
        });
      }
      // Each lane's recorded run: guard, next PC, exit.
      let take = 0;
      for (let m = half.mask; m !== 0; m &= m - 1) {
        const l = lowest(m);
        const s = visit(l, pc);
        if (s === null)
          return done({
            kind: 'off-path',
            lane: l,
            pc: byte(pc),
            message: `${mech.id} runs lane ${l} at ${hex(byte(pc))} (run ${(count.get(l * n + pc) ?? 0) + 1}), more often than the hardware did`,
          });
        count.set(l * n + pc, (count.get(l * n + pc) ?? 0) + 1);
        const lane = paths.lanes[l]!;
        const st = lane.steps[s]!;
        if (st.kind === 'issued') take |= 1 << l;
        if (st.kind === 'issued' && lane.exitIndex === st.index) {
          gone |= 1 << l;
          continue;
        }
        const after = lane.steps[s + 1];
        // A lane whose recorded path stops without EXIT (an uncertain point) falls through.
        const to = after === undefined ? pc + 1 : (after.pc - base) / INST_STRIDE;
        next.set(to, ((next.get(to) ?? 0) | (1 << l)) >>> 0);
      }
      take >>>= 0;
      if (policy !== 'nop') event = eventOf(op, pc, take, ctx, spills.moved(op, take));
      spills.record(
        op,
        take,
        half.mask,
        op.kind === 'bmov-from-barrier' && mech.barrierValue
          ? mech.barrierValue(state, op.barrier)
          : null,
      );
      if (halves.length > 1 && event.kind !== 'none')
        return done({
          kind: 'stopped',
          verdict: 'unsupported',
          message: `merged issue at ${hex(byte(pc))}: only data instructions can be merged`,
        });
      trace.push({ pc: byte(pc), mask: take });
      active.push(half.mask >>> 0);
    }
    gone >>>= 0;
    const groups: Group[] = [...next.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([p, mask]) => ({ pc: p, mask }));
    exited = (exited | gone) >>> 0;
    const outcome: Outcome = { groups, exited: gone, event };
    const adv = mech.advance(state, issue, outcome, exited);
    if (adv.kind === 'stop')
      return done({
        kind: 'stopped',
        verdict: adv.property ? `${adv.verdict} (${adv.property})` : adv.verdict,
        message: adv.message,
      });
    state = adv.state;
  }
}
