import type { Machine, MachineState, Transition } from '../machine/machine.ts';
import type { Finding } from './verdict.ts';

/**
 * Whether `f`'s schedule, replayed on `machine` from its initial state, shows `f`'s outcome as
 * the `replay` command checks it (`scenario/replay.ts`): every choice exists, a stop comes only
 * at the last step and is `f`'s verdict, a lasso returns to a state equal to the one where its
 * cycle starts in every value that can reach control (`behaviourKey`), and `terminates` and
 * `deadlock` end terminated or blocked. Only the current state and the lasso's key are kept.
 *
 * `explore` asks it of a search with dead writes (`machine/deadWrites.ts`): that search keys
 * stale values where a lane's reconvergence entry may still read a register, so its lane classes
 * — and the counted alternatives of an unknown branch — can differ from those of the machine
 * that computes every write, on which saved scenarios replay.
 */
export function findingReplays(machine: Machine, f: Finding): boolean {
  let s: MachineState = machine.initial();
  let loopKey: string | null = f.loop === 0 ? machine.behaviourKey(s) : null;
  let last: Transition | null = null;
  for (let i = 0; i < f.schedule.length; i++) {
    if (last?.stop) return false;
    const t = machine.successors(s)[f.schedule[i]!];
    if (t === undefined) return false;
    last = t;
    if (t.next) {
      s = t.next;
      if (f.loop === i + 1) loopKey = machine.behaviourKey(s);
    }
  }
  if (f.loop !== null) return last?.stop == null && loopKey === machine.behaviourKey(s);
  if (f.verdict === 'terminates') return machine.status(s) === 'terminated';
  if (f.verdict === 'deadlock') return machine.status(s) === 'blocked';
  return last?.stop?.verdict === f.verdict;
}
