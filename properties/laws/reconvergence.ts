import type { Machine, MachineState, Transition } from '../../model/machine/machine.ts';
import type { HanoiState } from '../../model/mechanisms/hanoi.ts';
import { READY, type ItsState } from '../../model/mechanisms/its.ts';
import { findMechanism } from '../../model/mechanisms/registry.ts';
import { build, lanesOf, walk, walkOutcome } from './machine.ts';
import type { Law, LawOutcome } from './types.ts';

/**
 * Mechanisms that promise to reconverge at the immediate post-dominator (seed 000 §II; seed 002
 * §2.3, §3.10; seed 004; SEMANTICS §3.2, §3.6, §3.7). Others (its, path lists, hanoi on plain code)
 * make no such promise; Turing code's promise is the BSYNC one below.
 */
const IPDOM_MECHANISMS = new Set(['simt-stack', 'mp-ipdom', 'dual-path']);
/** Mechanisms with B registers whose BSYNC release the law reads off the state. */
const BSYNC_MECHANISMS = new Set(['its', 'hanoi']);

const CONTROL = new Set(['bra', 'brx', 'ret', 'call']);
const RUNS = 4;
const STEPS = 400;

/**
 * IPDOM part, along a few deterministic runs (single-warp kernels: the SIMT stack has one choice at
 * most per state): after a divergent branch at b (its lanes go to two or more PCs in the reference
 * shadow) with IPDOM p, the first issue at p by any of those lanes runs every one of them that is
 * still alive.
 */
function ipdomProblem(
  m: Machine,
  ipdom: (pc: number) => number,
): { message: string; schedule: number[] } | null {
  for (let r = 0; r < RUNS; r++) {
    let s = m.initial();
    const schedule: number[] = [];
    // Per record the call depth of the branch: a recursive activation reaching the same IPDOM PC
    // is another activation's point (seed 002 §2.3: reconvergence is per function activation).
    let pending: { w: number; b: number; p: number; depth: number; mask: number }[] = [];
    for (let i = 0; i < STEPS; i++) {
      const succ = m.successors(s);
      if (succ.length === 0) break;
      const c = (i * 7 + r * 3) % succ.length;
      const t = succ[c]!;
      schedule.push(c);
      if (!t.next) break;
      const live = m.live(s)[t.warp]!;
      const issued = t.issue.mask;
      const calls = s.warps[t.warp]!.data.calls;
      const depth = calls[lanesOf(issued)[0] ?? 0]?.length ?? 0;
      const next: typeof pending = [];
      for (const rec of pending) {
        if (rec.w === t.warp && t.issue.pc === rec.p && rec.depth === depth && rec.mask & issued) {
          const missing = (rec.mask & live & ~issued) >>> 0;
          if (missing)
            return {
              message: `lanes ${m.fmt.mask(rec.mask)} diverged at ${m.fmt.pc(rec.b)}; the first issue at its IPDOM ${m.fmt.pc(rec.p)} runs ${m.fmt.mask(issued)}, without live lanes ${m.fmt.mask(missing)}`,
              schedule,
            };
          continue;
        }
        next.push(rec);
      }
      pending = next;
      const op = m.ops[t.issue.pc]!;
      const ref = t.next.warps[t.warp]!.ref;
      if (CONTROL.has(op.kind) && ref) {
        const after = new Set(
          lanesOf(issued).flatMap((l) => (ref.pcs[l]! >= 0 ? [ref.pcs[l]!] : [])),
        );
        const p = ipdom(t.issue.pc);
        const alive = (issued & m.live(t.next)[t.warp]!) >>> 0;
        if (after.size > 1 && p >= 0)
          pending.push({ w: t.warp, b: t.issue.pc, p, depth, mask: alive });
      }
      s = t.next;
    }
  }
  return null;
}

/** its: lanes released from BSYNC x in this step (waiting before, or arriving now, and ready after). */
function itsRelease(
  m: Machine,
  pre: MachineState,
  t: Transition,
  post: MachineState,
): string | null {
  const a = pre.warps[t.warp]!.mech as ItsState;
  const b = post.warps[t.warp]!.mech as ItsState;
  const exited = post.warps[t.warp]!.data.exited;
  const op = m.ops[t.issue.pc]!;
  for (let x = 0; x < 16; x++) {
    let released = 0;
    for (let l = 0; l < a.pcs.length; l++) {
      const waited = a.wait[l] === x;
      const arrived =
        op.kind === 'bsync' &&
        op.barrier === x &&
        (t.issue.mask >>> l) & 1 &&
        ((a.b[x]! >>> l) & 1) === 1;
      if ((waited || arrived) && b.wait[l] === READY) released |= 1 << l;
    }
    if (!released) continue;
    const members = (b.b[x]! & ~exited) >>> 0;
    if (members !== 0 && released >>> 0 !== members)
      return `BSYNC B${x} released ${m.fmt.mask(released >>> 0)}, but B${x} minus exited lanes is ${m.fmt.mask(members)}`;
  }
  return null;
}

/** hanoi: a BSSY REC entry that reconverges pushes B[x] minus finished lanes at its PC (seed 000 §VII-B). */
function hanoiRelease(
  m: Machine,
  pre: MachineState,
  t: Transition,
  post: MachineState,
): string | null {
  const a = pre.warps[t.warp]!.mech as HanoiState;
  const b = post.warps[t.warp]!.mech as HanoiState;
  const op = m.ops[t.issue.pc]!;
  if (op.kind === 'bssy' || op.kind === 'warpsync') return null; // pushes, not a pure release
  if (b.rec.length >= a.rec.length) return null;
  for (let i = b.rec.length; i < a.rec.length; i++) {
    const e = a.rec[i]!;
    if (e.kind !== 'bssy') continue;
    const expect = (b.b[e.reg]! & ~b.finished) >>> 0;
    if (expect === 0) continue;
    if (!b.ws.some((w) => w.pc === e.pc && w.mask === expect))
      return `the REC entry of B${e.reg} reconverged without pushing B${e.reg} minus finished lanes (${m.fmt.mask(expect)}) at ${m.fmt.pc(e.pc)}`;
  }
  return null;
}

/**
 * P3 reconvergence (issue 4): mechanisms that promise IPDOM reconvergence run the first instruction
 * at the IPDOM with every lane that diverged there and is still alive (seed 000 §II; seed 002
 * §2.3); on Turing code, a BSYNC releases exactly its register's mask minus exited lanes (seed 000
 * §V-B, §VII-B; SEMANTICS §2, §3.1, §3.4).
 */
export const reconvergence: Law = {
  id: 'reconvergence',
  tag: 'P3',
  description:
    'IPDOM mechanisms run the first instruction at the IPDOM with every live lane that diverged (seed 000 §II, seed 002 §2.3); a BSYNC releases exactly Bx minus exited lanes on Turing code (seed 000 §V-B, §VII-B; SEMANTICS §2)',
  sources: (m) =>
    BSYNC_MECHANISMS.has(m) ? ['turing', 'compiled'] : ['structured-det', 'unstructured'],
  appliesTo: (m) => IPDOM_MECHANISMS.has(m) || BSYNC_MECHANISMS.has(m),
  check(kernel, mechanism, o): LawOutcome {
    const { machine: m, loaded } = build(kernel, mechanism, o.options);
    const bad = BSYNC_MECHANISMS.has(mechanism)
      ? walk(m, 3000, ({ pre, t, post }) =>
          mechanism === 'its' ? itsRelease(m, pre, t, post) : hanoiRelease(m, pre, t, post),
        )
      : ipdomProblem(m, (pc) => loaded.ipdom(pc));
    return walkOutcome(m, bad);
  },
};

/** For the CLI's help: whether a registered mechanism is one P3 reads as an IPDOM mechanism. */
export const promisesIpdom = (id: string) => IPDOM_MECHANISMS.has(id) && !!findMechanism(id);
