/** Control-flow graphs: basic blocks, dominators, post-dominators, IPDOM, loops. */
export {
  VIRTUAL_EXIT,
  type BasicBlock,
  type CallEdge,
  type CfgEdge,
  type FunctionCfg,
  type IrreducibleCycle,
  type NaturalLoop,
  type ProgramCfg,
} from './programCfg.ts';
export { buildCfg } from './buildCfg.ts';
export { ipdomOf, ipdomTable, isBranchLike } from './ipdom.ts';
export { dominates, dominatorsOf, postDominates, postDominatorsOf } from './dominance.ts';
export { cfgDot } from './dot.ts';
export {
  cfgPicture,
  type PictureBlock,
  type PictureEdge,
  type PictureFunction,
  type PictureIpdom,
  type PictureLine,
} from './picture.ts';
