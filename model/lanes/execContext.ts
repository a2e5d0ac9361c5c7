import type { Op } from '../isa/op.ts';
import type { Program } from '../isa/program.ts';
import { functionOf } from '../isa/program.ts';
import { codeOffset } from '../isa/decode.ts';
import type { Launch } from './launch.ts';
import { registerLayout, type RegisterLayout } from './laneData.ts';
import { UNKNOWN, fullMask, u32 } from './values.ts';

/** How the lanes of an atomic race are ordered (SEMANTICS §1; seed 000 Fig. 7b needs `descending`). */
export type AtomicOrder = 'ascending' | 'descending' | 'explore';

export interface LaneOptions {
  /** Lane order of atomics: ascending (default), descending, or explored (each lane may win). */
  readonly atomicOrder: AtomicOrder;
  /** Reject opaque instructions at load time instead of giving them unknown results. */
  readonly strict: boolean;
  /**
   * Shared unknowns (`shared.ts`): on when absent; `off` gives every lane its own unknown, as
   * before 2026-11-28 (measurements); `plant` is the law's planted bug (independent unknowns
   * counted as one).
   */
  readonly sharedUnknowns?: 'off' | 'plant';
}

export const defaultLaneOptions: LaneOptions = { atomicOrder: 'ascending', strict: false };

/**
 * Everything the lanes need to execute one program under one launch, computed once: decoded ops,
 * the dense register layout, constant-bank words, and code-address lookups.
 */
export interface ExecContext {
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly layout: RegisterLayout;
  readonly warpSize: number;
  readonly full: number;
  /** Warps in the block (K). */
  readonly warps: number;
  /**
   * Lanes per warp when the lanes are a block view (`machine/machineSetup.ts`, block mechanisms):
   * lane t is thread t and its `SR_LANEID` is t mod this. Absent: the lanes are one warp.
   */
  readonly homeWarpSize?: number;
  readonly atomicOrder: AtomicOrder;
  /**
   * The branching budget: at most this many outcomes of one instruction's unknown predicates
   * (2^n for n distinct lanes, n + 1 for n interchangeable ones); past it the run ends
   * `bound-reached`.
   */
  readonly maxAlternatives: number;
  readonly maxCallDepth: number;
  /** Shared unknowns (`shared.ts`, `LaneOptions.sharedUnknowns`). */
  readonly shared: 'on' | 'off' | 'plant';
  /** c[bank][offset], or UNKNOWN when the launch does not give it. */
  constant(bank: number, offset: number): number;
  /** The PC at byte `offset` of the function that holds `pc`, if there is an instruction there. */
  pcAt(pc: number, offset: number): number | undefined;
  /** Byte offset of `pc` in its function. */
  offsetOf(pc: number): number;
}

/**
 * Plausible launch values (issue 16; a decision, docs/semantics.md §5): the initial stack pointer
 * that compiled code loads into R1 from the driver's constant bank (c[0x0][0x28] up to sm_90,
 * c[0x0][0x37c] on sm_100), unless the header gives it, and `SR_LMEMHIOFF` below it
 * (`lanes/dataOps.ts`), so that the stack-limit check before a call passes as it does on hardware
 * instead of reaching `BPT.TRAP` through an unknown comparison.
 */
export const STACK_POINTER_OFFSETS: readonly number[] = [0x28, 0x37c];
export const STACK_TOP = 0x00fffc00;
export const STACK_LIMIT = 0x00ff0000;

/**
 * Where the driver keeps the launch's sizes in constant bank 0 (issue 16, a decision read off the
 * listings in `../shared/sass/`: sm_70–sm_90 code multiplies `SR_CTAID.X` by c[0x0][0x0] and
 * strides by c[0x0][0xc]; sm_100 and sm_120 code by c[0x0][0x360] and c[0x0][0x370]): blockDim.x,
 * .y, .z, then gridDim.x, .y, .z, as plausible values of one block of K·W threads (the same
 * values `SR_NTID.*` and `SR_NCTAID.*` read). A listing that names no architecture gets the
 * older layout.
 */
export function launchSizeConstants(
  arch: number | undefined,
  launch: Launch,
): readonly [number, number][] {
  const base = arch !== undefined && arch >= 100 ? 0x360 : 0x0;
  const grid = base + 0xc + (base === 0x360 ? 0x4 : 0);
  return [
    [base, launch.warps * launch.warpSize],
    [base + 0x4, 1],
    [base + 0x8, 1],
    [grid, 1],
    [grid + 0x4, 1],
    [grid + 0x8, 1],
  ];
}

export function execContext(
  program: Program,
  ops: readonly Op[],
  launch: Launch,
  options: LaneOptions = defaultLaneOptions,
): ExecContext {
  const layout = registerLayout(
    ops,
    launch.registers.map((r) => r.reg),
  );
  const constants = new Map<string, number>();
  for (const [offset, value] of launchSizeConstants(program.arch, launch))
    constants.set(`0:${offset}`, value);
  for (const c of launch.constants) constants.set(`${c.bank}:${c.offset}`, u32(c.value));
  const byFunction = new Map<number, Map<number, number>>();
  for (const f of program.functions) {
    const m = new Map<number, number>();
    for (let pc = f.start; pc < f.end; pc++) m.set(program.instructions[pc]!.offset, pc);
    byFunction.set(f.start, m);
  }
  return {
    program,
    ops,
    layout,
    warpSize: launch.warpSize,
    full: fullMask(launch.warpSize),
    warps: launch.warps,
    atomicOrder: options.atomicOrder,
    maxAlternatives: 4096,
    maxCallDepth: 16,
    shared: options.sharedUnknowns ?? 'on',
    constant: (bank, offset) =>
      constants.get(`${bank}:${offset}`) ??
      (bank === 0 && STACK_POINTER_OFFSETS.includes(offset) ? STACK_TOP : UNKNOWN),
    pcAt: (pc, offset) => {
      const f = functionOf(program, pc);
      return f ? byFunction.get(f.start)?.get(offset) : undefined;
    },
    offsetOf: (pc) => codeOffset(program, pc),
  };
}
