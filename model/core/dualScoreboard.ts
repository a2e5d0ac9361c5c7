import type { Issue } from '../mechanisms/mechanism.ts';
import { hazard, reserve, retire, type Board } from './scoreboard.ts';

/**
 * The dual scoreboard of two-path execution (seed 002 §4.6 "Scoreboard Modifications", after Dual
 * Path Execution): one warp keeps two per-register scoreboards, one per side of a divergent branch,
 * so that a write on one side does not stall the other side's reads of the same register.
 *
 * The papers classify an instruction by the *basic block* it belongs to (convergent, divergent,
 * merged). The core sees issues, not blocks, so the class is read off the lanes — a **decision**
 * (docs/semantics.md "Issue core: dual scoreboard and operand collector"):
 * - `conv` is the mask of the warp's last convergent issue;
 * - an issue whose lanes are a strict subset of `conv` while no split is open opens a split: side 0
 *   = its lanes, side 1 = the rest of `conv`; an issue whose lanes lie inside one side is
 *   *divergent* on that side (nested divergence inside a side stays on that side);
 * - an issue carrying `merged` (opcode-convergent, seed 002 §4.5) is *merged* when its two halves
 *   lie on the two sides (with no split open, the halves open one);
 * - every other issue is *convergent*: it closes the split and unifies the boards.
 *
 * Update rules (seed 002 §4.6, numbered as there):
 * 1a convergent write: pending in both boards; 1b convergent check: one board (both are equal,
 *    since re-convergence unified them);
 * 2a divergent write: only its side's board; on re-convergence the boards are unified (each gets
 *    the other's pending bits); 2b divergent check: its side's board only;
 * 3a merged write: each board gets the register its side writes; 3b merged check: each half checks
 *    its own side's board, for the registers its own instruction names.
 * A write-back clears an entry in the board(s) holding it: entries carry their ready cycle.
 *
 * Guarantee (tested in precision.test.ts): a board never misses a pending write to a lane that
 * issues on its side, so a dual stall is justified like a per-warp stall (a pending write by the
 * same warp to a named register), and an issue never overlaps a pending write for a shared lane.
 * It is not lane-precise (a nested split inside a side shares the side's board).
 */
export interface DualBoard {
  readonly boards: readonly [Board, Board];
  /** The two sides' lanes while a split is open; null when convergent. */
  readonly split: readonly [number, number] | null;
  /** Lanes of the last convergent issue. */
  readonly conv: number;
}

export const EMPTY_DUAL: DualBoard = { boards: [[], []], split: null, conv: 0 };

/** How an issue uses the two boards: which board each half checks and writes. */
export type DualRole =
  | { readonly kind: 'convergent' }
  | { readonly kind: 'divergent'; readonly side: 0 | 1 }
  | { readonly kind: 'merged'; readonly sides: readonly [0 | 1, 0 | 1] };

const sideOf = (split: readonly [number, number] | null, mask: number): 0 | 1 | null => {
  if (split === null || mask === 0) return null;
  if ((mask & ~split[0]) === 0) return 0;
  if ((mask & ~split[1]) === 0) return 1;
  return null;
};

/** Unifies both boards (re-convergence, rule 2a): each gets the other's pending entries. */
const unify = (d: DualBoard): readonly [Board, Board] => {
  const [a, b] = d.boards;
  if (a === b) return d.boards;
  const all = [...a, ...b.filter((p) => !a.includes(p))];
  return [all, all];
};

/**
 * The board state an issue sees (split opened or closed by it) and its role. Pure: the core only
 * keeps the result when the instruction issues.
 */
export function enter(d: DualBoard, issue: Issue): { board: DualBoard; role: DualRole } {
  const m = issue.merged;
  if (m) {
    let split = d.split;
    if (split === null) split = [issue.mask, (m.mask | d.conv) & ~issue.mask];
    const s0 = sideOf(split, issue.mask);
    const s1 = sideOf(split, m.mask);
    if (s0 !== null && s1 !== null && s0 !== s1)
      return { board: { ...d, split }, role: { kind: 'merged', sides: [s0, s1] } };
  } else {
    const s = sideOf(d.split, issue.mask);
    if (s !== null) return { board: d, role: { kind: 'divergent', side: s } };
    if (d.split === null && d.conv !== 0 && issue.mask !== d.conv && (issue.mask & ~d.conv) === 0)
      return {
        board: { ...d, split: [issue.mask, d.conv & ~issue.mask] },
        role: { kind: 'divergent', side: 0 },
      };
  }
  const all = (issue.mask | (m?.mask ?? 0)) >>> 0;
  return { board: { boards: unify(d), split: null, conv: all }, role: { kind: 'convergent' } };
}

/** Whether the issue waits (per-register check of the board(s) its role names, §4.6 1b/2b/3b). */
export function dualWaits(
  d: DualBoard,
  role: DualRole,
  touched: readonly number[],
  mergedTouched: readonly number[] | null,
): boolean {
  switch (role.kind) {
    case 'convergent':
      return (
        hazard(d.boards[0], touched, 0).warp ||
        (mergedTouched !== null && hazard(d.boards[0], mergedTouched, 0).warp)
      );
    case 'divergent':
      return hazard(d.boards[role.side], touched, 0).warp;
    case 'merged':
      return (
        hazard(d.boards[role.sides[0]], touched, 0).warp ||
        hazard(d.boards[role.sides[1]], mergedTouched ?? [], 0).warp
      );
  }
}

/** Reserves the writes of an issued instruction by its role (§4.6 1a/2a/3a). */
export function dualReserve(
  d: DualBoard,
  role: DualRole,
  issue: Issue,
  written: readonly number[],
  mergedWritten: readonly number[] | null,
  ready: number,
): DualBoard {
  const [a, b] = d.boards;
  switch (role.kind) {
    case 'convergent': {
      let x = reserve(a, written, issue.mask, ready);
      if (issue.merged && mergedWritten) x = reserve(x, mergedWritten, issue.merged.mask, ready);
      // Both boards hold the same entries (rule 1a): shared by reference.
      return { ...d, boards: [x, x] };
    }
    case 'divergent':
      return role.side === 0
        ? { ...d, boards: [reserve(a, written, issue.mask, ready), b] }
        : { ...d, boards: [a, reserve(b, written, issue.mask, ready)] };
    case 'merged': {
      const boards: [Board, Board] = [a, b];
      boards[role.sides[0]] = reserve(boards[role.sides[0]], written, issue.mask, ready);
      boards[role.sides[1]] = reserve(
        boards[role.sides[1]],
        mergedWritten ?? [],
        issue.merged!.mask,
        ready,
      );
      return { ...d, boards };
    }
  }
}

/** Completed write-backs leave the board(s) that hold them. */
export function dualRetire(d: DualBoard, cycle: number): DualBoard {
  const [a, b] = d.boards;
  const x = retire(a, cycle);
  const y = a === b ? x : retire(b, cycle);
  return x === a && y === b ? d : { ...d, boards: [x, y] };
}
