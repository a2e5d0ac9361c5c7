import { execute, type ExecResult, type Group, type Outcome } from '../lanes/execute.ts';
import type { LaneData } from '../lanes/laneData.ts';
import type { Memory } from '../lanes/memory.ts';
import type { Issue } from '../mechanisms/mechanism.ts';
import type { ItsState } from '../mechanisms/its.ts';
import type { MachineSetup } from './machineSetup.ts';
import type { Stop, WarpState, WarpStep } from './machineTypes.ts';
import { refinementGap } from './refinement.ts';

export const NO_EVENT = { kind: 'none' } as const;

/** A step that ends the run with `stop`. */
export function stopStep(
  issue: Issue,
  group: number,
  choice: string | null,
  unknownChoice: boolean,
  stop: Stop,
): WarpStep {
  return { issue, group, choice, unknownChoice, warp: null, memory: null, stop };
}

/**
 * The step that ends an issue when one execution result cannot go on: a stop of the lanes, or an
 * event (`eventMessage(kind)`) the caller cannot run; null when `r` goes on.
 */
export function endingStep(
  issue: Issue,
  group: number,
  p: { readonly choice: string | null; readonly unknown: boolean },
  r: ExecResult,
  eventMessage: (kind: string) => string,
): WarpStep | null {
  if (r.kind === 'stop')
    return stopStep(issue, group, p.choice, p.unknown, { verdict: r.verdict, message: r.message });
  if (r.outcome.event.kind !== 'none')
    return stopStep(issue, group, p.choice, p.unknown, {
      verdict: 'unsupported',
      message: eventMessage(r.outcome.event.kind),
    });
  return null;
}

/** Runs one merged issue of warp `w`, appending its steps (group `g`) to `out`. */
export type MergedSteps = (
  w: number,
  warp: WarpState,
  mem: Memory,
  issue: Issue,
  g: number,
  out: WarpStep[],
) => void;

/**
 * A merged issue (`Issue.merged`, seed 002 §4.5, `opcode-convergent`): `issue.pc` runs for
 * `issue.mask`, then `merged.pc` for `merged.mask` on the lanes and memory that result; the
 * reference takes the two halves in turn (each half is checked for refinement), and the
 * mechanism sees one outcome: groups united by PC, exits united. Only data instructions merge:
 * an event from either half ends the run `unsupported`. Kept apart from `stepsOf` so that
 * ordinary issues take the same path as before.
 */
export function mergedSteps(setup: MachineSetup): MergedSteps {
  const { ctx, mech, refMech, n, policyAt, opAt } = setup;
  const fmtPc = setup.fmt.pc;
  return (
    w: number,
    warp: WarpState,
    mem: Memory,
    issue: Issue,
    g: number,
    out: WarpStep[],
  ): void => {
    const halves: readonly Issue[] = [{ pc: issue.pc, mask: issue.mask }, issue.merged!];
    for (const h of halves)
      if (!(h.pc >= 0 && h.pc < n) || policyAt[h.pc] === 'reject') {
        out.push(
          stopStep(issue, g, null, false, {
            verdict: 'unsupported',
            message: `merged issue at pc ${h.pc}: outside the program or rejected by ${mech.id}`,
          }),
        );
        return;
      }
    interface Half {
      readonly data: LaneData;
      readonly memory: Memory;
      readonly groups: readonly Group[];
      readonly exited: number;
      readonly choice: string | null;
      readonly unknown: boolean;
      readonly ref: ItsState | undefined;
    }
    let partial: Half[] = [
      {
        data: warp.data,
        memory: mem,
        groups: [],
        exited: 0,
        choice: null,
        unknown: false,
        ref: warp.ref,
      },
    ];
    for (const h of halves) {
      const next: Half[] = [];
      for (const p of partial) {
        const gap = refMech && p.ref ? refinementGap(p.ref, h, fmtPc) : null;
        if (gap !== null) {
          out.push(
            stopStep(issue, g, p.choice, p.unknown, {
              verdict: 'violation',
              property: 'refines-its',
              message: gap,
            }),
          );
          continue;
        }
        const rs = execute(ctx, opAt[h.pc]!, h.pc, w, p.data, p.memory, h.mask);
        for (const r of rs) {
          const ending = endingStep(
            issue,
            g,
            p,
            r,
            () => `merged issue at pc ${h.pc}: only data instructions can be merged`,
          );
          if (ending) {
            out.push(ending);
            continue;
          }
          if (r.kind === 'stop') continue;
          let ref = p.ref;
          if (refMech && ref) {
            const radv = refMech.advance(ref, h, r.outcome, r.data.exited);
            if (radv.kind === 'stop') {
              out.push(
                stopStep(issue, g, p.choice, p.unknown, {
                  verdict: radv.verdict,
                  message: `in the reference: ${radv.message}`,
                }),
              );
              continue;
            }
            ref = radv.state;
          }
          const choice =
            r.choice === null
              ? p.choice
              : p.choice === null
                ? r.choice
                : `${p.choice}; ${r.choice}`;
          next.push({
            data: r.data,
            memory: r.memory,
            groups: [...p.groups, ...r.outcome.groups],
            exited: (p.exited | r.outcome.exited) >>> 0,
            choice,
            unknown:
              p.unknown || (rs.length > 1 && r.choice !== null && r.choice.startsWith('unknown')),
            ref,
          });
        }
      }
      partial = next;
    }
    for (const p of partial) {
      // One group per distinct PC, ascending (the Outcome contract).
      const byPc = new Map<number, number>();
      for (const gr of p.groups) byPc.set(gr.pc, ((byPc.get(gr.pc) ?? 0) | gr.mask) >>> 0);
      const outcome: Outcome = {
        groups: [...byPc].sort((a, b) => a[0] - b[0]).map(([pc, mask]) => ({ pc, mask })),
        exited: p.exited,
        event: NO_EVENT,
      };
      const adv = mech.advance(warp.mech, issue, outcome, p.data.exited);
      if (adv.kind === 'stop') {
        out.push(
          stopStep(
            issue,
            g,
            p.choice,
            p.unknown,
            adv.property
              ? { verdict: adv.verdict, property: adv.property, message: adv.message }
              : { verdict: adv.verdict, message: adv.message },
          ),
        );
        continue;
      }
      out.push({
        issue,
        group: g,
        choice: p.choice,
        unknownChoice: p.unknown,
        warp: {
          mech: adv.state,
          data: p.data,
          ...(p.ref ? { ref: p.ref } : {}),
          ...(warp.loops ? { loops: warp.loops } : {}),
          ...(warp.anonymous ? { anonymous: warp.anonymous } : {}),
        },
        memory: p.memory,
        stop: null,
      });
    }
  };
}
