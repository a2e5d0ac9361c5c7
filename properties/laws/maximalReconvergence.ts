import { compiled, machineOfText } from './compileHelpers.ts';
import { run } from './machine.ts';
import { ballotLogs, formatLogs, type LaneLog } from '../reconvergence/ballotLog.ts';
import { referenceLogs } from '../reconvergence/reference.ts';
import { reachesLog } from '../reconvergence/reachLog.ts';
import { ballotProgramOf } from '../reconvergence/lower.ts';
import type { BallotKernelAst } from '../reconvergence/source.ts';
import type { Law, LawOutcome } from './types.ts';

const same = (a: readonly LaneLog[], b: readonly LaneLog[]): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * P9 (issue 11): maximal reconvergence, checked as the Vulkan/WebGPU reconvergence tests check it.
 * A structured program with ballots (`properties/reconvergence/`) logs per lane the active mask at
 * every ballot; the expected logs come from a reference interpreter of the structured program.
 * - `its`: the expected logs are among its schedules (pruned search, `reachLog.ts`);
 * - `simt-stack`: its one run gives them, except where IPDOM reconvergence departs by nature
 *   (declared by class in `expectations.ts`);
 * - `hanoi`: after the Turing compile pass, its run gives them — no difference allowed.
 */
export const maximalReconvergence: Law = {
  id: 'maximal-reconvergence',
  tag: 'P9',
  description:
    'per-lane ballot logs of structured programs equal those of maximal reconvergence: reachable on its, given by simt-stack outside the declared IPDOM classes, given by hanoi on code from the Turing compile pass (issue 11; Vulkan/WebGPU reconvergence tests)',
  sources: () => ['ballot'],
  appliesTo: (m) => m === 'its' || m === 'simt-stack' || m === 'hanoi',
  check(kernel, mechanism, o): LawOutcome {
    const ast = kernel.ast as BallotKernelAst | null;
    const program =
      ast !== null && typeof ast === 'object' && 'program' in ast
        ? ast.program
        : ballotProgramOf(kernel.text);
    if (program === null) return { ok: 'skip', reason: 'not a ballot program' };
    const want = ast?.expected ?? referenceLogs(program);
    const threads = kernel.warpSize;
    let text = kernel.text;
    if (mechanism === 'its') {
      const m = machineOfText(text, 'its', o.options, false);
      // At most 3 s per program: a search cut short is a skip, counted in the campaign.
      const r = reachesLog(m, want, o.budget.maxStates, Math.min(o.budget.timeoutMs, 3000));
      if (r.found) return { ok: true };
      if (!r.exhausted) return { ok: 'skip', reason: `its: ${r.states} states searched` };
      return {
        ok: false,
        finding: {
          verdict: 'incomplete',
          kind: null,
          property: null,
          message: `no schedule of its gives the maximal-reconvergence log:\n${formatLogs(want).join('\n')}`,
          schedule: [],
          loop: null,
          options: m.options,
          refine: false,
        },
      };
    }
    if (mechanism === 'hanoi') {
      const c = compiled(text, {});
      if (!c.ok) throw new Error(`the compile pass rejects a ballot program: ${c.error}`);
      text = c.value.text;
    }
    const m = machineOfText(text, mechanism, o.options, false);
    const r = run(m, o.budget.maxDepth * 50);
    if (r.end === 'cut') return { ok: 'skip', reason: `${mechanism}: step budget` };
    const got = ballotLogs(r.final.memory, threads);
    if (r.end === 'terminated' && same(got, want)) return { ok: true };
    return {
      ok: false,
      finding: {
        verdict: r.end === 'terminated' ? 'terminates' : 'incomplete',
        kind: null,
        property: null,
        message: `${mechanism}${mechanism === 'hanoi' ? ' (compiled for Turing)' : ''} ${r.end}; per-lane logs differ from maximal reconvergence:\nexpected\n${formatLogs(want).join('\n')}\ngot\n${formatLogs(got).join('\n')}`,
        schedule: r.schedule,
        loop: null,
        options: m.options,
        refine: false,
        ...(mechanism === 'hanoi' ? { program: text } : {}),
      },
    };
  },
};
