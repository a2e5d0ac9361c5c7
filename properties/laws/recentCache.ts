/**
 * A small least-recently-used cache of a pure function's results, for the laws' repeated work on
 * one kernel: a campaign checks each generated kernel on one mechanism several times over (a
 * reference on `its`, the mechanism with and without refinement, first-choice runs, shrinking),
 * and the campaigns of one law see the same kernels on every mechanism (same seed). Values must
 * be immutable (the project's machines and loaded programs are plain readonly data and closures).
 */
export class RecentCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  /** The value of `key`, computed by `make` when absent (an exception is not cached). */
  get(key: string, make: () => V): V {
    const map = this.map;
    const hit = map.get(key);
    if (hit !== undefined) {
      // Most recent last: re-inserting moves the key to the end of the Map's order.
      map.delete(key);
      map.set(key, hit);
      return hit;
    }
    const v = make();
    if (map.size >= this.capacity) map.delete(map.keys().next().value!);
    map.set(key, v);
    return v;
  }

  get size(): number {
    return this.map.size;
  }
}
