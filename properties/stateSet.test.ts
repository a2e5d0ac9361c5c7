/**
 * `StateSet` (properties/laws/stateSet.ts) tells states apart exactly as `Machine.key` does: over
 * every state a breadth-first walk meets (memory written, lanes spinning, two warps), it says
 * "new" for a state exactly when its string key is new.
 */
import { describe, expect, it } from 'vitest';
import { SPINLOCK_W2 } from '../model/core/coreTesting.ts';
import type { MachineState } from '../model/machine/machine.ts';
import { lawOptions } from './laws/campaign.ts';
import { machineOfText } from './laws/compileHelpers.ts';
import { StateSet } from './laws/stateSet.ts';

const LAST_STORE = `// @warpcheck warp-size=1 warps=2
	Function : race
        S2R R0, SR_TID.X ;
        IADD3 R0, R0, 0x1, RZ ;
        STS [0x40], R0 ;
        MOV R0, RZ ;
        EXIT ;
`;

describe('StateSet', () => {
  for (const [name, text] of [
    ['spinlock, one warp of 2 lanes', SPINLOCK_W2],
    ['spinlock, two warps', SPINLOCK_W2.replace('warps=1', 'warps=2')],
    // The last store wins: two end states whose warps are alike and whose memories differ.
    ['last store wins', LAST_STORE],
  ] as const)
    for (const mechanism of ['its', 'simt-stack'])
      it(`agrees with Machine.key on ${name}, ${mechanism}`, () => {
        const m = machineOfText(text, mechanism, lawOptions(mechanism), false);
        const set = new StateSet(m);
        const keys = new Set<string>();
        const queue: MachineState[] = [m.initial()];
        let checked = 0;
        for (let i = 0; i < queue.length && i < 2000; i++)
          for (const t of m.successors(queue[i]!)) {
            if (!t.next) continue;
            const k = m.key(t.next);
            const fresh = !keys.has(k);
            keys.add(k);
            expect(set.add(t.next)).toBe(fresh);
            checked++;
            if (fresh) queue.push(t.next);
          }
        // The walk met repeated states (the spin loop) as well as new ones.
        expect(keys.size).toBeGreaterThan(4);
        expect(checked).toBeGreaterThan(keys.size);
      });
});
