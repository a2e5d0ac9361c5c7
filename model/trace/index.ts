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
