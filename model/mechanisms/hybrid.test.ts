/**
 * `hybrid` (seed 001 §2.3): structured paths depth-first as `dfs-minpc`, unstructured ones
 * breadth-first as `bfs` (docs/semantics.md "hybrid"). Every expected block order below is derived
 * by hand from the rules of §2.1 and §2.3 (the derivations are in the comments), then the hybrid is
 * compared with the two mechanisms it is made of.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCfg } from '../cfg/index.ts';
import { explore } from '../explore/exhaustive.ts';
import type { Machine, MachineState } from '../machine/machine.ts';
import { load, machineOf, runDeterministic } from '../testing/run.ts';
import { breadthFirstBlocks, type HybridLoops } from './hybridRegions.ts';
import type { PathListState } from './pathList.ts';

const scenarios = join(new URL('.', import.meta.url).pathname, '..', '..', 'scenarios');
const SPINLOCK = readFileSync(join(scenarios, 'spinlock.sass'), 'utf8');
const FIG1 = readFileSync(join(scenarios, 'seed001-fig1.sass'), 'utf8');

/**
 * A nested if/else (structured: single entry, single exit, acyclic). Lanes 0,1 take T; lane 2
 * goes NT NT2 J1, lane 3 NT NT1 J1; everyone meets at J.
 */
const NESTED = `// @warpcheck warp-size=4 warps=1
	Function : nested
A:
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
   @P0  BRA T ;
NT:
        ISETP.LT.AND P1, PT, R0, 0x3, PT ;
   @P1  BRA NT2 ;
NT1:
        MOV R1, 0x3 ;
        BRA J1 ;
NT2:
        MOV R1, 0x2 ;
J1:
        BRA J ;
T:
        MOV R1, 0x1 ;
J:
        MOV R2, R1 ;
        EXIT ;
`;

/**
 * An irreducible cycle {L1a, L1b, L2} entered at L1a (lanes 2,3) and at L2 (lanes 0,1). Each lane
 * goes round until its R2 reaches 2: lanes 0,1 run L2 L1a L1b L2 E, lanes 2,3 L1a L1b L2 L1a L1b
 * L2 E.
 */
const IRREDUCIBLE = `// @warpcheck warp-size=4 warps=1
	Function : irreducible
A:
        S2R R0, SR_LANEID ;
        ISETP.LT.AND P0, PT, R0, 0x2, PT ;
   @P0  BRA L2 ;
L1a:
        IADD3 R1, R1, 0x1, RZ ;
        BRA L1b ;
L1b:
        IADD3 R1, R1, 0x1, RZ ;
L2:
        IADD3 R2, R2, 0x1, RZ ;
        ISETP.LT.AND P1, PT, R2, 0x2, PT ;
   @P1  BRA L1a ;
E:
        EXIT ;
`;

/** The labels of the breadth-first blocks of a listing. */
function bfLabels(text: string, loops: HybridLoops): string[] {
  const program = load(text).program;
  const cfg = buildCfg(program);
  const bf = breadthFirstBlocks(cfg, loops);
  return program.labels
    .filter((l) => bf.has(cfg.blockOf[l.pc]!))
    .map((l) => l.name)
    .filter((n) => !n.startsWith('.L_pad'));
}

/** The blocks the warp enters, in order, with the entering path's mask (lane 3 first). */
function blockOrder(m: Machine, states: readonly MachineState[]): string[] {
  const out: string[] = [];
  for (const s of states.slice(0, -1)) {
    const a = (s.warps[0]!.mech as PathListState).active;
    const label = a && m.program.labels.find((l) => l.pc === a.pc);
    if (a && label) out.push(`${label.name}:${m.fmt.mask(a.mask)}`);
  }
  return out;
}

const run = (text: string, mech: string, options: Record<string, string> = {}) => {
  const m = machineOf(text, mech, { options });
  return blockOrder(m, runDeterministic(m));
};

describe('hybrid: which code is structured (hybridRegions.ts)', () => {
  it('a nested if/else is structured throughout', () => {
    expect(bfLabels(NESTED, 'breadth-first')).toEqual([]);
  });

  it("Fig. 1's `if (A && B)`: B's branch has a side entry at D (A jumps there too)", () => {
    // A's branch: region {B, C, D}, every predecessor inside or A: structured. B's branch: region
    // {C, D}, but D has the predecessor A outside it: unstructured, so B, C and D go breadth-first.
    expect(bfLabels(FIG1, 'breadth-first')).toEqual(['B', 'C', 'D']);
  });

  it('the spin loop is breadth-first, unless loops count as structured', () => {
    expect(bfLabels(SPINLOCK, 'breadth-first')).toEqual(['.L_acquire']);
    // A single-block natural loop whose only exit goes to its IPDOM (the critical section).
    expect(bfLabels(SPINLOCK, 'depth-first')).toEqual([]);
  });

  it('an irreducible cycle is breadth-first under both options', () => {
    // The cycle {L1a, L1b, L2} has two entries (model/cfg finds it irreducible). A's branch too:
    // every path from A passes L2, its IPDOM, so its region is {L1a, L1b}, and L1a has the
    // predecessor L2 outside the region (a side entry).
    for (const loops of ['breadth-first', 'depth-first'] as const)
      expect(bfLabels(IRREDUCIBLE, loops)).toEqual(['A', 'L1a', 'L1b', 'L2']);
  });
});

describe('hybrid behaves like dfs-minpc on structured code and like bfs on unstructured code', () => {
  it('nested if/else: the depth-first order (one side to its join before the other)', () => {
    // dfs-minpc (§2.1): A diverges forward — T pushed, NT runs; NT diverges — NT2 pushed, NT1
    // runs; NT1's jump to J1 passes the top NT2: swap; NT2 falls into J1 = top: merge; J1's jump to
    // J passes the top T: swap; T falls into J = top: merge.
    const dfs = ['A:1111', 'NT:1100', 'NT1:1000', 'NT2:0100', 'J1:1100', 'T:0011', 'J:1111'];
    // bfs (§2.3): a queue, rotated at every block end; lanes 0,1 reach J and exit before the
    // others come: J runs twice.
    const bfs = [
      'A:1111',
      'NT:1100',
      'T:0011',
      'NT1:1000',
      'NT2:0100',
      'J:0011',
      'J1:1100',
      'J:1100',
    ];
    expect(run(NESTED, 'dfs-minpc')).toEqual(dfs);
    expect(run(NESTED, 'bfs')).toEqual(bfs);
    expect(run(NESTED, 'hybrid')).toEqual(dfs);
  });

  it('irreducible cycle: the breadth-first order', () => {
    // dfs-minpc: A diverges forward — L2 (0011) pushed, L1a (1100) runs to L1b and falls into L2 =
    // top: merge; all four go round once more together.
    const dfs = ['A:1111', 'L1a:1100', 'L1b:1100', 'L2:1111', 'L1a:1111', 'L1b:1111', 'L2:1111'];
    // bfs: after A the queue is L1a(1100) L2(0011); every block end rotates, so the two groups
    // stay one block apart and never meet: lanes 0,1 run L2 L1a L1b L2 E, lanes 2,3 one block
    // ahead — E (EXIT) runs once per group.
    const bfs = [
      'A:1111',
      'L1a:1100',
      'L2:0011',
      'L1b:1100',
      'L1a:0011',
      'L2:1100',
      'L1b:0011',
      'L1a:1100',
      'L2:0011',
      'L1b:1100',
      'E:0011',
      'L2:1100',
      'E:1100',
    ];
    expect(run(IRREDUCIBLE, 'dfs-minpc')).toEqual([...dfs, 'E:1111']);
    expect(run(IRREDUCIBLE, 'bfs')).toEqual(bfs);
    expect(run(IRREDUCIBLE, 'hybrid')).toEqual(bfs);
    expect(run(IRREDUCIBLE, 'hybrid', { loops: 'depth-first' })).toEqual(bfs);
  });

  it("Fig. 1 (unstructured `if (A && B)`): bfs's A B D C E once past A", () => {
    // A's branch is structured (depth-first: B runs, D pushed); B's is not, so from B on the queue
    // rotates as in Fig. 1d: B's D merges into the saved D, D runs, then C, then E together.
    expect(run(FIG1, 'hybrid')).toEqual(['A:1111', 'B:1101', 'D:1110', 'C:0001', 'E:1111']);
    expect(run(FIG1, 'hybrid')).toEqual(run(FIG1, 'bfs'));
  });

  it('spinlock: terminates as on bfs; with loops=depth-first it livelocks as dfs-minpc', () => {
    const verdict = (mech: string, options: Record<string, string> = {}) => {
      const r = explore(machineOf(SPINLOCK, mech, { options }), {
        maxStates: 20_000,
        maxDepth: 2_000,
        timeoutMs: 10_000,
      });
      return r.kind ? `${r.verdict}/${r.kind}` : r.verdict;
    };
    // seed 001 §2.3: breadth-first "ensures fairness across paths and avoids such deadlocks";
    // depth-first "may keep scheduling the thread on the waiting loop".
    expect(verdict('bfs')).toBe('terminates');
    expect(verdict('hybrid')).toBe('terminates');
    expect(verdict('dfs-minpc')).toBe('deadlock/livelock');
    expect(verdict('hybrid', { loops: 'depth-first' })).toBe('deadlock/livelock');
    // And the same run, block by block, as the mechanism it follows there.
    expect(run(SPINLOCK, 'hybrid')).toEqual(run(SPINLOCK, 'bfs'));
  });
});
