import { operandsOf } from '../isa/operands.ts';
import type { Op } from '../isa/op.ts';
import { addrValue, predTrue, predUnknown } from '../lanes/execute.ts';
import type { LaneData } from '../lanes/laneData.ts';
import { UNKNOWN } from '../lanes/laneData.ts';
import type { Machine } from '../machine/machine.ts';
import type { Issue } from '../mechanisms/mechanism.ts';
import { compressAddresses, OLDER_TRACE_FORMAT } from '../trace/printTraceg.ts';
import type { Trace, TraceBlock, TraceInst } from '../trace/trace.ts';
import { printProgram } from '../isa/printProgram.ts';
import { scenarioProgram } from './files.ts';
import type { Scenario } from './schema.ts';

/**
 * A scenario's run as an Accel-Sim trace (issue 15): one instruction line per issued warp
 * instruction, in issue order per warp, with the fields NVBit's tracer records — byte PC, the
 * issued lanes whose guard was true (the tracer's mask convention, as in `shared/traces/`), one
 * destination and up to four source registers, and for memory instructions the width and one
 * address per such lane.
 *
 * Decisions (docs/validation.md "Exporting a scenario"):
 * - PC = 16 × instruction index (Volta+ encodes 128-bit instructions; `warpcheck validate` rebuilds
 *   one instruction per 16 bytes);
 * - a warp of 32 lanes: one thread block of K warps; fewer lanes: Accel-Sim's warps are 32 wide,
 *   so each warp of the scenario is a thread block of W threads (grid K × 1 × 1, `warp = 0`), and
 *   the blocks share global memory as the scenario's warps do;
 * - a merged issue (opcode-convergent, seed 002 §4.5) is two lines, one per PC, as
 *   `replayTrace` records it;
 * - a livelock's lasso is written as its prefix and `turns` turns of its cycle; the trace ends
 *   there, with lanes still running;
 * - a step that stops the run (a violation) is not an executed instruction and is left out.
 */
export interface ScenarioTrace {
  readonly trace: Trace;
  /** Steps of the schedule written (a livelock's prefix plus its turns). */
  readonly steps: number;
  /** Why the schedule could not be followed, if it could not (the trace holds what came before). */
  readonly problem: string | null;
}

/** Bytes per lane of a memory opcode: a size modifier (`64`, `128`, `U8`, `S16`), else 4. */
function memWidthOf(modifiers: readonly string[]): number {
  for (const m of modifiers) {
    const n = /^[US]?(8|16|32|64|128)$/.exec(m);
    if (n) return Number(n[1]) / 8;
  }
  return 4;
}

const memoryAddr = (op: Op) =>
  op.kind === 'load' || op.kind === 'store' || op.kind === 'atomic' ? op.addr : null;

/** Bit indices of a mask, ascending. */
const lanesOf = (mask: number): number[] => {
  const out: number[] = [];
  for (let m = mask >>> 0; m !== 0; m &= m - 1) out.push(31 - Math.clz32(m & -m));
  return out;
};

export function scenarioTrace(
  machine: Machine,
  scenario: Scenario,
  options: { readonly turns: number },
): ScenarioTrace {
  const loop = scenario.loop ?? null;
  const schedule =
    loop === null
      ? scenario.schedule
      : [
          ...scenario.schedule.slice(0, loop),
          ...Array.from({ length: Math.max(1, options.turns) }, () =>
            scenario.schedule.slice(loop),
          ).flat(),
        ];
  const { launch, program, ops, ctx } = machine;
  const full = ctx.full;
  const perWarp: TraceInst[][] = Array.from({ length: launch.warps }, () => []);
  /** One line for one half of an issue; `before`/`after` are the warp's lane data around it. */
  const line = (half: Issue, before: LaneData, after: LaneData | null): TraceInst => {
    const op = ops[half.pc]!;
    const ins = program.instructions[half.pc]!;
    // Guard-true lanes; a guard unknown before the issue is read after it, where the outcome the
    // schedule chose has fixed it (SEMANTICS §5), and counts as true while it stays unknown.
    const sure = predTrue(before, op.guard, full) & predTrue(before, op.pred2, full);
    const maybe = (predUnknown(before, op.guard) | predUnknown(before, op.pred2)) & ~sure;
    let resolved = maybe;
    if (maybe !== 0 && after) {
      const fixed = predTrue(after, op.guard, full) & predTrue(after, op.pred2, full);
      const still = predUnknown(after, op.guard) | predUnknown(after, op.pred2);
      resolved = maybe & (fixed | still);
    }
    const mask = ((sure | resolved) & half.mask) >>> 0;
    const o = operandsOf(op);
    const addr = memoryAddr(op);
    const memWidth = addr && mask !== 0 ? memWidthOf(ins.modifiers) : 0;
    return {
      line: 0,
      pc: half.pc * 16,
      mask,
      opcode: ins.opcode,
      modifiers: ins.modifiers,
      // Accel-Sim reads at most one destination and four sources (trace_parser.h MAX_DST, MAX_SRC).
      dests: o.writeRegs.slice(0, 1),
      srcs: o.readRegs.slice(0, 4),
      memWidth,
      addresses:
        memWidth === 0
          ? { kind: 'none' }
          : compressAddresses(
              lanesOf(mask).map((l) => {
                const a = addrValue(ctx, before, l, addr!);
                return a === UNKNOWN ? 0 : a;
              }),
            ),
      imm: null,
    };
  };
  let state = machine.initial();
  let problem: string | null = null;
  let steps = 0;
  for (const c of schedule) {
    const succ = machine.successors(state);
    const t = succ[c];
    if (t === undefined) {
      problem = `step ${steps + 1}: choice ${c} does not exist (the state offers ${succ.length})`;
      break;
    }
    if (t.stop || !t.next) break;
    const before = state.warps[t.warp]!.data;
    const after = t.next.warps[t.warp]!.data;
    const merged = t.issue.merged;
    if (merged) {
      // The halves run in turn on the same lanes; each line reads the state before the issue
      // (merged halves are data instructions of different lanes).
      perWarp[t.warp]!.push(line({ pc: t.issue.pc, mask: t.issue.mask }, before, after));
      perWarp[t.warp]!.push(line(merged, before, after));
    } else perWarp[t.warp]!.push(line(t.issue, before, after));
    state = t.next;
    steps++;
  }
  const W = launch.warpSize;
  const K = launch.warps;
  const oneBlock = W === 32;
  const blocks: TraceBlock[] = oneBlock
    ? [
        {
          block: [0, 0, 0],
          warps: perWarp.map((insts, k) => ({ warp: k, declared: insts.length, insts })),
        },
      ]
    : perWarp.map((insts, k) => ({
        block: [k, 0, 0] as const,
        warps: [{ warp: 0, declared: insts.length, insts }],
      }));
  const kernel = program.functions[0]?.name ?? 'kernel';
  const header: Record<string, string> = {
    '-kernel name': kernel,
    '-kernel id': '1',
    '-grid dim': oneBlock ? '(1,1,1)' : `(${K},1,1)`,
    '-block dim': oneBlock ? `(${32 * K},1,1)` : `(${W},1,1)`,
    '-shmem': '0',
    '-nregs': String(ctx.layout.count),
    '-binary version': '70',
    '-cuda stream id': '0',
    'traces format': OLDER_TRACE_FORMAT,
  };
  return { trace: { header, format: 'with-tb-warp', blocks }, steps, problem };
}

/**
 * The listing written next to an exported trace: the scenario's own program text when its
 * instructions sit at 16 × index (every hand-written listing), else the program printed on that
 * grid (a listing with 8-byte Fermi offsets), so that its addresses are the trace's PCs.
 */
export function traceListing(machine: Machine, scenario: Scenario, scenarioFile: string): string {
  const p = machine.program;
  if (p.instructions.every((ins, i) => ins.offset === i * 16)) {
    const text = scenarioProgram(scenario, scenarioFile);
    if (text.ok) return text.text;
  }
  return printProgram({
    ...p,
    instructions: p.instructions.map((ins, i) => ({ ...ins, offset: i * 16 })),
  });
}
