import type { Op } from '../isa/op.ts';
import { execute, orderedLanes, predTrue, predUnknown, splitsOnUnknown } from '../lanes/execute.ts';
import { withColumn } from '../lanes/laneData.ts';
import type { Memory } from '../lanes/memory.ts';
import type { Issue } from '../mechanisms/mechanism.ts';
import type { ItsState } from '../mechanisms/its.ts';
import { binMask, UNKNOWN } from '../lanes/values.ts';
import { warpsyncOwnBitGap } from '../lanes/warpsyncOwnBit.ts';
import type { LaneSymmetry } from './laneSymmetry.ts';
import type { MachineSetup } from './machineSetup.ts';
import type { WarpState, WarpStep } from './machineTypes.ts';
import { mergedSteps, NO_EVENT, stopStep } from './mergedIssue.ts';
import { refinementGap } from './refinement.ts';
import { warpState } from './warpState.ts';

/** What a skipped dead write executes (`deadWrites.ts`): every issued lane to pc + 1, nothing written. */
const SKIPPED: Op = { kind: 'nop', guard: null, pred2: null };

/** The steps of warp `w` (state `warp`, memory `mem`) issuing each of `issues`, in order. */
export type StepsOf = (
  w: number,
  warp: WarpState,
  mem: Memory,
  issues: readonly Issue[],
  out: WarpStep[],
) => void;

/**
 * Stage 5 of `createMachine`, the hot path: executing issues. For each issue, the checks that
 * outrank the mechanism (past the end, WARPSYNC's own bit, a rejected instruction), the lanes'
 * execution (`lanes/execute.ts`, one result per data alternative), the mechanism's `advance`,
 * the refinement check against the reference (`refines-its`, SEMANTICS §6), then loop widening
 * and symbolic splits (issue 16). Everything is bound once here: the returned function allocates
 * only the steps it returns.
 */
export function issueSteps(setup: MachineSetup, sym: LaneSymmetry): StepsOf {
  const { program, ops } = setup.spec;
  const { ctx, mech, refMech, n, W, full, policyAt, opAt, symmetric, widen, skipDead } = setup;
  const fmtPc = setup.fmt.pc;
  const memoryRelevant = setup.live?.memoryRelevant !== false;
  const { classesOf, forgetting, idRead } = sym;
  const merged = mergedSteps(setup);
  /** BMOV Rd, Bx must read what the reference's Bx holds, up to exited lanes (values, SEMANTICS §6). */
  const barrierValueGap = (
    ref: ItsState,
    state: unknown,
    op: Extract<Op, { kind: 'bmov-from-barrier' }>,
    exited: number,
  ): string | null => {
    const mine = (mech.barrierValue!(state, op.barrier) & ~exited) >>> 0;
    const theirs = (refMech!.barrierValue!(ref, op.barrier) & ~exited) >>> 0;
    return mine === theirs
      ? null
      : `BMOV reads B${op.barrier} = ${binMask(mine, W)}, but the reference's B${op.barrier} holds ${binMask(theirs, W)} (live lanes)`;
  };
  return (
    w: number,
    warp: WarpState,
    mem: Memory,
    issues: readonly Issue[],
    out: WarpStep[],
  ): void => {
    let classes: readonly number[] | null = null;
    const classesNow = (): readonly number[] => (classes ??= classesOf(warp));
    for (let g = 0; g < issues.length; g++) {
      const issue = issues[g]!;
      if (issue.merged !== undefined) {
        merged(w, warp, mem, issue, g, out);
        continue;
      }
      const pc = issue.pc;
      if (!(pc >= 0 && pc < n)) {
        out.push(
          stopStep(issue, g, null, false, {
            verdict: 'undefined-behavior',
            message: `warp ${w} lanes ${binMask(issue.mask, W)} ran past the end of the program (pc ${pc})`,
          }),
        );
        continue;
      }
      // SEMANTICS §2, §6: a lane missing from its own WARPSYNC mask is undefined behaviour
      // whatever the mechanism's policy, and it outranks the policy's own verdict.
      const ownBit = warpsyncOwnBitGap(ctx, ops[pc]!, pc, warp.data, issue.mask);
      if (ownBit !== null) {
        out.push(
          stopStep(issue, g, null, false, { verdict: 'undefined-behavior', message: ownBit }),
        );
        continue;
      }
      if (policyAt[pc] === 'reject') {
        const ins = program.instructions[pc]!;
        out.push(
          stopStep(issue, g, null, false, {
            verdict: 'unsupported',
            message: `${mech.id} has no meaning for ${[ins.opcode, ...ins.modifiers].join('.')} at pc ${pc} (its foreign-instruction policy rejects it)`,
          }),
        );
        continue;
      }
      let op = opAt[pc]!;
      // BMOV Rd, Bx reads the mechanism's barrier register (seed 000 §V-E): a move of its value.
      if (op.kind === 'bmov-from-barrier' && mech.barrierValue && policyAt[pc] === 'native')
        op = {
          kind: 'mov',
          dst: op.dst,
          src: { kind: 'imm', value: mech.barrierValue(warp.mech, op.barrier) },
          guard: op.guard,
          pred2: null,
        };
      // Symbolic split (issue 16): when the lanes of an unknown branch fall into too many classes,
      // the issued lanes forget the values that tell them apart (an over-approximation).
      const forgot = symmetric ? forgetting(warp, op, issue.mask, classesNow) : null;
      const before = forgot ? forgot.data : warp.data;
      // `execute` reads the classes only to count the outcomes of a split on unknown predicates
      // (lanes/execute.ts): they are computed (a canonical sort of the warp) only for such a step.
      const counted =
        symmetric &&
        splitsOnUnknown(op) &&
        ((predUnknown(before, op.guard) | predUnknown(before, op.pred2)) & issue.mask) !== 0;
      // Dead writes (`deadWrites.ts`): every issued lane goes on to pc + 1 as the op would send
      // it, with its registers as they were; what the op would write is dead there.
      const executed = execute(
        ctx,
        skipDead !== null && skipDead[pc] === 1 && op === opAt[pc] ? SKIPPED : op,
        pc,
        w,
        before,
        mem,
        issue.mask,
        counted ? (forgot ? classesOf(forgot) : classesNow()) : null,
      );
      // Lane symmetry holds for this step unless lanes of different classes race (laneCanon.ts)
      // at memory that can reach control: when no load's result can (`Liveness.memoryRelevant`,
      // false only without atomics), the order of stores decides nothing — and their sources may
      // be dead writes' stale values (`deadWrites.ts`), which must not decide it either.
      let orderDependent = false;
      if (symmetric && memoryRelevant) {
        const ordered = orderedLanes(ctx, op, warp.data, issue.mask);
        if (ordered !== 0) orderDependent = !classesNow().some((c) => (ordered & ~c) === 0);
      }
      // The mechanism still sees a BMOV (.CLEAR, invalidation) with the lanes that ran it.
      const results =
        op !== opAt[pc] && opAt[pc]!.kind === 'bmov-from-barrier'
          ? executed.map((r) =>
              r.kind === 'step'
                ? {
                    ...r,
                    outcome: {
                      ...r.outcome,
                      event: {
                        kind: 'barrier' as const,
                        mask: (issue.mask & predTrue(warp.data, op.guard, full)) >>> 0,
                        value: null,
                      },
                    },
                  }
                : r,
            )
          : executed;
      const alternatives = results.length > 1;
      for (let j = 0; j < results.length; j++) {
        const r = results[j]!;
        if (r.kind === 'stop') {
          out.push(stopStep(issue, g, null, false, { verdict: r.verdict, message: r.message }));
          continue;
        }
        const unknownChoice = alternatives && r.choice !== null && r.choice.startsWith('unknown');
        // The own-bit rule again for lanes whose guard was unknown: the alternative fixed it
        // (`execute` resolves the predicate in `r.data`), and a lane it lets in may be unnamed.
        const ownBitHere = alternatives ? warpsyncOwnBitGap(ctx, op, pc, r.data, issue.mask) : null;
        if (ownBitHere !== null) {
          out.push(
            stopStep(issue, g, r.choice, unknownChoice, {
              verdict: 'undefined-behavior',
              message: ownBitHere,
            }),
          );
          continue;
        }
        const adv = mech.advance(warp.mech, issue, r.outcome, r.data.exited);
        let ref = warp.ref;
        if (refMech && ref && adv.kind === 'ok') {
          const gap = refinementGap(ref, issue, fmtPc);
          const valueGap =
            gap === null && op.kind === 'mov' && ops[pc]!.kind === 'bmov-from-barrier'
              ? barrierValueGap(
                  ref,
                  warp.mech,
                  ops[pc] as Extract<Op, { kind: 'bmov-from-barrier' }>,
                  r.data.exited,
                )
              : null;
          if (gap !== null || valueGap !== null) {
            out.push(
              stopStep(issue, g, r.choice, unknownChoice, {
                verdict: 'violation',
                property: 'refines-its',
                message: (gap ?? valueGap)!,
              }),
            );
            continue;
          }
          // The reference sees a foreign instruction as the mechanism treats it (SEMANTICS §6), and
          // lanes moved by the mechanism's own stack instructions where it moved them (token-stack).
          const moved = mech.refOutcome ? mech.refOutcome(adv.state, issue, r.outcome) : r.outcome;
          const seen = policyAt[pc] === 'native' ? moved : { ...moved, event: NO_EVENT };
          const radv = refMech.advance(ref, issue, seen, r.data.exited);
          if (radv.kind === 'stop') {
            out.push(
              stopStep(issue, g, r.choice, unknownChoice, {
                verdict: radv.verdict,
                message: `in the reference: ${radv.message}`,
              }),
            );
            continue;
          }
          ref = radv.state;
        }
        if (adv.kind === 'stop') {
          out.push(
            stopStep(
              issue,
              g,
              r.choice,
              unknownChoice,
              adv.property
                ? { verdict: adv.verdict, property: adv.property, message: adv.message }
                : { verdict: adv.verdict, message: adv.message },
            ),
          );
          continue;
        }
        let data = r.data;
        let loops = warp.loops;
        let widened = forgot !== null;
        if (widen && loops) {
          const unknownLanes =
            (predUnknown(warp.data, opAt[pc]!.guard) | predUnknown(warp.data, opAt[pc]!.pred2)) &
            issue.mask;
          const w = widen.step(
            loops,
            data,
            pc,
            issue.mask,
            // A branch on an unknown guard, or any choice among unknown outcomes (a uniform
            // comparison's stand-ins): the lanes' next turn may be widened (widening.ts).
            (unknownLanes !== 0 && results.length > 1) || unknownChoice,
            r.outcome,
          );
          data = w.data;
          loops = w.visits;
          widened ||= w.widened;
        }
        // Lanes that forgot their number read their ids as unknown (symbolic splits).
        const anonymous = forgot ? forgot.anonymous : warp.anonymous;
        if (anonymous && op.kind === 's2r' && idRead(pc)) {
          const slot = ctx.layout.slot[op.dst] ?? -1;
          const hit = (anonymous & issue.mask) >>> 0;
          if (slot >= 0 && hit !== 0) {
            const col = data.regs[slot]!.slice();
            for (let m = hit; m !== 0; m &= m - 1) col[31 - Math.clz32(m & -m)] = UNKNOWN;
            data = { ...data, regs: withColumn(data.regs, slot, col) };
          }
        }
        out.push(
          warpStep(
            issue,
            g,
            r.choice,
            unknownChoice,
            orderDependent,
            widened,
            warpState(adv.state, data, ref, loops, anonymous),
            r.memory,
          ),
        );
      }
    }
  };
}

/** A step to a successor, with `orderDependent` and `widened` only when true (as `warpState`). */
function warpStep(
  issue: Issue,
  group: number,
  choice: string | null,
  unknownChoice: boolean,
  orderDependent: boolean,
  widened: boolean,
  warp: WarpState,
  memory: Memory,
): WarpStep {
  if (!orderDependent && !widened)
    return { issue, group, choice, unknownChoice, warp, memory, stop: null };
  return {
    issue,
    group,
    choice,
    unknownChoice,
    ...(orderDependent ? { orderDependent } : {}),
    ...(widened ? { widened } : {}),
    warp,
    memory,
    stop: null,
  };
}
