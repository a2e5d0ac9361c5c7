import type { Op } from '../isa/op.ts';
import type { Program } from '../isa/program.ts';
import { execContext, type ExecContext, type LaneOptions } from '../lanes/execContext.ts';
import { execute, predTrue, type Group, type Outcome } from '../lanes/execute.ts';
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
import { binMask } from '../lanes/values.ts';
import { warpsyncOwnBitGap } from '../lanes/warpsyncOwnBit.ts';
import { KeyWriter } from './key.ts';
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
}

/** A block of K warps sharing memory (SEMANTICS §1). Plain, immutable data. */
export interface MachineState {
  readonly warps: readonly WarpState[];
  readonly memory: Memory;
}

/** Verdicts a single step can end a run with (SEMANTICS §6). */
export type StopVerdict =
  'undefined-behavior' | 'trap' | 'resource-exhausted' | 'violation' | 'unsupported';

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
        warp: p.ref
          ? { mech: adv.state, data: p.data, ref: p.ref }
          : { mech: adv.state, data: p.data },
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
      const executed = execute(ctx, op, pc, w, warp.data, mem, issue.mask);
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
        const adv = mech.advance(warp.mech, issue, r.outcome, r.data.exited);
        const unknownChoice = alternatives && r.choice !== null && r.choice.startsWith('unknown');
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
        out.push({
          issue,
          group: g,
          choice: r.choice,
          unknownChoice,
          warp: ref ? { mech: adv.state, data: r.data, ref } : { mech: adv.state, data: r.data },
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
  const live = canReduce ? liveness(ops, ctx.layout, (op) => mech.policy(op)) : null;
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
    let p = lv.preds[pc]!;
    while (p !== 0) {
      const b = 31 - Math.clz32(p & -p);
      p &= p - 1;
      predLanes[b]! |= mask;
    }
  };

  const warpKey = (ws: WarpState, out: KeyWriter, reduced: boolean): void => {
    mech.key(ws.mech, out);
    if (refMech && ws.ref) refMech.key(ws.ref, out);
    const d = ws.data;
    out.push(d.exited);
    const calls = d.calls;
    for (let l = 0; l < calls.length; l++) out.pushAll(calls[l]!);
    const regs = d.regs;
    if (reduced && canReduce) {
      // Only values some lane may still read (liveness.ts); which ones is a function of the
      // mechanism state and `exited`, both written above, so the key stays unambiguous.
      slotLanes.fill(0);
      predLanes.fill(0);
      mech.lanePcs!(ws.mech, visitLive);
      const liveLanes = ~d.exited;
      for (let sl = 0; sl < nSlots; sl++) {
        let m = slotLanes[sl]! & liveLanes;
        while (m !== 0) {
          const l = 31 - Math.clz32(m & -m);
          m &= m - 1;
          out.push(regs[l * nSlots + sl]!);
        }
      }
      for (let p = 0; p < 7; p++) {
        const m = predLanes[p]! & liveLanes;
        out.push((d.preds[p]! & m) >>> 0);
        out.push((d.predsUnknown[p]! & m) >>> 0);
      }
      return;
    }
    for (let i = 0; i < regs.length; i++) out.push(regs[i]!);
    for (let p = 0; p < 7; p++) {
      out.push(d.preds[p]!);
      out.push(d.predsUnknown[p]!);
    }
  };

  const memoryKey = (m: Memory, out: KeyWriter): void => writeMemoryKey(m, out);

  const keyWriter = new KeyWriter();
  const liveOf = (s: MachineState) => s.warps.map((w) => (full & ~w.data.exited) >>> 0);

  return {
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
    live: liveOf,
    referenceView: (ws) => (refMech && ws.ref ? refMech.view(ws.ref, fmt) : null),
    warpKey,
    memoryKey,
    canReduce,
    warpSteps,
  };
}
