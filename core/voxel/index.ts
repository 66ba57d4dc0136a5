/**
 * The voxel packing engine (id 'voxel'): Byholm, Toivakka & Westerholm (2009), after Jia &
 * Williams' DigiPac. See README.md in this folder for the algorithm, the switches and the costs.
 */
import { defineEngine, throwIfIssues, type ColumnTable, type EngineContext, type EngineResult, type EngineSeries, type LabelVolume } from '../common/engine';
import { analyseParticleTable, analyseVoxelPacking, type AnalysisResult } from '../analysis/index';
import { Packer } from './packer';
import { finalise, type Finalised } from './finalise';
import { VOXEL_ENGINE_ID, boxVoxels, checkParams, estimateMemoryBytes, labelsEnabled, voxelParamsSchema, type AnalysisParams, type VoxelParams } from './params';

export { BitMatrix } from './bit-matrix';
export { IdMatrix } from './id-matrix';
export type { PackingMatrix } from './matrix';
export { shapeKindSchemas, shapeSchema, voxeliseShape, voxeliseShapeVoxels, quantiseSize, type Shape, type VoxelisedShape } from './shapes';
export { VOXEL_ENGINE_ID, voxelParamsSchema, sizeLawSchema, particleTypeSchema, optimisationsSchema, analysisSchema, checkParams, type VoxelParams } from './params';
export { Packer } from './packer';
export { finalise } from './finalise';

/** Time steps between progress reports and between points of the progress series. */
const PROGRESS_EVERY = 64;

/** Runs the packer to its end (or cancellation), recording the progress series. */
export function pack(params: VoxelParams, ctx: EngineContext): { packer: Packer; series: EngineSeries[]; seconds: number } {
  throwIfIssues(checkParams(params));
  const t0 = performance.now();
  const packer = new Packer(params, ctx.seed);
  const boxVolume = packer.nx * packer.ny * packer.nz;
  const steps: number[] = [], particles: number[] = [], fraction: number[] = [];
  const record = () => {
    steps.push(packer.counters.steps);
    particles.push(packer.count);
    fraction.push(packer.solidVoxels / boxVolume);
  };
  const st = params.stop;
  for (;;) {
    if (ctx.cancelled()) {
      packer.cancel();
      break;
    }
    if (!packer.step()) break;
    if (packer.counters.steps % PROGRESS_EVERY === 0) {
      record();
      // Progress: the furthest of the stop targets (or the roof height when filling until full).
      let done = Math.min(1, packer.roof / packer.nz);
      if (st.particles > 0) done = Math.max(done, packer.count / st.particles);
      if (st.solidFraction > 0) done = Math.max(done, packer.solidVoxels / boxVolume / st.solidFraction);
      ctx.progress({
        done: Math.min(1000, Math.round(done * 1000)),
        total: 1000,
        phase: 'packing',
        counters: { particles: packer.count, active: packer.activeCount, steps: packer.counters.steps, solidFraction: packer.solidVoxels / boxVolume },
      });
    }
  }
  record();
  const x = Float64Array.from(steps);
  return {
    packer,
    seconds: (performance.now() - t0) / 1000,
    series: [
      { name: 'particles', xLabel: 'time step', yLabel: 'particles', x, y: Float64Array.from(particles), kind: 'line' },
      { name: 'solid fraction', xLabel: 'time step', yLabel: 'solid volume / box volume', x, y: Float64Array.from(fraction), kind: 'line' },
    ],
  };
}

/** Solid fraction of planes [z0, z1) from the finalised occupancy (NaN for an empty range). */
function planeFraction(f: Finalised, nx: number, ny: number, z0: number, z1: number): number {
  let s = 0;
  for (let z = Math.max(0, z0); z < z1; z++) s += f.solidPerPlane[z];
  return z1 > z0 ? s / (nx * ny * (z1 - z0)) : NaN;
}

/** Assembles the run's metrics from the packer and the exact finalisation. */
export function bedMetrics(packer: Packer, f: Finalised): Record<string, number> {
  const { nx, ny, nz } = packer;
  const res = packer.params.box.resolution;
  const bed = Math.round(f.bedHeight);
  let maxExtent = 0;
  for (let s = 0; s < packer.shapes.length; s++) maxExtent = Math.max(maxExtent, 2 * Math.ceil(packer.shapes[s].maxRadius) + 1);
  const bulk = planeFraction(f, nx, ny, maxExtent, bed - maxExtent);
  return {
    particles: f.table.columns.id.length,
    solidFraction: planeFraction(f, nx, ny, 0, bed) || 0,
    // Only when the bed is deeper than two particle diameters.
    ...(Number.isFinite(bulk) ? { bulkSolidFraction: bulk } : {}),
    boxSolidFraction: f.solidVoxels / (nx * ny * nz),
    bedHeight: f.bedHeight / res,
    overlapFraction: f.writtenVoxels > 0 ? f.overlapVoxels / f.writtenVoxels : 0,
    overlapVoxels: f.overlapVoxels,
    clippedVoxels: f.clippedVoxels,
  };
}

export const voxelEngine = defineEngine({
  id: VOXEL_ENGINE_ID,
  title: 'Voxel packing',
  description:
    'Packs particles of any shape, voxel by voxel, by biased random moves into a periodic box (Byholm, Toivakka & Westerholm 2009, after Jia & Williams\' DigiPac). ' +
    'Metrics: solidFraction = solid voxels / voxels below the mean bed surface; bulkSolidFraction = the same between one particle diameter above the floor and one below the surface; ' +
    'boxSolidFraction = over the whole box; overlapFraction = voxels claimed twice at exact finalisation / voxels written.',
  paramsSchema: voxelParamsSchema,
  check: checkParams,
  estimateMemoryBytes,
  particleTable: {
    name: 'particles',
    centre: ['x', 'y', 'z'],
    // The volume-equivalent diameter (from the analysis) draws non-spherical particles truer than
    // the characteristic size (e.g. a plate's diameter across corners), which is always there.
    size: [
      { column: 'equivalentDiameter', is: 'diameter' },
      { column: 'size', is: 'diameter' },
    ],
    glyph: { kind: 'sphere' },
    id: 'id',
    category: { column: 'type', label: 'Particle type', namesFrom: 'types' },
    quantities: [
      { column: 'bodyTilt', label: 'Tilt of the body axis', unit: '° from z' },
      { column: 'principalTilt', label: 'Tilt of the longest principal axis', unit: '° from z' },
      { column: 'coordination', label: 'Coordination number' },
      { column: 'equivalentDiameter', label: 'Volume-equivalent diameter', unit: 'length units' },
      { column: 'voxels', label: 'Solid voxels' },
    ],
  },
  run(params, ctx): EngineResult {
    const t0 = performance.now();
    const { packer, series, seconds } = pack(params, ctx);
    const cancelled = packer.stopReason === 'cancelled';
    ctx.progress({ done: 1000, total: 1000, phase: 'finalising' });
    const t1 = performance.now();
    const f = finalise(packer, labelsEnabled(params));
    const finaliseSeconds = (performance.now() - t1) / 1000;
    // A cancelled run stops as soon as it can: no analysis.
    const t2 = performance.now();
    const analysis = params.analysis.enabled && !cancelled ? analyse(f.table, f.labels, params.analysis, ctx) : null;
    const analysisSeconds = (performance.now() - t2) / 1000;
    const c = packer.counters;
    const { nx, ny, nz, nzMatrix } = boxVoxels(params);
    return {
      cancelled,
      metrics: {
        // The engine's own metrics win on a name clash (solidFraction: below the mean bed surface).
        ...analysis?.metrics,
        ...bedMetrics(packer, f),
        steps: c.steps,
        moveAttempts: c.moveAttempts,
        acceptedMoves: c.acceptedMoves,
        insertionAttempts: c.insertionAttempts,
        collisionTests: c.collisionTests,
        voxelChecks: c.voxelChecks,
        packingSeconds: seconds,
        finaliseSeconds,
        ...(analysis ? { analysisSeconds } : {}),
        wallSeconds: (performance.now() - t0) / 1000,
        nsPerVoxelCheck: c.voxelChecks > 0 ? (seconds * 1e9) / c.voxelChecks : 0,
        stopReason: packer.stopReason ?? 'maxSteps',
        boxVoxels: `${nx}x${ny}x${nz}`,
        matrixBytes: packer.matrix.bytes,
        matrixSlabs: packer.matrix.slabCount,
        distinctVoxelisations: packer.shapes.length,
        matrixHeight: nzMatrix,
      },
      series: analysis ? [...series, ...analysis.series] : series,
      artifacts: [f.table, ...(f.labels ? [f.labels] : []), ...(analysis?.artifacts ?? [])],
    };
  },
});

/**
 * core/analysis over the finished packing: the full voxel analysis when there is a label volume,
 * else what the particle table alone allows. Its per-particle columns join the particle table
 * (columns the engine already wrote keep the engine's values).
 */
function analyse(table: ColumnTable, labels: LabelVolume | null, o: AnalysisParams, ctx: EngineContext): AnalysisResult {
  const { enabled: _enabled, ...options } = o;
  const result = labels
    ? analyseVoxelPacking(labels, table, options, (done, total, part) => ctx.progress({ done, total, phase: `analysis: ${part}` }))
    : analyseParticleTable(table, { angleBins: o.angleBins, bodyAxis: o.bodyAxis, sizeBins: o.sizeBins });
  for (const [name, column] of Object.entries(result.particleColumns)) {
    if (!(name in table.columns)) table.columns[name] = column;
  }
  return result;
}
