/** The instruction set: program values, the SASS parser and printer, decoding to ops. */
export * from './program.ts';
export { parseSass, MAX_ERRORS, type ParsedListing, type ParseOptions } from './parseSass.ts';
export { printProgram } from './printProgram.ts';
export { validateProgram } from './validateProgram.ts';
export {
  controlOf,
  secondPredicate,
  ALL_CONTROL_OPCODES,
  CONTROL_OPCODES,
  type ControlInfo,
} from './control.ts';
export { decodeInstruction, decodeProgram, codeOffset, type DecodeError } from './decode.ts';
export type { Op, OpBody, OpKind, Src, Addr, Cmp, BoolOp } from './op.ts';
export { BARRIER_KINDS } from './op.ts';
