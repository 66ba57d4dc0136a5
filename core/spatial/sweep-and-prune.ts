/**
 * Sweep and prune (seed 003's "set of segment trees"): each object's box is projected on one axis as
 * a segment; the endpoints are kept sorted between steps, so after small motions an insertion sort
 * restores the order in O(n + swaps). Every swap is a topological event of the seed (two endpoints
 * crossing) and is counted in `remaps`. A pair pass sweeps the endpoints with a list of open
 * segments and tests only objects whose segments overlap.
 *
 * The sweep axis is by default the one along which the centres spread most (largest variance),
 * re-chosen at a pass when another axis spreads 1.5 times more (a full re-sort); this is the
 * standard fix for elongated domains.
 *
 * One sorted list (`columns: false`, the seed's method) is not linear in a cube: every segment
 * overlaps those of about n * (mean diameter / edge) others, n^(2-1/dim) in all. So by default the
 * other axes are cut into columns (strips in 2D) about 4 mean radii wide, over the centres' bounding
 * box (clamped at its border, like the cell space), and each column has its own sorted list: the
 * endpoints are kept in one array sorted by (column, value). An object sits in every column its box
 * reaches; a pair is reported only in the column holding the lower corner of the intersection of the
 * two boxes on the column axes, so exactly once. Objects whose column range changes are re-entered
 * at the next pass (counted in `remaps` too); the columns are rebuilt when the axis changes, the
 * count or the mean radius changes twofold, or the centres leave the columns' box by more than half
 * of it.
 *
 * Open domains only (a periodic sweep axis has no first endpoint).
 *
 *   insert, remove, move: O(1) now; the structure catches up at the next pass or query
 *   pairs: O(n + swaps + segment overlaps within columns), O(n) for even sizes with columns
 *   query: per column in range, O(log n + endpoints in the query range widened by the largest box)
 */
import { SpatialObjects, checkPositive } from './objects';
import type { IdVisitor, PairVisitor, SpatialOptions } from './types';

export interface SweepAndPruneOptions extends SpatialOptions {
  /** Sweep axis 0 (x), 1 (y) or 2 (z), or 'auto' (default): the axis of greatest centre variance. */
  axis?: number | 'auto';
  /** Sweep per column of a grid over the other axes (default true), or one list (the seed's). */
  columns?: boolean;
  /** Column width; default 4 mean bounding radii, re-chosen when the columns are rebuilt. */
  columnSize?: number;
}

/** An auto axis is replaced when another axis's centre variance exceeds its own by this factor, so
 *  that near-equal spreads do not make it flip (and re-sort) at every pass. */
const AXIS_SWITCH = 1.5;
/** Default column width in mean bounding radii: wide enough that most objects sit in one column per
 *  axis, narrow enough that a column's list stays short. */
const COLUMN_RADII = 4;
/** At most this many columns. */
const MAX_COLUMNS = 1 << 22;

export class SweepAndPrune extends SpatialObjects {
  readonly name = 'sweep and prune';
  /** The current sweep axis. */
  axis: number;
  readonly autoAxis: boolean;
  readonly useColumns: boolean;
  /** Times the auto axis changed and times the columns were (re)built (each a full re-sort). */
  axisChanges = 0;
  columnBuilds = 0;
  private readonly fixedColumnSize: number;
  /** Endpoint entries sorted by (column, value), minima before maxima on ties (touching segments
   *  overlap). The tag is id * 2 + 1 for a maximum, id * 2 for a minimum. */
  private value: Float64Array;
  private tag: Int32Array;
  private col: Int32Array;
  private scratchValue: Float64Array;
  private scratchTag: Int32Array;
  private scratchCol: Int32Array;
  /** Positions of the appended entries, sorted by mergeAppended. */
  private scratchOrder: Int32Array;
  private m = 0;
  /** Entries [sorted, m) were appended since the last pass and are not in order yet. */
  private sorted = 0;
  /** Ids whose entries must be dropped at the next pass (removed, or re-entered). */
  private readonly dropped: Uint8Array;
  private readonly droppedList: Int32Array;
  private nDropped = 0;
  /** Ids to (re-)enter at the next pass. */
  private readonly pending: Uint8Array;
  private readonly pendingList: Int32Array;
  private nPending = 0;
  /** Column range of each entered object on the column axes: lo1, hi1, lo2, hi2. */
  private readonly colRange: Int32Array;
  private readonly active: Int32Array;
  private readonly activePos: Int32Array;
  // Columns: axes (a1, a2; a2 = -1 in 2D), origin, width, count per axis, entry start per column.
  private a1 = 1;
  private a2 = 2;
  private readonly colOrigin = new Float64Array(2);
  private colSize = 1;
  private readonly colCount = new Int32Array([1, 1]);
  private colStart = new Int32Array(2);
  private built = false;
  private builtAxis = -1;
  private builtN = 0;
  private builtRadius = 0;
  /** Centres' bounding box on the column axes at the last pass (lo1, hi1, lo2, hi2). */
  private readonly cloud = new Float64Array(4);
  /** Output of columnSpan. */
  private readonly span = new Int32Array(4);
  /** An object was added, removed or changed since the order was last restored. */
  private stale = true;

  constructor(o: SweepAndPruneOptions) {
    const axis = o.axis ?? 'auto';
    if (axis !== 'auto' && (!Number.isInteger(axis) || axis < 0 || axis >= o.dim)) throw new RangeError(`axis must be 'auto' or an integer in [0, ${o.dim}), got ${axis}`);
    if (o.period !== undefined) throw new RangeError('period is not supported by sweep and prune (the sorted sweep axis has no first endpoint when periodic); use HashedGrid, SpatialTree or BruteForce for a periodic box');
    if (o.columnSize !== undefined) checkPositive('columnSize', o.columnSize);
    super(o);
    this.autoAxis = axis === 'auto';
    this.axis = axis === 'auto' ? 0 : axis;
    this.useColumns = o.columns ?? true;
    this.fixedColumnSize = o.columnSize ?? 0;
    const entries = 2 * o.capacity;
    this.value = new Float64Array(entries);
    this.tag = new Int32Array(entries);
    this.col = new Int32Array(entries);
    this.scratchValue = new Float64Array(entries);
    this.scratchTag = new Int32Array(entries);
    this.scratchCol = new Int32Array(entries);
    this.scratchOrder = new Int32Array(entries);
    this.dropped = new Uint8Array(o.capacity);
    this.droppedList = new Int32Array(o.capacity);
    this.pending = new Uint8Array(o.capacity);
    this.pendingList = new Int32Array(o.capacity);
    this.colRange = new Int32Array(4 * o.capacity);
    this.active = new Int32Array(o.capacity);
    this.activePos = new Int32Array(o.capacity);
  }

  /** Number of columns (1 without columns). */
  get columnCount(): number { return this.colCount[0] * this.colCount[1]; }

  protected added(id: number): void {
    this.markPending(id);
    this.stale = true;
  }

  protected removed(id: number): void {
    this.markDropped(id);
    this.stale = true;
  }

  protected changed(): void {
    this.stale = true;
  }

  pairs(visit: PairVisitor): void {
    this.restoreOrder();
    const c = this.counters, tag = this.tag, col = this.col, active = this.active, pos = this.activePos;
    const columns = this.useColumns;
    let na = 0, current = -1, cx = 0, cy = 0;
    for (let k = 0; k < this.m; k++) {
      const t = tag[k], i = t >> 1;
      if (col[k] !== current) {
        // Every segment of the previous column has closed, so the active list is empty here.
        current = col[k];
        cx = current % this.colCount[0];
        cy = (current - cx) / this.colCount[0];
        c.cellsVisited++;
      }
      if ((t & 1) === 0) {
        for (let a = 0; a < na; a++) {
          const j = active[a];
          if (columns && !this.ownsPair(i, j, cx, cy)) continue;
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
    if (!this.useColumns) { this.scanColumnQuery(0, this.m, lo, hi, 0, 0, visit); return; }
    // Columns from the one of the query's lower corner (as in ownsQuery) to its upper corner,
    // widened like columnSpan.
    const q1 = this.coord(this.a1, this.qx, this.qy, this.qz), h1 = this.half(this.a1, this.qhx, this.qhy, this.qhz);
    const x0 = this.columnIndex(0, q1 - h1), x1 = this.columnIndex(0, q1 + h1 + 1e-9 * (Math.abs(q1) + h1));
    let y0 = 0, y1 = 0;
    if (this.a2 >= 0) {
      const q2 = this.coord(this.a2, this.qx, this.qy, this.qz), h2 = this.half(this.a2, this.qhx, this.qhy, this.qhz);
      y0 = this.columnIndex(1, q2 - h2); y1 = this.columnIndex(1, q2 + h2 + 1e-9 * (Math.abs(q2) + h2));
    }
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) {
        const cc = cx + this.colCount[0] * cy;
        this.scanColumnQuery(this.colStart[cc], this.colStart[cc + 1], lo, hi, cx, cy, visit);
      }
    }
  }

  /** Query entries [from, to) of one column whose values lie in [lo, hi]. */
  private scanColumnQuery(from: number, to: number, lo: number, hi: number, cx: number, cy: number, visit: IdVisitor): void {
    this.counters.cellsVisited++;
    let a = from, b = to;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (this.value[mid] < lo) a = mid + 1; else b = mid;
    }
    for (let k = a; k < to && this.value[k] <= hi; k++) {
      const t = this.tag[k];
      if ((t & 1) !== 0) continue;
      const i = t >> 1;
      if (this.useColumns && !this.ownsQuery(i, cx, cy)) continue;
      if (this.overlapsQuery(i)) visit(i);
    }
  }

  /** True when column (cx, cy) holds the lower corner of the intersection of the boxes of i and j
   *  on the column axes (the only column that reports the pair). */
  private ownsPair(i: number, j: number, cx: number, cy: number): boolean {
    const a1 = this.a1;
    const l1 = Math.max(this.lower(a1, i), this.lower(a1, j));
    if (this.columnIndex(0, l1) !== cx) return false;
    if (this.a2 < 0) return true;
    return this.columnIndex(1, Math.max(this.lower(this.a2, i), this.lower(this.a2, j))) === cy;
  }

  /** The same rule for object i and the current query box. */
  private ownsQuery(i: number, cx: number, cy: number): boolean {
    const a1 = this.a1;
    const q1 = this.coord(a1, this.qx, this.qy, this.qz) - this.half(a1, this.qhx, this.qhy, this.qhz);
    if (this.columnIndex(0, Math.max(this.lower(a1, i), q1)) !== cx) return false;
    if (this.a2 < 0) return true;
    const q2 = this.coord(this.a2, this.qx, this.qy, this.qz) - this.half(this.a2, this.qhx, this.qhy, this.qhz);
    return this.columnIndex(1, Math.max(this.lower(this.a2, i), q2)) === cy;
  }

  private coord(a: number, x: number, y: number, z: number): number {
    return a === 0 ? x : a === 1 ? y : z;
  }

  private half(a: number, hx: number, hy: number, hz: number): number {
    return a === 0 ? hx : a === 1 ? hy : hz;
  }

  /** Lower box bound of object i on axis a. */
  private lower(a: number, i: number): number {
    return a === 0 ? this.x[i] - this.hx[i] : a === 1 ? this.y[i] - this.hy[i] : this.z[i] - this.hz[i];
  }

  /** Clamped column index of a coordinate on column axis k (0: a1, 1: a2). */
  private columnIndex(k: number, v: number): number {
    const i = Math.floor((v - this.colOrigin[k]) / this.colSize);
    const top = this.colCount[k] - 1;
    return i < 0 ? 0 : i > top ? top : i;
  }

  private markPending(id: number): void {
    if (this.pending[id] === 1) return;
    this.pending[id] = 1;
    this.pendingList[this.nPending++] = id;
  }

  private markDropped(id: number): void {
    if (this.dropped[id] === 1) return;
    this.dropped[id] = 1;
    this.droppedList[this.nDropped++] = id;
  }

  /**
   * Catches up with the changes since the last pass: picks the axis, rebuilds or updates the
   * columns, drops and re-enters entries, refreshes endpoint values from the current boxes and
   * restores the order by insertion sort (counting swaps), merging the appended entries.
   */
  private restoreOrder(): void {
    // Nothing moved since the last pass or query: the order holds (queries between moves are cheap).
    if (!this.stale) return;
    this.stale = false;
    if (this.autoAxis) this.chooseAxis();
    if (this.useColumns) this.updateColumns();
    else if (this.builtAxis !== this.axis) this.rebuild();
    if (this.nDropped > 0) this.compact();
    for (let k = 0; k < this.nPending; k++) {
      const id = this.pendingList[k];
      this.pending[id] = 0;
      if (this.live[id] === 1) this.enter(id);
    }
    this.nPending = 0;
    const value = this.value, tag = this.tag, col = this.col;
    const c = this.axis === 0 ? this.x : this.axis === 1 ? this.y : this.z;
    const h = this.axis === 0 ? this.hx : this.axis === 1 ? this.hy : this.hz;
    for (let k = 0; k < this.m; k++) {
      const t = tag[k], id = t >> 1;
      value[k] = (t & 1) === 0 ? c[id] - h[id] : c[id] + h[id];
    }
    let swaps = 0;
    for (let k = 1; k < this.sorted; k++) {
      const v = value[k], t = tag[k], cc = col[k];
      let j = k - 1;
      while (j >= 0 && col[j] === cc && (value[j] > v || (value[j] === v && (tag[j] & 1) === 1 && (t & 1) === 0))) {
        value[j + 1] = value[j];
        tag[j + 1] = tag[j];
        col[j + 1] = col[j];
        j--;
        swaps++;
      }
      value[j + 1] = v;
      tag[j + 1] = t;
      col[j + 1] = cc;
    }
    this.counters.remaps += swaps;
    if (this.sorted < this.m) this.mergeAppended();
    if (this.useColumns) this.indexColumns();
  }

  /** Switches to the axis of greatest centre variance when it beats the current one by AXIS_SWITCH. */
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
      this.axisChanges++;
    }
  }

  /** Rebuilds the columns when they no longer fit the cloud, else re-enters every object whose
   *  column range changed. */
  private updateColumns(): void {
    const n = this.n, ids = this.ids;
    if (n === 0) return;
    const a1 = this.axis === 0 ? 1 : 0;
    const a2 = this.dim === 2 ? -1 : this.axis === 2 ? 1 : 2;
    const cl = this.cloud;
    cl[0] = Infinity; cl[1] = -Infinity; cl[2] = Infinity; cl[3] = -Infinity;
    let rsum = 0;
    for (let k = 0; k < n; k++) {
      const i = ids[k];
      const v1 = a1 === 0 ? this.x[i] : this.y[i];
      if (v1 < cl[0]) cl[0] = v1;
      if (v1 > cl[1]) cl[1] = v1;
      if (a2 >= 0) {
        const v2 = a2 === 1 ? this.y[i] : this.z[i];
        if (v2 < cl[2]) cl[2] = v2;
        if (v2 > cl[3]) cl[3] = v2;
      }
      rsum += this.boundingRadius(i);
    }
    const radius = rsum / n;
    const w1 = this.colCount[0] * this.colSize, w2 = this.colCount[1] * this.colSize;
    const outside = cl[0] < this.colOrigin[0] - w1 / 2 || cl[1] > this.colOrigin[0] + 1.5 * w1 ||
      (a2 >= 0 && (cl[2] < this.colOrigin[1] - w2 / 2 || cl[3] > this.colOrigin[1] + 1.5 * w2));
    if (!this.built || this.builtAxis !== this.axis || outside || n > 2 * this.builtN || 2 * n < this.builtN ||
        (this.fixedColumnSize === 0 && (radius > 2 * this.builtRadius || 2 * radius < this.builtRadius))) {
      this.a1 = a1; this.a2 = a2;
      const size = this.fixedColumnSize > 0 ? this.fixedColumnSize : Math.max(COLUMN_RADII * radius, Number.MIN_VALUE);
      const span1 = cl[1] - cl[0], span2 = a2 >= 0 ? cl[3] - cl[2] : 0;
      // Widen the columns when the cloud would need more than MAX_COLUMNS of them.
      const need = (s: number) => Math.max(1, Math.ceil(s / size));
      const scale = need(span1) * need(span2) > MAX_COLUMNS ? Math.sqrt((need(span1) * need(span2)) / MAX_COLUMNS) * 1.01 : 1;
      this.colSize = size * scale;
      this.colOrigin[0] = cl[0]; this.colOrigin[1] = a2 >= 0 ? cl[2] : 0;
      this.colCount[0] = Math.max(1, Math.ceil(span1 / this.colSize));
      this.colCount[1] = a2 >= 0 ? Math.max(1, Math.ceil(span2 / this.colSize)) : 1;
      if (this.colStart.length < this.columnCount + 1) this.colStart = new Int32Array(this.columnCount + 1);
      this.builtN = n;
      this.builtRadius = radius;
      this.rebuild();
      return;
    }
    const r = this.colRange, sp = this.span;
    for (let k = 0; k < n; k++) {
      const i = ids[k];
      if (this.pending[i] === 1) continue;
      const b = 4 * i;
      this.columnSpan(i);
      if (sp[0] !== r[b] || sp[1] !== r[b + 1] || sp[2] !== r[b + 2] || sp[3] !== r[b + 3]) {
        this.markDropped(i);
        this.markPending(i);
        this.counters.remaps++;
      }
    }
  }

  /** Drops every entry and enters every object again (all appended, sorted at the merge). */
  private rebuild(): void {
    this.m = 0;
    this.sorted = 0;
    for (let k = 0; k < this.nDropped; k++) this.dropped[this.droppedList[k]] = 0;
    this.nDropped = 0;
    for (let k = 0; k < this.n; k++) this.markPending(this.ids[k]);
    this.built = true;
    this.builtAxis = this.axis;
    this.columnBuilds++;
  }

  /** Column range of object id into this.span (lo1, hi1, lo2, hi2). The low end uses the same
   *  lower bound as the ownership test, so the owning column is always in range; the high end is
   *  widened by a relative 1e-9 so that rounding never drops the owning column of a touching pair
   *  (an extra column never owns a pair). */
  private columnSpan(id: number): void {
    const sp = this.span;
    const l1 = this.lower(this.a1, id), e1 = 2 * this.half(this.a1, this.hx[id], this.hy[id], this.hz[id]);
    sp[0] = this.columnIndex(0, l1);
    sp[1] = this.columnIndex(0, l1 + e1 + 1e-9 * (Math.abs(l1) + e1));
    sp[2] = 0; sp[3] = 0;
    if (this.a2 >= 0) {
      const l2 = this.lower(this.a2, id), e2 = 2 * this.half(this.a2, this.hx[id], this.hy[id], this.hz[id]);
      sp[2] = this.columnIndex(1, l2);
      sp[3] = this.columnIndex(1, l2 + e2 + 1e-9 * (Math.abs(l2) + e2));
    }
  }

  /** Appends the entries of object id: a minimum and a maximum in every column its box reaches. */
  private enter(id: number): void {
    let lo1 = 0, hi1 = 0, lo2 = 0, hi2 = 0;
    if (this.useColumns) {
      this.columnSpan(id);
      const sp = this.span, b = 4 * id;
      lo1 = sp[0]; hi1 = sp[1]; lo2 = sp[2]; hi2 = sp[3];
      this.colRange[b] = lo1; this.colRange[b + 1] = hi1; this.colRange[b + 2] = lo2; this.colRange[b + 3] = hi2;
    }
    const needed = this.m + 2 * (hi1 - lo1 + 1) * (hi2 - lo2 + 1);
    if (needed > this.tag.length) this.growEntries(needed);
    for (let cy = lo2; cy <= hi2; cy++) {
      for (let cx = lo1; cx <= hi1; cx++) {
        const cc = cx + this.colCount[0] * cy;
        this.tag[this.m] = id * 2; this.col[this.m++] = cc;
        this.tag[this.m] = id * 2 + 1; this.col[this.m++] = cc;
      }
    }
  }

  private growEntries(needed: number): void {
    const size = Math.max(needed, 2 * this.tag.length);
    const f = (a: Float64Array) => { const b = new Float64Array(size); b.set(a); return b; };
    const g = (a: Int32Array) => { const b = new Int32Array(size); b.set(a); return b; };
    this.value = f(this.value); this.tag = g(this.tag); this.col = g(this.col);
    this.scratchValue = new Float64Array(size); this.scratchTag = new Int32Array(size); this.scratchCol = new Int32Array(size);
    this.scratchOrder = new Int32Array(size);
  }

  /** colStart[c] = first entry of column c (entries are grouped by column after the sort). */
  private indexColumns(): void {
    const total = this.columnCount, start = this.colStart, col = this.col;
    start.fill(0, 0, total + 1);
    for (let k = 0; k < this.m; k++) start[col[k] + 1]++;
    for (let c = 0; c < total; c++) start[c + 1] += start[c];
  }

  /** Sorts the entries appended since the last pass and merges them into the sorted ones. */
  private mergeAppended(): void {
    const value = this.value, tag = this.tag, col = this.col, s = this.sorted, m = this.m;
    const before = (p: number, q: number) => col[p] - col[q] || value[p] - value[q] || (tag[p] & 1) - (tag[q] & 1);
    const order = this.scratchOrder.subarray(0, m - s);
    for (let k = 0; k < m - s; k++) order[k] = s + k;
    order.sort(before);
    const sv = this.scratchValue, st = this.scratchTag, sc = this.scratchCol;
    let a = 0, b = 0, k = 0;
    while (a < s || b < order.length) {
      const from = b >= order.length || (a < s && before(a, order[b]) <= 0) ? a++ : order[b++];
      sv[k] = value[from];
      st[k] = tag[from];
      sc[k++] = col[from];
    }
    value.set(sv.subarray(0, m));
    tag.set(st.subarray(0, m));
    col.set(sc.subarray(0, m));
    this.sorted = m;
  }

  /** Removes the entries of the dropped ids, keeping the order. */
  private compact(): void {
    let k = 0, sortedKept = 0;
    for (let e = 0; e < this.m; e++) {
      const t = this.tag[e];
      if (this.dropped[t >> 1] === 1) continue;
      if (e < this.sorted) sortedKept++;
      this.value[k] = this.value[e];
      this.tag[k] = t;
      this.col[k++] = this.col[e];
    }
    this.m = k;
    this.sorted = sortedKept;
    for (let d = 0; d < this.nDropped; d++) this.dropped[this.droppedList[d]] = 0;
    this.nDropped = 0;
  }
}
