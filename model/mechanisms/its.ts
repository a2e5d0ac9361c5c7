import type { Op } from '../isa/op.ts';
import type { Outcome } from '../lanes/execute.ts';
import type { KeySink } from '../machine/key.ts';
import type {
  Advance,
  Formatter,
  Mechanism,
  MechanismContext,
  MechanismFactory,
  Policy,
  StateView,
} from './mechanism.ts';
import { BSSY_OPTION } from './mechanism.ts';

/**
 * `its` — independent thread scheduling, the per-thread reference (SEMANTICS §3.1, seed 000 §IV):
 * every lane has its own PC; any lanes at one PC may run together; lanes wait only at BSYNC and
 * WARPSYNC (seed 000 §V-E/F).
 *
 * State per lane: `pcs[l]` (-1 once exited) and `wait[l]`: READY, a barrier register x (waiting
 * at a BSYNC on Bx), or WARPSYNC (waiting with the mask `named[l]`); and the warp's B registers.
 * Invariants: a lane has a PC exactly when it has not exited; a waiting lane's PC is the BSYNC or
 * WARPSYNC it waits at; `named[l]` is 0 unless the lane waits at a WARPSYNC.
 */
export interface ItsState {
  readonly pcs: readonly number[];
  readonly wait: readonly number[];
  readonly named: readonly number[];
  readonly b: readonly number[];
}

export const READY = -1;
export const AT_WARPSYNC = 64;
const B_REGISTERS = 16;

export type ItsGrouping = 'maximal' | 'single';

export interface ItsOptions {
  readonly grouping: ItsGrouping;
  /** BSSY assigns Bx (default, SEMANTICS §2) or ORs the active mask into it. */
  readonly bssy: 'assign' | 'or';
  /** WARPSYNC naming an exited lane: accepted (default) or undefined behaviour (strict). */
  readonly warpsyncExited: 'accept' | 'strict';
  /** How barrier instructions are treated: natively (default), or as the compared mechanism does. */
  readonly barriers: 'native' | 'nop' | 'reject';
}

const lowest = (m: number) => 31 - Math.clz32(m & -m);

/** `release`'s scratch: lanes waiting on each B register (as 32-bit words). */
const WAITING_ON = new Int32Array(B_REGISTERS);

/** Releases every barrier and WARPSYNC whose condition holds (SEMANTICS §3.1), repeatedly. */
function release(
  pcs: number[],
  wait: number[],
  named: number[],
  b: readonly number[],
  exited: number,
): string | null {
  // The lanes waiting on each barrier register, and whether any waits at a WARPSYNC: one pass
  // over the lanes per round (a pass per register cost ~9 % of an `its` search at W = 32).
  const waitingOn = WAITING_ON;
  for (let changed = true; changed;) {
    changed = false;
    waitingOn.fill(0);
    let atWarpsync = false;
    for (let l = 0; l < wait.length; l++) {
      const x = wait[l]!;
      if (x >= 0 && x < B_REGISTERS) waitingOn[x] = waitingOn[x]! | (1 << l);
      else if (x === AT_WARPSYNC) atWarpsync = true;
    }
    // BSYNC Bx: every non-exited lane of Bx waits at a BSYNC on x → all waiting on x go on.
    for (let x = 0; x < B_REGISTERS; x++) {
      const waiting = waitingOn[x]!;
      if (waiting === 0) continue;
      const members = (b[x]! & ~exited) >>> 0;
      if ((members & ~waiting) >>> 0 !== 0) continue;
      // SEMANTICS §2 (settled, issue 14): the release wakes every lane waiting at a BSYNC on x,
      // also one that a later BSSY dropped from Bx while it waited — the condition belongs to the
      // register, the waiters are whoever waits on it (a waiter left asleep would turn correct
      // re-arming code into a false deadlock). An emptied Bx waits for no one.
      for (let m = waiting; m !== 0; m &= m - 1) {
        const l = lowest(m);
        wait[l] = READY;
        pcs[l] = pcs[l]! + 1;
      }
      changed = true;
    }
    // WARPSYNC m: every non-exited lane named in m waits at a WARPSYNC with the same m. (The
    // releases above only wake lanes, so no lane started waiting at a WARPSYNC since the pass.)
    for (let l = 0; atWarpsync && l < wait.length; l++) {
      if (wait[l] !== AT_WARPSYNC) continue;
      const m = named[l]!;
      let ok = true;
      for (let k = 0; k < wait.length; k++) {
        if (!((m >>> k) & 1) || (exited >>> k) & 1) continue;
        if (wait[k] !== AT_WARPSYNC) {
          ok = false;
          continue;
        }
        if (named[k] !== m) {
          // Two lanes that name each other, waiting with different masks (SEMANTICS §2).
          if ((named[k]! >>> l) & 1)
            return `lanes ${l} and ${k} wait at WARPSYNC naming each other with different masks`;
          ok = false;
        }
      }
      if (!ok) continue;
      for (let k = 0; k < wait.length; k++)
        if ((m >>> k) & 1 && wait[k] === AT_WARPSYNC && named[k] === m) {
          wait[k] = READY;
          named[k] = 0;
          pcs[k] = pcs[k]! + 1;
        }
      changed = true;
    }
  }
  return null;
}

/**
 * `next` (a working copy of `prev`), or `prev` itself when no element changed: a stored state
 * then shares the array with its predecessor instead of keeping a copy (issue 16: memory per
 * state at W = 32).
 */
function kept(next: readonly number[], prev: readonly number[]): readonly number[] {
  for (let i = 0; i < next.length; i++) if (next[i] !== prev[i]) return next;
  return prev;
}

/** `its`'s `lanePcs` and `fairPlaces`: each live lane at its PC. */
function itsLanePcs(s: ItsState, visit: (pc: number, mask: number) => void): void {
  // A waiting lane resumes at the instruction after its BSYNC/WARPSYNC, a static successor.
  const pcs = s.pcs;
  for (let l = 0; l < pcs.length; l++) if (pcs[l]! >= 0) visit(pcs[l]!, 1 << l);
}

export function createIts(ctx: MechanismContext, o: ItsOptions): Mechanism<ItsState> {
  const w = ctx.warpSize;
  const barrier = (op: Op) =>
    op.kind === 'bssy' ||
    op.kind === 'bsync' ||
    op.kind === 'break' ||
    op.kind === 'bmov-from-barrier' ||
    op.kind === 'bmov-to-barrier' ||
    op.kind === 'warpsync';
  const stop = (
    verdict: 'undefined-behavior' | 'unsupported' | 'resource-exhausted',
    message: string,
  ): Advance<ItsState> => ({ kind: 'stop', verdict, message });
  return {
    id: 'its',
    laneFairness: true,
    // Lane symmetry (issue 16): groups are by PC, ordered by PC. With maximal groups every issue
    // at a PC takes every ready lane there and a ready lane leaves its PC only by issuing, so
    // lane fairness is fairness per PC: the place is the PC (`fairPlaces`, mechanism.ts).
    // Single-lane issues are fair per lane, which renumbering does not keep: fairness per PC
    // then over-approximates it (a lane fair cycle is fair per PC, not conversely), so a cycle
    // found fair per PC is confirmed without lane symmetry (`coarsePlaces`).
    laneSymmetric: true,
    fairPlaces: itsLanePcs,
    ...(o.grouping === 'single' ? { coarsePlaces: true } : {}),
    // One lane per issue: a data step or plain BRA moves only that lane (`advance` above).
    threadIssues: o.grouping === 'single',
    policy(op: Op): Policy {
      if (op.kind === 'stack-op') return 'reject';
      if (barrier(op)) return o.barriers;
      return 'native';
    },
    init: () => ({
      pcs: new Array<number>(w).fill(ctx.entry),
      wait: new Array<number>(w).fill(READY),
      named: new Array<number>(w).fill(0),
      b: new Array<number>(B_REGISTERS).fill(0),
    }),
    candidates(s) {
      // SEMANTICS §3.1 (a decision): issue all ready lanes at one PC together (maximal groups);
      // `single` issues one lane at a time. Ordered by PC, then lane, so choices are stable.
      const out: { pc: number; mask: number }[] = [];
      const pcs = s.pcs;
      const wait = s.wait;
      if (o.grouping === 'single') {
        for (let l = 0; l < pcs.length; l++)
          if (pcs[l]! >= 0 && wait[l] === READY) out.push({ pc: pcs[l]!, mask: (1 << l) >>> 0 });
        return out.sort((a, b) => a.pc - b.pc);
      }
      // The explorer's innermost loop: group lanes by PC without a Map, then insertion-sort the
      // (few) groups by PC.
      for (let l = 0; l < pcs.length; l++) {
        const pc = pcs[l]!;
        if (pc < 0 || wait[l] !== READY) continue;
        let i = 0;
        while (i < out.length && out[i]!.pc !== pc) i++;
        if (i < out.length) out[i]!.mask = (out[i]!.mask | (1 << l)) >>> 0;
        else {
          out.push({ pc, mask: (1 << l) >>> 0 });
          for (let j = out.length - 1; j > 0 && out[j - 1]!.pc > pc; j--) {
            const t = out[j]!;
            out[j] = out[j - 1]!;
            out[j - 1] = t;
          }
        }
      }
      return out;
    },
    barrierValue: (s, x) => s.b[x] ?? 0,
    advance(s, issue, outcome: Outcome, exited: number): Advance<ItsState> {
      const pcs = s.pcs.slice();
      const groups = outcome.groups;
      for (let i = 0; i < groups.length; i++) {
        const g = groups[i]!;
        for (let m = g.mask; m !== 0; m &= m - 1) pcs[lowest(m)] = g.pc;
      }
      for (let m = outcome.exited; m !== 0; m &= m - 1) pcs[lowest(m)] = -1;
      const op = ctx.ops[issue.pc]!;
      const ev = outcome.event;
      if (o.barriers !== 'native' || (ev.kind !== 'barrier' && ev.kind !== 'warpsync')) {
        if (outcome.exited === 0)
          return { kind: 'ok', state: { pcs, wait: s.wait, named: s.named, b: s.b } };
        // An exit may complete a barrier the others wait at (SEMANTICS §3.1).
        const wait = s.wait.slice();
        const named = s.named.slice();
        const ub = release(pcs, wait, named, s.b, exited);
        if (ub) return stop('undefined-behavior', ub);
        return {
          kind: 'ok',
          state: { pcs, wait: kept(wait, s.wait), named: kept(named, s.named), b: s.b },
        };
      }
      const wait = s.wait.slice();
      const named = s.named.slice();
      let b = s.b;
      const part = ev.mask;
      switch (op.kind) {
        case 'bssy': {
          if (part === 0) break; // no lane's guard holds: a no-op
          if (op.barrier >= B_REGISTERS)
            return stop('unsupported', `BSSY B${op.barrier}: only B0..B15 exist`);
          b = b.slice();
          // SEMANTICS §2: Bx := the active mask (a decision); option: OR it in.
          (b as number[])[op.barrier] = o.bssy === 'or' ? (b[op.barrier]! | part) >>> 0 : part;
          break;
        }
        case 'bsync':
          // Lanes in Bx wait at this BSYNC; lanes not in Bx pass (SEMANTICS §2, a decision).
          for (let m = part & b[op.barrier]!; m !== 0; m &= m - 1) {
            const l = lowest(m);
            wait[l] = op.barrier;
            pcs[l] = issue.pc;
          }
          break;
        case 'break':
          b = b.slice();
          (b as number[])[op.barrier] = (b[op.barrier]! & ~part) >>> 0;
          break;
        case 'bmov-from-barrier':
          if (op.clear && part !== 0) {
            b = b.slice();
            (b as number[])[op.barrier] = 0;
          }
          break;
        case 'bmov-to-barrier': {
          if (part === 0) break; // no lane's guard holds: a no-op
          if (ev.kind !== 'barrier' || ev.value === null)
            return stop(
              'undefined-behavior',
              `BMOV B${op.barrier} at pc ${issue.pc}: the active lanes hold different values (SEMANTICS §2)`,
            );
          if (ev.value === -1)
            return stop(
              'unsupported',
              `BMOV B${op.barrier} at pc ${issue.pc}: the value is unknown`,
            );
          b = b.slice();
          (b as number[])[op.barrier] = (ev.value & ctx.full & ~exited) >>> 0;
          break;
        }
        case 'warpsync': {
          if (ev.kind !== 'warpsync') break;
          for (let m = part; m !== 0; m &= m - 1) {
            const l = lowest(m);
            const mask = ev.masks[l]!;
            if (mask === -1)
              return stop(
                'unsupported',
                `WARPSYNC at pc ${issue.pc}: lane ${l} names an unknown mask`,
              );
            if (!((mask >>> l) & 1))
              return stop(
                'undefined-behavior',
                `WARPSYNC at pc ${issue.pc}: lane ${l} is not named in its own mask 0x${(mask >>> 0).toString(16)} (SEMANTICS §2)`,
              );
            if (o.warpsyncExited === 'strict' && (mask & exited) !== 0)
              return stop(
                'undefined-behavior',
                `WARPSYNC at pc ${issue.pc}: the mask names exited lanes 0x${((mask & exited) >>> 0).toString(16)} (strict mode)`,
              );
            wait[l] = AT_WARPSYNC;
            named[l] = mask >>> 0;
            pcs[l] = issue.pc;
          }
          break;
        }
        default:
          break;
      }
      const ub = release(pcs, wait, named, b, exited);
      if (ub) return stop('undefined-behavior', ub);
      return {
        kind: 'ok',
        state: { pcs, wait: kept(wait, s.wait), named: kept(named, s.named), b },
      };
    },
    // Dead runs (`Mechanism.straight`): a data instruction moves each issued lane to the next
    // PC and wakes no one (`release` runs only after exits and barrier events), so the issued
    // lanes, all at `issue.pc` and ready, land at `to`.
    straight(s, issue, to) {
      const pcs = s.pcs.slice();
      for (let m = issue.mask; m !== 0; m &= m - 1) {
        const l = lowest(m);
        if (pcs[l] !== issue.pc || s.wait[l] !== READY) return null;
        pcs[l] = to;
      }
      return { pcs, wait: s.wait, named: s.named, b: s.b };
    },
    // Summaries of chains and of frozen lanes (`Mechanism.moveLanes`): a lane's entries are its
    // PC, wait state, WARPSYNC mask and its membership of each B register (bit `to` of every
    // B register takes bit `src` of `from`'s). A chain's data instructions and plain BRAs leave
    // the B registers as they are, so for chains the B bits moved are those `into` has.
    moveLanes(into, from, pairs, n) {
      const pcs = into.pcs.slice();
      const wait = into.wait.slice();
      const named = into.named.slice();
      let b: number[] | null = null;
      for (let i = 0; i < n; i++) {
        const to = pairs[2 * i]!;
        const src = pairs[2 * i + 1]!;
        pcs[to] = from.pcs[src]!;
        wait[to] = from.wait[src]!;
        named[to] = from.named[src]!;
        for (let x = 0; x < B_REGISTERS; x++) {
          const want = (from.b[x]! >>> src) & 1;
          if (((into.b[x]! >>> to) & 1) === want) continue;
          b ??= into.b.slice();
          b[x] = want ? (b[x]! | (1 << to)) >>> 0 : (b[x]! & ~(1 << to)) >>> 0;
        }
      }
      return { pcs, wait: kept(wait, into.wait), named: kept(named, into.named), b: b ?? into.b };
    },
    // Summaries of frozen lanes (`Mechanism.laneContext`, `explore/frozenLanes.ts`): what a
    // step of the other lanes may read of a waiting or exited lane — its PC (the group rules'
    // reachability), its wait and its membership of each B register (`release`). Not for a lane
    // at a WARPSYNC or one that names lanes (a mask of lane numbers).
    laneContext(s, l, out) {
      if (s.wait[l] === AT_WARPSYNC || s.named[l] !== 0) return false;
      let bits = 0;
      for (let x = 0; x < B_REGISTERS; x++) bits |= ((s.b[x]! >>> l) & 1) << x;
      out.push(s.pcs[l]!, s.wait[l]!, bits);
      return true;
    },
    ready(s) {
      let m = 0;
      for (let l = 0; l < s.pcs.length; l++) if (s.pcs[l]! >= 0 && s.wait[l] === READY) m |= 1 << l;
      return m >>> 0;
    },
    key(s, out: KeySink, liveBarriers = 0xffff, arrived = 0) {
      const { pcs, wait, named, b } = s;
      let live = liveBarriers;
      for (let l = 0; l < pcs.length; l++) {
        out.lane(l, pcs[l]! + 1);
        // As the reference of `hanoi`: a lane waiting at the BSYNC where `hanoi`'s reduced key
        // counts it in with the arriving lanes is keyed as standing ready there
        // (`Mechanism.arrivalPc`, `hanoiRuns.ts`); `arrived` is 0 otherwise.
        out.lane(l, ((arrived >>> l) & 1 ? READY : wait[l]!) + 1);
        out.laneMask(l, named[l]!);
        // A lane waiting at BSYNC Bx is released by Bx's content: it is read.
        if (wait[l]! >= 0 && wait[l]! < B_REGISTERS) live |= 1 << wait[l]!;
      }
      for (let x = 0; x < b.length; x++) out.mask((live >>> x) & 1 ? b[x]! : 0);
    },
    waitingAt(s, pc) {
      let m = 0;
      for (let l = 0; l < s.pcs.length; l++) {
        const w = s.wait[l]!;
        if (s.pcs[l] === pc && w >= 0 && w < B_REGISTERS) m |= 1 << l;
      }
      return m >>> 0;
    },
    lanePcs: itsLanePcs,
    view(s, fmt: Formatter): StateView {
      const status = (l: number) =>
        s.pcs[l]! < 0
          ? 'exited'
          : s.wait[l] === READY
            ? 'ready'
            : s.wait[l] === AT_WARPSYNC
              ? `WARPSYNC ${fmt.mask(s.named[l]!)}`
              : `BSYNC B${s.wait[l]}`;
      const rows = s.pcs.map((pc, l) => [String(l), pc < 0 ? '-' : fmt.pc(pc), status(l)]);
      const bRows = s.b.flatMap((m, x) => (m !== 0 ? [[`B${x}`, fmt.mask(m)]] : []));
      return {
        tables: [
          { title: 'lanes', columns: ['lane', 'pc', 'status'], rows },
          ...(bRows.length
            ? [{ title: 'B registers (non-empty)', columns: ['Bx', 'mask'], rows: bRows }]
            : []),
        ],
        data: {
          pcs: s.pcs.map((pc) => (pc < 0 ? null : fmt.pc(pc))),
          ...(s.wait.some((x) => x !== READY)
            ? {
                waiting: s.pcs.map((_, l) =>
                  s.wait[l] === READY || s.pcs[l]! < 0 ? null : status(l),
                ),
              }
            : {}),
          ...(bRows.length ? { b: Object.fromEntries(bRows.map(([x, m]) => [x!, m!])) } : {}),
        },
      };
    },
  };
}

export const itsFactory: MechanismFactory = {
  id: 'its',
  summary:
    'independent thread scheduling: per-lane PCs, BSYNC/WARPSYNC waiting, the post-Volta reference semantics',
  source: 'seed 000 §IV–V; SEMANTICS §3.1',
  options: [
    {
      name: 'grouping',
      values: ['maximal', 'single'],
      default: 'maximal',
      doc: 'issue every ready lane at a PC together (maximal), or one lane at a time (single)',
    },
    BSSY_OPTION,
    {
      name: 'warpsync-exited',
      values: ['accept', 'strict'],
      default: 'accept',
      doc: 'a WARPSYNC mask naming an exited lane: accepted, or undefined behavior (strict)',
    },
    {
      name: 'barriers',
      values: ['native', 'nop', 'reject'],
      default: 'native',
      doc: 'convergence-barrier instructions: their meaning (native), no-ops, or unsupported (as a pre-Volta mechanism treats them)',
    },
  ],
  create: (ctx, options) =>
    createIts(ctx, {
      grouping: (options['grouping'] ?? 'maximal') as ItsGrouping,
      bssy: (options['bssy'] ?? 'assign') as ItsOptions['bssy'],
      warpsyncExited: (options['warpsync-exited'] ?? 'accept') as ItsOptions['warpsyncExited'],
      barriers: (options['barriers'] ?? 'native') as ItsOptions['barriers'],
    }) as Mechanism<unknown>,
};
