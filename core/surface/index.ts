/**
 * The surface sampling engine (id 'surface'): particles spread uniformly over an implicit surface
 * by constrained repulsion, adaptive radii, birth and death (Heckbert 1997, seed 002, after Witkin &
 * Heckbert 1994), the neighbour search in core/spatial's HashedGrid. See README.md in this folder.
 */
import { defineEngine, throwIfIssues, type ColumnTable, type EngineContext, type EngineResult, type LabelVolume, type MetricInfo } from '../common/engine';
import { implicitFunction, type ImplicitFunction } from './implicit';
import { checkParams, estimateMemoryBytes, surfaceGeometry, surfaceParamsSchema, usesHelpers, whyAreaUncertain, type SurfaceParams } from './params';
import { surfaceHelper, type HelperData } from './board';
import { SurfaceSampler } from './sampler';
import { UniformStop } from './stop';
import { sampleFrame, surfaceDistance, voxeliseSolid } from './solid';
import { UNITS } from '../common/units';

export { implicitSurfaceSchema, surfaceKindSchemas, blobSchema, implicitFunction, type ImplicitSurface, type ImplicitFunction, type Blob } from './implicit';
export { solidBounds, surfaceIssues, estimateArea, projectToSurface, sampleFrame, voxeliseSolid, longestSide } from './solid';
export { surfaceParamsSchema, checkParams, estimateMemoryBytes, surfaceGeometry, usesHelpers, type SurfaceParams } from './params';
export { SurfaceSampler, sigmaForSpacing, type SamplerOptions } from './sampler';
export { UniformStop, type StopState } from './stop';

/** The series keep at most about this many points (every k-th iteration). */
const SERIES_POINTS = 4000;

/** The metrics a run reports, with what each measures (History's tooltips and units). */
const SURFACE_METRICS: Record<string, MetricInfo> = {
  particles: { description: 'particles on the surface at the end' },
  nearestNeighbourCV: { unit: 'ratio', description: "standard deviation / mean of each particle's nearest-neighbour distance (0: perfectly even)" },
  meanNearestNeighbour: { unit: UNITS.length, description: "mean of each particle's nearest-neighbour distance" },
  spacingError: { unit: 'ratio', description: 'meanNearestNeighbour / spacing − 1' },
  maxSurfaceResidual: { unit: UNITS.length, description: 'largest distance of a particle from the surface: to the surface point Newton steps along ∇F reach from it (|F| / |∇F| to first order; that alone read particles beyond a sharp tip as on the surface)' },
  offSurfaceParticles: { description: 'particles farther than stop.surfaceTolerance × spacing from the surface (as maxSurfaceResidual measures it); 0 when the run ended uniform' },
  energy: { description: 'repulsion energy Σ_i Σ_j exp(−|r_ij|²/(2σ_i²)) over the neighbours within 3σ_i, at the final positions' },
  surfaceArea: { unit: UNITS.area, description: 'area of the surface (estimate), from which the expected particle count follows' },
  births: { description: 'particles born by fission' },
  deaths: { description: 'particles that died' },
  refusedBirths: { description: 'fissions refused because maxParticles was reached' },
  regrids: { description: "times the neighbour grid's cells were resized to the largest repulsion radius" },
  threads: { description: 'threads that shared the repulsion passes and moves' },
  iterations: { description: 'iterations of repulsion, move and birth and death' },
  msPerIteration: { unit: 'ms', description: 'wall time of the sampling per iteration' },
  stopReason: { description: "'uniform' (even for stop.window iterations in a row, then every particle within stop.surfaceTolerance × spacing of the surface), 'maxIterations', 'cancelled' or 'stopped' (by the user, keeping the particles as they are: runs.stop)" },
  wallSeconds: { unit: 's', description: 'wall time of the whole run' },
  // A progress counter only (runs show, the queue): the iterations in a row the spacing has been even.
  uniformFor: { unit: 'iterations', description: 'iterations in a row the spacing has been even (stop.window of them, then every particle on the surface: uniform)' },
};

/** Runs the sampler until uniform (or maxIterations, or cancelled, or stopped by the user). */
export function sample(p: SurfaceParams, ctx: EngineContext): EngineResult {
  throwIfIssues(checkParams(p));
  const t0 = performance.now();
  const fn = implicitFunction(p.surface);
  const { bounds, area, areaResolved, areaStep } = surfaceGeometry(p.surface);
  // The area is only measured, never used to place particles: but its metric and the particle count
  // the checks expected follow it, and a number read as measured should say when it is not.
  if (!areaResolved) ctx.log(`surfaceArea ${area.toPrecision(4)} is uncertain: ${whyAreaUncertain(areaStep)}`);
  // Threads share the 'cells' repulsion pass and the move (board.ts, usesHelpers); without helper threads, one.
  const sampler = new SurfaceSampler({
    fn, bounds, spacing: p.spacing, capacity: p.maxParticles, neighbourSearch: p.neighbourSearch, seed: ctx.seed,
    timeStep: p.dynamics.timeStep, feedback: p.dynamics.feedback, threads: ctx.startHelpers ? Math.max(1, ctx.threads) : 1,
    // Seeding takes seconds on a large blobby surface: a cancel then stops it, and the loop below ends the run.
    cancelled: () => ctx.cancelled(),
  });
  const helperData = sampler.helperData();
  const helpers = helperData.length > 0 ? ctx.startHelpers!(helperData) : null;
  try {
    return sampleWith(sampler, p, ctx, t0, fn, bounds, area);
  } finally {
    sampler.quitHelpers();
    helpers?.stop();
  }
}

function sampleWith(sampler: SurfaceSampler, p: SurfaceParams, ctx: EngineContext, t0: number, fn: ImplicitFunction, bounds: Float64Array, area: number): EngineResult {
  const st = p.stop;
  const stride = Math.max(1, Math.ceil(st.maxIterations / SERIES_POINTS));
  const its: number[] = [], cvs: number[] = [], counts: number[] = [], means: number[] = [];
  const rule = new UniformStop(st);
  let stopReason = 'maxIterations', cancelled = false, offSurfaceLogged = false;
  const t1 = performance.now();
  const phase = `sampling until uniform, at most ${st.maxIterations} iterations`;
  while (sampler.iterations < st.maxIterations) {
    if (ctx.cancelled()) { cancelled = true; stopReason = 'cancelled'; break; }
    if (ctx.stopRequested?.() === true) { stopReason = 'stopped'; break; }
    sampler.step(false);
    const it = sampler.iterations, cv = sampler.nearestCV, mean = sampler.meanNearest / p.spacing;
    const state = rule.update(sampler), inARow = rule.inARow;
    // The particles the run ends with are those the stop rule measured, moved once: no fission or
    // death after that (a pair split in the last iteration lay σ/2 apart in the results, and a run
    // 'uniform' at stop.targetCV 0.05 reported a nearestNeighbourCV of 0.0575).
    if (state !== 'uniform' && it < st.maxIterations && ctx.stopRequested?.() !== true) sampler.adapt();
    if (it % stride === 0) { its.push(it); cvs.push(cv); counts.push(sampler.n); means.push(mean); }
    if (state === 'offSurface' && !offSurfaceLogged) {
      ctx.log(`iteration ${it}: evenly spaced, but a particle lies ${rule.worstResidual.toPrecision(3)} from the surface, over stop.surfaceTolerance × spacing = ${rule.tolerance(sampler).toPrecision(3)}: sampling on`);
      offSurfaceLogged = true;
    }
    // How many iterations are left is not known until the sampling is uniform: until then the bar
    // counts to maxIterations and the phase says it is an upper bound (a run uniform after 64
    // iterations had shown 3 % and then done); while uniform, the window's end is the total. The
    // phase stays the same (each change of phase is sent and stored at once).
    ctx.progress({
      done: it, total: inARow > 0 ? it + st.window - inARow : st.maxIterations, phase,
      counters: { particles: sampler.n, nearestNeighbourCV: cv, meanNearestNeighbour: mean * p.spacing, uniformFor: inARow },
    });
    if (state === 'uniform') { stopReason = 'uniform'; break; }
  }
  const samplingMs = performance.now() - t1;
  const frame = sampleFrame(bounds);
  // Not for a cancelled run, whose artifacts the worker drops: at 400 voxels across the solid took
  // 2 s after the cancel. It reports its planes and stops at a cancel (minutes on a large blobby
  // surface: no progress and no cancel until it ended).
  let volume: LabelVolume | null = null;
  if (!cancelled && p.voxelsAcross > 0) {
    volume = voxeliseSolid(fn, frame, p.voxelsAcross, 'solid', (planes, total) => {
      ctx.progress({ done: planes, total, phase: 'voxelising the solid' });
      return ctx.cancelled();
    });
    if (volume === null) { cancelled = true; stopReason = 'cancelled'; }
  }
  // With a volume the frame is its box (whole voxels), so that table and volume line up.
  if (volume) for (let a = 0; a < 3; a++) frame.size[a] = volume.dims[a] * volume.voxelSize;
  // Whether the stop rule last measured an even spacing (finish() measures the moved particles anew).
  const evenWhenMeasured = sampler.isUniform(st.targetCV, st.spacingTolerance);
  const result = finish(sampler, p, area, frame);
  // After finish(): the numbers the results hold (the particles moved once after the stop rule measured them).
  if (stopReason === 'maxIterations') logNotUniform(sampler, result.metrics, evenWhenMeasured, st, rule, ctx);
  const x = Float64Array.from(its);
  return {
    cancelled,
    ...(stopReason === 'stopped' ? { stopped: `iteration ${sampler.iterations} of at most ${st.maxIterations}, nearest-neighbour CV ${sampler.nearestCV.toPrecision(3)}` } : {}),
    metrics: {
      ...result.metrics,
      iterations: sampler.iterations,
      msPerIteration: sampler.iterations > 0 ? samplingMs / sampler.iterations : 0,
      stopReason,
      wallSeconds: (performance.now() - t0) / 1000,
    },
    series: [
      { name: 'nearest-neighbour CV', xLabel: 'iteration', yLabel: 'standard deviation / mean of nearest-neighbour distances', x, y: Float64Array.from(cvs), kind: 'line' },
      { name: 'particles', xLabel: 'iteration', yLabel: 'particles', x, y: Float64Array.from(counts), kind: 'line' },
      { name: 'mean spacing', xLabel: 'iteration', yLabel: 'mean nearest-neighbour distance / spacing', x, y: Float64Array.from(means), kind: 'line' },
    ],
    artifacts: volume ? [result.table, volume] : [result.table],
  };
}

/**
 * The log line of a run that ended at stop.maxIterations before it was uniform, with the results'
 * nearest-neighbour CV, spacing error and surface residual against their targets (metrics `m`; `s`
 * as finish() left it, its neighbours at the final positions): its status is 'done' (the sampling
 * is valid, only not as even as asked), and stopReason alone, among the metrics, is easy to miss in
 * a batch. `evenWhenMeasured`: the stop rule's last measure of the spacing met the targets.
 */
function logNotUniform(s: SurfaceSampler, m: Record<string, number>, evenWhenMeasured: boolean, st: SurfaceParams['stop'], rule: UniformStop, ctx: EngineContext): void {
  const isolated = s.isolated > 0 ? `, ${s.isolated} particles with no neighbour within 3σ` : '';
  const spacing = `nearest-neighbour CV ${m.nearestNeighbourCV.toPrecision(3)} (stop.targetCV ${st.targetCV}), ` +
    `mean spacing ${(100 * m.spacingError).toFixed(2)} % off (stop.spacingTolerance ${Number((100 * st.spacingTolerance).toPrecision(6))} %)${isolated}`;
  const worst = m.maxSurfaceResidual, tolerance = rule.tolerance(s);
  // Evenly spaced but held back by particles off the surface: more iterations do not help there
  // (near a sharp superquadric's edges they stay off however long it runs), so say what does.
  if (evenWhenMeasured && worst > tolerance) {
    ctx.log(`not uniform at stop.maxIterations = ${st.maxIterations}: evenly spaced when the stop rule last measured it (the results, moved once since: ${spacing}), but a particle lies ${worst.toPrecision(3)} from the surface, over stop.surfaceTolerance × spacing = ${tolerance.toPrecision(3)} ` +
      '(offSurfaceParticles says how many): particles near sharp edges and tips stay off it however long the run; raise stop.surfaceTolerance to accept them');
  } else {
    ctx.log(`not uniform at stop.maxIterations = ${st.maxIterations}: ${spacing}; raise stop.maxIterations for the sampling to go on`);
  }
}

/**
 * The particle table (positions in the frame, unit normals at the final positions, radius = half
 * the nearest-neighbour distance, σ, energy) and the metrics measured on the final positions.
 */
function finish(s: SurfaceSampler, p: SurfaceParams, area: number, frame: ReturnType<typeof sampleFrame>): { table: ColumnTable; metrics: Record<string, number> } {
  const n = s.n, fn = implicitFunction(p.surface), g = new Float64Array(3);
  s.repel(); // energies at the final positions (this renumbers the particles: before the distances)
  const nearest = new Float64Array(n);
  s.nearestNeighbours(nearest);
  const col = () => new Float64Array(n);
  const c = { x: col(), y: col(), z: col(), nx: col(), ny: col(), nz: col(), r: col(), sigma: col(), energy: col() };
  let sum = 0, sum2 = 0, worst = 0, energy = 0, finite = 0, offSurface = 0;
  const tolerance = p.stop.surfaceTolerance * p.spacing;
  for (let i = 0; i < n; i++) {
    const x = s.x[i], y = s.y[i], z = s.z[i];
    fn.valueAndGradient(x, y, z, g);
    const gl = Math.hypot(g[0], g[1], g[2]);
    const residual = surfaceDistance(fn, x, y, z, p.spacing);
    if (!(residual <= worst)) worst = residual;
    if (!(residual <= tolerance)) offSurface++;
    c.x[i] = x - frame.offset[0]; c.y[i] = y - frame.offset[1]; c.z[i] = z - frame.offset[2];
    c.nx[i] = g[0] / gl; c.ny[i] = g[1] / gl; c.nz[i] = g[2] / gl;
    const d = nearest[i];
    c.r[i] = Number.isFinite(d) ? d / 2 : s.sigma[i];
    c.sigma[i] = s.sigma[i];
    c.energy[i] = s.energy[i];
    energy += s.energy[i];
    if (Number.isFinite(d)) { sum += d; sum2 += d * d; finite++; }
  }
  const mean = finite > 0 ? sum / finite : NaN;
  const cv = finite > 0 ? Math.sqrt(Math.max(0, sum2 / finite - mean * mean)) / mean : NaN;
  return {
    table: {
      kind: 'table', name: 'particles', columns: c,
      meta: { box: frame.size, offset: frame.offset, positions: 'surface coordinates minus offset', radius: 'half the nearest-neighbour distance', normal: '∇F/|∇F| (outwards)' },
    },
    metrics: {
      particles: n,
      nearestNeighbourCV: cv,
      meanNearestNeighbour: mean,
      spacingError: mean / p.spacing - 1,
      maxSurfaceResidual: worst,
      offSurfaceParticles: offSurface,
      energy,
      surfaceArea: area,
      births: s.births,
      deaths: s.deaths,
      refusedBirths: s.refusedBirths,
      regrids: s.grid?.regrids ?? 0,
      threads: s.threads,
    },
  };
}

export const surfaceEngine = defineEngine({
  id: 'surface',
  title: 'Particles on an implicit surface',
  description:
    'Spreads particles uniformly over an implicit surface F = 0 (sphere, ellipsoid, torus, superquadric, blobby sums) by constrained Gaussian repulsion with adaptive radii, fission and death ' +
    '(Heckbert 1997, after Witkin & Heckbert 1994); neighbours through a periodic 2^k grid (linked cells, or the seed\'s spherical range queries). ' +
    'Metrics: nearestNeighbourCV = standard deviation / mean of each particle\'s nearest-neighbour distance; maxSurfaceResidual = the largest distance of a particle from the surface (to the point Newton steps along ∇F reach; length units); ' +
    'energy = Σ_i Σ_j exp(−|r_ij|²/(2σ_i²)) over neighbours within 3σ_i.',
  paramsSchema: surfaceParamsSchema,
  check: checkParams,
  stopAndKeep: 'the particles as they are at the last iteration (as at maxIterations: the metrics say how even they are), and the voxelised solid',
  estimateMemoryBytes,
  particleTable: {
    name: 'particles',
    centre: ['x', 'y', 'z'],
    size: [{ column: 'r', is: 'radius' }],
    glyph: { kind: 'tangent-disk', normal: ['nx', 'ny', 'nz'] },
    quantities: [
      { column: 'sigma', label: 'Repulsion radius σ', unit: UNITS.length },
      { column: 'energy', label: 'Repulsion energy' },
    ],
  },
  metrics: SURFACE_METRICS,
  run: sample,
  helper: (data) => surfaceHelper(data as HelperData),
  usesHelpers,
});
