/**
 * Porosity of a labelled voxel packing (seed 000 §4): one pass over the volume counts the solid
 * voxels of every z-slice and records every column's top occupied voxel (the height map). From
 * those two arrays follow the global porosity, the profile over z, the bulk porosity and the RMS
 * roughness of the top surface.
 *
 * Which region is "bulk": the floor-affected layer is the first `floorLayer` of height (default one
 * largest particle diameter, the distance over which a flat wall orders a packing); the rough top
 * is everything above the valley level of the surface, the `topPercentile`-th percentile of the
 * height map (default 5 %: 95 % of the columns are filled at least that high). Between the two the
 * packing is statistically homogeneous in z.
 */
import { quantile } from './histogram';

export interface ColumnScan {
  /** Solid voxels in each z-slice. */
  solidPerSlice: Float64Array;
  /** Per column (x + nx*y): index of the top occupied voxel + 1; 0 for an empty column. */
  height: Uint32Array;
  solidVoxels: number;
}

export function scanColumns(
  labels: Uint32Array,
  dims: readonly [number, number, number],
  progress?: (doneSlices: number) => void,
): ColumnScan {
  const [nx, ny, nz] = dims;
  const slice = nx * ny;
  const solidPerSlice = new Float64Array(nz);
  const height = new Uint32Array(slice);
  let total = 0;
  for (let z = 0; z < nz; z++) {
    const base = z * slice;
    let count = 0;
    for (let c = 0; c < slice; c++) {
      if (labels[base + c] !== 0) {
        count++;
        height[c] = z + 1;
      }
    }
    solidPerSlice[z] = count;
    total += count;
    if (progress && (z & 15) === 15) progress(z + 1);
  }
  return { solidPerSlice, height, solidVoxels: total };
}

/** Porosity (1 - solid fraction) in slabs of `thickness` slices: slab centres (in slices) and values. */
export function porosityProfile(solidPerSlice: Float64Array, sliceArea: number, thickness: number): { z: Float64Array; porosity: Float64Array } {
  const nz = solidPerSlice.length;
  const n = Math.ceil(nz / thickness);
  const z = new Float64Array(n), porosity = new Float64Array(n);
  for (let s = 0; s < n; s++) {
    const z0 = s * thickness, z1 = Math.min(nz, z0 + thickness);
    let solid = 0;
    for (let k = z0; k < z1; k++) solid += solidPerSlice[k];
    z[s] = (z0 + z1) / 2;
    porosity[s] = 1 - solid / (sliceArea * (z1 - z0));
  }
  return { z, porosity };
}

export interface HeightStats {
  mean: number;
  /** RMS roughness: root mean square deviation of the height map from its mean. */
  rms: number;
  min: number;
  max: number;
  /** Valley level: the given percentile of the heights. */
  valley: number;
}

export function heightStats(height: ArrayLike<number>, topPercentile: number): HeightStats {
  const n = height.length;
  let sum = 0, min = Infinity, max = -Infinity;
  for (let i = 0; i < n; i++) {
    const h = height[i];
    sum += h;
    if (h < min) min = h;
    if (h > max) max = h;
  }
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += (height[i] - mean) * (height[i] - mean);
  const sorted = Float64Array.from(height).sort();
  return { mean, rms: Math.sqrt(sq / n), min, max, valley: quantile(sorted, topPercentile / 100) };
}

/** 1 - solid / volume over slices [z0, z1); NaN when the range is empty. */
export function porosityBetween(solidPerSlice: Float64Array, sliceArea: number, z0: number, z1: number): number {
  if (!(z1 > z0)) return NaN;
  let solid = 0;
  for (let k = z0; k < z1; k++) solid += solidPerSlice[k];
  return 1 - solid / (sliceArea * (z1 - z0));
}

/**
 * The three reference volumes of a voxel bed, one definition for the engine's solid fractions and
 * the analysis' porosities (which are 1 minus them):
 * - bed: the voxels below the top surface, column by column (the sum of the height map);
 * - bulk: slices [bulkFrom, bulkTo): above the floor layer (`floorLayer`, length) and below the
 *   valley level (`topPercentile` of the height map) or `bulkTop` (length); NaN when empty;
 * - box: every voxel of the box.
 */
export interface BedRegions {
  bed: number;
  bulk: number;
  /** Bulk range in slices. */
  bulkFrom: number;
  bulkTo: number;
  box: number;
  heights: HeightStats;
}

export function bedRegions(
  scan: ColumnScan,
  voxelSize: number,
  o: { floorLayer: number; bulkTop?: number; topPercentile: number },
): BedRegions {
  const area = scan.height.length, nz = scan.solidPerSlice.length;
  const heights = heightStats(scan.height, o.topPercentile);
  let bedVoxels = 0;
  for (let c = 0; c < area; c++) bedVoxels += scan.height[c];
  const bulkFrom = Math.min(nz, Math.ceil(o.floorLayer / voxelSize));
  const bulkTo = o.bulkTop !== undefined ? Math.min(nz, Math.round(o.bulkTop / voxelSize)) : Math.floor(heights.valley);
  return {
    bed: bedVoxels > 0 ? scan.solidVoxels / bedVoxels : 0,
    bulk: 1 - porosityBetween(scan.solidPerSlice, area, bulkFrom, bulkTo),
    bulkFrom,
    bulkTo,
    box: scan.solidVoxels / (area * nz),
    heights,
  };
}
