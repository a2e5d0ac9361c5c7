import type { Op } from '../isa/op.ts';
import { RZ } from '../isa/program.ts';
import { splitsOnUnknown, predUnknown } from '../lanes/execute.ts';
import { forgetDifferingWords } from '../lanes/memory.ts';
import { lanesOf, popcount, UNKNOWN } from '../lanes/values.ts';
import type { KeyWriter } from './key.ts';
import { LaneCanon } from './laneCanon.ts';
import type { MachineSetup } from './machineSetup.ts';
import type { WarpState } from './machineTypes.ts';
import type { WarpWriter } from './warpKeys.ts';

/**
 * Lane symmetry as the machine uses it (issue 16, `laneCanon.ts`): canonical warp keys, the
 * classes of interchangeable lanes, and symbolic splits. With symmetry off, `warpKey` is the
 * plain writer and the rest is never called.
 */
export interface LaneSymmetry {
  /** `Machine.warpKey`: canonical under renumbering interchangeable lanes when symmetry is on. */
  warpKey(ws: WarpState, out: KeyWriter, reduced: boolean): void;
  /** The groups of interchangeable lanes of `ws` (symmetry on). */
  classesOf(ws: WarpState): readonly number[];
  /**
   * A symbolic split: `op` branches on unknown predicates for lanes of `issued` whose classes
   * would give more outcomes than the branching budget; the issued lanes then forget every
   * register and predicate on which they differ (they become unknown, SEMANTICS §5), which makes
   * lanes that differ only in such values one class. Null when no forgetting is needed. The step
   * is abstract: what follows is possible, not certain.
   */
  forgetting(
    ws: WarpState,
    op: Op,
    issued: number,
    classes: () => readonly number[],
  ): WarpState | null;
  /** The instruction at `pc` reads a thread or lane id (S2R of an id register). */
  idRead(pc: number): boolean;
}

/** Stage 3 of `createMachine`: lane symmetry over the warp writer of stage 2. */
export function laneSymmetry(setup: MachineSetup, writeWarp: WarpWriter): LaneSymmetry {
  const { ops, plantUnsoundSymmetry } = setup.spec;
  const { W, full, policyAt, nSlots, canReduce, symmetric, ctx } = setup;
  const canon = new LaneCanon(W, plantUnsoundSymmetry ? 'drop-lane-values' : 'none');
  // Lanes that may still read their own number (or name lanes by number) are pinned (`pinReaders`).
  const idRead = (pc: number) =>
    ops[pc]!.kind === 's2r' && readsLaneNumber(ops[pc]!, policyAt[pc]!, full);
  const pins = symmetric ? pinReaders(setup) : null;
  const pinsOf = (ws: WarpState): Pins => (pins ? pins(ws) : NO_PINS);
  const pinnedOf = (ws: WarpState): number => {
    const { hard, soft } = pinsOf(ws);
    return (hard | (soft & ~(ws.anonymous ?? 0))) >>> 0;
  };

  const warpKey = (ws: WarpState, out: KeyWriter, reduced: boolean): void => {
    if (!symmetric) return writeWarp(ws, out, reduced);
    canon.reset();
    writeWarp(ws, canon, reduced);
    canon.write(out, pinnedOf(ws));
  };

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
    let regs: (readonly number[])[] | null = null;
    for (let sl = 0; sl < nSlots; sl++) {
      const col = d.regs[sl]!;
      const v = col[lanes[0]!]!;
      if (lanes.every((l) => col[l] === v)) continue;
      const next = col.slice();
      for (const l of lanes) next[l] = UNKNOWN;
      (regs ??= d.regs.slice())[sl] = next;
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
    // Words of the lanes' own local memories (LDL/STL) that tell them apart are forgotten too.
    const local = d.local ? forgetDifferingWords(d.local, lanes) : null;
    // Lanes pinned only by reads of their own number forget it too (those reads give unknown).
    const anonymous = ((ws.anonymous ?? 0) | (pinsOf(ws).soft & m)) >>> 0;
    if (!regs && !preds && !local && anonymous === (ws.anonymous ?? 0)) return null;
    return {
      ...ws,
      ...(anonymous !== 0 ? { anonymous } : {}),
      data: {
        regs: regs ?? d.regs,
        preds: preds ?? d.preds,
        predsUnknown: unknown ?? d.predsUnknown,
        exited: d.exited,
        calls: d.calls,
        local: local ?? d.local,
      },
    };
  };

  const classesOf = (ws: WarpState): readonly number[] => {
    canon.reset();
    writeWarp(ws, canon, canReduce);
    return canon.classes(pinnedOf(ws));
  };

  return { warpKey, classesOf, forgetting, idRead };
}

/** Ops whose effect depends on lane numbers, or that name lanes by number (laneCanon.ts). */
/** Lanes pinned by a hard reader of their number, and lanes pinned only by id reads. */
interface Pins {
  readonly hard: number;
  readonly soft: number;
}
const NO_PINS: Pins = { hard: 0, soft: 0 };

/**
 * The pins of a warp (`laneCanon.ts`), or null without a reachability analysis (no pins, as lane
 * symmetry has always read it): lanes at a PC from
 * which a read of their own number may be reached. SR_LANEID and thread ids pin softly — only lanes
 * that have not forgotten their number in a symbolic split —; VOTE's ballot, WARPSYNC and BMOV
 * masks pin every lane.
 */
function pinReaders(setup: MachineSetup): ((ws: WarpState) => Pins) | null {
  const { ops } = setup.spec;
  const { mech, n, full, policyAt, live } = setup;
  if (!live) return null;
  // A mechanism that does not report its lanes' PCs: every live lane may read its number.
  if (!mech.lanePcs) return (ws) => ({ hard: (full & ~ws.data.exited) >>> 0, soft: 0 });
  const idRead = (pc: number) =>
    ops[pc]!.kind === 's2r' && readsLaneNumber(ops[pc]!, policyAt[pc]!, full);
  const hardAt = live.mayReach(
    (pc) => readsLaneNumber(ops[pc]!, policyAt[pc]!, full) && !idRead(pc),
  );
  const softAt = live.mayReach(idRead);
  return (ws) => {
    let hard = 0;
    let soft = 0;
    mech.lanePcs!(ws.mech, (pc, mask) => {
      if (pc < 0 || pc >= n) return;
      if (hardAt[pc]) hard |= mask;
      if (softAt[pc]) soft |= mask;
    });
    const alive = ~ws.data.exited;
    return { hard: (hard & alive) >>> 0, soft: (soft & ~hard & alive) >>> 0 };
  };
}

/**
 * The lanes of a warp that may still read their own number — lane symmetry's pins, whether or not
 * symmetry is on — for summaries of chains (`explore/laneChains.ts`), which key a lane by its
 * number exactly when it is one of these. Every live lane where the program has no reachability
 * analysis.
 */
export function ownNumberReaders(setup: MachineSetup): (ws: WarpState) => number {
  const pins = pinReaders(setup);
  const { full } = setup;
  if (!pins) return (ws) => (full & ~ws.data.exited) >>> 0;
  return (ws) => {
    const { hard, soft } = pins(ws);
    return (hard | (soft & ~(ws.anonymous ?? 0))) >>> 0;
  };
}

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
    // A ballot names lanes by number; VOTE.ANY/ALL into a predicate only (ballot to RZ) does not.
    case 'vote':
      return op.dst !== RZ;
    // A barrier's mask read into RZ (`BMOV.32.CLEAR RZ, Bx`: clear it) names no lane; nor does
    // writing a constant 0 or RZ into it.
    case 'bmov-from-barrier':
      return op.dst !== RZ;
    case 'bmov-to-barrier':
      return !(
        (op.src.kind === 'reg' && op.src.index === RZ) ||
        (op.src.kind === 'imm' &&
          ((op.src.value & full) >>> 0 === 0 || (op.src.value & full) >>> 0 === full))
      );
    default:
      return false;
  }
}
