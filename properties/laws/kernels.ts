/**
 * The generators the laws run on, by name: the structured and unstructured kernel generators of
 * issue 4 (`arbitraries/structured.ts`, `unstructured.ts`), structured kernels compiled for Turing
 * by the compile pass (`model/compile`), and the older generators (`kernels.ts`, `turing.ts`)
 * adapted here, with classes derived from the listing text (`classesOf`).
 */
import fc from 'fast-check';
import { compileTuring, printCompiled } from '../../model/compile/index.ts';
import { parseSass } from '../../model/isa/parseSass.ts';
import { divergentKernel, spinlockKernel } from '../arbitraries/kernels.ts';
import { structuredKernel } from '../arbitraries/structured.ts';
import { renderTuring, turingProgramWith } from '../arbitraries/turing.ts';
import { unstructuredKernel } from '../arbitraries/unstructured.ts';
import { ballotKernel } from '../reconvergence/source.ts';
import { RecentCache } from './recentCache.ts';
import type { ExpectationClass, GeneratedKernel, KernelClass, KernelSource } from './types.ts';

const HEADER = /\/\/\s*@warpcheck\b[^\n]*/g;

/** Warp size and warps from the `// @warpcheck` header (defaults 4 and 1, as the loader's). */
export function launchShape(text: string): { warpSize: number; warps: number } {
  let warpSize = 4;
  let warps = 1;
  for (const h of text.match(HEADER) ?? []) {
    const w = /warp-size=(\d+)/.exec(h);
    const k = /\bwarps=(\d+)/.exec(h);
    if (w) warpSize = Number(w[1]);
    if (k) warps = Number(k[1]);
  }
  return { warpSize, warps };
}

/**
 * Classes read off a listing (an over-approximation where the text alone cannot tell): a backward
 * BRA is a loop; a loop around an atomic or a load is a spin loop; a WARPSYNC naming fewer than all
 * lanes is partial.
 */
export function classesOf(text: string): Set<KernelClass> {
  const lines = text.split('\n').map((l) => l.replace(/\/\/.*$/, '').trim());
  const labels = new Map<string, number>();
  let pc = 0;
  const body: { text: string; pc: number }[] = [];
  for (const l of lines) {
    if (!l || l.startsWith('Function')) continue;
    const lab = /^([A-Za-z_.$][\w.$]*):$/.exec(l);
    if (lab) {
      labels.set(lab[1]!, pc);
      continue;
    }
    body.push({ text: l, pc: pc++ });
  }
  const { warpSize } = launchShape(text);
  const full = warpSize >= 32 ? 0xffffffff : (1 << warpSize) - 1;
  const out = new Set<KernelClass>();
  const loops: [number, number][] = [];
  for (const { text: t, pc } of body) {
    const bra = /\bBRA\s+`?\(?([\w.$]+)/.exec(t);
    if (bra && labels.has(bra[1]!) && labels.get(bra[1]!)! <= pc)
      loops.push([labels.get(bra[1]!)!, pc]);
    if (/@!?P\d\s+EXIT/.test(t)) out.add('early-exit');
    if (/\bBREAK\b/.test(t)) out.add('break');
    if (/\bATOMS?\b|\bATOMG\b|\bRED\b/.test(t)) out.add('atomics');
    if (/\bCALL\b/.test(t)) out.add('call');
    if (/\bBRX\b/.test(t)) out.add('switch');
    const ws = /\bWARPSYNC\s+(0x[0-9a-f]+|\d+)/i.exec(t);
    if (ws) {
      out.add('syncwarp');
      if ((Number(ws[1]) & full) >>> 0 !== full >>> 0) out.add('partial-syncwarp');
    }
  }
  if (loops.length) out.add('loop');
  for (const [from, to] of loops)
    if (body.some((b) => b.pc >= from && b.pc <= to && /\bATOMS?\b|\bLD[GS]?\b/.test(b.text)))
      out.add('spin');
  return out;
}

/** The expectation classes of a kernel: its own, and those derived for the table. */
export function expectationClasses(k: GeneratedKernel): Set<ExpectationClass> {
  // The generator's classes and those read off the listing's structure (a shrunk kernel's
  // generator classes can miss a shape the text plainly has, e.g. a WARPSYNC left in an if).
  const out = new Set<ExpectationClass>([...k.classes, ...classesOf(k.text)]);
  out.add('any');
  // Busy waiting of either shape (a spin loop, or the Barnes-Hut lock taken inside an if).
  const busy = k.classes.has('spin') || k.classes.has('lock-in-if');
  if (busy && !/\bYIELD\b/.test(k.text)) out.add('spin-without-yield');
  if (/\bBSSY\b|\bBSYNC\b/.test(k.text)) out.add('barriers');
  if (/\bYIELD\b/.test(k.text)) out.add('yield');
  return out;
}

/** A kernel from listing text alone (a saved counterexample, a CLI file). */
export function kernelOfText(text: string, ast: unknown = null): GeneratedKernel {
  return { text, ...launchShape(text), classes: classesOf(text), ast };
}

const adapt = <T extends { text: string }>(a: fc.Arbitrary<T>): fc.Arbitrary<GeneratedKernel> =>
  a.map((x) => kernelOfText(x.text, x));

/**
 * Plain code with lane-divergent branches, loops and early exits, lanes never communicating
 * (`arbitraries/kernels.ts`): per-lane behaviour does not depend on the schedule.
 */
const plain: KernelSource = {
  id: 'plain',
  description: 'lane-divergent branches, loops, early exits; no memory (arbitraries/kernels.ts)',
  arbitrary: adapt(divergentKernel({ forwardOnly: false, maxSteps: 8 })),
};

const loopFree: KernelSource = {
  id: 'loop-free',
  description:
    'lane-divergent forward branches and early exits; no memory (arbitraries/kernels.ts)',
  arbitrary: adapt(divergentKernel({ forwardOnly: true })),
};

/**
 * Structured kernels (issue 4 §1): loops, break/continue, calls, switch, `__syncwarp`, lock idioms,
 * conditions on lane id, counters and memory. Warps of up to 4 lanes and 2 warps keep exhaustive
 * exploration of every kernel within a few milliseconds; `warpcheck check` uses the same sizes.
 */
const structured: KernelSource = {
  id: 'structured',
  description: 'structured kernels with every idiom, W ≤ 4, K ≤ 2 (arbitraries/structured.ts)',
  arbitrary: structuredKernel({ maxWarpSize: 4, maxWarps: 2 }),
};

/** Structured kernels without races or spin idioms: per-lane traces do not depend on the schedule. */
const structuredDet: KernelSource = {
  id: 'structured-det',
  description: 'deterministic structured kernels (no races, no spin), W ≤ 4, one warp',
  arbitrary: structuredKernel({ maxWarpSize: 4, maxWarps: 1, deterministic: true }),
};

const unstructured: KernelSource = {
  id: 'unstructured',
  description: 'random CFGs, irreducible ones included, W ≤ 4, K ≤ 2 (arbitraries/unstructured.ts)',
  arbitrary: unstructuredKernel({ maxWarpSize: 4, maxWarps: 2, maxBlocks: 6 }),
};

/** Plain kernel text → its compiled text (null: the pass declines it); `compileTuring` is pure. */
const compiledTexts = new RecentCache<string | null>(1024);

/**
 * A plain kernel lowered for Turing by the compile pass (BSSY/BSYNC at IPDOMs, BREAK, BMOV spills,
 * deadlock-aware spin loops with YIELD). A kernel the pass declines stays as it was (null marks it,
 * and the source filters it out: the pass's own tests cover what it declines).
 */
function compiled(k: GeneratedKernel): GeneratedKernel | null {
  // The same plain kernels come back in every mechanism's campaign (one seed): compiled once.
  const text = compiledTexts.get(k.text, () => {
    const parsed = parseSass(k.text, { file: 'generated.sass' });
    if (!parsed.ok) return null;
    const c = compileTuring(parsed.value.program, {});
    if (!c.ok) return null;
    return printCompiled(c.value.program, parsed.value.directives) + '\n';
  });
  if (text === null) return null;
  return { ...k, text };
}

const compiledDet: KernelSource = {
  id: 'compiled',
  description:
    'deterministic structured kernels compiled for Turing by model/compile (no spin loops)',
  arbitrary: structuredDet.arbitrary.map(compiled).filter((k): k is GeneratedKernel => k !== null),
};

const compiledAll: KernelSource = {
  id: 'compiled-all',
  description: 'structured kernels (spin idioms included) compiled for Turing, deadlock-aware',
  arbitrary: structured.arbitrary.map(compiled).filter((k): k is GeneratedKernel => k !== null),
};

/** Every kind of plain code, and the spinlock family of seed 000 Fig. 3 (the termination law's). */
const mixed: KernelSource = {
  id: 'mixed',
  description:
    'structured, unstructured and plain kernels, and the spinlock family of seed 000 Fig. 3',
  arbitrary: fc.oneof(
    structured.arbitrary,
    unstructured.arbitrary,
    plain.arbitrary,
    adapt(spinlockKernel),
  ),
};

/** Turing code laid out as NVIDIA's compiler does (`arbitraries/turing.ts`), W = 4. */
const turing: KernelSource = {
  id: 'turing',
  description:
    'compiled-style Turing code: BSSY/BSYNC regions, BREAK, WARPSYNC, YIELD (arbitraries/turing.ts)',
  arbitrary: adapt(turingProgramWith({ spill: false }).map((n) => ({ text: renderTuring(n) }))),
};

/** As `turing`, with seed 000 Fig. 5's BMOV spills (the reference races on them: Hanoi-only laws). */
const turingSpill: KernelSource = {
  id: 'turing-spill',
  description:
    'compiled-style Turing code with BMOV spills of seed 000 Fig. 5 (arbitraries/turing.ts)',
  arbitrary: adapt(turingProgramWith({ spill: true }).map((n) => ({ text: renderTuring(n) }))),
};

/** Structured programs with ballots at W = 4, 8 and 32 (law P9, issue 11). */
const ballot: KernelSource = {
  id: 'ballot',
  description:
    'structured programs with ballots logged per lane, W = 4, 8, 32 (properties/reconvergence/)',
  arbitrary: ballotKernel([4, 8, 32]),
};

export const SOURCES: readonly KernelSource[] = [
  ballot,
  structured,
  structuredDet,
  unstructured,
  compiledDet,
  compiledAll,
  mixed,
  plain,
  loopFree,
  turing,
  turingSpill,
];

export function findSource(id: string): KernelSource {
  const s = SOURCES.find((x) => x.id === id);
  if (!s)
    throw new Error(`no kernel source '${id}' (known: ${SOURCES.map((x) => x.id).join(', ')})`);
  return s;
}
