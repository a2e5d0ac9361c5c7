import type { Outcome } from '../lanes/execute.ts';
import type { KeySink } from '../machine/key.ts';
import {
  VIRTUAL_EXIT,
  type Advance,
  type Formatter,
  type Issue,
  type Mechanism,
  type MechanismContext,
  type MechanismFactory,
  type StateView,
} from './mechanism.ts';
import {
  PRE_VOLTA_OPTIONS,
  preVoltaOptions,
  preVoltaPolicy,
  warpsyncStop,
  type PreVoltaPolicy,
} from './preVolta.ts';

/**
 * `dual-path` — Dual Path Execution (seed 002 §3.10; SEMANTICS §3.7): a SIMT stack whose entries
 * hold up to two paths, "so that both entries of a divergent branch are at the top of the stack"
 * and the scheduler can interleave them. Reconvergence at the IPDOM as on `simt-stack` (§3.2).
 *
 * An entry is (rpc, paths, frame). A path that diverges at a branch with IPDOM p moves (with all its
 * lanes) to p in its own entry, and a new entry with rpc = p is pushed holding the paths that are
 * not already at p; with more than two targets (BRX) several entries of at most two paths are
 * pushed, the lowest PCs on top. Both paths of the top entry are candidates, except one that waits
 * at the entry's rpc; when every path of the top (non-frame) entry waits at its rpc the entry is
 * popped and the entry below continues. Paths of one entry are never merged (DPE reconverges only
 * at the IPDOM) — our reading; the thesis does not say. CALL/RET as on `simt-stack`: a frame entry
 * (rpc = the return PC, for the RET check) whose lanes leave it at RET.
 *
 * Invariants after every step: no empty path or entry, no exited lane anywhere; the two paths of an
 * entry are disjoint and sorted by (pc, mask); every live lane is in exactly one path of the topmost
 * entry that holds it (lower entries hold it too, waiting at their reconvergence point).
 */
export interface Path {
  readonly pc: number;
  readonly mask: number;
}

export interface DualEntry {
  /** Reconvergence PC; for a frame, the CALL's return PC (the only PC its lanes may RET to). */
  readonly rpc: number;
  /** One or two paths, sorted by (pc, mask). */
  readonly paths: readonly Path[];
  readonly frame: boolean;
}

export type DualPathState = readonly DualEntry[];

const byPath = (a: Path, b: Path) => a.pc - b.pc || a.mask - b.mask;

/** A path may issue: it does not wait at its (non-frame) entry's reconvergence point. */
const runs = (e: DualEntry, p: Path) => p.pc !== VIRTUAL_EXIT && (e.frame || p.pc !== e.rpc);

/** Removes `lanes` from every path; drops empty paths and entries. */
function without(s: readonly DualEntry[], lanes: number): DualEntry[] {
  if (lanes === 0) return s.slice();
  const out: DualEntry[] = [];
  for (const e of s) {
    const paths: Path[] = [];
    for (const p of e.paths) {
      const mask = (p.mask & ~lanes) >>> 0;
      if (mask !== 0) paths.push(mask === p.mask ? p : { pc: p.pc, mask });
    }
    if (paths.length > 0) out.push({ ...e, paths });
  }
  return out;
}

/** Pops top entries whose every path waits at the reconvergence point (seed 002 §2.3 "pop"). */
function settle(s: DualEntry[]): DualEntry[] {
  while (s.length > 0) {
    const top = s[s.length - 1]!;
    if (!top.frame && top.paths.every((p) => p.pc === top.rpc)) s.pop();
    else break;
  }
  return s;
}

/** The top entry with path `i` replaced by `p` (or removed when `p` is null), paths re-sorted. */
function replacePath(e: DualEntry, i: number, p: Path | null): DualEntry {
  const paths = e.paths.filter((_, k) => k !== i);
  if (p) paths.push(p);
  return { ...e, paths: paths.sort(byPath) };
}

export function createDualPath(
  ctx: MechanismContext,
  opts: PreVoltaPolicy,
): Mechanism<DualPathState> {
  return {
    id: 'dual-path',
    // Both paths of the top entry are schedulable; weak fairness between them is weak fairness per
    // lane (a lane is in one path, and issues exactly when that path does).
    laneFairness: true,
    policy: (op) => preVoltaPolicy(op, opts),
    init: () => [{ rpc: VIRTUAL_EXIT, paths: [{ pc: ctx.entry, mask: ctx.full }], frame: false }],
    candidates(s) {
      const top = s[s.length - 1];
      if (!top) return [];
      const out: Issue[] = [];
      for (const p of top.paths) if (runs(top, p)) out.push({ pc: p.pc, mask: p.mask });
      return out;
    },
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<DualPathState> {
      const ev = outcome.event;
      const bad = warpsyncStop(ev, issue, exited, ctx.full, 'a dual-path stack');
      if (bad) return bad;
      const topAt = s.length - 1;
      const i = s[topAt]!.paths.findIndex((p) => p.pc === issue.pc && p.mask === issue.mask);
      if (i < 0) throw new Error(`dual-path: issue ${issue.pc}/${issue.mask} is no top path`);
      const gone = (outcome.exited | exited) >>> 0;
      const groups = outcome.groups;
      const st = s.slice();
      const top = st[topAt]!;
      if (ev.kind === 'call') {
        // The caller path waits at the return PC with all its lanes; the callers run in a frame.
        const callee = groups.find((g) => g.pc !== ev.returnPc) ?? { pc: ev.returnPc };
        const mask = top.paths[i]!.mask;
        st[topAt] = replacePath(top, i, { pc: ev.returnPc, mask });
        if (ev.mask !== 0)
          st.push({ rpc: ev.returnPc, paths: [{ pc: callee.pc, mask: ev.mask }], frame: true });
        return { kind: 'ok', state: settle(without(st, gone)) };
      }
      if (ev.kind === 'ret') {
        let f = st.length - 1;
        while (f >= 0 && !st[f]!.frame) f--;
        if (f >= 0) {
          const back = st[f]!.rpc;
          const wrong = groups.find((g) => (g.mask & ev.mask) !== 0 && g.pc !== back);
          if (wrong)
            return {
              kind: 'stop',
              verdict: 'unsupported',
              message: `RET at ${issue.pc} returns lanes to pc ${wrong.pc}, not to their CALL's return point ${back}: the dual-path stack cannot follow it`,
            };
          // Returning lanes leave the frame and every entry above it; the rest go on at pc + 1.
          const rest = (top.paths[i]!.mask & ~ev.mask & ~gone) >>> 0;
          if (rest !== 0) st[topAt] = replacePath(top, i, { pc: issue.pc + 1, mask: rest });
          const out = [...st.slice(0, f), ...without(st.slice(f), ev.mask)];
          return { kind: 'ok', state: settle(without(out, gone)) };
        }
        // A RET with no frame (a kernel-level jump through a register): an ordinary branch.
      }
      if (groups.length <= 1) {
        st[topAt] = replacePath(top, i, groups.length === 1 ? groups[0]! : null);
        return { kind: 'ok', state: settle(without(st, gone)) };
      }
      // Divergence: the path moves to the IPDOM with all its lanes (it waits there, in its entry);
      // the targets not already at the IPDOM are pushed, two paths per entry.
      const ipd = ctx.ipdom(issue.pc);
      const all = groups.reduce((m, g) => m | g.mask, 0) >>> 0;
      st[topAt] = replacePath(top, i, { pc: ipd, mask: all });
      const rest = groups.filter((g) => g.pc !== ipd).map((g) => ({ pc: g.pc, mask: g.mask }));
      rest.sort(byPath);
      const chunks: Path[][] = [];
      for (let k = 0; k < rest.length; k += 2) chunks.push(rest.slice(k, k + 2));
      for (let k = chunks.length - 1; k >= 0; k--)
        st.push({ rpc: ipd, paths: chunks[k]!, frame: false });
      return { kind: 'ok', state: settle(without(st, gone)) };
    },
    ready(s) {
      const top = s[s.length - 1];
      let m = 0;
      if (top) for (const p of top.paths) if (runs(top, p)) m |= p.mask;
      return m >>> 0;
    },
    key(s, out: KeySink) {
      out.push(s.length);
      for (const e of s) {
        out.push(e.frame ? -2 - e.rpc : e.rpc);
        out.push(e.paths.length);
        for (const p of e.paths) {
          out.push(p.pc);
          out.mask(p.mask);
        }
      }
    },
    lanePcs(s, visit) {
      // Every path's lanes resume at its PC: the top's run, lower paths wait at their IPDOM or at a
      // CALL's return PC.
      for (const e of s) for (const p of e.paths) visit(p.pc, p.mask);
    },
    view: (s, fmt) => viewDualPath(s, fmt),
  };
}

/** The stack, top first, one row per entry with its two paths (DPE's PC/mask pairs and the RPC). */
export function viewDualPath(s: DualPathState, fmt: Formatter): StateView {
  const pc = (p: number) => (p === VIRTUAL_EXIT ? '-' : fmt.pc(p));
  const top = [...s].reverse();
  return {
    tables: [
      {
        title: 'Dual-path SIMT stack (top first)',
        columns: ['RPC', 'PC 1', 'Mask 1', 'PC 2', 'Mask 2'],
        rows: top.map((e) => [
          e.frame ? `call → ${pc(e.rpc)}` : pc(e.rpc),
          pc(e.paths[0]!.pc),
          fmt.mask(e.paths[0]!.mask),
          e.paths[1] ? pc(e.paths[1].pc) : '',
          e.paths[1] ? fmt.mask(e.paths[1].mask) : '',
        ]),
      },
    ],
    data: {
      stack: top.map((e) => ({
        rpc: e.frame ? 'call' : e.rpc === VIRTUAL_EXIT ? null : fmt.pc(e.rpc),
        paths: e.paths.map((p) => ({ pc: pc(p.pc), mask: fmt.mask(p.mask) })),
      })),
    },
  };
}

export const dualPathFactory: MechanismFactory = {
  id: 'dual-path',
  summary:
    'Dual Path Execution: a SIMT stack whose top entry holds both paths of a branch, interleaved (under fairness), reconverging at the IPDOM',
  source: 'seed 002 §3.10; SEMANTICS §3.7',
  options: PRE_VOLTA_OPTIONS,
  create: (ctx, o) => createDualPath(ctx, preVoltaOptions(o)) as Mechanism<unknown>,
};
