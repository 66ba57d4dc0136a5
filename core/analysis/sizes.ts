/**
 * Size distributions of a particle set by number and by volume, and the gradation curve
 * (cumulative volume percent finer than a diameter; seed 004 specifies packings by it). Sizes are
 * equivalent-sphere diameters, d = (6 V / π)^(1/3), so voxel particles of any shape and spheres
 * compare on one axis.
 */
import type { EngineSeries } from '../common/engine';
import { barSeries, histogram, lineSeries, normalised } from './histogram';

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

/** Distributions of diameters d (with volumes v) in `bins` bins; d10/d50/d90 by volume. */
export function sizeDistributions(d: Float64Array, v: Float64Array, bins: number, unit: string): SizeStats {
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
  // Gradation: sort by diameter and accumulate volume.
  const order = Uint32Array.from({ length: d.length }, (_, i) => i).sort((a, b) => d[a] - d[b]);
  const gx = new Float64Array(d.length), gy = new Float64Array(d.length);
  let acc = 0;
  for (let k = 0; k < order.length; k++) {
    acc += v[order[k]];
    gx[k] = d[order[k]];
    gy[k] = (100 * acc) / totalV;
  }
  const passing = (p: number) => {
    for (let k = 0; k < gy.length; k++) if (gy[k] >= p) return gx[k];
    return gx[gx.length - 1];
  };
  const xLabel = `equivalent diameter (${unit})`;
  return {
    series: [
      barSeries('size distribution by number', xLabel, 'number fraction', byNumber.centres, normalised(byNumber.counts)),
      barSeries('size distribution by volume', xLabel, 'volume fraction', byVolume.centres, normalised(byVolume.counts)),
      lineSeries('gradation (cumulative volume passing)', xLabel, 'percent finer by volume', gx, gy),
    ],
    metrics: {
      particles: d.length,
      meanDiameter: sumD / d.length,
      d10: passing(10),
      d50: passing(50),
      d90: passing(90),
      solidVolume: totalV,
    },
  };
}
