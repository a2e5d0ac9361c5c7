import { UNKNOWN } from './values.ts';

/**
 * Block-shared memory (SEMANTICS §1): one map from integer address to 32-bit word, sequentially
 * consistent. Kept as a flat array of (address, value) pairs sorted by address so that equal
 * memories have equal keys. `havoc` is set by an opaque store (abstract mode): every word not
 * written since reads as unknown.
 */
export interface Memory {
  readonly cells: readonly number[];
  readonly havoc: boolean;
}

export const emptyMemory: Memory = { cells: [], havoc: false };

/** Builds a memory from (address, value) pairs; later pairs win. */
export function memoryOf(entries: Iterable<readonly [number, number]>): Memory {
  let m = emptyMemory;
  for (const [a, v] of entries) m = writeWord(m, a, v);
  return m;
}

function find(cells: readonly number[], addr: number): number {
  let lo = 0;
  let hi = (cells.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const a = cells[mid * 2]!;
    if (a === addr) return mid;
    if (a < addr) lo = mid + 1;
    else hi = mid - 1;
  }
  return -(lo + 1);
}

/** The word at `addr` (0 when never written, unknown after havoc or at an unknown address). */
export function readWord(m: Memory, addr: number): number {
  if (addr === UNKNOWN) return UNKNOWN;
  const i = find(m.cells, addr);
  if (i >= 0) return m.cells[i * 2 + 1]!;
  return m.havoc ? UNKNOWN : 0;
}

/** Writes one word; a write to an unknown address havocs the whole memory. */
export function writeWord(m: Memory, addr: number, value: number): Memory {
  if (addr === UNKNOWN) return havocMemory();
  const i = find(m.cells, addr);
  const cells = m.cells.slice();
  if (i >= 0) cells[i * 2 + 1] = value;
  else cells.splice(-(i + 1) * 2, 0, addr, value);
  return { cells, havoc: m.havoc };
}

/** Every word unknown (an opaque store, or a store to an unknown address). */
export const havocMemory = (): Memory => ({ cells: [], havoc: true });
