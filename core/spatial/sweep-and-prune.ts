/**
 * Sweep and prune (seed 003's "set of segment trees"): each object's box is projected on one axis as
 * a segment; the 2n endpoints are kept sorted between steps, so after small motions an insertion sort
 * restores the order in O(n + swaps). Every swap is a topological event of the seed (two endpoints
 * crossing) and is counted in `remaps`. A pair pass sweeps the endpoints with a list of open
 * segments and tests only objects whose segments overlap.
 *
 * The sweep axis is by default the one along which the centres spread most (largest variance),
 * re-chosen at a pass when another axis spreads 1.5 times more (a full re-sort, O(n log n)); this is
 * the standard fix for elongated domains. It does not make the method linear in a cube: there every
 * axis sees about n * (mean diameter / edge) open segments per object, n^(2-1/dim) overlaps in all
 * (bench/spatial.ts, scaling, prints the measured exponent).
 *
 * Open domains only (a periodic sweep axis has no first endpoint).
 *
 *   insert: O(1) now, merged at the next pass; remove: O(1) now, compacted at the next pass
 *   pairs: O(n + swaps + segment overlaps). In 3D the overlaps on one axis grow as n^(5/3) in a cube,
 *   so sweep and prune is for thin domains and moderate n.
 *   query: O(log n + objects whose segment start lies in the query range widened by the largest box)
 */
import { SpatialObjects } from './objects';
import type { IdVisitor, PairVisitor, SpatialOptions } from './types';

export interface SweepAndPruneOptions extends SpatialOptions {
  /** Sweep axis 0 (x), 1 (y) or 2 (z), or 'auto' (default): the axis of greatest centre variance. */
  axis?: number | 'auto';
}

/** An auto axis is replaced when another axis's centre variance exceeds its own by this factor, so
 *  that near-equal spreads do not make it flip (and re-sort) at every pass. */
const AXIS_SWITCH = 1.5;

export class SweepAndPrune extends SpatialObjects {
  readonly name = 'sweep and prune';
  /** The current sweep axis. */
  axis: number;
  readonly autoAxis: boolean;
  /** Times the auto axis changed (each a full re-sort). */
  axisChanges = 0;
  /** Endpoints sorted by value, minima before maxima on ties (touching segments overlap). The tag is
   *  id * 2 + 1 for a maximum, id * 2 for a minimum. */
  private value: Float64Array;
  private tag: Int32Array;
  private m = 0;
  /** Endpoints [sorted, m) were appended since the last pass and are not in order yet. */
  private sorted = 0;
  private readonly scratchValue: Float64Array;
  private readonly scratchTag: Int32Array;
  /** 1 for an id removed since the last pass whose endpoints are still in the list. */
  private readonly dropped: Uint8Array;
  private droppedCount = 0;
  private readonly active: Int32Array;
  private readonly activePos: Int32Array;

  constructor(o: SweepAndPruneOptions) {
    const axis = o.axis ?? 'auto';
    if (axis !== 'auto' && (!Number.isInteger(axis) || axis < 0 || axis >= o.dim)) throw new RangeError(`axis must be 'auto' or an integer in [0, ${o.dim}), got ${axis}`);
    if (o.period !== undefined) throw new RangeError('period is not supported by sweep and prune (the sorted sweep axis has no first endpoint when periodic); use HashedGrid, SpatialTree or BruteForce for a periodic box');
    super(o);
    this.autoAxis = axis === 'auto';
    this.axis = axis === 'auto' ? 0 : axis;
    this.value = new Float64Array(2 * o.capacity);
    this.tag = new Int32Array(2 * o.capacity);
    this.scratchValue = new Float64Array(2 * o.capacity);
    this.scratchTag = new Int32Array(2 * o.capacity);
    this.dropped = new Uint8Array(o.capacity);
    this.active = new Int32Array(o.capacity);
    this.activePos = new Int32Array(o.capacity);
  }

  protected added(id: number): void {
    if (this.dropped[id] === 1) this.compact();
    this.tag[this.m++] = id * 2;
    this.tag[this.m++] = id * 2 + 1;
  }

  protected removed(id: number): void {
    this.dropped[id] = 1;
    this.droppedCount++;
  }

  protected changed(): void {}

  pairs(visit: PairVisitor): void {
    this.restoreOrder();
    const c = this.counters, tag = this.tag, active = this.active, pos = this.activePos;
    let na = 0;
    for (let k = 0; k < this.m; k++) {
      const t = tag[k], i = t >> 1;
      if ((t & 1) === 0) {
        for (let a = 0; a < na; a++) {
          const j = active[a];
          if (this.overlapsPair(i, j)) { c.pairsReported++; visit(i, j); }
        }
        pos[i] = na;
        active[na++] = i;
      } else {
        const last = active[--na];
        active[pos[i]] = last;
        pos[last] = pos[i];
      }
    }
  }

  protected scanQuery(visit: IdVisitor): void {
    this.restoreOrder();
    const q = this.axis === 0 ? this.qx : this.axis === 1 ? this.qy : this.qz;
    const h = this.axis === 0 ? this.qhx : this.axis === 1 ? this.qhy : this.qhz;
    const slack = 1e-9 * (Math.abs(q) + h + this.maxHalf);
    const lo = q - h - 2 * this.maxHalf - slack, hi = q + h + slack;
    // First endpoint >= lo.
    let a = 0, b = this.m;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (this.value[mid] < lo) a = mid + 1; else b = mid;
    }
    for (let k = a; k < this.m && this.value[k] <= hi; k++) {
      const t = this.tag[k];
      if ((t & 1) === 0 && this.overlapsQuery(t >> 1)) visit(t >> 1);
    }
  }

  /** Drops removed objects, refreshes endpoint values from the current boxes, merges the endpoints
   *  appended since the last pass and restores the order by insertion sort (counting swaps). */
  private restoreOrder(): void {
    if (this.droppedCount > 0) this.compact();
    if (this.autoAxis) this.chooseAxis();
    const value = this.value, tag = this.tag;
    const c = this.axis === 0 ? this.x : this.axis === 1 ? this.y : this.z;
    const h = this.axis === 0 ? this.hx : this.axis === 1 ? this.hy : this.hz;
    for (let k = 0; k < this.m; k++) {
      const t = tag[k], id = t >> 1;
      value[k] = (t & 1) === 0 ? c[id] - h[id] : c[id] + h[id];
    }
    let swaps = 0;
    for (let k = 1; k < this.sorted; k++) {
      const v = value[k], t = tag[k];
      let j = k - 1;
      while (j >= 0 && (value[j] > v || (value[j] === v && (tag[j] & 1) === 1 && (t & 1) === 0))) {
        value[j + 1] = value[j];
        tag[j + 1] = tag[j];
        j--;
        swaps++;
      }
      value[j + 1] = v;
      tag[j + 1] = t;
    }
    this.counters.remaps += swaps;
    if (this.sorted < this.m) this.mergeAppended();
  }

  /** Switches to the axis of greatest centre variance when it beats the current one by AXIS_SWITCH;
   *  all endpoints are then re-sorted as if just appended. */
  private chooseAxis(): void {
    const n = this.n, ids = this.ids;
    if (n < 2) return;
    let best = this.axis, bestVar = 0, currentVar = 0;
    for (let a = 0; a < this.dim; a++) {
      const c = a === 0 ? this.x : a === 1 ? this.y : this.z;
      let sum = 0, sum2 = 0;
      for (let k = 0; k < n; k++) { const v = c[ids[k]]; sum += v; sum2 += v * v; }
      const mean = sum / n, variance = sum2 / n - mean * mean;
      if (a === this.axis) currentVar = variance;
      if (variance > bestVar) { bestVar = variance; best = a; }
    }
    if (best !== this.axis && bestVar > AXIS_SWITCH * currentVar) {
      this.axis = best;
      this.sorted = 0;
      this.axisChanges++;
    }
  }

  /** Sorts the endpoints appended since the last pass and merges them into the sorted ones. */
  private mergeAppended(): void {
    const value = this.value, tag = this.tag, s = this.sorted, m = this.m;
    const order = Array.from({ length: m - s }, (_, k) => s + k);
    order.sort((p, q) => value[p] - value[q] || (tag[p] & 1) - (tag[q] & 1));
    const sv = this.scratchValue, st = this.scratchTag;
    let a = 0, b = 0, k = 0;
    while (a < s || b < order.length) {
      const takeOld = b >= order.length || (a < s && (value[a] < value[order[b]] ||
        (value[a] === value[order[b]] && (tag[a] & 1) <= (tag[order[b]] & 1))));
      const from = takeOld ? a++ : order[b++];
      sv[k] = value[from];
      st[k++] = tag[from];
    }
    value.set(sv.subarray(0, m));
    tag.set(st.subarray(0, m));
    this.sorted = m;
  }

  private compact(): void {
    let k = 0, sortedKept = 0;
    for (let e = 0; e < this.m; e++) {
      const t = this.tag[e];
      if (this.dropped[t >> 1] === 1) {
        // A minimum always precedes its maximum, so the id is done at its maximum.
        if ((t & 1) === 1) this.dropped[t >> 1] = 0;
        continue;
      }
      if (e < this.sorted) sortedKept++;
      this.value[k] = this.value[e];
      this.tag[k++] = t;
    }
    this.m = k;
    this.sorted = sortedKept;
    this.droppedCount = 0;
  }
}
