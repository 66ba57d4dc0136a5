/**
 * Pore-size distribution of the void phase by local thickness (Hildebrand & Rüegsegger 1997, the
 * measure BoneJ and PoreSpy report): the local thickness at a void point is the diameter of the
 * largest ball that contains the point and lies in the void.
 *
 * 1. Exact squared Euclidean distance transform to the nearest solid voxel centre, separably, one
 *    axis at a time with Felzenszwalb & Huttenlocher's lower envelope of parabolas; a periodic axis
 *    is transformed on its line repeated three times and the middle copy kept.
 * 2. Balls centred on the distance ridge (voxels whose ball is not inside a face neighbour's ball)
 *    are painted in, each voxel keeping the largest diameter that covers it. Skipping a ball that
 *    lies inside a neighbour's larger ball changes nothing (the larger one paints every voxel it
 *    would, with a larger value), so the result equals the brute-force maximum over all balls.
 * Diameters are 2r - 1 voxels (r = distance to the nearest solid centre), so a slit of k void voxels
 * between two walls has thickness k.
 */

import type { EngineSeries } from '../common/engine';
import { barSeries, histogram, normalised } from './histogram';

const INF = 1e20;

/** 1D squared distance transform of f[0..n) into d (Felzenszwalb & Huttenlocher 2012). */
function transform1d(f: Float64Array, n: number, d: Float64Array, v: Int32Array, zb: Float64Array): void {
  let k = 0;
  v[0] = 0;
  zb[0] = -INF;
  zb[1] = INF;
  for (let q = 1; q < n; q++) {
    if (f[q] >= INF) continue;
    if (f[v[0]] >= INF) { v[0] = q; continue; }
    let s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    while (s <= zb[k]) {
      k--;
      s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    }
    k++;
    v[k] = q;
    zb[k] = s;
    zb[k + 1] = INF;
  }
  if (f[v[0]] >= INF) { d.fill(INF, 0, n); return; }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (zb[k + 1] < q) k++;
    const dq = q - v[k];
    d[q] = dq * dq + f[v[k]];
  }
}

/**
 * Squared distance (in voxels²) from every voxel to the nearest solid voxel (solid[i] !== 0); 0 in
 * solid voxels, >= 1e20 where no solid exists along the transformed axes.
 */
export function squaredDistanceToSolid(
  solid: Uint8Array,
  dims: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
): Float32Array {
  const [nx, ny, nz] = dims;
  const out = new Float32Array(nx * ny * nz);
  for (let i = 0; i < out.length; i++) out[i] = solid[i] ? 0 : INF;
  const maxN = 3 * Math.max(nx, ny, nz);
  const f = new Float64Array(maxN), d = new Float64Array(maxN), zb = new Float64Array(maxN + 1);
  const v = new Int32Array(maxN);
  const axis = (n: number, stride: number, lines: number, lineStart: (l: number) => number, wrap: boolean) => {
    const reps = wrap ? 3 : 1;
    for (let l = 0; l < lines; l++) {
      const start = lineStart(l);
      for (let r = 0; r < reps; r++) for (let q = 0; q < n; q++) f[r * n + q] = out[start + q * stride];
      transform1d(f, n * reps, d, v, zb);
      const off = wrap ? n : 0;
      for (let q = 0; q < n; q++) out[start + q * stride] = d[off + q];
    }
  };
  axis(nx, 1, ny * nz, (l) => l * nx, periodic[0]);
  axis(ny, nx, nx * nz, (l) => (l % nx) + Math.floor(l / nx) * nx * ny, periodic[1]);
  axis(nz, nx * ny, nx * ny, (l) => l, periodic[2]);
  return out;
}

/**
 * Local thickness (diameter in voxels) of every void voxel; 0 in solid voxels. `d2` is the output
 * of squaredDistanceToSolid over the same grid.
 */
export function localThickness(
  d2: Float32Array,
  dims: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
): Float32Array {
  const [nx, ny, nz] = dims;
  const slice = nx * ny;
  const thickness = new Float32Array(d2.length);
  const r = (x: number, y: number, z: number): number => {
    if (periodic[0]) x = (x + nx) % nx; else if (x < 0 || x >= nx) return 0;
    if (periodic[1]) y = (y + ny) % ny; else if (y < 0 || y >= ny) return 0;
    if (periodic[2]) z = (z + nz) % nz; else if (z < 0 || z >= nz) return 0;
    return Math.sqrt(d2[x + nx * y + slice * z]);
  };
  for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
    const D = d2[x + nx * y + slice * z];
    if (D === 0 || D >= INF) continue;
    const rp = Math.sqrt(D);
    // Not on the ridge when a face neighbour's ball contains this ball: r(q) >= r(p) + 1.
    const cover = rp + 1 - 1e-6;
    if (r(x + 1, y, z) >= cover || r(x - 1, y, z) >= cover || r(x, y + 1, z) >= cover ||
        r(x, y - 1, z) >= cover || r(x, y, z + 1) >= cover || r(x, y, z - 1) >= cover) continue;
    const diameter = 2 * rp - 1;
    const R = Math.ceil(rp) - 1;
    for (let dz = -R; dz <= R; dz++) {
      let qz = z + dz;
      if (qz < 0 || qz >= nz) { if (!periodic[2]) continue; qz = (qz + nz) % nz; }
      for (let dy = -R; dy <= R; dy++) {
        const rem = D - dz * dz - dy * dy;
        if (rem <= 0) continue;
        let qy = y + dy;
        if (qy < 0 || qy >= ny) { if (!periodic[1]) continue; qy = (qy + ny) % ny; }
        // Points strictly inside the ball: dx² < rem.
        const W = Math.ceil(Math.sqrt(rem)) - 1;
        const row = nx * qy + slice * qz;
        for (let dx = -W; dx <= W; dx++) {
          let qx = x + dx;
          if (qx < 0 || qx >= nx) { if (!periodic[0]) continue; qx = (qx + nx) % nx; }
          if (thickness[row + qx] < diameter) thickness[row + qx] = diameter;
        }
      }
    }
  }
  return thickness;
}

/**
 * Where the local thickness runs when the bed is larger than the cell budget. Pores are
 * statistically alike across x and y, so a centred x-y window at full resolution, at least
 * `minWindow` cells wide, measures them better than a coarser grid; only when even that does not
 * fit is every stride-th cell taken. Windowed axes lose their periodicity, and a margin of
 * `margin` cells along their sides is left out of the count (balls there are cut by the window).
 */
export interface PoreGridPlan {
  /** Sampling step in source cells. */
  stride: number;
  /** Window origin and size in grid cells (after striding). */
  x0: number; y0: number; wx: number; wy: number;
  /** Whether x / y keep their periodicity (the window spans the whole axis). */
  wholeX: boolean; wholeY: boolean;
  /** Cells left out of the count on each side of a windowed axis. */
  margin: number;
}

export function poreGridPlan(nx: number, ny: number, nz: number, budget: number, minWindow: number, margin: number): PoreGridPlan {
  for (let stride = 1; ; stride++) {
    const cx = Math.max(1, Math.floor(nx / stride)), cy = Math.max(1, Math.floor(ny / stride)), cz = Math.max(1, Math.floor(nz / stride)) + 1;
    if (cx * cy * cz <= budget) return { stride, x0: 0, y0: 0, wx: cx, wy: cy, wholeX: true, wholeY: true, margin: 0 };
    const side = Math.floor(Math.sqrt(budget / cz));
    const min = Math.ceil(minWindow / stride);
    if (side >= min || (cx <= side && cy <= side)) {
      const wx = Math.min(cx, side), wy = Math.min(cy, side);
      return {
        stride, wx, wy, x0: Math.floor((cx - wx) / 2), y0: Math.floor((cy - wy) / 2),
        wholeX: wx === cx, wholeY: wy === cy, margin: Math.ceil(margin / stride),
      };
    }
  }
}

/**
 * Pore-size distribution of a solid map: local thickness of the void cells inside the count box
 * [from, to) (cell indices per axis), in length units (cells of edge `cellSize`), as a histogram by
 * pore volume with its mean, median and maximum. Undefined when there is no void to count.
 */
export function poreSizeDistribution(
  solid: Uint8Array,
  dims: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
  from: readonly [number, number, number],
  to: readonly [number, number, number],
  cellSize: number,
  bins: number,
): { series: EngineSeries; mean: number; median: number; max: number } | undefined {
  const [nx, ny] = dims;
  const lt = localThickness(squaredDistanceToSolid(solid, dims, periodic), dims, periodic);
  let voids = 0;
  for (let k = from[2]; k < to[2]; k++) for (let j = from[1]; j < to[1]; j++) for (let i = from[0]; i < to[0]; i++) voids += 1 - solid[i + nx * (j + ny * k)];
  if (voids === 0) return undefined;
  const sorted = new Float64Array(voids);
  let sum = 0, m = 0;
  for (let k = from[2]; k < to[2]; k++) for (let j = from[1]; j < to[1]; j++) for (let i = from[0]; i < to[0]; i++) {
    const c = i + nx * (j + ny * k);
    if (solid[c]) continue;
    sorted[m++] = lt[c] * cellSize;
    sum += lt[c] * cellSize;
  }
  sorted.sort();
  const hist = histogram(sorted, 0, sorted[sorted.length - 1], bins);
  return {
    series: barSeries('pore-size distribution', 'local thickness (length)', 'fraction of pore volume', hist.centres, normalised(hist.counts)),
    mean: sum / sorted.length,
    median: sorted[Math.floor(sorted.length / 2)],
    max: sorted[sorted.length - 1],
  };
}
