/**
 * `simt-stack` (SEMANTICS §3.2) on small listings, step by step through `Machine.successors`.
 * Stacks are read from the mechanism's view, top first: `{ rpc, pc, mask }` with PCs as labels
 * (or `0x0030` offsets), `null` for the virtual exit, `rpc: 'call'` for a call frame, masks in
 * binary with lane 0 rightmost. Every expected stack is derived by hand from the rules:
 * divergence turns the top into (IPDOM, old rpc, mask) and pushes one entry per path with
 * rpc = IPDOM; pop when pc = rpc; exited lanes leave every entry; empty entries are dropped.
 */
import { describe, expect, it } from 'vitest';
import {
  machineOf,
  reachable,
  regsOf,
  runDeterministic,
  runListing,
  stackOf,
  type StackRow,
} from '../testing/run.ts';

const row = (rpc: string | null, pc: string | null, mask: string): StackRow => ({ rpc, pc, mask });

/** If/else; lanes below `n` take the branch. IPDOM of the branch (pc 2) is `join`. */
const ifElse = (n: number) =>
  [
    '// @warpcheck warp-size=4',
    '        S2R R0, SR_LANEID', // 0  0x0000
    `        ISETP.LT.AND P0, PT, R0, ${n}, PT`, // 1  0x0010
    '   @P0  BRA then', // 2  0x0020
    '        MOV R1, 0x2', // 3  0x0030 else
    '        BRA join', // 4  0x0040
    'then:',
    '        MOV R1, 0x1', // 5
    'join:',
    '        EXIT', // 6
  ].join('\n');

const stackAfterBranch = (n: number, order: string) => {
  const m = machineOf(ifElse(n), 'simt-stack', { options: { order } });
  const states = runDeterministic(m);
  return stackOf(m, states[3]!); // after S2R, ISETP, BRA
};

describe('simt-stack: if/else', () => {
  it('taken-first: the whole run, stack after every step', () => {
    const m = machineOf(ifElse(1), 'simt-stack');
    const states = runDeterministic(m);
    expect(states.map((s) => stackOf(m, s))).toEqual([
      [row(null, '0x0000', '1111')],
      [row(null, '0x0010', '1111')],
      [row(null, '0x0020', '1111')],
      // lane 0 takes the branch; its entry is on top, the IPDOM entry at the bottom
      [row('join', 'then', '0001'), row('join', '0x0030', '1110'), row(null, 'join', '1111')],
      // then-path reached join = its rpc: popped
      [row('join', '0x0030', '1110'), row(null, 'join', '1111')],
      [row('join', '0x0040', '1110'), row(null, 'join', '1111')],
      // reconverged at the IPDOM: one entry, every lane
      [row(null, 'join', '1111')],
      [],
    ]);
    expect(m.status(states.at(-1)!)).toBe('terminated');
    expect(regsOf(m, states.at(-1)!, 1)).toEqual([1, 2, 2, 2]);
  });

  it('path orders: taken-first, not-taken-first, majority-first, minority-first', () => {
    const bottom = row(null, 'join', '1111');
    // n = 1: taken = lane 0 (minority), not taken = lanes 1..3.
    const t1 = row('join', 'then', '0001');
    const e1 = row('join', '0x0030', '1110');
    expect(stackAfterBranch(1, 'taken-first')).toEqual([t1, e1, bottom]);
    expect(stackAfterBranch(1, 'not-taken-first')).toEqual([e1, t1, bottom]);
    expect(stackAfterBranch(1, 'majority-first')).toEqual([e1, t1, bottom]);
    expect(stackAfterBranch(1, 'minority-first')).toEqual([t1, e1, bottom]);
    // n = 3: taken = lanes 0..2 (majority), not taken = lane 3.
    const t3 = row('join', 'then', '0111');
    const e3 = row('join', '0x0030', '1000');
    expect(stackAfterBranch(3, 'taken-first')).toEqual([t3, e3, bottom]);
    expect(stackAfterBranch(3, 'not-taken-first')).toEqual([e3, t3, bottom]);
    expect(stackAfterBranch(3, 'majority-first')).toEqual([t3, e3, bottom]);
    expect(stackAfterBranch(3, 'minority-first')).toEqual([e3, t3, bottom]);
  });

  it('issues the top entry only: one candidate, the top pc and mask', () => {
    const m = machineOf(ifElse(1), 'simt-stack', { options: { order: 'not-taken-first' } });
    const states = runDeterministic(m);
    const succ = m.successors(states[3]!);
    expect(succ.map((t) => t.issue)).toEqual([{ pc: 3, mask: 0b1110 }]);
  });

  it('a uniform branch does not push', () => {
    const m = machineOf(ifElse(4), 'simt-stack'); // every lane takes it
    const states = runDeterministic(m);
    expect(stackOf(m, states[3]!)).toEqual([row(null, 'then', '1111')]);
    expect(states).toHaveLength(6); // S2R, ISETP, BRA, MOV, EXIT
  });
});

describe('simt-stack: nested divergence', () => {
  const nested = [
    '// @warpcheck warp-size=4',
    '        S2R R0, SR_LANEID', // 0
    '        ISETP.LT.AND P0, PT, R0, 0x2, PT', // 1  lanes 0, 1
    '        ISETP.EQ.AND P1, PT, R0, RZ, PT', // 2  lane 0
    '   @P0  BRA outer', // 3  IPDOM join
    '        BRA join', // 4  0x0040
    'outer:',
    '   @P1  BRA inner', // 5  IPDOM ijoin
    '        MOV R1, 0x2', // 6  0x0060
    '        BRA ijoin', // 7  0x0070
    'inner:',
    '        MOV R1, 0x1', // 8
    'ijoin:',
    '        MOV R2, 0x3', // 9
    'join:',
    '        EXIT', // 10
  ].join('\n');

  it('the inner split goes on top of the outer one; each reconverges at its own IPDOM', () => {
    const m = machineOf(nested, 'simt-stack');
    const states = runDeterministic(m);
    expect(states.slice(4).map((s) => stackOf(m, s))).toEqual([
      [row('join', 'outer', '0011'), row('join', '0x0040', '1100'), row(null, 'join', '1111')],
      [
        row('ijoin', 'inner', '0001'),
        row('ijoin', '0x0060', '0010'),
        row('join', 'ijoin', '0011'),
        row('join', '0x0040', '1100'),
        row(null, 'join', '1111'),
      ],
      [
        row('ijoin', '0x0060', '0010'),
        row('join', 'ijoin', '0011'),
        row('join', '0x0040', '1100'),
        row(null, 'join', '1111'),
      ],
      [
        row('ijoin', '0x0070', '0010'),
        row('join', 'ijoin', '0011'),
        row('join', '0x0040', '1100'),
        row(null, 'join', '1111'),
      ],
      // inner paths reconverged at ijoin with both their lanes
      [row('join', 'ijoin', '0011'), row('join', '0x0040', '1100'), row(null, 'join', '1111')],
      [row('join', '0x0040', '1100'), row(null, 'join', '1111')],
      [row(null, 'join', '1111')],
      [],
    ]);
    const end = states.at(-1)!;
    expect(regsOf(m, end, 1)).toEqual([1, 2, 0, 0]);
    expect(regsOf(m, end, 2)).toEqual([3, 3, 0, 0]);
  });
});

describe('simt-stack: lanes that exit inside a branch', () => {
  it('an exited lane leaves every entry (IPDOM is the virtual exit here)', () => {
    const text = [
      '// @warpcheck warp-size=4',
      '        S2R R0, SR_LANEID', // 0
      '        ISETP.LT.AND P0, PT, R0, 0x2, PT', // 1  lanes 0, 1
      '        ISETP.EQ.AND P1, PT, R0, RZ, PT', // 2  lane 0
      '   @P0  BRA then', // 3  the @P1 EXIT below means `join` does not post-dominate
      '        MOV R1, 0x2', // 4  0x0040
      '        BRA join', // 5  0x0050
      'then:',
      '   @P1  EXIT', // 6
      '        MOV R1, 0x1', // 7  0x0070
      'join:',
      '        MOV R2, 0x5', // 8
      '        EXIT', // 9  0x0090
    ].join('\n');
    const m = machineOf(text, 'simt-stack');
    const states = runDeterministic(m);
    expect(states.slice(4, 9).map((s) => stackOf(m, s))).toEqual([
      [row(null, 'then', '0011'), row(null, '0x0040', '1100'), row(null, null, '1111')],
      // lane 0 exited: gone from the path entry and from the reconvergence entry
      [row(null, '0x0070', '0010'), row(null, '0x0040', '1100'), row(null, null, '1110')],
      [row(null, 'join', '0010'), row(null, '0x0040', '1100'), row(null, null, '1110')],
      [row(null, '0x0090', '0010'), row(null, '0x0040', '1100'), row(null, null, '1110')],
      // lane 1 exited: its entry is empty and goes
      [row(null, '0x0040', '1100'), row(null, null, '1100')],
    ]);
    expect(m.status(states.at(-1)!)).toBe('terminated');
  });

  it('a path whose lanes all exit leaves no empty entry', () => {
    const text = [
      '// @warpcheck warp-size=4',
      '        S2R R0, SR_LANEID', // 0
      '        ISETP.LT.AND P0, PT, R0, 0x2, PT', // 1
      '   @P0  BRA then', // 2
      '        MOV R1, 0x2', // 3  0x0030
      '        EXIT', // 4
      'then:',
      '        EXIT', // 5
    ].join('\n');
    const m = machineOf(text, 'simt-stack');
    const states = runDeterministic(m);
    expect(stackOf(m, states[3]!)).toEqual([
      row(null, 'then', '0011'),
      row(null, '0x0030', '1100'),
      row(null, null, '1111'),
    ]);
    expect(stackOf(m, states[4]!)).toEqual([row(null, '0x0030', '1100'), row(null, null, '1100')]);
  });

  it('invariant in every reachable state: no empty entry, no exited lane, bottom = live lanes', () => {
    const text = [
      '// @warpcheck warp-size=4',
      'S2R R0, SR_LANEID',
      'FADD R5, R0, R0', // unknown: every branch below goes every way
      'ISETP.GT.AND P0, PT, R5, RZ, PT',
      'ISETP.LT.AND P1, PT, R5, 0x2, PT',
      '@P0 BRA a',
      '@P1 EXIT',
      'BRA c',
      'a:',
      '@P1 BRA b',
      '@!P1 EXIT',
      'b:',
      'MOV R1, 0x1',
      'c:',
      '@P0 EXIT',
      'EXIT',
    ].join('\n');
    for (const order of ['taken-first', 'not-taken-first', 'majority-first', 'minority-first']) {
      const m = machineOf(text, 'simt-stack', { options: { order } });
      const all = reachable(m);
      expect(all.length).toBeGreaterThan(20);
      for (const s of all) {
        const stack = stackOf(m, s);
        const live = m.live(s)[0]!;
        for (const e of stack) {
          const mask = parseInt(e.mask, 2);
          expect(mask, order).not.toBe(0);
          expect(mask & ~live, order).toBe(0);
        }
        if (live !== 0) expect(parseInt(stack.at(-1)!.mask, 2)).toBe(live);
        else expect(stack).toEqual([]);
      }
    }
  });
});

describe('simt-stack: CALL/RET frames', () => {
  const call = (guard: string) =>
    [
      '// @warpcheck warp-size=4',
      '        S2R R0, SR_LANEID', // 0
      '        ISETP.LT.AND P0, PT, R0, 0x2, PT', // 1  lanes 0, 1
      '        MOV R2, back', // 2
      `   ${guard} CALL.REL.NOINC func`, // 3
      'back:',
      '        EXIT', // 4
      'func:',
      '        MOV R1, 0x7', // 5
      '        RET.REL.NODEC R2 0x0', // 6  0x0060
    ].join('\n');

  it('CALL pushes a frame above the caller, which resumes at the return PC', () => {
    const m = machineOf(call(''), 'simt-stack');
    const states = runDeterministic(m);
    expect(states.slice(4).map((s) => stackOf(m, s))).toEqual([
      [row('call', 'func', '1111'), row(null, 'back', '1111')],
      [row('call', '0x0060', '1111'), row(null, 'back', '1111')],
      [row(null, 'back', '1111')],
      [],
    ]);
  });

  it('a guarded CALL: only the callers are in the frame; the rest wait below at the return PC', () => {
    const m = machineOf(call('@P0'), 'simt-stack');
    const states = runDeterministic(m);
    expect(states.slice(4).map((s) => stackOf(m, s))).toEqual([
      [row('call', 'func', '0011'), row(null, 'back', '1111')],
      [row('call', '0x0060', '0011'), row(null, 'back', '1111')],
      [row(null, 'back', '1111')],
      [],
    ]);
    expect(regsOf(m, states.at(-1)!, 1)).toEqual([7, 7, 0, 0]);
  });
});

describe('simt-stack: WARPSYNC under the `check` policy (SEMANTICS §2)', () => {
  const sync = (mask: string, order = 'taken-first') =>
    runListing(
      [
        '// @warpcheck warp-size=4',
        'S2R R0, SR_LANEID',
        'ISETP.LT.AND P0, PT, R0, 0x2, PT', // lanes 0, 1
        '@P0 BRA then',
        'EXIT',
        'then:',
        `WARPSYNC${mask}`,
        'EXIT',
      ].join('\n'),
      'simt-stack',
      { options: { order } },
    ).result;

  it('a mask naming live lanes of the other path is a violation', () => {
    // taken-first: lanes 0, 1 reach the WARPSYNC while lanes 2, 3 are live on the other path.
    for (const mask of [' 0xf', '.ALL']) {
      const r = sync(mask);
      expect(r.verdict, mask).toBe('violation');
      expect(r.findings[0]!.property).toBe('warpsync-check');
    }
  });

  it('a mask without an issuing lane is undefined behavior, which wins over the check (SEMANTICS §2, §6)', () => {
    // 0x5 names lane 2 (live, on the other path: a check violation) but not lane 1, which runs it.
    const r = sync(' 0x5');
    expect(r.verdict).toBe('undefined-behavior');
    expect(r.findings[0]!.message).toMatch(/lane 1 is not named in its own mask 0x5/);
  });

  it('a mask of exactly the active lanes is fine; so are named lanes that already exited', () => {
    expect(sync(' 0x3').verdict).toBe('terminates');
    // not-taken-first: lanes 2, 3 exit before lanes 0, 1 sync on 0xf.
    expect(sync(' 0xf', 'not-taken-first').verdict).toBe('terminates');
  });

  it('a full WARPSYNC on a converged warp is fine', () => {
    const r = runListing(
      '// @warpcheck warp-size=4\nWARPSYNC 0xf\nWARPSYNC.ALL\nEXIT',
      'simt-stack',
    );
    expect(r.result.verdict).toBe('terminates');
  });

  it('options warpsync=nop and warpsync=reject', () => {
    const text = [
      '// @warpcheck warp-size=4',
      'S2R R0, SR_LANEID',
      'ISETP.LT.AND P0, PT, R0, 0x2, PT',
      '@P0 BRA then',
      'EXIT',
      'then:',
      'WARPSYNC 0xf',
      'EXIT',
    ].join('\n');
    expect(runListing(text, 'simt-stack', { options: { warpsync: 'nop' } }).result.verdict).toBe(
      'terminates',
    );
    expect(runListing(text, 'simt-stack', { options: { warpsync: 'reject' } }).result.verdict).toBe(
      'unsupported',
    );
  });
});

describe('simt-stack: foreign instructions (BSSY/BSYNC)', () => {
  const text = [
    '// @warpcheck warp-size=4',
    'S2R R0, SR_LANEID',
    'ISETP.LT.AND P0, PT, R0, 0x2, PT',
    'BSSY B0, join',
    '@P0 BRA skip',
    'MOV R1, 0x1',
    'skip:',
    'BSYNC B0',
    'join:',
    'EXIT',
  ].join('\n');

  it('are no-ops by default', () => {
    // Every state stored (acceleration would run the no-op BSSY/BSYNC path as chains).
    const { result, machine } = runListing(text, 'simt-stack', { reduce: { accelerate: false } });
    expect(result.verdict).toBe('terminates');
    // S2R, ISETP, BSSY, BRA, MOV (lanes 2,3), BSYNC (reconverged), EXIT: one path, 8 states.
    expect(result.states).toBe(8);
    const states = runDeterministic(machine);
    expect(regsOf(machine, states.at(-1)!, 1)).toEqual([0, 0, 1, 1]);
  });

  it('are unsupported with foreign=reject', () => {
    const { result } = runListing(text, 'simt-stack', { options: { foreign: 'reject' } });
    expect(result.verdict).toBe('unsupported');
  });
});
