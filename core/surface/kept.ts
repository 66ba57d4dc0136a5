/**
 * The last few results of a costly measurement of a surface, by the surface's definition (its JSON),
 * the oldest dropped first. Measuring a blobby object of 256 blobs takes seconds, and the checks, a
 * run's start, the points of a sweep and every shape preview (each with its own copy of the surface,
 * from a message) ask again for the same surface.
 */
export class KeptBySurface<V> {
  private readonly results = new Map<string, V>();

  constructor(private readonly kept: number) {}

  /** The result kept for `key`, or compute's, kept from now on. */
  get(key: string, compute: () => V): V {
    let v = this.results.get(key);
    if (v === undefined) {
      v = compute();
      if (this.results.size >= this.kept) this.results.delete(this.results.keys().next().value!);
      this.results.set(key, v);
    }
    return v;
  }
}
