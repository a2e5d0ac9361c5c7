/**
 * Kernels generated once per seed for every mechanism. fast-check draws run `i` of a campaign
 * from a fresh `Random` jumped `i + 1` times from the seed (`toss` in fast-check's runner) with a
 * bias from `i` alone, so every mechanism's campaign of one law (same generators, same seed) asks
 * for the same kernels in the same order; generating, rendering and (for the compiled sources)
 * compiling each one again per mechanism was ~7 % of a `check` campaign's time.
 */
import fc from 'fast-check';
import { RecentCache } from './recentCache.ts';

/**
 * `arb` with its generated values remembered by the generator's state and the bias: a draw from
 * the same state gives the same `Value` (its shrink context included), so results, shrinking and
 * replay paths are those of `arb`. Only for an arbitrary drawn at the top of a property (fast-check
 * gives each run its own `Random` and reads nothing from it afterwards); when the random
 * generator cannot tell its state, every draw goes to `arb`.
 */
class SharedArbitrary<T> extends fc.Arbitrary<T> {
  private readonly drawn: RecentCache<fc.Value<T>>;

  constructor(
    private readonly arb: fc.Arbitrary<T>,
    capacity: number,
  ) {
    super();
    this.drawn = new RecentCache(capacity);
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    const state = mrng.getState();
    if (state === undefined) return this.arb.generate(mrng, biasFactor);
    return this.drawn.get(`${state.join(',')}/${biasFactor}`, () =>
      this.arb.generate(mrng, biasFactor),
    );
  }

  canShrinkWithoutContext(value: unknown): value is T {
    return this.arb.canShrinkWithoutContext(value);
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.arb.shrink(value, context);
  }
}

/**
 * Kernels a campaign keeps for the next mechanism's: a 10,000-run campaign's kernels for every
 * mechanism of its law (one law's campaigns run one after the other on one thread: `checkPool.ts`).
 */
const CAPACITY = 12_000;
/**
 * Generators whose draws are kept, most recently used last. A law mixes at most two generator
 * mixes over its mechanisms (P1: `mixed` and, for its and hanoi, `mixed+turing`); the laws before
 * it are done with theirs, so only the last few keep their kernels (memory stays that of one
 * law's campaign, whatever the number of laws).
 */
const KEPT = 3;
const shared = new Map<string, SharedArbitrary<unknown>>();

/** The shared form of the generator named `id`, its draws kept while it is among the last used. */
export function sharedArbitrary<T>(id: string, make: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
  let a = shared.get(id);
  if (a) shared.delete(id);
  else a = new SharedArbitrary<unknown>(make(), CAPACITY);
  shared.set(id, a);
  if (shared.size > KEPT) shared.delete(shared.keys().next().value!);
  return a as fc.Arbitrary<T>;
}
