/**
 * The program a hardware trace implies (issue 7): one instruction per 16-byte PC from the first to
 * the last PC the warp executed, with the opcodes the trace records and the control-flow operands
 * recovered from the lanes' paths (`lanePaths`, `controlSkeleton`). Data instructions become NOPs:
 * replay takes every lane's outcome from its recorded path, so only control flow matters.
 *
 * What the trace does not give, and how it is reconstructed (docs/validation.md):
 * - branch targets: the successors lanes were seen to go to, other than pc + 16. A branch no lane
 *   took keeps a placeholder target pc + 1 (it never runs there). A branch some lane fell through
 *   (guard false) gets the placeholder guard `@P0`; the predicate itself is never evaluated.
 * - CALL targets: the same; a CALL no lane took becomes a NOP (its target is unknown).
 * - BSSY/BSYNC operands: per lane, each BSYNC closes the innermost open BSSY (a stack along the
 *   lane's path). The BSSY's target is the PC after its BSYNC (the compiler's reconvergence label
 *   sits after the BSYNC); its register is B<d>, d the number of BSSY regions open around it (the
 *   compiler's nesting allocation; the real register number is not in the trace). A BSSY no lane
 *   closes keeps no target (mechanisms report it `unsupported`).
 * - BREAK: the register of the innermost open BSSY of the lanes that run it (B0 when none).
 * - WARPSYNC: the `immediate` column when the trace has one; otherwise 0xffffffff, the full warp
 *   (`__syncthreads()` compiles to `WARPSYNC 0xffffffff` before `BAR.SYNC`).
 * - RET: `RET.REL.NODEC R<n> 0x0` with the register the tracer lists; never evaluated.
 * - BMOV (B register spills): the trace names neither the B register nor the value; a NOP.
 */
import {
  err,
  ok,
  type Diagnostic,
  type FunctionInfo,
  type Instruction,
  type Operand,
  type PredRef,
  type Program,
  type Result,
} from '../isa/program.ts';
import { controlSkeleton, INST_STRIDE, type LanePaths, type SkeletonInst } from './lanePaths.ts';
import type { TraceWarp } from './trace.ts';

/** A program rebuilt from a trace, and what was reconstructed rather than read. */
export interface TraceProgram {
  readonly program: Program;
  /** Instruction index of the warp's first PC. */
  readonly entry: number;
  /** Byte PC of instruction index i is `base + 16 i`. */
  readonly base: number;
  /** The skeleton the program was built from (sorted by PC). */
  readonly skeleton: readonly SkeletonInst[];
  /** One line per reconstruction that was a guess or a placeholder. */
  readonly notes: readonly string[];
}

const P0: PredRef = { index: 0, negated: false };
const hex = (pc: number) => '0x' + pc.toString(16).padStart(4, '0');

/** Pairs each BSSY with the BSYNC that closes it on the lanes' paths, with its nesting depth. */
interface Region {
  /** BSYNC byte PCs that closed it, with how many lanes. */
  readonly closers: Map<number, number>;
  readonly depths: Set<number>;
}

function regions(paths: LanePaths, opcodeAt: (pc: number) => string | undefined) {
  const bssy = new Map<number, Region>();
  /** For BSYNC and BREAK byte PCs: the BSSY PCs lanes had open innermost when they ran them. */
  const closes = new Map<number, Set<number>>();
  const note = (pc: number, open: number | undefined) => {
    if (open === undefined) return;
    const s = closes.get(pc) ?? new Set<number>();
    s.add(open);
    closes.set(pc, s);
  };
  for (const lane of paths.lanes) {
    const open: number[] = [];
    for (const step of lane.steps) {
      const op = opcodeAt(step.pc);
      if (op === 'BSSY') {
        const r = bssy.get(step.pc) ?? { closers: new Map(), depths: new Set<number>() };
        r.depths.add(open.length);
        bssy.set(step.pc, r);
        open.push(step.pc);
      } else if (op === 'BSYNC' && step.kind === 'issued') {
        const top = open.pop();
        note(step.pc, top);
        if (top !== undefined) {
          const c = bssy.get(top)!.closers;
          c.set(step.pc, (c.get(step.pc) ?? 0) + 1);
        }
      } else if (op === 'BREAK' && step.kind === 'issued') {
        note(step.pc, open[open.length - 1]);
      }
    }
  }
  return { bssy, closes };
}

/**
 * The program of `warp` (PCs `paths` was computed on, same warp size). Fails only when the PCs
 * are not on the 16-byte grid the Volta+ encoding uses.
 */
export function traceProgram(
  warp: TraceWarp,
  paths: LanePaths,
  options: { readonly file?: string; readonly kernel?: string } = {},
): Result<TraceProgram> {
  const file = options.file ?? '<traceg>';
  const skeleton = controlSkeleton(warp, paths.warpSize);
  if (skeleton.length === 0)
    return err([{ file, line: 1, column: 1, message: 'the warp executed no instruction' }]);
  const bad = warp.insts.find((i) => i.pc % INST_STRIDE !== skeleton[0]!.pc % INST_STRIDE);
  if (bad !== undefined)
    return err([
      {
        file,
        line: bad.line,
        column: 1,
        message: `PC ${hex(bad.pc)} is not on the ${INST_STRIDE}-byte grid of the other PCs (Volta and later encode 128-bit instructions)`,
      } satisfies Diagnostic,
    ]);
  const base = skeleton[0]!.pc;
  const byPc = new Map(skeleton.map((e) => [e.pc, e]));
  const last = skeleton[skeleton.length - 1]!.pc;
  const n = (last - base) / INST_STRIDE + 1;
  const idx = (pc: number) => (pc - base) / INST_STRIDE;
  const notes: string[] = [];
  const { bssy, closes } = regions(paths, (pc) => byPc.get(pc)?.opcode);

  // Register of each BSSY: its nesting depth (the largest seen, if lanes disagree).
  const regOf = new Map<number, number>();
  for (const [pc, r] of bssy) {
    const d = Math.max(...r.depths);
    if (r.depths.size > 1)
      notes.push(`BSSY at ${hex(pc)}: lanes see nesting depths ${[...r.depths].join(', ')}; B${d}`);
    regOf.set(pc, d);
  }
  const closingReg = (pc: number, what: string): number => {
    const opens = [...(closes.get(pc) ?? [])];
    if (opens.length === 0) {
      notes.push(`${what} at ${hex(pc)}: no open BSSY on any lane's path; B0`);
      return 0;
    }
    const regs = [...new Set(opens.map((o) => regOf.get(o) ?? 0))];
    if (regs.length > 1)
      notes.push(
        `${what} at ${hex(pc)} closes BSSYs with registers ${regs.join(', ')}; B${regs[0]}`,
      );
    return regs[0]!;
  };

  // Functions: the kernel from the first PC, and one per CALL target.
  const callees = new Set<number>();
  for (const e of skeleton)
    if (e.opcode === 'CALL')
      for (const t of e.successors) if (t !== e.pc + INST_STRIDE && t > base) callees.add(t);
  const starts = [base, ...[...callees].sort((a, b) => a - b)];
  const functions: FunctionInfo[] = starts.map((s, i) => ({
    name: i === 0 ? (options.kernel ?? 'kernel') : `sub_${hex(s)}`,
    start: idx(s),
    end: i + 1 < starts.length ? idx(starts[i + 1]!) : n,
  }));

  const reg = (index: number): Operand => ({ kind: 'reg', index, reuse: false });
  const target = (pc: number): Operand => ({ kind: 'target', pc: idx(pc) });
  const instructions: Instruction[] = [];
  for (let i = 0; i < n; i++) {
    const pc = base + i * INST_STRIDE;
    const e = byPc.get(pc);
    const nop = (why?: string): Instruction => {
      if (why) notes.push(why);
      return { offset: pc, guard: null, opcode: 'NOP', modifiers: [], operands: [] };
    };
    if (e === undefined) {
      instructions.push(nop());
      continue;
    }
    const fell = e.successors.includes(pc + INST_STRIDE);
    const away = e.successors.filter((t) => t !== pc + INST_STRIDE);
    const inst = (
      operands: readonly Operand[],
      guard: PredRef | null = null,
      modifiers: readonly string[] = e.modifiers,
    ): Instruction => ({ offset: pc, guard, opcode: e.opcode, modifiers, operands });
    switch (e.opcode) {
      case 'BRA':
      case 'JMP':
      case 'BRX':
      case 'BRXU':
      case 'JMX':
      case 'JMXU': {
        const guard = fell ? P0 : null;
        if (away.length === 0) {
          notes.push(
            `${e.opcode} at ${hex(pc)}: no lane took it; placeholder target ${hex(pc + INST_STRIDE)}`,
          );
          instructions.push({
            ...inst([target(pc + INST_STRIDE)], P0),
            opcode: 'BRA',
            modifiers: [],
          });
        } else if (away.length === 1)
          instructions.push({ ...inst([target(away[0]!)], guard), opcode: 'BRA' });
        else
          // Several observed targets: an indirect branch with its targets declared.
          instructions.push({
            ...inst([reg(0), ...away.map(target)], guard),
            opcode: 'BRX',
            modifiers: [],
          });
        break;
      }
      case 'CALL':
        if (away.length !== 1) {
          instructions.push(
            nop(
              `CALL at ${hex(pc)}: ${away.length === 0 ? 'no lane took it, target unknown' : 'several targets'}; a NOP`,
            ),
          );
          break;
        }
        instructions.push(inst([target(away[0]!)], fell ? P0 : null));
        break;
      case 'RET': {
        const traced = warp.insts.find((x) => x.pc === pc);
        const r = traced?.dests[0] ?? traced?.srcs[0] ?? 20;
        instructions.push(inst([reg(r), { kind: 'imm', value: 0 }], fell ? P0 : null));
        break;
      }
      case 'EXIT':
      case 'KILL':
        instructions.push(inst([], fell ? P0 : null));
        break;
      case 'BSSY': {
        const r = bssy.get(pc);
        const closers = r ? [...r.closers.entries()].sort((a, b) => b[1] - a[1]) : [];
        const b: Operand = { kind: 'breg', index: regOf.get(pc) ?? 0 };
        if (closers.length === 0) {
          notes.push(`BSSY at ${hex(pc)}: no lane reaches a BSYNC for it; target unknown`);
          instructions.push(inst([b, { kind: 'symbol', name: 'unknown' }]));
          break;
        }
        if (closers.length > 1)
          notes.push(
            `BSSY at ${hex(pc)} is closed by BSYNCs at ${closers.map(([p]) => hex(p)).join(', ')}; target after ${hex(closers[0]![0])}`,
          );
        instructions.push(inst([b, target(closers[0]![0] + INST_STRIDE)]));
        break;
      }
      case 'BSYNC':
        instructions.push(inst([{ kind: 'breg', index: closingReg(pc, 'BSYNC') }]));
        break;
      case 'BREAK':
        instructions.push(inst([{ kind: 'breg', index: closingReg(pc, 'BREAK') }]));
        break;
      case 'WARPSYNC': {
        const imm = warp.insts.find((x) => x.pc === pc)?.imm ?? null;
        if (imm === null && !e.modifiers.includes('ALL'))
          notes.push(`WARPSYNC at ${hex(pc)}: mask not in the trace; 0xffffffff (the full warp)`);
        instructions.push(
          e.modifiers.includes('ALL')
            ? inst([])
            : inst([{ kind: 'imm', value: imm === null ? 0xffffffff : imm >>> 0 }]),
        );
        break;
      }
      case 'BMOV':
        instructions.push(nop(`BMOV at ${hex(pc)}: B register and value not in the trace; a NOP`));
        break;
      default:
        // YIELD, NANOSLEEP, BPT and the Fermi/GCN stack opcodes keep their opcode without
        // operands. Data instructions keep their opcode too (mechanisms that merge equal opcodes,
        // seed 002 §4, must see them) but no operands: they decode as opaque ops that write
        // nothing, as inert as a NOP — replay never evaluates them.
        instructions.push(inst([]));
    }
  }
  return ok({
    program: { functions, instructions, labels: [] },
    entry: idx(warp.insts[0]!.pc),
    base,
    skeleton,
    notes,
  });
}
