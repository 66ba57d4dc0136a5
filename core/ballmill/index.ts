/**
 * The shaker ball mill engine (id 'ballmill'): seed 003, Gavrilova, Rokne, Gavrilov & Vinogradov.
 * See README.md in this folder for the model, the events, the CDOs and the costs.
 */
import { defineEngine, throwIfIssues, type ColumnTable, type EngineContext, type EngineResult, type EngineSeries, type MetricInfo, type ParticleTableSpec } from '../common/engine';
import { ballmillParamsSchema, checkParams, estimateMemoryBytes, frameInterval, ineffectiveFields, vialMeasure, type BallmillParams } from './params';
import { BallMill, BINS_PER_DECADE, ENERGY_BIN_MIN, ENERGY_BINS, type SetupStage } from './simulation';

export { ballmillParamsSchema, checkParams, estimateMemoryBytes, ineffectiveFields, CDO_NAMES, type BallmillParams, type CdoName } from './params';
export { BallMill, type StopReason } from './simulation';

/**
 * The particle table: centre, radius, speed and impacts per ball. Spheres in 3D; a 2D run's table
 * declares disks in the x-y plane (PARTICLE_TABLE_2D, in its meta).
 */
export const PARTICLE_TABLE: ParticleTableSpec = {
  name: 'particles',
  centre: ['x', 'y', 'z'],
  size: [{ column: 'r', is: 'radius' }],
  glyph: { kind: 'sphere' },
  id: 'id',
  quantities: [
    { column: 'speed', label: 'Speed', unit: 'mm/s' },
    { column: 'impacts', label: 'Impacts' },
    { column: 'r', label: 'Radius', unit: 'mm' },
  ],
};
export const PARTICLE_TABLE_2D: ParticleTableSpec = { ...PARTICLE_TABLE, glyph: { kind: 'disk-xy' } };
/** Wall milliseconds between two published live tables (EngineContext.publish). */
const PUBLISH_MS = 1000;
/** Placement sweeps between two progress reports (about a second at 20,000 balls). */
const PLACEMENT_PROGRESS_SWEEPS = 50;
/**
 * The progress scale of the set-up (done 0 of it: how many sweeps a placement takes is not known),
 * other than the simulation's (permille): the simulation's first report then starts a scale of its
 * own (RunStore.setProgress: a changed total), so its time left goes by its own pace. On one scale
 * with the placement, 20 s of placing before 200 s of simulating read 936 s left 5 s into the
 * simulation, for 195.
 */
const SETUP_TOTAL = 1;
/** Name of the trajectories artifact. */
export const TRAJECTORY_TABLE = 'trajectories';

const METRICS: Record<string, MetricInfo> = {
  particles: { description: 'balls in the vial' },
  solidFraction: { unit: 'fraction', description: 'ball volume (disk area in 2D) / the vial\'s' },
  collisions: { description: 'impacts: ball–ball + ball–wall' },
  ballCollisions: { description: 'ball–ball impacts' },
  wallCollisions: { description: 'ball–wall impacts' },
  topologicalEvents: { description: "the CDO structure's own topological events (cell changes, remaps, endpoint swaps): the seed's TE" },
  boxExits: { description: 'times a ball left its CDO box (the box was moved to it)' },
  trajectoryUpdates: { description: "the seed's predict-trajectory events: one per ball per time step" },
  collisionChecks: { description: "pair collision times computed (Eq. 2): the seed's CC" },
  boxTests: { description: "box overlap tests inside the CDO structure" },
  events: { description: 'impacts + box exits + trajectory updates' },
  eventsPerSecond: { unit: '1/s', description: 'events per wall second of the event loop' },
  staleEvents: { description: "predicted collisions dropped because the partner's trajectory had changed since they were predicted" },
  queuePeak: { description: 'most pair collisions predicted and held at once (besides one box exit and one wall contact a ball)' },
  impactsBelowHistogram: { description: "impacts with a normal energy under 1e-12 J (zero for a graze), left out of the 'impact energy' histogram" },
  impactsAboveHistogram: { description: "impacts with a normal energy of 1e3 J or more, left out of the 'impact energy' histogram" },
  dissipatedEnergy: { unit: 'J', description: 'kinetic energy lost in impacts' },
  impactRate: { unit: '1/s', description: 'impacts (ball–ball + ball–wall) per simulated second: collisions / simulatedSeconds' },
  dissipatedPower: { unit: 'W', description: 'mean power lost in impacts, dissipatedEnergy / simulatedSeconds: the milling intensity' },
  specificPower: { unit: 'W/kg', description: 'dissipatedPower per kilogram of balls: the milling intensity of mills of different fills compared' },
  guardEnergy: { unit: 'J', description: 'energy added by the restitution floor (minimumRebound) to slow inelastic impacts' },
  guardedImpacts: { description: 'impacts whose rebound the restitution floor raised' },
  wallWork: { unit: 'J', description: 'work done by the moving vial on the balls at impacts' },
  initialEnergy: { unit: 'J', description: 'kinetic + potential energy of the balls at the start (potential from the vial floor at rest)' },
  finalEnergy: { unit: 'J', description: 'kinetic + potential energy at the end' },
  relativeEnergyDrift: { unit: 'ratio', description: '|finalEnergy − initialEnergy| / initialEnergy: round-off with restitution 1 and a still vial' },
  simulatedSeconds: { unit: 's', description: 'simulated time reached' },
  loopSeconds: { unit: 's', description: 'wall time of the event loop' },
  setupSeconds: { unit: 's', description: 'wall time of drawing, placing and the first predictions' },
  wallSeconds: { unit: 's', description: 'wall time of the whole run' },
  stopReason: { description: "'duration', 'cancelled', 'stopped' (by the user, keeping the state and trajectories up to simulatedSeconds: runs.stop), 'maxEvents' (the event budget) or 'stalled' (simulated time stopped advancing)" },
  cdo: { description: 'the collision-detection optimisation used' },
  // A progress counter only (runs show, the queue), while the balls are placed.
  placementSweeps: { unit: 'sweeps', description: 'relaxation sweeps of the initial placement so far' },
};

/** Runs a ball mill to its end; returns the simulation and the wall seconds of its event loop. */
export function simulate(params: BallmillParams, ctx: EngineContext): { sim: BallMill; setupSeconds: number; loopSeconds: number } {
  throwIfIssues(checkParams(params));
  const t0 = performance.now();
  // Placing thousands of balls takes tens of seconds (20,000: some 20 ms a sweep, thousands of sweeps
  // for a dense set) and said nothing: the placement asks `cancelled` once a sweep, and every
  // PLACEMENT_PROGRESS_SWEEPS of them the run says what it is doing, with the sweeps so far.
  let sweeps = 0;
  const placing = (stage: SetupStage) => {
    if (++sweeps % PLACEMENT_PROGRESS_SWEEPS === 0) ctx.progress({ done: 0, total: SETUP_TOTAL, phase: setupPhase(stage), counters: { placementSweeps: sweeps } });
    return ctx.cancelled();
  };
  const sim = new BallMill(params, ctx.seed, undefined, placing);
  const t1 = performance.now();
  if (!sim.placed) return { sim, setupSeconds: (t1 - t0) / 1000, loopSeconds: 0 };
  let shown = -1, published = performance.now();
  sim.run((done) => {
    // A live view: the state at this step as the particle table, about once a second.
    if (ctx.publish && performance.now() - published >= PUBLISH_MS) {
      ctx.publish(particleTable(sim, liveSeries(sim)));
      published = performance.now();
    }
    const permille = Math.floor(done * 1000);
    if (permille === shown) return;
    shown = permille;
    ctx.progress({
      done: permille, total: 1000, phase: 'simulating',
      counters: { simulatedSeconds: sim.now, collisions: sim.ballCollisions + sim.wallCollisions, events: sim.events },
    });
  }, () => ctx.cancelled(), () => ctx.stopRequested?.() === true);
  return { sim, setupSeconds: (t1 - t0) / 1000, loopSeconds: (performance.now() - t1) / 1000 };
}

/**
 * The progress phase of a set-up sweep. A set that cannot be placed spends a fifth of its refusal
 * searching the densest placement and half checking the advice (100 spheres at 0.5 of a 20 mm
 * cylinder: 14,856 sweeps of attempts, 10,000 of search, 24,855 of checks), all of it said to be
 * 'placing the balls' before.
 */
function setupPhase(s: SetupStage): string {
  if (s.stage === 'placing') return s.attempt === 1 ? 'placing the balls' : `placing the balls: attempt ${s.attempt}, from fresh random centres`;
  if (s.stage === 'searching') return 'could not place the balls: searching the densest placement (for the advice)';
  return `could not place the balls: checking that the advised ${s.value} places them`;
}

/** Metrics of a finished simulation (see the engine description for their meaning). */
export function ballmillMetrics(sim: BallMill, loopSeconds: number): Record<string, number | string> {
  const e0 = sim.energyValue.length > 0 ? sim.energyValue[0] : sim.energyAt(0);
  const e1 = sim.energyAt(sim.now);
  let solid = 0;
  for (let i = 0; i < sim.n; i++) {
    const r = sim.r[i];
    solid += sim.dim === 2 ? Math.PI * r * r : (4 / 3) * Math.PI * r * r * r;
  }
  const vial = vialMeasure(sim.params);
  const s = sim.structure;
  // Rates over the simulated time (0 for a run cancelled before its first step).
  const T = sim.now, perSecond = (x: number) => (T > 0 ? x / T : 0);
  let mass = 0;
  for (let i = 0; i < sim.n; i++) mass += sim.m[i];
  return {
    particles: sim.n,
    solidFraction: solid / vial,
    collisions: sim.ballCollisions + sim.wallCollisions,
    ballCollisions: sim.ballCollisions,
    wallCollisions: sim.wallCollisions,
    topologicalEvents: sim.topologicalEvents,
    boxExits: sim.boxExits,
    trajectoryUpdates: sim.trajectoryUpdates,
    collisionChecks: sim.collisionChecks,
    boxTests: s ? s.counters.candidatesTested : 0,
    events: sim.events,
    eventsPerSecond: loopSeconds > 0 ? sim.events / loopSeconds : 0,
    staleEvents: sim.staleEvents,
    queuePeak: sim.queue.peak,
    // The histogram's bins cover 1e-12 to 1e3 J; these say how many impacts it does not show.
    impactsBelowHistogram: sim.energyHistogram[0],
    impactsAboveHistogram: sim.energyHistogram[ENERGY_BINS + 1],
    dissipatedEnergy: sim.dissipated,
    impactRate: perSecond(sim.ballCollisions + sim.wallCollisions),
    dissipatedPower: perSecond(sim.dissipated),
    specificPower: mass > 0 ? perSecond(sim.dissipated) / mass : 0,
    guardEnergy: sim.restitution.elasticBelow > 0 ? sim.guardEnergy : 0,
    guardedImpacts: sim.restitution.guarded,
    wallWork: sim.wallWork,
    initialEnergy: e0,
    finalEnergy: e1,
    relativeEnergyDrift: e0 !== 0 ? Math.abs(e1 - e0) / Math.abs(e0) : 0,
    simulatedSeconds: sim.now,
    loopSeconds,
    stopReason: sim.stopReason ?? 'duration',
  };
}

/** Series of a finished simulation: impact energy histogram, impacts per ball, energy against time. */
export function ballmillSeries(sim: BallMill): EngineSeries[] {
  const T = sim.now > 0 ? sim.now : 1;
  const ids = new Float64Array(sim.n), freq = new Float64Array(sim.n);
  for (let i = 0; i < sim.n; i++) { ids[i] = i; freq[i] = sim.impacts[i] / T; }
  return [
    impactEnergySeries(sim),
    { name: 'collision frequency per ball', xLabel: 'ball', yLabel: 'impacts per simulated second', x: ids, y: freq, kind: 'bar' },
    energySeries(sim),
  ];
}

/** The impacts by normal energy, in log bins, from the first bin with an impact to the last. */
function impactEnergySeries(sim: BallMill): EngineSeries {
  const h = sim.energyHistogram;
  let first = -1, last = -1;
  for (let k = 1; k <= ENERGY_BINS; k++) if (h[k] > 0) { if (first < 0) first = k; last = k; }
  const bins = first < 0 ? 0 : last - first + 1;
  const ex = new Float64Array(bins), ey = new Float64Array(bins);
  for (let k = 0; k < bins; k++) {
    // Bin k covers [E_min 10^((k-1)/B), E_min 10^(k/B)): x is log10 of its geometric centre, so
    // that the log bins are evenly spaced on the plot's linear axis.
    ex[k] = Math.log10(ENERGY_BIN_MIN) + (first + k - 0.5) / BINS_PER_DECADE;
    ey[k] = h[first + k];
  }
  return { name: 'impact energy', xLabel: `log10 impact energy (J), ${BINS_PER_DECADE} bins per decade`, yLabel: 'impacts', x: ex, y: ey, kind: 'bar' };
}

function energySeries(sim: BallMill): EngineSeries {
  return { name: 'energy', xLabel: 'time (s)', yLabel: 'kinetic + potential energy of the balls (J)', x: Float64Array.from(sim.energyTime), y: Float64Array.from(sim.energyValue), kind: 'line' };
}

/**
 * The series so far of a running mill, as published table meta.series (plain arrays): the impact
 * energy histogram (at most ENERGY_BINS bars) and the energy (at most about 1,000 points), which cost
 * well under a millisecond a second to copy. Not the collision frequency per ball: n numbers written
 * as JSON every second (20 ms for 100,000 balls, 270 ms for 1,000,000 in the worker, and as long
 * again to parse in the host at every refresh of the live particles); the live table's impacts
 * column shows it per ball already.
 */
function liveSeries(sim: BallMill): { name: string; xLabel: string; yLabel: string; kind: 'line' | 'bar'; x: number[]; y: number[] }[] {
  return [impactEnergySeries(sim), energySeries(sim)].map((s) => ({ ...s, x: Array.from(s.x), y: Array.from(s.y) }));
}

/**
 * Why a run ended before its duration, for its log: its status is 'done' (what it simulated is
 * valid), and stopReason alone, among some thirty metrics, is easy to miss in a batch. Null for a
 * run that reached its duration, was cancelled or was stopped (the user's own acts; the worker logs
 * a stop with where it ended).
 */
function earlyStop(sim: BallMill): string | null {
  const p = sim.params, at = `stopped at ${sim.now.toPrecision(4)} s of ${p.duration} s simulated`;
  if (sim.stopReason === 'stalled') {
    return `${at}: stalled (impacts went on without simulated time advancing: an inelastic collapse); ` +
      `a larger minimumRebound (${p.minimumRebound} mm/s now) keeps slow impacts from collapsing`;
  }
  if (sim.stopReason === 'maxEvents') {
    const needed = sim.now > 0 ? ` (about ${((sim.events / sim.now) * p.duration).toExponential(1)} at this run's rate)` : '';
    return `${at}: the event budget maxEvents = ${p.maxEvents} was used up; raise maxEvents to reach the duration${needed}`;
  }
  return null;
}

/**
 * Table meta the inspector reads (core/common/engine.ts, "Table meta"): the vial as the container
 * outline (a rectangle in the x-y plane in 2D, a vertical cylinder in 3D) and the axis it moves along.
 */
function vialMeta(p: BallmillParams): Record<string, unknown> {
  const v = p.vial;
  const container = p.dim === 2
    ? { shape: 'box', min: [0, 0, 0], max: [v.width, v.height, 0], moves: 'y' }
    : { shape: 'cylinder', axis: 'z', centre: [v.width / 2, v.width / 2], radius: v.width / 2, min: 0, max: v.height, moves: 'z' };
  return {
    dim: p.dim, units: 'mm', container,
    vial: { shape: p.dim === 2 ? 'rectangle' : 'cylinder', width: v.width, height: v.height, amplitude: v.amplitude, frequency: v.frequency },
    axes: p.dim === 2 ? 'x horizontal, y vertical (z = 0)' : 'x, y horizontal (cylinder axis at x = y = width / 2), z vertical',
  };
}

/**
 * The particle table: centre (x, y, z), radius, speed and impacts per ball; a published (live) one
 * carries the series so far in meta.series.
 */
function particleTable(sim: BallMill, series?: ReturnType<typeof liveSeries>): ColumnTable {
  const n = sim.n, pos = new Float64Array(3 * n);
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), speed = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    sim.positionAt(i, sim.now, pos, i);
    x[i] = pos[3 * i]; y[i] = pos[3 * i + 1]; z[i] = pos[3 * i + 2];
    speed[i] = sim.speedAt(i, sim.now);
  }
  return {
    kind: 'table', name: PARTICLE_TABLE.name,
    columns: { id: Uint32Array.from({ length: n }, (_, i) => i), x, y, z, r: Float64Array.from(sim.r), speed, impacts: Uint32Array.from(sim.impacts) },
    meta: {
      ...(sim.dim === 2 ? { particleTable: PARTICLE_TABLE_2D } : {}),
      ...vialMeta(sim.params), time: sim.now, containerOffset: sim.vial.floorAt(sim.now), columns: { speed: 'mm/s', impacts: 'ball–ball and ball–wall impacts' },
      ...(series ? { series } : {}),
    },
  };
}

/**
 * The trajectories: one table, frame after frame, `frameRows` (= balls) rows per frame in ball order,
 * so frame k is rows [k·n, (k+1)·n) of every column: a reader pages through a run by reading one
 * contiguous byte range per column (runs.frame), and the run's files stay one artifact however many
 * frames it has. Each frame is a particle table of its own (same declaration, radius included), with
 * the vial's displacement at each frame in frameOffsets.
 */
function trajectoryTable(sim: BallMill): ColumnTable | null {
  const F = sim.frames, n = sim.n, k = F.count;
  if (k === 0) return null;
  const rows = k * n;
  const time = new Float64Array(rows), id = new Uint32Array(rows), r = new Float32Array(rows);
  const offsets: number[] = [];
  for (let f = 0; f < k; f++) {
    time.fill(F.time[f], f * n, (f + 1) * n);
    for (let i = 0; i < n; i++) { id[f * n + i] = i; r[f * n + i] = sim.r[i]; }
    offsets.push(sim.vial.floorAt(F.time[f]));
  }
  return {
    kind: 'table', name: TRAJECTORY_TABLE,
    columns: { time, id, x: F.x.subarray(0, rows), y: F.y.subarray(0, rows), z: F.z.subarray(0, rows), r, speed: F.speed.subarray(0, rows), impacts: F.impacts.subarray(0, rows) },
    meta: {
      particleTable: sim.dim === 2 ? PARTICLE_TABLE_2D : PARTICLE_TABLE,
      ...vialMeta(sim.params), frames: k, frameRows: n, frameInterval: frameInterval(sim.params) * sim.params.timeStep,
      frameTimes: Array.from(F.time.subarray(0, k)), frameOffsets: offsets,
      layout: 'frame-major: frame f is rows [f·frameRows, (f+1)·frameRows)',
    },
  };
}

export const ballmillEngine = defineEngine({
  id: 'ballmill',
  title: 'Shaker ball mill',
  description:
    'Event-driven simulation of a shaker ball mill (Gavrilova, Rokne, Gavrilov & Vinogradov): balls in a vertically oscillating vial under gravity, ' +
    'exact collision times, restitution constant or Hertz, collision detection by the chosen core/spatial structure; impact statistics, energy and trajectories.',
  paramsSchema: ballmillParamsSchema,
  check: checkParams,
  warnings: ineffectiveFields,
  estimateMemoryBytes,
  particleTable: PARTICLE_TABLE,
  metrics: METRICS,
  stopAndKeep: 'the balls as they are at the simulated time reached, their impact statistics and the trajectories up to it',
  run(params, ctx): EngineResult {
    const t0 = performance.now();
    const { sim, setupSeconds, loopSeconds } = simulate(params, ctx);
    if (!sim.placed) {
      // Cancelled while the balls were placed: they have no state, so no energies (they read 0 J),
      // impacts per ball nor energy series (one point, 0 J at 0 s).
      return {
        cancelled: true,
        metrics: { particles: sim.n, simulatedSeconds: 0, stopReason: 'cancelled', cdo: params.cdo, setupSeconds, wallSeconds: (performance.now() - t0) / 1000 },
        series: [],
        artifacts: [],
      };
    }
    const early = earlyStop(sim);
    if (early) ctx.log(early);
    const every = frameInterval(params), taken = every > 0 ? 1 / (every * params.timeStep) : 0;
    if (every > 0 && Math.abs(taken - params.output.frameRate) > 1e-9 * taken) {
      // Frames come at time steps only: say which rate the trajectories have, not leave it to their meta.
      ctx.log(`output.frameRate: ${params.output.frameRate} frames/s asked, ${Number(taken.toPrecision(4))} taken: frames are taken at time steps, ` +
        `here every ${every} steps of ${params.timeStep} s (${Number((every * params.timeStep).toPrecision(6))} s apart)`);
    }
    const artifacts: ColumnTable[] = [particleTable(sim)];
    const traj = trajectoryTable(sim);
    if (traj) artifacts.push(traj);
    return {
      cancelled: sim.stopReason === 'cancelled',
      ...(sim.stopReason === 'stopped' ? { stopped: `${Number(sim.now.toPrecision(6))} s of ${params.duration} s simulated` } : {}),
      metrics: { ...ballmillMetrics(sim, loopSeconds), cdo: params.cdo, setupSeconds, wallSeconds: (performance.now() - t0) / 1000 },
      series: ballmillSeries(sim),
      artifacts,
    };
  },
});
