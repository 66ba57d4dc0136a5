/**
 * Particles on an implicit surface (seed 002 §2, after Witkin & Heckbert 1994): "floaters" held on
 * F = 0 by a first-order constraint with feedback, spread by Gaussian repulsion with a radius σ_i of
 * their own that adapts to the repulsion felt, and made more or fewer by fission and death until
 * their spacing is the one asked for. Each iteration is O(n) through core/spatial's HashedGrid (the
 * seed's periodic 2^k grid): either by the linked-cell method on cells at least as large as the
 * largest range 3σ, over the grid's rows of cells sorted along x (each pair once, from a row's half
 * shell of neighbour rows, within a window along x), or by the seed's
 * spherical range query of radius r_max = 3σ_i per particle (with its regrid rules); or, for
 * comparison, among all particles (the seed's naive O(n²) loop). All three give the same sums.
 *
 * Units: the repulsion amplitude α is 1, so energies are multiples of one coincident neighbour.
 * State is structure-of-arrays in Float64Arrays of `capacity`; particle i is grid id i (dense: a
 * dead particle's slot is filled by the last one; sortByCell renumbers them in the grid's order).
 */
import { Random } from '../common/random';
import { HashedGrid } from '../spatial/index';
import type { ImplicitFunction } from './implicit';
import { MAX_BANDS, TaskBoard, type HelperData } from './board';
import { M, type MoveArrays } from './moves';
import { cutBands, expNegative, RANGE_SIGMAS, setGeometry, STEP_BITS, type RowArrays } from './rows';
import { projectToSurface, surfaceDistance } from './solid';
import { pow, powInt } from '../common/power';

export { expNegative, RANGE_SIGMAS } from './rows';

/** Ê: the energy each particle's σ is steered to (Witkin & Heckbert: 0.8 α). */
export const TARGET_ENERGY = 0.8;
/** ρ: rate of the σ feedback, per unit time. */
const SIGMA_RATE = 2;
/** β: keeps the σ feedback finite for a particle without neighbours (in units of 1/σ̂). */
const SIGMA_DAMPING = 1;
/** A particle whose σ passes this multiple of σ̂ is starved of neighbours and fissions at once. */
const SIGMA_STARVED = 1.5;
/** σ never leaves [σ̂ · SIGMA_MIN, σ̂ · SIGMA_STARVED · 1.2]. */
const SIGMA_MIN = 0.05;
/** Near equilibrium (where birth and death may act): speed below this many σ per unit time, and
 *  energy within this share of Ê. */
const EQUILIBRIUM_SPEED = 0.1;
const EQUILIBRIUM_ENERGY = 0.1;
/** Probability of fission (death) per iteration per unit of σ²/σ̂² above (below) 1: proportional
 *  control, damped so that a region's count moves part of the way to its target each time. */
const BIRTH_DEATH_GAIN = 0.5;
/** Birth and death act only where the local σ²/σ̂² is outside 1 ± this (a dead band against churn). */
const BIRTH_DEATH_BAND = 0.05;
/** The seeding grid has at most this many cells a side. */
const SEED_CELLS = 64;
/** Per iteration, σ̂ moves by this power of (spacing / mean nearest-neighbour distance). */
const SPACING_GAIN = 0.05;
/** σ̂ stays within this factor of its lattice value, either way. */
const SPACING_RANGE = 1.25;
/** Linked cells: after a regrid the largest range 3σ is this share of the cell size; a regrid is
 *  due when it exceeds the cell (then pairs would be missed) or falls below CELLS_COARSE of it. */
const CELLS_FILL = 0.85;
const CELLS_COARSE = 0.7;
/** The grid starts with 2^GRID_START_BITS cells a side; it never has more than 2^GRID_MAX_BITS
 *  (HashedGrid's default limit, 2^24 cells). */
const GRID_START_BITS = 4;
const GRID_MAX_BITS = 8;
/** The grid grows while the particles' diameter exceeds this times its size (the seed's rule). */
const GRID_GROWS_ABOVE = 1.2;
/** Range queries: iterations between renumberings of the particles in the grid's cell order. */
const SORT_INTERVAL = 16;
/**
 * With threads, the pass and the move are shared from this many particles on (SamplerOptions.
 * parallelFrom). Below, the gain is small and the risk large: each shared job waits for its last
 * task, and a helper the system deschedules holds it for a time slice (whole runs of 10,000
 * particles, blobby: 9 ms an iteration on 1 thread, 9.3-10.3 on 2 idle cores, 16-22 when the
 * machine gave the process one core; 20,000: 16.6-18.5 against 15.2-16.9 on 2 idle cores, 21.3
 * against 21.6 on one).
 */
export const PARALLEL_FROM = 20_000;
/** With threads, bands of z-layers per thread: the threads take them as they come free, so a
 *  thread that starts late or is slowed takes fewer (at 1e5 particles on 2 idle cores: 2 bands
 *  29.2 ms, 4 bands 27.8, 8 bands 27.4, 16 bands 28.0; one thread 51.4). */
const BANDS_PER_THREAD = 4;

/**
 * σ̂ for a nearest-neighbour spacing h: in a hexagonal lattice of spacing h the six nearest
 * neighbours (the next ring, at √3 h, is outside 3σ) give each particle the energy
 * 6 exp(−h²/(2σ̂²)) = Ê.
 */
export function sigmaForSpacing(h: number): number {
  return h / Math.sqrt(2 * Math.log(6 / TARGET_ENERGY));
}

/**
 * Most bits a side of the sampler's grid (2^bits cells a side) for a surface in the box `bounds`
 * (ImplicitFunction.bounds) at `spacing`. Both searches grow the grid while the particles' diameter
 * exceeds GRID_GROWS_ABOVE times its size (the seed's rule: adviseCells, HashedGrid.queryAdvisory),
 * and keep its cells at least the repulsion range (the largest 3σ for 'cells', the mean for
 * 'queries'), which is at least 3σ̂ while the σ are not all below σ̂ (σ̂ ≥ its lattice value /
 * SPACING_RANGE): so the diameter being at most the box's diagonal, the grid they ask for never
 * has more bits than this. Should every σ fall below σ̂ the grid stops here and wraps (more
 * candidates a cell), with the same sums. The limit bounds the grid's memory (gridBytes) before a
 * run starts.
 */
export function gridBits(bounds: Float64Array, spacing: number): number {
  const cell = (RANGE_SIGMAS * sigmaForSpacing(spacing)) / SPACING_RANGE;
  const diagonal = Math.hypot(bounds[3] - bounds[0], bounds[4] - bounds[1], bounds[5] - bounds[2]);
  return Math.min(GRID_MAX_BITS, Math.max(GRID_START_BITS, Math.ceil(Math.log2(diagonal / (GRID_GROWS_ABOVE * cell)))));
}

/**
 * Bytes of the grid's arrays with at most 2^bits cells a side: the cells' heads (4 bytes a cell),
 * the smaller one a regrid replaces until it is collected (1/8 of it), the scratch of its queries
 * (HashedGrid.cellHeads, at most a cell each), the rows' starts (the grid's and the sampler's copy)
 * and sortRows' counts. The per-particle arrays are counted per particle.
 */
export function gridBytes(bits: number): number {
  const cells = powInt(2, 3 * bits), rows = powInt(2, 2 * bits);
  return 4 * (cells + cells / 8 + cells) + 4 * (2 * (rows + 1) + Math.max(rows, powInt(2, bits + STEP_BITS)));
}

export type NeighbourSearch = 'cells' | 'queries' | 'direct';

export interface SamplerOptions {
  fn: ImplicitFunction;
  /** Box holding the solid (solidBounds), where the first particles are seeded. */
  bounds: Float64Array;
  /** Desired nearest-neighbour spacing (length units). */
  spacing: number;
  /** Most particles at once. */
  capacity: number;
  /** 'cells' (linked cells), 'queries' (the seed's range queries) or 'direct' (O(n²)). */
  neighbourSearch: NeighbourSearch;
  seed: number;
  /** Δt of the explicit Euler steps. */
  timeStep: number;
  /** φ: the constraint's feedback rate towards F = 0, per unit time. */
  feedback: number;
  /**
   * Threads that share the 'cells' repulsion pass and the constrained move (default 1): above 1
   * the particles' arrays are SharedArrayBuffers, and threads − 1 helper threads should run
   * surfaceHelper on helperData() (else this thread runs every task alone: the same results, later).
   */
  threads?: number;
  /** Particles from which the threads share the work (default PARALLEL_FROM). */
  parallelFrom?: number;
  /**
   * Asked once a row of the seeding grid (of corners, then of cells); seeding stops when it says
   * true (a cancel: seeding 256 blobs over 20 units at spacing 0.1 took 12 s).
   */
  cancelled?: () => boolean;
}

export class SurfaceSampler {
  readonly capacity: number;
  /** Live particles: 0 .. n − 1. */
  n = 0;
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  /** Repulsion radius σ_i. */
  readonly sigma: Float64Array;
  /** E_i = Σ_j exp(−|r_ij|²/(2σ_i²)) over the neighbours within 3σ_i, and ∂E_i/∂σ_i. */
  readonly energy: Float64Array;
  readonly dEnergy: Float64Array;
  /** Σ σ_j² over i and its neighbours within 3σ_i, and their number: the local share of surface. */
  readonly shareSum: Float64Array;
  readonly shareCount: Float64Array;
  /** Desired (repulsion) velocity D_i, before the constraint. */
  readonly dx: Float64Array;
  readonly dy: Float64Array;
  readonly dz: Float64Array;
  /** Speed |P_i'| of the last step. */
  readonly speed: Float64Array;
  /** Squared distance to the nearest neighbour within 3σ_i in the last repulsion pass (∞: none). */
  readonly nearest2: Float64Array;
  /** Unit normal ∇F/|∇F| at the position before the last step. */
  readonly nx: Float64Array;
  readonly ny: Float64Array;
  readonly nz: Float64Array;
  readonly neighbourSearch: NeighbourSearch;
  /** Threads sharing the repulsion pass and the move ('cells'; else 1), and the bands of z-layers
   *  the last pass was cut into (1: the sequential pass). */
  readonly threads: number;
  bands = 1;
  /** The grid of 'cells' and 'queries'; null for the O(n²) loop ('direct'). */
  readonly grid: HashedGrid | null;
  /** The desired mean nearest-neighbour distance. */
  spacing: number;
  /**
   * σ̂, the repulsion radius birth and death steer every σ_i to: first the lattice value for the
   * spacing (sigmaForSpacing), then corrected each iteration by the mean nearest-neighbour
   * distance found (a sampling that is not a perfect lattice has nearer neighbours for the same σ).
   */
  sigmaHat: number;
  /** Mean and coefficient of variation of the nearest-neighbour distances within 3σ_i found by the
   *  last repulsion pass, and how many particles had none there. */
  meanNearest = NaN;
  nearestCV = NaN;
  isolated = 0;
  iterations = 0;
  births = 0;
  deaths = 0;
  /** Fissions refused because the sampler was at capacity. */
  refusedBirths = 0;

  private readonly fn: ImplicitFunction;
  private readonly random: Random;
  private readonly dt: number;
  private readonly phi: number;
  /** Scratch of sortByCell: the grid's row order, each particle's step along x in it, the places
   *  whose particle changes, and one array's values for them. */
  private readonly order: Int32Array;
  private readonly fine: Int32Array;
  private readonly renumbered: Int32Array;
  private readonly permuted: Float64Array;
  /** Scratch of the sorted-row pass: 1/σ_i², and a copy of the grid's row starts. */
  private readonly inverse2: Float64Array;
  private readonly starts: Int32Array;
  /** The tasks of the repulsion pass ('cells') and of the move, and the threads they are shared by. */
  private readonly board: TaskBoard;
  private readonly parallelFrom: number;
  /** The state a particle carries from one iteration to the next (renumbered by sortByCell). */
  private readonly carried: Float64Array[];
  /** Every particle as one linked list (all[j] = j + 1), headed by allHead[0] = 0. */
  private readonly all: Int32Array;
  private readonly allHead = Int32Array.of(0);
  private readonly scratch = new Float64Array(3);

  constructor(o: SamplerOptions) {
    const cap = o.capacity;
    this.capacity = cap;
    this.fn = o.fn;
    this.dt = o.timeStep;
    this.phi = o.feedback;
    this.spacing = o.spacing;
    this.sigmaHat = sigmaForSpacing(o.spacing);
    this.random = new Random(o.seed);
    this.all = new Int32Array(cap);
    this.neighbourSearch = o.neighbourSearch;
    const grid = o.neighbourSearch !== 'direct', cells = o.neighbourSearch === 'cells';
    const threads = cells ? (o.threads ?? 1) : 1;
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be an integer ≥ 1, got ${o.threads}`);
    this.threads = threads;
    this.parallelFrom = o.parallelFrom ?? PARALLEL_FROM;
    if (!Number.isInteger(this.parallelFrom) || this.parallelFrom < 0) throw new RangeError(`parallelFrom must be an integer ≥ 0, got ${o.parallelFrom}`);
    // The arrays the threads of the pass share (SharedArrayBuffers only when there are threads).
    const shared = (bytes: number) => (threads > 1 ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
    const f = () => new Float64Array(shared(8 * cap));
    this.order = new Int32Array(grid ? cap : 0);
    this.fine = new Int32Array(shared(grid ? 4 * cap : 0));
    this.renumbered = new Int32Array(grid ? cap : 0);
    this.permuted = new Float64Array(grid ? cap : 0);
    this.inverse2 = cells ? f() : new Float64Array(0);
    this.x = f(); this.y = f(); this.z = f(); this.sigma = f();
    this.energy = f(); this.dEnergy = f(); this.dx = f(); this.dy = f(); this.dz = f();
    this.speed = f(); this.nearest2 = f(); this.shareSum = f(); this.shareCount = f(); this.nx = f(); this.ny = f(); this.nz = f();
    this.carried = [this.x, this.y, this.z, this.sigma, this.nx, this.ny, this.nz];
    if (grid) {
      // Cells start at the seed's optimum for the expected query radius; advised every iteration.
      const maxCells = powInt(2, 3 * gridBits(o.fn.bounds, o.spacing));
      this.grid = new HashedGrid({ dim: 3, capacity: cap, cellSize: (RANGE_SIGMAS * this.sigmaHat) / Math.sqrt(0.7), bits: GRID_START_BITS, maxCells, autoRegrid: false });
    } else {
      this.grid = null;
    }
    this.starts = new Int32Array(shared(cells ? 4 * ((1 << (2 * this.grid!.maxBits)) + 1) : 0));
    this.board = new TaskBoard(this.rowArrays(), this.moveArrays(), o.fn, threads);
    this.seedParticles(o.bounds, o.spacing, o.cancelled ?? (() => false));
  }

  /**
   * Replaces every particle by the given ones (positions and σ; e.g. a sampling saved earlier, or
   * points placed by a benchmark). Throws when they exceed the capacity.
   */
  place(x: ArrayLike<number>, y: ArrayLike<number>, z: ArrayLike<number>, sigma: ArrayLike<number>, count: number): void {
    if (!Number.isInteger(count) || count < 0 || count > this.capacity) throw new RangeError(`count must be an integer in [0, ${this.capacity}], got ${count}`);
    while (this.n > 0) this.remove(this.n - 1);
    for (let i = 0; i < count; i++) this.add(x[i], y[i], z[i], sigma[i]);
  }

  /**
   * Uniform by the last repulsion pass: every particle has a neighbour within 3σ, the nearest-
   * neighbour distances vary by at most `targetCV` (standard deviation / mean) and their mean is
   * within `spacingTolerance` (a share) of the spacing. The engine stops once this holds for a
   * window of iterations.
   */
  isUniform(targetCV: number, spacingTolerance: number): boolean {
    return this.isolated === 0 && this.nearestCV <= targetCV && Math.abs(this.meanNearest / this.spacing - 1) <= spacingTolerance;
  }

  /** Changes the desired spacing (births and deaths then move the count to it). */
  setSpacing(h: number): void {
    this.spacing = h;
    this.sigmaHat = sigmaForSpacing(h);
  }

  /**
   * One particle per cell of a coarse grid (cells of twice the spacing, at most SEED_CELLS a
   * side) that the surface crosses (corners of both signs): the cell centre projected onto the
   * surface, kept when it lands within the cell's reach. Every part of the surface larger than a
   * cell gets particles; fission fills in the rest. Stops part-way when `cancelled` says so.
   */
  private seedParticles(b: Float64Array, spacing: number, cancelled: () => boolean): void {
    const side = Math.max(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
    const c = Math.max(2 * spacing, side / SEED_CELLS);
    const n = [0, 1, 2].map((a) => Math.max(1, Math.ceil((b[a + 3] - b[a]) / c) + 1));
    const o = [0, 1, 2].map((a) => (b[a] + b[a + 3]) / 2 - (n[a] * c) / 2);
    const nx = n[0] + 1, ny = n[1] + 1;
    const corner = new Float64Array(nx * ny * (n[2] + 1));
    for (let k = 0; k <= n[2]; k++) for (let j = 0; j <= n[1]; j++) {
      if (cancelled()) return;
      for (let i = 0; i <= n[0]; i++) corner[i + nx * (j + ny * k)] = this.fn.value(o[0] + i * c, o[1] + j * c, o[2] + k * c);
    }
    const p = this.scratch;
    for (let k = 0; k < n[2]; k++) for (let j = 0; j < n[1]; j++) {
      if (cancelled()) return;
      for (let i = 0; i < n[0]; i++) {
        let neg = 0;
        for (let q = 0; q < 8; q++) if (corner[i + (q & 1) + nx * (j + ((q >> 1) & 1) + ny * (k + (q >> 2)))] < 0) neg++;
        if (neg === 0 || neg === 8) continue;
        const cx = o[0] + (i + 0.5) * c, cy = o[1] + (j + 0.5) * c, cz = o[2] + (k + 0.5) * c;
        const r = projectToSurface(this.fn, cx, cy, cz, c / 2, p);
        if (!(r < 1e-9 * side) || Math.hypot(p[0] - cx, p[1] - cy, p[2] - cz) > c) continue;
        if (this.n === this.capacity) return;
        this.add(p[0], p[1], p[2], this.sigmaHat);
      }
    }
  }

  private add(x: number, y: number, z: number, sigma: number): number {
    const i = this.n++;
    this.x[i] = x; this.y[i] = y; this.z[i] = z; this.sigma[i] = sigma;
    this.speed[i] = 0; this.energy[i] = 0; this.nearest2[i] = Infinity;
    this.nx[i] = 0; this.ny[i] = 0; this.nz[i] = 0;
    this.grid?.insertSphere(i, x, y, z, 0);
    return i;
  }

  /** Removes particle i; the last particle takes its slot. */
  private remove(i: number): void {
    const last = --this.n;
    this.grid?.remove(last);
    if (i === last) return;
    this.x[i] = this.x[last]; this.y[i] = this.y[last]; this.z[i] = this.z[last];
    this.sigma[i] = this.sigma[last]; this.energy[i] = this.energy[last]; this.dEnergy[i] = this.dEnergy[last];
    this.speed[i] = this.speed[last]; this.nearest2[i] = this.nearest2[last];
    this.nx[i] = this.nx[last]; this.ny[i] = this.ny[last]; this.nz[i] = this.nz[last];
    this.grid?.move(i, this.x[i], this.y[i], this.z[i]);
  }

  /**
   * One iteration: repulsion, constrained move with adaptive σ, then (unless `birthAndDeath` is
   * false: call adapt() afterwards for the same iteration) birth and death.
   */
  step(birthAndDeath = true): void {
    // The sorted-row pass renumbers every time (repel); range queries only now and then.
    if (this.neighbourSearch === 'queries' && this.iterations % SORT_INTERVAL === 0) this.sortByCell();
    this.repel();
    this.advance();
    if (birthAndDeath) this.adapt();
    this.iterations++;
  }

  /** The last part of an iteration: σ̂ steered to the spacing, then birth and death. */
  adapt(): void {
    this.steerSpacing();
    this.birthAndDeath();
  }

  /**
   * Renumbers the particles in the grid's row order (HashedGrid.sortRows: by row of cells, then
   * along x in steps of an eighth of a cell), so that a row's particles are consecutive ids sorted
   * along x: the sorted-row pass reads its candidates as contiguous ranges, and range queries walk
   * nearby cells and particles one after another. Carries positions, σ and normals; the other
   * per-particle arrays are outputs of the next pass. O(n + rows); only the places whose particle
   * changes are copied (after a step, about a sixth of them at equilibrium).
   */
  sortByCell(): void {
    const grid = this.grid;
    if (grid === null) return;
    const n = this.n, order = this.order, changed = this.renumbered, tmp = this.permuted;
    grid.sortRows(STEP_BITS, order, this.fine);
    let m = 0;
    for (let k = 0; k < n; k++) if (order[k] !== k) changed[m++] = k;
    for (const a of this.carried) {
      for (let t = 0; t < m; t++) tmp[t] = a[order[changed[t]]];
      for (let t = 0; t < m; t++) a[changed[t]] = tmp[t];
    }
    const x = this.x, y = this.y, z = this.z;
    for (let t = 0; t < m; t++) { const k = changed[t]; grid.move(k, x[k], y[k], z[k]); }
  }

  /**
   * The repulsion pass (seed §2.4, the part the grid makes O(n)): for every particle i, every j
   * within 3σ_i adds E^i_ij = exp(−|r_ij|²/(2σ_i²)) to E_i, |r_ij|²/σ_i³ · E^i_ij to ∂E_i/∂σ_i, and to
   * the desired velocities D_i = σ_i² Σ_j (r_ij/σ_i² E^i_ij + r_ij/σ_j² E^j_ji) (Witkin & Heckbert:
   * the energy gradient scaled by σ_i²) its share: r_ij E^i_ij to D_i and −(σ_j²/σ_i²) r_ij E^i_ij to D_j.
   * With 'cells' it first renumbers the particles in the grid's row order (sortByCell).
   */
  repel(): void {
    const n = this.n, grid = this.grid;
    if (grid !== null && this.neighbourSearch === 'cells') {
      const range = this.adviseCells(grid);
      this.sortByCell();
      this.repelRows(grid, range);
      this.nearestStatistics();
      return;
    }
    this.dx.fill(0, 0, n); this.dy.fill(0, 0, n); this.dz.fill(0, 0, n);
    // Every particle as one list, for the naive loop and for queries that wrap around the grid.
    const all = this.all;
    for (let j = 0; j < n - 1; j++) all[j] = j + 1;
    if (n > 0) all[n - 1] = -1;
    if (grid === null) {
      // The seed's naive algorithm: every other particle, O(n²).
      for (let i = 0; i < n; i++) this.repelFrom(i, this.allHead, 1, all);
      this.nearestStatistics();
      return;
    }
    this.adviseGrid(grid);
    const x = this.x, y = this.y, z = this.z, sigma = this.sigma, next = grid.nextInCell;
    for (let i = 0; i < n; i++) {
      const m = grid.cellsInSphere(x[i], y[i], z[i], RANGE_SIGMAS * sigma[i]);
      if (m < 0) this.repelFrom(i, this.allHead, 1, all);
      else this.repelFrom(i, grid.cellHeads, m, next);
    }
    this.nearestStatistics();
  }

  private nearestStatistics(): void {
    let s = 0, s2 = 0, m = 0;
    for (let i = 0; i < this.n; i++) {
      const d2 = this.nearest2[i];
      if (d2 === Infinity) continue;
      s += Math.sqrt(d2); s2 += d2; m++;
    }
    const mean = s / m;
    this.meanNearest = m > 0 ? mean : NaN;
    this.nearestCV = m > 0 ? Math.sqrt(Math.max(0, s2 / m - mean * mean)) / mean : NaN;
    this.isolated = this.n - m;
  }

  /**
   * Particle i's sums over the candidates in the lists starting at heads[0 .. m) (linked by next):
   * those within 3σ_i count. Adds each one's share to D_j.
   */
  private repelFrom(i: number, heads: Int32Array, m: number, next: Int32Array): void {
    const x = this.x, y = this.y, z = this.z, sigma = this.sigma, dx = this.dx, dy = this.dy, dz = this.dz;
    const xi = x[i], yi = y[i], zi = z[i], si = sigma[i], s2 = si * si;
    const reach2 = RANGE_SIGMAS * RANGE_SIGMAS * s2, h = 1 / (2 * s2), is2 = 1 / s2;
    let E = 0, dE = 0, Dx = 0, Dy = 0, Dz = 0, near = Infinity, shareSum = s2, shareCount = 1;
    for (let c = 0; c < m; c++) {
      for (let j = heads[c]; j >= 0; j = next[j]) {
        const rx = xi - x[j], ry = yi - y[j], rz = zi - z[j];
        const d2 = rx * rx + ry * ry + rz * rz;
        if (d2 > reach2 || j === i) continue;
        if (d2 < near) near = d2;
        const sj = sigma[j], sj2 = sj * sj;
        shareSum += sj2; shareCount++;
        const e = expNegative(d2 * h);
        E += e;
        dE += d2 * e;
        Dx += rx * e; Dy += ry * e; Dz += rz * e;
        const w = sj2 * e * is2;
        dx[j] -= rx * w; dy[j] -= ry * w; dz[j] -= rz * w;
      }
    }
    this.energy[i] = E;
    this.dEnergy[i] = dE / (s2 * si);
    dx[i] += Dx; dy[i] += Dy; dz[i] += Dz;
    this.nearest2[i] = near;
    this.shareSum[i] = shareSum;
    this.shareCount[i] = shareCount;
  }

  /**
   * The linked-cell pass over the grid's sorted rows (rows.ts; sortByCell has just renumbered the
   * particles so that each row of cells holds consecutive ids sorted along x), its z-layers cut
   * into BANDS_PER_THREAD bands per thread (at least 2 layers each) when there are threads and
   * particles enough, else one band: the sequential pass.
   */
  private repelRows(grid: HashedGrid, range: number): void {
    const n = this.n, board = this.board, pass = board.rows, starts = this.starts;
    const bx = grid.bits[0], by = grid.bits[1], bz = grid.bits[2], layers = 1 << bz;
    starts.set(grid.rowStarts.subarray(0, (1 << (by + bz)) + 1));
    const shared = this.sharedTasks(n), bands = shared > 1 ? Math.min(shared, layers >> 1) : 1;
    this.bands = bands;
    setGeometry(pass.geometry, bx, by, bz, grid.cellSize[0], range, bands);
    cutBands(starts, by, layers, bands, pass.bandFirst);
    board.runRows(bands);
    const dEnergy = this.dEnergy, inverse2 = this.inverse2, sigma = this.sigma;
    for (let i = 0; i < n; i++) dEnergy[i] *= inverse2[i] / sigma[i];
  }

  /** Tasks a job over n particles is cut into: BANDS_PER_THREAD per thread (at most MAX_BANDS)
   *  when there are threads and at least parallelFrom particles, else 1 (the sequential job). */
  private sharedTasks(n: number): number {
    return n < this.parallelFrom || this.threads === 1 ? 1 : Math.min(this.threads * BANDS_PER_THREAD, MAX_BANDS);
  }

  /** The arrays of the sorted-row pass, for this thread's pass and the helpers'. */
  private rowArrays(): RowArrays {
    return {
      x: this.x, y: this.y, z: this.z, sigma: this.sigma, fine: this.fine, starts: this.starts,
      energy: this.energy, dEnergy: this.dEnergy, nearest2: this.nearest2, shareSum: this.shareSum, shareCount: this.shareCount,
      dx: this.dx, dy: this.dy, dz: this.dz, inverse2: this.inverse2,
    };
  }

  /** The arrays of the move, for this thread's and the helpers'. */
  private moveArrays(): MoveArrays {
    return {
      x: this.x, y: this.y, z: this.z, sigma: this.sigma, dx: this.dx, dy: this.dy, dz: this.dz, energy: this.energy, dEnergy: this.dEnergy,
      speed: this.speed, nx: this.nx, ny: this.ny, nz: this.nz,
    };
  }

  /** What each of the threads − 1 helper threads gets (run it with surfaceHelper); none with one thread. */
  helperData(): HelperData[] {
    return this.board.helperData();
  }

  /** Tells the helper threads to return; call when done with the sampler. */
  quitHelpers(): void {
    this.board.quit();
  }

  /** Tasks of the repulsion passes and moves that helper threads ran (0 without them). */
  get helperTasks(): number {
    return this.board.helperTasks;
  }

  /**
   * Keeps the linked cells valid and efficient: the cell at least the largest range 3σ_max (else a
   * regrid, to 3σ_max / 0.85), not more than 1 / 0.7 of it, and the number of cells per axis by the
   * seed's rule on the cloud's diameter (grid size within [0.5, 1.2] of it), at least 4 (the half
   * shell's rows must differ). Returns the largest range.
   */
  private adviseCells(grid: HashedGrid): number {
    const n = this.n;
    if (n === 0) return 0;
    const xs = this.x, ys = this.y, zs = this.z, sigma = this.sigma;
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity, smax = 0;
    for (let i = 0; i < n; i++) {
      const x = xs[i], y = ys[i], z = zs[i], s = sigma[i];
      if (x < x0) x0 = x; if (x > x1) x1 = x;
      if (y < y0) y0 = y; if (y > y1) y1 = y;
      if (z < z0) z0 = z; if (z > z1) z1 = z;
      if (s > smax) smax = s;
    }
    const range = RANGE_SIGMAS * smax, diam = Math.hypot(x1 - x0, y1 - y0, z1 - z0);
    let cube = grid.cellSize[0];
    if (range > cube || range < CELLS_COARSE * cube) cube = range / CELLS_FILL;
    let bits = Math.max(2, grid.bits[0]);
    while (diam < 0.5 * cube * powInt(2, bits) && bits > 2) bits--;
    while (diam > GRID_GROWS_ABOVE * cube * powInt(2, bits) && bits < grid.maxBits) bits++;
    if (cube !== grid.cellSize[0] || bits !== grid.bits[0]) grid.regrid([bits, bits, bits], cube);
    return range;
  }

  /** The seed's query_advisory: cloud diameter and mean query radius; the grid regrids when they
   *  leave its ranges. */
  private adviseGrid(grid: HashedGrid): void {
    const n = this.n;
    if (n === 0) return;
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity, rs = 0;
    for (let i = 0; i < n; i++) {
      const x = this.x[i], y = this.y[i], z = this.z[i];
      if (x < x0) x0 = x; if (x > x1) x1 = x;
      if (y < y0) y0 = y; if (y > y1) y1 = y;
      if (z < z0) z0 = z; if (z > z1) z1 = z;
      rs += this.sigma[i];
    }
    grid.queryAdvisory(Math.hypot(x1 - x0, y1 - y0, z1 - z0), (RANGE_SIGMAS * rs) / n);
  }

  /**
   * Nudges σ̂ by (spacing / mean nearest-neighbour distance)^gain, once every particle has a
   * neighbour within 3σ (before, the distances say nothing about the spacing).
   */
  private steerSpacing(): void {
    if (this.isolated > 0 || !(this.meanNearest > 0)) return;
    const lattice = sigmaForSpacing(this.spacing);
    const s = this.sigmaHat * pow(this.spacing / this.meanNearest, SPACING_GAIN);
    this.sigmaHat = Math.min(lattice * SPACING_RANGE, Math.max(lattice / SPACING_RANGE, s));
  }

  /**
   * The constrained move: P_i' = D_i − ((∇F·D_i + φF) / |∇F|²) ∇F (Witkin & Heckbert's constraint
   * for a still surface: the repulsion projected onto the tangent plane, and feedback φ pulling the
   * particle back to F = 0), and σ_i' = −ρ (E_i − Ê) / (∂E_i/∂σ_i + β/σ̂) (the adaptive radius), both
   * by one Euler step (moves.ts), then the grid told of the new positions.
   */
  advance(): void {
    const n = this.n, grid = this.grid, sh = this.sigmaHat, p = this.board.moves.params;
    p[M.dt] = this.dt; p[M.phi] = this.phi; p[M.rate] = SIGMA_RATE; p[M.target] = TARGET_ENERGY;
    p[M.lo] = SIGMA_MIN * sh; p[M.hi] = SIGMA_STARVED * 1.2 * sh; p[M.beta] = SIGMA_DAMPING / sh;
    // Moves.ts, in ranges shared by the threads (as many as the pass's bands); the grid here.
    this.board.runMoves(n, this.sharedTasks(n));
    if (grid === null) return;
    const x = this.x, y = this.y, z = this.z;
    for (let i = 0; i < n; i++) grid.move(i, x[i], y[i], z[i]);
  }

  /**
   * Fission where the density is too low, death where it is too high (Witkin & Heckbert's rules
   * made proportional): a particle near equilibrium whose neighbourhood's mean σ²/σ̂² (the share of
   * surface each particle there holds over the share asked for) is more than 1 + band fissions
   * with probability gain · (σ²/σ̂² − 1); below 1 − band it dies with probability
   * gain · (1 − σ²/σ̂²). A particle whose σ passed 1.5 σ̂ is starved of neighbours and fissions at
   * once. The two children of a fission share its area: σ/√2 each, half σ apart along a random
   * tangent.
   */
  birthAndDeath(): void {
    const sh2 = this.sigmaHat * this.sigmaHat, tol = BIRTH_DEATH_BAND, rnd = this.random;
    const starved = SIGMA_STARVED * this.sigmaHat;
    for (let i = this.n - 1; i >= 0; i--) {
      const s = this.sigma[i];
      if (s > starved) { this.fission(i); continue; }
      if (this.speed[i] > EQUILIBRIUM_SPEED * s || Math.abs(this.energy[i] - TARGET_ENERGY) > EQUILIBRIUM_ENERGY * TARGET_ENERGY) continue;
      const share = this.shareSum[i] / this.shareCount[i] / sh2;
      if (share > 1 + tol) {
        if (rnd.next() < BIRTH_DEATH_GAIN * (share - 1)) this.fission(i);
      } else if (share < 1 - tol) {
        if (rnd.next() < BIRTH_DEATH_GAIN * (1 - share)) { this.remove(i); this.deaths++; }
      }
    }
  }

  private fission(i: number): void {
    if (this.n === this.capacity) { this.refusedBirths++; return; }
    const rnd = this.random;
    // A random direction in the tangent plane of the last normal.
    const nx = this.nx[i], ny = this.ny[i], nz = this.nz[i];
    let tx = 0, ty = 0, tz = 0, tl = 0;
    do {
      tx = rnd.normal(); ty = rnd.normal(); tz = rnd.normal();
      const d = tx * nx + ty * ny + tz * nz;
      tx -= d * nx; ty -= d * ny; tz -= d * nz;
      tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
    } while (!(tl > 1e-6));
    const s = this.sigma[i] / Math.SQRT2, h = (0.25 * this.sigma[i]) / tl;
    tx *= h; ty *= h; tz *= h;
    const x = this.x[i], y = this.y[i], z = this.z[i];
    this.x[i] = x - tx; this.y[i] = y - ty; this.z[i] = z - tz;
    this.sigma[i] = s;
    this.grid?.move(i, this.x[i], this.y[i], this.z[i]);
    const j = this.add(x + tx, y + ty, z + tz, s);
    this.nx[j] = nx; this.ny[j] = ny; this.nz[j] = nz;
    this.births++;
  }

  /**
   * Distance from each particle to its nearest neighbour, into out[0 .. n−1] (Infinity for a
   * particle alone): searched within 3σ_i, then in doubling radii while none is found.
   */
  nearestNeighbours(out: Float64Array): void {
    const n = this.n, x = this.x, y = this.y, z = this.z, grid = this.grid;
    for (let i = 0; i < n; i++) {
      let best = Infinity;
      for (let r = RANGE_SIGMAS * this.sigma[i]; best === Infinity; r *= 2) {
        const m = grid === null ? -1 : grid.cellsInSphere(x[i], y[i], z[i], r);
        if (m < 0) {
          // Wraps around the grid (or no grid): every particle, and no larger radius helps.
          for (let j = 0; j < n; j++) {
            if (j === i) continue;
            const dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            best = Math.min(best, dx * dx + dy * dy + dz * dz);
          }
          break;
        }
        const heads = grid!.cellHeads, next = grid!.nextInCell;
        for (let k = 0; k < m; k++) for (let j = heads[k]; j >= 0; j = next[j]) {
          if (j === i) continue;
          const dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
          const d2 = dx * dx + dy * dy + dz * dz;
          if (d2 <= r * r && d2 < best) best = d2;
        }
      }
      out[i] = Math.sqrt(best);
    }
  }

  /** Largest distance of a particle from the surface (surfaceDistance: not less than the true one). */
  maxSurfaceResidual(): number {
    let worst = 0;
    for (let i = 0; i < this.n; i++) {
      const r = surfaceDistance(this.fn, this.x[i], this.y[i], this.z[i], this.spacing);
      if (!(r <= worst)) worst = r;
    }
    return worst;
  }
}

/** Coefficient of variation (standard deviation / mean) of the finite values of a[0 .. n−1], and
 *  their mean and count. */
export function variation(a: Float64Array, n: number): { cv: number; mean: number; count: number } {
  let s = 0, s2 = 0, m = 0;
  for (let i = 0; i < n; i++) {
    const v = a[i];
    if (!Number.isFinite(v)) continue;
    s += v; s2 += v * v; m++;
  }
  if (m === 0) return { cv: NaN, mean: NaN, count: 0 };
  const mean = s / m;
  return { cv: Math.sqrt(Math.max(0, s2 / m - mean * mean)) / mean, mean, count: m };
}
