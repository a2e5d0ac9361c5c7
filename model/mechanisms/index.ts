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
