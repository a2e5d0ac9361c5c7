/**
 * Per-lane liveness (`liveness.ts`), on listings whose live sets are derived by hand from the
 * definition: live_in = uses ∪ (live_out − definite writes); live_out = ∪ live_in of the static
 * successors (a CALL's callee, a RET's return sites, a BRX's target table), or everything after an
 * instruction whose successors are not known statically.
 */
import { describe, expect, it } from 'vitest';
import { registerLayout } from '../lanes/laneData.ts';
import type { Policy } from '../mechanisms/mechanism.ts';
import { load } from '../testing/run.ts';
import { liveness } from './liveness.ts';

/** Live registers (as `R<n>` names) and predicates (`P<n>`) at every PC. */
function liveSets(
  text: string,
  policy: Policy = 'native',
  relevance = false,
  calls: 'follow' | 'opaque' = 'follow',
): string[][] {
  const { ops } = load(text);
  const layout = registerLayout(ops);
  const names: string[] = [];
  for (let r = 0; r < 255; r++) if (layout.slot[r]! >= 0) names[layout.slot[r]!] = `R${r}`;
  const lv = liveness(
    ops,
    layout,
    (op) => (op.kind === 'bssy' ? policy : 'native'),
    relevance,
    false,
    calls,
  );
  return ops.map((_, pc) => {
    const out: string[] = [];
    for (let s = 0; s < layout.count; s++)
      if ((lv.regs[pc * lv.words + (s >>> 5)]! >>> (s & 31)) & 1) out.push(names[s]!);
    for (let p = 0; p < 7; p++) if ((lv.preds[pc]! >> p) & 1) out.push(`P${p}`);
    return out;
  });
}

describe('liveness', () => {
  it('the spinlock: the CAS result is live only until the test, the ticket R5 never', () => {
    const text = [
      'MOV R2, 0x100', // 0: {}
      'MOV R3, 0x1', // 1: {R2}
      'acquire:',
      'ATOMS.CAS R0, [R2], RZ, R3', // 2: {R2, R3} — R0 is written here before any read
      'ISETP.NE.AND P0, PT, R0, RZ, PT', // 3: {R0, R2, R3}
      '@P0 BRA acquire', // 4: {R2, R3, P0}
      'MOV R4, 0x200', // 5: {R2, R3}
      'ATOMS.ADD R5, [R4], R3', // 6: {R2, R3, R4}
      'ATOMS.EXCH RZ, [R2], RZ', // 7: {R2}
      'EXIT', // 8: {}
    ].join('\n');
    expect(liveSets(text)).toEqual([
      [],
      ['R2'],
      ['R2', 'R3'],
      ['R0', 'R2', 'R3'],
      ['R2', 'R3', 'P0'],
      ['R2', 'R3'],
      ['R2', 'R3', 'R4'],
      ['R2'],
      [],
    ]);
  });

  it('a guarded write does not kill (lanes that skip it keep the old value); an unguarded one does', () => {
    const guarded = ['MOV R1, 0x1', '@P0 MOV R1, 0x2', 'STS [RZ+0x100], R1', 'EXIT'].join('\n');
    expect(liveSets(guarded)).toEqual([['P0'], ['R1', 'P0'], ['R1'], []]);
    const plain = ['MOV R1, 0x1', 'MOV R1, 0x2', 'STS [RZ+0x100], R1', 'EXIT'].join('\n');
    expect(liveSets(plain)).toEqual([[], [], ['R1'], []]);
  });

  it('a guarded EXIT falls through; the ISETP combining predicate and both outputs count', () => {
    const text = [
      'ISETP.EQ.OR P1, P2, R1, R2, P3', // 0: reads R1, R2, P3; writes P1, P2
      '@P1 EXIT', // 1: reads P1; the others go on
      'VOTE.ANY R3, P4, P2', // 2: reads P2; writes R3, P4
      'STS [R3+0x100], RZ', // 3: reads R3
      'EXIT',
    ].join('\n');
    expect(liveSets(text)).toEqual([['R1', 'R2', 'P3'], ['P1', 'P2'], ['P2'], ['R3'], []]);
  });

  // Hand derivation for both (relevance off): RET's successors are the return sites, here pc 2
  // only; a guarded CALL goes on to its callee and to pc + 1.
  //   6 RET R20:       uses R20, then live_in(2)         → {R1, R20}
  //   5 STS [..], R5:  uses R5                           → {R1, R5, R20}
  //   4 MOV R5, R2:    kills R5, uses R2                 → {R1, R2, R20}
  //   2 STS [..], R1:                                    → {R1};  3 EXIT → {}
  //   1 @P0 CALL f:    uses P0; live_in(2) ∪ live_in(4)  → {R1, R2, R20, P0}
  //   0 MOV R1, 0x1:   kills R1                          → {R2, R20, P0}
  const callText = [
    'MOV R1, 0x1', // 0
    '@P0 CALL.REL.NOINC f', // 1
    'STS [RZ+0x100], R1', // 2: the return site
    'EXIT', // 3
    'f:',
    'MOV R5, R2', // 4
    'STS [RZ+0x104], R5', // 5
    'RET.REL.NODEC R20 0x0', // 6
  ].join('\n');

  it('a CALL leads into its callee, a RET to the return sites: what the caller reads after is live inside', () => {
    expect(liveSets(callText)).toEqual([
      ['R2', 'R20', 'P0'],
      ['R1', 'R2', 'R20', 'P0'],
      ['R1'],
      [],
      ['R1', 'R2', 'R20'],
      ['R1', 'R5', 'R20'],
      ['R1', 'R20'],
    ]);
  });

  it("with calls 'opaque' (the search redone after a RET left the graph) everything is live before CALL and RET", () => {
    const all = ['R1', 'R2', 'R5', 'R20', 'P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6'];
    const sets = liveSets(callText, 'native', false, 'opaque');
    expect(sets[1]).toEqual(all);
    expect(sets[6]).toEqual(all);
    expect(sets[5]).toEqual(all);
    expect(sets[4]).toEqual(all.filter((x) => x !== 'R5'));
    expect(sets[0]).toEqual(all.filter((x) => x !== 'R1'));
    expect(sets[2]).toEqual(['R1']);
  });

  it('a BRX with a target table leads to its targets only; without one everything is live', () => {
    // 0 BRX R0 → {.L_1 (pc 2), .L_2 (pc 4)} or on to pc 1; each target reads one register.
    const table = [
      'BRX R0 -0x10 (*"BRANCH_TARGETS .L_1,.L_2"*)', // 0: {R0, R2, R3}
      'EXIT', // 1
      '.L_1:',
      'STS [RZ+0x100], R2', // 2: {R2}
      'EXIT', // 3
      '.L_2:',
      'STS [RZ+0x100], R3', // 4: {R3}
      'EXIT', // 5
    ].join('\n');
    expect(liveSets(table)[0]).toEqual(['R0', 'R2', 'R3']);
    const bare = table.replace(' (*"BRANCH_TARGETS .L_1,.L_2"*)', '');
    expect(liveSets(bare)[0]).toEqual(['R0', 'R2', 'R3', 'P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6']);
  });

  it('a foreign instruction under policy nop reads nothing; under reject everything is live', () => {
    const text = ['MOV R1, 0x1', 'BSSY B0, L', 'L:', 'STS [RZ+0x100], R1', 'EXIT'].join('\n');
    expect(liveSets(text, 'nop')[1]).toEqual(['R1']);
    expect(liveSets(text, 'reject')[1]).toEqual(['R1', 'P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6']);
  });

  describe('with relevance (strong liveness: only what may still reach control)', () => {
    it('a value that is only stored, with no load anywhere, is not live; a branch keeps its inputs', () => {
      // By hand: no load reads memory, so the stores' operands are not relevant; R1 feeds the
      // ISETP whose P0 guards the BRA (a sink), so R1 is live from its write to the ISETP.
      const text = [
        'MOV R1, 0x3', // 0: {}
        'IADD3 R2, R1, 0x1, RZ', // 1: {R1} — R2 only reaches the store: not live
        'STS [RZ+0x100], R2', // 2: {R1}
        'ISETP.NE.AND P0, PT, R1, RZ, PT', // 3: {R1}
        '@P0 BRA L', // 4: {P0}
        'L:',
        'EXIT', // 5: {}
      ].join('\n');
      expect(liveSets(text, 'native', true)).toEqual([[], ['R1'], ['R1'], ['R1'], ['P0'], []]);
      // Without relevance the stored value and its input are live as usual.
      expect(liveSets(text)[2]).toEqual(['R1', 'R2']);
    });

    it('once a load feeds a branch, memory is relevant and stores keep their operands', () => {
      const text = [
        'MOV R2, 0x5', // 0: {}
        'STS [RZ+0x100], R2', // 1: {R2}
        'LDS R3, [RZ+0x100]', // 2: {}
        'ISETP.NE.AND P0, PT, R3, RZ, PT', // 3: {R3}
        '@P0 BRA L', // 4: {P0}
        'L:',
        'EXIT', // 5: {}
      ].join('\n');
      expect(liveSets(text, 'native', true)).toEqual([[], ['R2'], [], ['R3'], ['P0'], []]);
    });
  });
});
