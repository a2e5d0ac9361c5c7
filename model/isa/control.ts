import { PT, type Instruction, type PredRef, type Program } from './program.ts';

/**
 * How an instruction can transfer control, as the CFG sees it (SEMANTICS §2). This is the static
 * view only: what a lane *may* do next. The dynamic meaning lives in `decode.ts`/`lanes/`.
 */
export interface ControlInfo {
  /**
   * - `none`: data instruction (or a barrier/no-op as far as the CFG is concerned): pc+1.
   * - `branch`: BRA/JMP with a direct target.
   * - `indirect`: BRX/JMX; `targets` holds the declared targets, `unknownTargets` is true when none
   *   were declared (every real listing), and IPDOM analyses must treat it conservatively.
   * - `call`: CALL; in the caller's CFG it falls through to pc+1, `targets` is the callee entry
   *   (empty for an external symbol or a register target).
   * - `return`: RET; leaves the function (an edge to the virtual exit).
   * - `exit`: EXIT/KILL; an edge to the virtual exit.
   * - `trap`: BPT.TRAP; ends the run (an edge to the virtual exit).
   */
  readonly kind: 'none' | 'branch' | 'indirect' | 'call' | 'return' | 'exit' | 'trap';
  /** True when some lane may not take the transfer: a guard or a second predicate other than PT. */
  readonly conditional: boolean;
  /** Direct (or declared) targets, as PCs. */
  readonly targets: readonly number[];
  /** BRX/JMX without declared targets. */
  readonly unknownTargets: boolean;
}

const isAlways = (p: PredRef | null): boolean => p === null || (p.index === PT && !p.negated);

/** The second predicate operand of a control-flow instruction, if it has one (SEMANTICS §1). */
export function secondPredicate(ins: Instruction): PredRef | null {
  const first = ins.operands[0];
  return first?.kind === 'pred' ? first.pred : null;
}

/** Opcodes that transfer control somewhere other than pc+1 (the CFG cares about these). */
export const CONTROL_OPCODES: ReadonlySet<string> = new Set([
  'BRA',
  'BRX',
  'BRXU',
  'JMP',
  'JMX',
  'JMXU',
  'CALL',
  'RET',
  'EXIT',
  'KILL',
  'BPT',
]);

/** Every control-flow opcode SEMANTICS §2 names, including those that keep pc+1 for the CFG. */
export const ALL_CONTROL_OPCODES: ReadonlySet<string> = new Set([
  ...CONTROL_OPCODES,
  'BSSY',
  'BSYNC',
  'BREAK',
  'BMOV',
  'WARPSYNC',
  'YIELD',
  'NANOSLEEP',
  // Fermi token stack (seed 003 Table I) and later-ISA spellings (SEMANTICS §2, a decision).
  'SSY',
  'SYNC',
  'PBK',
  'BRK',
  'PCNT',
  'CONT',
  'PRET',
  // AMD GCN region markers (seed 001 §2.2).
  'FORK',
  'JOIN',
]);

/** The static control behaviour of `program.instructions[pc]`. */
export function controlOf(program: Program, pc: number): ControlInfo {
  const ins = program.instructions[pc]!;
  // BRA.DIV / BRA.CONV depend on the warp's convergence (SEMANTICS §2, a decision): both edges.
  const dynamic =
    ins.opcode === 'BRA' && (ins.modifiers.includes('DIV') || ins.modifiers.includes('CONV'));
  const conditional = dynamic || !isAlways(ins.guard) || !isAlways(secondPredicate(ins));
  const targets = ins.operands.flatMap((o) => (o.kind === 'target' ? [o.pc] : []));
  switch (ins.opcode) {
    case 'BRA':
    case 'JMP':
      // A JMP to an absolute address outside the program is a `symbol` operand: no known target.
      return targets.length > 0
        ? { kind: 'branch', conditional, targets, unknownTargets: false }
        : { kind: 'indirect', conditional, targets: [], unknownTargets: true };
    case 'BRX':
    case 'BRXU':
    case 'JMX':
    case 'JMXU':
      return { kind: 'indirect', conditional, targets, unknownTargets: targets.length === 0 };
    case 'CALL':
      return { kind: 'call', conditional, targets, unknownTargets: false };
    case 'RET':
      return { kind: 'return', conditional, targets: [], unknownTargets: false };
    case 'EXIT':
    case 'KILL':
      return { kind: 'exit', conditional, targets: [], unknownTargets: false };
    case 'BPT':
      return ins.modifiers.includes('TRAP')
        ? { kind: 'trap', conditional, targets: [], unknownTargets: false }
        : { kind: 'none', conditional, targets: [], unknownTargets: false };
    default:
      return { kind: 'none', conditional, targets: [], unknownTargets: false };
  }
}
