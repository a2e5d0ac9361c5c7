import { lawExplore } from './lawExplore.ts';
import type { Machine } from '../../model/machine/machine.ts';
import { build, run, type Run } from './machine.ts';
import { RecentCache } from './recentCache.ts';
import { firstDifference, levenshtein } from '../../model/trace/index.ts';
import type { CheckOptions, GeneratedKernel, LawFinding, Law, LawOutcome } from './types.ts';

const STEPS = 3000;
/**
 * Issues a warp-trace comparison leaves out: Hanoi issues a BSYNC once per arriving path (issue 4
 * P6). WARPSYNC too (a decision, docs/semantics.md "Laws"): Hanoi treats it as a barrier and issues
 * it once per arriving path (seed 000 §VII-B), where the stack has already reconverged before it.
 */
const BARRIER_OPS = new Set([
  'bssy',
  'bsync',
  'break',
  'bmov-from-barrier',
  'bmov-to-barrier',
  'yield',
  'warpsync',
]);

/** What a replay of the run's schedule ends with. */
function runFinding(
  m: Machine,
  r: Run,
  message: string,
  measures?: Record<string, number>,
): LawFinding {
  const end =
    r.end === 'terminated'
      ? { verdict: 'terminates' as const, kind: null, property: null }
      : r.end === 'blocked'
        ? { verdict: 'deadlock' as const, kind: 'blocked' as const, property: null }
        : r.end === 'stopped' && r.stop
          ? { verdict: r.stop.verdict, kind: null, property: r.stop.property ?? null }
          : { verdict: 'incomplete' as const, kind: null, property: null };
  return {
    ...end,
    message,
    schedule: r.schedule,
    loop: null,
    options: m.options,
    refine: true,
    ...(measures ? { measures } : {}),
  };
}

/** Per lane, the PCs it issued at, in order (a merged issue's second group at its own PC). */
const laneTraces = (r: Run, W: number): string[] =>
  Array.from({ length: W }, (_, l) =>
    r.issues
      .flatMap((i) =>
        (i.mask >>> l) & 1 ? [i.pc] : i.merged && (i.merged.mask >>> l) & 1 ? [i.merged.pc] : [],
      )
      .join(','),
  );

/** (a) the mechanism refines its: no `refines-its` violation in any interleaving (SEMANTICS §6). */
function refines(k: GeneratedKernel, mech: string, o: CheckOptions): LawOutcome {
  const { machine } = build(k, mech, o.options, true);
  const r = lawExplore(machine, o.budget);
  const f = r.findings.find((x) => x.property === 'refines-its');
  if (!f) return r.bound !== null ? { ok: 'skip', reason: `${r.bound} budget` } : { ok: true };
  return {
    ok: false,
    finding: {
      verdict: f.verdict,
      kind: f.kind,
      property: f.property,
      message: `refines-its: ${f.message}`,
      schedule: f.schedule,
      loop: f.loop,
      options: machine.options,
      refine: true,
    },
  };
}

/**
 * The first-choice run of `its` per kernel text (a pure function of the text): every mechanism's
 * campaign compares against the same run of the same kernels.
 */
const itsRuns = new RecentCache<Run>(256);

/** (b) per-lane traces and final registers equal the reference's (race-free, deterministic code). */
function sameLanes(k: GeneratedKernel, mech: string, o: CheckOptions): LawOutcome {
  const ref = itsRuns.get(k.text, () => run(build(k, 'its', {}, false).machine, STEPS));
  if (ref.end !== 'terminated') return { ok: 'skip', reason: `its run: ${ref.end}` };
  const { machine } = build(k, mech, o.options, true);
  const mine = run(machine, STEPS);
  const W = machine.launch.warpSize;
  const a = laneTraces(ref, W);
  const b = laneTraces(mine, W);
  for (let l = 0; l < W; l++)
    if (a[l] !== b[l] || mine.end !== 'terminated')
      return {
        ok: false,
        finding: runFinding(
          machine,
          mine,
          `lane ${l}'s trace differs from its's (${mine.end}): its ${a[l]} vs ${mech} ${b[l]}`,
        ),
      };
  const ra = ref.final.warps.map((w) => w.data.regs.join(','));
  const rb = mine.final.warps.map((w) => w.data.regs.join(','));
  if (ra.join(';') !== rb.join(';'))
    return {
      ok: false,
      finding: runFinding(machine, mine, "the final registers differ from its's"),
    };
  return { ok: true };
}

/**
 * (c) hanoi and simt-stack with the same path priority issue the same warp trace (PC + mask),
 * barrier instructions left out, on compiled structured code without spin loops; the discrepancy
 * (Levenshtein distance / length, seed 000 §IX) is reported.
 */
function hanoiLikeStack(k: GeneratedKernel, o: CheckOptions): LawOutcome {
  let worst = 0;
  for (const order of ['taken-first', 'not-taken-first']) {
    const h = build(k, 'hanoi', { ...o.options, order }, true).machine;
    // The stack's WARPSYNC check is P4's business; here only the paths' order and masks count.
    const s = build(k, 'simt-stack', { order, warpsync: 'nop' }, true).machine;
    const rh = run(h, STEPS);
    const rs = run(s, STEPS);
    if (rh.end !== 'terminated' || rs.end !== 'terminated')
      return { ok: 'skip', reason: 'a run did not terminate' };
    const trace = (m: Machine, r: Run) =>
      r.issues
        .filter((i) => !BARRIER_OPS.has(m.ops[i.pc]!.kind))
        .map((i) => ({ pc: i.pc, mask: i.mask }));
    const th = trace(h, rh);
    const ts = trace(s, rs);
    // seed 000 §IX: Levenshtein distance over (PC, mask) issues, here over the longer trace.
    const d = levenshtein(th, ts);
    const ratio = d / Math.max(1, th.length, ts.length);
    worst = Math.max(worst, ratio);
    if (d > 0) {
      const at = firstDifference(th, ts) ?? 0;
      const show = (x: { pc: number; mask: number } | undefined) =>
        x ? `${h.fmt.pc(x.pc)}:${h.fmt.mask(x.mask)}` : 'end';
      return {
        ok: false,
        finding: runFinding(
          h,
          rh,
          `order=${order}: hanoi's warp trace differs from simt-stack's at issue ${at} (${show(th[at])} vs ${show(ts[at])}); Levenshtein distance ${d}, discrepancy ${ratio.toFixed(3)}`,
          { discrepancy: ratio },
        ),
      };
    }
  }
  return { ok: true, measures: { discrepancy: worst } };
}

/**
 * P6 trace equivalence (issue 4; SEMANTICS §6; seed 000 §IX): every mechanism refines its on the
 * code it is meant for; per-lane traces equal the reference's on deterministic race-free code;
 * hanoi's warp trace equals simt-stack's under the same path priority on compiled code.
 */
export const traceEquivalence: Law = {
  id: 'trace-equivalence',
  tag: 'P6',
  description:
    "refines its; per-lane traces equal its's on race-free code; hanoi and simt-stack with the same path priority issue the same warp trace without barrier issues (SEMANTICS §6; seed 000 §IX)",
  // The code each is meant for: compiled Turing code for hanoi, plain code for pre-Volta designs.
  sources: (m) => (m === 'hanoi' ? ['compiled', 'turing'] : ['structured-det', 'plain']),
  appliesTo: (m) => m !== 'its',
  check(kernel, mechanism, o) {
    const a = refines(kernel, mechanism, o);
    if (a.ok !== true) return a;
    const b = sameLanes(kernel, mechanism, o);
    if (b.ok === false) return b;
    return mechanism === 'hanoi' ? hanoiLikeStack(kernel, o) : b;
  },
};
