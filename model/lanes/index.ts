/** Lanes and memory: thread state, the data subset's semantics, launch configuration. */
export {
  UNKNOWN,
  u32,
  s32,
  fullMask,
  popcount,
  lowestLane,
  lanesOf,
  hexMask,
  binMask,
} from './values.ts';
export {
  emptyMemory,
  memoryOf,
  readWord,
  writeWord,
  havocMemory,
  memoryEntries,
  writeMemoryKey,
  type Memory,
} from './memory.ts';
export { defaultLaunch, checkLaunch, type Launch } from './launch.ts';
export {
  registerLayout,
  initialLaneData,
  readReg,
  type LaneData,
  type RegisterLayout,
} from './laneData.ts';
export {
  execContext,
  defaultLaneOptions,
  type ExecContext,
  type LaneOptions,
  type AtomicOrder,
} from './execContext.ts';
export { execute, type Outcome, type Event, type Group, type ExecResult } from './execute.ts';
export { lop3, shift } from './dataOps.ts';
