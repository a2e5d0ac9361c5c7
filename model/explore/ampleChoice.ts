import { uint8 } from './growable.ts';
import type { LocalSteps } from './localSteps.ts';
import type { VisitedStates } from './visited.ts';
import type { WarpSymmetry } from './warpSymmetry.ts';

/**
 * The reduction stage of `explore` (`exhaustive.ts`; docs/semantics.md §14): which ample set a
 * state expands, and the cycle proviso (C3).
 *
 * Candidates come from the expansion stage (`localSteps.ts`): per warp, its ample range (EXIT
 * priority, `groupPriority.ts`, or the partial-order reduction's, `partialOrder.ts`) and its
 * further ones. The smallest is tried first; with several, the first that the proviso accepts —
 * SPIN's way of trying the next process before expanding fully. Any candidate that meets C0–C3 is
 * a valid ample set, so the choice is free.
 *
 * The proviso in its breadth-first form (Bošnački, Leue and Lluch Lafuente): an ample edge back to
 * a level ≤ the state's own may close a cycle, and is accepted only when its target was already
 * expanded in full — every cycle then still meets a fully expanded state; otherwise the state is
 * expanded in full.
 */
export class AmpleChoice {
  /** Candidates of the state being chosen for: (warp, first step, end step, first choice). */
  private readonly cand: number[] = [];
  /** Per expanded state: 1 when every one of its steps is in the reduced graph. */
  private readonly expandedFull = uint8();
  /** The chosen candidate (after `choose` returned true). */
  warp = -1;
  from = 0;
  end = 0;
  /** The chosen range's first choice index among the state's steps. */
  before = 0;

  constructor(
    private readonly cache: LocalSteps,
    private readonly visited: VisitedStates,
    private readonly sym: WarpSymmetry | null,
    private readonly K: number,
    /** False only for the planted bug that drops the proviso. */
    readonly proviso: boolean,
    /** The planted bug that accepts an edge back to any expanded target, full or not. */
    private readonly plantAnyTarget: boolean,
  ) {}

  /** State `head` (the next id) starts its expansion, not (yet) in full. */
  begin(): void {
    this.expandedFull.push(0);
  }

  /** State `head` was expanded in full: every one of its steps is in the graph. */
  markFull(head: number): void {
    this.expandedFull.set(head, 1);
  }

  /**
   * An ample edge from `head` to the existing state `to` may close a cycle that meets no fully
   * expanded state: `to` was first reached by no more machine steps than `head`
   * (`VisitedStates.stepsOf`) and was not expanded in full before `head` (a smaller id;
   * breadth-first, so already expanded). Any measure fixed when a state is added would do — every
   * cycle has an edge that does not increase it —; steps, unlike stored levels, do not make an
   * edge look backward because a chain reached its target in few levels (docs/semantics.md §14).
   */
  breaksCycle(to: number, head: number): boolean {
    const { stepsOf } = this.visited;
    if (stepsOf.get(to) > stepsOf.get(head)) return false;
    return !(to < head && (this.plantAnyTarget || this.expandedFull.get(to) === 1));
  }

  /**
   * Picks the ample set of state `head` (tuple `parent`), whose warps have the locals
   * `locals`; `tuple` is scratch. True with `warp`, `from`, `end`, `before` set; false: expand
   * in full.
   */
  choose(locals: Int32Array, head: number, parent: Int32Array, tuple: Int32Array): boolean {
    const { cache, cand } = this;
    const { localAmpleFrom, localAmpleTo, localStart, localMoreStart, ampleMore } = cache;
    cand.length = 0;
    for (let k = 0, c0 = 0; k < this.K; k++) {
      const loc = locals[k]!;
      const from = localAmpleFrom.get(loc);
      const base = localStart.get(loc);
      if (from >= 0) {
        cand.push(k, base + from, base + localAmpleTo.get(loc), c0 + from);
        for (let i = localMoreStart.get(loc), end = localMoreStart.get(loc + 1); i < end; i += 2)
          cand.push(k, base + ampleMore.get(i), base + ampleMore.get(i + 1), c0 + ampleMore.get(i));
      }
      c0 += localStart.get(loc + 1) - base;
    }
    const several = cand.length > 4;
    for (let tried = 0; tried * 4 < cand.length; tried++) {
      let best = -1;
      for (let i = 0; i < cand.length; i += 4)
        if (
          cand[i + 1]! >= 0 &&
          (best < 0 || cand[i + 2]! - cand[i + 1]! < cand[best + 2]! - cand[best + 1]!)
        )
          best = i;
      if (best < 0) return false;
      const w = cand[best]!;
      if (
        !several ||
        !this.proviso ||
        cache.localAcyclic.get(locals[w]!) === 1 ||
        this.accepts(w, cand[best + 1]!, cand[best + 2]!, head, parent, tuple)
      ) {
        this.warp = w;
        this.from = cand[best + 1]!;
        this.end = cand[best + 2]!;
        this.before = cand[best + 3]!;
        return true;
      }
      cand[best + 1] = -1;
    }
    return false;
  }

  /** The proviso holds for steps from..to-1 of warp k: none goes back to a cycle-breaking state. */
  private accepts(
    k: number,
    from: number,
    to: number,
    head: number,
    parent: Int32Array,
    tuple: Int32Array,
  ): boolean {
    const { cache, visited, K } = this;
    for (let e = from; e < to; e++) {
      if (cache.stepStop.get(e) >= 0) continue;
      for (let j = 0; j <= K; j++) tuple[j] = parent[j]!;
      tuple[k] = cache.warpOf(e);
      tuple[K] = cache.stepMem.get(e);
      if (this.sym) this.sym.canon(tuple);
      const id = visited.find();
      if (id >= 0 && this.breaksCycle(id, head)) return false;
    }
    return true;
  }
}
