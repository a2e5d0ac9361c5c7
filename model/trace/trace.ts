/**
 * An Accel-Sim `.traceg` file as a value: what the NVBit tracer recorded for each warp of each
 * thread block, one entry per executed warp instruction, in issue order. Source of the format:
 * `shared/sass/SYNTAX.md` §2d and Accel-Sim's tracer headers (`#traces format = …`).
 *
 * Invariants (established by `parseTraceg`):
 * - `warps[i].insts.length === warps[i].declared` (the `insts = N` line is checked);
 * - every `mask` is an unsigned 32-bit integer (0..2^32-1), every `pc` a non-negative safe integer;
 * - every register index is 0..255 (`R255` is RZ);
 * - `memWidth === 0` exactly when `addresses.kind === 'none'`.
 */

/** Which columns an instruction line has, as the `#traces format` line names them. */
export type TraceFormat =
  /** Older tracer: `threadblock_x threadblock_y threadblock_z warpid_tb PC mask …`. */
  | 'with-tb-warp'
  /** Newer tracer (v4+): `PC mask …`, and from v5 an `immediate` column at the end. */
  | 'compact';

/**
 * The memory addresses of one instruction, kept as the line gives them (not expanded per lane).
 * Accel-Sim's tracer (v3+) compresses them: mode 0 lists all, 1 is base and stride, 2 is base and
 * deltas. Lane `i` of the expansion is the `i`-th set bit of `mask`.
 */
export type TraceAddresses =
  /** `mem_width` is 0: not a memory instruction. */
  | { readonly kind: 'none' }
  /** One address per active lane, in lane order (mode 0, or an uncompressed tracer). */
  | { readonly kind: 'list'; readonly addrs: readonly number[] }
  /** Mode 1: the first active lane reads `base`, each next active lane `stride` bytes further. */
  | { readonly kind: 'stride'; readonly base: number; readonly stride: number }
  /** Mode 2: the first active lane reads `base`; `deltas[k]` is the step to the next active lane. */
  | { readonly kind: 'delta'; readonly base: number; readonly deltas: readonly number[] };

/** One executed warp instruction. */
export interface TraceInst {
  /** 1-based line of the `.traceg` file. */
  readonly line: number;
  /** Byte offset of the instruction in its kernel (the hex PC column). */
  readonly pc: number;
  /** Lanes whose guard predicate was true (bit i = lane i); 0 for a predicated-off instruction. */
  readonly mask: number;
  /** Opcode without modifiers: `LDG` of `LDG.E.SYS`. */
  readonly opcode: string;
  /** Dot-separated modifiers in order: `['E', 'SYS']`. */
  readonly modifiers: readonly string[];
  /** Destination register indices (`R255` = RZ = 255). */
  readonly dests: readonly number[];
  /** Source register indices. */
  readonly srcs: readonly number[];
  /** Bytes accessed per lane; 0 when not a memory instruction. */
  readonly memWidth: number;
  readonly addresses: TraceAddresses;
  /** The `immediate` column of the compact (v5+) format; null when the format has none. */
  readonly imm: number | null;
}

/** One warp's instruction stream within a thread block. */
export interface TraceWarp {
  /** `warp = N`: the warp index within its thread block. */
  readonly warp: number;
  /** `insts = N`: the count the file declares (equal to `insts.length`). */
  readonly declared: number;
  readonly insts: readonly TraceInst[];
}

/** One `#BEGIN_TB` … `#END_TB` section. */
export interface TraceBlock {
  /** `thread block = x,y,z`. */
  readonly block: readonly [number, number, number];
  readonly warps: readonly TraceWarp[];
}

/** A parsed `.traceg` file. */
export interface Trace {
  /**
   * Header lines by key, as written: `-kernel name`, `-binary version`, `-grid dim` (keys keep
   * their leading `-`), and `traces format` from `#traces format = …`.
   */
  readonly header: Readonly<Record<string, string>>;
  readonly format: TraceFormat;
  readonly blocks: readonly TraceBlock[];
}
