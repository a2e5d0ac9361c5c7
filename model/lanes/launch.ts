/**
 * What a run starts from (SEMANTICS §1, §5): the block's shape and the initial values that a
 * scenario or a listing's `// @warpcheck` header gives. Everything not given is 0 (registers,
 * memory) or unknown (constant-bank words, in abstract mode).
 */
export interface Launch {
  /** Lanes per warp, 1..32. */
  readonly warpSize: number;
  /** Warps in the block, 1..8; lane l of warp k has thread id k·W + l. */
  readonly warps: number;
  /** Initial memory words: (address, value). */
  readonly memory: readonly (readonly [number, number])[];
  /** Constant-bank words `c[bank][offset]` (the kernel's parameters). */
  readonly constants: readonly {
    readonly bank: number;
    readonly offset: number;
    readonly value: number;
  }[];
  /** Initial register values; `lanes` is a thread-id list, all threads when absent. */
  readonly registers: readonly {
    readonly reg: number;
    readonly value: number;
    readonly threads?: readonly number[];
  }[];
}

export const defaultLaunch: Launch = {
  warpSize: 4,
  warps: 1,
  memory: [],
  constants: [],
  registers: [],
};

/** Checks the ranges of SEMANTICS §1; returns a message per problem. */
export function checkLaunch(l: Launch): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(l.warpSize) || l.warpSize < 1 || l.warpSize > 32)
    problems.push(`warp size must be an integer from 1 to 32 (got ${l.warpSize})`);
  if (!Number.isInteger(l.warps) || l.warps < 1 || l.warps > 8)
    problems.push(`warps per block must be an integer from 1 to 8 (got ${l.warps})`);
  return problems;
}
