/** Ballot programs for law P9, maximal reconvergence (issue 11): generator, reference, lowering. */
export {
  ballotLogs,
  formatEntry,
  formatLogs,
  parseEntry,
  LOG_BASE,
  LOG_STRIDE,
  STORE_TAG,
} from './ballotLog.ts';
export type { LaneLog } from './ballotLog.ts';
export { ballotProgram } from './program.ts';
export type { BallotProgram, Block, Cond, Stmt, Trip } from './program.ts';
export { referenceLogs } from './reference.ts';
export { lowerBallotProgram, ballotProgramOf, PROGRAM_TAG } from './lower.ts';
export { reachesLog } from './reachLog.ts';
export type { ReachResult } from './reachLog.ts';
export { ballotKernel, ballotClasses } from './source.ts';
export type { BallotKernelAst } from './source.ts';
