import {
  deterministic,
  preservesLanes,
  terminatesOnHanoi,
  type P8Outcome,
} from './compileHelpers.ts';
import type { Law, LawOutcome } from './types.ts';

/** A stable small hash of a listing: picks a compile setting per kernel, reproducibly. */
function hashOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Outside the premise is not a finding: the law says nothing there. */
const asLaw = (o: P8Outcome): LawOutcome => (o.ok === 'pre' ? { ok: 'skip', reason: o.reason } : o);

/**
 * P8 (issue 4; seed 000 §VI): the Turing compile pass (`model/compile/`) preserves per-lane
 * semantics, and its deadlock-aware placement makes spin loops terminate on hanoi.
 *
 * The law runs on source kernels and compiles them itself (the compile setting depends on the
 * mechanism):
 * - on `its`, (a) on deterministic kernels, compiled with one B register per region (`distinct`:
 *   the nesting allocation shares registers between regions that independent thread scheduling
 *   may run at once — docs/findings.md, `finding-its-spill-race`);
 * - on `hanoi`, (a) on deterministic kernels with the nvcc-style nesting allocation at a budget of
 *   1 or 2 B registers (so BMOV spills run; picked by a hash of the listing), and (b) on every
 *   kernel: compiled deadlock-aware (budget 2 or 16), it terminates whenever the source terminates
 *   on its in every interleaving (seed 000 §VI-C).
 * The expected failure without deadlock-awareness (seed 000 §VI-C's experiment) is a test of its
 * own (`properties/compile.test.ts`, P8 (c)).
 */
export const compilePreserves: Law = {
  id: 'compile-preserves',
  tag: 'P8',
  description:
    'the Turing compile pass preserves per-lane traces, registers and memory on its and hanoi, and its deadlock-aware code terminates on hanoi whenever the source terminates on its (issue 4 P8; seed 000 §VI)',
  // `structured-det` and `unstructured` are deterministic (for (a)); hanoi also gets `structured`,
  // with spin idioms, locks and flags, for (b).
  sources: (m) =>
    m === 'hanoi'
      ? ['structured-det', 'unstructured', 'structured']
      : ['structured-det', 'unstructured'],
  appliesTo: (m) => m === 'its' || m === 'hanoi',
  check(kernel, mechanism, o): LawOutcome {
    const h = hashOf(kernel.text);
    if (mechanism === 'its') {
      if (!deterministic(kernel))
        return { ok: 'skip', reason: 'per-lane traces depend on the schedule' };
      return asLaw(preservesLanes(kernel, 'its', { allocation: 'distinct' }, o.options, o.budget));
    }
    if (deterministic(kernel)) {
      const a = preservesLanes(kernel, mechanism, { registers: 1 + (h & 1) }, o.options, o.budget);
      if (a.ok !== true) return asLaw(a);
    }
    return asLaw(
      terminatesOnHanoi(kernel.text, { registers: h & 2 ? 16 : 2 }, o.options, o.budget),
    );
  },
};
