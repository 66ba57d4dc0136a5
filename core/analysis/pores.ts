/**
 * Pore-size distribution of the void phase by local thickness (Hildebrand & Rüegsegger 1997): the
 * local thickness at a void point is the diameter of the largest ball that contains the point and
 * lies in the void. How it relates to other tools is in README.md (Pore sizes): PoreSpy's
 * local_thickness reports the radius r of the same balls, rounded down to one of its `sizes`, and
 * 2r is one voxel more than the diameter here.
 *
 * 1. Exact squared Euclidean distance transform to the nearest solid voxel centre, separably, one
 *    axis at a time with Felzenszwalb & Huttenlocher's lower envelope of parabolas; a periodic axis
 *    is transformed on its line repeated three times and the middle copy kept.
 * 2. Balls on the discrete medial axis (voxels whose digital ball no nearby voxel's digital ball
 *    contains; ContainmentTable) are painted in, each voxel keeping the largest diameter that
 *    covers it. Skipping a contained ball changes nothing (the larger one paints every voxel it
 *    would, with a larger value), so the result equals the brute-force maximum over all balls.
 * Diameters are 2r - 1 voxels (r = distance to the nearest solid centre), so a slit of k void voxels
 * between two walls has thickness k.
 */

import type { EngineSeries } from '../common/engine';
import { barSeries, histogram, normalised } from './histogram';
import { cumulativePercent, percentFiner } from './sizes';
import { UNITS } from '../common/units';

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
 * solid voxels, >= 1e20 where no solid exists along the transformed axes. `onSlice` is called once
 * a slice's worth of lines (nx·ny voxels) in each of the three passes (a cancel hook).
 */
export function squaredDistanceToSolid(
  solid: Uint8Array,
  dims: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
  onSlice: () => void = () => {},
): Float32Array {
  const [nx, ny, nz] = dims;
  const out = new Float32Array(nx * ny * nz);
  // Along x the input is binary, so the 1D transform is the squared distance to the nearest solid
  // of the row: one scan each way (starting from the row's last / first solid when x wraps).
  for (let row = 0; row < ny * nz; row++) {
    if (row % ny === 0) onSlice();
    const base = row * nx;
    let last = -1, first = -1;
    for (let q = 0; q < nx; q++) if (solid[base + q]) { if (first < 0) first = q; last = q; }
    if (first < 0) { out.fill(INF, base, base + nx); continue; }
    let prev = periodic[0] ? last - nx : -Infinity;
    for (let q = 0; q < nx; q++) {
      if (solid[base + q]) prev = q;
      out[base + q] = q - prev;
    }
    let next = periodic[0] ? first + nx : Infinity;
    for (let q = nx - 1; q >= 0; q--) {
      if (solid[base + q]) next = q;
      const d = Math.min(out[base + q], next - q);
      out[base + q] = d === Infinity ? INF : d * d;
    }
  }
  const maxN = 3 * Math.max(nx, ny, nz);
  const f = new Float64Array(maxN), d = new Float64Array(maxN), zb = new Float64Array(maxN + 1);
  const v = new Int32Array(maxN);
  const axis = (n: number, stride: number, lines: number, lineStart: (l: number) => number, wrap: boolean, linesASlice: number) => {
    const reps = wrap ? 3 : 1;
    for (let l = 0; l < lines; l++) {
      if (l % linesASlice === 0) onSlice();
      const start = lineStart(l);
      for (let r = 0; r < reps; r++) for (let q = 0; q < n; q++) f[r * n + q] = out[start + q * stride];
      transform1d(f, n * reps, d, v, zb);
      const off = wrap ? n : 0;
      for (let q = 0; q < n; q++) out[start + q * stride] = d[off + q];
    }
  };
  axis(ny, nx, nx * nz, (l) => (l % nx) + Math.floor(l / nx) * nx * ny, periodic[1], nx);
  axis(nz, nx * ny, nx * ny, (l) => l, periodic[2], Math.max(1, Math.floor(nx * ny / nz)));
  return out;
}

/**
 * For a digital ball {x : |x|² < D}: the smallest squared radius a ball centred at offset v must
 * have to contain it, i.e. 1 + max |x - v|² over the ball, for every offset class of
 * OFFSET_CLASSES. The maximum lies within one voxel of the ball's surface (from any deeper point a
 * unit step away from v stays in the ball and increases |x - v|), so only that shell is scanned.
 * Cached per D.
 */
class ContainmentTable {
  private readonly cache = new Map<number, Float64Array>();
  of(D: number): Float64Array {
    let req = this.cache.get(D);
    if (req) return req;
    req = new Float64Array(OFFSET_CLASSES.length);
    const R = Math.ceil(Math.sqrt(D)) - 1;
    const innerRadius = Math.max(0, Math.sqrt(D) - 1), inner = innerRadius * innerRadius;
    // |x - v|² = |x|² + 2 v·(-x) + |v|²: by symmetry the maximiser has coordinates of the sign
    // opposite to v's, so x = (-a, -b, -c) with a, b, c >= 0 covers every case.
    for (let a = 0; a <= R; a++) for (let b = 0; b <= R; b++) {
      const ab = a * a + b * b;
      if (ab >= D) break;
      for (let c = Math.ceil(Math.sqrt(Math.max(0, inner - ab))); c <= R; c++) {
        const q = ab + c * c;
        if (q >= D) break;
        for (let k = 0; k < OFFSET_CLASSES.length; k++) {
          const [u, v, w] = OFFSET_CLASSES[k];
          const value = q + 2 * (u * a + v * b + w * c) + u * u + v * v + w * w;
          if (value > req[k]) req[k] = value;
        }
      }
    }
    for (let k = 0; k < req.length; k++) req[k] += 1;
    this.cache.set(D, req);
    return req;
  }
}

/**
 * Neighbour offsets by class (sorted absolute components): face, edge, corner. The ball is
 * symmetric under axis permutations and reflections, so the containment need depends only on the
 * class. (Offsets two voxels away were tried: they remove almost no further balls, since digital
 * balls of neighbouring sizes differ irregularly, and cost more than they save.)
 */
const OFFSET_CLASSES = [[1, 0, 0], [1, 1, 0], [1, 1, 1]];
const CLASS_OF = (dx: number, dy: number, dz: number): number => {
  const s = [Math.abs(dx), Math.abs(dy), Math.abs(dz)].sort((p, q) => q - p);
  return OFFSET_CLASSES.findIndex((c) => c[0] === s[0] && c[1] === s[1] && c[2] === s[2]);
};
/** The 26 neighbours as (dx, dy, dz, class) quadruples. */
const NEIGHBOURS: Int8Array = (() => {
  const list: number[] = [];
  for (let dz = -1; dz <= 1; dz++) for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
    if (dx || dy || dz) list.push(dx, dy, dz, CLASS_OF(dx, dy, dz));
  }
  return Int8Array.from(list);
})();

/**
 * Local thickness (diameter in voxels) of every void voxel; 0 in solid voxels. `d2` is the output
 * of squaredDistanceToSolid over the same grid. `onSlice` is called before each z-slice (a cancel hook).
 */
export function localThickness(
  d2: Float32Array,
  dims: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
  onSlice: () => void = () => {},
): Float32Array {
  const [nx, ny, nz] = dims;
  const slice = nx * ny;
  const thickness = new Float32Array(d2.length);
  // Squared distance of a neighbour, or -1 outside a non-periodic box.
  const at = (x: number, y: number, z: number): number => {
    if (x < 0 || x >= nx) { if (!periodic[0]) return -1; x = (x + nx) % nx; }
    if (y < 0 || y >= ny) { if (!periodic[1]) return -1; y = (y + ny) % ny; }
    if (z < 0 || z >= nz) { if (!periodic[2]) return -1; z = (z + nz) % nz; }
    return d2[x + nx * y + slice * z];
  };
  const need = new ContainmentTable();
  for (let z = 0; z < nz; z++) {
    onSlice();
    for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
      const D = d2[x + nx * y + slice * z];
      if (D === 0 || D >= INF) continue;
      const rp = Math.sqrt(D);
      // Skip the ball when the digital ball of one of the 26 neighbours contains it (a discrete
      // medial axis test after Rémy & Thiel): that ball paints every voxel of this one with a larger diameter.
      const req = need.of(D);
      let contained = false;
      for (let k = 0; k < NEIGHBOURS.length; k += 4) {
        if (at(x + NEIGHBOURS[k], y + NEIGHBOURS[k + 1], z + NEIGHBOURS[k + 2]) >= req[NEIGHBOURS[k + 3]]) { contained = true; break; }
      }
      if (contained) continue;
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
 * The median local thickness by pore volume (every cell one volume), read off the cumulative curve
 * as d50 is read off the gradation: linear between the two neighbouring thicknesses whose percents
 * bracket 50 %. Local thickness takes few distinct values (2r - 1 for whole r²): the middle
 * cell's own value jumps from one of them to the next as the pores change by little.
 */
function medianByVolume(sorted: Float64Array): number {
  const curve = cumulativePercent(sorted, null, sorted.length);
  return percentFiner(curve.x, curve.y, 50);
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
  onSlice: () => void = () => {},
): { series: EngineSeries; mean: number; median: number; max: number } | undefined {
  const [nx, ny] = dims;
  const lt = localThickness(squaredDistanceToSolid(solid, dims, periodic, onSlice), dims, periodic, onSlice);
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
    series: barSeries('pore-size distribution', `local thickness (${UNITS.length})`, 'fraction of pore volume', hist.centres, normalised(hist.counts)),
    mean: sum / sorted.length,
    median: medianByVolume(sorted),
    max: sorted[sorted.length - 1],
  };
}
