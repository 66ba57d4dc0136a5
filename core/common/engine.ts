/**
 * The contract between an engine in core/ and the services that run it.
 *
 * An engine declares itself once (id, params schema with defaults/units/ranges, memory estimate,
 * run function); the engine registry in main/services/engines.ts lists the declarations, the worker
 * entry in main/workers/ runs them, and the renderer builds its forms from the schema's JSON Schema.
 * Engines never print, never read globals: inputs come in, progress goes out through the context.
 *
 * Ending early: the user may cancel a run (ctx.cancelled(): the engine returns at once with
 * `cancelled`, and the worker keeps no artifacts) or, for an engine that declares `stopAndKeep`,
 * stop and keep it (ctx.stopRequested(): the engine ends its main loop as at its end condition,
 * finishes as usual and returns its whole result with `stopped`; the run is done with its artifacts).
 */
import type { z } from 'zod';

/** Progress of a running engine. `done`/`total` drive the progress bar; counters are free-form. */
export interface EngineProgress {
  done: number;
  total: number;
  /** Short phase name shown next to the bar, e.g. 'packing', 'finalising'. */
  phase?: string;
  /** Live counters (particles placed, solid fraction, move attempts, ...). */
  counters?: Record<string, number>;
}

export interface EngineContext {
  /** The run's seed (an integer in [0, 2^32-1]); engines seed core/common/random from it. */
  seed: number;
  /** Threads the engine may use (>= 1). */
  threads: number;
  /** Report progress; callers throttle, so engines may call this as often as once a time step. */
  progress(p: EngineProgress): void;
  /** True once cancel was requested; engines check it at least once per time step and return early. */
  cancelled(): boolean;
  /**
   * True once the user asked to stop and keep (runs.stop), for engines that declare `stopAndKeep`:
   * the engine checks it where it checks cancelled() in its main loop and, when it is true, ends that
   * loop as if its end condition had been reached (stopReason 'stopped'), then finishes as usual
   * (finalisation, checks, analysis: its artifacts must be as valid as a finished run's) and returns
   * its whole result with `stopped` set. A cancel still wins: cancelled() is asked first. Absent
   * where nobody can ask (tests, benches).
   */
  stopRequested?(): boolean;
  /** A line for the run's log (stored with the run, shown on failure). */
  log(message: string): void;
  /**
   * Starts helper threads for this run, one per entry of `data`: each runs the engine's `helper`
   * with its entry, structured-cloned (SharedArrayBuffers and shared WebAssembly.Memory objects are
   * shared, not copied). The run and its helpers talk only through that shared memory (Atomics);
   * `stop` ends the helpers that are still running. Absent where no threads can be started (the
   * engine then runs on its own thread). core/ cannot start threads itself (no node:*): the worker
   * runtime (main/workers/runtime.ts) provides this.
   */
  startHelpers?(data: unknown[]): HelperThreads;
  /**
   * Publishes the running run's current state as its particle table (replacing the previous one),
   * for live views: the inspector shows a running run's latest published table, and its meta.series
   * (see "Table meta" at ParticleTableSpec) as the run's series so far. Engines call it at most about
   * once a second of wall time (it writes a file). Absent where nobody watches (tests).
   */
  publish?(table: ColumnTable): void;
  /**
   * Checkpoints, for engines that can resume: the engine saves its state every
   * `intervalSeconds` and, when a run starts with a checkpoint of an interrupted attempt, resumes
   * from it (to the same result as a run never interrupted). Absent where runs are not kept (tests).
   */
  checkpoints?: CheckpointStore;
}

/** A checkpoint of a running engine: small state as JSON, large state as named typed arrays. */
export interface Checkpoint {
  meta: Record<string, unknown>;
  arrays: Record<string, Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array>;
}

/** Where a run keeps its checkpoint (EngineContext.checkpoints): in the run's folder, one at a time. */
export interface CheckpointStore {
  /** Seconds between checkpoints (the run's setting). */
  intervalSeconds: number;
  /** The last checkpoint saved for this run (by this attempt or an interrupted earlier one), or null. */
  load(): Checkpoint | null;
  /** Replaces the checkpoint atomically: a crash during save leaves the previous one usable. */
  save(checkpoint: Checkpoint): void;
}

/** Helper threads started for a run (EngineContext.startHelpers). */
export interface HelperThreads {
  stop(): void;
}

/**
 * A named x/y series: progress curves, profiles, histograms. A pair named '<name> asked' and
 * '<name> achieved' with the same axes and kind is drawn in one plot (a target against what the run reached).
 */
export interface EngineSeries {
  name: string;
  xLabel: string;
  yLabel: string;
  x: Float64Array;
  y: Float64Array;
  /** 'line' for curves and profiles, 'bar' for histograms. */
  kind: 'line' | 'bar';
}

/** A column table: every column the same length, each a typed array. */
export interface ColumnTable {
  kind: 'table';
  name: string;
  columns: Record<string, Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | Int16Array>;
  /** Free-form metadata stored with the artifact (units, box size, ...). */
  meta?: Record<string, unknown>;
}

/** A labelled voxel volume: label 0 is void, label i > 0 is particle i - 1 of the particle table. */
export interface LabelVolume {
  kind: 'volume';
  name: string;
  /** Dimensions in voxels, x fastest: index = x + nx * (y + ny * z). */
  dims: [number, number, number];
  /** Edge length of one voxel in the run's length unit. */
  voxelSize: number;
  labels: Uint32Array;
  meta?: Record<string, unknown>;
}

export type EngineArtifact = ColumnTable | LabelVolume;

export interface EngineResult {
  /** Scalar results, stored as the run's metrics (numbers are filterable/sortable in History). */
  metrics: Record<string, number | string | boolean>;
  series: EngineSeries[];
  artifacts: EngineArtifact[];
  /** True when the engine stopped because ctx.cancelled() became true. */
  cancelled?: boolean;
  /**
   * Where the run ended when it ended through ctx.stopRequested(), for its log ('stopped by user at
   * …'), e.g. '12.5 s of 600 s simulated' or '412 particles placed, time step 90000'. The run is
   * done and keeps its artifacts.
   */
  stopped?: string;
}

/**
 * One problem of a spec's params that the schema alone cannot see (it needs several fields): where
 * (a dotted path inside params, e.g. 'mixture.types.0.size') and what is wrong, naming the allowed range.
 */
export interface ParamsIssue {
  path: string;
  message: string;
}

/** A per-particle quantity the inspector can colour by. */
export interface ParticleQuantity {
  /** Column of the particle table (a run's table may lack optional ones, e.g. analysis columns). */
  column: string;
  label: string;
  unit?: string;
  /** Ids of categories (types, classes): a categorical palette instead of a continuous map. */
  categorical?: boolean;
}

/**
 * The particle table an engine writes, declared so that the inspector, the exports and the analysis
 * read it without guessing column names. The worker stores it with the table artifact
 * (meta.particleTable), so a run keeps the declaration it was written with.
 *
 * Table meta the inspector reads besides the declaration (all optional):
 *  - `units`: the unit of the table's lengths (centres, container), e.g. 'mm'; without it the
 *    inspector says 'length units'.
 *  - `container`: the outline to draw, { shape: 'box', min, max } or { shape: 'cylinder', axis: 'z',
 *    centre: [x, y], radius, min, max }, with `moves` ('x' | 'y' | 'z'), the axis along which a
 *    moving container is displaced by `containerOffset` (a number).
 *  - frames: a table of `frames` frames of `frameRows` rows each, frame after frame (frame f is rows
 *    [f·frameRows, (f+1)·frameRows)), each frame a particle table of the declaration, with
 *    `frameTimes` (one per frame) and `frameOffsets` (the container's displacement per frame): the
 *    inspector plays it back, reading one frame at a time (runs.frame).
 *  - `time`: the simulated time (s) of the state the table holds; the inspector shows it beside a
 *    published table.
 *  - `series`, on a published table (EngineContext.publish) only: the running run's series so far,
 *    [{ name, xLabel, yLabel, kind, x: number[], y: number[] }] (EngineSeries with plain arrays),
 *    which runs.series returns while the run is under way (its stored series come when it ends).
 */
export interface ParticleTableSpec {
  /** Name of the table artifact. */
  name: string;
  /** Centre columns (length units). */
  centre: [string, string, string];
  /**
   * The size columns in order of preference (the first the table has gives the size): a sphere's
   * radius or a diameter (e.g. the volume-equivalent one an analysis adds, then the engine's own).
   */
  size: { column: string; is: 'radius' | 'diameter' }[];
  /**
   * How a particle is drawn: a sphere of the size; a disk in the x-y plane (2D engines, z = 0);
   * a disk tangent to a surface whose normal is in the given columns.
   */
  glyph: { kind: 'sphere' } | { kind: 'disk-xy' } | { kind: 'tangent-disk'; normal: [string, string, string] };
  /** Column holding each particle's id (its row in the full table), which survives decimation. */
  id?: string;
  /**
   * Column holding a particle's category index (type, class), when it has one; `namesFrom` is a key
   * of the table's meta holding the categories' names (an array of strings).
   */
  category?: { column: string; label: string; namesFrom?: string };
  /** Quantities to colour by, in menu order (height and particle index are always offered). */
  quantities: ParticleQuantity[];
}

/** What a metric measures: shown beside its name where runs are listed and compared. */
export interface MetricInfo {
  /** UNITS.length, 'fraction', 'voxels', 's', ...; none for counts and text. */
  unit?: string;
  /** Its unit in a 2D run (params.dim 2) where that differs from `unit`: an area for a volume. */
  unit2d?: string;
  description: string;
}

/**
 * A metric's unit in a run with `params`: its 2D unit in a 2D run. Without params (a column of runs of
 * either dimension), both: 'length units³ (length units² in 2D)'. '' when it declares none.
 */
export function metricUnitIn(info: MetricInfo | undefined, params?: unknown): string {
  if (!info?.unit) return '';
  if (!info.unit2d) return info.unit;
  if (params === undefined) return `${info.unit} (${info.unit2d} in 2D)`;
  return (params as { dim?: unknown } | null)?.dim === 2 ? info.unit2d : info.unit;
}

export interface EngineDefinition<S extends z.ZodType = z.ZodType> {
  id: string;
  title: string;
  description: string;
  /** Validates and defaults the `params` of a spec. Use .meta({ unit, description }) on fields. */
  paramsSchema: S;
  /**
   * Checks that need several fields (a particle larger than the box, memory over a limit, ...).
   * Run on every spec (every point of a sweep) before it is stored, and by the batch form.
   */
  check?(params: z.output<S>): ParamsIssue[];
  /**
   * Fields the user wrote that have no effect with the rest of the params (a skin with cdo
   * 'direct'): each a warning naming the field, what makes it ineffective and how to make it take
   * effect; or a valid value whose effect few would want, said with what it does (the voxel
   * engine's freezingInterval 1 freezes particles in mid-air). `written` is the params as the spec holds them (one sweep point: its values in place of
   * the sweeps), before the schema fills its defaults; only fields present there count (writtenAt).
   * Warnings never refuse a spec: a sweep over cdo with a skin set is sensible. Cheap: run on the
   * host's thread for every point of a sweep, and when a run starts (its log records them).
   */
  warnings?(written: Record<string, unknown>, params: z.output<S>): ParamsIssue[];
  /**
   * Bytes the run takes at most in its worker (WORKER_BYTES, then what it allocates), so the pool
   * can refuse a run before starting it. Its helper threads' workers are not in it: the queue adds
   * WORKER_BYTES for each (JobQueue.memoryBytes), as it knows the threads a run starts with.
   */
  estimateMemoryBytes(params: z.output<S>): number;
  /** The particle table the engine writes (an artifact of kind 'table' with this name). */
  particleTable: ParticleTableSpec;
  run(params: z.output<S>, ctx: EngineContext): EngineResult | Promise<EngineResult>;
  /**
   * Stop and keep (runs.stop): what a run ended early by the user keeps, in a sentence shown beside
   * the app's Stop button, e.g. 'the balls and trajectories up to the simulated time reached'. Absent
   * for an engine whose early end cannot give a meaningful result: the API refuses runs.stop for its
   * runs and the app offers only Cancel.
   */
  stopAndKeep?: string;
  /** The body of a helper thread of a run (EngineContext.startHelpers): returns when the run tells it to. */
  helper?(data: unknown): void;
  /**
   * Whether a run of these params shares its work with helper threads; absent, every run of an
   * engine with a `helper` does. A run that does not (the surface engine's 'queries' and 'direct'
   * searches) is started, recorded and estimated on one thread whatever the threads per run: given
   * two, it had been recorded as run on 2 with a helper's worker in its memory, and started none.
   */
  usesHelpers?(params: z.output<S>): boolean;
  /** The metrics it reports (and names its older runs carry) with what each measures. */
  metrics?: Record<string, MetricInfo>;
}

/**
 * What the worker thread of a run takes, whatever the run: its V8 isolate, the bundle's compiled
 * code and the JavaScript heap the run's phases grow before a collection; each engine's
 * estimateMemoryBytes counts it once (the queue adds one per helper thread). Resident set of the
 * worker: 42 MiB for a one-particle voxel run, 65-94 MiB for the 96³ and 256² × 128 voxel runs of
 * bench/voxel-memory.ts (of which their own arrays are 3-52 MiB), 62 MiB for a surface run of a few
 * particles (bench/surface-memory.ts).
 */
export const WORKER_BYTES = 96 * (1 << 20);

/** Throws a RangeError listing the issues (for callers that run an engine directly, e.g. tests, benches). */
export function throwIfIssues(issues: ParamsIssue[]): void {
  if (issues.length > 0) throw new RangeError(issues.map((i) => `${i.path}: ${i.message}`).join('; '));
}

/**
 * The value at a dotted path of params as written ('vial.amplitude', 'mixture.types.0.rotationStep':
 * list entries by index), undefined where the path is absent (own fields only).
 */
export function valueAt(node: unknown, path: string): unknown {
  let v = node;
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** Whether the user wrote the field at `path` in params as written (EngineDefinition.warnings). */
export function writtenAt(written: Record<string, unknown>, path: string): boolean {
  return valueAt(written, path) !== undefined;
}

/** Helper that keeps the generic parameter when declaring an engine. */
export function defineEngine<S extends z.ZodType>(def: EngineDefinition<S>): EngineDefinition<S> {
  return def;
}
