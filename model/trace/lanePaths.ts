/**
 * Per-lane control flow recovered from one warp of a hardware trace (`TraceWarp`), from the trace
 * alone: no SASS listing, no branch targets, no guard predicates.
 *
 * The difficulty: `TraceInst.mask` holds the lanes whose guard was TRUE, so a lane absent from an
 * instruction's mask was either elsewhere (on another path) or at this PC but predicated off. The
 * simulation below keeps each lane's expected next PC and decides, for an absent lane expected at
 * the issued PC, by looking ahead to the lane's next issue in the trace:
 * - next issued at this same PC: the lane is waiting here on another path (it stays);
 * - next issued at a higher PC: predicated off here (it executes the PC and falls through to
 *   pc + 16); uncertain when the same PC is issued again, without the lane, before that next
 *   issue (the trace cannot tell at which of the issues the lane was predicated off);
 * - never issued again after issuing before (a trace cut short): predicated off, and uncertain;
 * - next issued at a lower PC, never again, or the instruction cannot be predicated (BSSY,
 *   BSYNC): the trace cannot tell; the point is recorded as uncertain and the lane's position
 *   becomes unknown until its next issue.
 * A lane whose guard was true at a branch, CALL or RET goes to an unknown PC (targets are not in
 * the trace); its next issue tells where it went (the branch decision's `target`), except that
 * instructions issued right after the transfer, only for lanes of the transferring group, at PCs
 * falling through to that next issue, count as the lane's target executed predicated off (the
 * `@!PT SHFL.IDX` at the start of a called function, mask 0).
 */
import { ALL_CONTROL_OPCODES } from '../isa/control.ts';
import type { TraceInst, TraceWarp } from './trace.ts';

/** Bytes between consecutive instructions (Volta and later: 128-bit instructions). */
export const INST_STRIDE = 16;

/** Opcodes that transfer control to a PC the trace does not give (guard true: taken). */
const TRANSFERS: ReadonlySet<string> = new Set([
  'BRA',
  'BRX',
  'BRXU',
  'JMP',
  'JMX',
  'JMXU',
  'CALL',
  'RET',
  'RTT',
  'BRK',
  'CONT',
]);
/** Branches whose per-lane outcome is recorded as a `BranchDecision`. */
const BRANCHES: ReadonlySet<string> = new Set(['BRA', 'BRX', 'BRXU', 'JMP', 'JMX', 'JMXU']);
/** Opcodes that end the lane (guard true). */
const EXITS: ReadonlySet<string> = new Set(['EXIT', 'KILL']);
/** Synchronisation points recorded in `LanePath.syncs`. */
const SYNCS: ReadonlySet<string> = new Set(['BSYNC', 'WARPSYNC', 'SYNC']);
/** Never predicated (`shared/sass/SYNTAX.md` §3): an absent lane is not predicated off there. */
const UNPREDICATED: ReadonlySet<string> = new Set(['BSSY', 'BSYNC']);
/** Whether `opcode` (without modifiers) is a control-flow instruction. */
export function isControlOpcode(opcode: string): boolean {
  // The ISA's list (SEMANTICS §2), plus transfers only a trace names (RTT).
  return ALL_CONTROL_OPCODES.has(opcode) || TRANSFERS.has(opcode);
}

/** One PC in a lane's path. */
export interface LaneStep {
  /** Index into `TraceWarp.insts` of the issue the lane took part in. */
  readonly index: number;
  readonly pc: number;
  /** `issued`: the lane is in the mask; `predicated-off`: at this PC with a false guard. */
  readonly kind: 'issued' | 'predicated-off';
}

/** The outcome of a branch for one lane. */
export interface BranchDecision {
  readonly index: number;
  readonly pc: number;
  readonly taken: boolean;
  /** pc + 16 when not taken; when taken, the PC of the lane's next issue (null: never issued again). */
  readonly target: number | null;
}

/** A synchronisation instruction (BSYNC, WARPSYNC) the lane passed with a true guard. */
export interface SyncPoint {
  readonly index: number;
  readonly pc: number;
  readonly opcode: string;
}

/** A point where the trace cannot tell what the lane did. */
export interface UncertainPoint {
  readonly lane: number;
  /** Index of the issue at which the question arose. */
  readonly index: number;
  readonly pc: number;
  readonly reason: string;
}

/** A lane in a mask where the simulation expected it elsewhere. */
export interface Inconsistency {
  readonly lane: number;
  readonly index: number;
  readonly pc: number;
  /** Where the lane was expected (null: it had exited). */
  readonly expected: number | null;
  readonly reason: string;
}

/** What the trace tells about one lane. */
export interface LanePath {
  readonly lane: number;
  readonly steps: readonly LaneStep[];
  /** `steps.map(s => s.pc)`. */
  readonly pcs: readonly number[];
  readonly branches: readonly BranchDecision[];
  readonly syncs: readonly SyncPoint[];
  /** Index of the EXIT the lane executed with a true guard; null if it never did. */
  readonly exitIndex: number | null;
  readonly uncertain: readonly UncertainPoint[];
}

/** Result of `lanePaths`. */
export interface LanePaths {
  readonly warpSize: number;
  readonly lanes: readonly LanePath[];
  /** All lanes' uncertain points, in trace order. */
  readonly uncertain: readonly UncertainPoint[];
  readonly inconsistencies: readonly Inconsistency[];
}

interface LaneState {
  /** Expected next PC; null when unknown (after a transfer or an uncertain point). */
  at: number | null;
  exited: boolean;
  steps: LaneStep[];
  branches: BranchDecision[];
  syncs: SyncPoint[];
  exitIndex: number | null;
  uncertain: UncertainPoint[];
  /** A taken branch whose target is the PC of the lane's next issue. */
  pending: { index: number; pc: number } | null;
  /** The transfer (guard true) after which the position is unknown; null otherwise. */
  transfer: { index: number; mask: number } | null;
  /** Position in `issues[lane]` of the lane's next issue. */
  cursor: number;
}

const inMask = (inst: TraceInst, lane: number): boolean =>
  lane < 32 && ((inst.mask >>> lane) & 1) === 1;

/**
 * Per lane, the PCs it executed in trace order (predicated-off ones included), its branch
 * decisions, syncs and exit, as far as the trace can tell; see the module comment for the rule.
 * Start: every lane at the first PC of the trace.
 */
export function lanePaths(warp: TraceWarp, warpSize = 32): LanePaths {
  const insts = warp.insts;
  const size = Math.max(0, Math.min(32, Math.floor(warpSize)));
  const issues: number[][] = Array.from({ length: size }, () => []);
  insts.forEach((inst, i) => {
    for (let l = 0; l < size; l++) if (inMask(inst, l)) issues[l]!.push(i);
  });
  const start = insts.length > 0 ? insts[0]!.pc : null;
  const lanes: LaneState[] = Array.from({ length: size }, () => ({
    at: start,
    exited: false,
    steps: [],
    branches: [],
    syncs: [],
    exitIndex: null,
    uncertain: [],
    pending: null,
    transfer: null,
    cursor: 0,
  }));
  const uncertain: UncertainPoint[] = [];
  const inconsistencies: Inconsistency[] = [];
  const doubt = (s: LaneState, lane: number, index: number, pc: number, reason: string): void => {
    const u = { lane, index, pc, reason };
    s.uncertain.push(u);
    uncertain.push(u);
  };

  for (let i = 0; i < insts.length; i++) {
    const inst = insts[i]!;
    const { pc, opcode } = inst;
    for (let l = 0; l < size; l++) {
      const s = lanes[l]!;
      if (inMask(inst, l)) {
        s.cursor++;
        if (s.exited) {
          inconsistencies.push({
            lane: l,
            index: i,
            pc,
            expected: null,
            reason: 'issued after its EXIT',
          });
          s.exited = false;
        } else if (s.at !== null && s.at !== pc) {
          inconsistencies.push({
            lane: l,
            index: i,
            pc,
            expected: s.at,
            reason: `issued at ${hex(pc)} while expected at ${hex(s.at)}`,
          });
        }
        // Right after a transfer, instructions issued only for lanes of the transferring group at
        // pc - 16, pc - 32, … (falling through to pc) were this lane's target, predicated off.
        const fill: LaneStep[] = [];
        if (s.transfer !== null && s.transfer.index < i - 1) {
          let ok = true;
          for (let k = s.transfer.index + 1; k < i; k++) {
            const c = insts[k]!;
            if (c.pc !== pc - INST_STRIDE * (i - k) || (c.mask & ~s.transfer.mask) !== 0)
              ok = false;
          }
          if (ok)
            for (let k = s.transfer.index + 1; k < i; k++)
              fill.push({ index: k, pc: insts[k]!.pc, kind: 'predicated-off' });
        }
        s.transfer = null;
        if (s.pending !== null) {
          const target = fill.length > 0 ? fill[0]!.pc : pc;
          s.branches.push({ index: s.pending.index, pc: s.pending.pc, taken: true, target });
          s.pending = null;
        }
        s.steps.push(...fill);
        s.steps.push({ index: i, pc, kind: 'issued' });
        if (SYNCS.has(opcode)) s.syncs.push({ index: i, pc, opcode });
        if (EXITS.has(opcode)) {
          s.exited = true;
          s.exitIndex = i;
          s.at = null;
        } else if (TRANSFERS.has(opcode)) {
          s.at = null;
          s.transfer = { index: i, mask: inst.mask };
          if (BRANCHES.has(opcode)) s.pending = { index: i, pc };
        } else {
          s.at = pc + INST_STRIDE;
        }
        continue;
      }
      if (s.exited || s.at !== pc) continue;
      // Absent, but expected here: waiting on another path, or predicated off.
      const next = s.cursor < issues[l]!.length ? issues[l]![s.cursor]! : null;
      const nextPc = next === null ? null : insts[next]!.pc;
      if (nextPc === pc) continue; // issued here later: on a path that runs later
      // A lane that ran before, was expected here by falling through, and never issues again
      // (a trace cut short: a livelock's turns, a blocked warp) is taken as predicated off: on
      // another path it could not be expected at this PC, and a mechanism that keeps it in the
      // issuing group needs this run (issue 15: exported livelocks). Still reported as uncertain.
      if (
        nextPc === null &&
        !UNPREDICATED.has(opcode) &&
        s.steps.some((t) => t.kind === 'issued')
      ) {
        doubt(
          s,
          l,
          i,
          pc,
          `absent at ${hex(pc)} ${opcode} and never issued again: taken as predicated off (it was expected here)`,
        );
        s.steps.push({ index: i, pc, kind: 'predicated-off' });
        if (BRANCHES.has(opcode))
          s.branches.push({ index: i, pc, taken: false, target: pc + INST_STRIDE });
        s.at = pc + INST_STRIDE;
        continue;
      }
      if (nextPc === null || nextPc < pc || UNPREDICATED.has(opcode)) {
        doubt(
          s,
          l,
          i,
          pc,
          nextPc === null
            ? `absent at ${hex(pc)} ${opcode} and never issued again: not known whether it was predicated off or never got here`
            : UNPREDICATED.has(opcode)
              ? `absent at ${hex(pc)} ${opcode} (never predicated) and next issued at ${hex(nextPc)}`
              : `absent at ${hex(pc)} ${opcode} and next issued at a lower PC ${hex(nextPc)}, which falling through cannot reach`,
        );
        s.at = null;
        continue;
      }
      let again = -1;
      for (let k = i + 1; k < next!; k++) {
        if (insts[k]!.pc === pc) {
          again = k;
          break;
        }
      }
      if (again >= 0)
        doubt(
          s,
          l,
          i,
          pc,
          `absent at ${hex(pc)} ${opcode} here and again at trace index ${again}: predicated off at one of them, attributed to the first`,
        );
      s.steps.push({ index: i, pc, kind: 'predicated-off' });
      if (BRANCHES.has(opcode))
        s.branches.push({ index: i, pc, taken: false, target: pc + INST_STRIDE });
      s.at = pc + INST_STRIDE;
    }
  }
  for (const s of lanes)
    if (s.pending !== null)
      s.branches.push({ index: s.pending.index, pc: s.pending.pc, taken: true, target: null });

  return {
    warpSize: size,
    lanes: lanes.map((s, lane) => ({
      lane,
      steps: s.steps,
      pcs: s.steps.map((t) => t.pc),
      branches: s.branches.sort((a, b) => a.index - b.index),
      syncs: s.syncs,
      exitIndex: s.exitIndex,
      uncertain: s.uncertain,
    })),
    uncertain: uncertain,
    inconsistencies,
  };
}

/** One executed PC of the warp. */
export interface SkeletonInst {
  readonly pc: number;
  readonly opcode: string;
  readonly modifiers: readonly string[];
  /** Whether the opcode is a control-flow instruction (`isControlOpcode`). */
  readonly control: boolean;
  /** How many times the PC was issued. */
  readonly issues: number;
  /**
   * Control-flow instructions only (empty otherwise): the PCs lanes executed next after this one,
   * sorted, from `lanePaths` (predicated-off lanes included, so a not-taken branch shows pc + 16).
   */
  readonly successors: readonly number[];
}

/**
 * The executed PCs of a warp with their opcode and modifiers, sorted by PC; for control-flow
 * instructions, the successor PCs observed. Lanes count as in `lanePaths(warp, warpSize)`.
 */
export function controlSkeleton(warp: TraceWarp, warpSize = 32): SkeletonInst[] {
  const byPc = new Map<number, { inst: TraceInst; issues: number; succ: Set<number> }>();
  for (const inst of warp.insts) {
    const e = byPc.get(inst.pc);
    if (e === undefined) byPc.set(inst.pc, { inst, issues: 1, succ: new Set() });
    else e.issues++;
  }
  for (const lane of lanePaths(warp, warpSize).lanes) {
    for (let k = 0; k + 1 < lane.steps.length; k++) {
      const e = byPc.get(lane.steps[k]!.pc)!;
      if (isControlOpcode(e.inst.opcode)) e.succ.add(lane.steps[k + 1]!.pc);
    }
  }
  return [...byPc.entries()]
    .sort(([a], [b]) => a - b)
    .map(([pc, e]) => ({
      pc,
      opcode: e.inst.opcode,
      modifiers: e.inst.modifiers,
      control: isControlOpcode(e.inst.opcode),
      issues: e.issues,
      successors: [...e.succ].sort((a, b) => a - b),
    }));
}

/** Summary counts of `lanePaths`, for reports. */
export function lanePathStats(paths: LanePaths): {
  readonly steps: readonly number[];
  readonly exited: number;
  readonly uncertain: number;
  readonly inconsistencies: number;
} {
  return {
    steps: paths.lanes.map((l) => l.steps.length),
    exited: paths.lanes.filter((l) => l.exitIndex !== null).length,
    uncertain: paths.uncertain.length,
    inconsistencies: paths.inconsistencies.length,
  };
}

function hex(pc: number): string {
  return '0x' + pc.toString(16).padStart(4, '0');
}
