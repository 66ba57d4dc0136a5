/**
 * Regular spatial tree (seed 003): a hierarchy over a regular subdivision. Level l divides space
 * into cells of edge cellSize * 2^l; each cell is the parent of 2^dim cells of level l - 1, so the
 * levels form an implicit quadtree/octree. An object lives in the finest level whose cells are at
 * least as large as its box, in the cell holding its centre (a loose octree with looseness 2). Uneven
 * sizes therefore cost little: small objects are not compared through cells sized for large ones.
 *
 * Cells are kept in one hash table keyed by (level, cell), so only occupied cells cost memory (the
 * seed used an AVL tree for the same purpose); each object stores its cell coordinates so that hash
 * collisions never produce duplicate or wrong candidates.
 * Periodic domains are supported: level l then has floor(period / (cellSize 2^l)) cells on an axis
 * (at least one), so its cells are never smaller than asked.
 *
 *   insert, remove, move: O(1)
 *   pairs: per object, the 3^dim cells around it on its own level and on every coarser occupied level
 *   query: the cells the query box (enlarged by half a cell) covers on every occupied level
 */
import { SpatialObjects, checkInteger, checkPositive } from './objects';
import type { IdVisitor, PairVisitor, SpatialOptions } from './types';
import { powInt } from '../common/power';

export interface SpatialTreeOptions extends SpatialOptions {
  /** Edge of the finest cells: the smallest object diameter is a good choice. */
  cellSize: number;
}

const MAX_LEVELS = 40;

/** The cell itself, then the neighbour offsets (dx, dy, dz) that come after it in x-fastest order. */
const HALF_STENCIL_3D = new Int8Array([
  0, 0, 0, 1, 0, 0,
  -1, 1, 0, 0, 1, 0, 1, 1, 0,
  -1, -1, 1, 0, -1, 1, 1, -1, 1, -1, 0, 1, 0, 0, 1, 1, 0, 1, -1, 1, 1, 0, 1, 1, 1, 1, 1,
]);
const HALF_STENCIL_2D = new Int8Array([0, 0, 0, 1, 0, 0, -1, 1, 0, 0, 1, 0, 1, 1, 0]);

export class SpatialTree extends SpatialObjects {
  readonly name = 'spatial tree';
  readonly levels: number;
  /** Cell edge per level and axis: cell[3 * l + a]. */
  private readonly cell: Float64Array;
  /** Cells per level and axis minus one (periodic), or -1 (open): wrapMask[3 * l + a]. */
  private readonly wrapMask: Int32Array;
  private readonly levelCount: Int32Array;
  /** 1 where a level's neighbours are distinct in both directions (open, or at least 3 cells per
   *  periodic axis), so that the half stencil sees every pair of cells once. */
  private readonly halfStencil: Uint8Array;
  private readonly head: Int32Array;
  private readonly hashMask: number;
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly bucket: Int32Array;
  private readonly level: Int32Array;
  private readonly cx: Int32Array;
  private readonly cy: Int32Array;
  private readonly cz: Int32Array;
  /** Scratch cell ranges (x0, x1, y0, y1, z0, z1) so the hot loops allocate nothing. */
  private readonly rng = new Float64Array(6);
  /** The live ids grouped by level: level l's are byLevel[levelStart[l] .. levelStart[l + 1]), and
   *  levelPos[id] is where id sits. A query that covers more cells of a level than the level has
   *  objects tests that level's objects directly, without scanning every object. */
  private readonly byLevel: Int32Array;
  private readonly levelPos: Int32Array;
  private readonly levelStart: Int32Array;
  /** Cells, one object's next to each other, for the open-domain query loop (with the objects'
   *  records: two cache lines a candidate instead of eleven arrays): cellOf[4 id ..] = level, cx,
   *  cy, cz. Written at every add. */
  private readonly cellOf: Int32Array;

  constructor(o: SpatialTreeOptions) {
    checkPositive('cellSize', o.cellSize);
    super(o);
    const p = [this.px, this.py, this.pz];
    let levels = MAX_LEVELS;
    if (this.periodic) {
      levels = 1;
      for (let a = 0; a < o.dim; a++) levels = Math.max(levels, Math.ceil(Math.log2(p[a] / o.cellSize)) + 1);
    }
    this.levels = levels;
    this.cell = new Float64Array(3 * levels);
    this.wrapMask = new Int32Array(3 * levels);
    for (let l = 0; l < levels; l++) {
      for (let a = 0; a < 3; a++) {
        if (this.periodic && a < o.dim) {
          // As many whole cells of at least cellSize * 2^l as fit in the period.
          const n = Math.max(1, Math.floor(p[a] / (o.cellSize * powInt(2, l))));
          this.cell[3 * l + a] = p[a] / n;
          this.wrapMask[3 * l + a] = n - 1;
        } else {
          this.cell[3 * l + a] = o.cellSize * powInt(2, l);
          this.wrapMask[3 * l + a] = a < o.dim ? -1 : 0;
        }
      }
    }
    this.levelCount = new Int32Array(levels);
    this.halfStencil = new Uint8Array(levels);
    for (let l = 0; l < levels; l++) {
      let ok = 1;
      for (let a = 0; a < o.dim; a++) if (this.wrapMask[3 * l + a] >= 0 && this.wrapMask[3 * l + a] < 2) ok = 0;
      this.halfStencil[l] = ok;
    }
    let size = 16;
    while (size < 2 * o.capacity) size *= 2;
    checkInteger('hash table size', size, 1, 0x8000_0000, '2^31');
    this.head = new Int32Array(size).fill(-1);
    this.hashMask = size - 1;
    this.next = new Int32Array(o.capacity);
    this.prev = new Int32Array(o.capacity);
    this.bucket = new Int32Array(o.capacity);
    this.level = new Int32Array(o.capacity);
    this.cx = new Int32Array(o.capacity);
    this.cy = new Int32Array(o.capacity);
    this.cz = new Int32Array(o.capacity);
    this.byLevel = new Int32Array(o.capacity);
    this.levelPos = new Int32Array(o.capacity);
    this.levelStart = new Int32Array(levels + 1);
    this.cellOf = new Int32Array(4 * o.capacity);
  }

  protected added(id: number): void {
    const l = this.levelFor(id);
    this.level[id] = l;
    this.levelCount[l]++;
    this.enterLevel(id, l);
    this.cx[id] = this.coord(this.x[id], l, 0);
    this.cy[id] = this.coord(this.y[id], l, 1);
    this.cz[id] = this.coord(this.z[id], l, 2);
    const b = this.hash(l, this.cx[id], this.cy[id], this.cz[id]);
    const h = this.head[b];
    this.next[id] = h;
    this.prev[id] = -1;
    if (h >= 0) this.prev[h] = id;
    this.head[b] = id;
    this.bucket[id] = b;
    const C = this.cellOf, k = 4 * id;
    C[k] = l; C[k + 1] = this.cx[id]; C[k + 2] = this.cy[id]; C[k + 3] = this.cz[id];
  }

  protected removed(id: number): void {
    const p = this.prev[id], nx = this.next[id];
    if (p >= 0) this.next[p] = nx; else this.head[this.bucket[id]] = nx;
    if (nx >= 0) this.prev[nx] = p;
    this.levelCount[this.level[id]]--;
    this.leaveLevel(id, this.level[id]);
  }

  /** Puts id at the end of level l's block, shifting each later block right by one slot (its
   *  first id moves to its end): O(levels). */
  private enterLevel(id: number, l: number): void {
    const start = this.levelStart, by = this.byLevel, pos = this.levelPos;
    let free = start[this.levels];
    for (let L = this.levels - 1; L > l; L--) {
      const s = start[L];
      if (free > s) { const moved = by[s]; by[free] = moved; pos[moved] = free; }
      free = s;
      start[L]++;
    }
    start[this.levels]++;
    by[free] = id;
    pos[id] = free;
  }

  /** Takes id out of level l's block (the block's last id takes its place), shifting each later
   *  block left by one slot (its last id moves to the slot before its first). */
  private leaveLevel(id: number, l: number): void {
    const start = this.levelStart, by = this.byLevel, pos = this.levelPos;
    let hole = start[l + 1] - 1;
    const last = by[hole], at = pos[id];
    by[at] = last; pos[last] = at;
    for (let L = l + 1; L < this.levels; L++) {
      const e = start[L + 1];
      if (e > start[L]) { const moved = by[e - 1]; by[hole] = moved; pos[moved] = hole; }
      start[L]--;
      hole = e - 1;
    }
    start[this.levels]--;
  }

  protected changed(id: number): void {
    const l = this.levelFor(id);
    if (l === this.level[id] && this.cx[id] === this.coord(this.x[id], l, 0) &&
        this.cy[id] === this.coord(this.y[id], l, 1) && this.cz[id] === this.coord(this.z[id], l, 2)) {
      return;
    }
    this.removed(id);
    this.added(id);
    this.counters.remaps++;
  }

  pairs(visit: PairVisitor): void {
    const ids = this.ids, c = this.counters;
    const stencil = this.dim === 3 ? HALF_STENCIL_3D : HALF_STENCIL_2D;
    for (let k = 0; k < this.n; k++) {
      const i = ids[k];
      const li = this.level[i];
      let m = li;
      if (this.halfStencil[li] === 1) {
        // Own level: the cell itself (ids above i) and the forward half of its neighbours, so each
        // pair of cells is compared from one side only.
        for (let s = 0; s < stencil.length; s += 3) {
          const self = s === 0;
          const ax = this.wrapCoord(this.cx[i] + stencil[s], 3 * li);
          const ay = this.wrapCoord(this.cy[i] + stencil[s + 1], 3 * li + 1);
          const az = this.wrapCoord(this.cz[i] + stencil[s + 2], 3 * li + 2);
          c.cellsVisited++;
          for (let j = this.head[this.hash(li, ax, ay, az)]; j >= 0; j = this.next[j]) {
            if (this.level[j] !== li || this.cx[j] !== ax || this.cy[j] !== ay || this.cz[j] !== az) continue;
            if (self && j <= i) continue;
            if (this.overlapsPair(i, j)) { c.pairsReported++; visit(i, j); }
          }
        }
        m++;
      }
      for (; m < this.levels; m++) {
        if (this.levelCount[m] === 0) continue;
        const w = 3 * m;
        const fx = Math.floor(this.x[i] / this.cell[w]), fy = Math.floor(this.y[i] / this.cell[w + 1]);
        const fz = this.dim === 3 ? Math.floor(this.z[i] / this.cell[w + 2]) : 0;
        const zr = this.dim === 3 ? 1 : 0;
        const r = this.rng;
        this.range(fx - 1, fx + 1, w, 0); this.range(fy - 1, fy + 1, w + 1, 2); this.range(fz - zr, fz + zr, w + 2, 4);
        const x0 = r[0], x1 = r[1], y0 = r[2], y1 = r[3], z0 = r[4], z1 = r[5];
        for (let X = x0; X <= x1; X++) {
          const ax = this.wrapCoord(X, w);
          for (let Y = y0; Y <= y1; Y++) {
            const ay = this.wrapCoord(Y, w + 1);
            for (let Z = z0; Z <= z1; Z++) {
              const az = this.wrapCoord(Z, w + 2);
              c.cellsVisited++;
              for (let j = this.head[this.hash(m, ax, ay, az)]; j >= 0; j = this.next[j]) {
                if (this.level[j] !== m || this.cx[j] !== ax || this.cy[j] !== ay || this.cz[j] !== az) continue;
                if (m === li && j <= i) continue;
                if (this.overlapsPair(i, j)) { c.pairsReported++; visit(i, j); }
              }
            }
          }
        }
      }
    }
  }

  protected scanQuery(visit: IdVisitor): void {
    const c = this.counters;
    for (let m = 0; m < this.levels; m++) {
      if (this.levelCount[m] === 0) continue;
      const w = 3 * m;
      // Objects of level m reach at most half a cell beyond their cell.
      const ex = this.qhx + this.cell[w] / 2, ey = this.qhy + this.cell[w + 1] / 2, ez = this.qhz + this.cell[w + 2] / 2;
      const r = this.rng;
      this.range(Math.floor((this.qx - ex) / this.cell[w]), Math.floor((this.qx + ex) / this.cell[w]), w, 0);
      this.range(Math.floor((this.qy - ey) / this.cell[w + 1]), Math.floor((this.qy + ey) / this.cell[w + 1]), w + 1, 2);
      if (this.dim === 3) this.range(Math.floor((this.qz - ez) / this.cell[w + 2]), Math.floor((this.qz + ez) / this.cell[w + 2]), w + 2, 4);
      else { r[4] = 0; r[5] = 0; }
      const x0 = r[0], x1 = r[1], y0 = r[2], y1 = r[3], z0 = r[4], z1 = r[5];
      if ((x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1) > this.levelCount[m]) {
        // More cells than objects on this level: test the level's objects directly.
        for (let k = this.levelStart[m], e = this.levelStart[m + 1]; k < e; k++) {
          const j = this.byLevel[k];
          if (this.overlapsQuery(j)) visit(j);
        }
        continue;
      }
      if (!this.periodic) { this.scanOpenLevel(m, x0, x1, y0, y1, z0, z1, visit); continue; }
      for (let X = x0; X <= x1; X++) {
        const ax = this.wrapCoord(X, w);
        for (let Y = y0; Y <= y1; Y++) {
          const ay = this.wrapCoord(Y, w + 1);
          for (let Z = z0; Z <= z1; Z++) {
            const az = this.wrapCoord(Z, w + 2);
            c.cellsVisited++;
            for (let j = this.head[this.hash(m, ax, ay, az)]; j >= 0; j = this.next[j]) {
              if (this.level[j] !== m || this.cx[j] !== ax || this.cy[j] !== ay || this.cz[j] !== az) continue;
              if (this.overlapsQuery(j)) visit(j);
            }
          }
        }
      }
    }
  }

  /** The cells [x0, x1] × [y0, y1] × [z0, z1] of level m in an open domain: no wrapping, and the
   *  hash (the same as hash()) summed row by row. The hot loop of event-driven runs. */
  private scanOpenLevel(m: number, x0: number, x1: number, y0: number, y1: number, z0: number, z1: number, visit: IdVisitor): void {
    const head = this.head, next = this.next, C = this.cellOf, S = this.record, mask = this.hashMask;
    const hl = Math.imul(m, 0xc2b2ae3d);
    // Box queries test box candidates inline (as overlapsQuery would); anything else goes through it.
    const box = !this.qSphere, qx = this.qx, qy = this.qy, qz = this.qz, qhx = this.qhx, qhy = this.qhy, qhz = this.qhz;
    let inline = 0;
    for (let X = x0; X <= x1; X++) {
      for (let Y = y0; Y <= y1; Y++) {
        const hxy = X + Math.imul(Y, 0x9e3779b1) + hl;
        for (let Z = z0; Z <= z1; Z++) {
          for (let j = head[(hxy + Math.imul(Z, 0x85ebca77)) & mask]; j >= 0; j = next[j]) {
            const c = 4 * j;
            if (C[c] !== m || C[c + 1] !== X || C[c + 2] !== Y || C[c + 3] !== Z) continue;
            const k = 8 * j;
            if (box && S[k + 6] === 0) {
              inline++;
              if (Math.abs(S[k] - qx) <= S[k + 3] + qhx && Math.abs(S[k + 1] - qy) <= S[k + 4] + qhy && Math.abs(S[k + 2] - qz) <= S[k + 5] + qhz) visit(j);
            } else if (this.overlapsQuery(j)) visit(j);
          }
        }
      }
    }
    this.counters.candidatesTested += inline;
    this.counters.cellsVisited += (x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1);
  }

  /** Finest level whose cells hold the object's box on every axis. */
  private levelFor(id: number): number {
    const dx = 2 * this.hx[id], dy = 2 * this.hy[id], dz = this.dim === 3 ? 2 * this.hz[id] : 0;
    for (let l = 0; l < this.levels; l++) {
      const w = 3 * l;
      if (dx <= this.cell[w] && dy <= this.cell[w + 1] && dz <= this.cell[w + 2]) return l;
    }
    throw new RangeError(`object ${id} is larger than the coarsest cell (${this.cell[3 * (this.levels - 1)]})`);
  }

  private coord(v: number, l: number, a: number): number {
    if (a >= this.dim) return 0;
    return this.wrapCoord(Math.floor(v / this.cell[3 * l + a]), 3 * l + a);
  }

  private wrapCoord(i: number, w: number): number {
    const m = this.wrapMask[w];
    if (m < 0) return i;
    const r = i % (m + 1);
    return r < 0 ? r + m + 1 : r;
  }

  /** Writes the index range [lo, hi] of an axis to rng[at], rng[at + 1]; a periodic range covering
   *  the whole axis becomes one copy of it, so no cell is visited twice. */
  private range(lo: number, hi: number, w: number, at: number): void {
    const m = this.wrapMask[w];
    const whole = m >= 0 && hi - lo >= m;
    this.rng[at] = whole ? 0 : lo;
    this.rng[at + 1] = whole ? m : hi;
  }

  /** Linear in x so that a row of neighbouring cells shares cache lines; large odd multipliers for
   *  y, z and the level spread the rows over the table. */
  private hash(l: number, x: number, y: number, z: number): number {
    return (x + Math.imul(y, 0x9e3779b1) + Math.imul(z, 0x85ebca77) + Math.imul(l, 0xc2b2ae3d)) & this.hashMask;
  }
}
