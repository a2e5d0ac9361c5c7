/**
 * The program as a value: what the parser produces, the printer consumes, and every later layer
 * reads. It keeps no raw line text: operands are structured, targets are resolved to PCs, and the
 * listing's own byte offsets are kept only so that the program prints back in its own syntax and
 * so that code addresses held in registers (RET, BRX) can be resolved (SEMANTICS §1).
 *
 * Invariants (checked by `validateProgram` in the parser's tests):
 * - `instructions[pc]` belongs to exactly one function `f` with `f.start <= pc < f.end`;
 *   functions are contiguous, in order, and cover every instruction;
 * - within a function, offsets strictly increase;
 * - every `target` operand names a PC in `[0, instructions.length]` (a label may sit just past the
 *   last instruction of a function, as nvdisasm's closing `.L_x_M:` does).
 */

/** Predicate register index: P0..P6 are 0..6, PT is 7 (SEMANTICS §1). */
export const PT = 7;
/** General register index of RZ (reads 0, writes are dropped). R0..R254 are 0..254. */
export const RZ = 255;
/** Uniform register index of URZ. */
export const URZ = 63;

/** A predicate reference as written in a guard or a predicate operand: `P0`, `!P1`, `PT`, `!PT`. */
export interface PredRef {
  readonly index: number; // 0..6, or PT (7)
  readonly negated: boolean;
}

/**
 * One operand. Structured forms cover what the data subset and the control-flow instructions read;
 * anything else an opaque instruction carries is kept as `text` so it prints back unchanged.
 */
export type Operand =
  /** `R4`, `RZ`; `R4.reuse` sets `reuse`. Negation/absolute-value forms are `text`. */
  | { readonly kind: 'reg'; readonly index: number; readonly reuse: boolean }
  /** `UR4`, `URZ`. */
  | { readonly kind: 'ureg'; readonly index: number }
  /** `P0`, `!P1`, `PT`, `!PT` used as an operand (a destination or a source). */
  | { readonly kind: 'pred'; readonly pred: PredRef }
  /** `UP0`, `!UPT`. */
  | { readonly kind: 'upred'; readonly pred: PredRef }
  /** Convergence barrier register `B0`..`B15`. */
  | { readonly kind: 'breg'; readonly index: number }
  /** Special register or convergence-unit state: `SR_TID.X`, `SR_LANEID`, `MACTIVE`, `OPT_STACK`. */
  | { readonly kind: 'sreg'; readonly name: string }
  /** Integer immediate: `0x10`, `-0x200`, `5`. Values up to 2^53 are exact. */
  | { readonly kind: 'imm'; readonly value: number }
  /** Floating-point immediate: `0.5`, `-1.25e-05`, `1`. Printed so it reads back to the same value. */
  | { readonly kind: 'float'; readonly value: number }
  /** Constant bank read `c[0x0][0x160]`; `offsetReg` is set for `c[0x3][R2+0x10]`. */
  | {
      readonly kind: 'cbank';
      readonly bank: number;
      readonly offset: number;
      readonly offsetReg: number | null;
    }
  /**
   * Memory address `[R2]`, `[R2.64]`, `[R2+0x10]`, `[R2.64+-0x4]`, `[UR4]`, `[R2.64+UR4+0x8]`, `[0x10]`.
   * `base` is a general register (RZ when absent), `wide` is the `.64` suffix (the address is the
   * register pair base, base+1), `ureg` an added uniform register (null when absent).
   */
  | {
      readonly kind: 'mem';
      readonly base: number;
      readonly wide: boolean;
      readonly ureg: number | null;
      readonly offset: number;
    }
  /** A code target resolved to a PC: from a hex offset, `` `(.L_x_3) `` or a bare label. */
  | { readonly kind: 'target'; readonly pc: number }
  /** A symbol that is not in the program: `` `(vprintf) ``, or an absolute address such as `0x7f1200000000` on JMP/CALL.ABS. */
  | { readonly kind: 'symbol'; readonly name: string }
  /** Anything else (`-R2`, `|R4|`, `R2.H1`, `32@lo(...)`, `INF`, `0x7f800000` float bits…), verbatim. */
  | { readonly kind: 'text'; readonly text: string };

/** One SASS instruction, syntactically: guard, opcode, modifiers, operands. */
export interface Instruction {
  /** Byte offset within its function, as the listing's `/*0070*\/` prints it. */
  readonly offset: number;
  /** `@P0` / `@!P0` / `@!PT`; null when unguarded (`@PT` is never printed). */
  readonly guard: PredRef | null;
  /** Opcode without modifiers: `BRA`, `ISETP`, `BMOV`. Upper case. */
  readonly opcode: string;
  /** Dot-separated modifiers in order: `BMOV.32.CLEAR` → `['32', 'CLEAR']`. */
  readonly modifiers: readonly string[];
  readonly operands: readonly Operand[];
}

/** One function (a `Function :` block of cuobjdump, a `.text.NAME` section of nvdisasm). */
export interface FunctionInfo {
  readonly name: string;
  /** PC of the first instruction. */
  readonly start: number;
  /** One past the PC of the last instruction. */
  readonly end: number;
}

/** A label: `.L_x_3:` or `loop:` before an instruction (or at a function's end). */
export interface Label {
  readonly name: string;
  readonly pc: number;
}

/** A whole program: every function's instructions in one array indexed by PC. */
export interface Program {
  readonly functions: readonly FunctionInfo[];
  readonly instructions: readonly Instruction[];
  readonly labels: readonly Label[];
  /**
   * The SM architecture the listing says it was compiled for (`EF_CUDA_SM89` in `.headerflags`,
   * or `code for sm_89`), when it says: where the driver keeps the launch's sizes in c[0x0].
   */
  readonly arch?: number;
}

/** A `// @warpcheck …` comment line of a listing, kept for the launch-header reader (SEMANTICS §5). */
export interface Directive {
  readonly line: number;
  readonly column: number;
  readonly text: string;
}

/** Where in a source text something is: 1-based line and column. */
export interface SourcePos {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** A problem in input text, with where it is and what to do about it. */
export interface Diagnostic extends SourcePos {
  readonly message: string;
}

/** Results, not exceptions, across layers (DESIGN.md). */
export type Result<T, E = readonly Diagnostic[]> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/** Formats a diagnostic as one line: `file:line:col: message`. */
export const formatDiagnostic = (d: Diagnostic): string =>
  `${d.file}:${d.line}:${d.column}: ${d.message}`;

/** The function that holds `pc` (binary search; programs are small, but replay calls it often). */
export function functionOf(program: Program, pc: number): FunctionInfo | undefined {
  const fs = program.functions;
  let lo = 0;
  let hi = fs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const f = fs[mid]!;
    if (pc < f.start) hi = mid - 1;
    else if (pc >= f.end) lo = mid + 1;
    else return f;
  }
  return undefined;
}
