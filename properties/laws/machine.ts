/**
 * Running a generated kernel for a law: building its machine through the public pipeline (no test
 * helpers: the CLI uses this too), breadth-first transition walks that remember how each state was
 * reached, and deterministic runs.
 */
import { formatDiagnostic } from '../../model/isa/program.ts';
import type { Machine, MachineState, Stop, Transition } from '../../model/machine/machine.ts';
import {
  loadProgram,
  resolveLaunch,
  type LoadedProgram,
} from '../../model/scenario/loadProgram.ts';
import { machineFor } from '../../model/scenario/session.ts';
import { findMechanism, resolveOptions } from '../../model/mechanisms/registry.ts';
import type { Launch } from '../../model/lanes/launch.ts';
import { RecentCache } from './recentCache.ts';
import { StateSet } from './stateSet.ts';
import type { GeneratedKernel, LawOutcome } from './types.ts';

export interface Built {
  readonly machine: Machine;
  readonly loaded: LoadedProgram;
}

/**
 * Programs loaded from kernel texts, and their launches (a pure function of the text): about 30 KB
 * each, so the 1,024 most recent hold a 40-run campaign's texts for every mechanism of a law.
 */
const loadedCache = new RecentCache<{ loaded: LoadedProgram; launch: Launch }>(1024);
/** Machines by mechanism, options, refinement and text (`createMachine` is pure; ~25 KB each). */
const machineCache = new RecentCache<Built>(256);

/** `kernel.text` parsed, decoded and analysed, with its launch; cached by text. */
function loadKernel(text: string): { loaded: LoadedProgram; launch: Launch } {
  return loadedCache.get(text, () => {
    const loaded = loadProgram(text, 'generated.sass');
    if (!loaded.ok)
      throw new Error(
        `generated kernel does not load:\n${loaded.error.map(formatDiagnostic).join('\n')}\n${text}`,
      );
    const launch = resolveLaunch(loaded.value.header);
    if (!launch.ok) throw new Error(`generated kernel's launch: ${launch.error.join('; ')}`);
    return { loaded: loaded.value, launch: launch.value };
  });
}

/**
 * The machine of `kernel` on `mechanism`; a generated kernel that does not load is a generator bug.
 * Built once for recent (text, mechanism, options, refinement): a law asks for the same machine
 * several times per kernel, and every mechanism's campaign reloads the same texts.
 */
export function build(
  kernel: GeneratedKernel,
  mechanism: string,
  options: Readonly<Record<string, string>>,
  refine = true,
): Built {
  // Keyed by the options `machineFor` resolves (defaults filled in): `{}` and the defaults spelled
  // out are one machine, so the searches cached on it (`lawExplore.ts`) are shared too.
  const f = findMechanism(mechanism);
  const resolved = f ? resolveOptions(f, options) : null;
  const full = resolved?.ok ? resolved.options : options;
  const opts = Object.keys(full)
    .sort()
    .map((k) => `${k}=${full[k]}`)
    .join(',');
  return machineCache.get(`${mechanism}\n${refine}\n${opts}\n${kernel.text}`, () => {
    const { loaded, launch } = loadKernel(kernel.text);
    const m = machineFor(loaded, launch, mechanism, options, 'ascending', false, refine);
    if (!m.ok) throw new Error(m.error.join('; '));
    return { machine: m.value, loaded };
  });
}

/** One reachable transition, with the schedule (choice indices) that reaches `pre`. */
export interface Step {
  readonly pre: MachineState;
  readonly t: Transition;
  readonly choice: number;
  readonly post: MachineState;
  /** The schedule to `pre`; `[...path(), choice]` reaches `post`. */
  path(): number[];
}

/**
 * Every transition among the first `limit` states reached breadth-first, each once per state.
 * `visit` returns a message to stop at a broken law; the walk returns it with its schedule.
 *
 * With `newOnly`, only the transitions that reach a state not met before are visited: for a law
 * about states alone (a property of `post` that holds of a state exactly when it holds of every
 * state equal to it), the first break is then the same, with the same schedule — a repeated
 * `post` equals a state already visited or the initial one, which the law checked.
 */
export function walk(
  m: Machine,
  limit: number,
  visit: (s: Step) => string | null,
  newOnly = false,
): { message: string; schedule: number[] } | null {
  const seen = new StateSet(m);
  const states: MachineState[] = [m.initial()];
  const parent: number[] = [-1];
  const via: number[] = [-1];
  seen.add(states[0]!);
  const pathTo = (i: number): number[] => {
    const out: number[] = [];
    for (let s = i; s > 0; s = parent[s]!) out.push(via[s]!);
    return out.reverse();
  };
  for (let i = 0; i < states.length && i < limit; i++) {
    const pre = states[i]!;
    const succ = m.successors(pre);
    for (let c = 0; c < succ.length; c++) {
      const t = succ[c]!;
      if (!t.next) continue;
      const fresh = newOnly ? seen.add(t.next) : false;
      if (!newOnly || fresh) {
        const msg = visit({ pre, t, choice: c, post: t.next, path: () => pathTo(i) });
        if (msg !== null) return { message: msg, schedule: [...pathTo(i), c] };
      }
      if (newOnly ? fresh : seen.add(t.next)) {
        states.push(t.next);
        parent.push(i);
        via.push(c);
      }
    }
  }
  return null;
}

/** A run taking `pick(step, count)` at every state, until it ends or `maxSteps`. */
export interface Run {
  /** `merged`: the second half of a merged issue (`Issue.merged`, opcode-convergent). */
  readonly issues: readonly {
    warp: number;
    pc: number;
    mask: number;
    merged?: { readonly pc: number; readonly mask: number };
  }[];
  readonly schedule: readonly number[];
  readonly end: 'terminated' | 'blocked' | 'stopped' | 'cut';
  readonly final: MachineState;
  /** The step that ended the run, for `stopped`. */
  readonly stop: Stop | null;
}

export function run(
  m: Machine,
  maxSteps: number,
  pick: (step: number, count: number) => number = () => 0,
): Run {
  let s = m.initial();
  const issues: Run['issues'][number][] = [];
  const schedule: number[] = [];
  for (let i = 0; i < maxSteps; i++) {
    const succ = m.successors(s);
    if (succ.length === 0)
      return {
        issues,
        schedule,
        end: m.status(s) === 'terminated' ? 'terminated' : 'blocked',
        final: s,
        stop: null,
      };
    const c = pick(i, succ.length) % succ.length;
    const t = succ[c]!;
    schedule.push(c);
    issues.push({
      warp: t.warp,
      pc: t.issue.pc,
      mask: t.issue.mask,
      ...(t.issue.merged ? { merged: t.issue.merged } : {}),
    });
    if (!t.next) return { issues, schedule, end: 'stopped', final: s, stop: t.stop };
    s = t.next;
  }
  return { issues, schedule, end: 'cut', final: s, stop: null };
}

/** Lanes of a mask, lowest first. */
export function lanesOf(mask: number): number[] {
  const out: number[] = [];
  for (let m = mask >>> 0; m !== 0; m &= m - 1) out.push(31 - Math.clz32(m & -m));
  return out;
}

/**
 * The outcome of a law that checks every reachable transition (`walk`): it holds, or it broke in
 * a running state — verdict `incomplete`, with the schedule that reaches the broken step, saved and
 * replayed as a scenario.
 */
export function walkOutcome(
  m: Machine,
  bad: { message: string; schedule: number[] } | null,
): LawOutcome {
  if (!bad) return { ok: true };
  return {
    ok: false,
    finding: {
      verdict: 'incomplete',
      kind: null,
      property: null,
      message: bad.message,
      schedule: bad.schedule,
      loop: null,
      options: m.options,
      refine: true,
    },
  };
}
