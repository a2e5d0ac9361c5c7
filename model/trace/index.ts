/** Hardware traces: Accel-Sim `.traceg` import. */
export type {
  Trace,
  TraceAddresses,
  TraceBlock,
  TraceFormat,
  TraceInst,
  TraceWarp,
} from './trace.ts';
export { MAX_ERRORS, parseTraceg, type ParseTracegOptions } from './parseTraceg.ts';
export { traceLayout, type TraceLayout } from './traceLayout.ts';
export {
  INST_STRIDE,
  controlSkeleton,
  isControlOpcode,
  lanePathStats,
  lanePaths,
  type BranchDecision,
  type Inconsistency,
  type LanePath,
  type LanePaths,
  type LaneStep,
  type SkeletonInst,
  type SyncPoint,
  type UncertainPoint,
} from './lanePaths.ts';
export { traceProgram, type TraceProgram } from './traceReplayProgram.ts';
export {
  blockLanes,
  launchedLanes,
  replayTrace,
  traceSetup,
  type ReplayEnd,
  type ReplayOptions,
  type ReplayResult,
  type TraceSetup,
  type WarpIssue,
} from './traceReplay.ts';
export {
  discrepancy,
  firstDifference,
  levenshtein,
  sideBySide,
  type Discrepancy,
  type SideBySideRow,
} from './discrepancy.ts';
export { listingAddresses, listingAgreement, type ListingAgreement } from './traceReplayListing.ts';
export {
  OLDER_TRACE_FORMAT,
  compressAddresses,
  printKernelsList,
  printTraceg,
} from './printTraceg.ts';
export { withListingOperands, type WithListing } from './listingOperands.ts';
