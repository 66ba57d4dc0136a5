/**
 * WorkerPool: runs one engine run per worker thread. Progress and cancel/pause travel through a
 * small shared control block (main/workers/protocol.ts); results, logs and throttled progress
 * messages through postMessage. A worker that throws or dies fails only its own run. The pool
 * keeps a memory budget: a run whose estimate does not fit is not started.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, renameSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CANCEL, CONTROL, CONTROL_BYTES, CONTROL_INTS, PROGRESS, PROGRESS_OFFSET, type WorkerInput, type WorkerMessage, type WrittenArtifact } from '../workers/protocol';
import { WORKER_BYTES, type EngineSeries } from '../../core/common/engine';

/** Where worker entries run from sources are bundled (inside node_modules, so bare imports resolve). */
const BUNDLE_DIR = fileURLToPath(new URL('../../node_modules/.cache/packbench-workers/', import.meta.url));
/** Bundles made or under way in this process, by entry and folders. */
const bundled = new Map<string, Promise<string>>();

/**
 * Folders a worker bundle may be written to, in order: node_modules/.cache, then (when that is not
 * writable, as in a read-only or global install) the data folder's cache/ and the OS temp folder.
 */
export function bundleDirs(dataDir: string): string[] {
  return [BUNDLE_DIR, join(dataDir, 'cache', 'workers'), tempBundleDir()];
}

/** The OS temp folder's bundle folder: one per user, since every user may write in the temp folder. */
function tempBundleDir(): string {
  const uid = process.getuid?.();
  return join(tmpdir(), uid === undefined ? 'packbench-workers' : `packbench-workers-${uid}`);
}

/**
 * Makes the temp bundle folder, or checks the one there: a bundle in it runs as this user, so it must
 * be this user's own folder that no one else can write (another user may have made it first and put
 * a bundle of the name this one will look for, or a symlink where it will write).
 */
function ownTempFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  if (uid === undefined) return; // Windows: the temp folder is the user's own
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) {
    throw new Error(`${dir} is not a folder of this user that only it can write (another user could put code there that would run as this one): remove it`);
  }
}

/**
 * The file a worker runs. Bundled builds (electron-vite) give .js entries, run as they are. From
 * sources (CLI, web host, tests) a .ts entry is bundled once per process with esbuild (tsx's own
 * compiler) into one ES module: a worker then starts in ~0.1 s instead of ~0.7 s for registering
 * tsx's loader thread and compiling file by file (bench/services.ts). esbuild's asynchronous build
 * works in its own process: the synchronous one held the host's thread for 0.5-0.8 s at the first
 * run, check or preview of a process (bench/host-loop.ts). Named by content hash and written
 * atomically, so processes sharing a checkout never read each other's half-written file. The first
 * of `dirs` that takes the file is used; outside node_modules the bundle carries its packages too,
 * since bare imports would not resolve there.
 */
export function runnableEntry(entry: string, dirs: string[] = [BUNDLE_DIR]): Promise<string> {
  if (!entry.endsWith('.ts')) return Promise.resolve(entry);
  const key = [entry, ...dirs].join('\0');
  let file = bundled.get(key);
  if (!file) {
    file = bundleInto(entry, dirs);
    bundled.set(key, file);
    // A failure is tried again at the next call (a folder made writable since).
    file.catch(() => bundled.delete(key));
  }
  return file;
}

async function bundleInto(entry: string, dirs: string[]): Promise<string> {
  const failures: string[] = [];
  for (const dir of dirs) {
    try {
      return await writeBundle(entry, dir, dir === BUNDLE_DIR);
    } catch (err) {
      failures.push(`${dir}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new Error(`cannot write the worker bundle of ${basename(entry)} to any of: ${failures.join('; ')}`);
}

/** An esbuild build whose output stays in memory (outputFiles). */
type InMemoryBuild = import('esbuild').BuildOptions & { write: false };

/** Restarts of esbuild's service process so far (esbuildBuild). */
let esbuildRestarts = 0;

/**
 * esbuild's build, which works in its service process (a child of this one). That process killed (a
 * `kill -9` of the process under `packbench queue run`) failed this and every later build of the
 * process, so every run it started; it is started again once, by the first build that finds it gone.
 */
async function esbuildBuild(options: InMemoryBuild): Promise<import('esbuild').BuildResult<InMemoryBuild>> {
  // Loaded only here: built apps never bundle at run time, so esbuild stays out of them.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const restarts = esbuildRestarts;
  try {
    return await esbuild.build(options);
  } catch (err) {
    if (!/^The service (was stopped|is no longer running)/.test(err instanceof Error ? err.message : '')) throw err;
    // Builds that failed with it meanwhile use the one the first started.
    if (restarts === esbuildRestarts) {
      esbuildRestarts++;
      await esbuild.stop();
    }
    return esbuild.build(options);
  }
}

async function writeBundle(entry: string, dir: string, externalPackages: boolean): Promise<string> {
  const out = (await esbuildBuild({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    ...(externalPackages ? { packages: 'external' as const } : {}),
    sourcemap: 'inline',
    // Stack traces of failed runs then name the .ts sources.
    banner: { js: 'process.setSourceMapsEnabled(true);' },
    write: false,
    // Source map paths are relative to this (the bundle's folder), so traces name the real files.
    outfile: join(dir, 'entry.mjs'),
    logLevel: 'silent',
  })).outputFiles[0].contents;
  const hash = createHash('sha256').update(out).digest('hex').slice(0, 16);
  const file = join(dir, `${basename(entry, '.ts')}-${externalPackages ? '' : 'all-'}${hash}.mjs`);
  if (dir === tempBundleDir()) ownTempFolder(dir);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, out);
    renameSync(tmp, file);
  }
  return file;
}

export interface PoolJob {
  runId: string;
  /** The engine the worker entry runs (it may hold several). */
  engineId: string;
  workerEntry: string;
  params: unknown;
  seed: number;
  threads: number;
  runDir: string;
  /** The engine's estimate (EngineDefinition.estimateMemoryBytes) of what the run allocates. */
  memoryBytes: number;
  /** Seconds between the run's checkpoints (0 or absent: none). */
  checkpointSeconds?: number;
}

export interface JobCallbacks {
  onProgress?(p: { done: number; total: number; phase: string; counters?: Record<string, number> }): void;
  onLog?(lines: string[]): void;
}

export type JobOutcome =
  | { status: 'done'; metrics: Record<string, number | string | boolean>; series: EngineSeries[]; artifacts: WrittenArtifact[]; wallSeconds: number }
  | { status: 'cancelled'; metrics: Record<string, number | string | boolean>; series: EngineSeries[]; wallSeconds: number }
  | { status: 'failed'; error: string; wallSeconds: number };

export interface RunningJob {
  readonly runId: string;
  /** Threads the run was started on (PoolJob.threads). */
  readonly threads: number;
  readonly done: Promise<JobOutcome>;
  /** Ends the run at once, without artifacts (its checkpoint is the queue's to keep or remove). */
  cancel(): void;
  /** Stop and keep: the engine ends at its next safe point and the run is done with its artifacts (a paused run wakes for it). */
  stop(): void;
  /** True once stop() was called. */
  readonly stopping: boolean;
  pause(): void;
  resume(): void;
  readonly paused: boolean;
  /** Live progress straight from the shared block (no message needed). */
  progress(): { done: number; total: number };
}

export interface PoolOptions {
  /** Bytes all running jobs together may use; default 70% of physical memory. */
  memoryBudgetBytes?: number;
  progressIntervalMs?: number;
  /** Where worker bundles may be written (see bundleDirs); default node_modules/.cache only. */
  bundleDirs?: string[];
}

export class WorkerPool {
  readonly memoryBudgetBytes: number;
  private readonly progressIntervalMs: number;
  private readonly bundleDirs: string[];
  private readonly jobs = new Map<string, { job: RunningJob; memoryBytes: number; entry: { worker?: Worker } }>();

  constructor(options: PoolOptions = {}) {
    this.memoryBudgetBytes = options.memoryBudgetBytes ?? Math.floor(totalmem() * 0.7);
    this.progressIntervalMs = options.progressIntervalMs ?? 250;
    this.bundleDirs = options.bundleDirs ?? [BUNDLE_DIR];
  }

  get size(): number {
    return this.jobs.size;
  }

  /** Bytes of the budget the pool's workers hold: runs, tasks, and idle task workers (WORKER_BYTES each). */
  reservedBytes(): number {
    let idle = 0;
    for (const list of this.idle.values()) idle += list.length;
    return this.busyBytes() + idle * WORKER_BYTES;
  }

  /** Bytes held by running runs and tasks: what a new run or task must fit beside (idle task workers make room for it). */
  private busyBytes(): number {
    let n = this.taskBytes;
    for (const j of this.jobs.values()) n += j.memoryBytes;
    return n;
  }

  /** Bytes held by running tasks (imports, engines' checks). */
  private taskBytes = 0;

  /**
   * Idle task workers by bundle file. Starting one costs 0.1 to 0.5 s (mostly loading zod), more
   * than most imports take, so a finished one waits TASK_WORKER_IDLE_MS for the next task (at most
   * MAX_IDLE_TASK_WORKERS per file, unref'd: an idle worker never keeps the process alive). Its
   * isolate and bundle stay in memory meanwhile, so each holds WORKER_BYTES of the budget, and is
   * let go (letIdleGo) as soon as a run or task needs the room.
   */
  private readonly idle = new Map<string, { worker: Worker; timer: NodeJS.Timeout }[]>();

  /**
   * Runs a one-off task (an import, an engine's checks) in a worker thread under the same memory
   * budget as runs, holding `memoryBytes` of it while it runs: the value the worker posts ({ ok: true,
   * value }), or an Error with the message it posts ({ ok: false, message }) marked `taskFailed`, or a
   * crash. Refused up front (BudgetError) when `memoryBytes` is over the budget or over what runs leave
   * free now, unless `whenFull` is 'run anyway' (a check must answer the form whatever runs hold; runs
   * that would start meanwhile wait for it). `memoryBytes` counts the worker itself (WORKER_BYTES) as
   * a run's estimate does. A worker that finished its task is kept a few seconds for the next one
   * (see `idle`). `signal` aborted (the client that asked has gone) ends the task where it is: it
   * fails with the signal's reason and its worker is terminated (a task has no cancel flag to ask:
   * a mesh import or a preview is one call into core). What the worker posts as { progress } before
   * its outcome goes to `onProgress`.
   */
  async task<T, P = never>(
    workerEntry: string, input: unknown, memoryBytes: number, whenFull: 'refuse' | 'run anyway' = 'refuse', signal?: AbortSignal, onProgress?: (progress: P) => void,
  ): Promise<T> {
    signal?.throwIfAborted();
    if (whenFull === 'refuse' && memoryBytes > this.memoryBudgetBytes) {
      throw new BudgetError(`needs about ${formatBytes(memoryBytes)}, more than the memory budget of ${formatBytes(this.memoryBudgetBytes)}`, false);
    }
    if (whenFull === 'refuse' && !this.fits(memoryBytes)) {
      throw new BudgetError(`needs about ${formatBytes(memoryBytes)}; runs hold all but ${formatBytes(this.memoryBudgetBytes - this.busyBytes())} of the memory budget now: try again when they finish`, true);
    }
    this.taskBytes += memoryBytes;
    let reusable = false;
    let file: string | undefined, worker: Worker | undefined;
    try {
      file = await runnableEntry(workerEntry, this.bundleDirs);
      worker = this.takeIdle(file);
      await this.letIdleGo();
      const w = (worker ??= new Worker(file));
      return await new Promise<T>((resolve, reject) => {
        const off = () => {
          w.off('message', onMessage).off('error', onError).off('exit', onExit);
          signal?.removeEventListener('abort', onAbort);
        };
        const onAbort = () => {
          off();
          reject(signal!.reason);
        };
        const onMessage = (m: { ok: true; value: T } | { ok: false; message: string } | { progress: P }) => {
          if ('progress' in m) return onProgress?.(m.progress);
          off();
          reusable = true;
          if (m.ok) resolve(m.value);
          else reject(Object.assign(new Error(m.message), { taskFailed: true }));
        };
        const onError = (err: Error) => {
          off();
          reject(new Error(`worker crashed: ${err.message}`));
        };
        const onExit = (code: number) => {
          off();
          reject(new Error(`worker exited with code ${code} before finishing`));
        };
        w.on('message', onMessage).on('error', onError).on('exit', onExit);
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort);
        w.postMessage(input);
      });
    } finally {
      this.taskBytes -= memoryBytes;
      if (reusable && file && worker) this.keepIdle(file, worker);
      else void worker?.terminate();
    }
  }

  /** Whether a run needing `bytes` could start now (idle task workers are let go for it). */
  fits(bytes: number): boolean {
    return this.busyBytes() + bytes <= this.memoryBudgetBytes;
  }

  private takeIdle(file: string): Worker | undefined {
    const idle = this.idle.get(file)?.pop();
    if (!idle) return undefined;
    clearTimeout(idle.timer);
    idle.worker.ref();
    return idle.worker;
  }

  /** Keeps a worker whose task ended for the next task of its file, if its bytes fit beside what runs and tasks hold. */
  private keepIdle(file: string, worker: Worker): void {
    let list = this.idle.get(file);
    if (!list) this.idle.set(file, (list = []));
    if (list.length >= MAX_IDLE_TASK_WORKERS || this.reservedBytes() + WORKER_BYTES > this.memoryBudgetBytes) {
      void worker.terminate();
      return;
    }
    worker.unref();
    const entry = {
      worker,
      timer: setTimeout(() => {
        list.splice(list.indexOf(entry), 1);
        void worker.terminate();
      }, TASK_WORKER_IDLE_MS).unref(),
    };
    list.push(entry);
  }

  /**
   * Ends idle task workers until `bytes` more fit in the budget beside everything held; resolves
   * once their threads have exited (and their memory is back), so a new worker starts after.
   */
  private letIdleGo(bytes = 0): Promise<unknown> {
    const exits: Promise<number>[] = [];
    for (const list of this.idle.values()) {
      while (list.length > 0 && this.reservedBytes() + bytes > this.memoryBudgetBytes) {
        const { worker, timer } = list.pop()!;
        clearTimeout(timer);
        exits.push(worker.terminate());
      }
    }
    return Promise.all(exits);
  }

  get(runId: string): RunningJob | undefined {
    return this.jobs.get(runId)?.job;
  }

  start(job: PoolJob, callbacks: JobCallbacks = {}): RunningJob {
    if (job.memoryBytes > this.memoryBudgetBytes) {
      throw new Error(`run needs about ${formatBytes(job.memoryBytes)}, more than the memory budget of ${formatBytes(this.memoryBudgetBytes)}`);
    }
    if (!this.fits(job.memoryBytes)) {
      throw new Error(`run needs about ${formatBytes(job.memoryBytes)}; only ${formatBytes(this.memoryBudgetBytes - this.busyBytes())} of the budget is free`);
    }
    const roomMade = this.letIdleGo(job.memoryBytes);
    const controlBuffer = new SharedArrayBuffer(CONTROL_BYTES);
    const control = new Int32Array(controlBuffer, 0, CONTROL_INTS);
    const progress = new Float64Array(controlBuffer, PROGRESS_OFFSET, 2);
    const input: WorkerInput = {
      runId: job.runId,
      engineId: job.engineId,
      params: job.params,
      seed: job.seed,
      threads: job.threads,
      runDir: job.runDir,
      control: controlBuffer,
      progressIntervalMs: this.progressIntervalMs,
      checkpointSeconds: job.checkpointSeconds ?? 0,
    };
    const started = performance.now();
    // The run's wall time leaves its pauses out (as the store's working time does: api.ts workingSeconds).
    let pausedMs = 0;
    let pausedSince: number | null = null;
    const wall = () => (performance.now() - started - pausedMs - (pausedSince === null ? 0 : performance.now() - pausedSince)) / 1000;
    // The worker starts once its entry is bundled (at once after the first time); a cancel or pause
    // before is in the control block it reads.
    const entry: { worker?: Worker } = {};

    let paused = false;
    const done = new Promise<JobOutcome>((resolve) => {
      let settled = false;
      const settle = (o: JobOutcome) => {
        if (settled) return;
        settled = true;
        this.jobs.delete(job.runId);
        resolve(o);
        // The worker has posted its result; let it end on its own, but do not wait for it.
        void entry.worker?.terminate();
      };
      const listen = (worker: Worker) => {
        worker.on('message', (m: WorkerMessage) => {
          switch (m.type) {
            case 'progress':
              callbacks.onProgress?.(m);
              break;
            case 'log':
              callbacks.onLog?.(m.lines);
              break;
            case 'result':
              settle(
                m.cancelled
                  ? { status: 'cancelled', metrics: m.metrics, series: m.series, wallSeconds: wall() }
                  : { status: 'done', metrics: m.metrics, series: m.series, artifacts: m.artifacts, wallSeconds: wall() },
              );
              break;
            case 'error':
              callbacks.onLog?.([m.stack ?? m.message]);
              settle({ status: 'failed', error: m.message, wallSeconds: wall() });
              break;
          }
        });
        worker.on('error', (err) => settle({ status: 'failed', error: `worker crashed: ${err.message}`, wallSeconds: wall() }));
        worker.on('exit', (code) =>
          settle(
            Atomics.load(control, CONTROL.cancel) !== CANCEL.none
              ? { status: 'cancelled', metrics: {}, series: [], wallSeconds: wall() }
              : { status: 'failed', error: `worker exited with code ${code} before finishing the run`, wallSeconds: wall() },
          ),
        );
      };
      Promise.all([runnableEntry(job.workerEntry, this.bundleDirs), roomMade]).then(
        ([file]) => listen((entry.worker = new Worker(file, { workerData: input }))),
        (err: unknown) => settle({ status: 'failed', error: `could not start: ${err instanceof Error ? err.message : String(err)}`, wallSeconds: wall() }),
      );
    });

    const running: RunningJob = {
      runId: job.runId,
      threads: job.threads,
      done,
      cancel() {
        Atomics.store(control, CONTROL.cancel, CANCEL.requested);
        Atomics.notify(control, CONTROL.pause);
      },
      stop() {
        Atomics.store(control, CONTROL.stop, 1);
        Atomics.notify(control, CONTROL.pause);
      },
      pause() {
        paused = true;
        pausedSince ??= performance.now();
        Atomics.store(control, CONTROL.pause, 1);
      },
      resume() {
        paused = false;
        if (pausedSince !== null) pausedMs += performance.now() - pausedSince;
        pausedSince = null;
        Atomics.store(control, CONTROL.pause, 0);
        Atomics.notify(control, CONTROL.pause);
      },
      get paused() {
        return paused;
      },
      get stopping() {
        return Atomics.load(control, CONTROL.stop) === 1;
      },
      progress: () => ({ done: progress[PROGRESS.done], total: progress[PROGRESS.total] }),
    };
    this.jobs.set(job.runId, { job: running, memoryBytes: job.memoryBytes, entry });
    return running;
  }

  /** Ends idle task workers, cancels every job and waits for them (app shutdown). Workers that do not stop in time are terminated. */
  async shutdown(timeoutMs = 5000): Promise<void> {
    await this.letIdleGo(Infinity);
    const entries = [...this.jobs.values()];
    for (const e of entries) e.job.cancel();
    if (entries.length === 0) return;
    await allWithin(entries.map((e) => e.job.done), timeoutMs);
    await Promise.all(entries.map((e) => e.entry.worker?.terminate()));
  }
}

/** Waits until every one of `jobs` has settled, or `ms` have passed, whichever comes first (a close's grace for its runs). */
export async function allWithin(jobs: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(jobs), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

const TASK_WORKER_IDLE_MS = 10_000;
const MAX_IDLE_TASK_WORKERS = 2;

/** A task refused for its memory: `busy` when it would fit once running runs end. */
export class BudgetError extends Error {
  constructor(message: string, readonly busy: boolean) {
    super(message);
  }
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}
