/**
 * The last few results of a costly measurement, by the definition measured (its JSON), the oldest
 * dropped first. Measuring a blobby surface of 256 blobs takes seconds, voxelising a particle for the
 * voxel engine's memory estimate milliseconds; the checks, a run's start, every point of a sweep and
 * every shape preview (each with its own copy of the definition, from a message) ask again for the same.
 */
export class Kept<V> {
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
