/**
 * The seed's neighbour sets (§3: "maintaining a set of neighbouring particles for every
 * particle"): for each ball, the balls whose CDO boxes overlap its own. The simulation keeps them
 * exact: a pair is added when a box move makes two boxes overlap and removed when one stops; so an
 * impact re-checks its balls' neighbours from the list, and only a box move asks the structure.
 *
 * One Int32Array with a fixed stride per ball (ids), counts beside it; the stride doubles (one
 * copy) when a ball has more neighbours than it holds, so nothing is allocated in the steady state.
 *
 *   add, has: O(1) / O(degree)   remove: O(degree of both)   grow: O(n · stride)
 */
export class NeighbourLists {
  /** ids[stride · i .. stride · i + count[i]) are ball i's neighbours, in no particular order. */
  ids: Int32Array;
  readonly count: Int32Array;
  stride: number;
  private readonly n: number;

  constructor(n: number, stride = 16) {
    this.n = n;
    this.stride = stride;
    this.ids = new Int32Array(n * stride);
    this.count = new Int32Array(n);
  }

  /** Makes i and j neighbours (they must not be yet). */
  add(i: number, j: number): void {
    if (this.count[i] === this.stride || this.count[j] === this.stride) this.grow();
    const s = this.stride;
    this.ids[s * i + this.count[i]++] = j;
    this.ids[s * j + this.count[j]++] = i;
  }

  /** Drops the k-th neighbour of i (and i from that neighbour's list). */
  removeAt(i: number, k: number): void {
    const s = this.stride, ids = this.ids;
    const j = ids[s * i + k];
    ids[s * i + k] = ids[s * i + --this.count[i]];
    const base = s * j, end = base + this.count[j];
    for (let m = base; m < end; m++) {
      if (ids[m] === i) { ids[m] = ids[end - 1]; this.count[j]--; return; }
    }
    throw new Error(`neighbour lists out of step: ${i} lists ${j} but not the reverse`);
  }

  private grow(): void {
    const s = this.stride, t = 2 * s, ids = new Int32Array(this.n * t);
    for (let i = 0; i < this.n; i++) ids.set(this.ids.subarray(s * i, s * i + this.count[i]), t * i);
    this.ids = ids;
    this.stride = t;
  }
}
