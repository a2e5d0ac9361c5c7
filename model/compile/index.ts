/** Compile passes: lowering plain code for a control-flow mechanism (DESIGN.md, `compile/`). */
export {
  compileTuring,
  type Compiled,
  type RegionReport,
  type TuringOptions,
} from './compileTuring.ts';
export {
  TARGETS,
  loweredOf,
  targetOf,
  type CompileOptions,
  type CompileTarget,
  type Lowered,
} from './targets.ts';
export { printCompiled } from './printCompiled.ts';
export type { Allocation } from './allocate.ts';
