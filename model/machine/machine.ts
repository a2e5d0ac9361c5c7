import type { Op } from '../isa/op.ts';
import type { Program } from '../isa/program.ts';
import { execContext, type ExecContext, type LaneOptions } from '../lanes/execContext.ts';
import { execute } from '../lanes/execute.ts';
import { initialLaneData, type LaneData } from '../lanes/laneData.ts';
import type { Launch } from '../lanes/launch.ts';
import { memoryOf, type Memory } from '../lanes/memory.ts';
import type {
  Formatter,
  Issue,
  Mechanism,
  MechanismContext,
  MechanismFactory,
} from '../mechanisms/mechanism.ts';
import { binMask } from '../lanes/values.ts';
import { KeyWriter } from './key.ts';

/** One warp: its mechanism's state and its lanes' thread state. */
export interface WarpState {
  readonly mech: unknown;
  readonly data: LaneData;
}

/** A block of K warps sharing memory (SEMANTICS §1). Plain, immutable data. */
export interface MachineState {
  readonly warps: readonly WarpState[];
  readonly memory: Memory;
}

/** Verdicts a single step can end a run with (SEMANTICS §6). */
export type StopVerdict =
  'undefined-behavior' | 'trap' | 'resource-exhausted' | 'violation' | 'unsupported';

export interface Stop {
  readonly verdict: StopVerdict;
  readonly property?: string;
  readonly message: string;
}

/**
 * One possible step from a state: warp `warp` issues `issue`; `choice` names a data alternative
 * (an unknown predicate's outcome, an atomic's winner). Exactly one of `next` and `stop` is set.
 */
export interface Transition {
  readonly warp: number;
  readonly issue: Issue;
  /** Index of (warp, issue) among the state's issues: alternatives of one issue share it. */
  readonly group: number;
  readonly choice: string | null;
  /** The alternative resolves an unknown value (fair choice, SEMANTICS §5). */
  readonly unknownChoice: boolean;
  readonly next: MachineState | null;
  readonly stop: Stop | null;
}

/** Everything needed to run one program on one mechanism under one launch. */
export interface Machine {
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly launch: Launch;
  readonly ctx: ExecContext;
  readonly mechanism: Mechanism<unknown>;
  /** The mechanism's options, defaults filled in. */
  readonly options: Readonly<Record<string, string>>;
  readonly fmt: Formatter;
  initial(): MachineState;
  /** Every step possible from `s`, in a fixed order: a schedule is a list of indices into it. */
  successors(s: MachineState): Transition[];
  /** `terminated`: every lane exited; `blocked`: some lane has not, and nothing can issue. */
  status(s: MachineState): 'running' | 'terminated' | 'blocked';
  key(s: MachineState): string;
  /** Lanes that have not exited, per warp. */
  live(s: MachineState): number[];
}

const NOP: Op = { kind: 'nop', guard: null, pred2: null };

/** Formats PCs with the program's labels (else `fn+0x0050`-style offsets) and masks in binary. */
export function formatterFor(program: Program, warpSize: number): Formatter {
  const names = new Map<number, string>();
  for (const l of program.labels) if (!names.has(l.pc)) names.set(l.pc, l.name);
  for (const f of program.functions)
    if (!names.has(f.start) && program.functions.length > 1) names.set(f.start, f.name);
  return {
    pc: (pc) =>
      names.get(pc) ??
      '0x' + (program.instructions[pc]?.offset ?? pc * 16).toString(16).padStart(4, '0'),
    mask: (m) => binMask(m, warpSize),
  };
}

export interface MachineSpec {
  readonly program: Program;
  readonly ops: readonly Op[];
  readonly launch: Launch;
  readonly factory: MechanismFactory;
  readonly options: Readonly<Record<string, string>>;
  readonly lanes: LaneOptions;
  readonly entry: number;
  ipdom(pc: number): number;
}

export function createMachine(spec: MachineSpec): Machine {
  const { program, ops, launch } = spec;
  const ctx = execContext(program, ops, launch, spec.lanes);
  const mctx: MechanismContext = {
    program,
    ops,
    warpSize: launch.warpSize,
    full: ctx.full,
    entry: spec.entry,
    ipdom: spec.ipdom,
  };
  const mech = spec.factory.create(mctx, spec.options);
  const keyWriter = new KeyWriter();
  const n = program.instructions.length;

  const successors = (s: MachineState): Transition[] => {
    const out: Transition[] = [];
    let group = 0;
    for (let w = 0; w < s.warps.length; w++) {
      const warp = s.warps[w]!;
      for (const issue of mech.candidates(warp.mech)) {
        const g = group++;
        const base = { warp: w, issue, group: g };
        const op = issue.pc >= 0 && issue.pc < n ? ops[issue.pc]! : null;
        if (op === null) {
          out.push({
            ...base,
            choice: null,
            unknownChoice: false,
            next: null,
            stop: {
              verdict: 'undefined-behavior',
              message: `warp ${w} lanes ${binMask(issue.mask, launch.warpSize)} ran past the end of the program (pc ${issue.pc})`,
            },
          });
          continue;
        }
        const policy = mech.policy(op);
        if (policy === 'reject') {
          const ins = program.instructions[issue.pc]!;
          out.push({
            ...base,
            choice: null,
            unknownChoice: false,
            next: null,
            stop: {
              verdict: 'unsupported',
              message: `${mech.id} has no meaning for ${[ins.opcode, ...ins.modifiers].join('.')} at pc ${issue.pc} (its foreign-instruction policy rejects it)`,
            },
          });
          continue;
        }
        const results = execute(
          ctx,
          policy === 'nop' ? NOP : op,
          issue.pc,
          w,
          warp.data,
          s.memory,
          issue.mask,
        );
        const alternatives = results.length > 1;
        for (const r of results) {
          if (r.kind === 'stop') {
            out.push({
              ...base,
              choice: null,
              unknownChoice: false,
              next: null,
              stop: { verdict: r.verdict, message: r.message },
            });
            continue;
          }
          const adv = mech.advance(warp.mech, issue, r.outcome, r.data.exited);
          const unknownChoice = alternatives && r.choice !== null && r.choice.startsWith('unknown');
          if (adv.kind === 'stop') {
            out.push({
              ...base,
              choice: r.choice,
              unknownChoice,
              next: null,
              stop: {
                verdict: adv.verdict,
                message: adv.message,
                ...(adv.property ? { property: adv.property } : {}),
              },
            });
            continue;
          }
          const warps = s.warps.slice();
          warps[w] = { mech: adv.state, data: r.data };
          out.push({
            ...base,
            choice: r.choice,
            unknownChoice,
            next: { warps, memory: r.memory },
            stop: null,
          });
        }
      }
    }
    return out;
  };

  const live = (s: MachineState) => s.warps.map((w) => (ctx.full & ~w.data.exited) >>> 0);

  return {
    program,
    ops,
    launch,
    ctx,
    mechanism: mech,
    options: spec.options,
    fmt: formatterFor(program, launch.warpSize),
    initial: () => ({
      warps: Array.from({ length: launch.warps }, (_, k) => ({
        mech: mech.init(),
        data: initialLaneData(ctx.layout, launch, k),
      })),
      memory: memoryOf(launch.memory),
    }),
    successors,
    status(s) {
      if (live(s).every((m) => m === 0)) return 'terminated';
      return s.warps.some((w) => mech.candidates(w.mech).length > 0) ? 'running' : 'blocked';
    },
    key(s) {
      const k = keyWriter;
      for (const w of s.warps) {
        mech.key(w.mech, k);
        const d = w.data;
        k.push(d.exited);
        for (let i = 0; i < d.regs.length; i++) k.push(d.regs[i]!);
        for (let p = 0; p < 7; p++) {
          k.push(d.preds[p]!);
          k.push(d.predsUnknown[p]!);
        }
        for (const c of d.calls) k.pushAll(c);
      }
      k.push(s.memory.havoc ? 1 : 0);
      k.pushAll(s.memory.cells);
      return k.finish();
    },
    live,
  };
}
