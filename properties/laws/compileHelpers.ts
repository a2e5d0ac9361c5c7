/**
 * What law P8 (`compilePreserves.ts`) and `properties/compile.test.ts` share: compiling a listing
 * for Turing with the origin of every compiled PC, per-lane source traces of a deterministic run,
 * the registers a listing names, and the two checks of the law — (a) per-lane semantics preserved,
 * (b) deadlock-aware code terminates on hanoi — as pure functions returning results (no test
 * framework here: the CLI runs them too).
 */
import { compileTuring, printCompiled, type TuringOptions } from '../../model/compile/index.ts';
import type { ExploreResult } from '../../model/explore/exhaustive.ts';
import { budgetKey, lawExplore } from './lawExplore.ts';
import { formatDiagnostic } from '../../model/isa/program.ts';
import { parseSass } from '../../model/isa/parseSass.ts';
import { readReg } from '../../model/lanes/laneData.ts';
import type { Machine, MachineState } from '../../model/machine/machine.ts';
import { kernelOfText } from './kernels.ts';
import { RecentCache } from './recentCache.ts';
import { build, run } from './machine.ts';
import type { CheckOptions, GeneratedKernel, LawFinding, LawOutcome } from './types.ts';

type Budget = CheckOptions['budget'];

export const verdictOf = (r: ExploreResult): string =>
  r.kind ? `${r.verdict}/${r.kind}` : r.verdict;

/** A compiled listing and, per compiled PC, its source PC (null: an inserted instruction). */
export interface CompiledListing {
  readonly text: string;
  readonly origin: readonly (number | null)[];
}

/** Recent compilations by options and text (`compileTuring` is pure). */
const compiledCache = new RecentCache<
  { ok: true; value: CompiledListing } | { ok: false; error: string }
>(512);

/**
 * `text` compiled by the Turing pass; the pass's diagnostics (with the listing) on failure. Cached:
 * P8 and P9 compile each kernel once per mechanism's campaign, some several times per check.
 */
export function compiled(
  text: string,
  options: TuringOptions,
): { ok: true; value: CompiledListing } | { ok: false; error: string } {
  return compiledCache.get(`${JSON.stringify(options)}\n${text}`, () => {
    const parsed = parseSass(text, { file: 'kernel.sass' });
    if (!parsed.ok) return { ok: false, error: parsed.error.map(formatDiagnostic).join('\n') };
    const r = compileTuring(parsed.value.program, options);
    if (!r.ok) return { ok: false, error: r.error.map(formatDiagnostic).join('\n') + '\n' + text };
    return {
      ok: true,
      value: {
        text: printCompiled(r.value.program, parsed.value.directives) + '\n',
        origin: r.value.origin,
      },
    };
  });
}

/**
 * The machine of a listing. Hanoi takes WARPSYNC registers from the top (the law options,
 * `LAW_OPTIONS`: the lowest free one may be one the compiler placed on another path,
 * `scenarios/finding-hanoi-warpsync-register.sass`); pass them in `options`.
 */
export const machineOfText = (
  text: string,
  mechanism: string,
  options: Readonly<Record<string, string>>,
  refine = true,
): Machine => build(kernelOfText(text), mechanism, options, refine).machine;

/**
 * General registers a listing names, minus those loaded with a code address (`MOV R20, label`:
 * a return address, which moves with the code by design).
 */
export function sourceRegisters(text: string): number[] {
  const named = new Set<number>();
  for (const m of text.matchAll(/\bR(\d+)\b/g)) named.add(Number(m[1]));
  for (const m of text.matchAll(/\bMOV R(\d+), [.A-Za-z_$]/g)) named.delete(Number(m[1]));
  return [...named].sort((a, b) => a - b);
}

/** A run taking the first choice in every state, with per-thread source-PC traces. */
export interface TracedRun {
  /** Per thread (warp · W + lane): the source PCs it executed, in order. */
  readonly traces: readonly (readonly number[])[];
  readonly final: MachineState;
  /** The choices taken (all 0), for a finding. */
  readonly schedule: readonly number[];
}

/**
 * Runs the first choice in every state to the end (`machine.ts` `run`), recording per-lane traces
 * of source PCs (`origin` maps a PC to its source PC, null for an inserted instruction).
 */
export function runFirst(
  machine: Machine,
  origin: (pc: number) => number | null,
  maxSteps = 20_000,
): { ok: true; value: TracedRun } | { ok: false; error: string } {
  const r = run(machine, maxSteps);
  if (r.end === 'stopped')
    return { ok: false, error: `stopped: ${r.stop?.verdict}: ${r.stop?.message}` };
  if (r.end === 'cut') return { ok: false, error: `no end after ${maxSteps} steps` };
  const w = machine.launch.warpSize;
  const traces: number[][] = Array.from({ length: w * machine.launch.warps }, () => []);
  for (const is of r.issues)
    for (const { pc, mask } of [is, ...(is.merged ? [is.merged] : [])]) {
      const src = origin(pc);
      if (src === null) continue;
      for (let l = 0; l < w; l++) if ((mask >>> l) & 1) traces[is.warp * w + l]!.push(src);
    }
  return { ok: true, value: { traces, final: r.final, schedule: r.schedule } };
}

/** The given registers of every thread, per warp. */
export const registersOf = (m: Machine, s: MachineState, regs: readonly number[]): number[][] =>
  s.warps.map((warp) =>
    Array.from({ length: m.launch.warpSize }, (_, l) =>
      regs.map((r) => readReg(warp.data, m.ctx.layout, l, r)),
    ).flat(),
  );

/**
 * The outcome of a P8 check: a `LawOutcome`, or `pre` — the kernel is outside the law's premise
 * (the source does not terminate on its, hanoi departs from its on the source itself). `skip`
 * means a budget ran out (inconclusive); tests count those.
 */
export type P8Outcome = LawOutcome | { readonly ok: 'pre'; readonly reason: string };

/** A kernel whose per-lane traces cannot depend on the schedule (the premise of (a)). */
export function deterministic(k: GeneratedKernel): boolean {
  const ast = k.ast as { deterministic?: unknown } | null;
  if (ast && typeof ast === 'object' && ast.deterministic === true) return true;
  // Lanes that never communicate: no memory, atomics or WARPSYNC (plain and unstructured kernels).
  return !/\b(ATOMS?|ATOMG|RED|ST[GS]?|LD[GS]?|WARPSYNC)\b/.test(k.text);
}

/** Per kernel text and budget, the verdict of the source on `its` (shared by (a) and (b)). */
const refCache = new Map<string, ExploreResult>();
export function sourceOnIts(text: string, budget: Budget): ExploreResult {
  const key = `${budgetKey(budget)}\n${text}`;
  let r = refCache.get(key);
  if (!r) {
    r = lawExplore(machineOfText(text, 'its', {}, false), budget);
    if (r.bound !== 'time') {
      if (refCache.size >= 5_000) refCache.delete(refCache.keys().next().value!);
      refCache.set(key, r);
    }
  }
  return r;
}

const fail = (
  f: Omit<LawFinding, 'refine' | 'options'>,
  m: Machine,
  refine: boolean,
  program: string,
): LawOutcome => ({
  ok: false,
  finding: { ...f, options: m.options, refine, program },
});

/**
 * P8 (a) on one kernel (deterministic: its per-lane traces do not depend on the schedule): the
 * compiled program terminates on `mechanism` under every interleaving, and in the first-choice run
 * every lane runs the same source instructions in the same order as the source does on its (the
 * inserted ones left out), with the same source registers and — without calls, whose return
 * addresses on a memory stack are code addresses that move — the same final memory.
 */
export function preservesLanes(
  k: Pick<GeneratedKernel, 'text' | 'classes'>,
  mechanism: string,
  compile: TuringOptions,
  options: Readonly<Record<string, string>>,
  budget: Budget,
): P8Outcome {
  const src = sourceOnIts(k.text, budget);
  if (src.bound !== null) return { ok: 'skip', reason: `its: ${src.bound} budget` };
  if (src.verdict !== 'terminates') return { ok: 'pre', reason: `its: ${verdictOf(src)}` };
  if (mechanism !== 'its') {
    // Hanoi departs from its on the plain source itself (a `refines-its` violation: WARPSYNC at two
    // instructions, the one waiting mask — docs/semantics.md, hanoi): the pass cannot be blamed.
    const plain = lawExplore(machineOfText(k.text, mechanism, options), budget);
    if (plain.verdict === 'violation')
      return { ok: 'pre', reason: `${mechanism} departs on the source` };
  }
  const out = compiled(k.text, compile);
  if (!out.ok) throw new Error(`the compile pass rejects a generated kernel: ${out.error}`);
  // Without the `refines-its` check: P8 is about per-lane semantics and termination, and under
  // the settled BSYNC release (SEMANTICS §2, issue 14) the reference wakes a lane waiting at an
  // outer BSYNC when a nested region re-arms the same register (the nvcc-style BMOV spill the
  // nesting allocation emits), where Hanoi keeps it waiting until the outer region reconverges —
  // a refinement departure that changes no lane's trace (docs/findings.md, seed 000 Fig. 5).
  const m = machineOfText(out.value.text, mechanism, options, mechanism === 'its');
  const result = lawExplore(m, budget);
  if (result.bound !== null) return { ok: 'skip', reason: `${mechanism}: ${result.bound} budget` };
  const setting = JSON.stringify(compile);
  if (result.verdict !== 'terminates') {
    const f = result.findings[0]!;
    return fail(
      {
        verdict: f.verdict,
        kind: f.kind,
        property: f.property,
        message: `the source terminates on its; compiled (${setting}) it gives ${verdictOf(result)} on ${mechanism}: ${f.message}\n${out.value.text}`,
        schedule: f.schedule,
        loop: f.loop,
      },
      m,
      true,
      out.value.text,
    );
  }
  const ms = machineOfText(k.text, 'its', {});
  const a = runFirst(ms, (pc) => pc);
  const b = runFirst(m, (pc) => out.value.origin[pc] ?? null);
  if (!a.ok) throw new Error(`the source's first-choice run on its: ${a.error}`);
  if (!b.ok) throw new Error(`the compiled first-choice run on ${mechanism}: ${b.error}`);
  const differs = (what: string): LawOutcome =>
    fail(
      {
        verdict: 'terminates',
        kind: null,
        property: null,
        message: `compiled (${setting}) on ${mechanism}, the first-choice run differs from the source's on its: ${what}\n${out.value.text}`,
        schedule: b.value.schedule,
        loop: null,
      },
      m,
      true,
      out.value.text,
    );
  const ta = a.value.traces;
  const tb = b.value.traces;
  const t = ta.findIndex((x, i) => JSON.stringify(x) !== JSON.stringify(tb[i]));
  if (t >= 0)
    return differs(
      `thread ${t} runs source PCs [${tb[t]!.join(' ')}], on the source [${ta[t]!.join(' ')}]`,
    );
  const regs = sourceRegisters(k.text);
  const ra = JSON.stringify(registersOf(ms, a.value.final, regs));
  const rb = JSON.stringify(registersOf(m, b.value.final, regs));
  if (ra !== rb) return differs(`registers R${regs.join(',R')}: ${rb}, on the source ${ra}`);
  if (!k.classes.has('call')) {
    const ma = JSON.stringify(a.value.final.memory);
    const mb = JSON.stringify(b.value.final.memory);
    if (ma !== mb) return differs(`final memory ${mb}, on the source ${ma}`);
  }
  return { ok: true };
}

/**
 * P8 (b): a kernel that terminates on `its` in every interleaving terminates on hanoi once
 * compiled with the deadlock-aware placement (seed 000 §VI-C). Hanoi runs without the
 * `refines-its` check: the law is about termination, Hanoi's known departures from its are P6's,
 * and a violation would end the search before a livelock could show.
 */
export function terminatesOnHanoi(
  text: string,
  compile: TuringOptions,
  options: Readonly<Record<string, string>>,
  budget: Budget,
): P8Outcome {
  const src = sourceOnIts(text, budget);
  if (src.bound !== null) return { ok: 'skip', reason: `its: ${src.bound} budget` };
  if (src.verdict !== 'terminates') return { ok: 'pre', reason: `its: ${verdictOf(src)}` };
  const out = compiled(text, compile);
  if (!out.ok) throw new Error(`the compile pass rejects a generated kernel: ${out.error}`);
  const m = machineOfText(out.value.text, 'hanoi', options, false);
  const r = lawExplore(m, budget);
  if (r.bound !== null) return { ok: 'skip', reason: `hanoi: ${r.bound} budget` };
  if (r.verdict === 'terminates') return { ok: true };
  const f = r.findings[0]!;
  return fail(
    {
      verdict: f.verdict,
      kind: f.kind,
      property: f.property,
      message: `terminates on its; compiled (${JSON.stringify(compile)}) hanoi gives ${verdictOf(r)}: ${f.message}\n${out.value.text}`,
      schedule: f.schedule,
      loop: f.loop,
    },
    m,
    false,
    out.value.text,
  );
}
