/**
 * Structure analysis of a finished packing (issue 5; seed 000 §4, seed 004 Figs. 5 and 7).
 *
 * analyseVoxelPacking: a labelled voxel packing (label = particle index + 1, 0 = void) and its
 * particle table → porosity (global, bulk, profile over z), top-surface height map and RMS
 * roughness, orientation histograms and order parameters, coordination numbers, pore-size
 * distribution, size distributions. Every pass runs over the typed label array without allocating
 * per voxel. analyseSpheres (./spheres) does the same for sphere sets.
 */
import { z } from 'zod';
import type { ColumnTable, EngineResult, EngineSeries, LabelVolume, MetricInfo } from '../common/engine';
import { coordinationFromPairs, voxelContacts } from './contacts';
import { barSeries, histogram, lineSeries, normalised } from './histogram';
import { orderParameter, particleMoments, principalTilts, tiltFromRotation } from './orientation';
import { bedRegions, porosityProfile, scanColumns } from './porosity';
import { poreGridPlan, poreSizeDistribution } from './pores';
import { sizeDistributions, voxelEquivalentDiameters } from './sizes';
import { UNITS } from '../common/units';

export { analyseSpheres, coordinationSeries, sphereAnalysisOptionsSchema, sphereContacts, type SphereAnalysisOptions, type SphereContacts } from './spheres';

const periodicSchema = z.tuple([z.boolean(), z.boolean(), z.boolean()]);

export const voxelAnalysisOptionsSchema = z.object({
  sliceThickness: z.number().gt(0).optional()
    .meta({ unit: UNITS.length, description: 'thickness of the porosity-profile slices (default: one voxel)' }),
  floorLayer: z.number().min(0).optional()
    .meta({ unit: UNITS.length, description: 'floor-affected layer left out of the bulk porosity (default: the largest particle diameter)' }),
  topPercentile: z.number().min(0).max(50).default(5)
    .meta({ unit: '%', description: 'the rough top starts at this percentile of the height map (the valley level)' }),
  bulkTop: z.number().gt(0).optional()
    .meta({ unit: UNITS.length, description: 'top of the bulk region, instead of the valley level' }),
  angleBins: z.number().int().min(2).max(360).default(18)
    .meta({ description: 'bins of the tilt histograms over [0°, 90°]' }),
  bodyAxis: z.tuple([z.number(), z.number(), z.number()]).default([0, 0, 1])
    .refine((a) => Math.hypot(...a) > 0, 'bodyAxis must not be the zero vector')
    .meta({ description: "axis in the particle's initial frame whose tilt the rotation angles give (plate normal, rod axis)" }),
  sizeBins: z.number().int().min(1).max(1000).default(20).meta({ description: 'bins of the size distributions' }),
  poreBins: z.number().int().min(1).max(1000).default(30).meta({ description: 'bins of the pore-size distribution' }),
  poreGridVoxels: z.number().int().min(1000).max(1 << 27).default(1 << 21)
    .meta({ unit: 'voxels', description: 'largest grid the local thickness runs on: larger beds are measured in a centred x-y window (at least four particle diameters wide), else sampled every k-th voxel' }),
  periodic: periodicSchema.optional()
    .meta({ description: 'periodic axes (default: the particle table meta, else [true, true, false])' }),
});
export type VoxelAnalysisOptions = z.input<typeof voxelAnalysisOptionsSchema>;

/**
 * What the voxel analysis reports (engines that run it add these to their metric declarations).
 * Reference volumes: bed = below the top surface, column by column; bulk = slices bulkFrom to
 * bulkTo (see porosity.ts bedRegions).
 */
export const VOXEL_ANALYSIS_METRICS: Record<string, MetricInfo> = {
  bedPorosity: { unit: 'fraction', description: 'porosity of the bed: void / volume below the top surface, column by column (the sum of the height map); 1 − bedSolidFraction' },
  bulkPorosity: { unit: 'fraction', description: 'porosity of the bulk: void / volume of the slices from bulkFrom to bulkTo (above the floor layer, below the valley level of the surface); 1 − bulkSolidFraction' },
  bulkFrom: { unit: UNITS.length, description: 'bottom of the bulk region: the floor layer, one largest equivalent particle diameter' },
  bulkTo: { unit: UNITS.length, description: 'top of the bulk region: the valley level of the surface, the topPercentile-th percentile of the height map' },
  meanHeight: { unit: UNITS.length, description: 'mean height of the top surface over the (x, y) columns' },
  maxHeight: { unit: UNITS.length, description: 'highest point of the top surface' },
  rmsRoughness: { unit: UNITS.length, description: 'RMS deviation of the top surface from its mean height' },
  particles: { description: 'particles analysed (the rows of the particle table)' },
  meanDiameter: { unit: UNITS.length, description: 'mean equivalent diameter by number (diameter of the sphere of equal volume: the voxels a particle holds)' },
  d10: { unit: UNITS.length, description: 'equivalent diameter that 10 % of the solid volume is finer than, interpolated on the gradation curve between neighbouring sizes' },
  d50: { unit: UNITS.length, description: 'equivalent diameter that 50 % of the solid volume is finer than (volume median), interpolated on the gradation curve between neighbouring sizes' },
  d90: { unit: UNITS.length, description: 'equivalent diameter that 90 % of the solid volume is finer than, interpolated on the gradation curve between neighbouring sizes' },
  solidVolume: { unit: UNITS.volume, description: 'volume of all solid voxels in the box' },
  principalAxisOrder: { description: 'order parameter ⟨(3 cos²θ − 1)/2⟩ of the principal-axis tilts to z: 1 aligned with z, −½ horizontal, 0 isotropic' },
  bodyAxisOrder: { description: 'the same order parameter for the body axis turned by the rotation angles' },
  contacts: { description: 'particle pairs with face-adjacent voxels (periodic sides wrap)' },
  coordinationMean: { description: 'mean number of contacts per particle' },
  poreDiameterMean: { unit: UNITS.length, description: 'mean local thickness of the bulk void: at each void voxel the diameter of the largest ball in the void that covers it, 2r − 1 voxels (PoreSpy reports 2r, rounded down to its sizes: about a voxel more)' },
  poreDiameterMedian: { unit: UNITS.length, description: 'median local thickness of the bulk void by pore volume, linear between the two neighbouring thicknesses that bracket 50 % (as d50; see poreDiameterMean)' },
  poreDiameterMax: { unit: UNITS.length, description: 'largest local thickness of the bulk void' },
  poreGridStride: { description: 'pore sizes were measured on every k-th voxel (1: full resolution)' },
  poreWindow: { description: 'the x-y window and height (voxels) the pore sizes were measured in' },
};

export type AnalysisProgress = (done: number, total: number, phase: string) => void;
/**
 * An EngineResult without `cancelled`, plus per-particle values (row i = particle i) for the
 * particle table, so that the inspector can colour by them: the engine adds them with
 * Object.assign(table.columns, result.particleColumns) before it stores the table.
 */
export type AnalysisResult = Omit<EngineResult, 'cancelled'> & { particleColumns: ColumnTable['columns'] };

function rowsOf(table: ColumnTable): number {
  const first = Object.values(table.columns)[0];
  return first ? first.length : 0;
}

/** Thrown by a pass's progress hook once `cancelled` says so; never leaves analyseVoxelPacking. */
class AnalysisCancelled extends Error {}

/**
 * With `cancelled`, asked at each pass's progress stride (16 slices; a z-slice of the pore grid),
 * the analysis stops part-way and returns null once it says so: at 512³ the passes take seconds,
 * the pores with a large poreGridVoxels minutes.
 */
export function analyseVoxelPacking(labels: LabelVolume, particles: ColumnTable, options?: VoxelAnalysisOptions, progress?: AnalysisProgress): AnalysisResult;
export function analyseVoxelPacking(labels: LabelVolume, particles: ColumnTable, options: VoxelAnalysisOptions, progress: AnalysisProgress, cancelled: () => boolean): AnalysisResult | null;
export function analyseVoxelPacking(
  labels: LabelVolume,
  particles: ColumnTable,
  options: VoxelAnalysisOptions = {},
  progress: AnalysisProgress = () => {},
  cancelled: () => boolean = () => false,
): AnalysisResult | null {
  const opts = voxelAnalysisOptionsSchema.parse(options);
  const tick: AnalysisProgress = (done, total, phase) => {
    progress(done, total, phase);
    if (cancelled()) throw new AnalysisCancelled();
  };
  try {
    return analyse(labels, particles, opts, tick);
  } catch (e) {
    if (e instanceof AnalysisCancelled) return null;
    throw e;
  }
}

function analyse(labels: LabelVolume, particles: ColumnTable, opts: z.output<typeof voxelAnalysisOptionsSchema>, progress: AnalysisProgress): AnalysisResult {
  const [nx, ny, nz] = labels.dims;
  if (labels.labels.length !== nx * ny * nz) {
    throw new RangeError(`labels has ${labels.labels.length} voxels, but dims ${nx}x${ny}x${nz} need ${nx * ny * nz}`);
  }
  if (!(labels.voxelSize > 0)) throw new RangeError(`voxelSize must be > 0, got ${labels.voxelSize}`);
  const periodic = opts.periodic ?? (particles.meta?.periodic as [boolean, boolean, boolean] | undefined) ?? [true, true, false];
  const h = labels.voxelSize;
  const n = rowsOf(particles);
  const vol = labels.labels;
  const dims = labels.dims;
  const total = 4 * nz;

  // Pass 1: solid per slice and the height map.
  const scan = scanColumns(vol, dims, (d) => progress(d, total, 'porosity'));
  const area = nx * ny;

  // Sizes: equivalent diameters from the voxels each particle holds in the label volume.
  const moments = particleMoments(vol, dims, periodic, n, (d) => progress(nz + d, total, 'orientation'));
  const diameters = voxelEquivalentDiameters(moments.count, h);
  const volumes = Float64Array.from(moments.count, (c) => c * (h * h * h));
  let maxDiameter = 0;
  for (let p = 0; p < n; p++) if (diameters[p] > maxDiameter) maxDiameter = diameters[p];
  const sizes = sizeDistributions(diameters, volumes, opts.sizeBins);

  // Porosity of the bed (under the top surface) and of the bulk (bedRegions), and the profile.
  const regions = bedRegions(scan, h, { floorLayer: opts.floorLayer ?? maxDiameter, bulkTop: opts.bulkTop, topPercentile: opts.topPercentile });
  const { bulkFrom, bulkTo, heights: hs } = regions;
  const thick = Math.max(1, Math.round((opts.sliceThickness ?? h) / h));
  const profile = porosityProfile(scan.solidPerSlice, area, thick);

  const metrics: AnalysisResult['metrics'] = {
    bedPorosity: 1 - regions.bed,
    meanHeight: hs.mean * h,
    maxHeight: hs.max * h,
    rmsRoughness: hs.rms * h,
  };
  // A bed too shallow for a bulk (valley at or below the floor layer) has no bulk region at all.
  if (!Number.isNaN(regions.bulk)) Object.assign(metrics, { bulkPorosity: 1 - regions.bulk, bulkFrom: bulkFrom * h, bulkTo: bulkTo * h });
  Object.assign(metrics, sizes.metrics);

  const series: EngineSeries[] = [
    lineSeries('porosity profile', `z (${UNITS.length})`, 'porosity', profile.z.map((s) => s * h), profile.porosity),
    ...sizes.series,
  ];

  // Orientation: principal axes from the voxels, and the seed's rotation angles when present.
  const bins = opts.angleBins;
  const tilts = principalTilts(moments);
  const tiltHist = histogram(tilts, 0, 90, bins);
  series.push(barSeries('tilt of principal axis', 'angle to z (degrees)', 'fraction of particles', tiltHist.centres, normalised(tiltHist.counts)));
  const order = orderParameter(tilts);
  if (!Number.isNaN(order)) metrics.principalAxisOrder = order;
  const rotations = rotationStats(particles, opts.bodyAxis, bins);
  Object.assign(metrics, rotations.metrics);
  series.push(...rotations.series);

  // Coordination numbers: face-adjacent voxels of different particles.
  const pairs = voxelContacts(vol, dims, periodic, (d) => progress(2 * nz + d, total, 'contacts'));
  const degree = coordinationFromPairs(pairs, n);
  let maxDeg = 0, sumDeg = 0;
  for (let p = 0; p < n; p++) { sumDeg += degree[p]; if (degree[p] > maxDeg) maxDeg = degree[p]; }
  const coord = histogram(degree, -0.5, maxDeg + 0.5, maxDeg + 1);
  series.push(barSeries('coordination number', 'contacts per particle', 'fraction of particles', coord.centres, normalised(coord.counts)));
  metrics.contacts = pairs.size;
  metrics.coordinationMean = n ? sumDeg / n : 0;

  // Pores in the bed below the valley level, the floor as a wall, counted in the bulk.
  // The last quarter: minutes at 512³ with a large poreGridVoxels, where the progress stood at 75 %.
  const pores = poreSizes(vol, dims, periodic, bulkTo, bulkFrom, opts.poreGridVoxels, opts.poreBins, h, Math.ceil(maxDiameter / h), (d, of) => progress(3 * nz + Math.floor((nz * d) / of), total, 'pores'));
  if (pores) {
    series.push(pores.series);
    metrics.poreDiameterMean = pores.mean;
    metrics.poreDiameterMedian = pores.median;
    metrics.poreDiameterMax = pores.max;
    metrics.poreGridStride = pores.stride;
    metrics.poreWindow = pores.window;
  }
  progress(total, total, 'done');

  const heightmap: LabelVolume = {
    kind: 'volume',
    name: 'heightmap',
    dims: [nx, ny, 1],
    voxelSize: h,
    labels: scan.height,
    // Pixels are voxelSize wide in the run's length unit; the values are heights in voxels.
    meta: { valueUnit: 'voxels', description: 'per column: index of the top occupied voxel + 1 (0 = empty column)' },
  };
  const particleColumns: ColumnTable['columns'] = {
    coordination: Uint16Array.from(degree, (d) => Math.min(d, 65535)),
    principalTilt: Float32Array.from(tilts),
    equivalentDiameter: diameters,
    ...rotations.particleColumns,
  };
  return { metrics, series, artifacts: [heightmap], particleColumns };
}

/** Tilt of the body axis from the seed's rotation angles rx, ry, rz, and histograms of the angles themselves. */
function rotationStats(particles: ColumnTable, bodyAxis: readonly [number, number, number], bins: number): Pick<AnalysisResult, 'metrics' | 'series' | 'particleColumns'> {
  const { rx, ry, rz } = particles.columns;
  if (!rx || !ry || !rz) return { metrics: {}, series: [], particleColumns: {} };
  const n = rx.length;
  const bodyTilt = new Float64Array(n);
  for (let p = 0; p < n; p++) bodyTilt[p] = tiltFromRotation(rx[p], ry[p], bodyAxis);
  const bh = histogram(bodyTilt, 0, 90, bins);
  const series = [barSeries('tilt of body axis', 'angle to z (degrees)', 'fraction of particles', bh.centres, normalised(bh.counts))];
  for (const [name, col] of [['rx', rx], ['ry', ry], ['rz', rz]] as const) {
    const wrapped = Float64Array.from(col, (a) => ((a % 360) + 360) % 360);
    const rh = histogram(wrapped, 0, 360, 36);
    series.push(barSeries(`rotation angle ${name}`, `${name} (degrees)`, 'fraction of particles', rh.centres, normalised(rh.counts)));
  }
  return { metrics: { bodyAxisOrder: orderParameter(bodyTilt) }, series, particleColumns: { bodyTilt: Float32Array.from(bodyTilt) } };
}

/**
 * What a voxel run without a label volume still allows: size distributions from the particle
 * table's voxel counts (meta.resolution voxels per length unit) and orientation from its rotation
 * angles. Porosity and the bed's other statistics come from the engine itself in that case.
 */
export function analyseParticleTable(particles: ColumnTable, options: Pick<VoxelAnalysisOptions, 'angleBins' | 'bodyAxis' | 'sizeBins'> = {}): AnalysisResult {
  const opts = voxelAnalysisOptionsSchema.parse(options);
  const { voxels } = particles.columns;
  const resolution = particles.meta?.resolution;
  const metrics: AnalysisResult['metrics'] = {};
  const series: EngineSeries[] = [];
  if (voxels) {
    if (typeof resolution !== 'number' || !(resolution > 0)) throw new RangeError(`particle table meta.resolution must be a positive number of voxels per length unit, got ${String(resolution)}`);
    const volumes = Float64Array.from(voxels, (v) => v / (resolution * resolution * resolution));
    const sizes = sizeDistributions(voxelEquivalentDiameters(voxels, 1 / resolution), volumes, opts.sizeBins);
    Object.assign(metrics, sizes.metrics);
    series.push(...sizes.series);
  }
  const rotations = rotationStats(particles, opts.bodyAxis, opts.angleBins);
  Object.assign(metrics, rotations.metrics);
  series.push(...rotations.series);
  return { metrics, series, artifacts: [], particleColumns: rotations.particleColumns };
}

/**
 * Local-thickness pore sizes of the bed z in [0, zTop) with the floor as a wall, on at most
 * maxVoxels cells (poreGridPlan: a full-resolution x-y window of at least four largest diameters,
 * else a strided grid), counted over slices [countFrom, zTop) (the whole bed when that is empty).
 */
function poreSizes(
  vol: Uint32Array,
  dims: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
  zTop: number,
  countFrom: number,
  maxVoxels: number,
  bins: number,
  h: number,
  maxDiameterVoxels: number,
  progress: (done: number, total: number) => void,
): { series: EngineSeries; mean: number; median: number; max: number; stride: number; window: string } | undefined {
  const [nx, ny] = dims;
  if (zTop < 1) return undefined;
  const plan = poreGridPlan(nx, ny, zTop, maxVoxels, 4 * maxDiameterVoxels, maxDiameterVoxels / 2);
  const { stride: s, x0, y0, wx, wy } = plan;
  const cz = Math.max(1, Math.floor(zTop / s)) + 1; // + the floor slice, all solid
  // poreSizeDistribution's passes call onSlice about once a grid slice each: four passes.
  let slices = 0;
  const onSlice = () => progress(Math.min(slices++, 4 * cz - 1), 4 * cz);
  const solid = new Uint8Array(wx * wy * cz);
  const off = s >> 1;
  solid.fill(1, 0, wx * wy);
  for (let k = 1; k < cz; k++) for (let j = 0; j < wy; j++) {
    const src = nx * ((y0 + j) * s + off + ny * ((k - 1) * s + off));
    const dst = wx * (j + wy * k);
    for (let i = 0; i < wx; i++) solid[dst + i] = vol[src + (x0 + i) * s + off] !== 0 ? 1 : 0;
  }
  const mx = plan.wholeX ? 0 : plan.margin, my = plan.wholeY ? 0 : plan.margin;
  const from: [number, number, number] = [mx, my, countFrom < zTop ? Math.floor(countFrom / s) + 1 : 1];
  const to: [number, number, number] = [wx - mx, wy - my, cz];
  const grid: [boolean, boolean, boolean] = [periodic[0] && plan.wholeX, periodic[1] && plan.wholeY, false];
  const pores = poreSizeDistribution(solid, [wx, wy, cz], grid, from, to, s * h, bins, onSlice);
  return pores && { ...pores, stride: s, window: `${wx * s}x${wy * s}x${zTop} voxels` };
}
