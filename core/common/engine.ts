/**
 * The contract between an engine in core/ and the services that run it.
 *
 * An engine declares itself once (id, params schema with defaults/units/ranges, memory estimate,
 * run function); the engine registry in main/services/engines.ts lists the declarations, the worker
 * entry in main/workers/ runs them, and the renderer builds its forms from the schema's JSON Schema.
 * Engines never print, never read globals: inputs come in, progress goes out through the context.
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
  /** A line for the run's log (stored with the run, shown on failure). */
  log(message: string): void;
}

/** A named x/y series: progress curves, profiles, histograms. */
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
}

export interface EngineDefinition<S extends z.ZodType = z.ZodType> {
  id: string;
  title: string;
  description: string;
  /** Validates and defaults the `params` of a spec. Use .meta({ unit, description }) on fields. */
  paramsSchema: S;
  /** Bytes the run will allocate at most, so the pool can refuse a run before starting it. */
  estimateMemoryBytes(params: z.output<S>): number;
  run(params: z.output<S>, ctx: EngineContext): EngineResult | Promise<EngineResult>;
}

/** Helper that keeps the generic parameter when declaring an engine. */
export function defineEngine<S extends z.ZodType>(def: EngineDefinition<S>): EngineDefinition<S> {
  return def;
}
