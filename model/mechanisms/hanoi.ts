import type { Op } from '../isa/op.ts';
import type { Group, Outcome } from '../lanes/execute.ts';
import { popcount } from '../lanes/values.ts';
import type { KeySink } from '../machine/key.ts';
import type {
  Advance,
  Formatter,
  Issue,
  Mechanism,
  MechanismContext,
  MechanismFactory,
  Policy,
  StateView,
} from './mechanism.ts';
import { BSSY_OPTION } from './mechanism.ts';
import { arrivalRuns, type PlantUnsoundRuns } from './hanoiRuns.ts';

/**
 * `hanoi` — the Turing control-flow design of seed 000 §VII (Fig. 8; SEMANTICS §3.4).
 *
 * State: the WS (warp split) stack of paths (pc, mask), the REC (reconvergence) stack of
 * (pc, barrier register, kind), the B registers with valid bits, the waiting mask and the
 * finished mask.
 *
 * Invariants after every step (checked by the property tests): WS entries are non-empty and
 * pairwise disjoint, so WS never holds more than W entries; no finished lane is in a WS entry, a
 * B register or the waiting mask; a lane is in at most one of {a WS entry, waiting, finished}.
 */
export interface HanoiState {
  /** Paths, top last. */
  readonly ws: readonly { readonly pc: number; readonly mask: number }[];
  /** Reconvergence points, top last. `named`: the WARPSYNC mask as written (warpsync entries). */
  readonly rec: readonly {
    readonly pc: number;
    readonly reg: number;
    readonly kind: 'bssy' | 'warpsync';
    readonly named: number;
  }[];
  /** B register masks. */
  readonly b: readonly number[];
  /** Bit x: B[x] is valid. */
  readonly valid: number;
  readonly waiting: number;
  readonly finished: number;
}

/** Which path of a two-way split with equal lane counts runs first (SEMANTICS §3.4). */
export type HanoiTie = 'fall-through' | 'upper-lanes' | 'taken' | 'not-taken';

export interface HanoiOptions {
  /** Number of B registers (seed 000 §IX-A sizes a real design; small counts test spills). */
  readonly registers: number;
  /** Two-way tie rule; the seed's figures assume taken-first for illustration. */
  readonly order: 'majority' | 'taken-first' | 'not-taken-first';
  readonly tie: HanoiTie;
  /** BSSY assigns Bx (default) or ORs into it (SEMANTICS §2, an option). */
  readonly bssy: 'assign' | 'or';
  /** Where a WARPSYNC looks for its existing REC entry: the top only, or the whole stack (§VII-B). */
  readonly warpsyncLookup: 'top' | 'stack';
  /** Which free B register a WARPSYNC takes: the lowest (SEMANTICS §3.4) or the highest. */
  readonly warpsyncAlloc: 'lowest' | 'highest';
  /** A planted bug for the law of `arrivalRuns` (tests only, never a default). */
  readonly plantUnsoundRuns?: PlantUnsoundRuns;
}

type St = {
  ws: { pc: number; mask: number }[];
  rec: { pc: number; reg: number; kind: 'bssy' | 'warpsync'; named: number }[];
  b: number[];
  valid: number;
  waiting: number;
  finished: number;
};

const copy = (s: HanoiState): St => ({
  ws: s.ws.slice(),
  rec: s.rec.slice(),
  b: s.b.slice(),
  valid: s.valid,
  waiting: s.waiting,
  finished: s.finished,
});

/** `a` and `b` hold the same items (numbers, or the same entry objects) in the same order. */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Reconverges while it can (seed 000 §VII-B): while the top REC entry's register is valid and its
 * mask minus finished lanes is contained in the waiting mask, pop it, push a WS entry (its pc, that
 * mask) — none when the mask is empty — remove the mask from waiting and invalidate the register.
 * "Hanoi never reconverges threads if the B_x register of the top entry in the REC stack is invalid."
 */
function reconverge(s: St): void {
  for (;;) {
    const top = s.rec[s.rec.length - 1];
    if (!top || !((s.valid >>> top.reg) & 1)) return;
    const mask = (s.b[top.reg]! & ~s.finished) >>> 0;
    if ((mask & ~s.waiting) >>> 0 !== 0) return;
    s.rec.pop();
    if (mask !== 0) s.ws.push({ pc: top.pc, mask });
    s.waiting = (s.waiting & ~mask) >>> 0;
    s.valid = (s.valid & ~(1 << top.reg)) >>> 0;
  }
}

/** Orders the groups of a divergent branch bottom to top: the last one runs first. */
function splitOrder(groups: readonly Group[], fallThrough: number, o: HanoiOptions): Group[] {
  const isFall = (g: Group) => g.pc === fallThrough;
  const tie = (a: Group, b: Group): number => {
    // Positive: a runs before b (a goes above b).
    switch (o.tie) {
      case 'fall-through':
        return isFall(a) ? 1 : isFall(b) ? -1 : b.pc - a.pc;
      case 'not-taken':
        return isFall(a) ? 1 : isFall(b) ? -1 : b.pc - a.pc;
      case 'taken':
        return isFall(a) ? -1 : isFall(b) ? 1 : b.pc - a.pc;
      case 'upper-lanes':
        return Math.clz32(b.mask) - Math.clz32(a.mask);
    }
  };
  const first = (a: Group, b: Group): number => {
    if (o.order === 'taken-first') return isFall(a) ? -1 : isFall(b) ? 1 : b.pc - a.pc;
    if (o.order === 'not-taken-first') return isFall(a) ? 1 : isFall(b) ? -1 : b.pc - a.pc;
    // seed 000 §VII-C: "the path followed by the majority of threads is executed first"; more
    // than two paths: largest on top, ties to the lower PC (SEMANTICS §3.4); two: the `tie` option.
    return popcount(a.mask) - popcount(b.mask) || (groups.length > 2 ? b.pc - a.pc : tie(a, b));
  };
  // Two groups (the common divergence): the order `Array.prototype.sort` gives them — it asks
  // `first(second, first)` once and swaps when negative — without copying and sorting.
  if (groups.length === 2) {
    const g0 = groups[0]!;
    const g1 = groups[1]!;
    return first(g1, g0) < 0 ? [g1, g0] : [g0, g1];
  }
  return [...groups].sort((a, b) => first(a, b));
}

export function createHanoi(ctx: MechanismContext, o: HanoiOptions): Mechanism<HanoiState> {
  const fullRegs = o.registers >= 32 ? 0xffffffff : (1 << o.registers) - 1;
  const stop = (
    verdict: 'resource-exhausted' | 'undefined-behavior' | 'unsupported',
    message: string,
  ): Advance<HanoiState> => ({
    kind: 'stop',
    verdict,
    message,
  });
  const runs = arrivalRuns(ctx, o.plantUnsoundRuns ?? null);
  return {
    id: 'hanoi',
    laneFairness: false,
    // Lane symmetry (issue 16): every order uses PCs and lane counts, except the `upper-lanes` tie.
    laneSymmetric: o.tie !== 'upper-lanes',
    policy(op: Op): Policy {
      return op.kind === 'stack-op' ? 'reject' : 'native';
    },
    init: () => ({
      ws: [{ pc: ctx.entry, mask: ctx.full }],
      rec: [],
      b: new Array<number>(o.registers).fill(0),
      valid: 0,
      waiting: 0,
      finished: 0,
    }),
    candidates(s) {
      const top = s.ws[s.ws.length - 1];
      return top ? [{ pc: top.pc, mask: top.mask }] : [];
    },
    barrierValue(s, x) {
      return s.b[x] ?? 0;
    },
    advance(state, issue: Issue, outcome: Outcome): Advance<HanoiState> {
      const s = copy(state);
      const op = ctx.ops[issue.pc]!;
      const top = s.ws.pop()!;
      const ev = outcome.event;
      // EXIT (seed 000 §VII-A): exited lanes join finished and leave every B register.
      const exited = outcome.exited;
      if (exited !== 0) {
        s.finished = (s.finished | exited) >>> 0;
        for (let x = 0; x < s.b.length; x++) s.b[x] = (s.b[x]! & ~exited) >>> 0;
      }
      const rest = (top.mask & ~exited) >>> 0;
      const next = () => {
        if (rest !== 0) s.ws.push({ pc: issue.pc + 1, mask: rest });
      };
      const reg = (x: number) => x < o.registers;
      switch (op.kind) {
        case 'bssy': {
          if (!reg(op.barrier))
            return stop(
              'resource-exhausted',
              `BSSY B${op.barrier}: the design has ${o.registers} B registers`,
            );
          if (op.target === null)
            return stop('unsupported', `BSSY at ${issue.pc} reconverges outside the listing`);
          const m = ev.kind === 'barrier' ? ev.mask : top.mask;
          if (m === 0) {
            next(); // no lane's guard holds: a no-op
            break;
          }
          s.b[op.barrier] =
            o.bssy === 'or' && (s.valid >>> op.barrier) & 1 ? (s.b[op.barrier]! | m) >>> 0 : m;
          s.valid = (s.valid | (1 << op.barrier)) >>> 0;
          s.rec.push({ pc: op.target, reg: op.barrier, kind: 'bssy', named: 0 });
          next();
          break;
        }
        case 'bsync': {
          // Every participating lane of the path waits, in Bx or not: the paper's rule (SEMANTICS
          // §3.4); lanes whose guard is false go on (SEMANTICS §1). Hanoi does not check that x
          // is the top REC entry's register.
          const part = ev.kind === 'barrier' ? (ev.mask & rest) >>> 0 : rest;
          s.waiting = (s.waiting | part) >>> 0;
          if ((rest & ~part) >>> 0 !== 0)
            s.ws.push({ pc: issue.pc + 1, mask: (rest & ~part) >>> 0 });
          break;
        }
        case 'warpsync': {
          const part = ev.kind === 'warpsync' ? (ev.mask & rest) >>> 0 : rest;
          if (part === 0) {
            next(); // no lane's guard holds: a no-op
            break;
          }
          if (ev.kind !== 'warpsync' || ev.named === null)
            return stop(
              'undefined-behavior',
              `WARPSYNC at ${issue.pc}: the active lanes name different masks`,
            );
          const named = ev.named >>> 0;
          const has =
            o.warpsyncLookup === 'top'
              ? s.rec.length > 0 &&
                s.rec[s.rec.length - 1]!.kind === 'warpsync' &&
                s.rec[s.rec.length - 1]!.named === named
              : s.rec.some((r) => r.kind === 'warpsync' && r.named === named);
          if (!has) {
            // SEMANTICS §3.4: the lowest register that is invalid and named by no REC entry; option
            // `warpsync-alloc=highest` searches from the top instead, away from the B0, B1, …
            // that compilers allocate — the lowest free one may be the register a BSSY on another
            // path is about to use (docs/findings.md, scenarios/finding-hanoi-warpsync-register.sass).
            let free = -1;
            for (let i = 0; i < o.registers && free < 0; i++) {
              const x = o.warpsyncAlloc === 'highest' ? o.registers - 1 - i : i;
              if (!((s.valid >>> x) & 1) && !s.rec.some((r) => r.reg === x)) free = x;
            }
            if (free < 0)
              return stop(
                'resource-exhausted',
                `WARPSYNC at ${issue.pc}: no free B register (all ${o.registers} valid or named by a REC entry)`,
              );
            s.b[free] = (named & ctx.full & ~s.finished) >>> 0; // the warp's lanes only (0xffffffff on W < 32)
            s.valid = (s.valid | (1 << free)) >>> 0;
            s.rec.push({ pc: issue.pc + 1, reg: free, kind: 'warpsync', named });
          }
          s.waiting = (s.waiting | part) >>> 0;
          if ((rest & ~part) >>> 0 !== 0)
            s.ws.push({ pc: issue.pc + 1, mask: (rest & ~part) >>> 0 });
          break;
        }
        case 'break':
          if (reg(op.barrier) && ev.kind === 'barrier')
            s.b[op.barrier] = (s.b[op.barrier]! & ~ev.mask) >>> 0;
          next();
          break;
        case 'bmov-from-barrier':
          // B→R copies and invalidates Bx (seed 000 §VII-A); .CLEAR also empties it.
          if (reg(op.barrier) && !(ev.kind === 'barrier' && ev.mask === 0)) {
            s.valid = (s.valid & ~(1 << op.barrier)) >>> 0;
            if (op.clear) s.b[op.barrier] = 0;
          }
          next();
          break;
        case 'bmov-to-barrier': {
          if (!reg(op.barrier))
            return stop(
              'resource-exhausted',
              `BMOV B${op.barrier}: the design has ${o.registers} B registers`,
            );
          if (ev.kind === 'barrier' && ev.mask === 0) {
            next(); // no lane's guard holds: a no-op
            break;
          }
          if (ev.kind !== 'barrier' || ev.value === null)
            return stop(
              'undefined-behavior',
              `BMOV B${op.barrier} at ${issue.pc}: the active lanes hold different values (SEMANTICS §2)`,
            );
          // R→B writes Bx minus finished lanes and validates it (seed 000 §VII-A).
          s.b[op.barrier] = (ev.value & ctx.full & ~s.finished) >>> 0;
          s.valid = (s.valid | (1 << op.barrier)) >>> 0;
          next();
          break;
        }
        case 'yield': {
          next();
          // seed 000 §VII-C: swap with the sibling below if the union of the top two paths is
          // contained in the valid register of the top REC entry; otherwise a no-op.
          const recTop = s.rec[s.rec.length - 1];
          const a = s.ws[s.ws.length - 1];
          const b = s.ws[s.ws.length - 2];
          if (recTop && a && b && (s.valid >>> recTop.reg) & 1) {
            const union = (a.mask | b.mask) >>> 0;
            if ((union & ~s.b[recTop.reg]!) >>> 0 === 0) {
              s.ws[s.ws.length - 1] = b;
              s.ws[s.ws.length - 2] = a;
            }
          }
          break;
        }
        default: {
          const groups = outcome.groups;
          if (groups.length === 1) s.ws.push({ pc: groups[0]!.pc, mask: groups[0]!.mask });
          else if (groups.length > 1)
            // Divergence (seed 000 §VII-C): minority below, majority on top.
            for (const g of splitOrder(groups, issue.pc + 1, o))
              s.ws.push({ pc: g.pc, mask: g.mask });
        }
      }
      s.valid &= fullRegs;
      reconverge(s);
      // A REC stack or B registers this step left as they were are shared with the state before
      // (most steps touch neither): a stored state then holds only what changed.
      if (sameItems(s.rec, state.rec)) s.rec = state.rec as St['rec'];
      if (sameItems(s.b, state.b)) s.b = state.b as number[];
      return { kind: 'ok', state: s };
    },
    ready(s) {
      const top = s.ws[s.ws.length - 1];
      return top ? top.mask : 0;
    },
    key(s, out: KeySink, liveBarriers?: number, arrived?: number) {
      // Registers a reconvergence entry refers to are read at its reconvergence.
      let live = liveBarriers ?? 0xffff;
      for (const r of s.rec) live |= 1 << r.reg;
      let waiting = s.waiting;
      if (liveBarriers === undefined) {
        out.push(s.ws.length);
        for (const e of s.ws) {
          out.push(e.pc);
          out.mask(e.mask);
        }
      } else waiting = runs.key(s, out, arrived ?? s.waiting);
      out.push(s.rec.length);
      for (const r of s.rec) {
        out.push(r.pc);
        out.push(r.reg);
        out.push(r.kind === 'bssy' ? 0 : 1);
        out.mask(r.named);
      }
      for (let x = 0; x < s.b.length; x++) out.mask((live >>> x) & 1 ? s.b[x]! : 0);
      out.push(s.valid);
      out.mask(waiting);
      out.mask(s.finished);
    },
    arrivalPc: (s) => runs.arrivalPc(s),
    waitingLanes: (s) => s.waiting,
    lanePcs(s, visit) {
      for (const e of s.ws) visit(e.pc, e.mask);
      // A REC entry's register may be spilled and rewritten (BMOV): any lane may resume there.
      for (const r of s.rec) visit(r.pc, ctx.full);
    },
    view(s, fmt: Formatter): StateView {
      const ws = [...s.ws].reverse();
      const rec = [...s.rec].reverse();
      return {
        tables: [
          {
            title: 'WS stack (top first)',
            columns: ['PC', 'Active Mask'],
            rows: ws.map((e) => [fmt.pc(e.pc), fmt.mask(e.mask)]),
          },
          {
            title: 'REC stack (top first)',
            columns: ['PC', 'Bx', 'kind'],
            rows: rec.map((r) => [fmt.pc(r.pc), `B${r.reg}`, r.kind]),
          },
          {
            title: 'B registers (valid or non-empty)',
            columns: ['Bx', 'mask', 'V'],
            rows: s.b.flatMap((m, x) =>
              m !== 0 || (s.valid >>> x) & 1
                ? [[`B${x}`, fmt.mask(m), String((s.valid >>> x) & 1)]]
                : [],
            ),
          },
          {
            title: 'masks',
            columns: ['waiting', 'finished'],
            rows: [[fmt.mask(s.waiting), fmt.mask(s.finished)]],
          },
        ],
        data: {
          ws: ws.map((e) => ({ pc: fmt.pc(e.pc), mask: fmt.mask(e.mask) })),
          rec: rec.map((r) => ({ pc: fmt.pc(r.pc), b: r.reg, kind: r.kind })),
          b: Object.fromEntries(
            s.b.flatMap((m, x) =>
              m !== 0 || (s.valid >>> x) & 1
                ? [[`B${x}`, { mask: fmt.mask(m), valid: ((s.valid >>> x) & 1) === 1 }]]
                : [],
            ),
          ),
          waiting: fmt.mask(s.waiting),
          finished: fmt.mask(s.finished),
        },
      };
    },
  };
}

export const hanoiFactory: MechanismFactory = {
  id: 'hanoi',
  summary:
    "Turing's convergence barriers as the Hanoi design models them: WS and REC stacks, B registers, waiting and finished masks",
  source: 'seed 000 §VII, Fig. 8; SEMANTICS §3.4',
  options: [
    {
      name: 'registers',
      values: ['1', '2', '3', '4', '8', '16', '32'],
      default: '16',
      doc: 'number of B registers',
    },
    {
      name: 'order',
      values: ['majority', 'taken-first', 'not-taken-first'],
      default: 'majority',
      doc: 'which path of a divergent branch runs first (seed 000 §VII-C: majority; the figures assume taken-first)',
    },
    {
      name: 'tie',
      values: ['fall-through', 'upper-lanes', 'taken', 'not-taken'],
      default: 'fall-through',
      doc: 'majority order, equal counts: the real trace runs the fall-through (the upper 16 lanes) first',
    },
    BSSY_OPTION,
    {
      name: 'warpsync-alloc',
      values: ['lowest', 'highest'],
      default: 'lowest',
      doc: 'the free B register a WARPSYNC takes: the lowest (SEMANTICS §3.4), or the highest, away from compiler-allocated ones',
    },
    {
      name: 'warpsync-lookup',
      values: ['top', 'stack'],
      default: 'top',
      doc: "a WARPSYNC reuses an existing REC entry for its mask at the top only, or anywhere on the stack (§VII-B 'already on the REC stack')",
    },
  ],
  create: (ctx, opts) =>
    createHanoi(ctx, {
      registers: Number(opts['registers'] ?? '16'),
      order: (opts['order'] ?? 'majority') as HanoiOptions['order'],
      tie: (opts['tie'] ?? 'fall-through') as HanoiTie,
      bssy: (opts['bssy'] ?? 'assign') as HanoiOptions['bssy'],
      warpsyncLookup: (opts['warpsync-lookup'] ?? 'top') as HanoiOptions['warpsyncLookup'],
      warpsyncAlloc: (opts['warpsync-alloc'] ?? 'lowest') as HanoiOptions['warpsyncAlloc'],
    }) as Mechanism<unknown>,
};
