/**
 * Interpenetration of the finished packing and the final settling pass.
 *
 * The packer tests moves with the reduced shell (seed §3.2): about half of the shell voxels, with
 * holes a rotated neighbour's shell can slip into, so that particles end up interpenetrating (by
 * about 2 voxels at 16 voxels a diameter). Both measure here use every solid voxel of every
 * particle at its exact rotation (exact.ts, as the finalisation writes them), inside the box.
 *
 * Depth of a pair: the extent, along the line joining the two particles' geometric centres, of the
 * centres of the voxels both claim (largest − smallest projection onto that line); 0 when they
 * share no voxel, or only voxels of one layer across that line. For voxelised spheres it follows
 * r1 + r2 − distance, the depth by which the ideal spheres overlap (the spheres example at 16
 * voxels a diameter: 0.16 voxels more on average over its 264 pairs that share voxels, 2.61 for
 * the deepest pair against 2.67).
 * The run's deepest interpenetration is the largest depth over all pairs, in voxels, and the
 * largest depth / volume-equivalent diameter of the smaller particle of a pair (from its solid
 * voxel count), as a fraction.
 *
 * Cost: each particle's exact voxels once (kept as runs along x: a 20-voxel sphere's 4,200 voxels
 * are about 350 runs), and per pair of neighbours (those whose reach overlaps) the runs of one
 * against the rows of the other: the projection onto the line of the centres is monotonic along a
 * run, so the ends of the shared part of two runs give its lowest and highest projection exactly.
 * In proportion to the particles' rows times their neighbours (about 6 in a dense bed of spheres),
 * never to the box.
 *
 * The settling pass (`finalSettling`): particles in a pair deeper than one voxel are moved, their
 * rotation kept, by one voxel on each axis (the packer's 26 moves; the 98 of two voxels when none
 * of those helps) to where their largest excess depth (depth − 1) over their neighbours, then
 * its sum, then the voxels they share is least, preferring a move down; a move is taken only when
 * it lowers them, never puts more of the particle below the floor or above a ceiling, and is
 * tested with every solid voxel (not the reduced shell). The upper particle of a pair first, then
 * the lower; when neither can move without deepening another pair (caged in a dense bed), the
 * upper one is pushed up off the lower, counting only the particles below it, and those above it
 * that it then presses into deeper than one voxel are pushed in their turn in the same round (the
 * bed dilates a little); a pushed particle no longer moves down (else it slips back into the hole
 * it was pushed out of and the pass cycles). Rounds until no pair is deeper than one voxel, no
 * move helps, or MAX_ROUNDS; pairs left deeper are counted (deepPairs, and a line in the run's
 * log). Then the moved particles sink back, one voxel down at a time, into room the pass made:
 * only where no pair of theirs gets deeper than one voxel and they share no more voxels with
 * their neighbours (else spheres sink into that one voxel layer by layer: 0.648 instead of
 * 0.620 on the spheres example). Serial, after the packing: the
 * same for every thread count, and checkpoints (taken while packing) are untouched.
 */
import type { Packer } from './packer';
import type { AnalysisProgress } from '../analysis/index';
import { ExactVoxels, rotatePoint } from './exact';
import { centreInBox, clearShellCube } from './finalise';

/** Rounds of the settling pass at most (a round moves each particle at most once). */
export const MAX_ROUNDS = 50;
/** Integers of solid-voxel offsets the pass keeps (128 MiB). */
const CACHE_INTS = 1 << 25;
/** Largest move of the pass per axis (voxels). */
const STEP = 2;
/** Depths within this of one voxel count as one voxel (projections are floating point). */
const EPS = 1e-9;
/**
 * Most particles (each measured, moved or tried) between progress reports: each costs the exact
 * voxels of it and its neighbours, so a report costs nothing beside them.
 */
const PROGRESS_EVERY = 64;

/**
 * Items of a part of `total` between progress reports (and looks at `stop`): a hundredth of it, at
 * least one, at most PROGRESS_EVERY. Every 64 alone, a round of fewer deep pairs (most rounds: 36,
 * 18, 8, 2 on the spheres example) reported only its 0, and the queue read '0 %' for the whole pass.
 */
function progressStride(total: number): number {
  return Math.max(1, Math.min(PROGRESS_EVERY, Math.floor(total / 100)));
}
/** No progress wanted (tests, the bench). */
const noProgress: AnalysisProgress = () => {};

export interface Interpenetration {
  /** Deepest interpenetration of a pair (voxels); 0 when no two particles share a voxel. */
  voxels: number;
  /** Largest depth / volume-equivalent diameter of the smaller particle of its pair. */
  fraction: number;
  /** Pairs of particles sharing at least one voxel. */
  pairs: number;
  /** Pairs deeper than one voxel. */
  deepPairs: number;
}

export interface Settled {
  /** The packing as packed. */
  before: Interpenetration;
  /** After the settling pass. */
  after: Interpenetration;
  /** Moves the pass made. */
  moves: number;
  rounds: number;
  /** Whether it ended with pairs deeper than one voxel that no move of one particle helps (else, with some left, the rounds ran out). */
  stuck: boolean;
  /** Moves down of the sinking after the rounds (in `moves` too). */
  sunk: number;
  /** Particles the rounds moved (only these sink afterwards). */
  movedParticles: number;
}

/** Where the particles are and who is near whom: a grid of cells over their reference voxels. */
class Neighbourhood {
  /** Particles considered (in the box at the end of the packing), ascending. */
  readonly ids: Int32Array;
  /** Largest reach (voxels) of a solid voxel from its particle's reference voxel, per shape. */
  readonly reach: Int32Array;
  readonly maxReach: number;
  /** Largest distance of a solid voxel from its particle's reference voxel, per shape. */
  readonly radius: Float64Array;
  /** Reference-voxel offset to the geometric centre, per particle (rotated shape centre). */
  readonly cx: Float64Array;
  readonly cy: Float64Array;
  readonly cz: Float64Array;
  private gx = 1;
  private gy = 1;
  private gz = 1;
  private start = new Int32Array(0);
  private members = new Int32Array(0);
  private readonly cells: number[] = [];

  constructor(readonly packer: Packer) {
    const p = packer, ids: number[] = [];
    for (let i = 0; i < p.count; i++) if (centreInBox(p, i)) ids.push(i);
    this.ids = Int32Array.from(ids);
    // Every solid voxel lies within maxRadius + √3/2 of the reference voxel: extent + 1 holds it.
    this.reach = Int32Array.from(p.shapes, (v) => Math.ceil(v.maxRadius + 0.5) + 1);
    this.radius = Float64Array.from(p.shapes, (v) => v.maxRadius + Math.sqrt(3) / 2);
    this.maxReach = Math.max(0, ...this.reach);
    this.cx = new Float64Array(p.count);
    this.cy = new Float64Array(p.count);
    this.cz = new Float64Array(p.count);
    for (const i of ids) {
      const v = p.shapes[p.shape[i]];
      [this.cx[i], this.cy[i], this.cz[i]] = rotatePoint(v.centre[0], v.centre[1], v.centre[2], p.ax[i], p.ay[i], p.az[i]);
    }
    this.rebuild();
  }

  /**
   * Sorts the particles into cells at least 2·maxReach + 4 wide: two particles whose solid voxels
   * can meet, after each moved by one voxel on each axis since the last rebuild and one of them
   * by one more in a trial, lie in neighbouring cells.
   */
  rebuild(): void {
    const p = this.packer, w = 2 * this.maxReach + 6;
    this.gx = Math.max(1, Math.floor(p.nx / w));
    this.gy = Math.max(1, Math.floor(p.ny / w));
    this.gz = Math.max(1, Math.ceil(p.matrix.nz / w) + 1);
    const cells = this.gx * this.gy * this.gz;
    this.start = new Int32Array(cells + 1);
    this.members = new Int32Array(this.ids.length);
    for (const i of this.ids) this.start[this.cellOf(i) + 1]++;
    for (let c = 0; c < cells; c++) this.start[c + 1] += this.start[c];
    const fill = this.start.slice(0, cells);
    for (const i of this.ids) this.members[fill[this.cellOf(i)]++] = i;
  }

  private cellX(x: number): number { return Math.min(this.gx - 1, Math.floor((x * this.gx) / this.packer.nx)); }
  private cellY(y: number): number { return Math.min(this.gy - 1, Math.floor((y * this.gy) / this.packer.ny)); }
  private cellZ(z: number): number { return Math.min(this.gz - 1, Math.max(0, Math.floor(z / (2 * this.maxReach + 6)))); }
  private cellOf(i: number): number {
    const p = this.packer;
    return this.cellX(p.px[i]) + this.gx * (this.cellY(p.py[i]) + this.gy * this.cellZ(p.pz[i]));
  }

  /**
   * The particles j ≠ i whose solid voxels may come within `margin` voxels of i's on each axis
   * (by their radius), in ascending cell and member order (each once: the cells are distinct).
   */
  near(i: number, margin: number, out: number[]): void {
    out.length = 0;
    const p = this.packer, cx = this.cellX(p.px[i]), cy = this.cellY(p.py[i]), cz = this.cellZ(p.pz[i]);
    const cells = this.cells;
    cells.length = 0;
    for (let c = -1; c <= 1; c++) {
      const z = cz + c;
      if (z < 0 || z >= this.gz) continue;
      for (let b = -1; b <= 1; b++) {
        const y = (cy + b + this.gy) % this.gy;
        for (let a = -1; a <= 1; a++) {
          const cell = ((cx + a + this.gx) % this.gx) + this.gx * (y + this.gy * z);
          if (!cells.includes(cell)) cells.push(cell);
        }
      }
    }
    cells.sort((a, b) => a - b);
    const ri = this.radius[p.shape[i]] + margin * Math.sqrt(3) + 1e-9;
    for (const cell of cells) {
      for (let k = this.start[cell]; k < this.start[cell + 1]; k++) {
        const j = this.members[k];
        if (j === i) continue;
        const r = ri + this.radius[p.shape[j]];
        if (Math.hypot(this.dx(i, j), this.dy(i, j), p.pz[j] - p.pz[i]) <= r) out.push(j);
      }
    }
  }

  /** Reference voxel of j less that of i along x, to the nearest periodic image. */
  dx(i: number, j: number): number {
    const n = this.packer.nx;
    let d = this.packer.px[j] - this.packer.px[i];
    if (d > n / 2) d -= n; else if (d < -n / 2) d += n;
    return d;
  }

  dy(i: number, j: number): number {
    const n = this.packer.ny;
    let d = this.packer.py[j] - this.packer.py[i];
    if (d > n / 2) d -= n; else if (d < -n / 2) d += n;
    return d;
  }
}

/**
 * Runs along x of solid voxels, indexed by row (y, z) within ±h of a particle's reference voxel:
 * one particle's (contacts) or several neighbours' (improve, each run with its neighbour's layer).
 */
class Rows {
  h = 0;
  side = 1;
  /** Row r's runs are first[r] .. first[r + 1] - 1 of x0, x1, layer. */
  first = new Int32Array(0);
  x0 = new Int32Array(0);
  x1 = new Int32Array(0);
  layer = new Int32Array(0);
  private total = 0;
  /** add() while counting: one more run in row r. */
  private readonly countRun = (r: number): void => {
    this.first[r + 1]++;
    this.total++;
  };
  /** add() while filling: first[r] is row r's next free slot. */
  private readonly putRun = (r: number, x0: number, x1: number, layer: number): void => {
    const k = this.first[r]++;
    this.x0[k] = x0;
    this.x1[k] = x1;
    this.layer[k] = layer;
  };

  /**
   * The table of rows within ±h: `each` calls add(row, x0, x1, layer) for every run (with row() of
   * this table), twice: once to count the runs of each row, once to place them.
   */
  build(h: number, each: (add: (r: number, x0: number, x1: number, layer: number) => void) => void): void {
    this.h = h;
    this.side = 2 * h + 1;
    const rows = this.side * this.side;
    if (this.first.length < rows + 1) this.first = new Int32Array(rows + 1);
    else this.first.fill(0, 0, rows + 1);
    this.total = 0;
    each(this.countRun);
    // Counts into starts: first[r] is then row r's first slot, filled up to the next row's start.
    const f = this.first;
    for (let r = 0; r < rows; r++) f[r + 1] += f[r];
    if (this.x0.length < this.total) {
      this.x0 = new Int32Array(2 * this.total);
      this.x1 = new Int32Array(2 * this.total);
      this.layer = new Int32Array(2 * this.total);
    }
    each(this.putRun);
    // Filling moved each row's start to the next row's: back by one row.
    for (let r = rows; r > 0; r--) f[r] = f[r - 1];
    f[0] = 0;
  }

  /** Row index of (y, z), or -1 outside ±h. */
  row(y: number, z: number): number {
    const h = this.h;
    if (y < -h || y > h || z < -h || z > h) return -1;
    return y + h + this.side * (z + h);
  }
}

/** Running depth of one pair: the voxels both claim, projected onto the line of their centres. */
interface PairDepth { n: number; lo: number; hi: number; ux: number; uy: number; uz: number }

function depthOf(d: PairDepth): number {
  return d.n === 0 ? 0 : d.hi - d.lo;
}

/** Sets d's line to the unit vector from centre a to centre b (z up when they coincide) and empties it. */
function startPair(d: PairDepth, x: number, y: number, z: number): void {
  const len = Math.hypot(x, y, z);
  if (len === 0) { d.ux = 0; d.uy = 0; d.uz = 1; } else { d.ux = x / len; d.uy = y / len; d.uz = z / len; }
  d.n = 0;
  d.lo = Infinity;
  d.hi = -Infinity;
}

/**
 * Claims the voxels x0..x1 of row (y, z): the projection grows or falls monotonically along x
 * (rounding is monotonic), so the ends give the lowest and highest of the run exactly.
 */
function claimRun(d: PairDepth, x0: number, x1: number, y: number, z: number): void {
  const a = x0 * d.ux + y * d.uy + z * d.uz, b = x1 * d.ux + y * d.uy + z * d.uz;
  d.n += x1 - x0 + 1;
  if (a < d.lo) d.lo = a;
  if (a > d.hi) d.hi = a;
  if (b < d.lo) d.lo = b;
  if (b > d.hi) d.hi = b;
}

/** Whether (most, excess, shared) is less than best, in that order (depths within EPS equal). */
function better(most: number, excess: number, shared: number, best: number[]): boolean {
  if (most < best[0] - EPS) return true;
  if (most > best[0] + EPS) return false;
  if (excess < best[1] - EPS) return true;
  if (excess > best[1] + EPS) return false;
  return shared < best[2];
}

/** The deepest interpenetration of the pairs' depths and smaller diameters. */
function deepest(depths: Map<number, number>, diameters: Map<number, number>): Interpenetration {
  let voxels = 0, fraction = 0, deepPairs = 0;
  for (const [key, depth] of depths) {
    voxels = Math.max(voxels, depth);
    fraction = Math.max(fraction, depth / diameters.get(key)!);
    if (depth > 1 + EPS) deepPairs++;
  }
  return { voxels, fraction, pairs: depths.size, deepPairs };
}

/** The measure and the settling pass over one finished packer. */
class Settler {
  private readonly exact = new ExactVoxels();
  /**
   * Particles' solid voxels as runs (z, y, x0, x1) in (z, y, x) order (offsets from the reference
   * voxel: moves keep them), the most recent up to CACHE_INTS integers; a particle is met once as
   * itself and again by each neighbour.
   */
  private readonly cache = new Map<number, Int32Array>();
  private cached = 0;
  /** Solid voxels per particle (0: not counted yet). */
  private readonly solid: Int32Array;
  private readonly rows = new Rows();
  private readonly hood: Neighbourhood;
  private readonly list: number[] = [];
  private readonly pair: PairDepth = { n: 0, lo: 0, hi: 0, ux: 0, uy: 0, uz: 1 };
  /** Particles whose packing shell the pass cleared from the matrix. */
  private readonly cleared: Uint8Array;
  /**
   * Particles the pass pushed up: they no longer move down. Without it a pushed particle slips
   * back into the hole it was pushed out of a round later and is pushed again, for ever (plates
   * and ellipsoids did, until the round cap).
   */
  private readonly raised: Uint8Array;

  constructor(private readonly p: Packer) {
    this.hood = new Neighbourhood(p);
    this.cleared = new Uint8Array(p.count);
    this.raised = new Uint8Array(p.count);
    this.solid = new Int32Array(p.count);
  }

  /** Particle i's solid voxels as runs: (z, y, x0, x1) offsets from its reference voxel. */
  private runsOf(i: number): Int32Array {
    let v = this.cache.get(i);
    if (v !== undefined) return v;
    const p = this.p, n = this.exact.of(p.shapes[p.shape[i]], p.ax[i], p.ay[i], p.az[i]);
    v = this.exact.runs.slice(0, 4 * this.exact.runCount);
    this.solid[i] = n;
    this.cache.set(i, v);
    this.cached += v.length;
    // The oldest go first (the sweeps run in index order, about bottom to top).
    for (const [k, old] of this.cache) {
      if (this.cached <= CACHE_INTS) break;
      this.cache.delete(k);
      this.cached -= old.length;
    }
    return v;
  }

  /** Volume-equivalent diameter (voxels) of particle i's solid voxels. */
  private diameterOf(i: number): number {
    if (this.solid[i] === 0) this.runsOf(i);
    return Math.cbrt((6 * this.solid[i]) / Math.PI);
  }

  /**
   * Depths of particle i against its neighbours (all of them, or only those after it in index
   * order), each pair that shares a voxel given to visit(j, depth).
   */
  contacts(i: number, later: boolean, visit: (j: number, depth: number) => void): void {
    const p = this.p, hood = this.hood, rows = this.rows, nz = p.nz;
    const own = this.runsOf(i);
    // i's runs inside the box by row (all lie within ±reach of its reference voxel).
    rows.build(hood.reach[p.shape[i]], (add) => {
      for (let k = 0; k < own.length; k += 4) {
        const gz = p.pz[i] + own[k], r = rows.row(own[k + 1], own[k]);
        if (gz >= 0 && gz < nz && r >= 0) add(r, own[k + 2], own[k + 3], 0);
      }
    });
    const first = rows.first, rx0 = rows.x0, rx1 = rows.x1;
    hood.near(i, 0, this.list);
    const d = this.pair;
    for (const j of this.list) {
      if (later && j < i) continue;
      const ox = hood.dx(i, j), oy = hood.dy(i, j), oz = p.pz[j] - p.pz[i];
      startPair(d, ox + hood.cx[j] - hood.cx[i], oy + hood.cy[j] - hood.cy[i], oz + hood.cz[j] - hood.cz[i]);
      const v = this.runsOf(j);
      for (let k = 0; k < v.length; k += 4) {
        const y = oy + v[k + 1], z = oz + v[k], r = rows.row(y, z);
        if (r < 0) continue;
        const a = ox + v[k + 2], b = ox + v[k + 3];
        for (let e = first[r], last = first[r + 1]; e < last; e++) {
          const lo = a > rx0[e] ? a : rx0[e], hi = b < rx1[e] ? b : rx1[e];
          if (lo <= hi) claimRun(d, lo, hi, y, z);
        }
      }
      if (d.n > 0) visit(j, depthOf(d));
    }
  }

  /**
   * Every pair that shares a voxel (key i · count + j, i < j): its depth in `depths`, the smaller
   * volume-equivalent diameter of the two in `diameters`. Progress: particles measured of all.
   * False when `stop` said stop (asked at each progress report).
   */
  allPairs(depths: Map<number, number>, diameters: Map<number, number>, progress: AnalysisProgress, part: string, stop: () => boolean = () => false): boolean {
    const total = this.p.count, ids = this.hood.ids, stride = progressStride(ids.length);
    for (let k = 0; k < ids.length; k++) {
      if (k % stride === 0) {
        if (stop()) return false;
        progress(k, ids.length, part);
      }
      const i = ids[k];
      this.contacts(i, true, (j, depth) => {
        depths.set(i * total + j, depth);
        diameters.set(i * total + j, Math.min(this.diameterOf(i), this.diameterOf(j)));
      });
    }
    return true;
  }

  /** The deepest interpenetration over all pairs. */
  measure(progress: AnalysisProgress): Interpenetration {
    const depths = new Map<number, number>(), diameters = new Map<number, number>();
    this.allPairs(depths, diameters, progress, 'measuring interpenetration');
    return deepest(depths, diameters);
  }

  /**
   * The settling pass (see the module comment). Progress from 0 in each part: the particles
   * measured, then each round's pairs deeper than one voxel gone through, then each sinking round's
   * particles, the part naming the round and how many it has. Each round is its own scale, so the
   * time left is that of the round (the first takes most of the pass). Against the bound of
   * MAX_ROUNDS it was the time of 50 rounds, though passes end after 2 to 12; nor do the deep pairs
   * per round tell how many come (15, 8, 4, 4, 4 for the ellipsoids of settle.test; 37, 33, 19, 6,
   * 4, 4, 3, 1 for its plates), so the part shows them and makes no guess.
   */
  settle(stop: () => boolean, progress: AnalysisProgress): Settled | null {
    const p = this.p, total = p.count, deep = new Map<number, number>();
    // Every sharing pair's depth, kept up to date: pairs change only with a moved particle.
    const depths = new Map<number, number>(), diameters = new Map<number, number>();
    // A cancel is asked at every progress report, not only between rounds: at 1024³ the measuring
    // and a round each take minutes, and a cancelled run must stop as soon as it can.
    if (!this.allPairs(depths, diameters, progress, 'measuring overlaps', stop)) return null;
    const before = deepest(depths, diameters);
    for (const [key, depth] of depths) if (depth > 1 + EPS) deep.set(key, depth);
    /** Only pairs with a moved particle change: theirs are measured again. */
    const refresh = (moved: number[]): void => {
      this.hood.rebuild();
      const isMoved = new Set(moved);
      for (const key of [...depths.keys()]) {
        const i = Math.floor(key / total);
        if (!isMoved.has(i) && !isMoved.has(key - i * total)) continue;
        depths.delete(key);
        diameters.delete(key);
        deep.delete(key);
      }
      for (const m of moved) {
        this.contacts(m, false, (j, depth) => {
          const key = Math.min(m, j) * total + Math.max(m, j);
          depths.set(key, depth);
          diameters.set(key, Math.min(this.diameterOf(m), this.diameterOf(j)));
          if (depth > 1 + EPS) deep.set(key, depth);
        });
      }
    };
    const movedAt = new Int32Array(total).fill(-1);
    // Whether a particle's neighbourhood changed since a move of it (a push: `push`) last failed to help.
    const stale = new Uint8Array(total).fill(1), push = new Uint8Array(total).fill(1), around: number[] = [];
    let moves = 0, rounds = 0, stuck = false;
    while (deep.size > 0 && rounds < MAX_ROUNDS) {
      const keys = [...deep.keys()].sort((a, b) => a - b), moved: number[] = [];
      const part = `round ${rounds + 1} of up to ${MAX_ROUNDS}, ${keys.length} deep pairs`;
      const record = (k: number): void => {
        movedAt[k] = rounds;
        moved.push(k);
        moves++;
        this.hood.near(k, STEP, around);
        for (const a of around) stale[a] = push[a] = 1;
      };
      for (let n = 0, stride = progressStride(keys.length); n < keys.length; n++) {
        if (n % stride === 0) {
          if (stop()) return null;
          progress(n, keys.length, part);
        }
        const key = keys[n], i = Math.floor(key / total), j = key - i * total;
        if (movedAt[i] === rounds || movedAt[j] === rounds) continue;
        // The upper particle of the pair first (the lower one carries it), then the lower; when
        // neither can move without deepening another pair, the upper one is pushed up off the
        // lower (only the particles below it count), and those above it follow (pushed at once).
        const [first, second] = p.pz[j] > p.pz[i] || (p.pz[j] === p.pz[i] && j > i) ? [j, i] : [i, j];
        for (const [m, upward] of [[first, false], [second, false], [first, true]] as const) {
          if (upward ? stale[first] !== 0 || push[first] === 0 : stale[m] === 0) continue;
          if (!this.improve(m, upward ? 'push' : 'settle')) {
            (upward ? push : stale)[m] = 0;
            continue;
          }
          record(m);
          // Those above a pushed particle that it now presses into deeper than one voxel are pushed
          // up in turn, at once: the dilation climbs the column in one round, not one a round.
          for (const queue = upward ? [m] : []; queue.length > 0;) {
            const q = queue.pop()!, above: number[] = [];
            this.contacts(q, false, (k, depth) => {
              if (depth > 1 + EPS && movedAt[k] !== rounds && (p.pz[k] > p.pz[q] || (p.pz[k] === p.pz[q] && k > q))) above.push(k);
            });
            for (const k of above) {
              if (movedAt[k] === rounds || !this.improve(k, 'push')) continue;
              record(k);
              queue.push(k);
            }
          }
          break;
        }
      }
      rounds++;
      if (moved.length === 0) {
        stuck = true;
        break;
      }
      refresh(moved);
    }
    const sunk = this.sink(movedAt, refresh, stop, progress);
    if (sunk < 0) return null;
    const after = deepest(depths, diameters);
    let movedParticles = 0;
    for (let i = 0; i < total; i++) if (movedAt[i] >= 0) movedParticles++;
    return { before, after, moves: moves + sunk, rounds, stuck, sunk, movedParticles };
  }

  /**
   * Sinking, after the rounds: the pass dilated the bed (pushes, particles moved off their
   * neighbours). Each particle it moved, lowest first, moves down by one voxel (of the 9 moves
   * down) where all its pairs stay within one voxel; then, of those it moved, the ones around the
   * ones that sank, in rounds until none can (at most MAX_ROUNDS). No pair gets deeper than one
   * voxel. Particles the rounds did not move stay: a packed bed has many that could drop a voxel
   * (at 256² × 128, 353 of 792 spheres sank against 40 moves of the rounds), and letting them
   * cascade re-settled the whole bed (the 1024³ fill's pass: 529 s against 278 s of packing).
   */
  private sink(movedAt: Int32Array, refresh: (moved: number[]) => void, stop: () => boolean, progress: AnalysisProgress): number {
    const p = this.p, ids = this.hood.ids, restless = new Uint8Array(p.count), around: number[] = [];
    for (const i of ids) if (movedAt[i] >= 0) restless[i] = 1;
    let sunk = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const order = ids.filter((i) => restless[i] !== 0).sort((a, b) => p.pz[a] - p.pz[b] || a - b), moved: number[] = [];
      restless.fill(0);
      const part = `sinking, round ${round + 1} of up to ${MAX_ROUNDS}, ${order.length} particles`;
      for (let n = 0, stride = progressStride(order.length); n < order.length; n++) {
        if (n % stride === 0) {
          if (stop()) return -1;
          progress(n, order.length, part);
        }
        const m = order[n];
        if (!this.improve(m, 'sink')) continue;
        moved.push(m);
        this.hood.near(m, STEP, around);
        restless[m] = 1;
        for (const k of around) if (movedAt[k] >= 0) restless[k] = 1;
      }
      if (moved.length === 0) break;
      sunk += moved.length;
      refresh(moved);
    }
    return sunk;
  }

  /**
   * Moves particle m by one voxel on each axis (of the 26 moves, or none; else two) to where its
   * largest excess depth over its neighbours (depth − 1 voxel), then their sum, then the voxels it
   * shares with them, is least ('push': a move up, over the neighbours below it only; 'sink': a
   * move down by one voxel that leaves no pair of m deeper than one voxel, the one sharing the
   * fewest voxels); true when it moved.
   */
  private improve(m: number, mode: 'settle' | 'push' | 'sink'): boolean {
    const p = this.p, hood = this.hood, nz = p.nz, ceiling = p.params.box.top === 'ceiling';
    const near: number[] = [];
    hood.near(m, STEP, this.list);
    near.push(...this.list);
    if (mode === 'push') {
      // Only the particles below m (it rests on them) count: those above are pushed up in turn.
      const pz = p.pz[m];
      const below = near.filter((k) => p.pz[k] < pz || (p.pz[k] === pz && k < m));
      near.length = 0;
      near.push(...below);
    }
    const layers = near.length;
    if (layers === 0) return false;
    // Each neighbour's runs inside the box by row of m's frame (its layer with each), within
    // ±(reach + STEP) of m's reference voxel: m's runs moved by at most STEP stay inside that.
    const h = hood.reach[p.shape[m]] + STEP, rows = this.rows, pz = p.pz[m];
    const ox = new Float64Array(layers), oy = new Float64Array(layers), oz = new Float64Array(layers);
    const dxs = new Int32Array(layers), dys = new Int32Array(layers);
    for (let l = 0; l < layers; l++) {
      const j = near[l];
      dxs[l] = hood.dx(m, j);
      dys[l] = hood.dy(m, j);
      ox[l] = dxs[l] + hood.cx[j] - hood.cx[m];
      oy[l] = dys[l] + hood.cy[j] - hood.cy[m];
      oz[l] = p.pz[j] - p.pz[m] + hood.cz[j] - hood.cz[m];
    }
    rows.build(h, (add) => {
      for (let l = 0; l < layers; l++) {
        const j = near[l], v = this.runsOf(j), dz = p.pz[j] - pz;
        for (let k = 0; k < v.length; k += 4) {
          const gz = p.pz[j] + v[k], r = rows.row(dys[l] + v[k + 1], dz + v[k]);
          if (gz >= 0 && gz < nz && r >= 0) add(r, dxs[l] + v[k + 2], dxs[l] + v[k + 3], l);
        }
      }
    });
    const first = rows.first, rx0 = rows.x0, rx1 = rows.x1, rl = rows.layer, side = rows.side;
    const own = this.runsOf(m);
    const pairs: PairDepth[] = near.map(() => ({ n: 0, lo: 0, hi: 0, ux: 0, uy: 0, uz: 1 }));
    /** Excess depth, shared voxels and voxels outside the box of m moved by (sx, sy, sz). */
    const score = (sx: number, sy: number, sz: number): [number, number, number, number] => {
      for (let l = 0; l < layers; l++) startPair(pairs[l], ox[l] - sx, oy[l] - sy, oz[l] - sz);
      let outside = 0;
      for (let k = 0; k < own.length; k += 4) {
        const z = own[k] + sz, gz = pz + z;
        if (gz < 0 || gz >= nz) {
          if (gz < 0 || ceiling) outside += own[k + 3] - own[k + 2] + 1;
          continue;
        }
        const y = own[k + 1] + sy, r = y + h + side * (z + h), a = own[k + 2] + sx, b = own[k + 3] + sx;
        for (let e = first[r], last = first[r + 1]; e < last; e++) {
          const lo = a > rx0[e] ? a : rx0[e], hi = b < rx1[e] ? b : rx1[e];
          if (lo <= hi) claimRun(pairs[rl[e]], lo, hi, y, z);
        }
      }
      let most = 0, excess = 0, shared = 0;
      for (const d of pairs) {
        const e = Math.max(0, depthOf(d) - 1);
        most = Math.max(most, e);
        excess += e;
        shared += d.n;
      }
      return [most, excess, shared, outside];
    };
    const [most0, excess0, shared0, outside0] = score(0, 0, 0);
    if (most0 <= EPS && mode !== 'sink') return false;
    // Sinking takes a move down without excess that shares no more voxels with the neighbours
    // (into room the pass made, not deeper into the one voxel a pair may share).
    let best = mode === 'sink' ? [0, 0, shared0 + 1] : [most0, excess0, shared0], bx = 0, by = 0, bz = 0;
    // The 26 moves of one voxel first, the 98 of two only when none of those helps; within a ring,
    // down before level before up (settling), then a fixed order.
    for (let ring = 1; ring <= (mode === 'sink' ? 1 : STEP) && bx === 0 && by === 0 && bz === 0; ring++) {
      for (let sz = -ring; sz <= ring; sz++) for (let sy = -ring; sy <= ring; sy++) for (let sx = -ring; sx <= ring; sx++) {
        if (Math.max(Math.abs(sx), Math.abs(sy), Math.abs(sz)) !== ring) continue;
        // Its reference voxel stays in the box (the result keeps particles centred inside it).
        if (p.pz[m] + sz >= nz) continue;
        // A pushed particle goes up (sideways it would press unseen into those above it, which a
        // push ignores) and stays up (else it slips back into its hole and the pass cycles).
        if (mode === 'sink' ? sz !== -1 : sz < 0 && this.raised[m] !== 0) continue;
        if (mode === 'push' && sz <= 0) continue;
        const [most, excess, shared, outside] = score(sx, sy, sz);
        if (outside > outside0) continue;
        if (better(most, excess, shared, best)) {
          best = [most, excess, shared];
          bx = sx; by = sy; bz = sz;
        }
      }
    }
    if (bx === 0 && by === 0 && bz === 0) return false;
    // The packing matrix: the shell m was packed with goes before it first moves (finalise
    // clears only around where particles end).
    if (this.cleared[m] === 0) {
      clearShellCube(p, m);
      this.cleared[m] = 1;
    }
    p.px[m] = (p.px[m] + bx + p.nx) % p.nx;
    p.py[m] = (p.py[m] + by + p.ny) % p.ny;
    p.pz[m] += bz;
    if (mode === 'push') this.raised[m] = 1;
    return true;
  }
}

/** The run log's line when pairs stay deeper than one voxel after the pass; null when none do. */
export function settlingNote(s: Settled): string | null {
  if (s.after.deepPairs === 0) return null;
  const why = s.stuck ? 'no move of one particle helps' : `the ${MAX_ROUNDS} rounds ran out`;
  return `final settling: ${s.after.deepPairs} pair(s) remain deeper than one voxel (deepest ${s.after.voxels.toFixed(2)} voxels): ${why}`;
}

/**
 * The deepest interpenetration of the packing as it stands; progress: the particles measured of
 * all (part 'measuring interpenetration').
 */
export function interpenetration(packer: Packer, progress: AnalysisProgress = noProgress): Interpenetration {
  return new Settler(packer).measure(progress);
}

/**
 * The settling pass: moves the particles of pairs deeper than one voxel apart (see above). `stop`
 * is asked at every progress report, every hundredth of a part up to PROGRESS_EVERY particles (a cancel: the pass of a 1024³
 * fill took minutes); null when it said stop. `progress` hears how far it is in each part (Settler.settle): the pass of a 1024³
 * fill took minutes.
 */
export function settle(packer: Packer): Settled;
export function settle(packer: Packer, stop: () => boolean, progress?: AnalysisProgress): Settled | null;
export function settle(packer: Packer, stop: () => boolean = () => false, progress: AnalysisProgress = noProgress): Settled | null {
  return new Settler(packer).settle(stop, progress);
}
