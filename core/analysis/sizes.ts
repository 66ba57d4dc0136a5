/**
 * Size distributions of a particle set by number and by volume, and the gradation curve
 * (cumulative volume percent finer than a diameter; seed 004 specifies packings by it). Sizes are
 * equivalent-sphere diameters, d = (6 V / π)^(1/3), so voxel particles of any shape and spheres
 * compare on one axis.
 */
import type { EngineSeries } from '../common/engine';
import { barSeries, histogram, lineSeries, normalised } from './histogram';
import { UNITS } from '../common/units';

export interface SizeStats {
  series: EngineSeries[];
  metrics: Record<string, number>;
}

export function equivalentDiameter(volume: number): number {
  return Math.cbrt((6 * volume) / Math.PI);
}

/**
 * Equivalent diameters of voxel particles from the voxels each holds (the label volume's count,
 * the particle table's `voxels`): the one size definition behind the particle table's
 * equivalentDiameter, the size distributions and the LAMMPS dump's radius, so that their sphere
 * volumes add up to the solid volume of the packing.
 */
export function voxelEquivalentDiameters(voxels: ArrayLike<number>, voxelSize: number): Float64Array {
  const d = new Float64Array(voxels.length);
  const voxelVolume = voxelSize * voxelSize * voxelSize;
  for (let p = 0; p < voxels.length; p++) d[p] = equivalentDiameter(voxels[p] * voxelVolume);
  return d;
}

/** Distributions of diameters d (with volumes v) in `bins` bins; d10/d50/d90 by volume (percentFiner). */
export function sizeDistributions(d: Float64Array, v: Float64Array, bins: number): SizeStats {
  if (d.length === 0) return { series: [], metrics: { particles: 0 } };
  let lo = Infinity, hi = -Infinity, totalV = 0, sumD = 0;
  for (let i = 0; i < d.length; i++) {
    if (d[i] < lo) lo = d[i];
    if (d[i] > hi) hi = d[i];
    totalV += v[i];
    sumD += d[i];
  }
  const byNumber = histogram(d, lo, hi, bins);
  const byVolume = histogram(d, lo, hi, bins, v);
  // Gradation: sorted by diameter, so that the curve drawn is the one percentFiner reads.
  const order = Uint32Array.from({ length: d.length }, (_, i) => i).sort((a, b) => d[a] - d[b]);
  const { x: gx, y: gy } = cumulativePercent(Float64Array.from(order, (i) => d[i]), Float64Array.from(order, (i) => v[i]), totalV);
  const xLabel = `equivalent diameter (${UNITS.length})`;
  return {
    series: [
      barSeries('size distribution by number', xLabel, 'number fraction', byNumber.centres, normalised(byNumber.counts)),
      barSeries('size distribution by volume', xLabel, 'volume fraction', byVolume.centres, normalised(byVolume.counts)),
      lineSeries('gradation (cumulative volume passing)', xLabel, 'percent finer by volume', gx, gy),
    ],
    metrics: {
      particles: d.length,
      meanDiameter: sumD / d.length,
      d10: percentFiner(gx, gy, 10),
      d50: percentFiner(gx, gy, 50),
      d90: percentFiner(gx, gy, 90),
      solidVolume: totalV,
    },
  };
}

/**
 * The cumulative curve of sizes sorted ascending (`weight[k]` held at `sorted[k]`, each 1 when
 * null): one point per distinct size, the percent of `total` held at or below it (its members all
 * count at it, as a sieve holds them all). The curve percentFiner reads: the gradation by volume,
 * and the pore-size distribution by pore volume (pores.ts).
 */
export function cumulativePercent(sorted: Float64Array, weight: Float64Array | null, total: number): { x: Float64Array; y: Float64Array } {
  const x = new Float64Array(sorted.length), y = new Float64Array(sorted.length);
  let acc = 0, sizes = 0;
  for (let k = 0; k < sorted.length; k++) {
    acc += weight ? weight[k] : 1;
    if (k + 1 < sorted.length && sorted[k + 1] === sorted[k]) continue;
    x[sizes] = sorted[k];
    y[sizes++] = (100 * acc) / total;
  }
  return { x: x.slice(0, sizes), y: y.slice(0, sizes) };
}

/**
 * The diameter that p percent of the solid volume is finer than, read off a gradation curve (gx
 * distinct diameters ascending, gy the cumulative percent by volume at each) as sieve analysis reads
 * d10, d50 and d90: linearly in the percent between the two neighbouring sizes whose percents
 * bracket p, so that a gradation of a few size classes gives values between its classes, not the
 * class above. Below the finest size's own percent nothing finer is known: the finest size. Sizes
 * holding no volume (a particle clipped to no voxel) are not on the curve.
 */
export function percentFiner(gx: Float64Array, gy: Float64Array, p: number): number {
  // The first point at or above p (gy never decreases).
  let lo = 0, hi = gy.length - 1;
  if (!(gy[hi] >= p)) return gx[hi];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (gy[mid] >= p) hi = mid;
    else lo = mid + 1;
  }
  if (lo === 0 || !(gy[lo - 1] > 0)) return gx[lo];
  return gx[lo - 1] + ((p - gy[lo - 1]) / (gy[lo] - gy[lo - 1])) * (gx[lo] - gx[lo - 1]);
}
