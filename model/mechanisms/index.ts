export type {
  Advance,
  Formatter,
  Issue,
  Mechanism,
  MechanismContext,
  MechanismFactory,
  OptionSpec,
  Policy,
  StateView,
} from './mechanism.ts';
export { VIRTUAL_EXIT } from './mechanism.ts';
export { MECHANISMS, findMechanism, resolveOptions } from './registry.ts';
export {
  createIts,
  itsFactory,
  type ItsState,
  type ItsOptions,
  READY,
  AT_WARPSYNC,
} from './its.ts';
export { createHanoi, hanoiFactory, type HanoiState, type HanoiOptions } from './hanoi.ts';
export {
  createSimtStack,
  simtStackFactory,
  type SimtStackState,
  type StackEntry,
  type PathOrder,
} from './simtStack.ts';
export { tokenStackFactory, type TokenStackState } from './tokenStack.ts';
export { mpIpdomFactory, type MpIpdomState } from './mpIpdom.ts';
export { dualPathFactory, type DualPathState } from './dualPath.ts';
export { lcpFactory, type LcpState } from './lcp.ts';
export { type PathListState } from './pathList.ts';
export { dfsMinPcFactory } from './dfsMinPc.ts';
export { gcnFactory } from './gcn.ts';
export { bfsFactory } from './bfs.ts';
export { sortedFactory } from './sorted.ts';
export { opcodeConvergentFactory, type OpcodeConvergentState } from './opcodeConvergent.ts';
export {
  blockPolicy,
  compact,
  compactThreads,
  type BlockContext,
  type BlockIssue,
  type BlockMechanism,
  type BlockShape,
} from './blockMechanism.ts';
export { onBlockView } from './blockView.ts';
export { formatThreads, type ThreadMask } from './threadMask.ts';
export { tbcFactory, createTbc, type TbcState } from './tbc.ts';
export { dwfFactory, createDwf, type DwfState, type DwfSchedule } from './dwf.ts';
export { lwmFactory, createLwm, type LwmState } from './lwm.ts';
export { dwsFactory, createDws, type DwsState, type DwsReconverge } from './dws.ts';
export { createDwsIpdom } from './dwsIpdom.ts';
export { hybridFactory, createHybrid } from './hybrid.ts';
export { breadthFirstBlocks, type HybridLoops } from './hybridRegions.ts';
