import { readReg } from '../../model/lanes/laneData.ts';
import { predTrue } from '../../model/lanes/execute.ts';
import type { Machine, MachineState, Transition } from '../../model/machine/machine.ts';
import type { HanoiState } from '../../model/mechanisms/hanoi.ts';
import type { ItsState } from '../../model/mechanisms/its.ts';
import { build, lanesOf, walk, walkOutcome } from './machine.ts';
import type { Law, LawOutcome } from './types.ts';

const bRegs = (s: unknown, mech: string): readonly number[] =>
  mech === 'hanoi' ? (s as HanoiState).b : (s as ItsState).b;

/**
 * BREAK Bx takes the lanes that run it (guard true) out of Bx (seed 000 §V-C; SEMANTICS §2);
 * BMOV B→R copies Bx into every issuing lane's register, R→B writes it back minus finished lanes
 * and validates it (seed 000 §V-E, §VII-A); a REC entry whose register is invalid never
 * reconverges (seed 000 §VII-B).
 */
function problem(
  m: Machine,
  mech: string,
  pre: MachineState,
  t: Transition,
  post: MachineState,
): string | null {
  const op = m.ops[t.issue.pc]!;
  const wa = pre.warps[t.warp]!;
  const wb = post.warps[t.warp]!;
  const full = m.ctx.full;
  const running = (t.issue.mask & predTrue(wa.data, op.guard, full)) >>> 0;
  if (op.kind === 'break') {
    const left = (bRegs(wb.mech, mech)[op.barrier]! & running) >>> 0;
    if (left) return `BREAK B${op.barrier} left lanes ${m.fmt.mask(left)} in B${op.barrier}`;
  }
  if (mech !== 'hanoi') return null;
  const a = wa.mech as HanoiState;
  const b = wb.mech as HanoiState;
  if (op.kind === 'bmov-from-barrier')
    for (const l of lanesOf(running)) {
      const got = readReg(wb.data, m.ctx.layout, l, op.dst);
      if (got !== a.b[op.barrier])
        return `BMOV R${op.dst}, B${op.barrier}: lane ${l} got ${got}, B${op.barrier} held ${a.b[op.barrier]}`;
    }
  if (op.kind === 'bmov-to-barrier' && op.src.kind === 'reg' && running) {
    const value = readReg(wa.data, m.ctx.layout, lanesOf(running)[0]!, op.src.index);
    const expect = (value & full & ~b.finished) >>> 0;
    if (b.b[op.barrier] !== expect)
      return `BMOV B${op.barrier}, R${op.src.index}: B${op.barrier} = ${m.fmt.mask(b.b[op.barrier]!)}, expected ${m.fmt.mask(expect)} (the value minus finished lanes)`;
    if (!((b.valid >>> op.barrier) & 1))
      return `BMOV B${op.barrier}, R${op.src.index} left B${op.barrier} invalid`;
  }
  // REC entries of `a` gone from `b` (other than by the op itself) reconverged in this step; the
  // register each named was valid before it, or made valid by the op (BMOV R→B, BSSY).
  for (let i = 0; i < a.rec.length; i++) {
    const e = a.rec[i]!;
    const kept = b.rec[i];
    if (kept && kept.pc === e.pc && kept.reg === e.reg && kept.kind === e.kind) continue;
    const madeValid = (op.kind === 'bmov-to-barrier' || op.kind === 'bssy') && op.barrier === e.reg;
    if (!((a.valid >>> e.reg) & 1) && !madeValid)
      return `the REC entry of B${e.reg} reconverged while B${e.reg} was invalid`;
  }
  return null;
}

/** P5 BREAK/BMOV (issue 4; seed 000 §V-C, §V-E, §VII-A/B; SEMANTICS §2, §3.4). */
export const breakBmov: Law = {
  id: 'break-bmov',
  tag: 'P5',
  description:
    'BREAK takes its running lanes out of Bx; BMOV B→R copies Bx, R→B writes it back minus finished lanes and validates it; an invalid register never reconverges (seed 000 §V-C, §V-E, §VII-A/B)',
  // The reference races on Fig. 5's register reuse under arbitrary interleaving (docs/findings.md).
  sources: (m) => (m === 'hanoi' ? ['turing-spill', 'compiled'] : ['turing']),
  appliesTo: (m) => m === 'its' || m === 'hanoi',
  check(kernel, mechanism, o): LawOutcome {
    const { machine: m } = build(kernel, mechanism, o.options);
    const bad = walk(m, 4000, ({ pre, t, post }) => problem(m, mechanism, pre, t, post));
    return walkOutcome(m, bad);
  },
};
