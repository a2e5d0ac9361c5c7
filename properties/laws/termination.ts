import type { ExploreResult } from '../../model/explore/exhaustive.ts';
import { budgetKey, lawExplore } from './lawExplore.ts';
import { kernelOfText } from './kernels.ts';
import { build } from './machine.ts';
import type { CheckOptions, Law } from './types.ts';

/**
 * The reference's result per kernel text and budget: every mechanism of a campaign with one seed
 * sees the same kernels, so `its` is explored once for all of them (a cache of a pure function).
 */
const cache = new Map<string, Pick<ExploreResult, 'bound' | 'verdict'>>();
function reference(text: string, budget: CheckOptions['budget']) {
  const key = `${budgetKey(budget)}\n${text}`;
  let r = cache.get(key);
  if (!r) {
    const e = lawExplore(build(kernelOfText(text), 'its', {}, false).machine, budget);
    // A time bound depends on the machine's load: not cached.
    if (e.bound !== 'time') {
      if (cache.size >= 20_000) cache.delete(cache.keys().next().value!);
      cache.set(key, { bound: e.bound, verdict: e.verdict });
    }
    r = e;
  }
  return r;
}

/**
 * P1 termination (issue 4; SEMANTICS §3.1: `its` terminates on every program the post-Volta
 * programming model promises to terminate): a kernel that terminates on `its` in every
 * interleaving terminates on the mechanism. Refinement is off here (P6 speaks about it), so the
 * verdict is about termination alone. A budget that runs out on either side, or a mechanism that
 * rejects an instruction (`unsupported`), leaves the law silent.
 */
export const termination: Law = {
  id: 'termination',
  tag: 'P1',
  description:
    'every kernel that terminates on its terminates on the mechanism (issue 4 P1; seed 000 §III–IV, SEMANTICS §3.1, §6)',
  // Turing code only for the mechanisms meant for it (its, hanoi): a pre-Volta stack cannot wait at
  // a WARPSYNC and says so with a violation (SEMANTICS §3.2), which is not a termination question.
  sources: (m) => (m === 'its' || m === 'hanoi' ? ['mixed', 'turing'] : ['mixed']),
  appliesTo: () => true, // on its itself: the explorer agrees with itself (a cheap determinism check)
  check(kernel, mechanism, o) {
    const ref = reference(kernel.text, o.budget);
    if (ref.bound !== null) return { ok: 'skip', reason: `its: ${ref.bound} budget` };
    if (ref.verdict !== 'terminates') return { ok: 'skip', reason: `its: ${ref.verdict}` };
    const { machine } = build(kernel, mechanism, o.options, false);
    const r = lawExplore(machine, o.budget);
    if (r.verdict === 'terminates') return { ok: true };
    if (r.verdict === 'bound-reached')
      return { ok: 'skip', reason: `${mechanism}: ${r.bound} budget` };
    if (r.verdict === 'unsupported') return { ok: 'skip', reason: `${mechanism}: unsupported` };
    const f = r.findings[0]!;
    return {
      ok: false,
      finding: {
        verdict: f.verdict,
        kind: f.kind,
        property: f.property,
        message: `terminates on its, but ${mechanism} gives ${f.verdict}${f.kind ? ` (${f.kind})` : ''}: ${f.message}`,
        schedule: f.schedule,
        loop: f.loop,
        options: machine.options,
        refine: false,
      },
    };
  },
};
