import { PRE_VOLTA_OPTIONS, warpsyncStop } from './preVolta.ts';
import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { Group, Outcome } from '../lanes/execute.ts';
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

/**
 * `token-stack` — the Fermi token stack (seed 003 §II, Fig. 1–2, Table I; SEMANTICS §3.3).
 *
 * State: the warp's active PC and active mask (seed 003 §II: "special purpose registers to store
 * per warp 'active mask' and 'active PC'") and a stack of tokens (entry type, mask, PC) — Fig. 1's
 * three-field entry.
 *
 * From seed 003 §II / Fig. 2: `SSY L` pushes (SSY, active, L); a divergent `BRA` pushes
 * (DIV, taken lanes, target) and runs the not-taken lanes at pc+1; an instruction with the `.S`
 * flag pops the top token into the active mask and PC. Table I names PBK/BRK, PRET/BRX, CALL/RET.
 * **Decisions** beyond Fig. 2 and Table I (SEMANTICS §3.3, after envytools' Tesla description;
 * docs/semantics.md "token-stack"), marked `DECISION` where they are made:
 * `SYNC` pops as `.S` does; `BRK`/`CONT`/`RET` take their participating lanes out of the active
 * mask and out of every token above the nearest PBK/PCNT/CALL token (which keeps them, to resume
 * at its PC); whenever the active mask is empty, tokens are popped until one restores a non-empty
 * mask; exited lanes leave every token and empty tokens are dropped.
 *
 * Invariants after every step: no token is empty; no exited lane is active or in a token; a live
 * lane is active or in some token (a pop that would lose a lane stops the run instead); the active
 * mask is empty only when the stack is empty too.
 */
export type TokenType = 'SSY' | 'DIV' | 'PBK' | 'PCNT' | 'PRET' | 'CALL';

export interface Token {
  readonly type: TokenType;
  readonly mask: number;
  /** Where the token's lanes run when it is popped (Fig. 1's "re-convergence PC"). */
  readonly pc: number;
}

export interface TokenStackState {
  /** Active PC; -1 when nothing is active. */
  readonly pc: number;
  /** Active mask (seed 003 §II). */
  readonly mask: number;
  /** Bottom first. */
  readonly tokens: readonly Token[];
}

/** Which path of a divergent branch runs first: seed 003 §II runs the not-taken path first. */
export type TokenOrder = 'not-taken-first' | 'taken-first';

export interface TokenStackOptions {
  readonly order: TokenOrder;
  readonly foreign: 'nop' | 'reject';
  readonly warpsync: 'check' | 'nop' | 'reject';
}

const TYPES: readonly TokenType[] = ['SSY', 'DIV', 'PBK', 'PCNT', 'PRET', 'CALL'];
const TYPE_CODE: Readonly<Record<TokenType, number>> = {
  SSY: 0,
  DIV: 1,
  PBK: 2,
  PCNT: 3,
  PRET: 4,
  CALL: 5,
};

/** What a Fermi stack instruction does (per PC, decided once). */
type StackKind = 'push' | 'pop' | 'unwind' | 'foreign' | 'none';

/** Opcodes that push a token with their operand as its PC. */
const PUSHES: Readonly<Record<string, TokenType>> = {
  SSY: 'SSY',
  PBK: 'PBK',
  PCNT: 'PCNT',
  PRET: 'PRET',
};
/** DECISION (SEMANTICS §3.3): BRK unwinds to the nearest PBK, CONT to the nearest PCNT. */
const UNWINDS_TO: Readonly<Record<string, TokenType>> = { BRK: 'PBK', CONT: 'PCNT' };

const EMPTY: TokenStackState = { pc: -1, mask: 0, tokens: [] };

/** Tokens without `lanes`; empty tokens dropped (DECISION). Returns `tokens` itself when unchanged. */
function strip(tokens: readonly Token[], lanes: number, from = 0): readonly Token[] {
  let touched = false;
  for (let i = from; i < tokens.length; i++) if ((tokens[i]!.mask & lanes) !== 0) touched = true;
  if (!touched) return tokens;
  const out = tokens.slice(0, from);
  for (let i = from; i < tokens.length; i++) {
    const t = tokens[i]!;
    const mask = (t.mask & ~lanes) >>> 0;
    if (mask !== 0) out.push(mask === t.mask ? t : { ...t, mask });
  }
  return out;
}

/**
 * With the active mask empty: pop tokens until one restores a non-empty mask (SEMANTICS §3.3;
 * seed 003 §II "the stack pop operation takes the top of the stack to set the active mask register
 * and the active PC register"). Tokens are never empty (exited lanes were stripped).
 */
function unwind(tokens: readonly Token[]): TokenStackState {
  if (tokens.length === 0) return EMPTY;
  const top = tokens[tokens.length - 1]!;
  return { pc: top.pc, mask: top.mask, tokens: tokens.slice(0, -1) };
}

/** Lanes held by any token. */
function held(tokens: readonly Token[]): number {
  let m = 0;
  for (let i = 0; i < tokens.length; i++) m |= tokens[i]!.mask;
  return m >>> 0;
}

const hex = (m: number) => '0x' + (m >>> 0).toString(16);

export function createTokenStack(
  ctx: MechanismContext,
  opts: TokenStackOptions,
): Mechanism<TokenStackState> {
  const n = ctx.ops.length;
  const kindAt: StackKind[] = [];
  /** The `.S` flag (seed 003 Table I: "can be attached to any normal instructions"). */
  const popFlag: boolean[] = [];
  for (let pc = 0; pc < n; pc++) {
    const op = ctx.ops[pc]!;
    const ins = ctx.program.instructions[pc]!;
    popFlag.push(op.kind !== 'stack-op' && ins.modifiers.includes('S'));
    if (op.kind !== 'stack-op') kindAt.push('none');
    else if (op.opcode in PUSHES) kindAt.push('push');
    else if (op.opcode === 'SYNC') kindAt.push('pop');
    else if (op.opcode in UNWINDS_TO) kindAt.push('unwind');
    else kindAt.push('foreign'); // FORK/JOIN: AMD GCN's, not Fermi's
  }

  const stop = (verdict: 'unsupported' | 'undefined-behavior', message: string) =>
    ({ kind: 'stop', verdict, message }) as const;

  /**
   * The `.S` / SYNC pop at `pc` by the lanes `popping`: they leave the active mask (they stay in
   * the tokens below, to run again when one of those is popped) and the top token runs.
   */
  const pop = (tokens: readonly Token[], pc: number, popping: number): Advance<TokenStackState> => {
    if (tokens.length === 0)
      return stop(
        'undefined-behavior',
        `pop at pc ${pc} with an empty token stack (a .S or SYNC without a matching SSY or branch)`,
      );
    // DECISION: a pop must not lose lanes; a lane in no token would never run again.
    const lost = (popping & ~held(tokens)) >>> 0;
    if (lost !== 0)
      return stop(
        'undefined-behavior',
        `pop at pc ${pc}: lanes ${hex(lost)} are in no token of the stack and would never run again (a .S or SYNC without a matching SSY)`,
      );
    return { kind: 'ok', state: unwind(tokens) };
  };

  return {
    id: 'token-stack',
    laneFairness: false,
    // Orders and ties use PCs and lane counts only (issue 16: lane symmetry).
    laneSymmetric: true,
    policy(op: Op): Policy {
      if (op.kind === 'warpsync') return opts.warpsync;
      if (BARRIER_KINDS.has(op.kind) || op.kind === 'yield') return opts.foreign;
      if (op.kind === 'stack-op')
        return op.opcode === 'FORK' || op.opcode === 'JOIN' ? 'reject' : 'native';
      return 'native';
    },
    init: () => ({ pc: ctx.entry, mask: ctx.full, tokens: [] }),
    candidates: (s) => (s.mask !== 0 ? [{ pc: s.pc, mask: s.mask }] : []),
    advance(s, issue: Issue, outcome: Outcome, exited: number): Advance<TokenStackState> {
      const pc = issue.pc;
      const ev = outcome.event;
      if (ev.kind === 'warpsync') {
        // SEMANTICS §2 `check`, as for simt-stack: a stack cannot wait for lanes.
        const bad = warpsyncStop(ev, issue, exited, ctx.full, 'the token stack');
        if (bad) return bad;
      }
      // Exited lanes leave every token (SEMANTICS §3.3).
      let tokens = outcome.exited !== 0 ? strip(s.tokens, outcome.exited) : s.tokens;
      const live = (issue.mask & ~exited) >>> 0;
      const groups = outcome.groups;
      const next = groups.length === 1 ? groups[0]!.pc : pc + 1;
      const op = ctx.ops[pc]!;
      const kind = kindAt[pc]!;

      if (kind !== 'none') {
        const opcode = (op as Extract<Op, { kind: 'stack-op' }>).opcode;
        // DECISION: only BRK and CONT take a guard (seed 003 Table I writes `@P0 BRK`).
        if (kind !== 'unwind' && (op.guard !== null || op.pred2 !== null))
          return stop(
            'unsupported',
            `${opcode} at pc ${pc} is predicated: the token stack gives only BRK and CONT a guard`,
          );
        if (kind === 'push') {
          const target = (op as Extract<Op, { kind: 'stack-op' }>).target;
          if (target === null)
            return stop('unsupported', `${opcode} at pc ${pc} has no target inside the listing`);
          // seed 003 §II: the token holds the active mask and the operand's PC.
          const pushed = [...tokens, { type: PUSHES[opcode]!, mask: live, pc: target }];
          return live === 0
            ? { kind: 'ok', state: unwind(tokens) }
            : { kind: 'ok', state: { pc: next, mask: live, tokens: pushed } };
        }
        if (kind === 'pop') return pop(tokens, pc, live);
        if (kind === 'unwind') {
          // DECISION (SEMANTICS §3.3): BRK/CONT lanes leave the active mask and every token above
          // the nearest PBK/PCNT; that token keeps them and resumes them at its PC when popped.
          const part = (ev.kind === 'barrier' ? ev.mask & live : 0) >>> 0;
          const rest = (live & ~part) >>> 0;
          if (part !== 0) {
            const want = UNWINDS_TO[opcode]!;
            let i = tokens.length - 1;
            while (i >= 0 && tokens[i]!.type !== want) i--;
            if (i < 0)
              return stop(
                'undefined-behavior',
                `${opcode} at pc ${pc}: no ${want} token on the stack for lanes ${hex(part)}`,
              );
            tokens = strip(tokens, part, i + 1);
          }
          return rest !== 0
            ? { kind: 'ok', state: { pc: next, mask: rest, tokens } }
            : { kind: 'ok', state: unwind(tokens) };
        }
        return stop('unsupported', `${opcode} at pc ${pc} is not a Fermi instruction`);
      }

      if (popFlag[pc]) {
        // The `.S` flag pops after the instruction's own effect (seed 003 §II); it makes no sense
        // on an instruction that itself sends lanes elsewhere (DECISION: unsupported there).
        if (groups.length > 1 || (groups.length === 1 && groups[0]!.pc !== pc + 1))
          return stop('unsupported', `.S at pc ${pc} on an instruction that branches`);
        return pop(tokens, pc, live);
      }

      if (ev.kind === 'call' && ev.mask !== 0) {
        // DECISION (SEMANTICS §3.3): CALL pushes (CALL, active, return pc); the callers run the
        // callee; lanes that do not call wait in the token at the return PC (= pc + 1).
        const callee = groups.find((g) => g.pc !== ev.returnPc) ?? { pc: ev.returnPc };
        return {
          kind: 'ok',
          state: {
            pc: callee.pc,
            mask: ev.mask,
            tokens: [...tokens, { type: 'CALL', mask: live, pc: ev.returnPc }],
          },
        };
      }
      if (ev.kind === 'ret') {
        // DECISION (SEMANTICS §3.3): RET unwinds to the nearest CALL token (PRET + RET needs a
        // return without an open CALL, which the lanes layer reads as an exit: not modelled).
        let i = tokens.length - 1;
        while (i >= 0 && tokens[i]!.type !== 'CALL' && tokens[i]!.type !== 'PRET') i--;
        const back = i >= 0 ? tokens[i]! : null;
        if (back === null || back.type !== 'CALL')
          return stop(
            'unsupported',
            `RET at pc ${pc}: no CALL token on the stack (${back ? 'PRET + RET is not modelled' : 'a return the token stack cannot follow'})`,
          );
        const wrong = groups.find((g) => (g.mask & ev.mask) !== 0 && g.pc !== back.pc);
        if (wrong)
          return stop(
            'unsupported',
            `RET at pc ${pc} returns lanes to pc ${wrong.pc}, not to their CALL's return point ${back.pc}`,
          );
        tokens = strip(tokens, ev.mask, i + 1);
        const rest = (live & ~ev.mask) >>> 0;
        return rest !== 0
          ? { kind: 'ok', state: { pc: pc + 1, mask: rest, tokens } }
          : { kind: 'ok', state: unwind(tokens) };
      }

      if (groups.length === 0) return { kind: 'ok', state: unwind(tokens) };
      if (groups.length === 1) {
        const g = groups[0]!;
        return { kind: 'ok', state: { pc: g.pc, mask: g.mask, tokens } };
      }
      // Divergence (seed 003 §II): push (DIV, taken lanes, target) and run the not-taken lanes at
      // pc + 1 (`not-taken-first`, the paper's order); `taken-first` is the mirror image. With more
      // than two groups (BRX; DECISION) the first group runs and the others are pushed so that they
      // run in ascending PC order.
      const fall = groups.find((g) => g.pc === pc + 1);
      const first =
        opts.order === 'not-taken-first'
          ? (fall ?? groups[0]!)
          : (groups.find((g) => g.pc !== pc + 1) ?? groups[0]!);
      const pushed = tokens.slice();
      for (let j = groups.length - 1; j >= 0; j--) {
        const g = groups[j]!;
        if (g !== first) pushed.push({ type: 'DIV', mask: g.mask, pc: g.pc });
      }
      return { kind: 'ok', state: { pc: first.pc, mask: first.mask, tokens: pushed } };
    },
    refOutcome(next, issue, outcome) {
      // Where the lanes of a pop, BRK, CONT go is the token stack's to say: each issued lane runs
      // next where `next` holds it — the active path, else the top-most token that has it.
      const k = kindAt[issue.pc];
      if (!(k === 'pop' || k === 'unwind' || popFlag[issue.pc])) return outcome;
      const lanes = (issue.mask & ~outcome.exited) >>> 0;
      const byPc = new Map<number, number>();
      for (let m = lanes; m !== 0; m &= m - 1) {
        const bit = (m & -m) >>> 0;
        let at = -1;
        if ((next.mask & bit) !== 0) at = next.pc;
        else
          for (let i = next.tokens.length - 1; i >= 0 && at < 0; i--)
            if ((next.tokens[i]!.mask & bit) !== 0) at = next.tokens[i]!.pc;
        if (at >= 0) byPc.set(at, ((byPc.get(at) ?? 0) | bit) >>> 0);
      }
      const regrouped: Group[] = [...byPc.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([pc, mask]) => ({ pc, mask }));
      return { ...outcome, groups: regrouped };
    },
    ready: (s) => s.mask,
    key(s, out: KeySink) {
      out.push(s.pc + 1);
      out.mask(s.mask);
      const t = s.tokens;
      out.push(t.length);
      for (let i = 0; i < t.length; i++) {
        const e = t[i]!;
        out.push(TYPE_CODE[e.type]);
        out.mask(e.mask);
        out.push(e.pc);
      }
    },
    lanePcs(s, visit) {
      // A lane resumes at the active PC or at the PC of a token that holds it; tokens are pushed
      // only by stack instructions (everything live after them) and branches (static targets).
      if (s.mask !== 0) visit(s.pc, s.mask);
      for (let i = 0; i < s.tokens.length; i++) visit(s.tokens[i]!.pc, s.tokens[i]!.mask);
    },
    view(s, fmt: Formatter): StateView {
      const top = [...s.tokens].reverse();
      const active = s.mask !== 0 ? { pc: fmt.pc(s.pc), mask: fmt.mask(s.mask) } : null;
      const depth = Math.max(3, top.length);
      // seed 003 Fig. 2c: PC | Active Mask | TOS | TOS-1 | TOS-2 ("Empty" below the last token).
      const cells = Array.from({ length: depth }, (_, i) => {
        const t = top[i];
        return t ? `${t.type}, ${fmt.mask(t.mask)}, ${fmt.pc(t.pc)}` : 'Empty';
      });
      return {
        tables: [
          {
            title: 'Token stack (seed 003 Fig. 2c layout)',
            columns: ['PC', 'Active Mask', ...cells.map((_, i) => (i === 0 ? 'TOS' : `TOS-${i}`))],
            rows: [[active ? active.pc : '-', active ? active.mask : '-', ...cells]],
          },
        ],
        data: {
          active,
          tokens: top.map((t) => ({ type: t.type, mask: fmt.mask(t.mask), pc: fmt.pc(t.pc) })),
        },
      };
    },
  };
}

export const tokenStackFactory: MechanismFactory = {
  id: 'token-stack',
  summary:
    'Fermi token stack: SSY/DIV/PBK/PCNT/CALL tokens, .S and SYNC pops, BRK/CONT/RET unwinding',
  source: 'seed 003 §II Fig. 1–2, Table I; SEMANTICS §3.3',
  options: [
    {
      name: 'order',
      values: ['not-taken-first', 'taken-first'],
      default: 'not-taken-first',
      doc: 'which path of a divergent branch runs first; the other waits in a DIV token (seed 003 §II runs the not-taken path first)',
    },
    ...PRE_VOLTA_OPTIONS,
  ],
  create: (ctx, o) =>
    createTokenStack(ctx, {
      order: (o['order'] ?? 'not-taken-first') as TokenOrder,
      foreign: (o['foreign'] ?? 'nop') as 'nop' | 'reject',
      warpsync: (o['warpsync'] ?? 'check') as 'check' | 'nop' | 'reject',
    }) as Mechanism<unknown>,
};

export { TYPES as TOKEN_TYPES };
