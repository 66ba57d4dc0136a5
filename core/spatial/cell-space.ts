/**
 * The PFC cell space (seed 001): the domain box is divided into equidimensional parent cells; each
 * object is mapped, by its cell extent (its minimum extent enlarged on every side by the tolerance
 * eps = eps_v |v| dt + eps_e E_p + eps_c), into every cell that extent overlaps, with the seed's
 * clamp-and-flatten index formulas (2) and (3). Objects outside the domain land in the border cells.
 *
 * Moving an object does nothing until it leaves its cell extent (it then goes on the dirty list and
 * is remapped at the next validation), so only objects that moved more than eps are remapped.
 * Each parent cell counts the extent centroids in it and their extent volumes. A parent with more
 * than `targetPerCell` (10) centroids whose volume is more than `refineFactor` times the mean extent
 * volume there is refined into m^dim child cells, m chosen so that each child fits about
 * `extentsPerChild` (2) mean extents: the measure of the seed's Fig. 5, whose optimum was 5 to 20
 * for PFC and is 1 to 2 for this implementation (bench/spatial.ts, fig5);
 * a refined parent with fewer than 2 centroids, or whose extents have grown to fail the test, is
 * merged back. Refinement is one level deep, as in the seed's figure 4.
 *
 * Open domains only (the seed's formulas clamp to the domain).
 *
 *   insert, remove, move: O(1) (+ the cells of the extent when remapped)
 *   pairs: every parent or child cell, every pair of objects in it; a pair is reported only in the
 *   cell holding the lower corner of the intersection of the two cell extents, so exactly once
 *   query: the cells overlapping the query box, each object once (visit stamps)
 */
import { SpatialObjects, checkInteger, checkPositive } from './objects';
import type { IdVisitor, PairVisitor, SpatialOptions } from './types';
import { powInt, root } from '../common/power';

export interface CellSpaceOptions extends SpatialOptions {
  /** Lower corner and edge lengths of the domain (length dim). */
  domainMin: readonly number[];
  domainSize: readonly number[];
  /** Number of parent cells, default 10,000 in 3D and 1,000 in 2D as in PFC. */
  parentCells?: number;
  /** Refine crowded parent cells, default true. */
  refine?: boolean;
  /** eps_v, eps_e, eps_c of the tolerance; defaults 1, 0.05, 0. */
  toleranceVelocity?: number;
  toleranceExtent?: number;
  toleranceConstant?: number;
  /** dt of the tolerance's velocity term, default 0 (set it with the speeds, see setSpeed). */
  timestep?: number;
  /** Extent centroids per cell that trigger a refinement test, default 10. */
  targetPerCell?: number;
  /** A refined parent with fewer centroids than this is merged back, default 2. */
  unrefineBelow?: number;
  /** Refine only if the parent volume exceeds this many mean extent volumes, default 10. */
  refineFactor?: number;
  /** Mean extents a child cell should fit, default 2: the optimum of this implementation in the
   *  seed's Fig. 5 benchmark (`npm run bench -- spatial --only fig5`; PFC's own optimum was 5-20). */
  extentsPerChild?: number;
}

/** At most this many child cells per refined parent. */
const MAX_CHILDREN = 4096;

function checkNonNegative(name: string, v: number): void {
  if (!(Number.isFinite(v) && v >= 0)) throw new RangeError(`${name} must be a finite number >= 0, got ${v}`);
}

export class CellSpace extends SpatialObjects {
  readonly name = 'cell space';
  /** Edge of a parent cell (len) and the number of parent cells per axis (N). */
  readonly len: number;
  readonly cellsPerAxis: Int32Array;
  readonly origin: Float64Array;
  /** Refinements and merges so far. */
  refinements = 0;
  merges = 0;
  private readonly parentCount: number;
  private readonly refineEnabled: boolean;
  private readonly epsV: number;
  private readonly epsE: number;
  private readonly epsC: number;
  private readonly dt: number;
  private readonly target: number;
  private readonly unrefineBelow: number;
  private readonly refineFactor: number;
  private readonly extentsPerChild: number;
  // Parent cells: first child slot (-1 when not refined), children per axis, centroid statistics.
  private readonly child: Int32Array;
  private readonly childM: Int32Array;
  private readonly centroids: Int32Array;
  private readonly volumeSum: Float64Array;
  private readonly touched: Int32Array;
  private readonly touchedFlag: Uint8Array;
  private nTouched = 0;
  // Slots: parents first, then blocks of child cells. slotHead[s] is the first node of the slot's list.
  private slotHead: Int32Array;
  private slotTop: number;
  private readonly freeBlocks = new Map<number, number[]>();
  // Membership nodes: one per (object, cell); a cell's nodes form a doubly linked list, an object's a singly linked one.
  private nodeObj: Int32Array;
  private nodeSlot: Int32Array;
  private nodeNext: Int32Array;
  private nodePrev: Int32Array;
  private nodeObjNext: Int32Array;
  private freeNode = -1;
  private nodeTop = 0;
  // Objects: cell extent (lb, ub per axis), its volume, the parent of its centroid (-1: unmapped).
  private readonly objHead: Int32Array;
  private readonly lb: Float64Array;
  private readonly ub: Float64Array;
  private readonly extentVolume: Float64Array;
  private readonly centroidParent: Int32Array;
  private readonly speed: Float64Array;
  private readonly dirty: Uint8Array;
  private readonly dirtyList: Int32Array;
  private nDirty = 0;
  private readonly stamp: Uint32Array;
  private stampNow = 0;
  private readonly gather: Int32Array;
  // The cell being scanned by a pair pass: parent coordinates, child coordinates (-1 for a parent), m.
  private readonly scanCell = new Int32Array(7);
  /** Parent index range of the current query (x0, x1, y0, y1, z0, z1). */
  private readonly queryRange = new Int32Array(6);

  constructor(o: CellSpaceOptions) {
    if (o.period !== undefined) throw new RangeError('period is not supported by the cell space (its index formulas clamp to the domain); use HashedGrid, SpatialTree or BruteForce for a periodic box');
    if (o.domainMin?.length !== o.dim) throw new RangeError(`domainMin must have dim = ${o.dim} entries, got ${o.domainMin?.length}`);
    if (o.domainSize?.length !== o.dim) throw new RangeError(`domainSize must have dim = ${o.dim} entries, got ${o.domainSize?.length}`);
    o.domainMin.forEach((v, a) => { if (!Number.isFinite(v)) throw new RangeError(`domainMin[${a}] must be a finite number, got ${v}`); });
    o.domainSize.forEach((v, a) => checkPositive(`domainSize[${a}]`, v));
    const parentCells = o.parentCells ?? (o.dim === 3 ? 10_000 : 1_000);
    checkInteger('parentCells', parentCells, 1, 1 << 26, '2^26');
    const target = o.targetPerCell ?? 10;
    checkInteger('targetPerCell', target, 1, 1 << 20, '2^20');
    const unrefineBelow = o.unrefineBelow ?? 2;
    checkInteger('unrefineBelow', unrefineBelow, 0, target + 1, `targetPerCell + 1 = ${target + 1}`);
    const refineFactor = o.refineFactor ?? 10;
    checkPositive('refineFactor', refineFactor);
    const extentsPerChild = o.extentsPerChild ?? 2;
    checkPositive('extentsPerChild', extentsPerChild);
    const epsV = o.toleranceVelocity ?? 1, epsE = o.toleranceExtent ?? 0.05, epsC = o.toleranceConstant ?? 0, dt = o.timestep ?? 0;
    checkNonNegative('toleranceVelocity', epsV); checkNonNegative('toleranceExtent', epsE);
    checkNonNegative('toleranceConstant', epsC); checkNonNegative('timestep', dt);
    super(o);
    const volume = o.domainSize.reduce((p, v) => p * v, 1);
    this.len = root(volume / parentCells, o.dim);
    this.cellsPerAxis = new Int32Array([1, 1, 1]);
    this.origin = new Float64Array(3);
    for (let a = 0; a < o.dim; a++) {
      this.cellsPerAxis[a] = Math.max(1, Math.ceil(o.domainSize[a] / this.len - 1e-9));
      this.origin[a] = o.domainMin[a];
    }
    const P = this.cellsPerAxis[0] * this.cellsPerAxis[1] * this.cellsPerAxis[2];
    this.parentCount = P;
    this.refineEnabled = o.refine ?? true;
    this.epsV = epsV; this.epsE = epsE; this.epsC = epsC; this.dt = dt;
    this.target = target; this.unrefineBelow = unrefineBelow; this.refineFactor = refineFactor;
    this.extentsPerChild = extentsPerChild;
    this.child = new Int32Array(P).fill(-1);
    this.childM = new Int32Array(P);
    this.centroids = new Int32Array(P);
    this.volumeSum = new Float64Array(P);
    this.touched = new Int32Array(P);
    this.touchedFlag = new Uint8Array(P);
    this.slotHead = new Int32Array(P * 2).fill(-1);
    this.slotTop = P;
    const nodes = Math.max(64, 2 * o.capacity);
    this.nodeObj = new Int32Array(nodes);
    this.nodeSlot = new Int32Array(nodes);
    this.nodeNext = new Int32Array(nodes);
    this.nodePrev = new Int32Array(nodes);
    this.nodeObjNext = new Int32Array(nodes);
    const cap = o.capacity;
    this.objHead = new Int32Array(cap).fill(-1);
    this.lb = new Float64Array(3 * cap);
    this.ub = new Float64Array(3 * cap);
    this.extentVolume = new Float64Array(cap);
    this.centroidParent = new Int32Array(cap).fill(-1);
    this.speed = new Float64Array(cap);
    this.dirty = new Uint8Array(cap);
    this.dirtyList = new Int32Array(cap);
    this.stamp = new Uint32Array(cap);
    this.gather = new Int32Array(cap);
  }

  /** Number of refined parent cells now. */
  get refinedCells(): number {
    let k = 0;
    for (let p = 0; p < this.parentCount; p++) if (this.child[p] >= 0) k++;
    return k;
  }

  /** Translational speed |v| of an object, used in its tolerance when it is next mapped. */
  setSpeed(id: number, speed: number): void {
    this.checkPresent(id);
    checkNonNegative('speed', speed);
    this.speed[id] = speed;
  }

  protected added(id: number): void {
    this.markDirty(id);
  }

  protected removed(id: number): void {
    if (this.centroidParent[id] >= 0) {
      this.unlinkObject(id);
      this.uncount(id);
    }
  }

  protected changed(id: number): void {
    if (this.dirty[id] === 1) return;
    const b = 3 * id;
    const x = this.x[id], y = this.y[id], z = this.z[id];
    const hx = this.hx[id], hy = this.hy[id], hz = this.hz[id];
    if (x - hx < this.lb[b] || x + hx > this.ub[b] || y - hy < this.lb[b + 1] || y + hy > this.ub[b + 1] ||
        (this.dim === 3 && (z - hz < this.lb[b + 2] || z + hz > this.ub[b + 2]))) {
      this.markDirty(id);
    }
  }

  /** The seed's cycle point: remaps the dirty objects, then refines or merges the touched parents. */
  validate(): void {
    for (let k = 0; k < this.nDirty; k++) {
      const id = this.dirtyList[k];
      if (this.dirty[id] === 0) continue;
      this.dirty[id] = 0;
      if (this.live[id] === 0) continue;
      if (this.centroidParent[id] >= 0) {
        this.unlinkObject(id);
        this.uncount(id);
      }
      this.computeExtent(id);
      this.linkObject(id);
      this.counters.remaps++;
    }
    this.nDirty = 0;
    for (let k = 0; k < this.nTouched; k++) {
      const p = this.touched[k];
      this.touchedFlag[p] = 0;
      this.checkRefinement(p);
    }
    this.nTouched = 0;
  }

  pairs(visit: PairVisitor): void {
    this.validate();
    const N = this.cellsPerAxis, sc = this.scanCell;
    for (let p = 0; p < this.parentCount; p++) {
      sc[0] = p % N[0];
      sc[1] = Math.floor(p / N[0]) % N[1];
      sc[2] = Math.floor(p / (N[0] * N[1]));
      const base = this.child[p];
      if (base < 0) {
        sc[3] = -1;
        this.scanPairs(p, visit);
        continue;
      }
      const m = this.childM[p];
      sc[6] = m;
      const mz = this.dim === 3 ? m : 1;
      for (let jz = 0; jz < mz; jz++) {
        for (let jy = 0; jy < m; jy++) {
          for (let jx = 0; jx < m; jx++) {
            sc[3] = jx; sc[4] = jy; sc[5] = jz;
            this.scanPairs(base + jx + m * (jy + m * jz), visit);
          }
        }
      }
    }
  }

  protected scanQuery(visit: IdVisitor): void {
    this.validate();
    if (++this.stampNow === 0xffffffff) { this.stamp.fill(0); this.stampNow = 1; }
    const N = this.cellsPerAxis, r = this.queryRange;
    const q = [this.qx, this.qy, this.qz], h = [this.qhx, this.qhy, this.qhz];
    for (let a = 0; a < 3; a++) {
      r[2 * a] = a < this.dim ? this.parentIndex(q[a] - h[a], a) : 0;
      r[2 * a + 1] = a < this.dim ? this.parentIndex(q[a] + h[a], a) : 0;
    }
    for (let pz = r[4]; pz <= r[5]; pz++) {
      for (let py = r[2]; py <= r[3]; py++) {
        for (let px = r[0]; px <= r[1]; px++) {
          const p = px + N[0] * (py + N[1] * pz);
          const base = this.child[p];
          if (base < 0) { this.scanQuerySlot(p, visit); continue; }
          const m = this.childM[p];
          const jx0 = this.childIndex(q[0] - h[0], 0, px, m), jx1 = this.childIndex(q[0] + h[0], 0, px, m);
          const jy0 = this.childIndex(q[1] - h[1], 1, py, m), jy1 = this.childIndex(q[1] + h[1], 1, py, m);
          const jz0 = this.dim === 3 ? this.childIndex(q[2] - h[2], 2, pz, m) : 0;
          const jz1 = this.dim === 3 ? this.childIndex(q[2] + h[2], 2, pz, m) : 0;
          for (let jz = jz0; jz <= jz1; jz++) {
            for (let jy = jy0; jy <= jy1; jy++) {
              for (let jx = jx0; jx <= jx1; jx++) this.scanQuerySlot(base + jx + m * (jy + m * jz), visit);
            }
          }
        }
      }
    }
  }

  /** Formula (2): clamped parent index of a coordinate on axis a. */
  private parentIndex(v: number, a: number): number {
    const i = Math.floor((v - this.origin[a]) / this.len);
    const n = this.cellsPerAxis[a] - 1;
    return i < 0 ? 0 : i > n ? n : i;
  }

  /** The same formula inside parent cell pc of a refined parent with m children per axis. */
  private childIndex(v: number, a: number, pc: number, m: number): number {
    const o = this.origin[a] + pc * this.len;
    const i = Math.floor((v - o) / (this.len / m));
    return i < 0 ? 0 : i > m - 1 ? m - 1 : i;
  }

  private scanPairs(s: number, visit: PairVisitor): void {
    const c = this.counters, obj = this.nodeObj, next = this.nodeNext;
    c.cellsVisited++;
    for (let a = this.slotHead[s]; a >= 0; a = next[a]) {
      const i = obj[a];
      for (let b = next[a]; b >= 0; b = next[b]) {
        const j = obj[b];
        if (this.ownsPair(i, j) && this.overlapsPair(i, j)) { c.pairsReported++; visit(i, j); }
      }
    }
  }

  /** True when the cell being scanned holds the lower corner of the intersection of the two cell
   *  extents: both objects are mapped there, and it is the only such cell. */
  private ownsPair(i: number, j: number): boolean {
    const sc = this.scanCell, lb = this.lb;
    for (let a = 0; a < this.dim; a++) {
      const v = Math.max(lb[3 * i + a], lb[3 * j + a]);
      if (this.parentIndex(v, a) !== sc[a]) return false;
      if (sc[3] >= 0 && this.childIndex(v, a, sc[a], sc[6]) !== sc[3 + a]) return false;
    }
    return true;
  }

  private scanQuerySlot(s: number, visit: IdVisitor): void {
    this.counters.cellsVisited++;
    for (let a = this.slotHead[s]; a >= 0; a = this.nodeNext[a]) {
      const i = this.nodeObj[a];
      if (this.stamp[i] === this.stampNow) continue;
      this.stamp[i] = this.stampNow;
      if (this.overlapsQuery(i)) visit(i);
    }
  }

  private markDirty(id: number): void {
    if (this.dirty[id] === 1) return;
    this.dirty[id] = 1;
    this.dirtyList[this.nDirty++] = id;
  }

  private touch(p: number): void {
    if (this.touchedFlag[p] === 1) return;
    this.touchedFlag[p] = 1;
    this.touched[this.nTouched++] = p;
  }

  /** Cell extent = minimum extent enlarged by eps; counts its centroid in its parent. */
  private computeExtent(id: number): void {
    const sphere = this.sphere[id] === 1;
    const h = [this.hx[id], this.hy[id], this.hz[id]], c = [this.x[id], this.y[id], this.z[id]];
    const ep = sphere ? 2 * h[0] : (2 * (h[0] + h[1] + (this.dim === 3 ? h[2] : 0))) / this.dim;
    const eps = this.epsV * this.speed[id] * this.dt + this.epsE * ep + this.epsC;
    let vol = 1, p = 0;
    const N = this.cellsPerAxis;
    for (let a = this.dim - 1; a >= 0; a--) {
      this.lb[3 * id + a] = c[a] - h[a] - eps;
      this.ub[3 * id + a] = c[a] + h[a] + eps;
      vol *= 2 * (h[a] + eps);
      p = p * N[a] + this.parentIndex(c[a], a);
    }
    this.extentVolume[id] = vol;
    this.centroidParent[id] = p;
    this.centroids[p]++;
    this.volumeSum[p] += vol;
    this.touch(p);
  }

  private uncount(id: number): void {
    const p = this.centroidParent[id];
    this.centroids[p]--;
    this.volumeSum[p] -= this.extentVolume[id];
    if (this.centroids[p] === 0) this.volumeSum[p] = 0;
    this.centroidParent[id] = -1;
    this.touch(p);
  }

  /** Adds the object to every cell its stored cell extent overlaps (formulas 2 and 3). */
  private linkObject(id: number): void {
    const N = this.cellsPerAxis, b = 3 * id;
    const x0 = this.parentIndex(this.lb[b], 0), x1 = this.parentIndex(this.ub[b], 0);
    const y0 = this.parentIndex(this.lb[b + 1], 1), y1 = this.parentIndex(this.ub[b + 1], 1);
    const z0 = this.dim === 3 ? this.parentIndex(this.lb[b + 2], 2) : 0, z1 = this.dim === 3 ? this.parentIndex(this.ub[b + 2], 2) : 0;
    for (let pz = z0; pz <= z1; pz++) {
      for (let py = y0; py <= y1; py++) {
        for (let px = x0; px <= x1; px++) {
          const p = px + N[0] * (py + N[1] * pz);
          const base = this.child[p];
          if (base < 0) { this.addNode(id, p); continue; }
          const m = this.childM[p];
          const jx0 = this.childIndex(this.lb[b], 0, px, m), jx1 = this.childIndex(this.ub[b], 0, px, m);
          const jy0 = this.childIndex(this.lb[b + 1], 1, py, m), jy1 = this.childIndex(this.ub[b + 1], 1, py, m);
          const jz0 = this.dim === 3 ? this.childIndex(this.lb[b + 2], 2, pz, m) : 0;
          const jz1 = this.dim === 3 ? this.childIndex(this.ub[b + 2], 2, pz, m) : 0;
          for (let jz = jz0; jz <= jz1; jz++) {
            for (let jy = jy0; jy <= jy1; jy++) {
              for (let jx = jx0; jx <= jx1; jx++) this.addNode(id, base + jx + m * (jy + m * jz));
            }
          }
        }
      }
    }
  }

  private unlinkObject(id: number): void {
    for (let k = this.objHead[id]; k >= 0;) {
      const after = this.nodeObjNext[k];
      const p = this.nodePrev[k], nx = this.nodeNext[k];
      if (p >= 0) this.nodeNext[p] = nx; else this.slotHead[this.nodeSlot[k]] = nx;
      if (nx >= 0) this.nodePrev[nx] = p;
      this.nodeNext[k] = this.freeNode;
      this.freeNode = k;
      k = after;
    }
    this.objHead[id] = -1;
  }

  private addNode(id: number, s: number): void {
    let k = this.freeNode;
    if (k >= 0) this.freeNode = this.nodeNext[k];
    else {
      if (this.nodeTop === this.nodeObj.length) this.growNodes();
      k = this.nodeTop++;
    }
    const h = this.slotHead[s];
    this.nodeObj[k] = id;
    this.nodeSlot[k] = s;
    this.nodeNext[k] = h;
    this.nodePrev[k] = -1;
    if (h >= 0) this.nodePrev[h] = k;
    this.slotHead[s] = k;
    this.nodeObjNext[k] = this.objHead[id];
    this.objHead[id] = k;
  }

  private growNodes(): void {
    const grow = (a: Int32Array) => { const b = new Int32Array(a.length * 2); b.set(a); return b; };
    this.nodeObj = grow(this.nodeObj);
    this.nodeSlot = grow(this.nodeSlot);
    this.nodeNext = grow(this.nodeNext);
    this.nodePrev = grow(this.nodePrev);
    this.nodeObjNext = grow(this.nodeObjNext);
  }

  private checkRefinement(p: number): void {
    const count = this.centroids[p];
    const meanVolume = count > 0 ? this.volumeSum[p] / count : 0;
    const cellVolume = powInt(this.len, this.dim);
    const crowded = cellVolume > this.refineFactor * meanVolume;
    if (this.child[p] < 0) {
      if (!this.refineEnabled || count <= this.target || !crowded) return;
      // Children that each fit about `extentsPerChild` mean extents (the measure of the seed's Fig. 5).
      const m = Math.min(Math.floor(root(MAX_CHILDREN, this.dim) + 1e-9), Math.round(root(cellVolume / (this.extentsPerChild * meanVolume), this.dim)));
      if (m >= 2) this.refine(p, m);
    } else if (count < this.unrefineBelow || !crowded) {
      this.merge(p);
    }
  }

  private refine(p: number, m: number): void {
    const n = this.gatherSlots(p, 1);
    for (let k = 0; k < n; k++) this.unlinkObject(this.gather[k]);
    this.child[p] = this.allocBlock(powInt(m, this.dim));
    this.childM[p] = m;
    for (let k = 0; k < n; k++) this.linkObject(this.gather[k]);
    this.counters.remaps += n;
    this.refinements++;
  }

  private merge(p: number): void {
    const size = powInt(this.childM[p], this.dim), base = this.child[p];
    const n = this.gatherSlots(base, size);
    for (let k = 0; k < n; k++) this.unlinkObject(this.gather[k]);
    this.child[p] = -1;
    this.childM[p] = 0;
    let free = this.freeBlocks.get(size);
    if (!free) this.freeBlocks.set(size, (free = []));
    free.push(base);
    for (let k = 0; k < n; k++) this.linkObject(this.gather[k]);
    this.counters.remaps += n;
    this.merges++;
  }

  /** Distinct objects of slots [s, s + count) into this.gather; returns how many. */
  private gatherSlots(s: number, count: number): number {
    if (++this.stampNow === 0xffffffff) { this.stamp.fill(0); this.stampNow = 1; }
    let n = 0;
    for (let t = s; t < s + count; t++) {
      for (let k = this.slotHead[t]; k >= 0; k = this.nodeNext[k]) {
        const id = this.nodeObj[k];
        if (this.stamp[id] === this.stampNow) continue;
        this.stamp[id] = this.stampNow;
        this.gather[n++] = id;
      }
    }
    return n;
  }

  private allocBlock(size: number): number {
    const free = this.freeBlocks.get(size);
    if (free && free.length > 0) return free.pop()!;
    const base = this.slotTop;
    this.slotTop += size;
    if (this.slotTop > this.slotHead.length) {
      const grown = new Int32Array(Math.max(this.slotTop, 2 * this.slotHead.length)).fill(-1);
      grown.set(this.slotHead);
      this.slotHead = grown;
    }
    return base;
  }
}
