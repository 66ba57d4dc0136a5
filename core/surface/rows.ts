/**
 * The linked-cell repulsion pass over the grid's sorted rows (SurfaceSampler.repel with
 * neighbourSearch 'cells'), cut into tasks that threads may run at once.
 *
 * The pass visits each pair once, from the row of the first of the two along x or from the row
 * whose half shell (HALF_ROWS_DY/DZ: dz is 0 or 1) holds the other, and adds both particles' terms.
 * So the rows of z-layer k (rows k·2^bits_y .. (k+1)·2^bits_y − 1, particles in consecutive ids)
 * write only into particles of layers k and k + 1 (modulo the grid's period). The layers are cut
 * into `bands` of consecutive layers, each of at least 2 layers and about as many particles; a
 * band's first task clears its particles' sums and runs its layers but the last (writing only into
 * the band), its second runs its last layer (writing into that layer and the next band's first).
 * All first tasks write disjoint particles, and all second tasks do; band b's second task touches
 * the particles of the first tasks of bands b and b + 1 only, and runs after them. So the first
 * tasks may run at once, and each second task once its two first tasks have finished
 * (board.ts). No atomics on the sums, no pair twice.
 *
 * Every particle's sums get their terms in an order fixed by the bands alone, whichever thread
 * runs which task: a pass is the same for a given number of bands. One band (a thread) is the
 * plain sequential pass, layers 0 .. K − 1 in order; with several bands the particles of a band's
 * first layer add the previous layer's terms after their own layer's, so the sums differ from one
 * band's by round-off only.
 */

/** Sorted rows: steps of the cell size / 2^STEP_BITS along x, by which a row's particles are sorted
 *  and a pair's x distance is bounded (finer steps test fewer candidates, at more steps per row). */
export const STEP_BITS = 3;
/** Neighbourhood radius in units of σ (seed §2.2: the Gaussian is 1 % of its peak at 3σ). */
export const RANGE_SIGMAS = 3;
/** Widens the windows so that rounding never drops a pair at the edge of the range. */
const SLACK = 1 + 1e-9;
/** The half shell of a row's neighbourhood in rows (dy, dz): with the row itself (pairs ahead along
 *  x), every pair of neighbouring rows once. */
const HALF_ROWS_DY = Int32Array.of(1, -1, 0, 1);
const HALF_ROWS_DZ = Int32Array.of(0, 1, 1, 1);

/** Steps per unit of the table of expNegative. */
const EXP_STEPS = 64;
/** exp(−m / EXP_STEPS) for m = 0 .. 4.5 · EXP_STEPS + 1 (one more for rounding at the range's edge). */
const EXP_TABLE = Float64Array.from({ length: 4.5 * EXP_STEPS + 2 }, (_, m) => Math.exp(-m / EXP_STEPS));

/**
 * exp(−u) for u in [0, 4.5], the Gaussian of a neighbour within 3σ (u = |r|²/2σ²): the table's
 * value at the step below u times the Taylor polynomial of degree 5 of the rest (within 1/64: a
 * relative error below 3e-14, tested). Here Math.exp is a call into C that costs more than the
 * rest of a pair's terms, and there are two a pair.
 */
export function expNegative(u: number): number {
  const m = (u * EXP_STEPS) | 0, f = m * (1 / EXP_STEPS) - u;
  return EXP_TABLE[m] * (1 + f * (1 + f * (1 / 2 + f * (1 / 6 + f * (1 / 24 + f / 120)))));
}

/** The per-particle arrays the pass reads and writes (in SharedArrayBuffers when threads share it). */
export interface RowArrays {
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  sigma: Float64Array;
  /** Each particle's step along x in its row (HashedGrid.sortRows). */
  fine: Int32Array;
  /** Row r holds particles starts[r] .. starts[r + 1] − 1 (a copy of HashedGrid.rowStarts). */
  starts: Int32Array;
  /** The sums (see SurfaceSampler): E_i, |r|² E summed (∂E/∂σ before its factor), nearest |r|²,
   *  Σ σ_j² and count of the neighbourhood, D_i. */
  energy: Float64Array;
  dEnergy: Float64Array;
  nearest2: Float64Array;
  shareSum: Float64Array;
  shareCount: Float64Array;
  dx: Float64Array;
  dy: Float64Array;
  dz: Float64Array;
  /** Scratch: 1/σ_i². */
  inverse2: Float64Array;
}

/** Float64 slots of a pass's geometry (RowPass.geometry), the same for every task of the pass. */
export const G = { bitsY: 0, bitsZ: 1, cell: 2, steps: 3, w: 4, range2: 5, bands: 6 } as const;
export const GEOMETRY_SLOTS = 8;

/**
 * Writes a pass's geometry: the grid's bits along y and z, its cell size and steps along x (the
 * period), the window half-width w in steps and the squared range (with slack) for the largest
 * range 3σ_max, and the number of bands.
 */
export function setGeometry(geometry: Float64Array, bitsX: number, bitsY: number, bitsZ: number, cell: number, range: number, bands: number): void {
  geometry[G.bitsY] = bitsY;
  geometry[G.bitsZ] = bitsZ;
  geometry[G.cell] = cell;
  geometry[G.steps] = 1 << (bitsX + STEP_BITS);
  geometry[G.w] = Math.floor(((range * (1 << STEP_BITS)) / cell) * SLACK) + 1;
  geometry[G.range2] = range * range * SLACK;
  geometry[G.bands] = bands;
}

/**
 * Cuts the grid's z-layers into `bands` bands of at least 2 layers and about n / bands particles
 * each (by the row starts), writing band b's first layer into first[b] and first[bands] = layers.
 * Asks for no more bands than layers / 2.
 */
export function cutBands(starts: Int32Array, bitsY: number, layers: number, bands: number, first: Int32Array): void {
  const n = starts[layers << bitsY];
  first[0] = 0;
  let k = 0;
  for (let b = 1; b < bands; b++) {
    // The band's end: past 2 layers, at the first layer boundary with b/bands of the particles
    // before it, leaving 2 layers for each band after.
    k = first[b - 1] + 2;
    const last = layers - 2 * (bands - b), want = (b * n) / bands;
    while (k < last && starts[k << bitsY] < want) k++;
    first[b] = k;
  }
  first[bands] = layers;
}

/** One thread's pass over its tasks: the arrays, the geometry, the bands, and its scratch. */
export class RowPass {
  /** Scratch: a particle's candidate ranges [from, to), and per neighbour row its range and the
   *  window's current ends. */
  private readonly from = new Int32Array(16);
  private readonly to = new Int32Array(16);
  private readonly rowFrom = new Int32Array(4);
  private readonly rowTo = new Int32Array(4);
  private readonly lo = new Int32Array(4);
  private readonly hi = new Int32Array(4);

  /** `geometry` (setGeometry) and `bandFirst` (cutBands) are written before each pass. */
  constructor(readonly a: RowArrays, readonly geometry: Float64Array, readonly bandFirst: Int32Array) {}

  /**
   * Task t of the pass: t < bands, band t's first task (clear its particles' sums, then its layers
   * but the last); t ≥ bands, band t − bands's second (its last layer).
   */
  task(t: number): void {
    const bands = this.geometry[G.bands], bitsY = this.geometry[G.bitsY] | 0;
    if (t < bands) {
      const k0 = this.bandFirst[t], k1 = this.bandFirst[t + 1];
      this.clear(this.a.starts[k0 << bitsY], this.a.starts[k1 << bitsY]);
      this.layers(k0, k1 - 1);
    } else {
      const k = this.bandFirst[t - bands + 1] - 1;
      this.layers(k, k + 1);
    }
  }

  /** Clears the sums of particles i0 .. i1 − 1 and sets their 1/σ². */
  private clear(i0: number, i1: number): void {
    const a = this.a, sigma = a.sigma, shareSum = a.shareSum, inverse2 = a.inverse2;
    a.energy.fill(0, i0, i1); a.dEnergy.fill(0, i0, i1);
    a.nearest2.fill(Infinity, i0, i1);
    a.shareCount.fill(1, i0, i1);
    a.dx.fill(0, i0, i1); a.dy.fill(0, i0, i1); a.dz.fill(0, i0, i1);
    for (let i = i0; i < i1; i++) { const s2 = sigma[i] * sigma[i]; shareSum[i] = s2; inverse2[i] = 1 / s2; }
  }

  /**
   * The rows of z-layers layer0 .. layer1 − 1 in order: every pair within range of either particle once,
   * from the first of the two along x in a row or from the row whose half shell holds the other.
   * A pair in range lies in the same or a neighbouring row and at most `w` steps apart along x
   * (modulo the grid's period), so each particle tests the particles of a window of ±w steps in
   * each row, found by ends that only move forward along the row; a neighbouring row farther than
   * the range from the particle's own position across y and z is skipped. Both particles' terms of
   * the pair at once: E^i_ij when |r_ij| ≤ 3σ_i, E^j_ji when |r_ij| ≤ 3σ_j, and their shares of D_i
   * and D_j (the same sums as SurfaceSampler.repelFrom's).
   */
  private layers(layer0: number, layer1: number): void {
    const a = this.a, g = this.geometry;
    const x = a.x, y = a.y, z = a.z, sigma = a.sigma, dx = a.dx, dy = a.dy, dz = a.dz;
    const energy = a.energy, dEnergy = a.dEnergy, nearest2 = a.nearest2, shareSum = a.shareSum, shareCount = a.shareCount;
    const inverse2 = a.inverse2, fine = a.fine, starts = a.starts;
    const bitsY = g[G.bitsY] | 0, maskY = (1 << bitsY) - 1, maskZ = (1 << g[G.bitsZ]) - 1;
    const cell = g[G.cell], steps = g[G.steps] | 0, w = g[G.w] | 0, range2 = g[G.range2];
    const from = this.from, to = this.to, rowFrom = this.rowFrom, rowTo = this.rowTo, lo = this.lo, hi = this.hi;
    const reach = RANGE_SIGMAS * RANGE_SIGMAS;
    for (let r = layer0 << bitsY, rEnd = layer1 << bitsY; r < rEnd; r++) {
      const k0 = starts[r], k1 = starts[r + 1];
      if (k0 === k1) continue;
      const iy = r & maskY, iz = r >> bitsY;
      for (let p = 0; p < 4; p++) {
        const q = (((iz + HALF_ROWS_DZ[p]) & maskZ) << bitsY) | ((iy + HALF_ROWS_DY[p]) & maskY);
        rowFrom[p] = lo[p] = hi[p] = starts[q]; rowTo[p] = starts[q + 1];
      }
      let ahead = k0;
      for (let i = k0; i < k1; i++) {
        const fi = fine[i], xi = x[i], yi = y[i], zi = z[i];
        // Candidate ranges: this row ahead of i (and past the period's end), then each neighbouring row's window.
        let m = 0;
        if (ahead <= i) ahead = i + 1;
        while (ahead < k1 && fine[ahead] <= fi + w) ahead++;
        from[m] = i + 1; to[m++] = ahead;
        if (fi + w >= steps) {
          let e = k0;
          while (e < k1 && fine[e] <= fi + w - steps) e++;
          from[m] = k0; to[m++] = e;
        }
        const yc = Math.floor(yi / cell), zc = Math.floor(zi / cell);
        const up = (yc + 1) * cell - yi, down = yi - yc * cell, back = (zc + 1) * cell - zi;
        for (let p = 0; p < 4; p++) {
          const gy = HALF_ROWS_DY[p] > 0 ? up : HALF_ROWS_DY[p] < 0 ? down : 0, gz = HALF_ROWS_DZ[p] > 0 ? back : 0;
          if (gy * gy + gz * gz > range2) continue;
          const e = rowTo[p];
          let a = lo[p], b = hi[p];
          while (a < e && fine[a] < fi - w) a++;
          if (b < a) b = a;
          while (b < e && fine[b] <= fi + w) b++;
          lo[p] = a; hi[p] = b;
          if (b > a) { from[m] = a; to[m++] = b; }
          if (fi - w < 0) {
            let s = e;
            while (s > rowFrom[p] && fine[s - 1] >= fi - w + steps) s--;
            if (s < e) { from[m] = s; to[m++] = e; }
          } else if (fi + w >= steps) {
            let s = rowFrom[p];
            while (s < e && fine[s] <= fi + w - steps) s++;
            if (s > rowFrom[p]) { from[m] = rowFrom[p]; to[m++] = s; }
          }
        }
        const si = sigma[i], si2 = si * si, ii2 = inverse2[i], halfI = ii2 / 2, ri2 = reach * si2;
        let E = 0, dE = 0, Dx = 0, Dy = 0, Dz = 0, near = nearest2[i], share = 0, count = 0;
        for (let t = 0; t < m; t++) {
          const end = to[t];
          for (let j = from[t]; j < end; j++) {
            const rx = xi - x[j], ry = yi - y[j], rz = zi - z[j];
            const d2 = rx * rx + ry * ry + rz * rz;
            const sj = sigma[j], sj2 = sj * sj;
            const inI = d2 <= ri2, inJ = d2 <= reach * sj2;
            if (!inI && !inJ) continue;
            // ∂E/∂σ sums |r|² E here and is divided by σ³ at the end; D_i's factor σ_i² likewise.
            let wt = 0;
            if (inI) {
              const e = expNegative(d2 * halfI);
              E += e; dE += d2 * e; wt += e * ii2;
              if (d2 < near) near = d2;
              share += sj2; count++;
            }
            if (inJ) {
              const ij2 = inverse2[j], e = expNegative(0.5 * d2 * ij2);
              energy[j] += e; dEnergy[j] += d2 * e; wt += e * ij2;
              if (d2 < nearest2[j]) nearest2[j] = d2;
              shareSum[j] += si2; shareCount[j]++;
            }
            Dx += wt * rx; Dy += wt * ry; Dz += wt * rz;
            const wj = sj2 * wt;
            dx[j] -= wj * rx; dy[j] -= wj * ry; dz[j] -= wj * rz;
          }
        }
        energy[i] += E; dEnergy[i] += dE;
        dx[i] += si2 * Dx; dy[i] += si2 * Dy; dz[i] += si2 * Dz;
        nearest2[i] = near; shareSum[i] += share; shareCount[i] += count;
      }
    }
  }
}
