import { createBlockMachine } from './blockMachine.ts';
import { warpPins } from './warpPins.ts';
import { initialLaneData } from '../lanes/laneData.ts';
import { memoryOf } from '../lanes/memory.ts';
import { deadRun } from './deadRun.ts';
import { issueSteps } from './issueSteps.ts';
import { laneSymmetry, ownNumberReaders } from './laneSymmetry.ts';
import { setupMachine } from './machineSetup.ts';
import type {
  Machine,
  MachineSpec,
  MachineState,
  Transition,
  WarpState,
  WarpStep,
  WarpSteps,
} from './machineTypes.ts';
import { barrierLiveness, stateKeys, warpWriter } from './warpKeys.ts';

export type {
  Machine,
  MachineSpec,
  MachineState,
  Stop,
  StopVerdict,
  Transition,
  WarpState,
  WarpStep,
  WarpSteps,
} from './machineTypes.ts';
export { formatterFor } from './formatter.ts';

/**
 * Builds the machine of `spec` from its stages, each in its own file:
 * 1. `machineSetup.ts` — the spec → execution context, mechanism, reference, policies,
 *    liveness (relevance), whether lane symmetry and widening apply;
 * 2. `warpKeys.ts` — writing one warp's canonical numbers (`warpWriter`);
 * 3. `laneSymmetry.ts` — canonical warp keys, lane classes and symbolic splits over that writer;
 * 4. `warpKeys.ts` — whole-state keys (`stateKeys`);
 * 5. `issueSteps.ts` (and `mergedIssue.ts`) — executing one issue: lanes, mechanism advance,
 *    refinement check — the explorer's hot path;
 * and here: a warp's steps (`warpSteps`), a state's successors, status and liveness.
 */
export function createMachine(spec: MachineSpec): Machine {
  // A block mechanism past 32 threads: the block machine (issue 10, `blockMachine.ts`).
  if (spec.factory.level === 'block' && spec.launch.warps * spec.launch.warpSize > 32)
    return createBlockMachine(spec);
  const setup = setupMachine(spec);
  const { program, ops } = spec;
  const launch = setup.launch;
  const { ctx, mech, refMech, fmt, W, full, widen, canReduce, live, symmetric } = setup;
  const writeWarp = warpWriter(setup);
  const sym = laneSymmetry(setup, writeWarp);
  const keys = stateKeys(setup, writeWarp, sym.warpKey);
  const stepsOf = issueSteps(setup, sym);
  const run = spec.deadRuns === false ? null : deadRun(setup);

  const warpSteps = (k: number, ws: WarpState, mem: MachineState['memory']): WarpSteps => {
    const issues = mech.candidates(ws.mech);
    const steps: WarpStep[] = [];
    stepsOf(k, ws, mem, issues, steps);
    return {
      enabled: issues.length > 0,
      ready: mech.ready(ws.mech),
      live: (full & ~ws.data.exited) !== 0,
      issues: issues.length,
      steps,
    };
  };

  const successors = (s: MachineState): Transition[] => {
    const out: Transition[] = [];
    let group = 0;
    for (let w = 0; w < s.warps.length; w++) {
      const ws = s.warps[w]!;
      const issues = mech.candidates(ws.mech);
      const steps: WarpStep[] = [];
      stepsOf(w, ws, s.memory, issues, steps);
      for (const st of steps) {
        let next: MachineState | null = null;
        if (st.warp) {
          const warps = s.warps.slice();
          warps[w] = st.warp;
          next = { warps, memory: st.memory! };
        }
        out.push({
          warp: w,
          issue: st.issue,
          group: group + st.group,
          choice: st.choice,
          unknownChoice: st.unknownChoice,
          ...(st.orderDependent ? { orderDependent: true } : {}),
          ...(st.widened ? { widened: true } : {}),
          next,
          stop: st.stop,
        });
      }
      group += issues.length;
    }
    return out;
  };

  /** Liveness follows CALL and RET (`Machine.followsCalls`). */
  const followsCalls = canReduce && !spec.opaqueCalls;
  const machine: Machine = {
    program,
    ops,
    launch,
    ...(setup.blockLaunch ? { blockLaunch: setup.blockLaunch } : {}),
    ctx,
    mechanism: mech,
    options: spec.options,
    fmt,
    initial: () => ({
      warps: Array.from({ length: launch.warps }, (_, k) => ({
        mech: mech.init(),
        data: initialLaneData(ctx.layout, launch, k),
        ...(refMech ? { ref: refMech.init() } : {}),
        ...(widen ? { loops: widen.initial(W) } : {}),
      })),
      memory: memoryOf(launch.memory),
    }),
    successors,
    status(s) {
      if (s.warps.every((w) => (full & ~w.data.exited) === 0)) return 'terminated';
      return s.warps.some((w) => mech.candidates(w.mech).length > 0) ? 'running' : 'blocked';
    },
    key: keys.key,
    behaviourKey: keys.behaviourKey,
    live: (s) => s.warps.map((w) => (full & ~w.data.exited) >>> 0),
    referenceView: (ws) => (refMech && ws.ref ? refMech.view(ws.ref, fmt) : null),
    warpKey: sym.warpKey,
    writeWarp,
    memoryKey: keys.memoryKey,
    canReduce,
    symmetric,
    memoryRelevant: live ? live.memoryRelevant : true,
    mayReach: live ? live.mayReach : null,
    symmetryOff: setup.symmetryOff,
    warpPinned: warpPins(setup),
    ownNumberReaders: ownNumberReaders(setup),
    liveBarriers: barrierLiveness(setup),
    withoutSymmetry: () => (symmetric ? createMachine({ ...spec, laneSymmetry: false }) : machine),
    withoutCallGraph: () =>
      symmetric || setup.skipDead || followsCalls
        ? createMachine({ ...spec, laneSymmetry: false, skipDeadWrites: false, opaqueCalls: true })
        : machine,
    followsCalls,
    skipsDeadWrites: setup.skipDead !== null,
    withoutDeadWrites: () =>
      setup.skipDead ? createMachine({ ...spec, skipDeadWrites: false }) : machine,
    withLoopVisitsKeyed: () =>
      widen && canReduce && !spec.keyLoopVisits
        ? createMachine({ ...spec, keyLoopVisits: true })
        : machine,
    warpSteps,
    ...(run ? { deadRun: run } : {}),
  };
  return machine;
}
