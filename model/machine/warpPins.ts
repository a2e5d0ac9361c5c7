import type { MachineSetup } from './machineSetup.ts';
import type { WarpState } from './machineTypes.ts';

/**
 * Special registers whose value depends on the warp's index in the block (SEMANTICS §1,
 * `lanes/dataOps.ts` `specialRegister`): only the thread id, k·W + l. The block, CTA and SM ids
 * are the same for every warp; unknown registers are unknown for every warp alike.
 */
const WARP_DEPENDENT = new Set(['SR_TID.X']);

/**
 * Warp symmetry's pins (issue 10 item 2; docs/semantics.md §15), stage 1½ of `createMachine`: a
 * warp is *pinned* — kept at its index by the explorer's canonical form
 * (`explore/warpSymmetry.ts`) — when one of its live lanes sits at a PC from which an instruction
 * that reads the warp's own index (S2R of `SR_TID.X`) may still be reached along control
 * successors (`Liveness.mayReach`, the same analysis that pins lanes in `laneSymmetry.ts`). An
 * unpinned warp's steps are a function of its own state and memory only, never of its index, so
 * exchanging two unpinned warps commutes with every step.
 *
 * Returns null when warp symmetry never applies: a block mechanism (`tbc`, `dwf`, `lwm`) runs
 * the whole block as one row of lanes, whose state orders the warps.
 */
export function warpPins(setup: MachineSetup): ((ws: WarpState) => boolean) | null {
  if (setup.blockLaunch || setup.spec.factory.level === 'block') return null;
  const { n, live, mech } = setup;
  const ops = setup.spec.ops;
  const readsIndex = (pc: number): boolean => {
    const op = ops[pc]!;
    return op.kind === 's2r' && WARP_DEPENDENT.has(op.sreg);
  };
  let any = false;
  for (let pc = 0; pc < n; pc++) if (readsIndex(pc)) any = true;
  if (!any) return () => false;
  // Without the lanes' PCs nothing tells which readers are behind a warp: every warp is pinned.
  if (!live || !mech.lanePcs) return () => true;
  const mayRead = live.mayReach(readsIndex);
  return (ws) => {
    const exited = ws.data.exited;
    let pinned = false;
    mech.lanePcs!(ws.mech, (pc, mask) => {
      if ((mask & ~exited) === 0) return;
      // A PC outside the program (the virtual exit) reads nothing.
      if (pc >= 0 && pc < n && mayRead[pc]) pinned = true;
    });
    return pinned;
  };
}
