/** fast-check arbitraries for the property suites: programs, CFGs, kernels, schedules. */
export { programArbitrary, type ProgramArbitraryOptions } from './program.ts';
export { cfgProgram, type CfgProgramOptions } from './cfg.ts';
export { divergentKernel, renderKernel, spinlockKernel } from './kernels.ts';
export { renderTuring, turingProgram, turingProgramWith, type TuringOptions } from './turing.ts';
export {
  instructionCount,
  KERNEL_CLASSES,
  scheduleArbitrary,
  type GeneratedKernel,
  type KernelClass,
} from './kernel.ts';
export {
  IDIOMS,
  structuredKernel,
  type Idiom,
  type StructuredAst,
  type StructuredOptions,
} from './structured.ts';
export {
  cycleShape,
  renderUnstructured,
  unstructuredGraph,
  unstructuredKernel,
  unstructuredTree,
  type UnstructuredAst,
  type UnstructuredOptions,
} from './unstructured.ts';
