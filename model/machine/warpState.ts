import type { LaneData } from '../lanes/laneData.ts';
import type { ItsState } from '../mechanisms/its.ts';
import type { WarpState } from './machineTypes.ts';
import type { LoopVisits } from './widening.ts';

/**
 * A warp state with only the optional fields that are set. Every step builds one, so the common
 * shapes are whole literals: no temporary objects of conditional spreads, and fields added later
 * would go to a separate property store, one more object per stored state. With a reference
 * (`refines-its`, every mechanism but `its`) the spread form cost about 3 % of a `simt-stack`
 * search at W = 32 (bench/RESULTS.md, issue 16).
 */
export function warpState(
  mech: unknown,
  data: LaneData,
  ref: ItsState | undefined,
  loops: LoopVisits | undefined,
  anonymous: number | undefined,
): WarpState {
  if (!anonymous) {
    if (!ref) return loops ? { mech, data, loops } : { mech, data };
    return loops ? { mech, data, ref, loops } : { mech, data, ref };
  }
  return {
    mech,
    data,
    ...(ref ? { ref } : {}),
    ...(loops ? { loops } : {}),
    anonymous,
  };
}
