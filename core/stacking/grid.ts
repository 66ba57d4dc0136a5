/**
 * The overlap grid of the stacker: the seed's "grid method" (each cell lists the balls whose centre
 * lies in it, and a ball is tested only against the balls of the cells around it), on several
 * levels so that a wide gradation does not make the cells of the small balls as large as the
 * largest ball. Level l holds the balls of radius in (rMax / 2^(l+1), rMax / 2^l], in cells of
 * gid times its largest radius; a query visits on each level the cells within its reach plus that
 * level's largest radius.
 *
 * Flat typed arrays: one head per cell (all levels in one array), one link per ball, balls as
 * [x, y, z, r] in the stacker's position array. Periodic x/y wrap the cells and use the nearest
 * image of each ball (the region's periodic sides are at least five largest diameters, so the
 * nearest image is unique within any reach used here). Nothing is allocated after construction.
 *
 *   insert, remove: O(1) (remove walks the ball's cell list)
 *   query: O(cells within reach + balls in them), summed over the levels
 */
import { gridLevel, gridLevels } from './params';
import type { Region } from './region';
import { powInt, root } from '../common/power';

/** cellOrder scans every head while there are at most this many per ball, else sorts the balls' cells. */
const SCAN_HEADS_PER_BALL = 32;

export class LevelGrid {
  readonly levels: number;
  /** Largest radius of each level. */
  private readonly rTop: Float64Array;
  /** Cell size per level and axis ([3 l + a]). */
  private readonly size: Float64Array;
  /** Cells per level and axis ([3 l + a]). */
  private readonly cells: Int32Array;
  /** First head of each level. */
  private readonly offset: Int32Array;
  /** Balls per level. */
  private readonly population: Int32Array;
  private readonly head: Int32Array;
  private readonly next: Int32Array;
  private readonly cellOf: Int32Array;
  private readonly levelOfBall: Uint8Array;
  private readonly rMax: number;
  private readonly lx: number;
  private readonly ly: number;
  private readonly periodicX: boolean;
  private readonly periodicY: boolean;
  /** anyOverlap's one-ball output (the first ball found). */
  private readonly firstId = new Int32Array(1);
  private readonly firstPos = new Float64Array(4);
  /** Cells visited and balls tested, for the bench. */
  cellsVisited = 0;
  ballsTested = 0;

  constructor(
    private readonly pos: Float64Array,
    capacity: number,
    region: Region,
    rMax: number,
    rMin: number,
    gid: number,
    /** Two balls overlap when their surfaces interpenetrate by more than this. */
    private readonly tol: number,
    /** The most cells of each level (params gridLevelCells). */
    levelCells: ArrayLike<number>,
  ) {
    this.rMax = rMax;
    this.levels = gridLevels(rMax, rMin);
    this.lx = region.lx;
    this.ly = region.ly;
    this.periodicX = region.periodicX;
    this.periodicY = region.periodicY;
    const L = this.levels;
    this.rTop = new Float64Array(L);
    this.size = new Float64Array(3 * L);
    this.cells = new Int32Array(3 * L);
    this.offset = new Int32Array(L + 1);
    this.population = new Int32Array(L);
    const extent = [region.lx, region.ly, region.dim === 3 ? region.lz : 0];
    const periodic = [region.periodicX, region.periodicY, false];
    for (let l = 0; l < L; l++) {
      this.rTop[l] = rMax / powInt(2, l);
      let s = gid * this.rTop[l];
      // Coarser cells when the level would have more than levelCells.
      const volume = extent[0] * extent[1] * (region.dim === 3 ? extent[2] : 1);
      s = Math.max(s, root(volume / levelCells[l], region.dim) * 1.01);
      let total = 1;
      for (let a = 0; a < 3; a++) {
        let n: number, size: number;
        if (extent[a] === 0) {
          n = 1; size = 1;
        } else if (periodic[a]) {
          n = Math.max(1, Math.floor(extent[a] / s)); size = extent[a] / n; // cells tile the period
        } else {
          n = Math.max(1, Math.ceil(extent[a] / s)); size = s;
        }
        this.cells[3 * l + a] = n;
        this.size[3 * l + a] = size;
        total *= n;
      }
      this.offset[l + 1] = this.offset[l] + total;
    }
    this.head = new Int32Array(this.offset[L]).fill(-1);
    this.next = new Int32Array(capacity);
    this.cellOf = new Int32Array(capacity);
    this.levelOfBall = new Uint8Array(capacity);
  }

  /** Bytes of the grid's arrays. */
  get bytes(): number {
    return this.head.byteLength + this.next.byteLength + this.cellOf.byteLength + this.levelOfBall.byteLength;
  }

  private levelOf(r: number): number {
    return gridLevel(this.rMax, r, this.levels);
  }

  /** Cell index along an axis of a coordinate on level l (clamped into the grid). */
  private axisCell(l: number, a: number, v: number): number {
    const n = this.cells[3 * l + a];
    const c = Math.floor(v / this.size[3 * l + a]);
    return c < 0 ? 0 : c >= n ? n - 1 : c;
  }

  insert(id: number): void {
    const p = this.pos, o = 4 * id;
    const l = this.levelOf(p[o + 3]);
    const nx = this.cells[3 * l], ny = this.cells[3 * l + 1];
    const c = this.offset[l] + this.axisCell(l, 0, p[o]) + nx * (this.axisCell(l, 1, p[o + 1]) + ny * this.axisCell(l, 2, p[o + 2]));
    this.levelOfBall[id] = l;
    this.cellOf[id] = c;
    this.next[id] = this.head[c];
    this.head[c] = id;
    this.population[l]++;
  }

  remove(id: number): void {
    const c = this.cellOf[id];
    let j = this.head[c];
    if (j === id) {
      this.head[c] = this.next[id];
    } else {
      while (this.next[j] !== id) j = this.next[j];
      this.next[j] = this.next[id];
    }
    this.population[this.levelOfBall[id]]--;
  }

  /**
   * The balls 0 .. count - 1 in cell order (level by level, cells x fastest, each cell's list in
   * order): order[k] = the ball that becomes ball k when the stacker renumbers them. `cells` is
   * scratch of count entries. A grid of many more cells than balls is not scanned: its balls' cells
   * are sorted instead. A grid has the cells of the balls a run may hold (gridLevelCells), and the
   * stacker renumbers at every class, from its first balls on; before the levels' cells went by the
   * balls, a wide gradation had millions of them per level of small balls whatever the count (64
   * classes at 1:250 in a box of side 2: 9 levels, 5·10⁷ heads for 640 balls), which a scan at every
   * renumber read: 5 s of CPU for 640 balls. The scan stays where it reads less (a sort of n mostly
   * ordered cells costs about as much as a scan of 30 n heads).
   */
  cellOrder(order: Int32Array, count: number, cells: Int32Array): void {
    const head = this.head, next = this.next;
    let k = 0;
    if (head.length <= SCAN_HEADS_PER_BALL * count) {
      this.cellsVisited += head.length;
      for (let c = 0; c < head.length; c++) {
        for (let j = head[c]; j >= 0; j = next[j]) order[k++] = j;
      }
      return;
    }
    for (let id = 0; id < count; id++) cells[id] = this.cellOf[id];
    const sorted = cells.subarray(0, count).sort();
    for (let i = 0; i < count; i++) {
      const c = sorted[i];
      if (i > 0 && c === sorted[i - 1]) continue;
      this.cellsVisited++;
      for (let j = head[c]; j >= 0; j = next[j]) order[k++] = j;
    }
  }

  /**
   * Rebuilds the cell lists for balls 0 .. count - 1 (after the stacker renumbered them). Empties
   * only the cells that held balls (every ball is in the cell cellOf says, whatever its id now), not
   * every head: see cellOrder.
   */
  rebuild(count: number): void {
    for (let id = 0; id < count; id++) this.head[this.cellOf[id]] = -1;
    this.cellsVisited += count;
    this.population.fill(0);
    // Backwards, so that each cell lists its balls in increasing order (consecutive in memory).
    for (let id = count - 1; id >= 0; id--) this.insert(id);
  }

  /**
   * True when a ball of radius r at (x, y, z) interpenetrates a ball of the grid (other than
   * `exclude`) by more than the tolerance. Touching is allowed.
   */
  anyOverlap(x: number, y: number, z: number, r: number, exclude: number): boolean {
    return this.near(x, y, z, r, this.tol, exclude, this.firstId, this.firstPos, 1) > 0;
  }

  /**
   * Every ball j (other than `exclude`) whose surface is nearer than `gap` to the surface of a ball
   * of radius r at (x, y, z): ids into outIds, positions relative to (x, y, z) (nearest image) and
   * radii into outPos as [dx, dy, dz, r]. Stops at `max` balls (max >= 1); returns how many it wrote.
   */
  gather(x: number, y: number, z: number, r: number, gap: number, exclude: number, outIds: Int32Array, outPos: Float64Array, max: number): number {
    return this.near(x, y, z, r + gap, 0, exclude, outIds, outPos, max);
  }

  /**
   * The one search behind anyOverlap and gather: the balls j (other than `exclude`) with centre
   * distance below reach + r_j - shrink, written as gather describes, up to `max` (then it stops).
   */
  private near(x: number, y: number, z: number, reach: number, shrink: number, exclude: number, outIds: Int32Array, outPos: Float64Array, max: number): number {
    const p = this.pos, head = this.head, next = this.next;
    const lx = this.lx, ly = this.ly, hx = lx / 2, hy = ly / 2, px = this.periodicX, py = this.periodicY;
    let k = 0, cells = 0, tested = 0;
    search: for (let l = 0; l < this.levels; l++) {
      if (this.population[l] === 0) continue;
      const h = reach + this.rTop[l];
      const b = 3 * l, off = this.offset[l];
      const nx = this.cells[b], ny = this.cells[b + 1], nz = this.cells[b + 2];
      const sx = this.size[b], sy = this.size[b + 1], sz = this.size[b + 2];
      const h2 = h * h;
      let y0 = Math.floor((y - h) / sy), y1 = Math.floor((y + h) / sy);
      let z0 = Math.floor((z - h) / sz), z1 = Math.floor((z + h) / sz);
      // A periodic axis whose range covers every cell is scanned once, without culling.
      let allY = false;
      if (py) { if (y1 - y0 + 1 >= ny) { y0 = 0; y1 = ny - 1; allY = true; } } else { if (y0 < 0) y0 = 0; if (y1 >= ny) y1 = ny - 1; }
      if (z0 < 0) z0 = 0;
      if (z1 >= nz) z1 = nz - 1;
      for (let cz = z0; cz <= z1; cz++) {
        const gz = z < cz * sz ? cz * sz - z : z > (cz + 1) * sz ? z - (cz + 1) * sz : 0;
        for (let cy = y0; cy <= y1; cy++) {
          // Only the cells of this row that the reach sphere meets.
          const gy = allY ? 0 : y < cy * sy ? cy * sy - y : y > (cy + 1) * sy ? y - (cy + 1) * sy : 0;
          const w2 = h2 - gy * gy - gz * gz;
          if (w2 < 0) continue;
          const w = Math.sqrt(w2);
          let x0 = Math.floor((x - w) / sx), x1 = Math.floor((x + w) / sx);
          if (px) { if (x1 - x0 + 1 >= nx) { x0 = 0; x1 = nx - 1; } } else { if (x0 < 0) x0 = 0; if (x1 >= nx) x1 = nx - 1; }
          const wy = cy < 0 ? cy + ny : cy >= ny ? cy - ny : cy;
          const row = off + nx * (wy + ny * cz);
          for (let cx = x0; cx <= x1; cx++) {
            const wx = cx < 0 ? cx + nx : cx >= nx ? cx - nx : cx;
            cells++;
            for (let j = head[row + wx]; j >= 0; j = next[j]) {
              if (j === exclude) continue;
              tested++;
              const o = 4 * j;
              let dx = p[o] - x, dy = p[o + 1] - y;
              if (px) { if (dx > hx) dx -= lx; else if (dx < -hx) dx += lx; }
              if (py) { if (dy > hy) dy -= ly; else if (dy < -hy) dy += ly; }
              const dz = p[o + 2] - z;
              const s = reach + p[o + 3] - shrink;
              if (dx * dx + dy * dy + dz * dz < s * s) {
                outIds[k] = j;
                const q = 4 * k;
                outPos[q] = dx; outPos[q + 1] = dy; outPos[q + 2] = dz; outPos[q + 3] = p[o + 3];
                if (++k === max) break search;
              }
            }
          }
        }
      }
    }
    this.cellsVisited += cells;
    this.ballsTested += tested;
    return k;
  }
}
