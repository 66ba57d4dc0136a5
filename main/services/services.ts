/**
 * The services of one data directory, booted together and shut down together: store, engine
 * registry, worker pool, job queue, shape library, event bus and the dispatch every surface uses.
 * The Electron main process, the CLI and the web host each open exactly this.
 */
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defaultRegistry, type EngineRegistry } from './engines';
import { EventBus } from './events';
import { createDispatch, createHandlers, removeLeftExports, storageFaultMeaning, type Dispatch, type HandlerContext } from './handlers';
import { bundleDirs, WorkerPool } from './pool';
import { Limiter } from './limiter';
import { JobQueue } from './queue';
import { ShapeLibrary } from './shapes';
import { ApiError } from '../api';
import { BUSY_TIMEOUT_MS, RunStore } from './store';
import { appVersion } from './datadir';

export interface ServicesOptions {
  dataDir: string;
  registry?: EngineRegistry;
  concurrency?: number;
  threadsPerRun?: number;
  /** Seconds between a run's checkpoints (default 60, 0: none). */
  checkpointSeconds?: number;
  memoryBudgetBytes?: number;
  /** Start working through the queue right away (the app and the web host), unless it was left paused; the CLI decides itself. */
  autoStart?: boolean;
  /** Only start runs this accepts. */
  only?: ReadonlySet<string>;
  electron?: boolean;
  /** The app's save dialog (HandlerContext.chooseSavePath). */
  chooseSavePath?: (suggestedName: string) => Promise<string | null>;
  nativeBinding?: string;
  progressIntervalMs?: number;
  /**
   * Only reading (listing, showing, exporting runs): the database is opened read-only, nothing is
   * written at start (no built-in shapes, no recovery, no queue), so a read-only or full data
   * folder still works; calls that write fail with 'unavailable'.
   */
  readOnly?: boolean;
  /** How long opening waits in all for a write lock another process holds on the database (default OPEN_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** Milliseconds between the queue's looks at the folder for other processes' changes (QueueOptions.pollMs). */
  pollMs?: number;
  /** How long closing waits for runs being stopped (stop and keep) to end with their results (QueueOptions.stopGraceMs). */
  stopGraceMs?: number;
}

/**
 * How long opening a data folder for writing waits for another process to release the database's
 * write lock (another PackBench migrating a big database, a command writing a large batch) before
 * it gives up naming the folder. Opening writes at once (the built-in shapes, crash recovery).
 */
export const OPEN_LOCK_WAIT_MS = 60_000;

export interface Services extends HandlerContext {
  events: EventBus;
  pool: WorkerPool;
  dispatch: Dispatch;
  /**
   * Takes up the queue's stored settings (its pause too) and starts working through it, as autoStart
   * does at opening; for a surface that is up only later (the web host, once it listens). Nothing when read-only.
   */
  startQueue(): void;
  /** `because`: why running runs go back to the queue, for their logs (JobQueue.close); 'the app closed' unless told. */
  close(because?: string): Promise<void>;
}

/** Errors of opening a data folder for writing that opening it for reading may get round. */
const UNWRITABLE = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_FULL', 'SQLITE_IOERR']);

/**
 * The services of a data folder. When it cannot be opened for writing (read-only, full), it is
 * opened read-only instead (readOnlyBecause says why), so the app, the host and the CLI still list
 * and show its runs; calls that write then fail with 'unavailable'.
 */
export function openServices(o: ServicesOptions): Services {
  if (o.readOnly) return open(o);
  try {
    return openWaitingForLock(o);
  } catch (err) {
    return openReadOnlyInstead(o, err);
  }
}

/**
 * openServices for a process that must stay responsive while another holds the database's write
 * lock (the Electron main process: a synchronous wait froze it with no window for up to
 * lockWaitMs): it waits between short tries, and tells `onWait` once, with the message openServices
 * prints, so that the app can say so; past lockWaitMs it fails with the same error.
 */
export async function openServicesWhenFree(o: ServicesOptions, onWait: (message: string) => void = (m) => console.warn(m)): Promise<Services> {
  if (o.readOnly) return open(o);
  const waitMs = o.lockWaitMs ?? OPEN_LOCK_WAIT_MS;
  const t0 = Date.now();
  for (let told = false; ; ) {
    try {
      return open(o, undefined, 0);
    } catch (err) {
      if (!isBusy(err)) return openReadOnlyInstead(o, err);
      const waited = Date.now() - t0;
      if (waited >= waitMs) throw lockedError(o, waited);
      if (!told) onWait(waitingMessage(o, waitMs));
      told = true;
      await new Promise((r) => setTimeout(r, LOCK_TRY_MS));
    }
  }
}

/** Milliseconds between the tries of openServicesWhenFree (each fails at once on the lock: SQLite's wait would block). */
const LOCK_TRY_MS = 100;

const isBusy = (err: unknown) => String((err as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY');

/** The folder opened read-only after `err` failed opening it for writing, when it is a fault of the folder (else err is thrown). */
function openReadOnlyInstead(o: ServicesOptions, err: unknown): Services {
  const code = String((err as { code?: unknown }).code ?? '');
  if (!UNWRITABLE.has(code) && !code.startsWith('SQLITE_IOERR')) throw err;
  // The banner says it in words; the system's message (path, call) goes to the log.
  console.warn(`PackBench: opening ${o.dataDir} for writing failed: ${(err as Error).message}`);
  return open({ ...o, readOnly: true }, { why: `${storageFaultMeaning(code) ?? (err as Error).message} (${code})`, code });
}

const waitingMessage = (o: ServicesOptions, waitMs: number) => `PackBench: the database of ${o.dataDir} is locked by another process; waiting up to ${Math.round(waitMs / 1000)} s for it`;

/** SQLite cannot tell which process holds the lock, so the error names the folder and who may hold it. */
function lockedError(o: ServicesOptions, waitedMs: number): ApiError {
  return new ApiError('unavailable', `cannot open the data folder ${o.dataDir}: another process has held the write lock of its database (packbench.db) for over ${Math.round(waitedMs / 1000)} s: a PackBench app, web host or packbench command writing to this folder, or a database tool with a transaction open; close it or let it finish, then try again`);
}

/**
 * Opens the folder for writing, trying again while another process holds the database's write lock
 * (each try waits BUSY_TIMEOUT_MS in SQLite, or lockWaitMs when that is shorter) for lockWaitMs in
 * all; says once that it waits.
 */
function openWaitingForLock(o: ServicesOptions): Services {
  const waitMs = o.lockWaitMs ?? OPEN_LOCK_WAIT_MS;
  const tryMs = Math.min(waitMs, BUSY_TIMEOUT_MS);
  const tries = Math.max(1, Math.ceil(waitMs / Math.max(1, tryMs)));
  for (let i = 1; ; i++) {
    try {
      return open(o, undefined, tryMs);
    } catch (err) {
      if (!isBusy(err)) throw err;
      if (i === tries) throw lockedError(o, i * tryMs);
      if (i === 1) console.warn(waitingMessage(o, tries * tryMs));
    }
  }
}

/** Why services are read-only: in words (readOnlyBecause) and the fault's code (readOnlyCode). */
interface ReadOnlyBecause {
  why: string;
  code: string | null;
}

/**
 * `because`: why a folder asked to be written is opened read-only. `lockWaitMs`: how long its writes
 * at opening wait for another process's lock (BUSY_TIMEOUT_MS unless told).
 */
function open(o: ServicesOptions, because: ReadOnlyBecause = { why: 'it was opened for reading only', code: null }, lockWaitMs?: number): Services {
  if (!o.readOnly) mkdirSync(join(o.dataDir, 'runs'), { recursive: true });
  const file = join(o.dataDir, 'packbench.db');
  let store: RunStore;
  try {
    store = new RunStore(file, { nativeBinding: o.nativeBinding, readOnly: o.readOnly, busyTimeoutMs: lockWaitMs });
  } catch (err) {
    // SQLite's own words name no file ('file is not a database').
    const code = (err as { code?: unknown }).code;
    if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw err;
    throw new ApiError('unavailable', `cannot open the data folder ${o.dataDir}: its database ${file} is damaged or is not a PackBench database (${code}: ${(err as Error).message}); move it away to start with an empty one, or put back a copy from a backup`);
  }
  try {
    const services = withStore(o, store, o.readOnly ? because : null);
    if (lockWaitMs !== undefined && !o.readOnly) store.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return services;
  } catch (err) {
    store.close();
    throw err;
  }
}

function withStore(o: ServicesOptions, store: RunStore, readOnly: ReadOnlyBecause | null): Services {
  const registry = o.registry ?? defaultRegistry();
  const events = new EventBus();
  const pool = new WorkerPool({ memoryBudgetBytes: o.memoryBudgetBytes, progressIntervalMs: o.progressIntervalMs, bundleDirs: bundleDirs(o.dataDir) });
  const version = appVersion();
  const queue = new JobQueue({
    store,
    registry,
    pool,
    events,
    dataDir: o.dataDir,
    appVersion: version,
    concurrency: o.concurrency,
    threadsPerRun: o.threadsPerRun,
    checkpointSeconds: o.checkpointSeconds,
    only: o.only,
    pollMs: o.pollMs,
    stopGraceMs: o.stopGraceMs,
  });
  const shapes = new ShapeLibrary(store);
  if (!o.readOnly) {
    shapes.installBuiltins();
    removeLeftExports(o.dataDir);
    queue.finishRemovals();
  }
  const recovered = o.readOnly ? [] : queue.recover();
  // Read-only: runs whose process ended are shown as the next writer's recovery will leave them.
  if (o.readOnly) store.showInterrupted(queue.interruptedRuns());
  const heavy = new Limiter(Math.min(2, availableParallelism()));
  const ctx: HandlerContext = {
    store,
    registry,
    queue,
    events,
    shapes,
    dataDir: o.dataDir,
    appVersion: version,
    electron: o.electron ?? false,
    chooseSavePath: o.chooseSavePath,
    heavy,
    pool,
    readOnlyBecause: readOnly?.why ?? null,
    readOnlyCode: readOnly?.code ?? null,
    // Its queue left alone: it only finishes what opening finishes (a removal begun on a full disk).
    openForWriting: () => openServicesWhenFree({ ...o, readOnly: false, autoStart: false }),
    recovered,
  };
  const dispatch = createDispatch(createHandlers(ctx));
  const startQueue = () => {
    if (o.readOnly) return;
    queue.restoreSettings();
    queue.start();
  };
  if (o.autoStart) startQueue();
  let closed: Promise<void> | undefined;
  return {
    ...ctx,
    dispatch,
    startQueue,
    close(because?: string) {
      closed ??= (async () => {
        await queue.close(because);
        await pool.shutdown();
        store.close();
      })();
      return closed;
    },
  };
}
