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
export { createIts, itsFactory, type ItsState } from './its.ts';
export {
  createSimtStack,
  simtStackFactory,
  type SimtStackState,
  type StackEntry,
  type PathOrder,
} from './simtStack.ts';
