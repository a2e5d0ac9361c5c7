import type { Op } from '../isa/op.ts';
import { execContext } from '../lanes/execContext.ts';
import { execute } from '../lanes/execute.ts';
import { initialLaneData, type LaneData } from '../lanes/laneData.ts';
import type { Launch } from '../lanes/launch.ts';
import { memoryOf, writeMemoryKey, type Memory } from '../lanes/memory.ts';
import type {
  BlockContext,
  BlockFormatter,
  BlockGroup,
  BlockIssue,
  BlockMechanism,
} from '../mechanisms/blockMechanism.ts';
import type { Issue, Mechanism, Policy } from '../mechanisms/mechanism.ts';
import {
  formatThreads,
  homeLanesOf,
  intersects,
  lowestThread,
  union,
  type BlockShape,
  type ThreadMask,
} from '../mechanisms/threadMask.ts';
import { formatterFor } from './formatter.ts';
import { KeyWriter } from './key.ts';
import { deadOutputsAt, liveness } from './liveness.ts';
import { blockWarpKey } from './blockKeys.ts';
import type { Machine, MachineSpec, MachineState, WarpStep } from './machineTypes.ts';
import { endingStep, stopStep } from './mergedIssue.ts';

const NOP: Op = { kind: 'nop', guard: null, pred2: null };

/**
 * The block machine's one warp state (`WarpState.mech`): the block mechanism's state and the
 * lanes of every home warp. `WarpState.data` is home warp 0's lanes (for readers that expect one
 * warp; the block's are `homes`).
 */
export interface BlockWarp {
  readonly block: unknown;
  readonly homes: readonly LaneData[];
}

/**
 * The machine of a block mechanism past 32 threads (issue 10): K home warps of W lanes, K·W up
 * to 256, under one block mechanism state (`mechanisms/blockMechanism.ts`). The explorer sees the
 * block as one warp (`launch.warps` = 1): every step is one formed warp, which changes the lanes
 * of several home warps at once.
 *
 * A formed warp (a PC and a `ThreadMask`) executes word k on home warp k with the lanes' own
 * `execute` (`lanes/execute.ts`, unchanged), home warp after home warp in ascending order
 * (descending under `atomicOrder=descending`), each on the memory the previous left: the order
 * of the block view's lanes (thread t = k·W + l, ascending), so stores and atomics of one formed
 * warp land as they do at K·W ≤ 32. Alternatives (unknown predicates, explored atomics) multiply
 * across home warps. The mechanism then sees one outcome over the block's threads.
 *
 * Fairness per thread is checked per *place* (`WarpSteps.places`): a formed warp's place is its
 * lowest thread. Exact for `tbc`, `dwf`, `lwm` (docs/semantics.md "Block mechanisms"): formed
 * warps partition the ready threads, and a formed warp that does not issue only grows (`dwf`
 * joins) or loses exited threads, so in a strongly connected set of states where thread t never
 * issues, t's formed warp — and its lowest thread p — is the same throughout; a step that issues
 * p issues t.
 *
 * Keys: exact (`key`), or with the dead-value reduction (`behaviourKey`, the explorer's reduced
 * keys; `liveness.ts` over the PCs `BlockMechanism.lanePcs` reports per thread). Not on this
 * machine (docs/semantics.md): the refinement check against `its` (the reference is per warp of
 * ≤ 32 lanes), lane symmetry and loop widening; a run that asks for them runs without.
 */
export function createBlockMachine(spec: MachineSpec): Machine {
  const { program, ops } = spec;
  const shape: BlockShape = { warps: spec.launch.warps, warpSize: spec.launch.warpSize };
  const K = shape.warps;
  const W = shape.warpSize;
  const ctx = execContext(program, ops, spec.launch, spec.lanes);
  const bctx: BlockContext = {
    program,
    ops,
    warpSize: W,
    full: ctx.full,
    entry: spec.entry,
    ipdom: spec.ipdom,
    ...(spec.likelyConvergence ? { likelyConvergence: spec.likelyConvergence } : {}),
    block: shape,
  };
  const bm: BlockMechanism<unknown> = spec.factory.createBlock!(bctx, spec.options);
  const n = program.instructions.length;
  const policyAt: readonly Policy[] = ops.map((op) => bm.policy(op));
  const homeOrder = Array.from({ length: K }, (_, k) =>
    ctx.atomicOrder === 'descending' ? K - 1 - k : k,
  );
  const base = formatterFor(program, W);
  const bfmt: BlockFormatter = { pc: base.pc, threads: (m) => formatThreads(shape, m) };
  /** The explorer's issue for a formed warp: `mask` is its home lanes, `threads` the threads. */
  const toIssue = (i: BlockIssue): Issue => ({
    pc: i.pc,
    mask: homeLanesOf(i.threads),
    threads: i.threads,
  });
  const issuesOf = new WeakMap<readonly BlockIssue[], readonly Issue[]>();
  const candidates = (b: BlockWarp): readonly Issue[] => {
    const list = bm.candidates(b.block);
    let out = issuesOf.get(list);
    if (!out) issuesOf.set(list, (out = list.map(toIssue)));
    return out;
  };
  const exitedOf = (homes: readonly LaneData[]): ThreadMask => homes.map((d) => d.exited);
  const liveHomes = (b: BlockWarp): number => {
    let m = 0;
    for (const d of b.homes) m |= ctx.full & ~d.exited;
    return m >>> 0;
  };

  /** The steps of formed warp `issue` (candidate `g`) from block `b` with memory `mem`. */
  const issueSteps = (b: BlockWarp, mem: Memory, issue: Issue, g: number, out: WarpStep[]) => {
    const pc = issue.pc;
    const threads = issue.threads!;
    if (!(pc >= 0 && pc < n)) {
      out.push(
        stopStep(issue, g, null, false, {
          verdict: 'undefined-behavior',
          message: `threads ${formatThreads(shape, threads)} ran past the end of the program (pc ${pc})`,
        }),
      );
      return;
    }
    if (policyAt[pc] === 'reject') {
      const ins = program.instructions[pc]!;
      out.push(
        stopStep(issue, g, null, false, {
          verdict: 'unsupported',
          message: `${bm.id} has no meaning for ${[ins.opcode, ...ins.modifiers].join('.')} at pc ${pc} (its foreign-instruction policy rejects it)`,
        }),
      );
      return;
    }
    const op = opAt[pc]!;
    interface Partial {
      readonly homes: LaneData[];
      readonly memory: Memory;
      readonly groups: BlockGroup[];
      readonly exited: number[];
      readonly choice: string | null;
      readonly unknown: boolean;
    }
    let partial: Partial[] = [
      {
        homes: b.homes.slice(),
        memory: mem,
        groups: [],
        exited: new Array<number>(K).fill(0),
        choice: null,
        unknown: false,
      },
    ];
    for (const k of homeOrder) {
      const word = threads[k]!;
      if (word === 0) continue;
      const next: Partial[] = [];
      for (const p of partial) {
        const rs = execute(ctx, op, pc, k, p.homes[k]!, p.memory, word);
        for (const r of rs) {
          const ending = endingStep(
            issue,
            g,
            p,
            r,
            (kind) => `${bm.id}: a ${kind} event at pc ${pc} has no meaning on a block mechanism`,
          );
          if (ending) {
            out.push(ending);
            continue;
          }
          if (r.kind === 'stop') continue;
          const homes = rs.length > 1 ? p.homes.slice() : p.homes;
          homes[k] = r.data;
          const groups = rs.length > 1 ? p.groups.slice() : p.groups;
          for (const gr of r.outcome.groups) {
            const at = groups.findIndex((x) => x.pc === gr.pc);
            const word = new Array<number>(K).fill(0);
            word[k] = gr.mask;
            groups[at >= 0 ? at : groups.length] = {
              pc: gr.pc,
              threads: at >= 0 ? union(groups[at]!.threads, word) : word,
            };
          }
          const exited = rs.length > 1 ? p.exited.slice() : p.exited;
          exited[k] = r.outcome.exited;
          const label = r.choice === null ? null : `warp ${k}: ${r.choice}`;
          next.push({
            homes,
            memory: r.memory,
            groups,
            exited,
            choice: label === null ? p.choice : p.choice === null ? label : `${p.choice}; ${label}`,
            unknown:
              p.unknown || (rs.length > 1 && r.choice !== null && r.choice.startsWith('unknown')),
          });
        }
      }
      partial = next;
    }
    const bi: BlockIssue = { pc, threads };
    for (const p of partial) {
      const adv = bm.advance(
        b.block,
        bi,
        { groups: p.groups.sort((x, y) => x.pc - y.pc), exited: p.exited },
        exitedOf(p.homes),
      );
      if (adv.kind === 'stop') {
        const { verdict, message } = adv;
        out.push(
          stopStep(
            issue,
            g,
            p.choice,
            p.unknown,
            adv.property ? { verdict, property: adv.property, message } : { verdict, message },
          ),
        );
        continue;
      }
      const next: BlockWarp = { block: adv.state, homes: p.homes };
      out.push({
        issue,
        group: g,
        choice: p.choice,
        unknownChoice: p.unknown,
        warp: { mech: next, data: p.homes[0]! },
        memory: p.memory,
        stop: null,
      });
    }
  };

  /**
   * The dead-value reduction (`liveness.ts`, relevance; as `warpKeys.ts` does per warp): only the
   * registers and predicates some thread may still read from the PCs the mechanism reports for
   * it (`BlockMechanism.lanePcs`, the same contract per thread as `Mechanism.lanePcs`), per home
   * warp. Block mechanisms own no B registers, so there is nothing else to reduce.
   */
  const live = liveness(
    ops,
    ctx.layout,
    (op) => bm.policy(op),
    true,
    spec.plantUnsoundRelevance ?? false,
    // Block machines keep every value live across CALL and RET: their RET steps are not checked
    // against the return sites (`explore/offGraph.ts` reads per-warp call stacks).
    'opaque',
  );
  // An ISETP whose predicates are dead after it makes no choice on a shared unknown (`Op` isetp
  // `deadOutputs`), as in the per-warp machine (`machineSetup.ts`).
  const opAt = ops.map((op, pc) => (policyAt[pc] === 'nop' ? NOP : deadOutputsAt(op, pc, live)));
  const warpKey = blockWarpKey(ops, ctx, bm, live);
  const keyWriter = new KeyWriter();
  const key = (s: MachineState): string => {
    keyWriter.reset();
    warpKey(s.warps[0]!, keyWriter, false);
    writeMemoryKey(s.memory, keyWriter);
    return keyWriter.finish();
  };
  /** Equal behaviour keys: the same future control (`Machine.behaviourKey`). */
  const behaviourKey = (s: MachineState): string => {
    keyWriter.reset();
    warpKey(s.warps[0]!, keyWriter, true);
    if (live.memoryRelevant) writeMemoryKey(s.memory, keyWriter);
    return keyWriter.finish();
  };

  const mechanism: Mechanism<BlockWarp> = {
    id: bm.id,
    laneFairness: bm.laneFairness,
    policy: (op) => bm.policy(op),
    init: () => ({ block: bm.init(), homes: [] }),
    candidates,
    advance: () => ({
      kind: 'stop',
      verdict: 'unsupported',
      message: `${bm.id} on the block machine advances through the machine only`,
    }),
    ready: (b) => homeLanesOf(bm.ready(b.block)),
    key: (b, out) => bm.key(b.block, out),
    view: (b) => bm.view(b.block, bfmt),
    lanePcs: (b, visit) => bm.lanePcs(b.block, (pc, t) => visit(pc, homeLanesOf(t))),
  };
  const launch: Launch = { ...spec.launch, warps: 1 };
  const machine: Machine = {
    program,
    ops,
    launch,
    blockLaunch: spec.launch,
    ctx,
    mechanism: mechanism as Mechanism<unknown>,
    options: spec.options,
    fmt: base,
    initial: () => {
      const homes = Array.from({ length: K }, (_, k) =>
        initialLaneData(ctx.layout, spec.launch, k),
      );
      return {
        warps: [{ mech: { block: bm.init(), homes }, data: homes[0]! }],
        memory: memoryOf(spec.launch.memory),
      };
    },
    successors(s) {
      const ws = s.warps[0]!;
      return machine.warpSteps(0, ws, s.memory).steps.map((st) => ({
        warp: 0,
        issue: st.issue,
        group: st.group,
        choice: st.choice,
        unknownChoice: st.unknownChoice,
        next: st.warp ? { warps: [st.warp], memory: st.memory! } : null,
        stop: st.stop,
      }));
    },
    status(s) {
      const b = s.warps[0]!.mech as BlockWarp;
      if (liveHomes(b) === 0) return 'terminated';
      return candidates(b).length > 0 ? 'running' : 'blocked';
    },
    key,
    behaviourKey,
    live: (s) => [liveHomes(s.warps[0]!.mech as BlockWarp)],
    referenceView: () => null,
    warpKey,
    // The block's numbers, without lane marks (summaries of chains never run here).
    writeWarp: (ws, out, reduced) => {
      const kw = new KeyWriter();
      warpKey(ws, kw, reduced);
      for (let i = 0; i < kw.length; i++) out.push(kw.buf[i]!);
    },
    memoryKey: (m, out) => writeMemoryKey(m, out),
    canReduce: true,
    symmetric: false,
    memoryRelevant: live.memoryRelevant,
    mayReach: live.mayReach,
    symmetryOff: spec.laneSymmetry ? `${bm.id} runs past 32 threads on the block machine` : null,
    placeFairness: true,
    warpPinned: null,
    // Summaries of chains never run here (no `moveLanes`): every live lane counts as numbered.
    ownNumberReaders: (ws) => ~ws.data.exited >>> 0,
    liveBarriers: () => 0xffff,
    withoutSymmetry: () => machine,
    withoutCallGraph: () => machine,
    followsCalls: false,
    withoutDeadWrites: () => machine,
    withLoopVisitsKeyed: () => machine,
    skipsDeadWrites: false,
    warpSteps(_k, ws, mem) {
      const b = ws.mech as BlockWarp;
      const issues = candidates(b);
      const steps: WarpStep[] = [];
      for (let g = 0; g < issues.length; g++) issueSteps(b, mem, issues[g]!, g, steps);
      // Fairness places (see above): each ready formed warp's lowest thread.
      const ready = bm.ready(b.block);
      const places: number[] = [];
      for (const i of issues)
        if (intersects(i.threads!, ready)) places.push(lowestThread(shape, i.threads!));
      return {
        enabled: issues.length > 0,
        ready: 0,
        live: liveHomes(b) !== 0,
        issues: issues.length,
        steps,
        places,
        stepPlaces: steps.map((st) => lowestThread(shape, st.issue.threads!)),
      };
    },
  };
  return machine;
}
