import { operandsOf } from '../isa/operands.ts';
import { printInstruction } from '../isa/printProgram.ts';
import type { Machine, MachineState, Stop, WarpStep } from '../machine/machine.ts';
import { popcount } from '../lanes/execute.ts';
import { latencyClassOf, type Latencies, DEFAULT_LATENCIES } from './latency.ts';
import { hazard, keysOf, reserve, retire, type Board, type ScoreboardKind } from './scoreboard.ts';
import { warpOrder, type SchedulerKind } from './scheduler.ts';
import {
  dualReserve,
  dualRetire,
  dualWaits,
  enter,
  EMPTY_DUAL,
  type DualBoard,
} from './dualScoreboard.ts';
import {
  collect,
  DEFAULT_BANKS,
  DEFAULT_UNITS,
  freeUnits,
  held,
  warHazard,
  type Collector,
  type CollectorConfig,
  type CollectorKind,
} from './operandCollector.ts';

/**
 * The issue core (SEMANTICS §4): the warps of one block on one SM, each with its control-flow
 * mechanism (the functional `Machine`), a scheduler that offers the issue slot(s) to warps every
 * cycle, latencies, and a scoreboard per warp. Timing only decides *when* a warp's next
 * instruction issues; what it does is the machine's step, so every timed run is an untimed run of
 * the same machine (the safety property of `core.test.ts` checks it by replaying the schedule).
 *
 * The state is immutable, like the machine's: `stepCycle` returns a new state.
 */
export interface CoreConfig {
  readonly scheduler: SchedulerKind;
  readonly scoreboard: ScoreboardKind;
  readonly latencies: Latencies;
  /** Instructions issued per cycle, from different warps (default 1). */
  readonly issueWidth: number;
  /** Operand collector (seed 002 §2.5; operandCollector.ts); absent or 'none': operands read at issue. */
  readonly collector?: CollectorKind;
  /** Register banks of the collector (default 4). */
  readonly banks?: number;
  /** Collector units (default 2). */
  readonly collectorUnits?: number;
}

export const DEFAULT_CORE: CoreConfig = {
  scheduler: 'lrr',
  scoreboard: 'warp',
  latencies: DEFAULT_LATENCIES,
  issueWidth: 1,
};

/** Counters, all exact integers. */
export interface CoreCounters {
  readonly cycles: number;
  readonly issued: number;
  /** Sum over issued instructions of their active lanes (for SIMD efficiency). */
  readonly activeLanes: number;
  /** Cycles in which no instruction issued. */
  readonly idle: number;
  /** Offers of the issue slot a warp declined because its next instruction had a hazard. */
  readonly stalls: number;
  /** Stalls of the `warp` scoreboard that the `mask` scoreboard would not have made. */
  readonly falseStalls: number;
}

/** A persistent list of schedule indices, newest first. */
export type Trail = { readonly index: number; readonly prev: Trail } | null;

/** The machine schedule of a core state, oldest first. */
export function scheduleOf(s: { readonly trail: Trail }): number[] {
  const out: number[] = [];
  for (let t = s.trail; t !== null; t = t.prev) out.push(t.index);
  return out.reverse();
}

export interface CoreState {
  readonly machine: MachineState;
  readonly cycle: number;
  readonly boards: readonly Board[];
  /** The warp that issued last (-1 before the first issue). */
  readonly last: number;
  readonly counters: CoreCounters;
  /**
   * Machine schedule so far, newest first, as a persistent list (appending is O(1) and shares the
   * past; `scheduleOf` gives the array): per issue, the index into `machine.successors`.
   */
  readonly trail: Trail;
  /**
   * Per warp and lane, the cycle of the lane's last issue (-1: never). The core picks, among a
   * warp's candidates without a hazard, the one whose longest-waiting lane has waited longest —
   * weak fairness per lane, as the explorer assumes for `its`, `mp-ipdom` and `dual-path`
   * (SEMANTICS §3.1, §6); without it a spinning path could starve the lock holder forever.
   */
  readonly lastIssue: readonly (readonly number[])[];
  /** Per warp, the two boards of the `dual` scoreboard (dualScoreboard.ts); only for `dual`. */
  readonly duals?: readonly DualBoard[];
  /** Instructions holding collector units; only with a collector. */
  readonly collector?: Collector;
}

/** One issue in a cycle, for replay views. */
export interface IssueRecord {
  readonly cycle: number;
  readonly warp: number;
  readonly pc: number;
  readonly mask: number;
  readonly latency: number;
  /** The second half of a merged issue (opcode-convergent). */
  readonly merged?: { readonly pc: number; readonly mask: number };
}

/**
 * A warp offered the slot whose every candidate waited on the scoreboard. `falseStall`: the
 * per-warp scoreboard waited although some candidate shares no lane with any pending write to
 * what it touches, so the lane-mask scoreboard would have issued it.
 */
export interface StallRecord {
  readonly cycle: number;
  readonly warp: number;
  readonly candidates: readonly {
    readonly pc: number;
    readonly mask: number;
    readonly merged?: { readonly pc: number; readonly mask: number };
  }[];
  readonly falseStall: boolean;
}

export type CycleResult =
  | {
      readonly kind: 'running';
      readonly state: CoreState;
      readonly issued: readonly IssueRecord[];
      readonly stalled: readonly StallRecord[];
    }
  | { readonly kind: 'terminated'; readonly state: CoreState }
  | { readonly kind: 'blocked'; readonly state: CoreState }
  | {
      readonly kind: 'stop';
      readonly state: CoreState;
      readonly stop: Stop;
      /** The issue that showed a timing violation (war-hazard), when it was one. */
      readonly issued?: readonly IssueRecord[];
    };

export interface Core {
  readonly machine: Machine;
  readonly config: CoreConfig;
  initial(): CoreState;
  /**
   * One cycle: retire writes, offer the slot(s) in scheduler order, issue what has no hazard.
   * With `force`, that step of that warp (an index into its `warpSteps`, any data alternative)
   * issues if it has no hazard, else the cycle stalls: `options(s)` lists the forced steps an
   * unconstrained search needs, `followSchedule` forces a scenario's steps.
   */
  stepCycle(s: CoreState, force?: { warp: number; step: number }): CycleResult;
  /** The (warp, step) pairs that could issue in this cycle (see `exploreCore`). */
  options(s: CoreState): { warp: number; step: number }[];
}

export function createCore(machine: Machine, config: CoreConfig = DEFAULT_CORE): Core {
  const ops = machine.ops;
  // Per PC: scoreboard keys and latency, computed once.
  const info = ops.map((op, pc) => {
    const o = operandsOf(op);
    const { touched, written } = keysOf(o);
    const cls = latencyClassOf(op, machine.program.instructions[pc]?.opcode ?? '');
    return {
      touched,
      written,
      latency: config.latencies[cls],
      reads: o.readRegs,
      regs: o.writeRegs,
    };
  });
  const warps = machine.launch.warps;
  const dual = config.scoreboard === 'dual';
  const coll: CollectorConfig | null =
    config.collector === undefined || config.collector === 'none'
      ? null
      : {
          kind: config.collector,
          banks: config.banks ?? DEFAULT_BANKS,
          units: config.collectorUnits ?? DEFAULT_UNITS,
        };

  /** Whether warp k's step `st` waits on the scoreboard now, and what the lane-mask rule says. */
  function waitsOf(board: Board, dualBoard: DualBoard | undefined, st: WarpStep) {
    // A merged issue (opcode-convergent, seed 002 §4.5) waits when either half would.
    const h0 = hazard(board, info[st.issue.pc]!.touched, st.issue.mask);
    const m = st.issue.merged;
    const h1 = m ? hazard(board, info[m.pc]!.touched, m.mask) : h0;
    const h = { warp: h0.warp || h1.warp, mask: h0.mask || h1.mask };
    const e = dualBoard ? enter(dualBoard, st.issue) : null;
    const waits = e
      ? dualWaits(e.board, e.role, info[st.issue.pc]!.touched, m ? info[m.pc]!.touched : null)
      : config.scoreboard === 'warp'
        ? h.warp
        : h.mask;
    return { waits, h, e };
  }

  /**
   * Every (warp, step) that may issue in this cycle — enabled, a collector unit free, no hazard
   * (one per candidate: the first step of each group). `exploreCore` branches over these instead
   * of following the scheduler and the fair choice.
   */
  function options(s: CoreState): { warp: number; step: number }[] {
    if (machine.status(s.machine) !== 'running') return [];
    const cycle = s.cycle;
    const units = coll ? held(s.collector ?? [], cycle) : undefined;
    const out: { warp: number; step: number }[] = [];
    for (let k = 0; k < warps; k++) {
      const steps = machine.warpSteps(k, s.machine.warps[k]!, s.machine.memory);
      if (!steps.enabled) continue;
      if (coll && freeUnits(units!, cycle, coll) <= 0) continue;
      const board = retire(s.boards[k]!, cycle);
      const dualBoard = dual ? dualRetire((s.duals ?? [])[k]!, cycle) : undefined;
      for (let i = 0; i < steps.steps.length; i++) {
        const st = steps.steps[i]!;
        if (i > 0 && steps.steps[i - 1]!.group === st.group) continue;
        if (!waitsOf(board, dualBoard, st).waits) out.push({ warp: k, step: i });
      }
    }
    return out;
  }

  function stepCycle(s: CoreState, force?: { warp: number; step: number }): CycleResult {
    const status = machine.status(s.machine);
    if (status === 'terminated') return { kind: 'terminated', state: s };
    if (status === 'blocked') return { kind: 'blocked', state: s };
    const cycle = s.cycle;
    let boards = s.boards.map((b) => retire(b, cycle));
    let duals = dual ? (s.duals ?? []).map((d) => dualRetire(d, cycle)) : undefined;
    let units = coll ? held(s.collector ?? [], cycle) : undefined;
    let ms = s.machine;
    let last = s.last;
    let { issued, activeLanes, idle, stalls, falseStalls } = s.counters;
    let trail = s.trail;
    let lastIssue = s.lastIssue;
    const records: IssueRecord[] = [];
    const stalled: StallRecord[] = [];
    /** The state at the end of this cycle, from the values accumulated so far. */
    const after = (): CoreState => ({
      machine: ms,
      cycle: cycle + 1,
      boards,
      last,
      trail,
      lastIssue,
      counters: { cycles: cycle + 1, issued, activeLanes, idle, stalls, falseStalls },
      ...(duals ? { duals } : {}),
      ...(units ? { collector: units } : {}),
    });
    for (const k of force ? [force.warp] : warpOrder(config.scheduler, warps, s.last)) {
      if (records.length >= config.issueWidth) break;
      const ws = ms.warps[k]!;
      const steps = machine.warpSteps(k, ws, ms.memory);
      if (!steps.enabled) continue;
      // Structural: an issue needs a free collector unit (seed 002 §2.5).
      if (coll && freeUnits(units!, cycle, coll) <= 0) continue;
      // Among the candidates without a hazard (free-choice mechanisms offer several), the one
      // whose longest-waiting lane has waited longest issues (see `lastIssue`); a forced step
      // (`exploreCore`) is the only one considered.
      let chosen = -1;
      let chosenDual: ReturnType<typeof enter> | null = null;
      let chosenAge = Infinity;
      const since = lastIssue[k]!;
      // The cycle of the last issue of the longest-waiting lane of an issue (both halves).
      const ageOf = (mask: number): number => {
        let oldest = Infinity;
        for (let m = mask >>> 0; m !== 0; m &= m - 1) {
          const t = since[31 - Math.clz32(m & -m)]!;
          if (t < oldest) oldest = t;
        }
        return oldest;
      };
      let maskFree = false;
      const waited: StallRecord['candidates'][number][] = [];
      for (let i = 0; i < steps.steps.length; i++) {
        const st = steps.steps[i]!;
        // Unforced, one step per candidate (the first alternative of its group); a forced step may
        // be any alternative (a scenario's schedule picks an atomic's winner, `followSchedule.ts`).
        if (force) {
          if (i !== force.step) continue;
        } else if (i > 0 && steps.steps[i - 1]!.group === st.group) continue;
        const m = st.issue.merged;
        const { waits, h, e } = waitsOf(boards[k]!, dual ? duals![k]! : undefined, st);
        if (waits) {
          waited.push({ pc: st.issue.pc, mask: st.issue.mask, ...(m ? { merged: m } : {}) });
          if (!h.mask) maskFree = true;
          continue;
        }
        // Fairness: the candidate whose longest-waiting lane waited longest; ties keep the
        // mechanism's order.
        const age = ageOf((st.issue.mask | (m?.mask ?? 0)) >>> 0);
        if (chosen < 0 || age < chosenAge) {
          chosen = i;
          chosenDual = e;
          chosenAge = age;
        }
      }
      if (chosen < 0) {
        if (waited.length > 0) {
          stalls++;
          if (maskFree) falseStalls++;
          stalled.push({ cycle, warp: k, candidates: waited, falseStall: maskFree });
        }
        continue;
      }
      const st = steps.steps[chosen]!;
      // Index of this step in machine.successors(ms): warps before k contribute their steps first.
      let index = chosen;
      for (let j = 0; j < k; j++)
        index += machine.warpSteps(j, ms.warps[j]!, ms.memory).steps.length;
      trail = { index, prev: trail };
      if (st.stop) {
        return {
          kind: 'stop',
          state: {
            ...s,
            machine: ms,
            boards,
            trail,
            counters: { ...s.counters, cycles: cycle + 1 },
          },
          stop: st.stop,
        };
      }
      const lat = info[st.issue.pc]!.latency;
      const merged = st.issue.merged;
      // Write-back: issue + latency, or dispatch + latency behind the operand collector.
      let ready = cycle + lat;
      let war = null;
      if (coll) {
        const regs = merged
          ? [...info[st.issue.pc]!.regs, ...info[merged.pc]!.regs]
          : info[st.issue.pc]!.regs;
        const f = collect(units!, coll, {
          warp: k,
          pc: st.issue.pc,
          mask: (st.issue.mask | (merged?.mask ?? 0)) >>> 0,
          cycle,
          sources: merged
            ? [...new Set([...info[st.issue.pc]!.reads, ...info[merged.pc]!.reads])]
            : info[st.issue.pc]!.reads,
          latency: lat,
        });
        war = warHazard(units!, f, regs);
        units = [...units!, f];
        ready = f.writeback;
      }
      boards = boards.map((b, j) => {
        if (j !== k) return b;
        const once = reserve(b, info[st.issue.pc]!.written, st.issue.mask, ready);
        return merged ? reserve(once, info[merged.pc]!.written, merged.mask, ready) : once;
      });
      if (duals && chosenDual) {
        duals = duals.slice();
        duals[k] = dualReserve(
          chosenDual.board,
          chosenDual.role,
          st.issue,
          info[st.issue.pc]!.written,
          merged ? info[merged.pc]!.written : null,
          ready,
        );
      }
      const nextWarps = ms.warps.slice();
      nextWarps[k] = st.warp!;
      ms = { ...ms, warps: nextWarps, memory: st.memory! };
      issued++;
      activeLanes += popcount(st.issue.mask) + (merged ? popcount(merged.mask) : 0);
      {
        const row = lastIssue[k]!.slice();
        for (let m = (st.issue.mask | (merged?.mask ?? 0)) >>> 0; m !== 0; m &= m - 1)
          row[31 - Math.clz32(m & -m)] = cycle;
        lastIssue = lastIssue.map((r, j) => (j === k ? row : r));
      }
      last = k;
      records.push({
        cycle,
        warp: k,
        pc: st.issue.pc,
        mask: st.issue.mask,
        latency: ready - cycle,
        ...(merged ? { merged } : {}),
      });
      if (war) {
        const fmt = machine.fmt;
        const text = (pc: number) =>
          `${printInstruction(machine.program.instructions[pc]!, fmt.pc)
            .replace(/^\s*\/\*[0-9a-f]+\*\/\s*/, '')
            .replace(/\s*;\s*$/, '')
            .trim()} at ${fmt.pc(pc)}`;
        return {
          kind: 'stop',
          state: after(),
          stop: {
            verdict: 'violation',
            property: 'war-hazard',
            message:
              `write-after-read on R${war.reg} (warp ${k}): the younger instruction ${text(war.younger.pc)} ` +
              `(issued cycle ${war.younger.issue}) writes it back in cycle ${war.younger.writeback}, but the older ` +
              `instruction ${text(war.older.pc)} (issued cycle ${war.older.issue}) reads it from bank ` +
              `${war.reg % coll!.banks} only in cycle ${war.older.reads.find((r) => r.reg === war.reg)!.cycle}`,
          },
          issued: records,
        };
      }
    }
    if (records.length === 0) idle++;
    return { kind: 'running', state: after(), issued: records, stalled };
  }

  return {
    machine,
    config,
    options,
    initial: () => ({
      machine: machine.initial(),
      cycle: 0,
      boards: Array.from({ length: warps }, () => []),
      last: -1,
      trail: null,
      lastIssue: Array.from({ length: warps }, () =>
        new Array<number>(machine.launch.warpSize).fill(-1),
      ),
      counters: { cycles: 0, issued: 0, activeLanes: 0, idle: 0, stalls: 0, falseStalls: 0 },
      ...(dual ? { duals: Array.from({ length: warps }, () => EMPTY_DUAL) } : {}),
      ...(coll ? { collector: [] } : {}),
    }),
    stepCycle,
  };
}
