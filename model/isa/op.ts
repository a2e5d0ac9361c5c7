import { PT, type PredRef } from './program.ts';

/**
 * The meaning of one instruction, decoded once per program (SEMANTICS §2). The machine dispatches
 * on `kind`; syntax (modifiers, operand spelling) stays in `Instruction`.
 *
 * Register operands are general-register indices (RZ = 255); predicates are `PredRef`s (PT = 7).
 * Every variant carries the guard and the second predicate: a lane *participates* when both hold
 * (seed 000 §V-A).
 */
export type Op = OpBody & {
  readonly guard: PredRef | null;
  readonly pred2: PredRef | null;
};

/** A source value: a register, an immediate, a constant-bank word, or unknown (abstract mode). */
export type Src =
  /**
   * `negated`: the operand is written `-Rn`, its two's complement (integer adds and multiplies,
   * `IADD3 R9, -R8, c[0x0][0x184], RZ`); analyses that only ask which registers are read ignore it.
   */
  | { readonly kind: 'reg'; readonly index: number; readonly negated?: true }
  | { readonly kind: 'imm'; readonly value: number }
  | { readonly kind: 'cbank'; readonly bank: number; readonly offset: number }
  /**
   * `uniform`: one value shared by every lane of the warp (a uniform register, `UR4`), though
   * unknown (`lanes/uniformCompare.ts`).
   */
  | { readonly kind: 'unknown'; readonly uniform?: true };

/** A memory address operand `[Ra(.64)+imm]`; `base` RZ means absolute. */
export interface Addr {
  readonly base: number;
  readonly wide: boolean;
  /** True when the address has a part the model cannot evaluate (a uniform register). */
  readonly opaque: boolean;
  readonly offset: number;
}

export type Cmp = 'EQ' | 'NE' | 'LT' | 'LE' | 'GT' | 'GE';
export type BoolOp = 'AND' | 'OR' | 'XOR';

export type OpBody =
  // ---- control flow (SEMANTICS §2) ----
  | { readonly kind: 'exit' }
  | { readonly kind: 'bra'; readonly target: number; readonly cond: 'none' | 'div' | 'conv' }
  /** BRX/JMX: target offset = value(reg) + imm (+ next offset when `relative`). */
  | {
      readonly kind: 'brx';
      readonly reg: number;
      readonly imm: number;
      readonly relative: boolean;
      readonly targets: readonly number[];
    }
  /** BRA/JMP to code outside the listing (an excerpt, an absolute address): lanes that take it leave the model. */
  | { readonly kind: 'bra-external'; readonly name: string }
  /** CALL to a PC of the program. */
  | { readonly kind: 'call'; readonly target: number }
  /** CALL/JMP to something outside the program (`vprintf`, an absolute address): opaque. */
  | { readonly kind: 'call-external'; readonly name: string }
  /** RET: return address = value(reg) + imm, a byte offset in the caller's function. */
  | { readonly kind: 'ret'; readonly reg: number; readonly imm: number }
  /** BSSY Bx, L; `target` null when L lies outside the listing (a truncated excerpt). */
  | { readonly kind: 'bssy'; readonly barrier: number; readonly target: number | null }
  | { readonly kind: 'bsync'; readonly barrier: number }
  | { readonly kind: 'break'; readonly barrier: number }
  /** BMOV.32 Rd, Bx (`clear`: BMOV.32.CLEAR also empties Bx). */
  | {
      readonly kind: 'bmov-from-barrier';
      readonly dst: number;
      readonly barrier: number;
      readonly clear: boolean;
    }
  /** BMOV.32 Bx, Rs|imm. */
  | { readonly kind: 'bmov-to-barrier'; readonly barrier: number; readonly src: Src }
  /** WARPSYNC m | Rn | .ALL (mask `null` = the whole warp). */
  | { readonly kind: 'warpsync'; readonly mask: Src | null }
  | { readonly kind: 'yield' }
  | { readonly kind: 'trap' }
  /** Fermi token-stack instructions and GCN FORK/JOIN: recognised, given meaning by their own mechanisms. */
  | { readonly kind: 'stack-op'; readonly opcode: string; readonly target: number | null }
  // ---- data subset (SEMANTICS §2) ----
  | { readonly kind: 'mov'; readonly dst: number; readonly src: Src }
  | { readonly kind: 's2r'; readonly dst: number; readonly sreg: string }
  /** IADD3 / IADD / IMAD family: dst = a*b + c (+ d) mod 2^32; IADD3: mul = null. */
  | {
      readonly kind: 'arith';
      readonly dst: number;
      readonly mul: readonly [Src, Src] | null;
      readonly adds: readonly Src[];
    }
  /** Bitwise: LOP3.LUT with a truth table (AND/OR/XOR are tables 0xc0/0xfc/0x3c over a, b). */
  | {
      readonly kind: 'lop3';
      readonly dst: number;
      readonly srcs: readonly [Src, Src, Src];
      readonly lut: number;
      /** `LOP3.LUT P, Rd, …`: P is set where the result is not zero (absent: no predicate). */
      readonly pdst?: PredRef;
    }
  /**
   * `PLOP3.LUT P, Q, a, b, c, lut, lut2`: P = lut(a, b, c), Q = lut2(a, b, c) over predicates, the
   * truth table indexed as LOP3's (bit a·4 + b·2 + c; docs/semantics.md, data subset).
   */
  | {
      readonly kind: 'plop3';
      readonly dst: PredRef;
      readonly dst2: PredRef;
      readonly srcs: readonly [PredRef, PredRef, PredRef];
      readonly lut: number;
      readonly lut2: number;
    }
  /** SHF funnel shift and SHL/SHR: dst = ((hi:lo) shifted by amount) low or high word. */
  | {
      readonly kind: 'shift';
      readonly dst: number;
      readonly lo: Src;
      readonly amount: Src;
      readonly hi: Src;
      readonly left: boolean;
      readonly signed: boolean;
      readonly high: boolean;
    }
  /** ISETP.<cmp>[.U32].<bool> P, Q, a, b, C: P = (a cmp b) bool C, Q = !(a cmp b) bool C. */
  | {
      readonly kind: 'isetp';
      readonly dst: PredRef;
      readonly dst2: PredRef;
      readonly cmp: Cmp;
      readonly unsigned: boolean;
      readonly bool: BoolOp;
      readonly a: Src;
      readonly b: Src;
      readonly c: PredRef;
      /**
       * Set by the machine (`machineSetup.ts`) where no predicate it writes is live after it
       * (`Liveness`): a register operand shared by the lanes (`lanes/shared.ts`) is then no choice
       * among stand-ins — the choice could show nowhere, and its operands stay dead.
       */
      readonly deadOutputs?: true;
    }
  /**
   * `local`: LDL/STL, the lane's own local memory (`LaneData.local`; docs/semantics.md, data
   * subset) rather than the block's memory.
   */
  | { readonly kind: 'load'; readonly dst: number; readonly addr: Addr; readonly local?: true }
  | { readonly kind: 'store'; readonly addr: Addr; readonly src: Src; readonly local?: true }
  /** ATOMS/ATOMG/ATOM/RED: dst = old value (RZ when unused). CAS: compare `a`, swap in `b`. */
  | {
      readonly kind: 'atomic';
      readonly op: 'CAS' | 'EXCH' | 'ADD';
      readonly dst: number;
      readonly addr: Addr;
      readonly a: Src;
      readonly b: Src;
    }
  /** VOTE.ANY/ALL Rd, Pd, Ps: Rd = ballot of active participating lanes with Ps; Pd = any/all. */
  | {
      readonly kind: 'vote';
      readonly mode: 'ANY' | 'ALL';
      readonly dst: number;
      readonly pdst: PredRef;
      readonly src: PredRef;
    }
  | { readonly kind: 'nop' }
  /**
   * Anything outside the subset. Abstract mode: writes unknown to `regs` and `preds`; `havoc`
   * makes every memory word unknown (an opaque store). Strict mode rejects it (SEMANTICS §2).
   */
  | {
      readonly kind: 'opaque';
      readonly opcode: string;
      readonly regs: readonly number[];
      readonly preds: readonly number[];
      readonly havoc: boolean;
    };

export type OpKind = OpBody['kind'];

/** Op kinds that are convergence-barrier instructions (Turing, seed 000 §V-E–G). */
export const BARRIER_KINDS: ReadonlySet<OpKind> = new Set([
  'bssy',
  'bsync',
  'break',
  'bmov-from-barrier',
  'bmov-to-barrier',
  'warpsync',
]);

/**
 * Data instructions whose effect on a lane reads and writes only that lane's registers and
 * predicates: no memory, no control or barrier instruction (they move lanes), no VOTE (its result
 * depends on which lanes are active), no opaque instruction that havocs memory. Merged issues
 * (`compile/opcodeConvergent.ts`) and lane-local steps of the partial-order reduction
 * (`machine/footprint.ts`) both rest on this.
 */
export function isLaneLocalDataOp(op: Op): boolean {
  switch (op.kind) {
    case 'mov':
    case 's2r':
    case 'arith':
    case 'lop3':
    case 'shift':
    case 'isetp':
    case 'plop3':
    case 'nop':
      return true;
    case 'opaque':
      return !op.havoc;
    default:
      return false;
  }
}

/** A guard that holds on every lane: none, or `PT`. */
export const holdsAlways = (p: PredRef | null): boolean =>
  p === null || (p.index === PT && !p.negated);

/** No guard (or `PT`) and no second predicate: every issued lane takes part (seed 000 §V-A). */
export const unguarded = (op: Op): boolean => holdsAlways(op.guard) && holdsAlways(op.pred2);
