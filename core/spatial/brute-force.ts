/**
 * Brute force, the reference: every query tests every object, a pair pass tests all n(n-1)/2 pairs
 * (seed 003's "direct" method). Periodic domains supported.
 *   insert, remove, move: O(1)   query: O(n)   pairs: O(n^2)
 */
import { SpatialObjects } from './objects';
import type { IdVisitor, PairVisitor, SpatialOptions } from './types';

export class BruteForce extends SpatialObjects {
  readonly name = 'brute force';

  constructor(options: SpatialOptions) {
    super(options);
  }

  protected added(): void {}
  protected removed(): void {}
  protected changed(): void {}

  protected scanQuery(visit: IdVisitor): void {
    const ids = this.ids;
    for (let k = 0; k < this.n; k++) {
      const i = ids[k];
      if (this.overlapsQuery(i)) visit(i);
    }
  }

  pairs(visit: PairVisitor): void {
    const ids = this.ids, n = this.n, c = this.counters;
    for (let a = 0; a < n; a++) {
      const i = ids[a];
      for (let b = a + 1; b < n; b++) {
        const j = ids[b];
        if (this.overlapsPair(i, j)) { c.pairsReported++; visit(i, j); }
      }
    }
  }
}
