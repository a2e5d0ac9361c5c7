import type { Operands } from '../isa/operands.ts';

/**
 * Scoreboards of the issue core (SEMANTICS §4).
 * - `warp`: GPGPU-Sim's baseline — one reservation per register per warp; an instruction waits
 *   while any of its sources or destinations has a pending write, whichever lanes wrote it.
 * - `mask`: seed 004's per-register lane mask — an instruction issues iff, for every source and
 *   destination, pending mask ∩ its active mask = ∅. Two paths of a diverged warp then do not wait
 *   for each other's writes.
 * Registers, predicates and barrier registers share one key space (seed 000 §IX-A: B registers
 * are scoreboarded like registers): key = register, 256 + predicate, 512 + barrier.
 */
export type ScoreboardKind = 'warp' | 'mask' | 'dual';
/** `dual`: two boards per warp for two-path execution (seed 002 §4.6; dualScoreboard.ts). */
export const SCOREBOARD_KINDS: readonly ScoreboardKind[] = ['warp', 'mask', 'dual'];

/** A pending write: `key` is written for the lanes of `mask` when the cycle reaches `ready`. */
export interface Pending {
  readonly key: number;
  readonly mask: number;
  readonly ready: number;
}

export type Board = readonly Pending[];

const PRED = 256;
const BARRIER = 512;

/** Every key an instruction reads or writes (RAW and WAW hazards both stall). */
export function keysOf(o: Operands): { touched: number[]; written: number[] } {
  const written = [
    ...o.writeRegs,
    ...o.writePreds.map((p) => PRED + p),
    ...o.writeBarriers.map((b) => BARRIER + b),
  ];
  const touched = [
    ...o.readRegs,
    ...o.readPreds.map((p) => PRED + p),
    ...o.readBarriers.map((b) => BARRIER + b),
    ...written,
  ];
  return { touched, written };
}

/** Writes still pending at `cycle` (a write completes at its ready cycle: issue + latency). */
export const retire = (board: Board, cycle: number): Board =>
  board.some((p) => p.ready <= cycle) ? board.filter((p) => p.ready > cycle) : board;

/**
 * Whether an instruction touching `touched` with lanes `mask` waits, under each rule: `warp` is
 * true when any pending write names a touched key; `mask` only when it also shares a lane. A
 * `warp` stall that `mask` would not make is a *false stall* (no lane's value is pending).
 */
export function hazard(
  board: Board,
  touched: readonly number[],
  mask: number,
): { warp: boolean; mask: boolean } {
  let warp = false;
  for (const p of board) {
    if (!touched.includes(p.key)) continue;
    warp = true;
    if ((p.mask & mask) !== 0) return { warp: true, mask: true };
  }
  return { warp, mask: false };
}

/** Reserves the written keys for `mask` until `ready`. */
export const reserve = (
  board: Board,
  written: readonly number[],
  mask: number,
  ready: number,
): Board =>
  written.length === 0 ? board : [...board, ...written.map((key) => ({ key, mask, ready }))];
