import type { Machine, MachineState, Transition } from '../../model/machine/machine.ts';
import type { HanoiState } from '../../model/mechanisms/hanoi.ts';
import { AT_WARPSYNC, READY, type ItsState } from '../../model/mechanisms/its.ts';
import { predTrue } from '../../model/lanes/execute.ts';
import { build, walk, walkOutcome } from './machine.ts';
import type { Law, LawOutcome } from './types.ts';

/**
 * its: no lane of a WARPSYNC mask passes before every non-exited lane of it arrives; ready lanes at
 * one PC are one candidate (released lanes issue their next instruction together).
 */
function itsProblem(
  m: Machine,
  pre: MachineState,
  t: Transition,
  post: MachineState,
): string | null {
  const a = pre.warps[t.warp]!.mech as ItsState;
  const b = post.warps[t.warp]!.mech as ItsState;
  const exited = post.warps[t.warp]!.data.exited;
  const arriving = m.ops[t.issue.pc]!.kind === 'warpsync' ? t.issue.mask : 0;
  for (let l = 0; l < a.pcs.length; l++) {
    if (a.wait[l] !== AT_WARPSYNC || b.wait[l] !== READY) continue;
    const mask = a.named[l]!;
    for (let k = 0; k < a.pcs.length; k++) {
      if (!((mask >>> k) & 1) || (exited >>> k) & 1) continue;
      const there =
        (a.wait[k] === AT_WARPSYNC && a.named[k] === mask) || ((arriving >>> k) & 1) === 1;
      if (!there)
        return `lane ${l} passed the WARPSYNC ${m.fmt.mask(mask)} before lane ${k} arrived`;
    }
  }
  // Lanes that arrive and pass in the same step: the rest of their (immediate) mask was there.
  const op = m.ops[t.issue.pc]!;
  if (op.kind === 'warpsync' && op.mask?.kind === 'imm') {
    const mask = (op.mask.value & m.ctx.full) >>> 0;
    // Lanes whose guard is false do not take part (SEMANTICS §2): they just go on.
    const part = (arriving & predTrue(pre.warps[t.warp]!.data, op.guard, m.ctx.full)) >>> 0;
    for (let l = 0; l < a.pcs.length; l++) {
      if (!((part >>> l) & 1) || b.wait[l] !== READY || b.pcs[l] !== t.issue.pc + 1) continue;
      for (let k = 0; k < a.pcs.length; k++) {
        if (!((mask >>> k) & 1) || (exited >>> k) & 1) continue;
        // Masks as written may name lanes beyond the warp (0xffffffff): compare within it.
        const there =
          (a.wait[k] === AT_WARPSYNC && (a.named[k]! & m.ctx.full) >>> 0 === mask) ||
          ((arriving >>> k) & 1) === 1;
        if (!there)
          return `lane ${l} went through the WARPSYNC ${m.fmt.mask(mask)} while lane ${k} was elsewhere`;
      }
    }
  }
  const pcs = m.mechanism.candidates(b).map((g) => g.pc);
  if (new Set(pcs).size !== pcs.length)
    return 'ready lanes at one PC are split into two candidates';
  return null;
}

/** hanoi: a WARPSYNC REC entry reconverges with every named lane that has not finished (§VII-B). */
function hanoiProblem(
  m: Machine,
  pre: MachineState,
  t: Transition,
  post: MachineState,
): string | null {
  const a = pre.warps[t.warp]!.mech as HanoiState;
  const b = post.warps[t.warp]!.mech as HanoiState;
  const op = m.ops[t.issue.pc]!;
  if (op.kind === 'bssy' || op.kind === 'warpsync' || b.rec.length >= a.rec.length) return null;
  for (let i = b.rec.length; i < a.rec.length; i++) {
    const e = a.rec[i]!;
    if (e.kind !== 'warpsync') continue;
    const named = (e.named & ((1 << m.launch.warpSize) - 1) & ~b.finished) >>> 0;
    if (named !== 0 && !b.ws.some((w) => w.pc === e.pc && w.mask === named))
      return `the WARPSYNC ${m.fmt.mask(e.named)} released without every named live lane (${m.fmt.mask(named)}) at ${m.fmt.pc(e.pc)}`;
  }
  return null;
}

/**
 * P4 WARPSYNC (issue 4; SEMANTICS §2, §3.1, §3.4; seed 000 §V-D, §VII-B): no lane of a WARPSYNC's
 * mask goes past it before every non-exited named lane has arrived, and the released lanes go on
 * together.
 */
export const warpsync: Law = {
  id: 'warpsync',
  tag: 'P4',
  description:
    'no lane passes a WARPSYNC before every non-exited named lane arrives; released lanes issue together (SEMANTICS §2, §3.1, §3.4; seed 000 §V-D, §VII-B)',
  sources: () => ['turing', 'compiled'],
  appliesTo: (m) => m === 'its' || m === 'hanoi',
  check(kernel, mechanism, o): LawOutcome {
    const { machine: m } = build(kernel, mechanism, o.options);
    const bad = walk(m, 3000, ({ pre, t, post }) =>
      mechanism === 'its' ? itsProblem(m, pre, t, post) : hanoiProblem(m, pre, t, post),
    );
    return walkOutcome(m, bad);
  },
};
