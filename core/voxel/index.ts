/**
 * The voxel packing engine (id 'voxel'): Byholm, Toivakka & Westerholm (2009), after Jia &
 * Williams' DigiPac. See README.md in this folder for the algorithm, the switches and the costs.
 */
import { defineEngine, throwIfIssues, type ColumnTable, type EngineContext, type EngineResult, type EngineSeries, type LabelVolume, type MetricInfo } from '../common/engine';
import { analyseParticleTable, analyseVoxelPacking, VOXEL_ANALYSIS_METRICS, type AnalysisResult } from '../analysis/index';
import { bedRegions } from '../analysis/porosity';
import { voxelEquivalentDiameters } from '../analysis/sizes';
import { Packer } from './packer';
import { centreInBox, finalise, type Finalised } from './finalise';
import { LiveSeries, liveTable } from './live';
import { interpenetration, settle, settlingNote, type Interpenetration } from './settle';
import { voxelHelper, type HelperData } from './mover';
import { VOXEL_ENGINE_ID, boxVoxels, checkParams, estimateMemoryBytes, fieldWarnings, labelsEnabled, voxelParamsSchema, type AnalysisParams, type VoxelParams } from './params';
import { UNITS } from '../common/units';

export { BitMatrix } from './bit-matrix';
export { IdMatrix } from './id-matrix';
export type { PackingMatrix } from './matrix';
export { shapeKindSchemas, shapeSchema, shapeIssues, voxeliseShape, voxeliseShapeVoxels, quantiseSize, type Shape, type VoxelisedShape } from './shapes';
export { VOXEL_ENGINE_ID, voxelParamsSchema, sizeLawSchema, particleTypeSchema, optimisationsSchema, analysisSchema, checkParams, ineffectiveFields, type VoxelParams } from './params';
export { Packer } from './packer';
export { finalise } from './finalise';
export { interpenetration, settle } from './settle';

/** Time steps between progress reports and between points of the progress series. */
const PROGRESS_EVERY = 64;
/** Seconds between points of the live series (live.ts). */
const LIVE_SAMPLE_SECONDS = 1;
/**
 * Least seconds between published tables of a running packing (EngineContext.publish); more when
 * publishing is slow (a million particles), so that it never takes over a tenth of the time.
 */
const PUBLISH_SECONDS = 3;

/** What pack() gives: the finished packer, its progress series, the packing time and where it resumed. */
export interface Packed {
  packer: Packer;
  series: EngineSeries[];
  seconds: number;
  /** The time step of the checkpoint the run resumed from (0: it started from the beginning). */
  resumedFromStep: number;
}

/**
 * Runs the packer to its end (or cancellation), recording the progress series; with
 * ctx.checkpoints, resumes from the run's last checkpoint and saves one every intervalSeconds.
 */
export function pack(params: VoxelParams, ctx: EngineContext): Packed {
  throwIfIssues(checkParams(params));
  const t0 = performance.now();
  // Threads move the kernel particles colour by colour (mover.ts); without helper threads, one.
  const packer = new Packer(params, ctx.seed, {}, ctx.startHelpers ? Math.max(1, ctx.threads) : 1);
  const helperData = packer.helperData();
  const helpers = helperData.length > 0 ? ctx.startHelpers!(helperData) : null;
  try {
    return packLoop(packer, params, ctx, t0);
  } finally {
    packer.stopHelpers();
    helpers?.stop();
  }
}

/**
 * A checkpoint's fingerprint without the thread count that checkpoints written before 2026-11-27
 * also held ({ params, seed, threads }), so that a run interrupted then resumes after an update.
 */
function withoutThreads(fingerprint: unknown): unknown {
  if (typeof fingerprint !== 'string') return fingerprint;
  const { threads: _, ...rest } = JSON.parse(fingerprint) as Record<string, unknown>;
  return JSON.stringify(rest);
}

function packLoop(packer: Packer, params: VoxelParams, ctx: EngineContext, t0: number): Packed {
  const boxVolume = packer.nx * packer.ny * packer.nz;
  let steps: number[] = [], particles: number[] = [], fraction: number[] = [];
  // Not the thread count: the packing does not depend on it (README, "All cores in one run"), so a
  // run resumes from its checkpoint on any (the app's threads per run, another machine, the CLI's --threads).
  const store = ctx.checkpoints, fingerprint = JSON.stringify({ params, seed: ctx.seed });
  let resumedFromStep = 0;
  const saved = store?.load() ?? null;
  if (saved !== null && withoutThreads(saved.meta.fingerprint) === fingerprint) {
    packer.restore(saved);
    steps = Array.from(saved.arrays.seriesSteps);
    particles = Array.from(saved.arrays.seriesParticles);
    fraction = Array.from(saved.arrays.seriesFraction);
    resumedFromStep = packer.counters.steps;
    ctx.log(`resumed from the checkpoint at time step ${resumedFromStep}`);
  } else if (saved !== null) {
    ctx.log('a checkpoint of other parameters or seed was found and not used: starting from the beginning');
  }
  const interval = store !== undefined && store.intervalSeconds > 0 ? store.intervalSeconds * 1000 : Infinity;
  let nextCheckpoint = performance.now() + interval;
  // The live view (only when someone may watch): bed height and solid fraction against time, and the particles so far.
  const live = new LiveSeries(), res = params.box.resolution;
  let nextSample = ctx.publish ? performance.now() + LIVE_SAMPLE_SECONDS * 1000 : Infinity, nextPublish = nextSample;
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
    if (ctx.stopRequested?.() === true) {
      packer.stopByUser();
      break;
    }
    const before = packer.counters.steps;
    if (!packer.step()) break;
    if (performance.now() >= nextCheckpoint) {
      const c = packer.checkpoint();
      c.meta.fingerprint = fingerprint;
      c.arrays.seriesSteps = Float64Array.from(steps);
      c.arrays.seriesParticles = Float64Array.from(particles);
      c.arrays.seriesFraction = Float64Array.from(fraction);
      store!.save(c);
      nextCheckpoint = performance.now() + interval;
    }
    if (performance.now() >= nextSample) {
      const now = performance.now();
      live.add((now - t0) / 1000, packer.frozenBedHeight() / res, packer.solidVoxels / boxVolume);
      nextSample = now + LIVE_SAMPLE_SECONDS * 1000;
      if (now >= nextPublish) {
        ctx.publish!(liveTable(packer, live));
        const end = performance.now();
        nextPublish = end + Math.max(PUBLISH_SECONDS * 1000, 10 * (end - now));
      }
    }
    // A step may be a phase of several (mover.ts): report when one of them is a multiple of PROGRESS_EVERY.
    if (Math.floor(packer.counters.steps / PROGRESS_EVERY) !== Math.floor(before / PROGRESS_EVERY)) {
      record();
      // Progress: the furthest of the stop targets, or, filling until full, the frozen bed's mean
      // height (the roof follows the highest frozen top: on a wide bed it neared the top with half
      // the box still empty, and the ETA said 0 s).
      const bed = packer.frozenBedHeight();
      let done = Math.min(1, bed / packer.nz);
      if (st.particles > 0) done = Math.max(done, packer.count / st.particles);
      if (st.solidFraction > 0) done = Math.max(done, packer.solidVoxels / boxVolume / st.solidFraction);
      ctx.progress({
        done: Math.min(1000, Math.round(done * 1000)),
        total: 1000,
        phase: 'packing',
        counters: { particles: packer.count, active: packer.activeCount, steps: packer.counters.steps, solidFraction: packer.solidVoxels / boxVolume, bedHeight: bed / res },
      });
    }
  }
  record();
  const x = Float64Array.from(steps);
  return {
    packer,
    resumedFromStep,
    seconds: (performance.now() - t0) / 1000,
    series: [
      { name: 'particles', xLabel: 'time step', yLabel: 'particles', x, y: Float64Array.from(particles), kind: 'line' },
      { name: 'solid fraction', xLabel: 'time step', yLabel: 'summed particle volume / box volume', x, y: Float64Array.from(fraction), kind: 'line' },
    ],
  };
}

/**
 * Assembles the run's metrics from the packer and the exact finalisation. The solid fractions use
 * core/analysis' reference volumes (bedRegions), so that with the analysis on, bedPorosity and
 * bulkPorosity are exactly 1 minus them.
 */
export function bedMetrics(packer: Packer, f: Finalised): Record<string, number> {
  const res = packer.params.box.resolution, h = 1 / res;
  let largest = 0;
  for (const d of voxelEquivalentDiameters(f.table.columns.voxels, h)) largest = Math.max(largest, d);
  const regions = bedRegions({ solidPerSlice: f.solidPerPlane, height: f.columnHeights, solidVoxels: f.solidVoxels }, h, {
    floorLayer: largest,
    topPercentile: packer.params.analysis.topPercentile,
  });
  return {
    particles: f.table.columns.id.length,
    bedSolidFraction: regions.bed,
    // Only when the bed is deeper than its floor layer and rough top.
    ...(Number.isFinite(regions.bulk) ? { bulkSolidFraction: regions.bulk, bulkFrom: regions.bulkFrom * h, bulkTo: regions.bulkTo * h } : {}),
    boxSolidFraction: regions.box,
    meanHeight: regions.heights.mean * h,
    overlapFraction: f.writtenVoxels > 0 ? f.overlapVoxels / f.writtenVoxels : 0,
    overlapVoxels: f.overlapVoxels,
    clippedVoxels: f.clippedVoxels,
  };
}

/** The voxel engine's metrics (with the analysis' when it runs) and the names its older runs carry. */
export const VOXEL_METRICS: Record<string, MetricInfo> = {
  ...VOXEL_ANALYSIS_METRICS,
  particles: { description: 'particles in the box at the end (their centre inside it)' },
  bedSolidFraction: { unit: 'fraction', description: 'solid fraction of the bed: solid voxels / voxels below the top surface, column by column; 1 − bedPorosity' },
  bulkSolidFraction: { unit: 'fraction', description: 'solid fraction of the bulk: solid voxels / voxels of the slices from bulkFrom to bulkTo (above one largest particle diameter, below the valley level of the surface); 1 − bulkPorosity' },
  boxSolidFraction: { unit: 'fraction', description: 'solid fraction of the whole box, the empty space above the bed included' },
  overlapFraction: { unit: 'fraction', description: 'voxels claimed twice at exact finalisation / voxels written (the price of packing with shells)' },
  overlapVoxels: { unit: 'voxels', description: 'voxels a particle claimed that an earlier particle held' },
  clippedVoxels: { unit: 'voxels', description: 'exact solid voxels below the floor or above the box top, not written' },
  interpenetrationVoxels: { unit: 'voxels', description: 'deepest interpenetration of two particles in the result, from all their solid voxels at their exact rotation: the extent, along the line joining the two geometric centres, of the centres of the voxels both claim (largest − smallest projection); 0 when they share no voxel or only one layer across that line. For voxelised spheres it follows the ideal overlap r1 + r2 − distance. After the settling pass when finalSettling is on' },
  interpenetrationFraction: { unit: 'fraction', description: 'largest interpenetration depth of a pair / volume-equivalent diameter of its smaller particle (from its solid voxels)' },
  interpenetratingPairs: { unit: 'pairs', description: 'pairs of particles that share at least one solid voxel in the result' },
  deepPairs: { unit: 'pairs', description: 'pairs of particles interpenetrating by more than one voxel in the result (with finalSettling: those the pass could not bring to one voxel; the run log says why)' },
  packedInterpenetrationVoxels: { unit: 'voxels', description: 'interpenetrationVoxels of the packing as packed (with the reduced shell), before the settling pass' },
  packedInterpenetrationFraction: { unit: 'fraction', description: 'interpenetrationFraction of the packing as packed, before the settling pass' },
  settlingMoves: { unit: 'moves', description: 'moves of the settling pass (finalSettling), each by one or two voxels per axis' },
  settlingRounds: { unit: 'rounds', description: 'rounds of the settling pass (each moves a particle at most once; at most 50)' },
  settlingSeconds: { unit: 's', description: 'wall time of the settling pass with its interpenetration measures before and after' },
  steps: { description: 'time steps' },
  moveAttempts: { description: 'particle moves tried' },
  acceptedMoves: { description: 'particle moves accepted' },
  insertionAttempts: { description: 'particle insertions tried' },
  collisionTests: { description: 'particle positions tested against the packing matrix' },
  voxelChecks: { description: 'voxels tested against the packing matrix' },
  packingSeconds: { unit: 's', description: 'wall time of the packing' },
  finaliseSeconds: { unit: 's', description: 'wall time of the exact finalisation' },
  analysisSeconds: { unit: 's', description: 'wall time of the structure analysis' },
  wallSeconds: { unit: 's', description: 'wall time of the whole run' },
  nsPerVoxelCheck: { unit: 'ns', description: 'packing time per voxel check' },
  stopReason: { description: 'why the packing stopped: particles, solidFraction (the stop target), full, maxSteps, cancelled or stopped (by the user, keeping the packing so far: runs.stop)' },
  boxVoxels: { description: 'box size in voxels' },
  matrixBytes: { unit: 'bytes', description: 'memory of the packing matrix' },
  matrixSlabs: { description: 'z-slabs the packing matrix is split into' },
  resumedFromStep: { unit: 'steps', description: 'the time step of the checkpoint the run resumed from after an interruption (0: it ran from the beginning)' },
  threads: { description: 'threads that moved the kernel particles (the packing is the same for every thread count)' },
  kernel: { description: "which loops moved the particles: 'simd' (the WebAssembly SIMD kernels moved some or all) or 'js' (JavaScript only)" },
  kernelParticles: { unit: 'particles', description: 'particles inserted and moved by the SIMD kernels' },
  movedToJavaScript: { unit: 'particles', description: 'kernel particles that left the kernels\' window of a matrix over 512 MiB and moved on in JavaScript' },
  distinctVoxelisations: { description: 'distinct voxelised shapes (types × quantised sizes)' },
  matrixHeight: { unit: 'voxels', description: 'height of the packing matrix' },
  legacySolidFraction: { unit: 'fraction', description: 'runs from before metrics named their region: solid voxels / voxels of the slab below the mean surface height (neither bed nor bulk)' },
  legacyBulkSolidFraction: { unit: 'fraction', description: 'runs from before metrics named their region: solid fraction between one particle extent above the floor and one below the mean surface height (not the bulk of bulkPorosity)' },
};

export const voxelEngine = defineEngine({
  id: VOXEL_ENGINE_ID,
  title: 'Voxel packing',
  description:
    'Packs particles of any shape, voxel by voxel, by biased random moves into a periodic box (Byholm, Toivakka & Westerholm 2009, after Jia & Williams\' DigiPac). ' +
    'Solid fractions and porosities name their reference volume: bed = below the top surface, column by column; ' +
    'bulk = from one largest particle diameter above the floor up to the valley level of the surface (bulkFrom to bulkTo); box = the whole box. ' +
    'In one region porosity = 1 − solid fraction; different regions differ (the bed includes the loose floor layer and the rough top, the box the empty space above).',
  paramsSchema: voxelParamsSchema,
  check: checkParams,
  warnings: fieldWarnings,
  metrics: VOXEL_METRICS,
  stopAndKeep: 'the packing so far: insertion ends, the falling particles stay where they are, and it is finalised and analysed as a finished packing',
  estimateMemoryBytes,
  helper: (data) => voxelHelper(data as HelperData),
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
      { column: 'principalTilt', label: "Tilt of the principal axis (a rod's axis, a plate's normal)", unit: '° from z' },
      { column: 'coordination', label: 'Coordination number' },
      { column: 'equivalentDiameter', label: 'Volume-equivalent diameter', unit: UNITS.length },
      { column: 'voxels', label: 'Solid voxels' },
    ],
  },
  run(params, ctx): EngineResult {
    const t0 = performance.now();
    const { packer, series, seconds, resumedFromStep } = pack(params, ctx);
    for (const note of stopNotes(params, packer)) ctx.log(note);
    // A cancel after the packing is seen between the phases after it, and between the settling
    // pass's rounds: each phase took seconds (736 ellipsoids: settling 1.8 s, analysis 2.5 s) and
    // could not be cancelled.
    let cancelled = packer.stopReason === 'cancelled';
    const stop = (): boolean => {
      if (!cancelled && ctx.cancelled()) {
        cancelled = true;
        packer.cancel();
      }
      return cancelled;
    };
    // The deepest interpenetration, and the settling pass that brings it to one voxel (settle.ts);
    // neither for a cancelled run, which stops as soon as it can.
    const ts = performance.now();
    let depth: Record<string, number> = {};
    // Each pass after the packing reports its own progress, part by part as the analysis does: at
    // 512³ and above each takes seconds to minutes, and '100 %' all that time looked stuck.
    if (!stop() && params.finalSettling) {
      const s = settle(packer, stop, (done, total, part) => ctx.progress({ done, total, phase: `settling: ${part}` }));
      if (s !== null) {
        depth = { ...depthMetrics(s.after), packedInterpenetrationVoxels: s.before.voxels, packedInterpenetrationFraction: s.before.fraction, settlingMoves: s.moves, settlingRounds: s.rounds, settlingSeconds: (performance.now() - ts) / 1000 };
        // Not reaching one voxel is said, not hidden (deepPairs in the metrics too).
        const note = settlingNote(s);
        if (note !== null) ctx.log(note);
      }
    } else if (!cancelled) {
      depth = depthMetrics(interpenetration(packer, (done, total, part) => ctx.progress({ done, total, phase: part })));
    }
    // Nor the exact finalisation, whose table and labels the worker drops for a cancelled run: it
    // took 1.2 s after the cancel at 923 spheres of 24 voxels (about 90 µs a particle, and the
    // label volume); its particle count is then the packer's.
    const t1 = performance.now();
    const f = stop() ? null : finalise(packer, labelsEnabled(params), (done, total) => ctx.progress({ done, total, phase: 'finalising' }));
    const finaliseSeconds = (performance.now() - t1) / 1000;
    // check() refuses particles too large to rest centred in the box where it knows the shape's
    // least centre height; for the others (rods held upright, voxel shapes) an empty result is said.
    if (f !== null && params.box.top === 'open' && packer.count > 0 && particlesInBox(packer) === 0) {
      ctx.log(`box.top 'open' keeps only particles centred at or below the box height, and none of the ${packer.count} packed is: the result is empty; use a taller box or smaller particles`);
    }
    // A cancelled run stops as soon as it can: no analysis, and one cancelled during it stops
    // part-way (stop() is asked at each pass's progress stride: 512³ takes seconds).
    const t2 = performance.now();
    const analysis = params.analysis.enabled && f !== null && !stop() ? analyse(f.table, f.labels, params.analysis, ctx, stop) : null;
    const analysisSeconds = (performance.now() - t2) / 1000;
    // Cancelled during the analysis: as one cancelled before the finalisation (the worker drops
    // the artifacts), the packer's count, counters and series.
    const finished = cancelled ? null : f;
    const c = packer.counters;
    const { nx, ny, nz, nzMatrix } = boxVoxels(params);
    return {
      cancelled,
      ...(packer.stopReason === 'stopped' ? { stopped: `time step ${c.steps}, ${particlesInBox(packer)} particles placed` } : {}),
      metrics: {
        // Metrics both compute (bulkFrom, bulkTo, meanHeight) are equal; the engine's are written last.
        ...analysis?.metrics,
        ...(finished !== null ? bedMetrics(packer, finished) : { particles: particlesInBox(packer) }),
        ...depth,
        steps: c.steps,
        moveAttempts: c.moveAttempts,
        acceptedMoves: c.acceptedMoves,
        insertionAttempts: c.insertionAttempts,
        collisionTests: c.collisionTests,
        voxelChecks: c.voxelChecks,
        packingSeconds: seconds,
        ...(finished !== null ? { finaliseSeconds } : {}),
        ...(analysis ? { analysisSeconds } : {}),
        wallSeconds: (performance.now() - t0) / 1000,
        nsPerVoxelCheck: c.voxelChecks > 0 ? (seconds * 1e9) / c.voxelChecks : 0,
        stopReason: packer.stopReason ?? 'maxSteps',
        boxVoxels: `${nx}x${ny}x${nz}`,
        matrixBytes: packer.matrix.bytes,
        matrixSlabs: packer.matrix.slabCount,
        // Which loops moved the particles: the WebAssembly SIMD kernels, or JavaScript only.
        kernel: packer.kernelParticles > 0 ? 'simd' : 'js',
        kernelParticles: packer.kernelParticles,
        movedToJavaScript: packer.movedToJavaScript,
        distinctVoxelisations: packer.shapes.length,
        matrixHeight: nzMatrix,
        threads: packer.threads,
        resumedFromStep,
      },
      series: analysis ? [...series, ...analysis.series] : series,
      artifacts: finished !== null ? [finished.table, ...(finished.labels ? [finished.labels] : []), ...(analysis?.artifacts ?? [])] : [],
    };
  },
});

/** Particles whose centre lies inside the box (the rows finalise() keeps). */
function particlesInBox(packer: Packer): number {
  let n = 0;
  for (let i = 0; i < packer.count; i++) if (centreInBox(packer, i)) n++;
  return n;
}

/**
 * Why a packing ended before what was asked, for the run's log (none when it ended as asked): a
 * stop target (stop.particles, stop.solidFraction) the box could not take ('full') or that
 * stop.maxSteps cut short, a fill until full that stop.maxSteps cut short, or the settling after
 * the last insertion that stop.maxSteps cut short with particles still moving. stopReason alone
 * said the first three, among thirty metrics, and nothing the last (stopReason 'particles', the bed
 * measured with particles in mid-air); the run ended 'done' with an empty log (asked a solid
 * fraction of 0.9, spheres ended full at 0.39). The solid fraction is the target's own measure.
 */
export function stopNotes(p: VoxelParams, packer: Packer): string[] {
  const reason = packer.stopReason;
  if (reason === null || reason === 'cancelled' || reason === 'stopped') return [];
  const { particles, solidFraction, maxSteps } = p.stop;
  const asked: string[] = [];
  if (particles > 0) asked.push(`${packer.count} particles of the ${particles} asked (stop.particles)`);
  if (solidFraction > 0) {
    const reached = packer.solidVoxels / (packer.nx * packer.ny * packer.nz);
    asked.push(`solid fraction ${reached.toFixed(4)} of the ${solidFraction} asked (stop.solidFraction: the particles' solid voxels over the box's)`);
  }
  const notes: string[] = [];
  if (reason === 'full' && asked.length > 0) notes.push(`ended full before the stop target: ${asked.join(', ')}; a larger box, or smaller or other particles`);
  if (reason === 'maxSteps') {
    const what = asked.length === 0 ? `the box was full: ${packer.count} particles` : `the stop target: ${asked.join(', ')}`;
    notes.push(`ended at stop.maxSteps (${maxSteps} time steps) before ${what}; raise stop.maxSteps`);
  } else if (p.stop.settle && packer.activeCount > 0) {
    notes.push(`stop.maxSteps (${maxSteps} time steps) ended the settling after the last insertion with ${packer.activeCount} particle(s) still moving, not frozen where they came to rest; raise stop.maxSteps`);
  }
  return notes;
}

/** The deepest interpenetration as metrics. */
function depthMetrics(d: Interpenetration): Record<string, number> {
  return { interpenetrationVoxels: d.voxels, interpenetrationFraction: d.fraction, interpenetratingPairs: d.pairs, deepPairs: d.deepPairs };
}

/**
 * core/analysis over the finished packing: the full voxel analysis when there is a label volume,
 * else what the particle table alone allows. Its per-particle columns join the particle table
 * (columns the engine already wrote keep the engine's values). Null when `stop` said so part-way.
 */
function analyse(table: ColumnTable, labels: LabelVolume | null, o: AnalysisParams, ctx: EngineContext, stop: () => boolean): AnalysisResult | null {
  const { enabled: _enabled, ...options } = o;
  const result = labels
    ? analyseVoxelPacking(labels, table, options, (done, total, part) => ctx.progress({ done, total, phase: `analysis: ${part}` }), stop)
    : analyseParticleTable(table, { angleBins: o.angleBins, bodyAxis: o.bodyAxis, sizeBins: o.sizeBins });
  if (result === null) return null;
  for (const [name, column] of Object.entries(result.particleColumns)) {
    if (!(name in table.columns)) table.columns[name] = column;
  }
  return result;
}
