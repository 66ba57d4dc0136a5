/**
 * The renderer's only door to the services: `window.packbench` (the Electron preload bridge, or the
 * WebSocket client installed by ./bridge in a browser). Calls go through `window.packbench` at call time,
 * not import time, so the bridge may install itself after this module loads (and tests may install a fake).
 */
import type { PackbenchApi, Methods, Events, RunSummary, ApiIssue } from '../../main/api';

export type {
  PackbenchApi,
  RunSummary,
  RunRecord,
  RunSeries,
  RunStatus,
  RunArtifact,
  EngineInfo,
  Preset,
  QueueState,
  Shape,
  RunSpecInput,
  MetricValue,
} from '../../main/api';

declare global {
  interface Window {
    packbench: PackbenchApi;
  }
}

export type MethodName = keyof Methods;
export type Params<M extends MethodName> = Methods[M]['params'];
export type Result<M extends MethodName> = Methods[M]['result'];
export type EventName = keyof Events;

export type AppInfo = Result<'app.info'>;
export type RunListParams = Params<'runs.list'>;
export type BatchFinished = Events['batch.finished'];

export const api: PackbenchApi = {
  call: (method, params) => window.packbench.call(method, params),
  on: (event, listener) => window.packbench.on(event, listener),
};

export function onRunUpdated(listener: (run: RunSummary) => void): () => void {
  return api.on('run.updated', listener);
}

export function onBatchFinished(listener: (batch: BatchFinished) => void): () => void {
  return api.on('batch.finished', listener);
}

/** One issue of a service-side validation error: `path` like 'params.box.lx'. */
export type FieldIssue = ApiIssue;

/** The field issues of a rejected call (`{ code: 'invalid', issues }`), or [] for any other error. */
export function fieldIssues(error: unknown): FieldIssue[] {
  return invalidList(error, 'issues');
}

/** The warnings said beside the issues of a rejected spec (`{ code: 'invalid', warnings }`: fields with no effect), or []. */
export function errorWarnings(error: unknown): FieldIssue[] {
  return invalidList(error, 'warnings');
}

function invalidList(error: unknown, key: 'issues' | 'warnings'): FieldIssue[] {
  type Data = { code?: unknown; issues?: unknown; warnings?: unknown };
  const e = error as (Data & { data?: Data }) | null;
  const source = e && e.code === 'invalid' ? e : e?.data?.code === 'invalid' ? e.data : null;
  const list = source?.[key];
  if (!Array.isArray(list)) return [];
  return list
    .filter((i): i is FieldIssue => typeof i?.path === 'string' && typeof i?.message === 'string')
    .map((i) => ({ path: i.path, message: i.message }));
}

/** A one-line message for any rejected call, for toasts and inline errors. */
export function errorMessage(error: unknown): string {
  const issues = fieldIssues(error);
  if (issues.length) return issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}
