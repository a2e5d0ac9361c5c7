/**
 * The data of one replay view (`warpcheck replay --html`, and each failing cell of `explore
 * --html`): the CFG picture, and for every step the issue, each lane's position and the
 * mechanism's state tables (`Mechanism.view`, in the layout of the papers' figures). Plain JSON,
 * embedded in the page and read by its script.
 */
import { buildCfg, cfgPicture, type PictureFunction } from '../../model/cfg/index.ts';
import type { Machine, MachineState } from '../../model/machine/machine.ts';
import type { ItsState } from '../../model/mechanisms/its.ts';
import type { StateView } from '../../model/mechanisms/mechanism.ts';
import { replay } from '../../model/scenario/replay.ts';
import type { Scenario } from '../../model/scenario/schema.ts';

/** Where the lanes of one warp are: per lane its PC (a number), or null once it exited. */
export type LanePositions = readonly (number | null)[];

export interface ViewStep {
  /** 0 = the initial state. */
  readonly step: number;
  readonly warp: number | null;
  /** The issued PC (a number, for highlighting) and as printed. */
  readonly pc: number | null;
  readonly pcText: string;
  readonly mask: string;
  readonly instruction: string;
  readonly note: string | null;
  /** Per warp: the mechanism's tables after this step. */
  readonly tables: readonly StateView['tables'][];
  /** Per warp: each lane's position after this step. */
  readonly lanes: readonly LanePositions[];
  /** The run stopped here: verdict and message. */
  readonly stop: string | null;
  /** Expected state of the scenario at this step: matched or not (null: none expected). */
  readonly expected: { readonly ok: boolean; readonly note: string | null } | null;
}

export interface ReplayViewData {
  readonly title: string;
  readonly source: string | null;
  readonly mechanism: string;
  readonly options: string;
  readonly warpSize: number;
  readonly warps: number;
  readonly cfg: readonly PictureFunction[];
  readonly steps: readonly ViewStep[];
  /** Steps `loop + 1 … last` form the livelock's cycle: after the last comes `loop + 1` again. */
  readonly loop: number | null;
  readonly verdict: string;
  readonly message: string;
  readonly expected: string;
  readonly ok: boolean;
  readonly mismatches: readonly string[];
}

/**
 * Each lane's position in warp `w` of `s`: the reference (`its`) state's per-lane PC when the run
 * checks refinement (the lanes' own program order, whatever the mechanism has them wait on),
 * else the innermost PC the mechanism reports for the lane (`lanePcs`: the last report wins, as
 * stacks report bottom to top), else the PC of the candidate that holds the lane.
 */
function lanePositions(m: Machine, s: MachineState, w: number): LanePositions {
  const ws = s.warps[w]!;
  const live = m.live(s)[w]!;
  const W = m.launch.warpSize;
  const at: (number | null)[] = Array.from({ length: W }, () => null);
  const ref = ws.ref as ItsState | undefined;
  if (ref) return ref.pcs.map((pc) => (pc < 0 ? null : pc));
  const place = (pc: number, mask: number) => {
    for (let l = 0; l < W; l++) if ((mask >>> l) & 1 && (live >>> l) & 1) at[l] = pc;
  };
  if (m.mechanism.lanePcs) m.mechanism.lanePcs(ws.mech, place);
  else for (const c of m.mechanism.candidates(ws.mech)) place(c.pc, c.mask);
  return at;
}

/** Replays `scenario` on `machine` and gathers what the page shows. */
export function replayViewData(machine: Machine, scenario: Scenario): ReplayViewData {
  const run = replay(machine, scenario);
  const W = machine.launch.warpSize;
  const pcOf = new Map<string, number>();
  for (let pc = 0; pc < machine.program.instructions.length; pc++) pcOf.set(machine.fmt.pc(pc), pc);
  // The states along the schedule, for lane positions (`replay` keeps only views).
  const states: MachineState[] = [machine.initial()];
  for (const c of scenario.schedule) {
    const t = machine.successors(states[states.length - 1]!)[c];
    if (!t?.next) break;
    states.push(t.next);
  }
  const expected = new Map((scenario.expect.states ?? []).map((e) => [e.step, e]));
  const mismatchAt = (step: number) => run.mismatches.some((mm) => mm.startsWith(`step ${step}:`));
  // A schedule that diverges leaves fewer states than steps: later steps show the last state.
  const lanesAt = (i: number) => {
    const st = states[Math.min(i, states.length - 1)]!;
    return st.warps.map((_, w) => lanePositions(machine, st, w));
  };
  const exp = (step: number) => {
    const e = expected.get(step);
    return e ? { ok: !mismatchAt(step), note: e.note ?? null } : null;
  };
  const steps: ViewStep[] = [
    {
      step: 0,
      warp: null,
      pc: null,
      pcText: '',
      mask: '',
      instruction: 'initial state',
      note: expected.get(0)?.note ?? null,
      tables: run.initial.map((v) => v.tables),
      lanes: lanesAt(0),
      stop: null,
      expected: exp(0),
    },
    ...run.steps.map((st) => ({
      step: st.step,
      warp: st.warp,
      pc: pcOf.get(st.pc.split(' ∩ ')[0]!) ?? null,
      pcText: st.pc,
      mask: st.mask,
      instruction: st.instruction,
      note: expected.get(st.step)?.note ?? null,
      tables: st.views.map((v) => v.tables),
      lanes: st.stop ? lanesAt(st.step - 1) : lanesAt(st.step),
      stop: st.stop ? `${st.stop.verdict}: ${st.stop.message}` : null,
      expected: exp(st.step),
    })),
  ];
  const e = scenario.expect;
  return {
    title: scenario.name,
    source: scenario.source ?? null,
    mechanism: scenario.mechanism,
    options: Object.entries(machine.options)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
    warpSize: W,
    warps: machine.launch.warps,
    cfg: cfgPicture(buildCfg(machine.program), machine.fmt.pc),
    steps,
    loop: scenario.loop ?? null,
    verdict: run.kind ? `${run.verdict} (${run.kind})` : run.verdict,
    message: run.message,
    expected: `${e.verdict}${e.kind ? ` (${e.kind})` : ''}`,
    ok: run.mismatches.length === 0,
    mismatches: run.mismatches,
  };
}
