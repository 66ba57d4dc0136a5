/**
 * Structure analysis of a sphere set (stacking and event-driven runs; seed 004): coordination by
 * gap tolerance (two spheres touch when the gap between their surfaces is at most the tolerance),
 * radial distribution function, size distributions, and porosity computed exactly from sphere
 * slices: the volume of a sphere between two heights is analytic, so the profile over z, the bulk
 * and the bed porosity need no voxelisation.
 *
 * Conventions: the box is [0, lx] x [0, ly] with the floor at z = 0; periodic axes use the minimum
 * image; spheres are assumed not to overlap for the porosity (maxOverlap reports how far that holds).
 * The RDF is read in a window over the whole x-y area of the box: the bed, z in [0, mean height]
 * (the box, z in [0, lz], for a set with no bulk region: a gas, a single layer). Its references and
 * neighbours are the centres inside it, its density theirs over the window's volume, and each pair
 * counts with the isotropic (Ripley) edge correction, the inverse of the part of its sphere inside
 * the window, so that neither the floor and the top nor the sides that are not periodic pull it below 1.
 * A box periodic in z is a cell with no floor and no top surface: its region is the box (bed and,
 * by default, bulk), no height map is reported, and the RDF is normalised by the box's density.
 */
import { z } from 'zod';
import type { ColumnTable, EngineSeries } from '../common/engine';
import { barSeries, histogram, lineSeries, normalised, quantile } from './histogram';
import { sizeDistributions } from './sizes';
import { poreGridPlan, poreSizeDistribution } from './pores';
import { SphereGrid } from './neighbours';
import { sphereSliceVolumeIn, sphereSurfaceInBox } from './boxcut';
import type { AnalysisProgress, AnalysisResult } from './index';
import { UNITS } from '../common/units';

export const sphereAnalysisOptionsSchema = z.object({
  gapTolerance: z.number().min(0).optional()
    .meta({ unit: UNITS.length, description: 'largest surface gap that still counts as a contact (default 1 % of the mean diameter)' }),
  rdfBins: z.number().int().min(1).max(10000).default(100).meta({ description: 'bins of the radial distribution function' }),
  rdfMaxDistance: z.number().gt(0).optional()
    .meta({ unit: UNITS.length, description: 'RDF range (default 5 mean diameters, at most half the smallest periodic side)' }),
  rdfReferences: z.number().int().min(1).default(5000)
    .meta({ description: 'spheres (evenly spread over the table) whose neighbours make the RDF, those among them centred in its slab; all of them when fewer' }),
  sliceThickness: z.number().gt(0).optional()
    .meta({ unit: UNITS.length, description: 'porosity-profile slice thickness (default a tenth of the mean diameter)' }),
  floorLayer: z.number().min(0).optional()
    .meta({ unit: UNITS.length, description: 'floor-affected layer left out of the bulk porosity (default the largest diameter; z periodic: 0)' }),
  topPercentile: z.number().min(0).max(50).default(5)
    .meta({ unit: '%', description: 'the rough top starts at this percentile of the height map' }),
  bulkTop: z.number().gt(0).optional()
    .meta({ unit: UNITS.length, description: 'top of the bulk region, instead of the valley level of the height map (z periodic: at most the box height, its default)' }),
  poreBins: z.number().int().min(1).max(1000).default(30).meta({ description: 'bins of the pore-size distribution' }),
  poreGridVoxels: z.number().int().min(1000).max(1 << 27).default(1 << 21)
    .meta({ unit: 'cells', description: 'cells of the grid the spheres are rasterised on (twenty per smallest diameter) for the local thickness of the pores; larger beds are measured in a centred x-y window of at least four largest diameters, else on a coarser grid' }),
  heightMapCells: z.number().int().min(16).max(4096).default(256)
    .meta({ description: 'height-map samples along the longer box side' }),
  sizeBins: z.number().int().min(1).max(1000).default(20).meta({ description: 'bins of the size distributions' }),
  periodic: z.tuple([z.boolean(), z.boolean(), z.boolean()]).optional()
    .meta({ description: 'periodic axes (default: the table meta, else [true, true, false])' }),
});
export type SphereAnalysisOptions = z.input<typeof sphereAnalysisOptionsSchema>;

/** Volume of a sphere of radius r centred at c lying between heights a and b. */
export function sphereSliceVolume(c: number, r: number, a: number, b: number): number {
  const t0 = Math.max(-r, a - c), t1 = Math.min(r, b - c);
  if (t1 <= t0) return 0;
  return Math.PI * (r * r * (t1 - t0) - (t1 * t1 * t1 - t0 * t0 * t0) / 3);
}

/**
 * Where each pass of analyseSpheres ends on its progress scale (of 100), by its share of the time on
 * 10⁶ spheres in a bed with the default pore grid: sizes 14 %, contacts 31 %, the height map, the
 * porosity and the RDF (after them: it is read in the bed they find) 5 % each, the pores 40 % (a
 * quarter of it rasterising the spheres).
 */
const PASS_END = { sizes: 15, contacts: 45, heightMap: 50, porosity: 55, rdf: 60, pores: 100 };

/**
 * With `progress`, told (done of 100, the pass under way) as each pass starts, and along the
 * contacts (every 16,384 spheres) and the pores (every 65,536 spheres rasterised, then once a grid
 * slice per pass of the local thickness): 10⁶ spheres take seconds.
 */
export function analyseSpheres(
  table: ColumnTable,
  box: readonly [number, number, number],
  options: SphereAnalysisOptions = {},
  progress: AnalysisProgress = () => {},
): AnalysisResult {
  const opts = sphereAnalysisOptionsSchema.parse(options);
  for (const c of ['x', 'y', 'z', 'r']) {
    if (!table.columns[c]) throw new Error(`sphere table '${table.name}' lacks column '${c}' (needs x, y, z, r)`);
  }
  box.forEach((l, a) => {
    if (!(l > 0) || !Number.isFinite(l)) throw new RangeError(`box[${a}] must be a positive length, got ${l}`);
  });
  const periodic = opts.periodic ?? (table.meta?.periodic as [boolean, boolean, boolean] | undefined) ?? [true, true, false];
  const [lx, ly, lz] = box;
  // A cell periodic in z has no floor and no top surface: its region is the box, z in [0, lz),
  // which the parts of spheres sticking out of either end reach from the other (their images).
  const cellZ = periodic[2];
  if (cellZ && opts.bulkTop !== undefined && opts.bulkTop > lz) {
    throw new RangeError(`bulkTop ${opts.bulkTop} is above the box (z periodic, height ${lz}); allowed (0, ${lz}]`);
  }
  const x = Float64Array.from(table.columns.x), y = Float64Array.from(table.columns.y);
  const zc = Float64Array.from(table.columns.z), r = Float64Array.from(table.columns.r);
  const n = x.length;

  let sumD = 0, rmax = 0, rmin = Infinity, top = 0;
  for (let i = 0; i < n; i++) {
    if (!(r[i] > 0)) throw new RangeError(`sphere ${i}: radius must be > 0, got ${r[i]}`);
    sumD += 2 * r[i];
    if (r[i] > rmax) rmax = r[i];
    if (r[i] < rmin) rmin = r[i];
    if (zc[i] + r[i] > top) top = zc[i] + r[i];
  }
  const meanD = n ? sumD / n : 0;
  const metrics: AnalysisResult['metrics'] = {};
  const series: EngineSeries[] = [];
  if (n === 0) return { metrics: { particles: 0 }, series, artifacts: [], particleColumns: {} };

  // Sizes.
  progress(0, 100, 'sizes');
  const d = r.map((v) => 2 * v), v = r.map((v) => (4 / 3) * Math.PI * v * v * v);
  const sizes = sizeDistributions(d, v, opts.sizeBins);
  Object.assign(metrics, sizes.metrics);
  series.push(...sizes.series);

  // Contacts.
  const tol = opts.gapTolerance ?? 0.01 * meanD;
  const halfSide = Math.min(...[0, 1, 2].filter((a) => periodic[a]).map((a) => box[a] / 2), Infinity);
  // The default range is cut to half the smallest periodic side; a range typed beyond it was cut the same way, without a word.
  if (opts.rdfMaxDistance !== undefined && opts.rdfMaxDistance > halfSide) {
    const a = [0, 1, 2].find((k) => periodic[k] && box[k] / 2 === halfSide)!;
    throw new RangeError(`rdfMaxDistance ${opts.rdfMaxDistance} is more than half the smallest periodic side (${'xyz'[a]}: ${box[a]}): a neighbour there would be counted through two of its images; allowed (0, ${halfSide}]`);
  }
  const rdfMax = Math.min(opts.rdfMaxDistance ?? 5 * meanD, halfSide);
  const { degree, contacts, overlappingPairs: overlaps, maxOverlap } = sphereContacts(x, y, zc, r, box, periodic, tol, (done, total) => {
    progress(PASS_END.sizes + ((PASS_END.contacts - PASS_END.sizes) * done) / total, 100, 'contacts');
    return false;
  })!;
  series.push(coordinationSeries(degree));
  metrics.contacts = contacts;
  metrics.coordinationMean = (2 * contacts) / n;
  metrics.gapTolerance = tol;
  metrics.maxOverlap = maxOverlap;
  metrics.overlappingPairs = overlaps;

  let hMean = lz, valley = opts.bulkTop ?? lz;
  progress(PASS_END.contacts, 100, 'height map');
  if (!cellZ) {
    const surface = topSurface(x, y, zc, r, lx, ly, periodic, opts.heightMapCells);
    hMean = surface.mean;
    valley = opts.bulkTop ?? quantile(surface.sorted, opts.topPercentile / 100);
    metrics.meanHeight = surface.mean;
    metrics.rmsRoughness = surface.rms;
  }

  // Porosity: exact sphere slices.
  progress(PASS_END.heightMap, 100, 'porosity');
  const area = lx * ly;
  const dz = opts.sliceThickness ?? meanD / 10;
  const extent = cellZ ? lz : top;
  const slices = Math.max(1, Math.ceil(extent / dz));
  if (slices > 1e7) throw new RangeError(`sliceThickness ${dz} gives ${slices} slices over height ${extent}; at most 1e7`);
  const solidPerSlice = new Float64Array(slices);
  let solidBed = 0, solidBulk = 0;
  const floorLayer = opts.floorLayer ?? (cellZ ? 0 : 2 * rmax);
  // Volume of sphere i (centred at height c) between heights a and b in the box: a side that is not
  // periodic and cuts the sphere leaves the part beyond it out.
  const slab = (i: number, c: number, a: number, b: number): number => {
    const cutX = !periodic[0] && (x[i] - r[i] < 0 || x[i] + r[i] > lx), cutY = !periodic[1] && (y[i] - r[i] < 0 || y[i] + r[i] > ly);
    if (!cutX && !cutY) return sphereSliceVolume(c, r[i], a, b);
    return sphereSliceVolumeIn(x[i], y[i], c, r[i], a, b, cutX ? 0 : -Infinity, cutX ? lx : Infinity, cutY ? 0 : -Infinity, cutY ? ly : Infinity);
  };
  for (let i = 0; i < n; i++) {
    // In a cell periodic in z, the sphere and its images above and below, each where it lies in the box.
    const home = cellZ ? zc[i] - lz * Math.floor(zc[i] / lz) : zc[i];
    for (let image = cellZ ? -1 : 0; image <= (cellZ ? 1 : 0); image++) {
      const c = home + image * lz;
      const s0 = Math.max(0, Math.floor((c - r[i]) / dz)), s1 = Math.min(slices - 1, Math.floor((c + r[i]) / dz));
      for (let s = s0; s <= s1; s++) solidPerSlice[s] += slab(i, c, s * dz, cellZ ? Math.min((s + 1) * dz, lz) : (s + 1) * dz);
      solidBulk += slab(i, c, floorLayer, valley);
    }
    // The bed runs from the floor z = 0 up: a sphere reaching below it (centred on z = 0, as a 2D set's disks) counts its part above.
    // A cell periodic in z holds every sphere whole (what sticks out of one end comes in at the other).
    solidBed += cellZ ? slab(i, zc[i], -Infinity, Infinity) : slab(i, zc[i], 0, Infinity);
  }
  const pz = new Float64Array(slices), py = new Float64Array(slices);
  for (let s = 0; s < slices; s++) {
    // The last slice of a cell periodic in z ends at the box top.
    const thickness = cellZ ? Math.min(dz, lz - s * dz) : dz;
    pz[s] = thickness === dz ? (s + 0.5) * dz : s * dz + thickness / 2;
    py[s] = 1 - solidPerSlice[s] / (area * thickness);
  }
  series.push(lineSeries('porosity profile', `z (${UNITS.length})`, 'porosity', pz, py));
  // The bed: everything below the top surface, column by column (as for voxel beds); a cell periodic in z: the box.
  metrics.bedPorosity = 1 - solidBed / (area * hMean);
  if (valley > floorLayer) {
    metrics.bulkPorosity = 1 - solidBulk / (area * (valley - floorLayer));
    metrics.bulkFrom = floorLayer;
    metrics.bulkTo = valley;
  }

  progress(PASS_END.porosity, 100, 'rdf');
  const rdf = radialDistribution(x, y, zc, box, periodic, !cellZ && metrics.bulkPorosity !== undefined ? hMean : lz, rdfMax, opts.rdfBins, opts.rdfReferences);

  progress(PASS_END.rdf, 100, 'pores');
  const pores = spherePores(x, y, zc, r, box, valley, floorLayer, periodic, opts.poreGridVoxels, opts.poreBins, rmin, rmax, (done, total) => progress(PASS_END.rdf + ((PASS_END.pores - PASS_END.rdf) * done) / total, 100, 'pores'));
  if (pores) {
    series.push(pores.series);
    metrics.poreDiameterMean = pores.mean;
    metrics.poreDiameterMedian = pores.median;
    metrics.poreDiameterMax = pores.max;
    metrics.poreGridSpacing = pores.spacing;
    metrics.poreWindow = pores.window;
  }
  if (rdf) series.push(rdf);

  progress(100, 100, 'done');
  return { metrics, series, artifacts: [], particleColumns: { coordination: Uint16Array.from(degree, (d) => Math.min(d, 65535)) } };
}

/**
 * The radial distribution function g(r) of sphere centres, in `bins` shells out to rdfMax, read in
 * the window W: the box along x and y, z in [0, height] (the slab of the bed, or the box), each
 * periodic axis whole. For `references` spheres evenly spread over the table, those centred in W,
 * every neighbour centred in W at distance d counts with the isotropic (Ripley) edge correction, the
 * inverse of the fraction f_i(d) of the sphere of radius d about the reference that lies inside W
 * (boxcut.ts sphereSurfaceInBox, closed form; 1 along periodic axes, rdfMax being at most half a
 * periodic side, so a shell never meets itself there):
 *
 *   g(b) = Σ_i Σ_j [d_ij in b] / f_i(d_ij) / (ρ n_ref V(b)),  ρ = centres in W / |W|,  V(b) the whole shell
 *
 * In a homogeneous, isotropic set the neighbours at distance d of a reference lie in W in the
 * proportion f_i(d), in expectation, so each reference's weighted count is unbiased on its own, wherever
 * the references lie. They are picked by table row, which can follow a lattice's rows (the bench's
 * 100³ lattice picks every 200th row, all at x = 0.5): the translation correction, whose weight is
 * the same wherever the reference lies, would need them spread uniformly over W. So an ideal gas
 * reads 1 out to the largest r against the floor, the top and non-periodic sides alike. The bed's floor and top are W's: its
 * layering over the floor and its thinning rough top stay in g, as structure. Undefined when no
 * reference lies in W.
 */
function radialDistribution(
  x: Float64Array, y: Float64Array, zc: Float64Array,
  box: readonly [number, number, number], periodic: readonly [boolean, boolean, boolean],
  height: number, rdfMax: number, bins: number, references: number,
): EngineSeries | undefined {
  const n = x.length;
  const [lx, ly] = box;
  // W's bounds, unbounded along periodic axes (a test a pair, so no look-up of `periodic` in it).
  const x0 = periodic[0] ? -Infinity : 0, y0 = periodic[1] ? -Infinity : 0, z0 = periodic[2] ? -Infinity : 0;
  const x1 = periodic[0] ? Infinity : lx, y1 = periodic[1] ? Infinity : ly, z1 = periodic[2] ? Infinity : height;
  const inWindow = (i: number) => x[i] >= x0 && x[i] <= x1 && y[i] >= y0 && y[i] <= y1 && zc[i] >= z0 && zc[i] <= z1;
  let centres = 0;
  for (let i = 0; i < n; i++) if (inWindow(i)) centres++;
  const counts = new Float64Array(bins);
  // The reference's distances to W's six sides (Infinity along periodic axes), and the nearest.
  const sides = new Float64Array(6).fill(Infinity);
  let nearest = Infinity;
  const grid = new SphereGrid(x, y, zc, box, periodic, rdfMax);
  const countNeighbour = (j: number, dist: number) => {
    if (!inWindow(j)) return;
    // Within the nearest side the sphere is whole (most pairs of a bed): weight 1, no trigonometry.
    counts[Math.min(bins - 1, Math.floor((dist / rdfMax) * bins))] += dist <= nearest ? 1 : 1 / sphereSurfaceInBox(sides, dist);
  };
  const refs = Math.min(n, references);
  let used = 0;
  for (let k = 0; k < refs; k++) {
    const i = Math.floor((k * n) / refs);
    if (!inWindow(i)) continue;
    used++;
    if (!periodic[0]) { sides[0] = x[i]; sides[1] = lx - x[i]; }
    if (!periodic[1]) { sides[2] = y[i]; sides[3] = ly - y[i]; }
    if (!periodic[2]) { sides[4] = zc[i]; sides[5] = height - zc[i]; }
    nearest = Math.min(sides[0], sides[1], sides[2], sides[3], sides[4], sides[5]);
    grid.forEachNear(i, rdfMax, countNeighbour);
  }
  if (used === 0) return undefined;
  const rho = centres / (lx * ly * height);
  const rdfX = new Float64Array(bins), rdfY = new Float64Array(bins);
  for (let b = 0; b < bins; b++) {
    const r0 = (b / bins) * rdfMax, r1 = ((b + 1) / bins) * rdfMax;
    rdfX[b] = ((b + 0.5) / bins) * rdfMax;
    rdfY[b] = counts[b] / (rho * used * (4 / 3) * Math.PI * (r1 * r1 * r1 - r0 * r0 * r0));
  }
  return lineSeries('radial distribution function', `r (${UNITS.length})`, 'g(r)', rdfX, rdfY);
}

/**
 * Height map of the top surface of a bed: over a grid of `cells` samples along the longer side, the
 * highest sphere cap above each sample point (0 where none is). Its mean, its RMS deviation from
 * the mean (the roughness) and its values sorted (for the valley level).
 */
function topSurface(
  x: Float64Array, y: Float64Array, zc: Float64Array, r: Float64Array,
  lx: number, ly: number, periodic: readonly [boolean, boolean, boolean], cells: number,
): { mean: number; rms: number; sorted: Float64Array } {
  const n = x.length;
  const spacing = Math.max(lx, ly) / cells;
  const gx = Math.max(1, Math.round(lx / spacing)), gy = Math.max(1, Math.round(ly / spacing));
  const sx = lx / gx, sy = ly / gy;
  const height = new Float64Array(gx * gy);
  for (let i = 0; i < n; i++) {
    const i0 = Math.ceil((x[i] - r[i]) / sx - 0.5), i1 = Math.floor((x[i] + r[i]) / sx - 0.5);
    const j0 = Math.ceil((y[i] - r[i]) / sy - 0.5), j1 = Math.floor((y[i] + r[i]) / sy - 0.5);
    for (let j = j0; j <= j1; j++) {
      if (!periodic[1] && (j < 0 || j >= gy)) continue;
      const jj = ((j % gy) + gy) % gy;
      const dy = (j + 0.5) * sy - y[i];
      for (let k = i0; k <= i1; k++) {
        if (!periodic[0] && (k < 0 || k >= gx)) continue;
        const kk = ((k % gx) + gx) % gx;
        const dx = (k + 0.5) * sx - x[i];
        const rem = r[i] * r[i] - dx * dx - dy * dy;
        if (rem < 0) continue;
        const hTop = zc[i] + Math.sqrt(rem);
        if (hTop > height[kk + gx * jj]) height[kk + gx * jj] = hTop;
      }
    }
  }
  let hSum = 0;
  for (let c = 0; c < height.length; c++) hSum += height[c];
  const mean = hSum / height.length;
  let hSq = 0;
  for (let c = 0; c < height.length; c++) hSq += (height[c] - mean) * (height[c] - mean);
  return { mean, rms: Math.sqrt(hSq / height.length), sorted: height.sort() };
}

export interface SphereContacts {
  /** Contacts per sphere. */
  degree: Uint32Array;
  /** Pairs whose surfaces are at most the gap tolerance apart. */
  contacts: number;
  /** Pairs that interpenetrate by more than the tolerance. */
  overlappingPairs: number;
  /** Largest interpenetration r_i + r_j - distance over all pairs (0 if none). */
  maxOverlap: number;
}

/** Spheres between two looks of sphereContacts at its stop hook (about 0.15 s of the check). */
const STOP_STRIDE = 16384;

/** Rounding allowance of a gap, in ulps of the box's longest side (a touching pair is within 1 of 0). */
const ROUNDING_ULPS = 8;

/** Size bands of sphereContacts: band b holds radii in (rmax / 2^(b+1), rmax / 2^b]; smaller ones share the last. */
const MAX_BANDS = 12;

/**
 * Contacts and overlaps of a sphere set: two spheres touch when the gap between their surfaces is
 * at most `tol` (give or take 8 ulps of the box's longest side, so that spheres placed touching touch
 * at a tolerance of 0), over every pair within reach (an independent check for the engines:
 * it shares no code with their own neighbour search). In 2D pass z = 0 for every disk.
 *
 * Wide size ranges stay cheap: the spheres are split into size bands (a factor two each), each band
 * on its own grid of cells about its largest diameter, and every sphere looks for its partners
 * among its own band and the bands of larger spheres.
 */
export function sphereContacts(
  x: Float64Array, y: Float64Array, z: Float64Array, r: Float64Array,
  box: readonly [number, number, number], periodic: readonly [boolean, boolean, boolean], tol: number,
): SphereContacts;
/**
 * With `stop`, asked every STOP_STRIDE spheres with the spheres done and their count (progress, and
 * a cancel: true stops the check and gives null). A stacking of 3·10⁷ balls takes minutes here.
 */
export function sphereContacts(
  x: Float64Array, y: Float64Array, z: Float64Array, r: Float64Array,
  box: readonly [number, number, number], periodic: readonly [boolean, boolean, boolean], tol: number,
  stop: (done: number, total: number) => boolean,
): SphereContacts | null;
export function sphereContacts(
  x: Float64Array, y: Float64Array, z: Float64Array, r: Float64Array,
  box: readonly [number, number, number], periodic: readonly [boolean, boolean, boolean], tol: number,
  stop: (done: number, total: number) => boolean = () => false,
): SphereContacts | null {
  const n = x.length;
  const degree = new Uint32Array(n);
  let contacts = 0, overlappingPairs = 0, maxOverlap = 0;
  // Gaps within rounding count as the tolerance: spheres placed touching (centres 2r apart as
  // written) compute a gap of a few ulps of their coordinates either side of 0, and with a
  // tolerance of 0 two thirds of them read apart, or overlapping. Coordinates lie in the box.
  const slack = tol + ROUNDING_ULPS * Number.EPSILON * Math.max(box[0], box[1], box[2]);
  let rmax = 0;
  for (let i = 0; i < n; i++) if (r[i] > rmax) rmax = r[i];
  const band = new Uint8Array(n);
  const counts = new Uint32Array(MAX_BANDS);
  for (let i = 0; i < n; i++) {
    band[i] = Math.min(MAX_BANDS - 1, Math.max(0, Math.floor(Math.log2(rmax / r[i]))));
    counts[band[i]]++;
  }
  // Each band's spheres (their ids) and a grid over their centres.
  const members: Uint32Array[] = [], grids: (SphereGrid | null)[] = [], top = new Float64Array(MAX_BANDS);
  for (let b = 0; b < MAX_BANDS; b++) {
    const ids = new Uint32Array(counts[b]);
    let k = 0;
    for (let i = 0; i < n; i++) if (band[i] === b) ids[k++] = i;
    for (const i of ids) top[b] = Math.max(top[b], r[i]);
    members.push(ids);
    grids.push(k === 0 ? null : new SphereGrid(
      Float64Array.from(ids, (i) => x[i]), Float64Array.from(ids, (i) => y[i]), Float64Array.from(ids, (i) => z[i]),
      box, periodic, 2 * top[b] + tol,
    ));
  }
  // A sphere's contacts with its own periodic images (a side shorter than two reaches): each seen
  // from both sides (at +L and -L), so a contact per sighting for the sphere, half a pair for the counts.
  let selfContacts = 0, selfOverlaps = 0;
  for (let i = 0; i < n; i++) {
    if (i % STOP_STRIDE === 0 && stop(i, n)) return null;
    for (let b = 0; b <= band[i]; b++) {
      const grid = grids[b];
      if (!grid) continue;
      const ids = members[b];
      grid.forEachNearPoint(x[i], y[i], z[i], r[i] + top[b] + 2 * slack, (k, dist) => {
        const j = ids[k];
        if (j === i) {
          if (dist === 0) return; // itself, not an image
          const gap = dist - 2 * r[i];
          if (gap <= slack) { degree[i]++; selfContacts++; }
          if (gap < -slack) selfOverlaps++;
          if (-gap > maxOverlap) maxOverlap = -gap;
          return;
        }
        // A pair within one band once (j > i); across bands from the smaller sphere's side.
        // Several periodic images of j within reach are several contacts (as in a lattice's unit cell).
        if (b === band[i] && j < i) return;
        const gap = dist - r[i] - r[j];
        if (gap <= slack) { degree[i]++; degree[j]++; contacts++; }
        if (gap < -slack) overlappingPairs++;
        if (-gap > maxOverlap) maxOverlap = -gap;
      });
    }
  }
  return { degree, contacts: contacts + selfContacts / 2, overlappingPairs: overlappingPairs + selfOverlaps / 2, maxOverlap };
}

/** The coordination histogram (fraction of spheres with each number of contacts) as a bar series. */
export function coordinationSeries(degree: Uint32Array): EngineSeries {
  let maxDeg = 0;
  for (let i = 0; i < degree.length; i++) if (degree[i] > maxDeg) maxDeg = degree[i];
  const coord = histogram(degree, -0.5, maxDeg + 0.5, maxDeg + 1);
  return barSeries('coordination number', 'contacts per particle', 'fraction of particles', coord.centres, normalised(coord.counts));
}

/** The share of spherePores' progress that rasterising the spheres takes (a quarter of its time on 10⁶ spheres). */
const RASTERISED = 0.25;

/**
 * Pore sizes of a sphere bed: the spheres rasterised (cell centres inside a sphere are solid) at
 * twenty cells per smallest diameter over z in [0, top), the floor below as a wall, in the window or
 * stride poreGridPlan picks for the cell budget, counted above `countFrom`. In x and y the box
 * side is divided into a whole number of cells (within one cell of the z spacing). A cell periodic
 * in z is rasterised whole, periodic in z as well (no floor), and counted over [countFrom, top).
 */
function spherePores(
  x: Float64Array, y: Float64Array, zc: Float64Array, r: Float64Array,
  box: readonly [number, number, number], top: number, countFrom: number,
  periodic: readonly [boolean, boolean, boolean], maxCells: number, bins: number,
  rmin: number, rmax: number, progress: (done: number, total: number) => void,
): { series: EngineSeries; mean: number; median: number; max: number; spacing: number; window: string } | undefined {
  if (!(top > 0)) return undefined;
  const [lx, ly, lz] = box;
  const cellZ = periodic[2];
  const height = cellZ ? lz : top;
  const g0 = rmin / 10;
  const ncx = Math.max(1, Math.round(lx / g0)), ncy = Math.max(1, Math.round(ly / g0)), ncz = Math.max(1, Math.floor(height / g0));
  const plan = poreGridPlan(ncx, ncy, ncz, maxCells, (8 * rmax) / g0, rmax / g0);
  const { stride, x0, y0, wx, wy } = plan;
  const g = g0 * stride;
  const cxAll = Math.max(1, Math.floor(ncx / stride)), cyAll = Math.max(1, Math.floor(ncy / stride));
  // Slices of the grid: a floor slice, all solid, then z in [0, top) in cells of g; a cell periodic
  // in z: whole cells of about g tiling [0, lz), so that the last one meets the first.
  const cz = cellZ ? Math.max(1, Math.round(lz / g)) : Math.max(1, Math.floor(top / g)) + 1;
  const floor = cellZ ? 0 : 1;
  const sz = cellZ ? lz / cz : g;
  const sx = lx / cxAll, sy = ly / cyAll;
  const solid = new Uint8Array(wx * wy * cz);
  solid.fill(1, 0, floor * wx * wy);
  // Progress: the spheres rasterised up to RASTERISED of `total`, then a grid slice per pass of
  // poreSizeDistribution (four passes, about a call a slice each).
  const total = 4 * cz / (1 - RASTERISED);
  const rasterised = RASTERISED * total;
  for (let s = 0; s < x.length; s++) {
    if ((s & 0xffff) === 0) progress((rasterised * s) / x.length, total);
    const R = r[s], R2 = R * R;
    // Slice k's centre is at (k - floor + 0.5) sz.
    let k0 = Math.ceil((zc[s] - R) / sz - 0.5) + floor, k1 = Math.floor((zc[s] + R) / sz - 0.5) + floor;
    if (!cellZ) { k0 = Math.max(1, k0); k1 = Math.min(cz - 1, k1); }
    const j0 = Math.ceil((y[s] - R) / sy - 0.5), j1 = Math.floor((y[s] + R) / sy - 0.5);
    const i0 = Math.ceil((x[s] - R) / sx - 0.5), i1 = Math.floor((x[s] + R) / sx - 0.5);
    for (let k = k0; k <= k1; k++) {
      const dz = (k - floor + 0.5) * sz - zc[s];
      const kk = cellZ ? ((k % cz) + cz) % cz : k;
      for (let j = j0; j <= j1; j++) {
        let jj = j;
        if (jj < 0 || jj >= cyAll) { if (!periodic[1]) continue; jj = ((jj % cyAll) + cyAll) % cyAll; }
        jj -= y0;
        if (jj < 0 || jj >= wy) continue;
        const dy = (j + 0.5) * sy - y[s];
        const rem = R2 - dz * dz - dy * dy;
        if (rem < 0) continue;
        const base = wx * (jj + wy * kk);
        for (let i = i0; i <= i1; i++) {
          let ii = i;
          if (ii < 0 || ii >= cxAll) { if (!periodic[0]) continue; ii = ((ii % cxAll) + cxAll) % cxAll; }
          ii -= x0;
          if (ii < 0 || ii >= wx) continue;
          const dx = (i + 0.5) * sx - x[s];
          if (dx * dx <= rem) solid[base + ii] = 1;
        }
      }
    }
  }
  const mx = plan.wholeX ? 0 : plan.margin, my = plan.wholeY ? 0 : plan.margin;
  // Counted: the slices whose centres lie in [countFrom, top) (the whole bed when that is empty).
  const fromZ = cellZ ? Math.max(0, Math.ceil(countFrom / sz - 0.5)) : countFrom < top ? Math.floor(countFrom / g) + 1 : 1;
  const toZ = cellZ ? Math.min(cz, Math.ceil(top / sz - 0.5)) : cz;
  const grid: [boolean, boolean, boolean] = [periodic[0] && plan.wholeX, periodic[1] && plan.wholeY, cellZ];
  let slices = 0;
  const onSlice = () => progress(rasterised + Math.min(slices++, 4 * cz - 1), total);
  const pores = poreSizeDistribution(solid, [wx, wy, cz], grid, [mx, my, fromZ], [wx - mx, wy - my, toZ], g, bins, onSlice);
  return pores && { ...pores, spacing: g, window: `${(wx * sx).toPrecision(4)} x ${(wy * sy).toPrecision(4)} x ${height.toPrecision(4)}` };
}
