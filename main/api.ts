/**
 * The API contract of PackBench: every request the renderer (or the CLI, or a browser over the web
 * host) can make, with the runtime schema of its params, the type of its result, and the events the
 * services push. One object type, `PackbenchApi`, is exposed as `window.packbench` by the Electron
 * preload and by the browser bridge (renderer/src/bridge/); one table of handlers
 * (main/services/handlers.ts) serves both and the CLI.
 *
 * This module is shared with the renderer: zod and types only, no Node, no Electron, no DOM.
 */
import { z } from 'zod';
import type { MetricInfo, ParticleTableSpec } from '../core/common/engine';
import { POW10 } from '../core/common/power';
import { walkLimitPassed } from './wire';

// ---------------------------------------------------------------------------------------------
// Shared value types
// ---------------------------------------------------------------------------------------------

export const RUN_STATUSES = ['queued', 'running', 'paused', 'done', 'failed', 'cancelled'] as const;

/**
 * Imported sphere sets are recorded as finished runs of this pseudo-engine: not in the engine
 * registry (there is nothing to run), but listed, analysed and exported like any other run.
 */
export const SPHERE_IMPORT_ENGINE = 'spheres';
/**
 * The periodic sides an imported sphere set can be analysed with (analysis.periodic), by the name
 * `packbench import spheres --periodic` and History's import give them. 'x,y', a bed periodic
 * sideways as PackBench's voxel packings are, is the default.
 */
export const SPHERE_PERIODIC_SIDES = {
  'x,y': [true, true, false],
  none: [false, false, false],
  'x,y,z': [true, true, true],
} as const satisfies Record<string, readonly [boolean, boolean, boolean]>;
export type SpherePeriodicSides = keyof typeof SPHERE_PERIODIC_SIDES;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** Statuses a run never leaves by itself. */
export const FINAL_STATUSES: readonly RunStatus[] = ['done', 'failed', 'cancelled'];

export const MAX_SEED = 0xffffffff;
/** The most runs one spec's sweeps make (its params' points times its seeds): sweepPlan refuses more, the batch form counts against it. */
export const MAX_SWEEP_POINTS = 10_000;
/** The most runs one runs.list page holds: a batch can hold more (re-runs that joined it), read a page at a time. */
export const MAX_LIST_PAGE = 10_000;

/** Any typed array that may travel through the API (structured clone or the WS codec). */
export type TypedArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array;

const id = z.string().min(1).max(200);
const idParams = z.object({ id });
/** A run's seed: a spec's (default 1), or the one a re-run takes instead of its run's. */
export const seedSchema = z.number().int().min(0).max(MAX_SEED);

/**
 * A sweep over one params field: `{ "$sweep": [v1, v2, ...] }` (explicit values) or
 * `{ "$sweep": { from, to, steps } }` (evenly spaced, both ends included). A spec whose params hold
 * sweeps expands into the cartesian product of runs (main/services/sweep.ts).
 */
export const sweepSchema = z.object({
  $sweep: z.union([
    z.array(z.unknown()).min(1).max(10_000),
    z.strictObject({
      from: z.number(),
      to: z.number(),
      steps: z.number().int().min(1).max(10_000),
    }).refine((r) => r.steps > 1 || r.from === r.to, {
      // One step is the range's 'from' alone: the 'to' typed was dropped without a word.
      path: ['steps'],
      error: (issue) => {
        const r = issue.input as { from: number; to: number };
        return `a range of 1 step is its from (${r.from}) alone: from ${r.from} to ${r.to} needs steps ≥ 2 (or write { "$sweep": [${r.from}] })`;
      },
    }),
  ]),
});
export type Sweep = z.infer<typeof sweepSchema>;

/**
 * The values a sweep takes: its list, or its range evenly spaced with both ends exact and rounded to
 * 12 significant digits (so that 0.1 steps read 0.1, and 0.2 to 1 in 4 steps ends at 1, not at
 * 1.0000000000000002); [] for a range that is not one yet (the batch form reads it as it is typed).
 * The service expands sweeps with it and the batch form checks and counts them with it, so both see
 * the same values.
 */
export function sweepValues(s: Sweep): unknown[] {
  const w = s.$sweep;
  if (Array.isArray(w)) return w;
  const { from, to, steps } = w;
  if (!Number.isFinite(from) || !Number.isFinite(to) || !Number.isInteger(steps) || steps < 1) return [];
  if (steps === 1) return [from];
  return Array.from({ length: steps }, (_, i) => (i === steps - 1 ? to : Number((from + ((to - from) * i) / (steps - 1)).toPrecision(12))));
}

export const SEED_RANGE = `a whole number in [0, ${MAX_SEED}]`;

/**
 * The first value of a list that repeats an earlier one, as [its first index, the repeat's index];
 * null when all differ. A sweep of seeds must not repeat one: the same seed and params make the same
 * run, which would count twice in its point's spread (sweep.ts and the batch form ask this).
 */
export function firstRepeat(values: readonly unknown[]): [number, number] | null {
  const seen = new Map<unknown, number>();
  for (let i = 0; i < values.length; i++) {
    const first = seen.get(values[i]);
    if (first !== undefined) return [first, i];
    seen.set(values[i], i);
  }
  return null;
}

/**
 * A spec's seed: one, or a sweep of seeds (replicates: a run at each, main/services/sweep.ts). The
 * sweep is only recognised here (any other key too, so that none is dropped); its form and values are
 * checked when it is expanded, as the params' sweeps are, each issue at its field (seed.$sweep.2).
 */
const specSeed = z.union([seedSchema, z.looseObject({ $sweep: z.unknown() })], {
  // zod names no field nor range for a failed union: a number is told the seed's own message.
  error: (issue) => {
    if (issue.code !== 'invalid_union') return undefined;
    if (!isPlainObject(issue.input)) return issue.errors[0]?.[0]?.message;
    return `must be ${SEED_RANGE} or a sweep of such ({ "$sweep": [1, 2, 3] }), got an object without "$sweep"`;
  },
});

/** A run spec: what `packbench run SPEC.json` reads and what runs.enqueue takes. */
export const runSpecSchema = z.object({
  engine: z.string().min(1).max(100).meta({ description: 'Engine id, e.g. "voxel"' }),
  name: z.string().min(1).max(200).meta({ description: 'Name of the run (or of the batch of a sweep)' }),
  seed: specSeed.default(1).meta({ description: 'Seed of the random generator, or a sweep of seeds (replicates)' }),
  /** Engine params (validated by the engine's paramsSchema on the service side); may hold sweeps. */
  params: z.record(z.string(), z.unknown()).default({}),
});
/** A spec as written: its seed and params may hold sweeps (sweepPlan makes its runs' specs). */
export type SweepSpec = z.output<typeof runSpecSchema>;
/** A run's spec: one seed. */
export type RunSpec = Omit<SweepSpec, 'seed'> & { seed: number };
export type RunSpecInput = z.input<typeof runSpecSchema>;

export interface RunProgress {
  done: number;
  total: number;
  phase: string;
  /**
   * Where the current progress scale began: the run's working seconds and `done` at the attempt's
   * first report (a resumed run's is at its checkpoint's progress), and when its total last changed
   * or `done` fell (engines report each phase from 0: settling, finalising, the analysis after the
   * packing); 0 and 0 before the first. remainingSeconds gives no time left before it has worked
   * ETA_AFTER_SECONDS.
   */
  fromSeconds: number;
  fromDone: number;
  /**
   * The report remainingSeconds takes the pace since: a recent one, a quarter to about half of the
   * scale's working time back (RunStore.setProgress moves it up), or the scale's beginning. Since
   * the scale began, a phase whose first part went by fast (the analysis' porosity pass) and whose
   * rest goes slowly (its orientation) averaged both and read a fraction of the time left.
   */
  paceSeconds: number;
  paceDone: number;
}

export type MetricValue = number | string | boolean;

export interface RunSummary {
  id: string;
  name: string;
  engine: string;
  status: RunStatus;
  /** Higher runs first. */
  priority: number;
  seed: number;
  progress: RunProgress;
  /** ISO 8601 timestamps. */
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** When the run's current pause began: set only while a run that has started is paused. */
  pausedAt: string | null;
  /** Seconds the run spent paused since it started, before the current pause (see workingSeconds). */
  pausedSeconds: number;
  /** Seconds the run worked, its pauses not counted; set when it ends. */
  wallSeconds: number | null;
  metrics: Record<string, MetricValue>;
  batchId: string | null;
  /** The values of the batch's swept params in this run (dotted params path → value); {} outside a sweep. A re-run's: those its name's label says (JobQueue.rerun). */
  sweep: Record<string, unknown>;
  error: string | null;
}

/**
 * Seconds a run has worked at `nowMs`: its wall time once it has ended (null when not known: a run
 * ended by the recovery of a process that died, or that failed to start), else the time since it
 * started without its pauses (standing still while it is paused); null before it starts.
 */
export function workingSeconds(r: Pick<RunSummary, 'status' | 'startedAt' | 'pausedAt' | 'pausedSeconds' | 'wallSeconds'>, nowMs: number): number | null {
  if (FINAL_STATUSES.includes(r.status)) return r.wallSeconds;
  if (!r.startedAt) return null;
  const until = r.pausedAt ? Date.parse(r.pausedAt) : nowMs;
  return Math.max(0, (until - Date.parse(r.startedAt)) / 1000 - r.pausedSeconds);
}

/**
 * Working seconds a progress scale must have run before its pace says anything of the time left. A
 * phase's parts go at different paces (the analysis: its porosity pass in a blink, the orientation
 * after it for minutes): extrapolated from its first fraction of a second, a run at '27 % ·
 * analysis: orientation' read 0:00 left while it worked on.
 */
export const ETA_AFTER_SECONDS = 3;

/**
 * Seconds left of a started run's current progress scale (its phase: engines report each from 0),
 * by linear extrapolation of the progress since a recent report (RunProgress.paceSeconds) over the
 * working time since (so that a pause neither stretches nor moves it, and a run that stops moving
 * reads ever longer); null until there is progress to go by and the scale has worked
 * ETA_AFTER_SECONDS. The pace of the packing said nothing of the settling after it: 10 % of the
 * settling after an hour of packing read as 9 hours left.
 */
export function remainingSeconds(r: Pick<RunSummary, 'status' | 'startedAt' | 'pausedAt' | 'pausedSeconds' | 'wallSeconds' | 'progress'>, nowMs: number): number | null {
  if (r.status !== 'running' && r.status !== 'paused') return null;
  const { done, total, fromSeconds, paceSeconds, paceDone } = r.progress;
  const worked = workingSeconds(r, nowMs);
  if (worked === null || !(total > 0) || !(done > paceDone) || done >= total || !(worked - fromSeconds >= ETA_AFTER_SECONDS)) return null;
  return ((worked - paceSeconds) * (total - done)) / (done - paceDone);
}

/**
 * A run's progress in percent with `digits` decimals, as every view writes it: 100 once it is done;
 * for a run not done, its phase's share (engines report each phase from 0) rounded down and below
 * 100, so that a phase at its end (the packing before the settling, the analysis while the
 * artifacts are written) does not read as the run done.
 */
export function progressPercent(r: Pick<RunSummary, 'status' | 'progress'>, digits: number): string {
  if (r.status === 'done') return (100).toFixed(digits);
  const { done, total } = r.progress, scale = POW10[digits];
  const share = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  return (Math.min(Math.floor(share * 100 * scale), 100 * scale - 1) / scale).toFixed(digits);
}

/** A batch: the runs of one sweep (or one named enqueue), as batches.list lists it. */
export interface BatchSummary {
  id: string;
  name: string;
  createdAt: string;
  finishedAt: string | null;
  /** Its runs by status. */
  counts: Record<RunStatus, number>;
  /** The dotted params paths its spec sweeps, in expansion order. */
  swept: string[];
  /** How many seeds its spec sweeps (the replicates of each params point); 0 when it runs one seed. */
  seeds: number;
}

export interface RunRecord extends RunSummary {
  /** The spec as enqueued (one point of a sweep: no $sweep left). */
  spec: RunSpec;
  /** params after the engine's schema: validated, with defaults. */
  params: Record<string, unknown>;
  /** Last live counters reported by the engine. */
  counters: Record<string, number>;
  log: string[];
  appVersion: string;
  host: { hostname: string; platform: string; arch: string; cpus: number; cpuModel: string; totalMemoryBytes: number; node: string } | null;
  threads: number;
  /** How many times the run was started (more than 1 after a crash recovery). */
  attempts: number;
}

export interface RunSeries {
  name: string;
  xLabel: string;
  yLabel: string;
  kind: 'line' | 'bar';
  x: Float64Array;
  y: Float64Array;
}

export interface RunArtifact {
  id: number;
  kind: 'table' | 'volume';
  name: string;
  /** Absolute path of the .pbt / .pbv file. */
  path: string;
  bytes: number;
  /** sha256 of the file, hex. */
  checksum: string;
  meta: Record<string, unknown>;
}

/** How the particle editor voxelises a shape for its preview, saved with the shape. */
export interface ShapeVoxelisation {
  /** Characteristic size in length units. */
  size: number;
  /** Voxels per length unit. */
  resolution: number;
  reductionThreshold: number;
}

/** A shape of the shape library. `params` is a core/voxel shape (validated by its shapeSchema). */
export interface Shape {
  id: string;
  name: string;
  kind: string;
  params: Record<string, unknown>;
  /** The editor's size, resolution and reduction threshold last saved with it; null: never saved. */
  voxelisation: ShapeVoxelisation | null;
  builtin: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Preset {
  id: string;
  name: string;
  spec: RunSpecInput;
  createdAt: string;
}

export interface EngineInfo {
  id: string;
  title: string;
  description: string;
  /** z.toJSONSchema of the engine's paramsSchema (input side: defaults, minimum/maximum, unit, description). */
  paramsJsonSchema: Record<string, unknown>;
  /** paramsSchema.parse({}) when every field has a default, else null. */
  defaults: Record<string, unknown> | null;
  /** The particle table the engine writes (its columns' roles). */
  particleTable: ParticleTableSpec;
  /** What each metric of its runs measures (unit, description), by metric name. */
  metrics: Record<string, MetricInfo>;
  /** What a run stopped early (runs.stop) keeps (EngineDefinition.stopAndKeep); null: its runs cannot stop early, only cancel. */
  stopAndKeep: string | null;
}

/** What an export format needs from a run (main/services/exports.ts). */
export type ExportNeed = 'results' | 'table' | 'volume' | 'volume-or-table' | 'heightmap' | 'trajectory';

/** An artifact a run can lack that a format needs. */
export type MissingArtifact = 'table' | 'volume' | 'heightmap' | 'trajectory';
/** The missing artifact in words. */
export const ARTIFACT_WORDS: Record<MissingArtifact, string> = { table: 'particle table', volume: 'label volume', heightmap: 'height map', trajectory: 'trajectories' };

type ArtifactRecord = { kind: 'table' | 'volume'; name: string };
/** The label volume: any volume but the height map. */
export const isLabelVolume = (a: ArtifactRecord): boolean => a.kind === 'volume' && a.name !== 'heightmap';
export const isHeightmap = (a: ArtifactRecord): boolean => a.kind === 'volume' && a.name === 'heightmap';
/** A ball mill's table of frames (core/ballmill TRAJECTORY_TABLE): runs with output.frameRate > 0 have it. */
export const isTrajectories = (a: ArtifactRecord): boolean => a.kind === 'table' && a.name === 'trajectories';

/**
 * The artifact a format of these needs that a run has none of, or null, from the run's artifact records
 * (runs.artifacts) alone: the export service (lackingData) and History's format list ask the same.
 */
export function missingArtifact(needs: ExportNeed, artifacts: readonly ArtifactRecord[]): MissingArtifact | null {
  const table = artifacts.some((a) => a.kind === 'table');
  const volume = artifacts.some(isLabelVolume);
  switch (needs) {
    case 'results':
      return null;
    case 'table':
      return table ? null : 'table';
    case 'volume':
      return volume ? null : 'volume';
    case 'volume-or-table':
      return volume || table ? null : 'table';
    case 'heightmap':
      return artifacts.some(isHeightmap) ? null : 'heightmap';
    case 'trajectory':
      return artifacts.some(isTrajectories) ? null : 'trajectory';
  }
}

/** One export format, as exports.formats lists them. */
export interface ExportFormatInfo {
  id: string;
  label: string;
  /** File name extension without the dot. */
  extension: string;
  mime: string;
  needs: ExportNeed;
  /** The runs it applies to, in words (the service refuses the others with a clear error). */
  appliesTo: string;
}

/** The memory a spec's largest run takes at most (JobQueue.memoryBytes), with the threads it counts, against the budget. */
export interface MemoryEstimate {
  memoryBytes: number;
  /** The threads the runs get: the queue's threads per run for a run that shares its work with helper threads (voxel, surface with the 'cells' search; it starts a worker for each beyond the first), one for the others. */
  threadsPerRun: number;
  memoryBudgetBytes: number;
}

export interface QueueState {
  paused: boolean;
  /** Runs this process's workers run. */
  running: number;
  /** Runs another process on the data folder runs (`packbench run` beside the app, another window's host). */
  runningElsewhere: number;
  /** Runs the user paused (they keep their place and do no work), in any process on the data folder. */
  pausedRuns: number;
  queued: number;
  concurrency: number;
  /** Threads each run it starts may use (EngineContext.threads) if its engine has helper threads (others run on one); the runs' threads stay within the cores. */
  threadsPerRun: number;
  /** Seconds between checkpoints of the runs it starts (0: none). */
  checkpointSeconds: number;
  /** Why queued runs wait though they could start: the data folder cannot take writes now (its disk filled by another program, its database locked), and what it needs; null while it can. */
  waiting: string | null;
}

// ---------------------------------------------------------------------------------------------
// Params schemas, one per method
// ---------------------------------------------------------------------------------------------

/** A shape as sent by the renderer; its fields are checked by core/voxel's shapeSchema in the service. */
const shapeValue = z.looseObject({ kind: z.string().min(1) });
/** Largest characteristic size of a shape's preview and saved voxelisation, in length units (the editor names it at its field). */
export const MAX_SHAPE_SIZE = 1e6;
/** Most voxels across a shape preview (main/services/shapes.ts; the editor names it at its fields): 400³ samples take the voxeliser some 15 s and 1 GB. */
export const PREVIEW_MAX_VOXELS_ACROSS = 400;
/** The ranges are the preview's (shapes.preview). */
const shapeVoxelisation = z.strictObject({
  size: z.number().positive().max(MAX_SHAPE_SIZE),
  resolution: z.number().positive().max(1e6),
  reductionThreshold: z.number().int().min(0).max(26),
});

/** The bytes of a file the user chose (a Node Buffer on the CLI side is a Uint8Array too). */
const fileBytes = z.instanceof(Uint8Array, { message: 'must be the bytes of the file (Uint8Array)' });
const fileName = z.string().min(1).max(300);
const importedShapeName = z.string().min(1).max(200).optional().meta({ description: 'name in the shape library (default: the file name without extension, made unique)' });

const sortFields = ['createdAt', 'startedAt', 'finishedAt', 'name', 'engine', 'status', 'priority', 'seed', 'wallSeconds'] as const;

/**
 * Where a page of runs.list ends, as its `next` says: the last row's value of the sort and its place
 * in the store ([value, seq] as JSON), so that the page after it starts there even when that run has
 * since been deleted.
 */
const listCursor = z
  .string()
  .max(1000)
  .transform((text, ctx): [string | number | null, number] => {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      v = undefined;
    }
    if (Array.isArray(v) && v.length === 2 && (v[0] === null || typeof v[0] === 'string' || typeof v[0] === 'number') && Number.isSafeInteger(v[1])) return v as [string | number | null, number];
    ctx.addIssue({ code: 'custom', message: `must be the next of an earlier runs.list answer, got ${quoted(text)}` });
    return z.NEVER;
  });

export const runsListFilterSchema = z.object({
  engine: z.string().optional(),
  /** At most one entry per status (each is a variable of the query: 40,000 of them failed in SQLite). */
  status: z.array(z.enum(RUN_STATUSES)).max(RUN_STATUSES.length).optional(),
  /** Substring of the name or id, case-insensitive. */
  text: z.string().max(200).optional(),
  createdFrom: z.iso.datetime({ offset: true }).optional(),
  createdTo: z.iso.datetime({ offset: true }).optional(),
  /** Numeric metric within [min, max]; runs without the metric are excluded. */
  metric: z
    .object({ name: z.string().min(1).max(100), min: z.number().optional(), max: z.number().optional() })
    // A range no value is in was answered with no runs, as if none had the metric there (History says so at its boxes).
    .refine((m) => m.min === undefined || m.max === undefined || m.min <= m.max, { path: ['max'], error: (i) => `must be at least min (${(i.input as { min: number }).min}), got ${(i.input as { max: number }).max}` })
    .optional(),
  batchId: z.string().optional(),
}).refine((f) => f.createdFrom === undefined || f.createdTo === undefined || Date.parse(f.createdFrom) <= Date.parse(f.createdTo), {
  path: ['createdTo'],
  // Quoted by quoted(): a datetime takes any number of digits after its seconds, and both quoted whole (in the issue and the message) made a reply 4 times the call.
  error: (i) => `must not be before createdFrom (${quoted((i.input as { createdFrom: string }).createdFrom)}), got ${quoted((i.input as { createdTo: string }).createdTo)}`,
});

export const paramsSchemas = {
  'app.info': z.object({}),
  'engines.list': z.object({}),

  'shapes.list': z.object({}),
  'shapes.create': z.object({ name: z.string().min(1).max(200), shape: shapeValue, voxelisation: shapeVoxelisation.optional() }),
  'shapes.update': z.object({ id, name: z.string().min(1).max(200).optional(), shape: shapeValue.optional(), voxelisation: shapeVoxelisation.optional() }),
  'shapes.duplicate': z.object({ id, name: z.string().min(1).max(200).optional() }),
  'shapes.delete': idParams,
  'shapes.preview': z.object({
    shape: shapeValue,
    /** Characteristic size of the shape in length units. */
    size: z.number().positive().max(MAX_SHAPE_SIZE),
    /** Voxels per length unit. */
    resolution: z.number().positive().max(1e6),
    reductionThreshold: z.number().int().min(0).max(26).optional(),
  }),

  /** A closed STL (binary or ASCII) or OBJ mesh voxelised into a 'voxels' shape of the library. */
  'shapes.importMesh': z.object({
    fileName: fileName.regex(/\.(stl|obj)$/i, 'must end in .stl or .obj'),
    bytes: fileBytes,
    name: importedShapeName,
    /** Exactly one of resolution (voxels per model length unit) and voxelsAcross (along the longest side). */
    resolution: z.number().gt(0).max(1e6).optional(),
    voxelsAcross: z.number().int().min(1).optional(),
  }),
  /** A raw voxel volume and the text of its JSON header (as `runs export --format raw` writes them). */
  'shapes.importRaw': z.object({ fileName, bytes: fileBytes, header: z.string().min(2).max(1_000_000), name: importedShapeName }),

  'presets.list': z.object({ engine: z.string().optional() }),
  'presets.save': z.object({ name: z.string().min(1).max(200), spec: runSpecSchema }),
  'presets.delete': idParams,

  'runs.enqueue': z.object({
    spec: runSpecSchema,
    priority: z.number().int().min(-1000).max(1000).default(0),
    batchName: z.string().min(1).max(200).optional(),
  }),
  /** The checks of runs.enqueue (every sweep point: schema and the engine's cross-field checks) without queueing. */
  'runs.validate': z.object({ spec: runSpecSchema }),
  'runs.list': z.object({
    offset: z.number().int().min(0).default(0),
    /**
     * The rows after this one: an earlier answer's `next`, of the same sort and filter (then offset
     * stays 0). Offsets count the runs as they are now: a run deleted (or added before) since the
     * page before shifts them, and the next page by offset skipped (or repeated) a run.
     */
    after: listCursor.optional(),
    limit: z.number().int().min(1).max(MAX_LIST_PAGE).default(100),
    /**
     * By a column, or by a numeric metric (runs without it last in either direction, ties newest
     * first): ordered in the store a page at a time, whatever the number of runs.
     */
    sort: z
      .union([
        z.object({ field: z.enum(sortFields), dir: z.enum(['asc', 'desc']) }),
        z.object({ metric: z.string().min(1).max(200), dir: z.enum(['asc', 'desc']) }),
      ])
      .optional(),
    filter: runsListFilterSchema.optional(),
  }).refine((p) => p.after === undefined || p.offset === 0, { path: ['offset'], error: (i) => `must be 0 with after (the rows after a run are counted from it), got ${(i.input as { offset: number }).offset}` }),
  'runs.get': idParams,
  'runs.series': idParams,
  'runs.artifacts': idParams,
  'runs.particles': z.object({ id, limit: z.number().int().min(1).max(50_000_000).default(200_000) }),
  'runs.slice': z.object({ id, axis: z.enum(['x', 'y', 'z']), index: z.number().int().min(0) }),
  /** One frame of a run's table of frames (table meta frames × frameRows): its rows of every column. */
  'runs.frame': z.object({ id, table: z.string().min(1).max(200), index: z.number().int().min(0) }),
  'runs.pause': idParams,
  'runs.resume': idParams,
  'runs.cancel': idParams,
  /** Stop and keep: a running (or paused) run ends at its engine's next safe point, done with its artifacts. */
  'runs.stop': idParams,
  /**
   * A new run of a run's spec as written (not the params it resolved), with `overrides` laid over its
   * params as a JSON merge patch (field by field, null removes a field; an object of index keys over
   * a list sets its elements) and `seed` instead of its seed; checked as runs.enqueue checks a spec.
   */
  'runs.rerun': z.object({ id, overrides: z.record(z.string(), z.unknown()).optional(), seed: seedSchema.optional() }),
  'runs.delete': idParams,
  'runs.setPriority': z.object({ id, priority: z.number().int().min(-1000).max(1000) }),
  /** Names of the numeric metrics any run has (History suggests them in its metric filter). */
  'runs.metricNames': z.object({}),
  /** Batches, newest first; or exactly those of `ids`. */
  'batches.list': z.object({ ids: z.array(z.string().min(1).max(100)).max(1000).optional(), limit: z.number().int().min(1).max(10_000).default(200) }),
  'runs.export': z.object({ id, format: z.string().min(1).max(40) }),
  /** The app only: asks the user where to save (a dialog of the main process), then writes the export there, whatever its size. */
  'runs.saveExport': z.object({ id, format: z.string().min(1).max(40) }),
  /** A sphere CSV (x, y, z, r[, type]) recorded as a finished, analysed run of the 'spheres' pseudo-engine. */
  'runs.importSpheres': z.object({
    name: z.string().min(1).max(200),
    /** The CSV text (an empty one is refused by the parser, naming the file). */
    csv: z.string(),
    /** Where the spheres came from (file name), kept in the run's params. */
    source: z.string().max(1000).default(''),
    /** Box [x, y, z]; default: the spheres' extent from the origin. */
    box: z.tuple([z.number().gt(0).max(1e9), z.number().gt(0).max(1e9), z.number().gt(0).max(1e9)]).optional(),
    /** Options of core/analysis analyseSpheres (validated by the service). */
    analysis: z.record(z.string(), z.unknown()).optional(),
  }),

  'exports.formats': z.object({}),

  'queue.state': z.object({}),
  'queue.pause': z.object({}),
  'queue.resume': z.object({}),
  'queue.setConcurrency': z.object({ concurrency: z.number().int().min(1).max(256) }),
  'queue.setThreadsPerRun': z.object({ threads: z.number().int().min(1).max(256) }),
  'queue.setCheckpointSeconds': z.object({ seconds: z.number().int().min(0).max(86400) }),
} as const;

type P<M extends keyof typeof paramsSchemas> = z.input<(typeof paramsSchemas)[M]>;

/** An imported shape, now in the library, and what the import measured. */
export interface ShapeImportResult {
  shape: Shape;
  voxelCount: number;
  /** Voxels per model length unit (meshes), or 1 / voxelSize (raw volumes). */
  resolution: number;
  /** Solid volume in model units cubed. */
  volume: number;
  /** Triangles read from a mesh. */
  triangles?: number;
}

/** Every method: params (as the caller writes them, defaults optional) and result. */
export interface Methods {
  'app.info': {
    params: P<'app.info'>;
    result: {
      version: string;
      dataDir: string;
      cores: number;
      totalMemoryBytes: number;
      platform: string;
      electron: boolean;
      /** Why the data folder is open read-only (runs are listed, shown and exported; calls that write fail); null when it can be written. */
      readOnlyBecause: string | null;
      /**
       * The data folder is read-only because its disk (or quota) is full: runs.delete still works,
       * deleting a run's files first to make room for removing its record, so that the user can free
       * the space PackBench's own runs take.
       */
      fullDisk: boolean;
      /** Runs that opening the data folder put back in the queue: a process that ran them ended without finishing them (a crash). */
      recoveredRuns: number;
    };
  };
  'engines.list': { params: P<'engines.list'>; result: EngineInfo[] };

  'shapes.list': { params: P<'shapes.list'>; result: Shape[] };
  'shapes.create': { params: P<'shapes.create'>; result: Shape };
  'shapes.update': { params: P<'shapes.update'>; result: Shape };
  'shapes.duplicate': { params: P<'shapes.duplicate'>; result: Shape };
  'shapes.delete': { params: P<'shapes.delete'>; result: Record<string, never> };
  'shapes.preview': {
    params: P<'shapes.preview'>;
    result: {
      dims: [number, number, number];
      solidCount: number;
      shellCount: number;
      reducedShellCount: number;
      /** Interleaved x,y,z voxel offsets, centred on the shape. */
      solid: Int16Array | Int32Array;
      shell: Int16Array | Int32Array;
      reducedShell: Int16Array | Int32Array;
    };
  };

  'shapes.importMesh': { params: P<'shapes.importMesh'>; result: ShapeImportResult };
  'shapes.importRaw': { params: P<'shapes.importRaw'>; result: ShapeImportResult };

  'presets.list': { params: P<'presets.list'>; result: Preset[] };
  'presets.save': { params: P<'presets.save'>; result: Preset };
  'presets.delete': { params: P<'presets.delete'>; result: Record<string, never> };

  /** The runs queued (as a batch when several), and the fields written that have no effect (as runs.validate says them). */
  'runs.enqueue': { params: P<'runs.enqueue'>; result: { batchId: string | null; runIds: string[]; warnings: ApiIssue[] } };
  /**
   * The runs a spec makes and the memory the largest of them needs (refused, as by runs.enqueue, over
   * the budget), and the fields it wrote that have no effect with its other params (warnings: each
   * once, however many sweep points have it; they never refuse a spec).
   */
  'runs.validate': { params: P<'runs.validate'>; result: { runs: number; warnings: ApiIssue[] } & MemoryEstimate };
  /** next: where the page ends, for `after` (null when it has no rows). */
  'runs.list': { params: P<'runs.list'>; result: { total: number; rows: RunSummary[]; next: string | null } };
  'runs.get': { params: P<'runs.get'>; result: RunRecord };
  /** A run's series; a running run's so far, from its latest published table (meta.series), when it has one. */
  'runs.series': { params: P<'runs.series'>; result: RunSeries[] };
  'runs.artifacts': { params: P<'runs.artifacts'>; result: RunArtifact[] };
  'runs.particles': {
    params: P<'runs.particles'>;
    result: { total: number; count: number; columns: Record<string, TypedArray>; meta: Record<string, unknown> };
  };
  'runs.frame': {
    params: P<'runs.frame'>;
    result: { index: number; frames: number; time: number; offset: number; columns: Record<string, TypedArray>; meta: Record<string, unknown> };
  };
  'runs.slice': {
    params: P<'runs.slice'>;
    result: { axis: 'x' | 'y' | 'z'; index: number; width: number; height: number; labels: Uint32Array };
  };
  'runs.pause': { params: P<'runs.pause'>; result: RunSummary };
  'runs.resume': { params: P<'runs.resume'>; result: RunSummary };
  'runs.cancel': { params: P<'runs.cancel'>; result: RunSummary };
  'runs.stop': { params: P<'runs.stop'>; result: RunSummary };
  /** The runs queued, the fields with no effect, and the memory the largest needs (as runs.validate says them). */
  /** batchId: the batch the re-run joined (JobQueue.rerun), or one its own sweep made; outside: why a batch's run's re-run is not in that batch (a sentence without the batch) (null when it joined, or the run had none). */
  'runs.rerun': { params: P<'runs.rerun'>; result: { batchId: string | null; runIds: string[]; warnings: ApiIssue[]; outside: string | null } & MemoryEstimate };
  /**
   * filesFirst: the disk of the data folder is full (the folder is open read-only), so the run's files
   * were deleted first, to make room for removing its record. recordLeft: why its record could not be
   * removed yet (the folder still cannot be written): it stays listed, without its files, until PackBench
   * next opens the folder for writing; null when the run is gone.
   */
  'runs.delete': { params: P<'runs.delete'>; result: { filesFirst: boolean; recordLeft: string | null } };
  'runs.setPriority': { params: P<'runs.setPriority'>; result: RunSummary };
  'runs.metricNames': { params: P<'runs.metricNames'>; result: string[] };
  'batches.list': { params: P<'batches.list'>; result: BatchSummary[] };
  'runs.export': { params: P<'runs.export'>; result: { fileName: string; mime: string; bytes: Uint8Array } };
  /** The files written (the raw format writes its JSON header beside the volume); none when the user closed the dialog. */
  'runs.saveExport': { params: P<'runs.saveExport'>; result: { files: string[]; bytes: number } };
  'runs.importSpheres': { params: P<'runs.importSpheres'>; result: RunSummary };

  'exports.formats': { params: P<'exports.formats'>; result: ExportFormatInfo[] };

  'queue.state': { params: P<'queue.state'>; result: QueueState };
  'queue.pause': { params: P<'queue.pause'>; result: QueueState };
  'queue.resume': { params: P<'queue.resume'>; result: QueueState };
  'queue.setConcurrency': { params: P<'queue.setConcurrency'>; result: QueueState };
  'queue.setThreadsPerRun': { params: P<'queue.setThreadsPerRun'>; result: QueueState };
  'queue.setCheckpointSeconds': { params: P<'queue.setCheckpointSeconds'>; result: QueueState };
}

export type MethodName = keyof Methods;
export const METHOD_NAMES = Object.keys(paramsSchemas) as MethodName[];

export interface Events {
  /** A run changed: throttled to a few per second per run; status changes are always sent. */
  'run.updated': RunSummary;
  /** Every run of a batch reached a final status. */
  'batch.finished': { batchId: string; name: string; done: number; failed: number; cancelled: number };
  /** A run was deleted. */
  'run.deleted': { id: string };
  /** The queue was paused/resumed or its concurrency changed, or a run started or stopped. */
  'queue.updated': QueueState;
  /** runs.saveExport writing a file: a few per second, and once at 1. */
  'export.progress': { id: string; format: string; path: string; fraction: number };
  /** runs.importSpheres under way, named by its params' name and source: a few per second, and as each phase starts and ends (at 1). */
  'import.progress': { name: string; source: string } & ImportProgress;
}

/** How far a sphere import is: parsing the CSV, then analysing the spheres; `fraction` of the phase, 0 to 1. */
export interface ImportProgress {
  phase: 'parsing' | 'analysing';
  fraction: number;
}
export type EventName = keyof Events;
export const EVENT_NAMES: EventName[] = ['run.updated', 'batch.finished', 'run.deleted', 'queue.updated', 'export.progress', 'import.progress'];

/** window.packbench: the only way the renderer reaches the services. */
export interface PackbenchApi {
  /**
   * `callId`: a number the renderer gives a call it may abort (a positive whole number, not given to
   * another call of the page under way); abort(callId) then ends it, and it rejects with 'cancelled'.
   */
  call<M extends MethodName>(method: M, params: Methods[M]['params'], callId?: number): Promise<Methods[M]['result']>;
  /** Aborts the call under way given `callId` (its handler's signal); an id of no call under way is ignored. */
  abort(callId: number): void;
  /** Subscribe; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void;
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/**
 * 'too_large': the answer is too big for one API message, not a failure: the same thing comes another
 * way (runs.export: the web host's download route, or the CLI's `runs export`). 'cancelled': the
 * renderer aborted the call (PackbenchApi.abort), not a failure either: the UI says so without a toast.
 */
export type ApiErrorCode = 'invalid' | 'not_found' | 'conflict' | 'too_large' | 'unavailable' | 'unauthorized' | 'internal' | 'cancelled';

export interface ApiIssue {
  /**
   * Dotted path of the offending field, relative to what the caller sent: the params of the call
   * ('spec.params.box.lx' for runs.enqueue, 'limit' for runs.list), or the spec file for the CLI
   * ('params.box.lx').
   */
  path: string;
  message: string;
}

/** The plain-data form of an error as it crosses IPC or the WebSocket. */
export interface ApiErrorData {
  code: ApiErrorCode;
  message: string;
  issues?: ApiIssue[];
  /** Fields written that have no effect (runs.validate, runs.enqueue), said beside the issues that refused the spec. */
  warnings?: ApiIssue[];
}

/** What a failed call rejects with, on every surface. */
export class ApiError extends Error implements ApiErrorData {
  readonly code: ApiErrorCode;
  readonly issues?: ApiIssue[];
  readonly warnings?: ApiIssue[];

  constructor(code: ApiErrorCode, message: string, issues?: ApiIssue[], warnings?: ApiIssue[]) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    if (issues) this.issues = issues;
    if (warnings?.length) this.warnings = warnings;
  }

  toData(): ApiErrorData {
    return { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}), ...(this.warnings ? { warnings: this.warnings } : {}) };
  }

  static fromData(data: ApiErrorData): ApiError {
    return new ApiError(data.code, data.message, data.issues, data.warnings);
  }
}

/** Turns zod issues into API issues whose paths start with `prefix` (e.g. 'params'), each path and message once. */
export function issuesFrom(error: z.ZodError, prefix: string): ApiIssue[] {
  const issues: ApiIssue[] = [];
  const said = new Set<string>();
  for (const i of error.issues) {
    const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
    if (said.has(`${path}\n${i.message}`)) continue;
    said.add(`${path}\n${i.message}`);
    issues.push({ path, message: i.message });
  }
  return issues;
}

/** The message of an 'invalid' error: every issue on one line each. */
export function invalidMessage(issues: ApiIssue[]): string {
  return 'invalid request:\n' + issues.map((i) => `  ${i.path}: ${i.message}`).join('\n');
}

/** Bounds at or beyond ±2^53 are zod's "any safe integer": not worth showing. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * The allowed range of a number field from its JSON Schema, exclusive bounds marked: '(0, 1000]',
 * '[1, ∞)'; '' when it has none. The batch form and the API say ranges this one way.
 */
export function rangeText(s: { minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number }): string {
  const lo = s.exclusiveMinimum ?? s.minimum;
  const hi = s.exclusiveMaximum ?? s.maximum;
  const hasLo = lo !== undefined && Math.abs(lo) < UNBOUNDED;
  const hasHi = hi !== undefined && Math.abs(hi) < UNBOUNDED;
  if (!hasLo && !hasHi) return '';
  const l = hasLo ? `${s.exclusiveMinimum !== undefined ? '(' : '['}${lo}` : '(−∞';
  const h = hasHi ? `${hi}${s.exclusiveMaximum !== undefined ? ')' : ']'}` : '∞)';
  return `${l}, ${h}`;
}

/** A value as a message says what was given: 'the text "0.3"', 'null', 'a list of 2'. */
export function describeValue(v: unknown): string {
  if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (ArrayBuffer.isView(v)) return 'binary data';
  // A Date, a Map, ... as the app's IPC (structured clone) carries them.
  if (v !== null && typeof v === 'object') return isPlainObject(v) ? 'an object' : `a ${Object.prototype.toString.call(v).slice(8, -1)}`;
  return String(v);
}

/** The allowed values of a choice, as they are written in a spec: 'ceiling', 'open' or 2, 3. */
const choiceList = (values: readonly unknown[]): string => values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(', ');

/** ' (did you mean 'x'?)' when a typed string is close to one of the allowed values, or is one of the numbers in quotes. */
function meantChoice(input: unknown, values: readonly unknown[]): string {
  if (typeof input !== 'string') return '';
  if (input.trim() !== '' && values.includes(Number(input))) return ' (write numbers without quotes)';
  const meant = closest(input, values.filter((v): v is string => typeof v === 'string'));
  return meant && meant !== input ? ` (did you mean '${meant}'?)` : '';
}

/** What a value of another type must be, in the words of a spec's author. */
const TYPE_WORDS: Record<string, string> = {
  boolean: 'true or false',
  string: 'text in double quotes',
  object: 'an object { ... }',
  record: 'an object { ... }',
  array: 'a list [ ... ]',
  tuple: 'a list [ ... ]',
};

/**
 * The message of a field given a value out of its range, of another type, not whole, not among its
 * choices, or a list or text of the wrong length: each with what is allowed and what it got ('must
 * be in [0, 1], got 2', 'must be a number in [0, 1], got the text "0.3"', "must be one of
 * 'ceiling', 'open', got 'Ceiling' (did you mean 'ceiling'?)"). zod's own words name only the bound
 * broken ('Too big: expected number to be <=1') or the type ('expected int, received number'),
 * never the range nor the value. Other issues keep zod's message.
 */
function fieldIssueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  const schema = (issue as { schema?: unknown }).schema;
  if (schema instanceof z.ZodNumber) {
    const range = rangeText(z.toJSONSchema(schema) as Parameters<typeof rangeText>[0]);
    const kind = schema.isInt ? 'a whole number' : 'a number';
    if (issue.code === 'invalid_type') {
      if (issue.input === undefined) return `is required (${kind}${range ? ` in ${range}` : ''})`;
      const got = typeof issue.input === 'number' && Number.isFinite(issue.input) ? String(issue.input) : describeValue(issue.input);
      return `must be ${kind}${range ? ` in ${range}` : ''}, got ${got}${typeof issue.input === 'string' ? ' (write numbers without quotes)' : ''}`;
    }
    // origin 'int': zod's own bound of a whole number (±2^53, 'Too big: expected int to be
    // <=9007199254740991'), broken with the field's; said as the field's (issuesFrom keeps one).
    if ((issue.code !== 'too_big' && issue.code !== 'too_small') || (issue.origin !== 'number' && issue.origin !== 'int') || !range) return undefined;
    return `must be ${schema.isInt ? 'a whole number ' : ''}in ${range}, got ${String(issue.input)}`;
  }
  if (issue.code === 'invalid_value' && issue.values.length > 0) {
    return `must be ${issue.values.length > 1 ? 'one of ' : ''}${choiceList(issue.values)}, got ${describeChoice(issue.input)}${meantChoice(issue.input, issue.values)}`;
  }
  if (issue.code === 'invalid_union' && (issue as { note?: string }).note === 'No matching discriminator') {
    const { discriminator, options } = issue as unknown as { discriminator: string; options: unknown[] };
    const input = issue.input as Record<string, unknown> | undefined;
    const given = input && typeof input === 'object' ? input[discriminator] : undefined;
    if (given === undefined) return `is required (one of ${choiceList(options)})`;
    return `must be one of ${choiceList(options)}, got ${describeChoice(given)}${meantChoice(given, options)}`;
  }
  if (issue.code === 'invalid_type' && TYPE_WORDS[issue.expected]) {
    return issue.input === undefined ? `is required (${TYPE_WORDS[issue.expected]})` : `must be ${TYPE_WORDS[issue.expected]}, got ${describeValue(issue.input)}`;
  }
  if ((issue.code === 'too_small' || issue.code === 'too_big') && (issue.origin === 'array' || issue.origin === 'string')) {
    const js = schema instanceof z.ZodType ? (z.toJSONSchema(schema, { unrepresentable: 'any' }) as { minItems?: number; maxItems?: number; minLength?: number; maxLength?: number }) : {};
    const [lo, hi] = issue.origin === 'array' ? [js.minItems ?? 0, js.maxItems] : [js.minLength ?? 0, js.maxLength];
    const unit = issue.origin === 'array' ? 'entries' : 'characters';
    const length = (issue.input as { length: number }).length;
    if (issue.origin === 'string' && length === 0 && lo === 1) return 'must not be empty';
    return `must have ${hi === undefined ? `at least ${lo}` : lo === 0 ? `at most ${hi}` : lo === hi ? lo : `${lo} to ${hi}`} ${unit}, got ${length}`;
  }
  return undefined;
}

/** A choice given as it was written: 'Ceiling', 4, or what else it was. */
function describeChoice(v: unknown): string {
  return typeof v === 'string' ? quoted(v) : describeValue(v);
}

/** Names longer than this are quoted by their start and length. */
const QUOTED_NAME_CHARS = 64;

/** A name as a field's path shows it: whole, or its first characters and '…' when it is long. */
function clipped(name: string): string {
  return name.length > QUOTED_NAME_CHARS ? `${name.slice(0, 40)}…` : name;
}

/**
 * A name the caller typed, quoted in a refusal: 'reboundProbabilty', or 'xxxx…' (4,000,000
 * characters). Quoted whole, a 140 MB name made a refusal (path, message, and both again in the
 * error's text) past the longest string V8 makes: 'internal: cannot be sent' instead of 'invalid'.
 */
export function quoted(name: string): string {
  return abridged(name, "'");
}

/**
 * A text as a message or a name shows it: whole, or its first characters (between `quote`s) and its
 * length when it is long: 'xxxx…' (4,000,000 characters).
 */
export function abridged(text: string, quote = ''): string {
  return text.length > QUOTED_NAME_CHARS ? `${quote}${clipped(text)}${quote} (${text.length.toLocaleString('en-US')} characters)` : `${quote}${text}${quote}`;
}

/** The refusal of a call to a method the API does not have. */
export function unknownMethod(name: unknown): ApiError {
  return new ApiError('not_found', `unknown method ${typeof name === 'string' ? quoted(name) : describeValue(name)}`);
}

/** What a call aborted by its renderer (PackbenchApi.abort) rejects with. */
export function cancelled(method: string): ApiError {
  return new ApiError('cancelled', `${method} was cancelled`);
}

/** The id a renderer gives a call it may abort (PackbenchApi.call's callId), checked as every payload is; throws ApiError('invalid') naming `callId`. */
export function parseCallId(value: unknown): number {
  return parseStrict(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), value, 'callId') as number;
}

/**
 * How deep the lists and objects of a call's params may nest: far above real params (the deepest
 * the API, CLI and sweep tests send, sweeps of mixtures among them, nest 7 levels), far below what
 * the recursive walks of params (zod, parseStrict, the web host's reviver) take: they overflowed
 * the stack from about 2,000 levels, answering 'internal' or dropping the connection.
 */
export const MAX_PARAMS_DEPTH = 64;

/**
 * How deep a message of the web host to the browser may nest (renderer/src/bridge reads it with
 * decodeMessage, whose reviver recurses): its replies carry params that passed MAX_PARAMS_DEPTH (a
 * run's spec) inside a few levels of the API's own (message, result, list, record), and twice
 * MAX_PARAMS_DEPTH holds both, far below the ~2,000 levels at which the reviver overflowed.
 */
export const MAX_HOST_MESSAGE_DEPTH = 2 * MAX_PARAMS_DEPTH;

/** The refusal of params nested deeper than MAX_PARAMS_DEPTH. */
export function paramsTooDeep(): ApiError {
  return new ApiError('invalid', `params nested deeper than ${MAX_PARAMS_DEPTH} levels (lists and objects within each other)`);
}

/**
 * How many values (lists, objects and their entries) a call's params may hold, as a walk of them
 * meets them (main/wire.ts walkLimitPassed): far above any call's params, whose bulk data travel as
 * text (a CSV, base64 voxel bits) or typed arrays. Over the web host it bounds the JSON of a message
 * before it is parsed (a million values parse into about 200 MB at most, empty objects); over the
 * app's IPC, a structured clone that holds one list in many places (a few kB of memory, 2^40
 * values to every walk of the params, which held the main process for good).
 */
export const MAX_PARAMS_VALUES = 1_000_000;

/** The refusal of params of more than MAX_PARAMS_VALUES values. */
export function paramsTooMany(): ApiError {
  return new ApiError('invalid', `params of more than ${MAX_PARAMS_VALUES} values (lists, objects and their entries; one held in several places counts at each); send bulk data as text or typed arrays`);
}

/** Validates the params of a method; throws ApiError('invalid') naming each field. */
export function parseParams<M extends MethodName>(method: M, params: unknown): z.output<(typeof paramsSchemas)[M]> {
  const schema = paramsSchemas[method] as z.ZodType;
  if (!schema) throw unknownMethod(method);
  const passed = walkLimitPassed(params, MAX_PARAMS_DEPTH, MAX_PARAMS_VALUES);
  if (passed === 'depth') throw paramsTooDeep();
  if (passed === 'values') throw paramsTooMany();
  return parseStrict(schema, params ?? {}, '') as z.output<(typeof paramsSchemas)[M]>;
}

// ---------------------------------------------------------------------------------------------
// Strict parsing: unknown fields are errors, with the field meant when it is close
// ---------------------------------------------------------------------------------------------

/** The parts of a JSON Schema (as z.toJSONSchema writes it) that fieldIssues reads. */
interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | boolean;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  const?: unknown;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
}

const jsonSchemas = new WeakMap<z.ZodType, JsonSchema>();

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  let js = jsonSchemas.get(schema);
  if (!js) jsonSchemas.set(schema, (js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema));
  return js;
}

/**
 * Parses `value` with `schema`, strictly: a field the schema does not know (at any depth, in every
 * object that lists its properties and allows no others) is an error naming it and, when one is
 * close, the field meant ("did you mean reboundProbability?"); so is a tuple with fewer entries than
 * it has (zod would fill them from defaults: box.size [4, 4] became [4, 4, 10]). Throws
 * ApiError('invalid') with every issue, paths starting with `prefix`; returns the parsed value.
 */
export function parseStrict(schema: z.ZodType, value: unknown, prefix: string): unknown {
  const { issues, oversized } = walkFields(jsonSchemaOf(schema), value, prefix, false);
  // An array over its limit is refused before zod walks its entries (100,000 of them took seconds).
  if (oversized) throw new ApiError('invalid', invalidMessage(issues), issues);
  let r = schema.safeParse(value, { error: fieldIssueMessage });
  // A strict object refuses a field set to undefined (the app's IPC keeps it; JSON drops it), which the
  // walk takes as not written: parsed again without such fields (else no data and no issue came back).
  if (!r.success && r.error.issues.every((i) => i.code === 'unrecognized_keys')) r = schema.safeParse(withoutUndefined(value), { error: fieldIssueMessage });
  if (!r.success) {
    // zod's own unknown-key issues (strict objects) say less than fieldIssues', and a field the walk
    // named is not named twice (a stacking region.size of 2 entries was told 'must have 3 entries,
    // got 2' and 'must have 3 to 3 entries, got 2').
    const named = new Set(issues.map((i) => i.path));
    issues.push(...issuesFrom({ issues: r.error.issues.filter((i) => i.code !== 'unrecognized_keys') } as z.ZodError, prefix).filter((i) => !named.has(i.path)));
    // Never a refusal without a reason (it returned no data, and the handler ran on undefined).
    if (!issues.length) issues.push(...issuesFrom(r.error, prefix));
  }
  if (issues.length) throw new ApiError('invalid', invalidMessage(issues), issues);
  return r.data;
}

/** `value` without the fields of its plain objects that are set to undefined, at any depth. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, withoutUndefined(v)]));
}

/**
 * What fieldIssues finds in `value` before anything else walks it (a spec before its sweeps are
 * expanded): unknown fields and arrays over their size limit, each named, in a walk that enters
 * neither; objects holding `$sweep` are taken as sweeps (checked when they are expanded). An array
 * over its limit is refused at once (throws ApiError('invalid')); the other issues are returned, to
 * be said with the rest of the value's (a user who made two mistakes sees both).
 */
export function unknownFields(schema: z.ZodType, value: unknown, prefix: string): ApiIssue[] {
  const { issues, oversized } = walkFields(jsonSchemaOf(schema), value, prefix, true);
  if (oversized) throw new ApiError('invalid', invalidMessage(issues), issues);
  return issues;
}

/**
 * Unknown fields, short tuples and arrays over their size limit in `value`, walking `schema` (see
 * parseStrict). The walk enters neither an unknown field nor an array over its limit, so that an
 * oversized input (100,000 mixture types) is refused at once rather than after a walk of every entry.
 */
export function fieldIssues(schema: JsonSchema, value: unknown, path: string): ApiIssue[] {
  return walkFields(schema, value, path, false).issues;
}

interface FieldWalk {
  root: JsonSchema;
  /** Objects holding '$sweep' are sweeps, not walked (a spec before its sweeps are expanded). */
  sweeps: boolean;
  issues: ApiIssue[];
  /** An array over its size limit was found. */
  oversized: boolean;
}

function walkFields(schema: JsonSchema, value: unknown, path: string, sweeps: boolean): FieldWalk {
  const w: FieldWalk = { root: schema, sweeps, issues: [], oversized: false };
  walk(schema, value, path, w);
  return w;
}

function walk(schema: JsonSchema, value: unknown, path: string, w: FieldWalk): void {
  const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
  if (schema.$ref?.startsWith('#/$defs/')) {
    const target = w.root.$defs?.[schema.$ref.slice('#/$defs/'.length)];
    if (target) walk(target, value, path, w);
    return;
  }
  if (w.sweeps && isRecord(value) && Object.hasOwn(value, '$sweep')) return;
  if (schema.properties && typeof value === 'object' && value !== null && !Array.isArray(value) && !isPlainObject(value)) {
    // zod takes any of these for an object: binary data's indices as unknown fields (and no data back), an empty one or a Date as all defaults.
    w.issues.push({ path, message: `must be ${TYPE_WORDS.object}, got ${describeValue(value)}` });
    return;
  }
  for (const part of schema.allOf ?? []) walk(part, value, path, w);
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) {
    // A discriminated union: the variant whose constant field matches the value's (none: zod says so).
    const match = variants.filter((v) => isRecord(value) && Object.entries(v.properties ?? {}).some(([k, p]) => 'const' in p && value[k] === p.const));
    if (match.length === 1) walk(match[0], value, path, w);
  }
  if (isRecord(value) && schema.properties) {
    const known = Object.keys(schema.properties);
    const closed = schema.additionalProperties === undefined || schema.additionalProperties === false;
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined) continue;
      // Own fields only: '__proto__' (an own key as JSON.parse makes it) found Object.prototype here.
      const field = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      if (field) walk(field, v, at(key), w);
      else if (closed) {
        w.issues.push({ path: at(clipped(key)), message: unknownFieldMessage(key, known) });
      }
    }
  } else if (isRecord(value) && schema.additionalProperties !== undefined && Object.hasOwn(value, '__proto__')) {
    // A record (any field names): zod copies it by assignment, and a '__proto__' key then sets the copy's prototype.
    w.issues.push({ path: at('__proto__'), message: "'__proto__' is not allowed as a field name" });
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      w.oversized = true;
      const lo = schema.minItems ?? 0;
      w.issues.push({ path, message: lo === schema.maxItems ? `must have ${lo} entries, got ${value.length}` : `has ${value.length} entries; allowed: ${lo} to ${schema.maxItems}` });
    } else if (schema.prefixItems) {
      if (value.length < schema.prefixItems.length) w.issues.push({ path, message: `must have ${schema.prefixItems.length} entries, got ${value.length}` });
      schema.prefixItems.forEach((item, i) => i < value.length && walk(item, value[i], at(i), w));
    } else if (schema.items && typeof schema.items === 'object') {
      const items = schema.items;
      value.forEach((v, i) => walk(items, v, at(i), w));
    }
  }
}

/** What a field the schema does not know is told (the service and the batch form say the same). */
export function unknownFieldMessage(key: string, known: readonly string[]): string {
  const meant = closest(key, known);
  return meant ? `unknown field ${quoted(key)} (did you mean '${meant}'?)` : `unknown field ${quoted(key)}; known fields: ${known.join(', ')}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/** An object as JSON makes them: not binary data, a Date, a Map or other objects IPC's structured clone carries. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return isRecord(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));
}

/** The candidate `word` was most likely meant to be: same letters in another case, or a few edits away. */
export function closest(word: string, candidates: readonly string[]): string | null {
  const most = Math.max(1, Math.floor(word.length / 3)), lower = word.toLowerCase();
  let best: string | null = null, bestDistance = Infinity;
  for (const c of candidates) {
    const other = c.toLowerCase();
    // Lengths further apart than `most` are more edits apart: no table of the word's length is made
    // for them (a field name of 12 million characters ran the host out of memory).
    if (Math.abs(other.length - lower.length) > most) continue;
    const d = other === lower ? 0 : editDistance(lower, other);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return bestDistance <= most ? best : null;
}

/** Edits (insert, delete, replace, swap two neighbours) between a and b (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(paramsSchemas, name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (EVENT_NAMES as string[]).includes(name);
}
