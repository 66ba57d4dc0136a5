/**
 * What the pool and a run's worker share: the layout of the control block (a small
 * SharedArrayBuffer) and the messages the worker posts. Pure data, no Node.
 */
import type { EngineSeries, ParamsIssue } from '../../core/common/engine';
import type { RunArtifact } from '../api';

/** Int32 slots of the control block. */
export const CONTROL = {
  /** One of CANCEL's values: none until the run is cancelled, and how. */
  cancel: 0,
  /** 1 while paused: the worker blocks in ctx.cancelled()/ctx.progress() until it is 0 again (or until cancel or stop). */
  pause: 1,
  /** 1 once stop and keep was requested (EngineContext.stopRequested): the run ends early and keeps its artifacts. */
  stop: 2,
} as const;
export const CONTROL_INTS = 3;
/** Values of CONTROL.cancel. */
export const CANCEL = {
  none: 0,
  /**
   * The run is cancelled: it ends without artifacts. Its checkpoint stays: the queue removes it once
   * the outcome is stored, or keeps it for the run to resume from (the process running it closes).
   */
  requested: 1,
} as const;
/** Float64 slots after the Int32 slots (at this 8-byte aligned offset): live progress, readable at any time. */
export const PROGRESS = { done: 0, total: 1 } as const;
export const PROGRESS_OFFSET = 16;
export const CONTROL_BYTES = PROGRESS_OFFSET + 2 * 8;

export interface WorkerInput {
  runId: string;
  /** The engine to run, by id, from the list the worker entry was given. */
  engineId: string;
  params: unknown;
  seed: number;
  threads: number;
  /** Folder the worker writes the run's artifacts into (exists). */
  runDir: string;
  control: SharedArrayBuffer;
  /** Minimum milliseconds between progress messages. */
  progressIntervalMs: number;
  /** Seconds between checkpoints of engines that can resume (0: none); see main/workers/checkpoint.ts. */
  checkpointSeconds: number;
}

/** workerData of a helper thread of a run (EngineContext.startHelpers): the engine and its helper's data. */
export interface HelperInput {
  helper: true;
  engineId: string;
  data: unknown;
}

/**
 * A task of an engine worker entry started without workerData (WorkerPool.task): the engine's
 * cross-field checks (EngineDefinition.check) of each point's parsed params, in order.
 */
export interface CheckTask {
  engineId: string;
  points: unknown[];
}

/** A CheckTask's answer: the first point with issues and its issues, or null when every point passes. */
export type CheckOutcome = { point: number; issues: ParamsIssue[] } | null;

/** An artifact file the worker wrote, before the store gives it an id. */
export type WrittenArtifact = Omit<RunArtifact, 'id'>;

export type WorkerMessage =
  | { type: 'progress'; done: number; total: number; phase: string; counters?: Record<string, number> }
  | { type: 'log'; lines: string[] }
  | {
      type: 'result';
      metrics: Record<string, number | string | boolean>;
      series: EngineSeries[];
      artifacts: WrittenArtifact[];
      cancelled: boolean;
    }
  | { type: 'error'; message: string; stack?: string };

/** File in the run folder holding a running run's latest published particle table (EngineContext.publish). */
export const LIVE_TABLE_FILE = 'live-particles.pbt';
