/**
 * The renderer's only door to the services: `window.packbench` (the Electron preload bridge, or the
 * WebSocket client installed by ./bridge in a browser). Calls go through `window.packbench` at call time,
 * not import time, so the bridge may install itself after this module loads (and tests may install a fake).
 */
import { cancelled, type PackbenchApi, type Methods, type Events, type RunSummary, type ApiIssue } from '../../main/api';

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

/** `signal`: aborting it aborts the call on the services' side too (an import stops, nothing is stored); the call then rejects as isCancelled says. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** The renderer's calls: window.packbench's, with an AbortSignal where the page gives a call an id (callId) to abort. */
export interface RendererApi {
  call<M extends MethodName>(method: M, params: Params<M>, options?: CallOptions): Promise<Result<M>>;
  on: PackbenchApi['on'];
}

/** The ids of this page's abortable calls (PackbenchApi.call's callId): never two the same. */
let lastCallId = 0;

export const api: RendererApi = {
  call(method, params, { signal } = {}) {
    if (!signal) return window.packbench.call(method, params);
    if (signal.aborted) return Promise.reject(cancelled(method));
    const callId = ++lastCallId;
    const abort = () => window.packbench.abort(callId);
    signal.addEventListener('abort', abort, { once: true });
    // Settles with the services' answer: 'cancelled' once they stopped it, or its result when it ended before the abort came.
    return window.packbench.call(method, params, callId).finally(() => signal.removeEventListener('abort', abort));
  },
  on: (event, listener) => window.packbench.on(event, listener),
};

/** Whether a call was rejected because it was aborted (CallOptions.signal): not a failure, no error to show. */
export function isCancelled(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'cancelled';
}

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
