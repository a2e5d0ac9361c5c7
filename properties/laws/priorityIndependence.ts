import { lawExplore } from './lawExplore.ts';
import { build } from './machine.ts';
import type { Law, LawOutcome } from './types.ts';

const ORDERS = ['majority', 'taken-first', 'not-taken-first'];

/**
 * P7 (issue 4; seed 000 §VI-A: correct execution must not depend on which path runs first): on
 * compiled code, hanoi's verdict is the same under every path-priority option.
 */
export const priorityIndependence: Law = {
  id: 'priority-independence',
  tag: 'P7',
  description:
    "hanoi's verdict does not depend on its path-priority option on compiled code (seed 000 §VI-A)",
  sources: () => ['compiled-all', 'turing'],
  appliesTo: (m) => m === 'hanoi',
  check(kernel, mechanism, o): LawOutcome {
    const results = ORDERS.map((order) => {
      const { machine } = build(kernel, mechanism, { ...o.options, order }, true);
      return { order, machine, r: lawExplore(machine, o.budget) };
    });
    if (results.some((x) => x.r.bound !== null)) return { ok: 'skip', reason: 'a budget ran out' };
    const text = (x: (typeof results)[number]) =>
      x.r.kind ? `${x.r.verdict}/${x.r.kind}` : x.r.verdict;
    const first = results[0]!;
    const odd = results.find((x) => text(x) !== text(first));
    if (!odd) return { ok: true };
    // Save the run that does not terminate (or the odd one out).
    const bad = first.r.verdict !== 'terminates' ? first : odd;
    const f = bad.r.findings[0]!;
    return {
      ok: false,
      finding: {
        verdict: f.verdict,
        kind: f.kind,
        property: f.property,
        message: `order=${first.order} gives ${text(first)}, order=${odd.order} gives ${text(odd)}: ${f.message}`,
        schedule: f.schedule,
        loop: f.loop,
        options: bad.machine.options,
        refine: true,
      },
    };
  },
};
