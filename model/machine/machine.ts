import type { Op } from '../isa/op.ts';
import type { Program } from '../isa/program.ts';
import { execContext, type ExecContext, type LaneOptions } from '../lanes/execContext.ts';
import {
  execute,
  splitsOnUnknown,
  orderedLanes,
  predTrue,
  predUnknown,
  type Group,
  type Outcome,
} from '../lanes/execute.ts';
import { initialLaneData, type LaneData } from '../lanes/laneData.ts';
import type { Launch } from '../lanes/launch.ts';
import { memoryOf, writeMemoryKey, type Memory } from '../lanes/memory.ts';
import type {
  Formatter,
  Issue,
  StateView,
  Mechanism,
  MechanismContext,
  MechanismFactory,
} from '../mechanisms/mechanism.ts';
import { binMask, lanesOf, popcount, UNKNOWN } from '../lanes/values.ts';
import { warpsyncOwnBitGap } from '../lanes/warpsyncOwnBit.ts';
import { KeyWriter, type KeySink } from './key.ts';
import { LaneCanon } from './laneCanon.ts';
import { widening, type LoopVisits } from './widening.ts';
import { liveness } from './liveness.ts';
import { createIts, type ItsState } from '../mechanisms/its.ts';
import { refinementGap } from './refinement.ts';

/**
 * One warp: its mechanism's state, its lanes' thread state, and — when the run checks refinement —
 * the reference (`its`) state driven by the same steps (`refinement.ts`).
 */
export interface WarpState {
  readonly mech: unknown;
  readonly data: LaneData;
  readonly ref?: ItsState;
  /** Loop turns after unknown branches, when loop widening is on (`widening.ts`). */
  readonly loops?: LoopVisits;
  /**
   * Lanes that forgot their own number in a symbolic split (issue 16): their thread and lane
   * ids read as unknown from then on, so they are no longer pinned by those reads.
   */
  readonly anonymous?: number;
}

/** A block of K warps sharing memory (SEMANTICS §1). Plain, immutable data. */
export interface MachineState {
  readonly warps: readonly WarpState[];
  readonly memory: Memory;
}

/** Verdicts a single step can end a run with (SEMANTICS §6). */
export type StopVerdict =
  | 'undefined-behavior'
  | 'trap'
  | 'resource-exhausted'
  | 'violation'
  | 'unsupported'
  /** The branching budget of unknown predicates ran out at this step (`ExecContext.maxAlternatives`). */
  | 'bound-reached';

export interface Stop {
  readonly verdict: StopVerdict;
  readonly property?: string;
  readonly message: string;
}

/**
 * One possible step from a state: warp `warp` issues `issue`; `choice` names a data alternative
 * (an unknown predicate's outcome, an atomic's winner). Exactly one of `next` and `stop` is set.
 */
export interface Transition {
  readonly warp: number;
  readonly issue: Issue;
  /** Index of (warp, issue) among the state's issues: alternatives of one issue share it. */
  readonly group: number;
  readonly choice: string | null;
  /** The alternative resolves an unknown value (fair choice, SEMANTICS §5). */
  readonly unknownChoice: boolean;
  /**
   * Lanes of different symmetry classes raced at a store or atomic (their order decided the
   * result), so this step does not commute with renumbering lanes: a lane-symmetric search that
   * meets one must be redone without symmetry (`explore/exhaustive.ts`).
   */
  readonly orderDependent?: boolean;
  /** Loop widening forgot values at this step (`widening.ts`): what follows is an over-approximation. */
  readonly widened?: boolean;
  readonly next: MachineState | null;
  readonly stop: Stop | null;
}

/** Everything needed to run one program on one mechanism under one launch. */
export interface Machine {
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly launch: Launch;
  readonly ctx: ExecContext;
  readonly mechanism: Mechanism<unknown>;
  /** The mechanism's options, defaults filled in. */
  readonly options: Readonly<Record<string, string>>;
  readonly fmt: Formatter;
  initial(): MachineState;
  /** Every step possible from `s`, in a fixed order: a schedule is a list of indices into it. */
  successors(s: MachineState): Transition[];
  /** `terminated`: every lane exited; `blocked`: some lane has not, and nothing can issue. */
  status(s: MachineState): 'running' | 'terminated' | 'blocked';
  /** The exact canonical key of `s`: equal keys iff equal states. */
  key(s: MachineState): string;
  /**
   * `s` up to values that can no longer reach control (`liveness.ts`, relevance): equal keys mean
   * the two states behave alike forever — the same issues, choices and verdicts. A livelock's
   * cycle returns to a state with the key it started from (an accumulator may still grow).
   */
  behaviourKey(s: MachineState): string;
  /** Lanes that have not exited, per warp. */
  live(s: MachineState): number[];
  /** The reference (`its`) state of a warp when the run checks refinement, for replay views. */
  referenceView(ws: WarpState): StateView | null;
  /**
   * Appends warp `ws`'s canonical numbers to `out`. With `reduced` (only when `canReduce`), values
   * dead at every lane's PCs are left out: equal reduced keys mean bisimilar warps (`liveness.ts`).
   */
  warpKey(ws: WarpState, out: KeyWriter, reduced: boolean): void;
  /** Appends the memory's canonical numbers to `out`. */
  memoryKey(m: Memory, out: KeyWriter): void;
  /** The mechanism reports its lanes' PCs (`Mechanism.lanePcs`), so `warpKey` can reduce. */
  readonly canReduce: boolean;
  /**
   * Lane symmetry is on (`MachineSpec.laneSymmetry`, and the mechanism's rules allow it):
   * `warpKey` is canonical under renumbering interchangeable lanes (`laneCanon.ts`) and branches
   * on unknown predicates split by counts of interchangeable lanes. Part of the semantics of
   * choices: a schedule made with it replays only with it.
   */
  readonly symmetric: boolean;
  /**
   * Shared memory can influence control (`Liveness.memoryRelevant`); when not, the reduced search
   * keys no memory at all.
   */
  readonly memoryRelevant: boolean;
  /** Why lane symmetry is off though asked for (null when on or not asked for). */
  readonly symmetryOff: string | null;
  /** The same machine without lane symmetry. */
  withoutSymmetry(): Machine;
  /**
   * The steps of warp `k` alone, in state `ws` with memory `mem` (the other warps play no part in
   * them): `successors` restricted to that warp, with each step's next warp and memory. The
   * explorer caches these per (k, warp, memory).
   */
  warpSteps(k: number, ws: WarpState, mem: Memory): WarpSteps;
}

/** One step of one warp (see `Transition`): the next warp and memory, or a stop. */
export interface WarpStep {
  readonly issue: Issue;
  /** Index of the issue among the warp's candidates. */
  readonly group: number;
  readonly choice: string | null;
  readonly unknownChoice: boolean;
  /** See `Transition.orderDependent`. */
  readonly orderDependent?: boolean;
  /** See `Transition.widened`. */
  readonly widened?: boolean;
  readonly warp: WarpState | null;
  readonly memory: Memory | null;
  readonly stop: Stop | null;
}

/** Everything one warp contributes to a state's expansion. */
export interface WarpSteps {
  /** The mechanism has something to issue (`candidates` is not empty). */
  readonly enabled: boolean;
  /** `mechanism.ready`: the lanes that could issue (lane fairness). */
  readonly ready: number;
  /** Some lane has not exited. */
  readonly live: boolean;
  /** Number of candidates (steps of one candidate share its group). */
  readonly issues: number;
  readonly steps: readonly WarpStep[];
}

const NOP: Op = { kind: 'nop', guard: null, pred2: null };
const NO_EVENT = { kind: 'none' } as const;

/** Formats PCs with the program's labels (else `fn+0x0050`-style offsets) and masks in binary. */
export function formatterFor(program: Program, warpSize: number): Formatter {
  const names = new Map<number, string>();
  for (const l of program.labels) if (!names.has(l.pc)) names.set(l.pc, l.name);
  for (const f of program.functions)
    if (!names.has(f.start) && program.functions.length > 1) names.set(f.start, f.name);
  return {
    pc: (pc) =>
      names.get(pc) ??
      '0x' + (program.instructions[pc]?.offset ?? pc * 16).toString(16).padStart(4, '0'),
    mask: (m) => binMask(m, warpSize),
  };
}

export interface MachineSpec {
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly launch: Launch;
  readonly factory: MechanismFactory;
  readonly options: Readonly<Record<string, string>>;
  readonly lanes: LaneOptions;
  readonly entry: number;
  ipdom(pc: number): number;
  /**
   * Check that every issue is one the reference allows (`refines-its`, SEMANTICS §6). Default:
   * on for every mechanism but `its` itself.
   */
  readonly refine?: boolean;
  /** Likely convergence points (branch PC → LCP PC) for the `lcp` mechanism. */
  readonly likelyConvergence?: ReadonlyMap<number, number>;
  /**
   * Lane symmetry (issue 16, `laneCanon.ts`): canonical warp keys under renumbering of
   * interchangeable lanes, and counted splits of unknown branches. Applied only where the
   * mechanism declares its rules lane-symmetric. Default off.
   */
  readonly laneSymmetry?: boolean;
  /**
   * Loop widening (issue 16, `widening.ts`): after this many turns of a loop taken after a
   * branch on an unknown value, a lane forgets what the loop writes. 0 or absent: off.
   */
  readonly widen?: number;
  /** The relevance law's planted bug (`liveness.ts`); never set outside that test. */
  readonly plantUnsoundRelevance?: boolean;
  /** The barrier-liveness law's planted bug (`Liveness.barrierLive`); never set outside that test. */
  readonly plantUnsoundBarriers?: boolean;
  /** The widening law's planted bug (`widening.ts`); never set outside that test. */
  readonly plantUnsoundWidening?: boolean;
  /** The lane-symmetry law's planted bug (`LaneCanon`); never set outside that test. */
  readonly plantUnsoundSymmetry?: boolean;
}

export function createMachine(spec: MachineSpec): Machine {
  const { program, ops, launch } = spec;
  const ctx = execContext(program, ops, launch, spec.lanes);
  const mctx: MechanismContext = {
    program,
    ops,
    warpSize: launch.warpSize,
    full: ctx.full,
    entry: spec.entry,
    ipdom: spec.ipdom,
    ...(spec.likelyConvergence ? { likelyConvergence: spec.likelyConvergence } : {}),
  };
  const mech = spec.factory.create(mctx, spec.options);
  const refMech =
    (spec.refine ?? true) && spec.factory.id !== 'its'
      ? createIts(mctx, {
          grouping: 'maximal',
          // The reference reads BSSY as the mechanism is told to (SEMANTICS §2 makes OR an option).
          bssy: spec.options['bssy'] === 'or' ? 'or' : 'assign',
          warpsyncExited: 'accept',
          barriers: 'native',
        })
      : null;
  const fmt = formatterFor(program, launch.warpSize);
  const fmtPc = fmt.pc;
  /** BMOV Rd, Bx must read what the reference's Bx holds, up to exited lanes (values, SEMANTICS §6). */
  const barrierValueGap = (
    ref: ItsState,
    state: unknown,
    op: Extract<Op, { kind: 'bmov-from-barrier' }>,
    exited: number,
  ): string | null => {
    const mine = (mech.barrierValue!(state, op.barrier) & ~exited) >>> 0;
    const theirs = (refMech!.barrierValue!(ref, op.barrier) & ~exited) >>> 0;
    return mine === theirs
      ? null
      : `BMOV reads B${op.barrier} = ${binMask(mine, launch.warpSize)}, but the reference's B${op.barrier} holds ${binMask(theirs, launch.warpSize)} (live lanes)`;
  };
  const n = program.instructions.length;
  const W = launch.warpSize;
  const full = ctx.full;
  // Per PC, decided once: the mechanism's policy and the op that executes under it.
  const policyAt = ops.map((op) => mech.policy(op));
  const opAt = ops.map((op, pc) => (policyAt[pc] === 'nop' ? NOP : op));

  const stopStep = (
    issue: Issue,
    group: number,
    choice: string | null,
    unknownChoice: boolean,
    stop: Stop,
  ): WarpStep => ({ issue, group, choice, unknownChoice, warp: null, memory: null, stop });

  /**
   * A merged issue (`Issue.merged`, seed 002 §4.5, `opcode-convergent`): `issue.pc` runs for
   * `issue.mask`, then `merged.pc` for `merged.mask` on the lanes and memory that result; the
   * reference takes the two halves in turn (each half is checked for refinement), and the
   * mechanism sees one outcome: groups united by PC, exits united. Only data instructions merge:
   * an event from either half ends the run `unsupported`. Kept apart from `stepsOf` so that
   * ordinary issues take the same path as before.
   */
  const mergedSteps = (
    w: number,
    warp: WarpState,
    mem: Memory,
    issue: Issue,
    g: number,
    out: WarpStep[],
  ): void => {
    const halves: readonly Issue[] = [{ pc: issue.pc, mask: issue.mask }, issue.merged!];
    for (const h of halves)
      if (!(h.pc >= 0 && h.pc < n) || policyAt[h.pc] === 'reject') {
        out.push(
          stopStep(issue, g, null, false, {
            verdict: 'unsupported',
            message: `merged issue at pc ${h.pc}: outside the program or rejected by ${mech.id}`,
          }),
        );
        return;
      }
    interface Half {
      readonly data: LaneData;
      readonly memory: Memory;
      readonly groups: readonly Group[];
      readonly exited: number;
      readonly choice: string | null;
      readonly unknown: boolean;
      readonly ref: ItsState | undefined;
    }
    let partial: Half[] = [
      {
        data: warp.data,
        memory: mem,
        groups: [],
        exited: 0,
        choice: null,
        unknown: false,
        ref: warp.ref,
      },
    ];
    for (const h of halves) {
      const next: Half[] = [];
      for (const p of partial) {
        const gap = refMech && p.ref ? refinementGap(p.ref, h, fmtPc) : null;
        if (gap !== null) {
          out.push(
            stopStep(issue, g, p.choice, p.unknown, {
              verdict: 'violation',
              property: 'refines-its',
              message: gap,
            }),
          );
          continue;
        }
        const rs = execute(ctx, opAt[h.pc]!, h.pc, w, p.data, p.memory, h.mask);
        for (const r of rs) {
          if (r.kind === 'stop') {
            out.push(
              stopStep(issue, g, p.choice, p.unknown, { verdict: r.verdict, message: r.message }),
            );
            continue;
          }
          if (r.outcome.event.kind !== 'none') {
            out.push(
              stopStep(issue, g, p.choice, p.unknown, {
                verdict: 'unsupported',
                message: `merged issue at pc ${h.pc}: only data instructions can be merged`,
              }),
            );
            continue;
          }
          let ref = p.ref;
          if (refMech && ref) {
            const radv = refMech.advance(ref, h, r.outcome, r.data.exited);
            if (radv.kind === 'stop') {
              out.push(
                stopStep(issue, g, p.choice, p.unknown, {
                  verdict: radv.verdict,
                  message: `in the reference: ${radv.message}`,
                }),
              );
              continue;
            }
            ref = radv.state;
          }
          const choice =
            r.choice === null
              ? p.choice
              : p.choice === null
                ? r.choice
                : `${p.choice}; ${r.choice}`;
          next.push({
            data: r.data,
            memory: r.memory,
            groups: [...p.groups, ...r.outcome.groups],
            exited: (p.exited | r.outcome.exited) >>> 0,
            choice,
            unknown:
              p.unknown || (rs.length > 1 && r.choice !== null && r.choice.startsWith('unknown')),
            ref,
          });
        }
      }
      partial = next;
    }
    for (const p of partial) {
      // One group per distinct PC, ascending (the Outcome contract).
      const byPc = new Map<number, number>();
      for (const gr of p.groups) byPc.set(gr.pc, ((byPc.get(gr.pc) ?? 0) | gr.mask) >>> 0);
      const outcome: Outcome = {
        groups: [...byPc].sort((a, b) => a[0] - b[0]).map(([pc, mask]) => ({ pc, mask })),
        exited: p.exited,
        event: NO_EVENT,
      };
      const adv = mech.advance(warp.mech, issue, outcome, p.data.exited);
      if (adv.kind === 'stop') {
        out.push(
          stopStep(
            issue,
            g,
            p.choice,
            p.unknown,
            adv.property
              ? { verdict: adv.verdict, property: adv.property, message: adv.message }
              : { verdict: adv.verdict, message: adv.message },
          ),
        );
        continue;
      }
      out.push({
        issue,
        group: g,
        choice: p.choice,
        unknownChoice: p.unknown,
        warp: {
          mech: adv.state,
          data: p.data,
          ...(p.ref ? { ref: p.ref } : {}),
          ...(warp.loops ? { loops: warp.loops } : {}),
          ...(warp.anonymous ? { anonymous: warp.anonymous } : {}),
        },
        memory: p.memory,
        stop: null,
      });
    }
  };

  /** The steps of warp `w` (state `warp`, memory `mem`) issuing each of `issues`, in order. */
  const stepsOf = (
    w: number,
    warp: WarpState,
    mem: Memory,
    issues: readonly Issue[],
    out: WarpStep[],
  ): void => {
    let classes: readonly number[] | null = null;
    const classesNow = (): readonly number[] => (classes ??= classesOf(warp));
    for (let g = 0; g < issues.length; g++) {
      const issue = issues[g]!;
      if (issue.merged !== undefined) {
        mergedSteps(w, warp, mem, issue, g, out);
        continue;
      }
      const pc = issue.pc;
      if (!(pc >= 0 && pc < n)) {
        out.push(
          stopStep(issue, g, null, false, {
            verdict: 'undefined-behavior',
            message: `warp ${w} lanes ${binMask(issue.mask, W)} ran past the end of the program (pc ${pc})`,
          }),
        );
        continue;
      }
      // SEMANTICS §2, §6: a lane missing from its own WARPSYNC mask is undefined behaviour
      // whatever the mechanism's policy, and it outranks the policy's own verdict.
      const ownBit = warpsyncOwnBitGap(ctx, ops[pc]!, pc, warp.data, issue.mask);
      if (ownBit !== null) {
        out.push(
          stopStep(issue, g, null, false, { verdict: 'undefined-behavior', message: ownBit }),
        );
        continue;
      }
      if (policyAt[pc] === 'reject') {
        const ins = program.instructions[pc]!;
        out.push(
          stopStep(issue, g, null, false, {
            verdict: 'unsupported',
            message: `${mech.id} has no meaning for ${[ins.opcode, ...ins.modifiers].join('.')} at pc ${pc} (its foreign-instruction policy rejects it)`,
          }),
        );
        continue;
      }
      let op = opAt[pc]!;
      // BMOV Rd, Bx reads the mechanism's barrier register (seed 000 §V-E): a move of its value.
      if (op.kind === 'bmov-from-barrier' && mech.barrierValue && policyAt[pc] === 'native')
        op = {
          kind: 'mov',
          dst: op.dst,
          src: { kind: 'imm', value: mech.barrierValue(warp.mech, op.barrier) },
          guard: op.guard,
          pred2: null,
        };
      // Symbolic split (issue 16): when the lanes of an unknown branch fall into too many classes,
      // the issued lanes forget the values that tell them apart (an over-approximation).
      const forgot = symmetric ? forgetting(warp, op, issue.mask, classesNow) : null;
      const executed = execute(
        ctx,
        op,
        pc,
        w,
        forgot ? forgot.data : warp.data,
        mem,
        issue.mask,
        symmetric ? (forgot ? classesOf(forgot) : classesNow()) : null,
      );
      // Lane symmetry holds for this step unless lanes of different classes race (laneCanon.ts).
      let orderDependent = false;
      if (symmetric) {
        const ordered = orderedLanes(ctx, op, warp.data, issue.mask);
        if (ordered !== 0) orderDependent = !classesNow().some((c) => (ordered & ~c) === 0);
      }
      // The mechanism still sees a BMOV (.CLEAR, invalidation) with the lanes that ran it.
      const results =
        op !== opAt[pc] && opAt[pc]!.kind === 'bmov-from-barrier'
          ? executed.map((r) =>
              r.kind === 'step'
                ? {
                    ...r,
                    outcome: {
                      ...r.outcome,
                      event: {
                        kind: 'barrier' as const,
                        mask: (issue.mask & predTrue(warp.data, op.guard, full)) >>> 0,
                        value: null,
                      },
                    },
                  }
                : r,
            )
          : executed;
      const alternatives = results.length > 1;
      for (let j = 0; j < results.length; j++) {
        const r = results[j]!;
        if (r.kind === 'stop') {
          out.push(stopStep(issue, g, null, false, { verdict: r.verdict, message: r.message }));
          continue;
        }
        const unknownChoice = alternatives && r.choice !== null && r.choice.startsWith('unknown');
        // The own-bit rule again for lanes whose guard was unknown: the alternative fixed it
        // (`execute` resolves the predicate in `r.data`), and a lane it lets in may be unnamed.
        const ownBitHere = alternatives ? warpsyncOwnBitGap(ctx, op, pc, r.data, issue.mask) : null;
        if (ownBitHere !== null) {
          out.push(
            stopStep(issue, g, r.choice, unknownChoice, {
              verdict: 'undefined-behavior',
              message: ownBitHere,
            }),
          );
          continue;
        }
        const adv = mech.advance(warp.mech, issue, r.outcome, r.data.exited);
        let ref = warp.ref;
        if (refMech && ref && adv.kind === 'ok') {
          const gap = refinementGap(ref, issue, fmtPc);
          const valueGap =
            gap === null && op.kind === 'mov' && ops[pc]!.kind === 'bmov-from-barrier'
              ? barrierValueGap(
                  ref,
                  warp.mech,
                  ops[pc] as Extract<Op, { kind: 'bmov-from-barrier' }>,
                  r.data.exited,
                )
              : null;
          if (gap !== null || valueGap !== null) {
            out.push(
              stopStep(issue, g, r.choice, unknownChoice, {
                verdict: 'violation',
                property: 'refines-its',
                message: (gap ?? valueGap)!,
              }),
            );
            continue;
          }
          // The reference sees a foreign instruction as the mechanism treats it (SEMANTICS §6), and
          // lanes moved by the mechanism's own stack instructions where it moved them (token-stack).
          const moved = mech.refOutcome ? mech.refOutcome(adv.state, issue, r.outcome) : r.outcome;
          const seen = policyAt[pc] === 'native' ? moved : { ...moved, event: NO_EVENT };
          const radv = refMech.advance(ref, issue, seen, r.data.exited);
          if (radv.kind === 'stop') {
            out.push(
              stopStep(issue, g, r.choice, unknownChoice, {
                verdict: radv.verdict,
                message: `in the reference: ${radv.message}`,
              }),
            );
            continue;
          }
          ref = radv.state;
        }
        if (adv.kind === 'stop') {
          out.push(
            stopStep(
              issue,
              g,
              r.choice,
              unknownChoice,
              adv.property
                ? { verdict: adv.verdict, property: adv.property, message: adv.message }
                : { verdict: adv.verdict, message: adv.message },
            ),
          );
          continue;
        }
        let data = r.data;
        let loops = warp.loops;
        let widened = forgot !== null;
        if (widen && loops) {
          const unknownLanes =
            (predUnknown(warp.data, opAt[pc]!.guard) | predUnknown(warp.data, opAt[pc]!.pred2)) &
            issue.mask;
          const w = widen.step(
            loops,
            data,
            pc,
            issue.mask,
            unknownLanes !== 0 && results.length > 1,
            r.outcome,
          );
          data = w.data;
          loops = w.visits;
          widened ||= w.widened;
        }
        // Lanes that forgot their number read their ids as unknown (symbolic splits).
        const anonymous = forgot ? forgot.anonymous : warp.anonymous;
        if (anonymous && op.kind === 's2r' && idRead(pc)) {
          const slot = ctx.layout.slot[op.dst] ?? -1;
          const hit = (anonymous & issue.mask) >>> 0;
          if (slot >= 0 && hit !== 0) {
            const regs = data.regs.slice();
            for (let m = hit; m !== 0; m &= m - 1)
              regs[(31 - Math.clz32(m & -m)) * nSlots + slot] = UNKNOWN;
            data = { ...data, regs };
          }
        }
        out.push({
          issue,
          group: g,
          choice: r.choice,
          unknownChoice,
          ...(orderDependent ? { orderDependent } : {}),
          ...(widened ? { widened } : {}),
          warp: {
            mech: adv.state,
            data,
            ...(ref ? { ref } : {}),
            ...(loops ? { loops } : {}),
            ...(anonymous ? { anonymous } : {}),
          },
          memory: r.memory,
          stop: null,
        });
      }
    }
  };

  const warpSteps = (k: number, ws: WarpState, mem: Memory): WarpSteps => {
    const issues = mech.candidates(ws.mech);
    const steps: WarpStep[] = [];
    stepsOf(k, ws, mem, issues, steps);
    return {
      enabled: issues.length > 0,
      ready: mech.ready(ws.mech),
      live: (full & ~ws.data.exited) !== 0,
      issues: issues.length,
      steps,
    };
  };

  const successors = (s: MachineState): Transition[] => {
    const out: Transition[] = [];
    let group = 0;
    for (let w = 0; w < s.warps.length; w++) {
      const ws = s.warps[w]!;
      const issues = mech.candidates(ws.mech);
      const steps: WarpStep[] = [];
      stepsOf(w, ws, s.memory, issues, steps);
      for (const st of steps) {
        let next: MachineState | null = null;
        if (st.warp) {
          const warps = s.warps.slice();
          warps[w] = st.warp;
          next = { warps, memory: st.memory! };
        }
        out.push({
          warp: w,
          issue: st.issue,
          group: group + st.group,
          choice: st.choice,
          unknownChoice: st.unknownChoice,
          ...(st.orderDependent ? { orderDependent: true } : {}),
          ...(st.widened ? { widened: true } : {}),
          next,
          stop: st.stop,
        });
      }
      group += issues.length;
    }
    return out;
  };

  // ---- keys ----
  const nSlots = ctx.layout.count;
  const canReduce = typeof mech.lanePcs === 'function';
  const live = canReduce
    ? liveness(ops, ctx.layout, (op) => mech.policy(op), true, spec.plantUnsoundRelevance ?? false)
    : null;
  /** Per PC: the B registers a lane there may still read (`Liveness.barrierLive`). */
  const barrierLive = live
    ? live.barrierLive(spec.options['bssy'] !== 'or', spec.plantUnsoundBarriers ?? false)
    : null;
  /** The B registers some lane may still read (filled by `visitLive`). */
  let liveBarriers = 0;
  /** Per register slot / predicate: the lanes for which it is live (filled by `visitLive`). */
  const slotLanes = new Int32Array(Math.max(1, nSlots));
  const predLanes = new Int32Array(7);
  const visitLive = (pc: number, mask: number): void => {
    if (!(pc >= 0 && pc < n)) return; // the virtual exit, or past the end: nothing is read
    const lv = live!;
    const words = lv.words;
    for (let w = 0; w < words; w++) {
      let bits = lv.regs[pc * words + w]!;
      while (bits !== 0) {
        const b = 31 - Math.clz32(bits & -bits);
        bits &= bits - 1;
        slotLanes[w * 32 + b]! |= mask;
      }
    }
    liveBarriers |= barrierLive![pc]!;
    let p = lv.preds[pc]!;
    while (p !== 0) {
      const b = 31 - Math.clz32(p & -p);
      p &= p - 1;
      predLanes[b]! |= mask;
    }
  };

  // ---- lane symmetry ----
  const symmetryOff: string | null = !spec.laneSymmetry
    ? null
    : mech.laneSymmetric !== true
      ? `${mech.id}${Object.keys(spec.options).length ? ' with these options' : ''} does not declare its rules lane-symmetric`
      : mech.laneFairness && mech.pcFairness !== true
        ? `${mech.id}${Object.keys(spec.options).length ? ' with these options' : ''} is fair per lane, which renumbering lanes does not keep`
        : !canReduce
          ? `${mech.id} does not report its lanes' PCs`
          : null;
  const symmetric = spec.laneSymmetry === true && symmetryOff === null;
  // Loop widening needs the may-write sets of the liveness analysis (computed here if not above).
  const widen =
    (spec.widen ?? 0) > 0
      ? widening(
          ops,
          live ?? liveness(ops, ctx.layout, (op) => mech.policy(op)),
          nSlots,
          spec.widen!,
          spec.plantUnsoundWidening ?? false,
        )
      : null;
  const canon = new LaneCanon(W, spec.plantUnsoundSymmetry ? 'drop-lane-values' : 'none');
  // Lanes that may still read their own number (or name lanes by number) are pinned: SR_LANEID and
  // thread ids, VOTE's ballot, WARPSYNC and BMOV masks (laneCanon.ts).
  // Reads of thread and lane ids (S2R) pin only lanes that have not forgotten their number in a
  // symbolic split; the other readers (VOTE, WARPSYNC, BMOV masks) pin every lane.
  const idRead = (pc: number) =>
    ops[pc]!.kind === 's2r' && readsLaneNumber(ops[pc]!, policyAt[pc]!, full);
  const mayReadLane =
    symmetric && live
      ? live.mayReach((pc) => readsLaneNumber(ops[pc]!, policyAt[pc]!, full) && !idRead(pc))
      : null;
  const mayReadId = symmetric && live ? live.mayReach(idRead) : null;
  /** Lanes pinned by a hard reader, and lanes pinned only by id reads. */
  const pinsOf = (ws: WarpState): { hard: number; soft: number } => {
    if (!mayReadLane || !mayReadId) return { hard: 0, soft: 0 };
    let hard = 0;
    let soft = 0;
    mech.lanePcs!(ws.mech, (pc, mask) => {
      if (pc < 0 || pc >= n) return;
      if (mayReadLane[pc]) hard |= mask;
      if (mayReadId[pc]) soft |= mask;
    });
    const live = ~ws.data.exited;
    return { hard: (hard & live) >>> 0, soft: (soft & ~hard & live) >>> 0 };
  };
  const pinnedOf = (ws: WarpState): number => {
    const { hard, soft } = pinsOf(ws);
    return (hard | (soft & ~(ws.anonymous ?? 0))) >>> 0;
  };

  /** Writes warp `ws` into `out`: the mechanism, the reference, then the lanes' data. */
  const writeWarp = (ws: WarpState, out: KeySink, reduced: boolean): void => {
    const reduce = reduced && canReduce;
    if (reduce) {
      // One pass over the lanes' PCs: the registers, predicates and B registers still live.
      slotLanes.fill(0);
      predLanes.fill(0);
      liveBarriers = 0;
      mech.lanePcs!(ws.mech, visitLive);
      // Barrier registers no lane may read before they are assigned again are keyed empty.
      mech.key(ws.mech, out, liveBarriers);
      if (refMech && ws.ref) refMech.key(ws.ref, out, liveBarriers);
    } else {
      mech.key(ws.mech, out);
      if (refMech && ws.ref) refMech.key(ws.ref, out);
    }
    const d = ws.data;
    out.mask(d.exited);
    const calls = d.calls;
    for (let l = 0; l < calls.length; l++) {
      const c = calls[l]!;
      out.lane(l, c.length);
      for (let i = 0; i < c.length; i++) out.lane(l, c[i]!);
    }
    // Loop visits are bookkeeping, not data (`widening.ts`): two states with the same data stand
    // for the same concrete states, so the reduced key leaves them out — the kept state's
    // successors over-approximate the other's (widening only ever forgets). The exact key keeps
    // them.
    if (ws.loops && !reduced) {
      for (let l = 0; l < W; l++) out.lane(l, ws.loops.counts[l]!);
      out.mask(ws.loops.flagged);
    }
    if (symmetric) out.mask(ws.anonymous ?? 0);
    const regs = d.regs;
    if (reduce) {
      // Only values some lane may still read (liveness.ts, filled above); which ones is a
      // function of the mechanism state and `exited`, both written above, so the key stays
      // unambiguous.
      const liveLanes = ~d.exited;
      for (let sl = 0; sl < nSlots; sl++) {
        let m = slotLanes[sl]! & liveLanes;
        while (m !== 0) {
          const l = 31 - Math.clz32(m & -m);
          m &= m - 1;
          out.lane(l, regs[l * nSlots + sl]!);
        }
      }
      for (let p = 0; p < 7; p++) {
        const m = predLanes[p]! & liveLanes;
        out.mask((d.preds[p]! & m) >>> 0);
        out.mask((d.predsUnknown[p]! & m) >>> 0);
      }
      return;
    }
    for (let l = 0; l < W; l++)
      for (let sl = 0; sl < nSlots; sl++) out.lane(l, regs[l * nSlots + sl]!);
    for (let p = 0; p < 7; p++) {
      out.mask(d.preds[p]!);
      out.mask(d.predsUnknown[p]!);
    }
  };

  const warpKey = (ws: WarpState, out: KeyWriter, reduced: boolean): void => {
    if (!symmetric) return writeWarp(ws, out, reduced);
    canon.reset();
    writeWarp(ws, canon, reduced);
    canon.write(out, pinnedOf(ws));
  };

  /**
   * A symbolic split (issue 16): `op` branches on unknown predicates for lanes of `issued` whose
   * classes would give more outcomes than the branching budget; the issued lanes then forget every
   * register and predicate on which they differ (they become unknown, SEMANTICS §5), which makes
   * lanes that differ only in such values one class. Null when no forgetting is needed. The step
   * is abstract: what follows is possible, not certain.
   */
  const forgetting = (
    ws: WarpState,
    op: Op,
    issued: number,
    classes: () => readonly number[],
  ): WarpState | null => {
    if (!splitsOnUnknown(op)) return null;
    const d = ws.data;
    const maybe = ((predUnknown(d, op.guard) | predUnknown(d, op.pred2)) & issued) >>> 0;
    if (maybe === 0) return null;
    let total = 1;
    for (const c of classes()) {
      const k = popcount(c & maybe);
      if (k > 0) total *= k + 1;
    }
    if (total <= ctx.maxAlternatives) return null;
    const lanes = lanesOf((issued & ~d.exited) >>> 0);
    if (lanes.length < 2) return null;
    let regs: number[] | null = null;
    for (let sl = 0; sl < nSlots; sl++) {
      const v = d.regs[lanes[0]! * nSlots + sl]!;
      if (lanes.every((l) => d.regs[l * nSlots + sl] === v)) continue;
      regs ??= d.regs.slice();
      for (const l of lanes) regs[l * nSlots + sl] = UNKNOWN;
    }
    let preds: number[] | null = null;
    let unknown: number[] | null = null;
    const m = (issued & ~d.exited) >>> 0;
    for (let p = 0; p < 7; p++) {
      const t = d.preds[p]! & m;
      const u = d.predsUnknown[p]! & m;
      if (u === m || (u === 0 && (t === 0 || t === m))) continue;
      preds ??= d.preds.slice();
      unknown ??= d.predsUnknown.slice();
      preds[p] = (preds[p]! & ~m) >>> 0;
      unknown[p] = (unknown[p]! | m) >>> 0;
    }
    // Lanes pinned only by reads of their own number forget it too (those reads give unknown).
    const anonymous = ((ws.anonymous ?? 0) | (pinsOf(ws).soft & m)) >>> 0;
    if (!regs && !preds && anonymous === (ws.anonymous ?? 0)) return null;
    return {
      ...ws,
      ...(anonymous !== 0 ? { anonymous } : {}),
      data: {
        regs: regs ?? d.regs,
        preds: preds ?? d.preds,
        predsUnknown: unknown ?? d.predsUnknown,
        exited: d.exited,
        calls: d.calls,
      },
    };
  };

  /** The groups of interchangeable lanes of `ws` (lane symmetry on). */
  const classesOf = (ws: WarpState): readonly number[] => {
    canon.reset();
    writeWarp(ws, canon, canReduce);
    return canon.classes(pinnedOf(ws));
  };

  const memoryKey = (m: Memory, out: KeyWriter): void => writeMemoryKey(m, out);

  const keyWriter = new KeyWriter();
  const liveOf = (s: MachineState) => s.warps.map((w) => (full & ~w.data.exited) >>> 0);

  const machine: Machine = {
    program,
    ops,
    launch,
    ctx,
    mechanism: mech,
    options: spec.options,
    fmt,
    initial: () => ({
      warps: Array.from({ length: launch.warps }, (_, k) => ({
        mech: mech.init(),
        data: initialLaneData(ctx.layout, launch, k),
        ...(refMech ? { ref: refMech.init() } : {}),
        ...(widen ? { loops: widen.initial(W) } : {}),
      })),
      memory: memoryOf(launch.memory),
    }),
    successors,
    status(s) {
      if (s.warps.every((w) => (full & ~w.data.exited) === 0)) return 'terminated';
      return s.warps.some((w) => mech.candidates(w.mech).length > 0) ? 'running' : 'blocked';
    },
    key(s) {
      keyWriter.reset();
      for (const w of s.warps) warpKey(w, keyWriter, false);
      memoryKey(s.memory, keyWriter);
      return keyWriter.finish();
    },
    behaviourKey(s) {
      keyWriter.reset();
      for (const w of s.warps) writeWarp(w, keyWriter, canReduce);
      if (!canReduce || live!.memoryRelevant) memoryKey(s.memory, keyWriter);
      return keyWriter.finish();
    },
    live: liveOf,
    referenceView: (ws) => (refMech && ws.ref ? refMech.view(ws.ref, fmt) : null),
    warpKey,
    memoryKey,
    canReduce,
    symmetric,
    memoryRelevant: live ? live.memoryRelevant : true,
    symmetryOff,
    withoutSymmetry: () => (symmetric ? createMachine({ ...spec, laneSymmetry: false }) : machine),
    warpSteps,
  };
  return machine;
}

/** Ops whose effect depends on lane numbers, or that name lanes by number (laneCanon.ts). */
function readsLaneNumber(op: Op, policy: string, full: number): boolean {
  if (policy === 'nop' || policy === 'reject') return false;
  switch (op.kind) {
    case 's2r':
      return /^SR_(LANEID|TID|LANEMASK|[LGE][TE]MASK)/.test(op.sreg);
    case 'warpsync':
      // A WARPSYNC naming the whole warp names no lane in particular.
      // (`mask` null: WARPSYNC.ALL.)
      return !(
        op.mask === null ||
        (op.mask.kind === 'imm' && (op.mask.value & full) >>> 0 === full)
      );
    case 'vote':
    case 'bmov-from-barrier':
    case 'bmov-to-barrier':
      return true;
    default:
      return false;
  }
}
