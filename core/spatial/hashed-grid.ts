/**
 * Heckbert's hashed periodic grid (seed 002, "pds"): 2^k cubical cells per axis tile all of space
 * periodically, so the grid is a hash that keeps spatial coherence; each cell holds a linked list
 * of the objects whose centre lies in it. Cells are flattened x fastest (the seed had z fastest) to
 * match the cell space's formula (3) and the usual particle ordering. A spherical range query scan-converts the sphere into the
 * cells it touches; the grid regrids itself by the seed's rules.
 *
 * Periodic domains are supported: the grid period is then the domain, 2^k_a cells on axis a.
 *
 *   insert, remove, move: O(1)   query: O(cells touched + objects in them); cellsInSphere gives
 *   the cells' lists to a caller that tests the candidates itself (no visitor call per candidate)
 *   pairs: one query per object of radius (its bounding radius + the largest one), O(n) when sizes are even
 *   regrid: O(n + cells)
 *   sortRows: O(n + rows) when the objects were nearly in its order (renumbered by the last call),
 *   else O(n + rows + steps along x): a sorted (compressed) copy of the cells for a caller's own
 *   pair pass over contiguous ranges instead of the lists
 */
import { SpatialObjects, checkInteger, checkPositive } from './objects';
import type { IdVisitor, PairVisitor, SpatialOptions } from './types';

export interface HashedGridOptions extends SpatialOptions {
  /** Initial bits per axis (2^bits cells per axis), default 3. */
  bits?: number;
  /** Initial cube size (open domains), default 1. */
  cellSize?: number;
  /** Upper bound on the number of cells, default 2^24 (a 64 MiB head array). */
  maxCells?: number;
  /** Regrid automatically at pair passes by the seed's rules, default true. */
  autoRegrid?: boolean;
  /** At most one regrid per this many advisories (pair passes), default 1. The seed used one CPU
   *  second; a count keeps runs deterministic. */
  regridInterval?: number;
}

/** Search ranges are widened by this factor so that rounding at cell borders never drops a candidate. */
const SLACK = 1 + 1e-9;

export class HashedGrid extends SpatialObjects {
  readonly name = 'hashed grid';
  /** Bits per axis and cell size per axis (equal in open domains: cubes). */
  readonly bits = new Int32Array(3);
  readonly cellSize = new Float64Array(3);
  private head: Int32Array;
  /** Scratch of collectCells: heads of the cells a query touches. */
  private heads = new Int32Array(64);
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly cellOf: Int32Array;
  private readonly maxBitsAxis: number;
  private readonly autoRegrid: boolean;
  private readonly regridInterval: number;
  private advisories = 0;
  private lastRegrid = -Infinity;
  /** Scratch of sortRows (allocated at its first call): each object's row and step along x, the
   *  objects ordered by step, the count of each step, and the rows' starts. */
  private sortRow = new Int32Array(0);
  private sortFine = new Int32Array(0);
  private byFine = new Int32Array(0);
  private fineCount = new Int32Array(0);
  private rowStart = new Int32Array(1);
  /** Number of regrids so far. */
  regrids = 0;
  // Scan state: a pair pass (scanPairI >= 0) or a query.
  private scanPairI = -1;
  private pairVisit: PairVisitor | null = null;
  private queryVisit: IdVisitor | null = null;

  constructor(o: HashedGridOptions) {
    const maxCells = o.maxCells ?? 1 << 24;
    checkInteger('maxCells', maxCells, 1, (1 << 30) + 1, '2^30]');
    const maxBitsAxis = Math.floor(Math.log2(maxCells) / o.dim);
    const bits = o.bits ?? Math.min(3, maxBitsAxis);
    checkInteger('bits', bits, 0, maxBitsAxis + 1, `${maxBitsAxis}] (maxCells = ${maxCells})`);
    const cellSize = o.cellSize ?? 1;
    checkPositive('cellSize', cellSize);
    const interval = o.regridInterval ?? 1;
    checkInteger('regridInterval', interval, 1, 0x8000_0000, '2^31');
    super(o);
    this.maxBitsAxis = maxBitsAxis;
    this.autoRegrid = o.autoRegrid ?? true;
    this.regridInterval = interval;
    this.next = new Int32Array(o.capacity);
    this.prev = new Int32Array(o.capacity);
    this.cellOf = new Int32Array(o.capacity);
    this.head = new Int32Array(0);
    this.setResolution(this.periodic ? this.periodicBits(cellSize) : [bits, bits, o.dim === 3 ? bits : 0], cellSize);
  }

  /** Total number of cells. */
  get cells(): number { return this.head.length; }

  protected added(id: number): void {
    this.pushCell(id, this.cellIndex(this.x[id], this.y[id], this.z[id]));
  }

  protected removed(id: number): void {
    this.unlink(id);
  }

  protected changed(id: number): void {
    const c = this.cellIndex(this.x[id], this.y[id], this.z[id]);
    if (c === this.cellOf[id]) return;
    this.unlink(id);
    this.pushCell(id, c);
    this.counters.remaps++;
  }

  protected scanQuery(visit: IdVisitor): void {
    this.queryVisit = visit;
    this.scanPairI = -1;
    // A sphere query reaches the centres within its radius plus the largest bounding radius; a box
    // query, per axis, those within its half extent plus the largest half extent.
    if (this.qSphere) { const ext = this.maxRadius; this.scan(this.qx, this.qy, this.qz, this.qhx + ext, this.qhx + ext, this.qhx + ext, true); }
    else { const ext = this.maxHalf; this.scan(this.qx, this.qy, this.qz, this.qhx + ext, this.qhy + ext, this.qhz + ext, false); }
    this.queryVisit = null;
  }

  pairs(visit: PairVisitor): void {
    if (this.autoRegrid) this.advise();
    this.pairVisit = visit;
    const ids = this.ids, ext = this.maxRadius;
    for (let k = 0; k < this.n; k++) {
      const i = ids[k];
      const r = this.boundingRadius(i) + ext;
      this.scanPairI = i;
      this.scan(this.x[i], this.y[i], this.z[i], r, r, r, true);
    }
    this.scanPairI = -1;
    this.pairVisit = null;
  }

  /**
   * The seed's query_advisory: diam is the diameter of the object cloud, ravg the mean query radius.
   * Keeps ravg / cube size in [0.7, 1] (else the cube becomes ravg / sqrt(0.7)) and, in an open
   * domain, diam / grid size in [0.5, 1.2] by halving or doubling the resolution together with the
   * grid size (repeated until satisfied or at the cell limit). At most one regrid per interval.
   */
  queryAdvisory(diam: number, ravg: number): void {
    this.advisories++;
    if (!(diam > 0 && ravg > 0) || this.advisories - this.lastRegrid < this.regridInterval) return;
    const cube = Math.max(this.cellSize[0], this.cellSize[1], this.cellSize[2]);
    const rc = ravg / cube;
    const target = rc < 0.7 || rc > 1 ? ravg / Math.sqrt(0.7) : cube;
    let bits: number[];
    if (this.periodic) {
      bits = this.periodicBits(target);
    } else {
      let nb = this.bits[0];
      let s = (1 << nb) * target;
      while (diam < 0.5 * s && nb > 0) { nb--; s /= 2; }
      while (diam > 1.2 * s && nb < this.maxBitsAxis) { nb++; s *= 2; }
      bits = [nb, nb, this.dim === 3 ? nb : 0];
    }
    const bitsChanged = bits[0] !== this.bits[0] || bits[1] !== this.bits[1] || bits[2] !== this.bits[2];
    if (bitsChanged || (!this.periodic && target !== cube)) {
      this.regrid(bits, target);
      this.lastRegrid = this.advisories;
    }
  }

  /** Rebuilds the grid with the given bits per axis and (open domains) cube size. */
  regrid(bits: readonly number[], cellSize: number): void {
    this.setResolution(bits, cellSize);
    this.regrids++;
    this.counters.remaps += this.n;
  }

  /** Cloud diameter (diagonal of the centres' bounding box) and mean query radius of a pair pass. */
  private advise(): void {
    if (this.n === 0) return;
    const ids = this.ids;
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity, rsum = 0;
    for (let k = 0; k < this.n; k++) {
      const i = ids[k];
      const x = this.x[i], y = this.y[i], z = this.z[i];
      if (x < x0) x0 = x; if (x > x1) x1 = x;
      if (y < y0) y0 = y; if (y > y1) y1 = y;
      if (z < z0) z0 = z; if (z > z1) z1 = z;
      rsum += this.boundingRadius(i);
    }
    const diam = Math.hypot(x1 - x0, y1 - y0, z1 - z0);
    this.queryAdvisory(diam > 0 ? diam : this.maxRadius * 2, rsum / this.n + this.maxRadius);
  }

  private periodicBits(target: number): number[] {
    const p = [this.px, this.py, this.pz];
    const out = [0, 0, 0];
    for (let a = 0; a < this.dim; a++) {
      out[a] = Math.max(0, Math.min(this.maxBitsAxis, Math.round(Math.log2(p[a] / target))));
    }
    return out;
  }

  private setResolution(bits: readonly number[], cellSize: number): void {
    for (let a = 0; a < 3; a++) {
      this.bits[a] = bits[a];
      const p = [this.px, this.py, this.pz][a];
      this.cellSize[a] = this.periodic ? (p > 0 ? p / (1 << bits[a]) : 1) : cellSize;
    }
    const total = 1 << (bits[0] + bits[1] + bits[2]);
    if (this.head.length !== total) this.head = new Int32Array(total);
    this.head.fill(-1);
    for (let k = 0; k < this.n; k++) this.added(this.ids[k]);
  }

  private cellIndex(x: number, y: number, z: number): number {
    const b = this.bits, s = this.cellSize;
    const ix = Math.floor(x / s[0]) & ((1 << b[0]) - 1);
    const iy = Math.floor(y / s[1]) & ((1 << b[1]) - 1);
    const iz = Math.floor(z / s[2]) & ((1 << b[2]) - 1);
    return (((iz << b[1]) | iy) << b[0]) | ix;
  }

  private pushCell(id: number, c: number): void {
    const h = this.head[c];
    this.next[id] = h;
    this.prev[id] = -1;
    if (h >= 0) this.prev[h] = id;
    this.head[c] = id;
    this.cellOf[id] = c;
  }

  private unlink(id: number): void {
    const p = this.prev[id], nx = this.next[id];
    if (p >= 0) this.next[p] = nx; else this.head[this.cellOf[id]] = nx;
    if (nx >= 0) this.prev[nx] = p;
  }

  /**
   * Spherical range query without a visitor (the seed's visit_neighbors with proc left to the
   * caller): the heads of the non-empty cells that the sphere of radius r (plus the largest object
   * radius, as querySphere) touches, in `cellHeads[0 .. count)`; follow each list by `nextInCell`
   * (−1 ends it). Returns the count, or −1 when the sphere wraps around the grid (then every object
   * is a candidate). Candidates may lie outside the sphere: the caller tests the distance.
   * Allocates only when cellHeads must grow.
   */
  cellsInSphere(x: number, y: number, z: number, r: number): number {
    const ext = r + this.maxRadius;
    return this.collectCells(x, y, z, ext, ext, ext, true);
  }

  /**
   * The cells a box query must scan again after its box moved (event-driven codes: core/ballmill's
   * box exits), without a visitor: the heads of the non-empty cells within `outer` of the new centre
   * (x1, y1, z1) on every axis that also meet, on some axis a along which the centre moved, the slab
   * from the old centre + `inner` to the new centre + `outer` (on the side it moved to), in
   * `cellHeads[0 .. count)`; follow each list by `nextInCell`. inner and outer are per axis: for a
   * box of half edge h_a among boxes of half edges in [hMin_a, hMax_a] on axis a, outer_a =
   * h_a + hMax_a and inner_a = h_a + hMin_a: the centre of every box that overlaps the new box but
   * not the old one lies in these cells (on the axis a where it stops overlapping, it lies beyond
   * old + h_a + its half edge), the cells of a thin shell on the leading faces instead of all cells
   * of the query. Returns the count, or −1 when the range wraps around the grid (then every object
   * is a candidate). Open domains only. Allocates only when cellHeads must grow. The arguments come
   * in v[0 .. 12) = (x0, y0, z0, x1, y1, z1, inner x, y, z, outer x, y, z): no double crosses the
   * call (V8 boxes those of a call it does not inline, and this one is too large to inline; box
   * exits are the event loop's most frequent event).
   */
  cellsEntered(v: Float64Array): number {
    const x0 = v[0], y0 = v[1], z0 = v[2], x1 = v[3], y1 = v[4], z1 = v[5];
    const s0 = this.cellSize[0], s1 = this.cellSize[1], s2 = this.cellSize[2];
    if (this.periodic) throw new Error('cellsEntered: open domains only (the grid is periodic)');
    const b0 = this.bits[0], b1 = this.bits[1], b2 = this.bits[2], three = this.dim === 3;
    const qx = v[6] / SLACK, qy = v[7] / SLACK, qz = v[8] / SLACK, rx = v[9] * SLACK, ry = v[10] * SLACK, rz = v[11] * SLACK;
    const xa = Math.floor((x1 - rx) / s0), xb = Math.floor((x1 + rx) / s0);
    const ya = Math.floor((y1 - ry) / s1), yb = Math.floor((y1 + ry) / s1);
    const za = three ? Math.floor((z1 - rz) / s2) : 0, zb = three ? Math.floor((z1 + rz) / s2) : 0;
    if (xb - xa >= 1 << b0 || yb - ya >= 1 << b1 || zb - za >= 1 << b2) {
      this.counters.cellsVisited += this.head.length;
      return -1;
    }
    // Per axis, the slab's cells [lo, hi] (empty when the centre did not move along it): on the
    // side moved to, from the old centre + inner to the end of the range.
    const sxa = x1 > x0 ? Math.floor((x0 + qx) / s0) : xa, sxb = x1 > x0 ? xb : x1 < x0 ? Math.floor((x0 - qx) / s0) : xa - 1;
    const sya = y1 > y0 ? Math.floor((y0 + qy) / s1) : ya, syb = y1 > y0 ? yb : y1 < y0 ? Math.floor((y0 - qy) / s1) : ya - 1;
    const sza = !three ? 1 : z1 > z0 ? Math.floor((z0 + qz) / s2) : za, szb = !three ? 0 : z1 > z0 ? zb : z1 < z0 ? Math.floor((z0 - qz) / s2) : za - 1;
    const box = (xb - xa + 1) * (yb - ya + 1) * (zb - za + 1);
    if (box > this.heads.length) this.growHeads(box);
    const heads = this.heads, head = this.head;
    const mx = (1 << b0) - 1, my = (1 << b1) - 1, mz = (1 << b2) - 1;
    const xIn = Math.max(xa, sxa), xOut = Math.min(xb, sxb);
    let m = 0, visited = 0;
    for (let z = za; z <= zb; z++) {
      const zSlab = z >= sza && z <= szb;
      for (let y = ya; y <= yb; y++) {
        // A row in the slab of y or z: all of it; else its cells in the slab of x.
        const whole = zSlab || (y >= sya && y <= syb);
        const from = whole ? xa : xIn, to = whole ? xb : xOut;
        const row = (((z & mz) << b1) | (y & my)) << b0;
        if (to >= from) visited += to - from + 1;
        for (let x = from; x <= to; x++) {
          const h = head[row | (x & mx)];
          if (h >= 0) heads[m++] = h;
        }
      }
    }
    this.counters.cellsVisited += visited;
    return m;
  }

  /** Next object in the same cell, −1 at the end of a cell's list (see cellsInSphere). */
  get nextInCell(): Int32Array { return this.next; }

  /** Most bits per axis this grid may use (maxCells). */
  get maxBits(): number { return this.maxBitsAxis; }

  /**
   * A sorted build of the cells, for a caller's own pair pass over contiguous ranges (instead of
   * following the lists): the objects ordered by row (the 2^bits_x cells sharing a y and a z index:
   * a row of cells along x, index = cell index >> bits_x) and within a row by their step along x,
   * the cell size over 2^subBits (step index floor(x / step) modulo 2^(bits_x + subBits), the grid's
   * period in steps); ties keep the order of the live ids. Writes the ids into order[0 .. count)
   * and their step indices into fine[0 .. count); row r holds order[rowStarts[r] .. rowStarts[r + 1]).
   * Returns the count. A caller that renumbers its objects in this order finds each row's objects
   * in consecutive memory, sorted along x (see core/surface's repulsion pass); the next call then
   * finds them nearly sorted: a counting sort by row and an insertion sort within each row,
   * O(n + rows + objects passed); past 4n + 1024 objects passed, a stable counting sort by step
   * then by row instead, O(n + rows + steps): the same order.
   */
  sortRows(subBits: number, order: Int32Array, fine: Int32Array): number {
    checkInteger('subBits', subBits, 0, 9);
    const n = this.n;
    if (order.length < n || fine.length < n) throw new RangeError(`order and fine must hold count = ${n} entries, got lengths ${order.length} and ${fine.length}`);
    if (this.sortRow.length < n) {
      this.sortRow = new Int32Array(this.capacity); this.sortFine = new Int32Array(this.capacity); this.byFine = new Int32Array(this.capacity);
    }
    const b0 = this.bits[0], steps = 1 << (b0 + subBits), rows = 1 << (this.bits[1] + this.bits[2]);
    // fineCount counts the steps (fallback) and serves as the rows' cursors.
    if (this.fineCount.length < Math.max(steps, rows)) this.fineCount = new Int32Array(Math.max(steps, rows));
    if (this.rowStart.length < rows + 1) this.rowStart = new Int32Array(rows + 1);
    const ids = this.ids, x = this.x, cellOf = this.cellOf, row = this.sortRow, step = this.sortFine;
    const count = this.fineCount, start = this.rowStart.fill(0, 0, rows + 1);
    const perStep = (1 << subBits) / this.cellSize[0], mask = steps - 1;
    for (let k = 0; k < n; k++) {
      const id = ids[k];
      step[k] = Math.floor(x[id] * perStep) & mask;
      const r = cellOf[id] >> b0;
      row[k] = r; start[r + 1]++;
    }
    for (let r = 0; r < rows; r++) { start[r + 1] += start[r]; count[r] = start[r]; }
    for (let k = 0; k < n; k++) {
      const p = count[row[k]]++;
      order[p] = ids[k]; fine[p] = step[k];
    }
    let budget = 4 * n + 1024;
    for (let r = 0; r < rows && budget >= 0; r++) {
      const a = start[r], b = start[r + 1];
      for (let p = a + 1; p < b && budget >= 0; p++) {
        const f = fine[p];
        if (f >= fine[p - 1]) continue;
        const id = order[p];
        let q = p;
        while (q > a && fine[q - 1] > f) { fine[q] = fine[q - 1]; order[q] = order[q - 1]; q--; }
        fine[q] = f; order[q] = id;
        budget -= p - q;
      }
    }
    if (budget < 0) this.sortRowsByCounts(n, steps, rows, order, fine);
    return n;
  }

  /** sortRows' fallback: a stable counting sort by step, then by row (the rows' cursors from their starts). */
  private sortRowsByCounts(n: number, steps: number, rows: number, order: Int32Array, fine: Int32Array): void {
    const ids = this.ids, row = this.sortRow, step = this.sortFine, byFine = this.byFine, count = this.fineCount, start = this.rowStart;
    count.fill(0, 0, steps);
    for (let k = 0; k < n; k++) count[step[k]]++;
    let sum = 0;
    for (let f = 0; f < steps; f++) { const c = count[f]; count[f] = sum; sum += c; }
    for (let k = 0; k < n; k++) byFine[count[step[k]]++] = k;
    for (let r = 0; r < rows; r++) count[r] = start[r];
    for (let t = 0; t < n; t++) {
      const k = byFine[t], p = count[row[k]]++;
      order[p] = ids[k]; fine[p] = step[k];
    }
  }

  /** Starts of the rows found by the last sortRows (2^(bits_y + bits_z) + 1 entries). */
  get rowStarts(): Int32Array { return this.rowStart; }

  /** Heads of the cells found by the last cellsInSphere. */
  get cellHeads(): Int32Array { return this.heads; }

  /**
   * Visits the objects of the cells within (rx, ry, rz) of the point, as the seed's
   * visit_neighbors: every object when the range wraps around the grid, else those of the cells
   * collectCells finds.
   */
  private scan(px: number, py: number, pz: number, rx: number, ry: number, rz: number, sphere: boolean): void {
    const m = this.collectCells(px, py, pz, rx, ry, rz, sphere);
    if (m < 0) {
      for (let k = 0; k < this.n; k++) this.candidate(this.ids[k]);
      return;
    }
    const heads = this.heads, next = this.next;
    if (this.scanPairI < 0 && !sphere && !this.periodic) {
      // A box query in an open domain, the hot loop of event-driven runs: box candidates are
      // tested inline from the records (as overlapsQuery would), anything else goes through it.
      const S = this.record, visit = this.queryVisit!;
      const qx = this.qx, qy = this.qy, qz = this.qz, qhx = this.qhx, qhy = this.qhy, qhz = this.qhz;
      let inline = 0;
      for (let k = 0; k < m; k++) {
        for (let j = heads[k]; j >= 0; j = next[j]) {
          const o = 8 * j;
          if (S[o + 6] === 0) {
            inline++;
            if (Math.abs(S[o] - qx) <= S[o + 3] + qhx && Math.abs(S[o + 1] - qy) <= S[o + 4] + qhy && Math.abs(S[o + 2] - qz) <= S[o + 5] + qhz) visit(j);
          } else if (this.overlapsQuery(j)) visit(j);
        }
      }
      this.counters.candidatesTested += inline;
      return;
    }
    for (let k = 0; k < m; k++) for (let j = heads[k]; j >= 0; j = next[j]) this.candidate(j);
  }

  /** Room for `box` cells' heads: doubling, but never past the grid's cells (a box is at most all
   *  of them, else the caller returned -1), so that the scratch is bounded as the grid is. */
  private growHeads(box: number): void {
    this.heads = new Int32Array(Math.min(this.head.length, Math.max(box, 2 * this.heads.length)));
  }

  /**
   * The heads of the non-empty cells within (rx, ry, rz) of the point into `heads`, and their
   * count; −1 when the range wraps around the grid. Scans the cells of the range's bounding box,
   * skipping those the sphere (when `sphere`, rx = ry = rz) does not reach, as the seed does.
   */
  private collectCells(px: number, py: number, pz: number, rx: number, ry: number, rz: number, sphere: boolean): number {
    const s0 = this.cellSize[0], s1 = this.cellSize[1], s2 = this.cellSize[2];
    const b0 = this.bits[0], b1 = this.bits[1], b2 = this.bits[2];
    rx *= SLACK; ry *= SLACK; rz *= SLACK;
    const x0 = Math.floor((px - rx) / s0), x1 = Math.floor((px + rx) / s0);
    const y0 = Math.floor((py - ry) / s1), y1 = Math.floor((py + ry) / s1);
    const z0 = this.dim === 3 ? Math.floor((pz - rz) / s2) : 0, z1 = this.dim === 3 ? Math.floor((pz + rz) / s2) : 0;
    if (x1 - x0 >= 1 << b0 || y1 - y0 >= 1 << b1 || z1 - z0 >= 1 << b2) {
      this.counters.cellsVisited += this.head.length;
      return -1;
    }
    const box = (x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1);
    if (box > this.heads.length) this.growHeads(box);
    const heads = this.heads, head = this.head;
    const mx = (1 << b0) - 1, my = (1 << b1) - 1, mz = (1 << b2) - 1;
    const yc = Math.floor(py / s1), zc = this.dim === 3 ? Math.floor(pz / s2) : 0;
    const r2 = rx * rx;
    let m = 0, visited = 0;
    for (let z = z0; z <= z1; z++) {
      // Vector from the point to the nearest point of cell (x, y, z), per axis (seed: visit_neighbors).
      const dz = z < zc ? (z + 1) * s2 - pz : z > zc ? z * s2 - pz : 0;
      for (let y = y0; y <= y1; y++) {
        const dy = y < yc ? (y + 1) * s1 - py : y > yc ? y * s1 - py : 0;
        let xa = x0, xb = x1;
        if (sphere) {
          // The cells of this row whose nearest point is within the sphere: those meeting
          // [px − w, px + w], the seed's per-cell test (dx² ≤ rest) solved once per row.
          const rest = r2 - dz * dz - dy * dy;
          if (rest < 0) continue;
          const w = Math.sqrt(rest);
          xa = Math.max(x0, Math.floor((px - w) / s0));
          xb = Math.min(x1, Math.floor((px + w) / s0));
        }
        const row = (((z & mz) << b1) | (y & my)) << b0;
        visited += xb - xa + 1;
        for (let x = xa; x <= xb; x++) {
          const h = head[row | (x & mx)];
          if (h >= 0) heads[m++] = h;
        }
      }
    }
    this.counters.cellsVisited += visited;
    return m;
  }

  private candidate(j: number): void {
    const i = this.scanPairI;
    if (i >= 0) {
      if (j > i && this.overlapsPair(i, j)) { this.counters.pairsReported++; this.pairVisit!(i, j); }
    } else if (this.overlapsQuery(j)) {
      this.queryVisit!(j);
    }
  }
}
