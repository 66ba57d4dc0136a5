/**
 * Storage and exact geometry shared by every structure: the object arrays (structure of arrays,
 * optionally in one SharedArrayBuffer), argument checks, the dense list of live ids, and the exact
 * overlap tests that decide what a query or a pair pass reports. Structures only decide which
 * candidates to test; the tests themselves live here so that every structure reports the same set.
 */
import type { IdVisitor, PairVisitor, SpatialCounters, SpatialIndex, SpatialOptions } from './types';

const MAX_CAPACITY = 0x8000_0000;

/** Exact overlap (closed) of two shapes whose centres differ by (dx, dy, dz). A sphere's radius is
 *  passed as all three half extents. */
export function shapesOverlap(
  dx: number, dy: number, dz: number,
  sphereA: boolean, ax: number, ay: number, az: number,
  sphereB: boolean, bx: number, by: number, bz: number,
): boolean {
  if (sphereA && sphereB) {
    const s = ax + bx;
    return dx * dx + dy * dy + dz * dz <= s * s;
  }
  if (!sphereA && !sphereB) {
    return Math.abs(dx) <= ax + bx && Math.abs(dy) <= ay + by && Math.abs(dz) <= az + bz;
  }
  // Sphere against box: distance from the sphere centre to the box.
  const r = sphereA ? ax : bx;
  const ex = Math.max(0, Math.abs(dx) - (sphereA ? bx : ax));
  const ey = Math.max(0, Math.abs(dy) - (sphereA ? by : ay));
  const ez = Math.max(0, Math.abs(dz) - (sphereA ? bz : az));
  return ex * ex + ey * ey + ez * ez <= r * r;
}

/** Nearest-image difference along an axis of period p (p = 0: not periodic). */
export function wrap(d: number, p: number): number {
  return p > 0 ? d - p * Math.round(d / p) : d;
}

export function checkInteger(name: string, value: number, lo: number, hiExclusive: number, hiText = String(hiExclusive)): void {
  if (!Number.isInteger(value) || value < lo || value >= hiExclusive) {
    throw new RangeError(`${name} must be an integer in [${lo}, ${hiText}), got ${value}`);
  }
}

export function checkPositive(name: string, value: number): void {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be a finite number > 0, got ${value}`);
}

function checkFinite(name: string, value: number): void {
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be a finite number, got ${value}`);
}

function checkSize(name: string, value: number): void {
  if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
}

/** Checks the options every structure shares; throws before anything is allocated. */
export function checkSpatialOptions(o: SpatialOptions): void {
  if (o.dim !== 2 && o.dim !== 3) throw new RangeError(`dim must be 2 or 3, got ${o.dim}`);
  checkInteger('capacity', o.capacity, 1, MAX_CAPACITY, '2^31');
  if (o.period !== undefined) {
    if (o.period.length !== o.dim) throw new RangeError(`period must have dim = ${o.dim} entries, got ${o.period.length}`);
    o.period.forEach((p, a) => checkPositive(`period[${a}]`, p));
  }
}

export abstract class SpatialObjects implements SpatialIndex {
  abstract readonly name: string;
  readonly dim: 2 | 3;
  readonly capacity: number;
  readonly counters: SpatialCounters = { cellsVisited: 0, candidatesTested: 0, pairsReported: 0, remaps: 0 };
  /** Centres and half extents (a sphere stores its radius in all three). */
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  readonly hx: Float64Array;
  readonly hy: Float64Array;
  readonly hz: Float64Array;
  /** 1 for a sphere, 0 for a box. */
  readonly sphere: Uint8Array;
  /** The same, one object's next to each other (record[8 id ..] = x, y, z, hx, hy, hz, sphere), for
   *  the hot open-domain query loops (one cache line a candidate instead of seven arrays). */
  protected readonly record: Float64Array;
  readonly live: Uint8Array;
  /** Live ids, densely packed; slot[id] is the position of id in it. */
  protected readonly ids: Int32Array;
  protected readonly slot: Int32Array;
  protected n = 0;
  /** Period per axis, 0 when open. */
  protected readonly px: number;
  protected readonly py: number;
  protected readonly pz: number;
  readonly periodic: boolean;
  /** Largest half extent and largest bounding radius ever inserted (never shrink until recomputed). */
  protected maxHalf = 0;
  protected maxRadius = 0;
  // The current query shape, set by querySphere/queryBox before the structure scans.
  protected qx = 0; protected qy = 0; protected qz = 0;
  protected qhx = 0; protected qhy = 0; protected qhz = 0;
  protected qSphere = false;

  protected constructor(o: SpatialOptions) {
    checkSpatialOptions(o);
    this.dim = o.dim;
    this.capacity = o.capacity;
    const cap = o.capacity;
    const bytes = cap * (6 * 8 + 2 + 2 * 4);
    const buf = o.shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
    let off = 0;
    const f64 = () => { const a = new Float64Array(buf, off, cap); off += cap * 8; return a; };
    this.x = f64(); this.y = f64(); this.z = f64(); this.hx = f64(); this.hy = f64(); this.hz = f64();
    this.ids = new Int32Array(buf, off, cap); off += cap * 4;
    this.slot = new Int32Array(buf, off, cap); off += cap * 4;
    this.sphere = new Uint8Array(buf, off, cap); off += cap;
    this.live = new Uint8Array(buf, off, cap);
    this.record = new Float64Array(8 * cap);
    this.periodic = o.period !== undefined;
    this.px = o.period?.[0] ?? 0;
    this.py = o.period?.[1] ?? 0;
    this.pz = o.dim === 3 ? (o.period?.[2] ?? 0) : 0;
  }

  get count(): number { return this.n; }

  has(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < this.capacity && this.live[id] === 1;
  }

  /** Structure hooks: called after the object arrays have been written (added, changed) or before
   *  the id is dropped from them (removed). */
  protected abstract added(id: number): void;
  protected abstract removed(id: number): void;
  protected abstract changed(id: number): void;
  protected abstract scanQuery(visit: IdVisitor): void;
  abstract pairs(visit: PairVisitor): void;

  insertSphere(id: number, x: number, y: number, z: number, r: number): void {
    this.checkNew(id);
    this.write(id, x, y, z, r, r, r, true);
    this.link(id);
  }

  insertBox(id: number, x: number, y: number, z: number, hx: number, hy: number, hz: number): void {
    this.checkNew(id);
    this.write(id, x, y, z, hx, hy, hz, false);
    this.link(id);
  }

  updateSphere(id: number, x: number, y: number, z: number, r: number): void {
    this.checkPresent(id);
    this.write(id, x, y, z, r, r, r, true);
    this.changed(id);
  }

  updateBox(id: number, x: number, y: number, z: number, hx: number, hy: number, hz: number): void {
    this.checkPresent(id);
    this.write(id, x, y, z, hx, hy, hz, false);
    this.changed(id);
  }

  move(id: number, x: number, y: number, z: number): void {
    this.checkPresent(id);
    checkFinite('x', x); checkFinite('y', y);
    if (this.dim === 3) checkFinite('z', z);
    const zz = this.dim === 3 ? z : 0;
    this.x[id] = x; this.y[id] = y; this.z[id] = zz;
    // Only the centre changes: the record's shape fields stay (reading them back from their own
    // arrays cost four more cache lines a move).
    const R = this.record, k = 8 * id;
    R[k] = x; R[k + 1] = y; R[k + 2] = zz;
    this.changed(id);
  }

  remove(id: number): void {
    this.checkPresent(id);
    this.removed(id);
    const s = this.slot[id], last = this.ids[--this.n];
    this.ids[s] = last;
    this.slot[last] = s;
    this.live[id] = 0;
  }

  querySphere(x: number, y: number, z: number, r: number, visit: IdVisitor): void {
    checkFinite('x', x); checkFinite('y', y); checkFinite('z', z); checkSize('r', r);
    this.checkPeriodicSize('r', r, r, r);
    this.qx = x; this.qy = y; this.qz = this.dim === 3 ? z : 0;
    this.qhx = r; this.qhy = r; this.qhz = r; this.qSphere = true;
    this.scanQuery(visit);
  }

  queryBox(minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number, visit: IdVisitor): void {
    checkFinite('minX', minX); checkFinite('minY', minY); checkFinite('minZ', minZ);
    checkFinite('maxX', maxX); checkFinite('maxY', maxY); checkFinite('maxZ', maxZ);
    if (maxX < minX || maxY < minY || (this.dim === 3 && maxZ < minZ)) {
      throw new RangeError(`box max must be >= min on every axis, got min (${minX}, ${minY}, ${minZ}) max (${maxX}, ${maxY}, ${maxZ})`);
    }
    const hx = (maxX - minX) / 2, hy = (maxY - minY) / 2, hz = this.dim === 3 ? (maxZ - minZ) / 2 : 0;
    this.checkPeriodicSize('box half extent', hx, hy, hz);
    this.qx = minX + hx; this.qy = minY + hy; this.qz = this.dim === 3 ? minZ + hz : 0;
    this.qhx = hx; this.qhy = hy; this.qhz = hz; this.qSphere = false;
    this.scanQuery(visit);
  }

  queryObject(of: number, visit: IdVisitor): void {
    this.checkPresent(of);
    this.qx = this.x[of]; this.qy = this.y[of]; this.qz = this.z[of];
    this.qhx = this.hx[of]; this.qhy = this.hy[of]; this.qhz = this.hz[of];
    this.qSphere = this.sphere[of] === 1;
    this.scanQuery(visit);
  }

  resetCounters(): void {
    const c = this.counters;
    c.cellsVisited = 0; c.candidatesTested = 0; c.pairsReported = 0; c.remaps = 0;
  }

  /** Exact test of objects i and j (counted as a candidate test). */
  protected overlapsPair(i: number, j: number): boolean {
    this.counters.candidatesTested++;
    return shapesOverlap(
      wrap(this.x[i] - this.x[j], this.px), wrap(this.y[i] - this.y[j], this.py), wrap(this.z[i] - this.z[j], this.pz),
      this.sphere[i] === 1, this.hx[i], this.hy[i], this.hz[i],
      this.sphere[j] === 1, this.hx[j], this.hy[j], this.hz[j],
    );
  }

  /** Exact test of object i against the current query shape (counted as a candidate test). */
  protected overlapsQuery(i: number): boolean {
    this.counters.candidatesTested++;
    // The common case of event-driven runs (boxes in an open domain), without the general call.
    if (!this.periodic && !this.qSphere && this.sphere[i] === 0) {
      return Math.abs(this.x[i] - this.qx) <= this.hx[i] + this.qhx && Math.abs(this.y[i] - this.qy) <= this.hy[i] + this.qhy &&
        Math.abs(this.z[i] - this.qz) <= this.hz[i] + this.qhz;
    }
    return shapesOverlap(
      wrap(this.x[i] - this.qx, this.px), wrap(this.y[i] - this.qy, this.py), wrap(this.z[i] - this.qz, this.pz),
      this.sphere[i] === 1, this.hx[i], this.hy[i], this.hz[i],
      this.qSphere, this.qhx, this.qhy, this.qhz,
    );
  }

  /** Radius of the sphere around the centre that holds object i. */
  protected boundingRadius(i: number): number {
    const hx = this.hx[i], hy = this.hy[i], hz = this.hz[i];
    return this.sphere[i] === 1 ? hx : Math.sqrt(hx * hx + hy * hy + hz * hz);
  }

  /** Recomputes maxHalf and maxRadius from the live objects (O(n)). */
  protected recomputeMaxima(): void {
    let mh = 0, mr = 0;
    for (let k = 0; k < this.n; k++) {
      const i = this.ids[k];
      mh = Math.max(mh, this.hx[i], this.hy[i], this.hz[i]);
      mr = Math.max(mr, this.boundingRadius(i));
    }
    this.maxHalf = mh;
    this.maxRadius = mr;
  }

  private link(id: number): void {
    this.live[id] = 1;
    this.slot[id] = this.n;
    this.ids[this.n++] = id;
    this.added(id);
  }

  private write(id: number, x: number, y: number, z: number, hx: number, hy: number, hz: number, sphere: boolean): void {
    checkFinite('x', x); checkFinite('y', y);
    if (this.dim === 3) checkFinite('z', z);
    if (sphere) checkSize('r', hx);
    else { checkSize('hx', hx); checkSize('hy', hy); if (this.dim === 3) checkSize('hz', hz); }
    if (this.dim === 2) { z = 0; hz = sphere ? hx : 0; }
    this.checkPeriodicSize(sphere ? 'r' : 'half extent', hx, hy, sphere ? hx : hz);
    this.x[id] = x; this.y[id] = y; this.z[id] = z;
    this.hx[id] = hx; this.hy[id] = hy; this.hz[id] = hz;
    this.sphere[id] = sphere ? 1 : 0;
    this.writeRecord(id);
    this.maxHalf = Math.max(this.maxHalf, hx, hy, hz);
    this.maxRadius = Math.max(this.maxRadius, sphere ? hx : Math.sqrt(hx * hx + hy * hy + hz * hz));
  }

  private writeRecord(id: number): void {
    const R = this.record, k = 8 * id;
    R[k] = this.x[id]; R[k + 1] = this.y[id]; R[k + 2] = this.z[id];
    R[k + 3] = this.hx[id]; R[k + 4] = this.hy[id]; R[k + 5] = this.hz[id]; R[k + 6] = this.sphere[id];
  }

  private checkPeriodicSize(name: string, hx: number, hy: number, hz: number): void {
    if (!this.periodic) return;
    const p = [this.px, this.py, this.pz], h = [hx, hy, hz];
    for (let a = 0; a < this.dim; a++) {
      if (!(h[a] < p[a] / 4)) throw new RangeError(`${name} must be < period[${a}] / 4 = ${p[a] / 4} in a periodic domain, got ${h[a]}`);
    }
  }

  private checkNew(id: number): void {
    checkInteger('id', id, 0, this.capacity, `capacity = ${this.capacity}`);
    if (this.live[id] === 1) throw new RangeError(`id ${id} is already present`);
  }

  protected checkPresent(id: number): void {
    // The common case first: the message strings are built only for an error (this runs per move
    // and per query).
    if (Number.isInteger(id) && id >= 0 && id < this.capacity && this.live[id] === 1) return;
    checkInteger('id', id, 0, this.capacity, `capacity = ${this.capacity}`);
    throw new RangeError(`id ${id} is not present`);
  }
}
