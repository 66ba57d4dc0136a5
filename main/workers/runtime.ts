/**
 * The inside of a run's worker thread: builds the EngineContext over the shared control block,
 * runs the engine, writes its artifacts into the run folder (core/io/container format) and posts
 * the result. The worker entry (main/workers/engine.ts) is one line: runEngineWorker(core's list).
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { throwIfIssues, type ColumnTable, type EngineDefinition, type EngineProgress, type EngineResult, type HelperThreads, type LabelVolume } from '../../core/common/engine';
import { encodeHeader, encodeTable, volumeHeader, VOLUME_MAGIC } from '../../core/io/container';
import { besideTheWork, checkpointStore, replaceFile, writeAll } from './checkpoint';
import { CANCEL, CONTROL, CONTROL_INTS, LIVE_TABLE_FILE, PROGRESS, PROGRESS_OFFSET, type CheckOutcome, type CheckTask, type HelperInput, type WorkerInput, type WorkerMessage, type WrittenArtifact } from './protocol';

/** Volumes are written in slabs of this many bytes, so a 2048^3 volume needs no second copy. */
const SLAB_BYTES = 16 << 20;

function post(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'artifact';
}

function writeTable(dir: string, table: ColumnTable): WrittenArtifact {
  const bytes = encodeTable(table);
  const path = join(dir, `${safeFileName(table.name)}.pbt`);
  const fd = openSync(path, 'w');
  try {
    writeAll(fd, bytes);
  } finally {
    closeSync(fd);
  }
  const checksum = createHash('sha256').update(bytes).digest('hex');
  return { kind: 'table', name: table.name, path, bytes: bytes.length, checksum, meta: { rows: table.columns[Object.keys(table.columns)[0]]?.length ?? 0, columns: Object.keys(table.columns), ...table.meta } };
}

/** Replaces the run's live table: written beside it, then renamed, so a reader never sees half a file. */
function publishTable(dir: string, table: ColumnTable): void {
  replaceFile(join(dir, LIVE_TABLE_FILE), '.part', (fd) => writeAll(fd, encodeTable(table)));
}

function writeVolume(dir: string, volume: LabelVolume): WrittenArtifact {
  const [nx, ny, nz] = volume.dims;
  if (volume.labels.length !== nx * ny * nz) {
    throw new RangeError(`volume '${volume.name}' has ${volume.labels.length} labels, expected ${nx}*${ny}*${nz}`);
  }
  const head = encodeHeader(VOLUME_MAGIC, { ...volumeHeader(volume), meta: { name: volume.name, ...volume.meta } });
  const path = join(dir, `${safeFileName(volume.name)}.pbv`);
  const hash = createHash('sha256');
  const fd = openSync(path, 'w');
  let bytes = 0;
  try {
    writeAll(fd, head);
    hash.update(head);
    bytes += head.length;
    const all = new Uint8Array(volume.labels.buffer, volume.labels.byteOffset, volume.labels.byteLength);
    for (let off = 0; off < all.length; off += SLAB_BYTES) {
      const slab = all.subarray(off, Math.min(all.length, off + SLAB_BYTES));
      writeAll(fd, slab);
      hash.update(slab);
      bytes += slab.length;
    }
  } finally {
    closeSync(fd);
  }
  return { kind: 'volume', name: volume.name, path, bytes, checksum: hash.digest('hex'), meta: { dims: volume.dims, voxelSize: volume.voxelSize, ...volume.meta } };
}

/**
 * The engine's particle table carries its declaration (meta.particleTable), for the inspector and
 * exports; a run may declare its own variant there (a 2D run of a 3D-and-2D engine draws disks).
 */
function withDeclaration(table: ColumnTable, engine: EngineDefinition): ColumnTable {
  if (table.name !== engine.particleTable.name) return table;
  return { ...table, meta: { ...table.meta, particleTable: table.meta?.particleTable ?? engine.particleTable } };
}

/**
 * The result every engine must return (the registry's result schema, checked here so a bad result
 * fails its run with a clear message instead of reaching the database): metrics are finite numbers,
 * strings or booleans (non-finite numbers are dropped with a log line: JSON cannot hold them); series
 * are Float64Array pairs of equal length. Artifacts are checked by their writers.
 */
export function checkResult(result: EngineResult, log: (line: string) => void): EngineResult {
  if (!result || typeof result !== 'object') throw new TypeError(`engine returned ${String(result)} instead of { metrics, series, artifacts }`);
  const metrics: EngineResult['metrics'] = {};
  for (const [name, v] of Object.entries(result.metrics ?? {})) {
    if (typeof v === 'number' && !Number.isFinite(v)) log(`metric '${name}' is ${v}; not stored`);
    else if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') metrics[name] = v;
    else throw new TypeError(`metrics.${name} must be a number, string or boolean, got ${Object.prototype.toString.call(v)}`);
  }
  const series = result.series ?? [];
  series.forEach((s, i) => {
    if (!(s.x instanceof Float64Array) || !(s.y instanceof Float64Array)) throw new TypeError(`series[${i}] '${s.name}': x and y must be Float64Array`);
    if (s.x.length !== s.y.length) throw new RangeError(`series[${i}] '${s.name}': x has ${s.x.length} points, y has ${s.y.length}`);
    if (s.kind !== 'line' && s.kind !== 'bar') throw new TypeError(`series[${i}] '${s.name}': kind must be 'line' or 'bar'`);
  });
  if (!Array.isArray(result.artifacts)) throw new TypeError('artifacts must be an array');
  return { ...result, metrics, series };
}

/**
 * EngineContext.startHelpers: helper threads run this same worker entry (the module this code is
 * bundled into), which sees `helper` in its workerData and calls the engine's helper.
 */
function startHelpers(engineId: string, data: unknown[]): HelperThreads {
  const workers = data.map((d) => new Worker(new URL(import.meta.url), { workerData: { helper: true, engineId, data: d } satisfies HelperInput }));
  return {
    stop() {
      for (const w of workers) void w.terminate();
    },
  };
}

/**
 * Checks of specs being queued, one CheckTask per message (the services' JobQueue.validate): some
 * take seconds (a blobby surface's area), which must not stop the thread that serves the app.
 */
function serveChecks(engines: readonly EngineDefinition[]): void {
  parentPort!.on('message', (task: CheckTask) => {
    try {
      const engine = engines.find((e) => e.id === task.engineId);
      if (!engine) throw new Error(`this worker has no engine '${task.engineId}'; it has: ${engines.map((e) => e.id).join(', ')}`);
      let outcome: CheckOutcome = null;
      for (const [point, params] of task.points.entries()) {
        const issues = engine.check?.(params) ?? [];
        if (issues.length > 0) {
          outcome = { point, issues };
          break;
        }
      }
      parentPort!.postMessage({ ok: true, value: outcome });
    } catch (err) {
      parentPort!.postMessage({ ok: false, message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  });
}

/**
 * Runs the engine of `engines` named by the run's input, in this worker thread (or, for a helper
 * thread, its helper; started without input, as a task worker, it serves checks).
 */
export async function runEngineWorker(engines: readonly EngineDefinition[]): Promise<void> {
  if (workerData === null || workerData === undefined) return serveChecks(engines);
  if ((workerData as HelperInput).helper === true) {
    const h = workerData as HelperInput;
    engines.find((e) => e.id === h.engineId)?.helper?.(h.data);
    return;
  }
  const input = workerData as WorkerInput;
  const engine = engines.find((e) => e.id === input.engineId);
  if (!engine) {
    post({ type: 'error', message: `this worker has no engine '${input.engineId}'; it has: ${engines.map((e) => e.id).join(', ')}` });
    return;
  }
  const control = new Int32Array(input.control, 0, CONTROL_INTS);
  const progress = new Float64Array(input.control, PROGRESS_OFFSET, 2);
  let lastPost = 0;
  let phase = '';

  /**
   * Blocks while paused (no CPU: Atomics.wait), then tells whether cancel was requested. A stop
   * ends the wait too: the run then goes on to its end (the queue shows it running again).
   */
  const checkpoint = (): boolean => {
    while (Atomics.load(control, CONTROL.pause) === 1 && Atomics.load(control, CONTROL.cancel) === CANCEL.none && Atomics.load(control, CONTROL.stop) === 0) {
      Atomics.wait(control, CONTROL.pause, 1, 1000);
    }
    return Atomics.load(control, CONTROL.cancel) !== CANCEL.none;
  };

  const publishLive = besideTheWork('live table', 'live views show the last one saved', (line) => ctx.log(line));
  const ctx = {
    seed: input.seed,
    threads: input.threads,
    progress(p: EngineProgress) {
      progress[PROGRESS.done] = p.done;
      progress[PROGRESS.total] = p.total;
      const now = performance.now();
      const phaseChanged = p.phase !== undefined && p.phase !== phase;
      if (phaseChanged) phase = p.phase!;
      if (phaseChanged || now - lastPost >= input.progressIntervalMs) {
        lastPost = now;
        post({ type: 'progress', done: p.done, total: p.total, phase, counters: p.counters });
      }
      checkpoint();
    },
    cancelled: checkpoint,
    stopRequested: () => Atomics.load(control, CONTROL.stop) === 1,
    log(message: string) {
      post({ type: 'log', lines: [message] });
    },
    startHelpers: (data: unknown[]) => startHelpers(engine.id, data),
    checkpoints: input.checkpointSeconds > 0 ? checkpointStore(input.runDir, input.checkpointSeconds, (line) => ctx.log(line)) : undefined,
    publish: (table: ColumnTable) => publishLive(() => publishTable(input.runDir, withDeclaration(table, engine))),
  };

  try {
    // The services checked the params when the run was queued; a stored run of an older version
    // may no longer pass, and must fail with the reason rather than run on a bad configuration.
    throwIfIssues(engine.check?.(input.params) ?? []);
    const result = checkResult(await engine.run(input.params, ctx), ctx.log);
    const cancelled = result.cancelled === true || Atomics.load(control, CONTROL.cancel) !== CANCEL.none;
    // A cancelled run keeps no artifacts: they would describe a half-finished packing. A stopped one
    // (the engine ended its loop through ctx.stopRequested() and finished as at its end) keeps them.
    if (!cancelled && result.stopped !== undefined) ctx.log(`stopped by user at ${result.stopped}`);
    // Writing them takes seconds for a large label volume (512 MiB at 512³): a phase of its own,
    // not the engine's last one at its end.
    const artifacts = cancelled ? [] : result.artifacts.map((a, k, all) => {
      ctx.progress({ done: k, total: all.length, phase: 'writing results' });
      return a.kind === 'table' ? writeTable(input.runDir, withDeclaration(a, engine)) : writeVolume(input.runDir, a);
    });
    const transfer = result.series.flatMap((s) => [s.x.buffer, s.y.buffer]).filter((b): b is ArrayBuffer => b instanceof ArrayBuffer);
    // The live table has served its purpose once the run's own artifacts exist.
    rmSync(join(input.runDir, LIVE_TABLE_FILE), { force: true });
    post({ type: 'result', metrics: result.metrics, series: result.series, artifacts, cancelled }, [...new Set(transfer)]);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    post({ type: 'error', message: e.message, stack: e.stack });
  }
}
