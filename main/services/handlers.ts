/**
 * The one table of handlers behind every surface: the Electron IPC, the web host's WebSocket and
 * the CLI all call `dispatch(method, params)`, which validates params against main/api.ts and runs
 * the handler. Errors leave as ApiError (code, message, issues with field paths).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ApiError, parseParams, parseStrict, paramsSchemas, unknownMethod, SPHERE_IMPORT_ENGINE, type ImportProgress, type MethodName, type Methods, type RunRecord, type ShapeImportResult } from '../api';
import { downloadFile, writesSeries, EXPORT_FORMATS, exportFileName, exportFormatList, exportForDownload, exportRun, lackingData, type ExportableRun, type ExportFormat } from './exports';
import { IMPORT_WORKER, importTaskBytes, meshImportOptionsSchema, type MeshImportOptions, recordSphereRun, sphereImportAnalysis, type ImportResult, type ImportTask, type VoxelShapeImport } from './imports';
import { BudgetError, type WorkerPool } from './pool';
import { readFrame, readLiveParticles, readLiveSeries, readParticles, readSlice } from './artifacts';
import type { EngineRegistry } from './engines';
import type { EventBus } from './events';
import type { Limiter } from './limiter';
import { OWNER_TAG, ownerState, ownerTag, parseOwnerTag } from './processes';
import type { JobQueue } from './queue';
import { checkPreview, type ShapeLibrary } from './shapes';
import type { RunStore } from './store';
import { inTurns } from './turns';

export interface HandlerContext {
  store: RunStore;
  registry: EngineRegistry;
  queue: JobQueue;
  events: EventBus;
  shapes: ShapeLibrary;
  dataDir: string;
  appVersion: string;
  electron: boolean;
  /** Turns for heavy calls (exports, imports), so that many at once queue instead of piling up. */
  heavy: Limiter;
  /** Runs imports in worker threads under the runs' memory budget. */
  pool: WorkerPool;
  /** Why the data folder is open read-only (calls that write fail); null when it can be written. */
  readOnlyBecause: string | null;
  /**
   * The fault code that made opening the folder for writing fail (readOnlyBecause says it in words;
   * isFullDisk tells a full disk); null when it can be written, or was opened for reading only.
   */
  readOnlyCode: string | null;
  /**
   * Opens the data folder anew for writing (openServicesWhenFree), to be closed after use: read-only
   * services on a full disk finish a run's removal (deleteRun) with it once the run's files made room.
   * Opened read-only again while the folder still cannot be written.
   */
  openForWriting: () => Promise<Pick<HandlerContext, 'readOnlyBecause' | 'store' | 'queue'> & { close(): Promise<void> }>;
  /** Ids of runs re-queued at opening because the process running them had died (a crash). */
  recovered: string[];
  /** The largest export runs.export sends as bytes (default MAX_API_EXPORT_BYTES). */
  maxApiExportBytes?: number;
  /**
   * Asks the user where to save a file (the app's save dialog), suggesting a name; null when they
   * closed it. Only the app has one: runs.saveExport is 'unavailable' without it, since a browser
   * must never choose paths on the host's disk.
   */
  chooseSavePath?: (suggestedName: string) => Promise<string | null>;
}

type Parsed<M extends MethodName> = z.output<(typeof paramsSchemas)[M]>;
/**
 * `signal`, when the surface gives one, is aborted once the client that asked has gone (the web
 * host's socket closed): a long call that can be abandoned safely (an export) stops there.
 */
export type Handlers = { [M in MethodName]: (params: Parsed<M>, signal?: AbortSignal) => Methods[M]['result'] | Promise<Methods[M]['result']> };

/** Small exports only travel through the API; bigger ones go through the CLI or the host's download route. */
export const MAX_API_EXPORT_BYTES = 256 << 20;

/**
 * A run as exportRun takes it for `format`: its series are read only for the formats that write them
 * (a ball mill's collision frequency per ball is a number per ball: 2,000,000 balls are 32 MB read
 * from the database, 40-70 ms of CPU, for nothing in a CSV of the particles), a column a turn.
 */
export async function exportableRun(run: RunRecord, ctx: Pick<HandlerContext, 'store'>, format: string, signal?: AbortSignal): Promise<ExportableRun> {
  return {
    id: run.id,
    name: run.name,
    engine: run.engine,
    status: run.status,
    error: run.error,
    log: run.log,
    seed: run.seed,
    threads: run.threads,
    params: run.params,
    metrics: run.metrics,
    series: writesSeries(format) ? await inTurns(ctx.store.seriesInSteps(run.id), signal) : [],
    artifacts: ctx.store.artifacts(run.id).map((a) => ({ kind: a.kind, name: a.name, path: a.path })),
  };
}

/**
 * Why a run cannot be exported in this format, or null. A done run has its results and artifacts
 * stored. A failed or cancelled run keeps its metrics, series and log but no artifacts, so it exports
 * in the formats that need only those ('results'); an artifact format names why it has none. A queued,
 * running or paused run has no results recorded yet (its export would be the spec with empty results,
 * mistaken for an outcome). The CLI's export, runs.export and the web host's download route ask the same.
 */
export function notExportable(run: Pick<RunRecord, 'id' | 'status' | 'error'>, spec: Pick<ExportFormat, 'id' | 'needs'>): string | null {
  if (run.status === 'done') return null;
  const state = `run ${run.id} is ${run.status}${run.error ? ` (${run.error})` : ''}`;
  if (run.status !== 'failed' && run.status !== 'cancelled') return `${state}: only a run that has ended (done, failed or cancelled) can be exported`;
  if (spec.needs === 'results') return null;
  const results = EXPORT_FORMATS.filter((f) => f.needs === 'results').map((f) => f.id).join(', ');
  return `${state}: it kept no artifacts, which format '${spec.id}' needs; its metrics, series and log export as ${results}`;
}

/**
 * Exports a run to a file under the data directory's tmp/ and hands the path to `use`, then removes
 * it; one of ctx.heavy's turns from start to end. `signal` aborted (the client that asked has gone)
 * skips the export when its turn comes, or stops it where it is (exportRun): it may take minutes of
 * a turn others wait for, and its bytes would go nowhere.
 */
export function withExport<T>(ctx: HandlerContext, id: string, format: string, use: (path: string, fileName: string, mime: string) => Promise<T>, signal?: AbortSignal): Promise<T> {
  return ctx.heavy.run(() => {
    if (signal?.aborted) throw new ApiError('unavailable', `the export of run ${id} as ${format} is no longer wanted: its client has gone`);
    return exportOnce(ctx, id, format, use, signal);
  });
}

/**
 * The run and format of an export asked for, checked: the run exists, the format is one and applies
 * to the run's status, and the run has the artifact it needs (from the records alone, before any export is made, a
 * save dialog is shown or a HEAD is answered).
 */
function exportTarget(ctx: Pick<HandlerContext, 'store'>, id: string, format: string): { run: RunRecord; spec: ExportFormat } {
  const run = ctx.store.getRun(id);
  if (!run) throw new ApiError('not_found', `no run with id '${id}'`);
  const spec = EXPORT_FORMATS.find((x) => x.id === format);
  if (!spec) {
    throw new ApiError('invalid', `unknown export format '${format}'; allowed: ${EXPORT_FORMATS.map((x) => x.id).join(', ')}`, [
      { path: 'format', message: `must be one of ${EXPORT_FORMATS.map((x) => x.id).join(', ')}` },
    ]);
  }
  const unfinished = notExportable(run, spec);
  if (unfinished) throw new ApiError('conflict', unfinished);
  const lacking = lackingData({ id, artifacts: ctx.store.artifacts(id) }, spec);
  if (lacking) throw new ApiError('conflict', `cannot export run ${id} as ${format}: ${lacking}`);
  return { run, spec };
}

/**
 * The name and type withExport would hand over, from the same checks, without making the export (the
 * web host's answer to HEAD: its length is known only once the export is made, and HTTP lets HEAD omit it).
 */
export function exportHeaders(ctx: Pick<HandlerContext, 'store'>, id: string, format: string): { fileName: string; mime: string } {
  const { run, spec } = exportTarget(ctx, id, format);
  return downloadFile(run, spec);
}

async function exportOnce<T>(ctx: HandlerContext, id: string, format: string, use: (path: string, fileName: string, mime: string) => Promise<T>, signal?: AbortSignal): Promise<T> {
  const { run } = exportTarget(ctx, id, format);
  // Beside the runs (the same disk, so a big export's size is the data folder's business), or in the
  // OS's temporary folder when the data folder cannot be written.
  const dir = mkdtempSync(join(ctx.readOnlyBecause === null ? ctx.dataDir : tmpdir(), `tmp-export-${ownerTag()}-`));
  exportsUnderWay.add(dir);
  try {
    let file: { path: string; fileName: string; mime: string };
    try {
      file = await exportForDownload(await exportableRun(run, ctx, format, signal), format, dir, signal);
    } catch (err) {
      signal?.throwIfAborted(); // abandoned, not failed
      throw new ApiError('conflict', `cannot export run ${id} as ${format}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return await use(file.path, file.fileName, file.mime);
  } finally {
    exportsUnderWay.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The export folders of this process's exports under way (of any services it opened). */
const exportsUnderWay = new Set<string>();

/**
 * Removes the export folders (exportOnce's) that processes of this machine left in the data folder
 * when they ended mid-export (a crash, a kill during a multi-gigabyte download): those of a process
 * that has ended (ownerState), and those of this process's pid but for its exports under way (the others are
 * an earlier process's with the same pid). Another machine's (a folder on a shared disk) stay: its processes cannot be asked.
 */
export function removeLeftExports(dataDir: string): void {
  const pattern = new RegExp(`^tmp-export-(${OWNER_TAG})-.{6}$`);
  for (const name of readdirSync(dataDir)) {
    const m = pattern.exec(name);
    const owner = m && parseOwnerTag(m[1]);
    if (!owner || ownerState(owner, 'ended') !== 'ended' || exportsUnderWay.has(join(dataDir, name))) continue;
    rmSync(join(dataDir, name), { recursive: true, force: true });
  }
}

/**
 * Runs an import task in a worker (one of ctx.heavy's turns, under the memory budget). What the
 * parsers reject is bad input naming `what` (the file), not a fault of ours; a task too big for the
 * budget is refused before it starts. `signal` aborted (the client that asked has gone) skips it
 * when its turn comes, or ends its worker: nothing is stored. A sphere import tells `onProgress` how far it is.
 */
function importing(ctx: HandlerContext, what: string, task: ImportTask, signal?: AbortSignal, onProgress?: (p: ImportProgress) => void): Promise<ImportResult> {
  return ctx.heavy.run(async () => {
    try {
      return await ctx.pool.task<ImportResult, ImportProgress>(IMPORT_WORKER, task, importTaskBytes(task), 'refuse', signal, onProgress);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof BudgetError) throw new ApiError(err.busy ? 'unavailable' : 'invalid', `${what}: the import ${message}`);
      if ((err as { taskFailed?: boolean }).taskFailed) throw new ApiError('invalid', `${what}: ${message}`);
      throw err;
    }
  });
}

const shapeOf = (r: ImportResult): VoxelShapeImport => {
  if (r.kind !== 'shape') throw new Error(`import task gave ${r.kind}, not a shape`);
  return r.shape;
};

const baseName = (file: string): string => file.replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, '') || 'Imported shape';

/**
 * Deletes run `id` with its files: History's delete in the app and the web host (runs.delete) and
 * `packbench runs rm`. On a full disk the folder is open read-only (SQLite has no room for its
 * shared-memory file), where the record cannot go, and the user could not free the space PackBench's
 * own runs take: the run's files go first (JobQueue.deleteFilesFirst), then services that can write,
 * opened now that they made room, remove its record at their opening (JobQueue.finishRemovals). When
 * the folder still cannot be written, the record goes when PackBench next opens it for writing.
 */
export async function deleteRun(ctx: HandlerContext, id: string): Promise<Methods['runs.delete']['result']> {
  // A read-only folder that is not full, or a run with no files: refused as any write is, saying why.
  if (ctx.readOnlyBecause === null || !isFullDisk(ctx.readOnlyCode) || !ctx.queue.deleteFilesFirst(id)) {
    await ctx.queue.deleteRun(id);
    return { filesFirst: false, recordLeft: null };
  }
  const writer = await ctx.openForWriting();
  try {
    if (writer.readOnlyBecause !== null) return { filesFirst: true, recordLeft: writer.readOnlyBecause };
    // Its opening removed it; a removal that failed there (logged) says why here.
    if (writer.store.getSummary(id)) await writer.queue.deleteRun(id);
  } finally {
    await writer.close();
  }
  ctx.queue.removedByWriter();
  return { filesFirst: true, recordLeft: null };
}

export function createHandlers(ctx: HandlerContext): Handlers {
  const { store, queue, shapes, registry } = ctx;
  const mustRun = (id: string) => {
    const r = store.getRun(id);
    if (!r) throw new ApiError('not_found', `no run with id '${id}'`);
    return r;
  };
  /** Adds an imported shape to the library under `name`, or `name 2`, `name 3`, ... when taken; not once `signal` is aborted (the import cancelled). */
  const addImported = (name: string, imported: VoxelShapeImport, signal?: AbortSignal): ShapeImportResult => {
    signal?.throwIfAborted();
    const taken = new Set(shapes.list().map((x) => x.name));
    let unique = name;
    for (let i = 2; taken.has(unique); i++) unique = `${name} ${i}`;
    const { shape, ...measured } = imported;
    return { shape: shapes.create(unique, shape), ...measured };
  };
  return {
    'app.info': () => ({
      version: ctx.appVersion,
      dataDir: ctx.dataDir,
      cores: availableParallelism(),
      totalMemoryBytes: totalmem(),
      platform: process.platform,
      electron: ctx.electron,
      readOnlyBecause: ctx.readOnlyBecause,
      fullDisk: ctx.readOnlyBecause !== null && isFullDisk(ctx.readOnlyCode),
      recoveredRuns: ctx.recovered.length,
    }),
    'engines.list': () => registry.info(),

    'shapes.list': () => shapes.list(),
    'shapes.create': (p) => shapes.create(p.name, p.shape, p.voxelisation),
    'shapes.update': (p) => shapes.update(p.id, p.name, p.shape, p.voxelisation),
    'shapes.duplicate': (p) => shapes.duplicate(p.id, p.name),
    'shapes.delete': (p) => (shapes.delete(p.id), {}),
    'shapes.preview': async (p, signal) => {
      const shape = checkPreview(p.shape, p.size, p.resolution);
      // In a worker, not in a heavy turn: the editor asks on every edit and should not wait behind an export.
      const task: ImportTask = { kind: 'preview', shape, size: p.size, resolution: p.resolution, reductionThreshold: p.reductionThreshold };
      const r = await ctx.pool.task<ImportResult>(IMPORT_WORKER, task, importTaskBytes(task), 'refuse', signal).catch((err: unknown) => {
        if (err instanceof BudgetError) throw new ApiError(err.busy ? 'unavailable' : 'invalid', `the preview ${err.message}`);
        throw err;
      });
      if (r.kind !== 'preview') throw new Error(`preview task gave ${r.kind}`);
      return r.preview;
    },
    'shapes.importMesh': async (p, signal) => {
      // Each option at its field with its range, and one of the two at 'resolution' (the issue had no path).
      const options = parseStrict(meshImportOptionsSchema, { resolution: p.resolution, voxelsAcross: p.voxelsAcross }, '') as MeshImportOptions;
      const imported = await importing(ctx, p.fileName, { kind: 'mesh', bytes: p.bytes, fileName: p.fileName, options }, signal);
      return addImported(p.name ?? baseName(p.fileName), shapeOf(imported), signal);
    },
    'shapes.importRaw': async (p, signal) => {
      const imported = await importing(ctx, p.fileName, { kind: 'raw', bytes: p.bytes, header: p.header, fileName: p.fileName }, signal);
      return addImported(p.name ?? baseName(p.fileName), shapeOf(imported), signal);
    },

    'presets.list': (p) => {
      // A misspelt engine would list no presets, as if there were none.
      if (p.engine !== undefined) registry.get(p.engine);
      return store.listPresets(p.engine);
    },
    'presets.save': async (p) => {
      // The checks of runs.enqueue: a preset is a spec to queue later, and one it would refuse is no use.
      await queue.validate(p.spec);
      return store.savePreset(p.name, p.spec);
    },
    'presets.delete': (p) => {
      if (!store.deletePreset(p.id)) throw new ApiError('not_found', `no preset with id '${p.id}'`);
      return {};
    },

    'runs.enqueue': async (p) => {
      const rows = await queue.validate(p.spec, p.priority);
      const warnings = await registry.warnings(p.spec.engine, rows, 'spec');
      return { ...(await queue.add(p.spec, rows, p.batchName)), warnings };
    },
    'runs.validate': async (p, signal) => {
      // A check whose answer nobody will read (its client has gone) stops: a sweep's takes seconds.
      const rows = await queue.validate(p.spec, 0, 'spec', signal);
      return { runs: rows.length, ...queue.memoryEstimate(rows), warnings: await registry.warnings(p.spec.engine, rows, 'spec') };
    },
    'runs.list': (p) => {
      if (p.filter?.engine !== undefined) registry.checkRunEngine(p.filter.engine, 'filter.engine');
      return store.listRuns(p);
    },
    'runs.metricNames': () => store.metricNames(),
    'batches.list': (p) => store.listBatches(p),
    'runs.get': (p) => mustRun(p.id),
    'runs.series': async (p, signal) => {
      const run = mustRun(p.id);
      // A running run's series so far: those its latest published table carries (EngineContext.publish).
      return (run.status === 'running' ? readLiveSeries(queue.runDir(p.id)) : null) ?? (await inTurns(store.seriesInSteps(p.id), signal));
    },
    'runs.artifacts': (p) => (mustRun(p.id), store.artifacts(p.id)),
    'runs.particles': async (p, signal) => {
      const run = mustRun(p.id), artifacts = store.artifacts(p.id);
      // A running run shows the latest table its engine published (EngineContext.publish).
      const live = run.status === 'running' && !artifacts.some((a) => a.kind === 'table') ? await readLiveParticles(queue.runDir(p.id), p.limit, signal) : null;
      return live ?? readParticles(artifacts, p.limit, signal);
    },
    'runs.frame': (p) => (mustRun(p.id), readFrame(store.artifacts(p.id), p.table, p.index)),
    'runs.slice': (p, signal) => (mustRun(p.id), readSlice(store.artifacts(p.id), p.axis, p.index, signal)),
    'runs.pause': (p) => queue.pauseRun(p.id),
    'runs.resume': (p) => queue.resumeRun(p.id),
    'runs.cancel': (p) => queue.cancelRun(p.id),
    'runs.stop': (p) => queue.stopRun(p.id),
    'runs.rerun': (p) => {
      if (mustRun(p.id).engine === SPHERE_IMPORT_ENGINE) {
        throw new ApiError('conflict', `run ${p.id} is an imported sphere set (engine '${SPHERE_IMPORT_ENGINE}'): nothing to re-run; import the CSV again with other options instead`);
      }
      return queue.rerun(p.id, p.overrides, p.seed);
    },
    'runs.delete': (p) => deleteRun(ctx, p.id),
    'runs.setPriority': (p) => queue.setPriority(p.id, p.priority),
    'runs.export': (p, signal) =>
      withExport(ctx, p.id, p.format, async (path, fileName, mime) => {
        // By the size on disk, so that a multi-gigabyte export is never read into the host's memory.
        const size = statSync(path).size;
        const limit = ctx.maxApiExportBytes ?? MAX_API_EXPORT_BYTES;
        if (size > limit) {
          // Not a failure: the browser takes it from the web host's download route, the app saves it
          // with runs.saveExport, a script with the command line (with the data folder: the app or host may use --data).
          const cli = `packbench runs export ${p.id} --format ${p.format} --data "${ctx.dataDir}" --out FILE`;
          throw new ApiError('too_large', `the export is ${size} bytes, more than one API message carries (${limit} bytes): use the download link, or write it with ${cli}`);
        }
        // Read without holding the host's thread: up to 256 MiB.
        const bytes = await readFile(path, { signal });
        return { fileName, mime, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
      }, signal),
    'runs.saveExport': async (p) => {
      const choose = ctx.chooseSavePath;
      if (!choose) throw new ApiError('unavailable', 'saving an export to a file is the app\'s (it asks where); here, use runs.export, the download link or `packbench runs export`');
      // exportTarget says a format the run has no data for before the user picks a file for it.
      const { run, spec } = exportTarget(ctx, p.id, p.format);
      const path = await choose(exportFileName(run, spec));
      if (path === null) return { files: [], bytes: 0 };
      return ctx.heavy.run(async () => {
        let last = 0;
        const progress = (fraction: number) => {
          const now = Date.now();
          if (fraction < 1 && now - last < 250) return;
          last = now;
          ctx.events.emit('export.progress', { id: p.id, format: p.format, path, fraction });
        };
        try {
          const written = await exportRun(await exportableRun(run, ctx, p.format), p.format, path, progress);
          return { files: spec.id === 'raw' ? [path, `${path}.json`] : [path], bytes: written.bytes };
        } catch (err) {
          // exportRun leaves nothing behind on failure, and never touches a file already at `path`.
          throw new ApiError('conflict', `cannot export run ${p.id} as ${p.format} to ${path}: ${err instanceof Error ? err.message : String(err)}`);
        }
      });
    },

    'runs.importSpheres': async (p, signal) => {
      const analysis = sphereImportAnalysis(p.analysis);
      const task: ImportTask = { kind: 'spheres', csv: p.csv, source: p.source, box: p.box, analysis };
      const imported = await importing(ctx, p.source || 'sphere CSV', task, signal, (progress) => ctx.events.emit('import.progress', { name: p.name, source: p.source, ...progress }));
      if (imported.kind !== 'spheres') throw new Error(`import task gave ${imported.kind}, not spheres`);
      // Cancelled (or its client gone) while the worker's answer came: nothing is stored.
      signal?.throwIfAborted();
      const run = recordSphereRun(store, queue, imported.spheres, { name: p.name, source: p.source }, queue.origin(1));
      // Runs normally reach open windows through the queue's events; an import skips the queue.
      ctx.events.emit('run.updated', run);
      return run;
    },

    'exports.formats': () => exportFormatList(),

    'queue.state': () => queue.state(),
    'queue.pause': () => queue.pause(),
    'queue.resume': () => queue.resume(),
    'queue.setConcurrency': (p) => queue.setConcurrency(p.concurrency),
    'queue.setThreadsPerRun': (p) => queue.setThreadsPerRun(p.threads),
    'queue.setCheckpointSeconds': (p) => queue.setCheckpointSeconds(p.seconds),
  };
}

/** `signal`: aborted once the client that asked has gone, or its renderer aborted the call (Handlers). */
export type Dispatch = <M extends MethodName>(method: M, params: unknown, signal?: AbortSignal) => Promise<Methods[M]['result']>;

/**
 * Validates and runs one call; every failure becomes an ApiError. Bad input is 'invalid' only as the
 * services say so (ApiError('invalid') naming the field): any other error is a fault of ours
 * ('internal', its stack in the log), a RangeError too (a typed array's inside a service is no
 * fault of the caller's input). A call that ends after its signal was aborted was abandoned, not
 * failed: 'unavailable', nothing logged; one its renderer aborted (main/calls.ts) rejects with that
 * 'cancelled' reason, whatever its handler threw on the way out.
 */
export function createDispatch(handlers: Handlers): Dispatch {
  return async (method, params, signal) => {
    if (!Object.prototype.hasOwnProperty.call(handlers, method)) throw unknownMethod(method);
    const parsed = parseParams(method, params);
    try {
      return await (handlers[method] as (p: unknown, signal?: AbortSignal) => unknown)(parsed, signal) as Methods[typeof method]['result'];
    } catch (err) {
      if (signal?.aborted && signal.reason instanceof ApiError && signal.reason.code === 'cancelled') throw signal.reason;
      if (signal?.aborted && !(err instanceof ApiError)) throw new ApiError('unavailable', `${method} was abandoned: the client that asked has gone`);
      if (err instanceof ApiError) throw err;
      const fault = storageFault(err);
      if (fault) throw fault;
      console.error(`packbench: ${method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      throw new ApiError('internal', err instanceof Error ? err.message : String(err));
    }
  };
}

const STORAGE_FAULTS: Record<string, string> = {
  SQLITE_FULL: 'the disk of the data folder is full',
  ENOSPC: 'the disk of the data folder is full',
  SQLITE_READONLY: 'the data folder is read-only',
  EROFS: 'the data folder is read-only',
  EACCES: 'no permission to write in the data folder',
  EPERM: 'no permission to write in the data folder',
  EDQUOT: 'the disk quota of the data folder is used up',
  SQLITE_CANTOPEN: 'the database of the data folder cannot be opened for writing',
  SQLITE_BUSY: 'the database is locked by another process; try again',
};

/** What a data-folder fault code means to the user ("the disk of the data folder is full"); undefined for other codes. */
export function storageFaultMeaning(code: unknown): string | undefined {
  if (typeof code !== 'string') return undefined;
  // SQLite reports a full or failing disk as one of its I/O error variants (SQLITE_IOERR_WRITE, ...).
  return STORAGE_FAULTS[code] ?? (code.startsWith('SQLITE_IOERR') ? 'the disk of the data folder is full or failing' : undefined);
}

/** Fault codes of a full disk or a used-up quota (SQLite's I/O errors aside: isFullDisk). */
const FULL_DISK = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/**
 * Whether a data-folder fault code may mean its disk (or quota) is full: SQLite reports a full disk
 * as one of its I/O errors too (SQLITE_IOERR_SHMSIZE when it cannot grow its shared-memory file).
 */
export function isFullDisk(code: unknown): boolean {
  return typeof code === 'string' && (FULL_DISK.has(code) || code.startsWith('SQLITE_IOERR'));
}

/** Faults of the data folder (disk full, read-only, locked) as errors the user can act on; null for others. */
export function storageFault(err: unknown): ApiError | null {
  const code = (err as { code?: unknown } | null)?.code;
  const what = storageFaultMeaning(code);
  return what ? new ApiError('unavailable', `${what} (${code}): ${(err as Error).message}`) : null;
}
