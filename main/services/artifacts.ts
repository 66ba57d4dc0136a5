/**
 * Reading a run's artifacts back for the renderer: the particle table decimated to a row budget,
 * and one slice of a label volume read straight from the .pbv file (a z slice is one contiguous
 * read; x and y slices read one row per z plane), so that a 2048^3 volume is never loaded whole.
 */
import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeHeader, decodeTableInSteps, dtypeConstructor, headerByteLength, TABLE_MAGIC, VOLUME_MAGIC, type TableHeader, type VolumeHeader } from '../../core/io/container';
import { frameOrigin, inOwnCoordinates } from '../../core/io/frame';
import { LIVE_TABLE_FILE } from '../workers/protocol';
import type { ColumnTable } from '../../core/common/engine';
import { ApiError, type RunArtifact, type RunSeries } from '../api';
import { inTurns, nextTurn } from './turns';

type Column = ColumnTable['columns'][string];

/**
 * At most `limit` rows, evenly spaced: row i of the result is row floor(i * total / count) of the
 * table; a column at a time, letting others through between them.
 */
export async function decimateTable(table: ColumnTable, limit: number): Promise<{ total: number; count: number; columns: Record<string, Column> }> {
  const names = Object.keys(table.columns);
  const total = names.length ? table.columns[names[0]].length : 0;
  if (total <= limit) return { total, count: total, columns: table.columns };
  const count = limit;
  const columns: Record<string, Column> = {};
  for (const name of names) {
    const src = table.columns[name];
    const dst = new (src.constructor as { new (n: number): Column })(count);
    for (let i = 0; i < count; i++) dst[i] = src[Math.floor((i * total) / count)];
    columns[name] = dst;
    await nextTurn();
  }
  return { total, count, columns };
}

/** An artifact's file removed outside PackBench is not_found naming it, not a fault of ours; other errors of opening it pass. */
function missingArtifact(a: RunArtifact, err: unknown): unknown {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return err;
  return new ApiError('not_found', `the ${a.kind} '${a.name}' of this run is missing from the data folder (${a.path}); was it removed outside PackBench?`);
}

/**
 * A file whose content cannot be read (a damaged or truncated header or data, as the container's
 * decoders and the size checks here say) is 'conflict' naming the artifact and its path: the file is
 * at fault, not the services. System errors of the read (and an abort) pass as they are.
 */
function damagedArtifact(a: RunArtifact, err: unknown): unknown {
  if (err instanceof ApiError || !(err instanceof Error) || 'syscall' in err || err.name === 'AbortError') return err;
  return new ApiError('conflict', `the ${a.kind} '${a.name}' of this run is damaged (${a.path}): ${err.message}`);
}

/** Reads an artifact's file with `read` (missingArtifact, damagedArtifact); the file is closed when it has done. */
async function readArtifact<T>(a: RunArtifact, read: (fd: number) => T | Promise<T>): Promise<T> {
  let fd: number;
  try {
    fd = openSync(a.path, 'r');
  } catch (err) {
    throw missingArtifact(a, err);
  }
  try {
    return await read(fd);
  } catch (err) {
    throw damagedArtifact(a, err);
  } finally {
    closeSync(fd);
  }
}

/**
 * A table artifact's file, read without holding the host's thread: read by fs/promises, decoded in
 * steps (decodeTableInSteps, a turn each). Errors as readArtifact's.
 */
async function readTableArtifact(a: RunArtifact, signal?: AbortSignal): Promise<ColumnTable> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(a.path, { signal });
  } catch (err) {
    throw missingArtifact(a, err);
  }
  try {
    return await inTurns(decodeTableInSteps(bytes), signal);
  } catch (err) {
    throw damagedArtifact(a, err);
  }
}

/** Fails naming the bytes a read needs when the file is shorter (readSync would leave the rest zero). */
function needBytes(fd: number, bytes: number): void {
  const size = fstatSync(fd).size;
  if (bytes > size) throw new Error(`artifact data is truncated: needs ${bytes} bytes, the file has ${size}`);
}

/**
 * Rows as served: positions in the run's own coordinates, as the exports write them (a surface
 * sampling's table is stored in the frame of its solid's box, meta.offset away: core/io/frame.ts).
 * The box [0, meta.box] and the volume (runs.artifacts: dims, voxelSize, offset) start at meta.offset.
 */
function served(rows: { total: number; count: number; columns: Record<string, Column> }, meta: Record<string, unknown>): Particles {
  if (!frameOrigin(meta)) return { ...rows, meta };
  const { columns } = inOwnCoordinates({ kind: 'table', name: '', columns: rows.columns, meta });
  return { ...rows, columns, meta: { ...meta, positions: "the run's own coordinates; the box and the volume start at offset" } };
}

type Particles = { total: number; count: number; columns: Record<string, Column>; meta: Record<string, unknown> };

/** `signal`: aborted once the client that asked has gone (the read stops between steps). */
export async function readParticles(artifacts: RunArtifact[], limit: number, signal?: AbortSignal): Promise<Particles> {
  const a = artifacts.find((x) => x.kind === 'table' && x.name === 'particles') ?? artifacts.find((x) => x.kind === 'table');
  if (!a) throw new ApiError('not_found', 'this run has no particle table');
  const table = await readTableArtifact(a, signal);
  // The declaration of the table's columns: written into the file by the worker, and added to the
  // stored record alone by migration 3 for tables written before engines declared them.
  const particleTable = a.meta.particleTable ?? table.meta?.particleTable;
  return served(await decimateTable(table, limit), { ...table.meta, ...(particleTable ? { particleTable } : {}) });
}

/**
 * The latest particle table a running run published (EngineContext.publish), decimated like
 * readParticles, with meta.live = true; null when it has published none.
 */
export async function readLiveParticles(runDir: string, limit: number, signal?: AbortSignal): Promise<Particles | null> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(join(runDir, LIVE_TABLE_FILE), { signal });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // none published yet, or the run has just ended and its table is gone
    throw err;
  }
  const table = await inTurns(decodeTableInSteps(bytes), signal);
  // Its series go through runs.series (readLiveSeries), not with every refresh of the particles.
  const meta: Record<string, unknown> = { ...table.meta, live: true };
  delete meta.series;
  return served(await decimateTable(table, limit), meta);
}

/**
 * The series so far of a running run: those its latest published table carries (meta.series, see
 * core/common/engine.ts "Table meta"), read from the file's header alone; null when it has published
 * none (or none with series). A series whose x and y differ in length is left out.
 */
export function readLiveSeries(runDir: string): RunSeries[] | null {
  let fd: number;
  try {
    fd = openSync(join(runDir, LIVE_TABLE_FILE), 'r');
  } catch {
    return null; // none published yet, or the run has just ended and its table is gone
  }
  try {
    const list = readHeader<TableHeader>(fd, TABLE_MAGIC).header.meta.series;
    if (!Array.isArray(list)) return null;
    return list
      .filter((s) => Array.isArray(s?.x) && Array.isArray(s?.y) && s.x.length === s.y.length)
      .map((s) => ({ name: String(s.name), xLabel: String(s.xLabel ?? ''), yLabel: String(s.yLabel ?? ''), kind: s.kind === 'bar' ? 'bar' : 'line', x: Float64Array.from(s.x), y: Float64Array.from(s.y) }));
  } finally {
    closeSync(fd);
  }
}

/** Fills `into` from the file at `position` without holding the thread (needBytes has checked the file holds it). */
function readPlane(fd: number, into: Uint8Array, position: number): Promise<void> {
  return new Promise((done, fail) => {
    const more = (at: number) => read(fd, into, at, into.length - at, position + at, (err, bytesRead) => {
      if (err) fail(err);
      else if (bytesRead === 0) fail(new Error(`artifact data ended early at byte ${position + at}`));
      else if (at + bytesRead < into.length) more(at + bytesRead);
      else done();
    });
    more(0);
  });
}

function readHeader<H>(fd: number, magic: string): { header: H; dataOffset: number } {
  const pre = new Uint8Array(12);
  readSync(fd, pre, 0, 12, 0);
  const head = new Uint8Array(headerByteLength(pre, fstatSync(fd).size, 'artifact'));
  readSync(fd, head, 0, head.length, 0);
  return decodeHeader<H>(head, magic);
}

/**
 * Frame `index` of a table of frames (meta: frames, frameRows; core/common/engine.ts, "Table meta"):
 * reads only that frame's rows of each column from the file, so a run of a thousand frames is paged
 * through without loading it whole. The frame's meta is the table's, without the per-frame arrays.
 */
export function readFrame(artifacts: RunArtifact[], name: string, index: number): Promise<{ index: number; frames: number; time: number; offset: number; columns: Record<string, Column>; meta: Record<string, unknown> }> {
  const a = artifacts.find((x) => x.kind === 'table' && x.name === name);
  if (!a) throw new ApiError('not_found', `this run has no table '${name}'`);
  return readArtifact(a, (fd) => {
    const { header, dataOffset } = readHeader<TableHeader>(fd, TABLE_MAGIC);
    const { frameTimes, frameOffsets, ...meta } = header.meta as { frameTimes?: number[]; frameOffsets?: number[]; frames?: number; frameRows?: number };
    const frames = Number(meta.frames), rows = Number(meta.frameRows);
    if (!(frames > 0 && rows > 0 && frames * rows === header.rows)) throw new ApiError('invalid', `table '${name}' holds no frames (meta.frames × meta.frameRows must be its ${header.rows} rows)`);
    if (index >= frames) throw new ApiError('invalid', `index ${index} is outside the table: frames are 0..${frames - 1}`, [{ path: 'index', message: `must be in [0, ${frames - 1}]` }]);
    const columns: Record<string, Column> = {};
    for (const col of header.columns) {
      const ctor = dtypeConstructor(col.dtype);
      needBytes(fd, dataOffset + col.byteOffset + header.rows * ctor.BYTES_PER_ELEMENT);
      const out = new ctor(rows);
      readSync(fd, new Uint8Array(out.buffer, out.byteOffset, out.byteLength), 0, out.byteLength, dataOffset + col.byteOffset + index * rows * ctor.BYTES_PER_ELEMENT);
      columns[col.name] = out;
    }
    const shown = served({ total: rows, count: rows, columns }, meta);
    return { index, frames, time: frameTimes?.[index] ?? index, offset: frameOffsets?.[index] ?? 0, columns: shown.columns, meta: shown.meta };
  });
}

/**
 * An x slice needs a value of every row of the volume: it reads the volume a z plane at a time,
 * asynchronously, a turn each (a 1024³ volume is 4 GiB to read, seconds that held every other call),
 * and stops once `signal` is aborted (its client has gone).
 */
export function readSlice(artifacts: RunArtifact[], axis: 'x' | 'y' | 'z', index: number, signal?: AbortSignal): Promise<{ axis: 'x' | 'y' | 'z'; index: number; width: number; height: number; labels: Uint32Array }> {
  const a = artifacts.find((x) => x.kind === 'volume');
  if (!a) throw new ApiError('not_found', 'this run has no label volume');
  return readArtifact(a, async (fd) => {
    const { header, dataOffset } = readHeader<VolumeHeader>(fd, VOLUME_MAGIC);
    const [nx, ny, nz] = header.dims;
    const n = { x: nx, y: ny, z: nz }[axis];
    if (index >= n) {
      throw new ApiError('invalid', `index ${index} is outside the volume: ${axis} slices are 0..${n - 1}`, [{ path: 'index', message: `must be in [0, ${n - 1}]` }]);
    }
    needBytes(fd, dataOffset + nx * ny * nz * 4);
    // Slice images: z → (x, y); y → (x, z); x → (y, z); first coordinate fastest.
    if (axis === 'z') {
      const labels = new Uint32Array(nx * ny);
      readSync(fd, new Uint8Array(labels.buffer), 0, labels.byteLength, dataOffset + index * nx * ny * 4);
      return { axis, index, width: nx, height: ny, labels };
    }
    if (axis === 'y') {
      const labels = new Uint32Array(nx * nz);
      const bytes = new Uint8Array(labels.buffer);
      for (let z = 0; z < nz; z++) readSync(fd, bytes, z * nx * 4, nx * 4, dataOffset + ((z * ny + index) * nx) * 4);
      return { axis, index, width: nx, height: nz, labels };
    }
    // x: one value per (y, z); read each z plane's column by reading the plane in rows.
    const labels = new Uint32Array(ny * nz);
    const plane = new Uint32Array(nx * ny);
    const planeBytes = new Uint8Array(plane.buffer);
    for (let z = 0; z < nz; z++) {
      await readPlane(fd, planeBytes, dataOffset + z * nx * ny * 4);
      signal?.throwIfAborted();
      for (let y = 0; y < ny; y++) labels[z * ny + y] = plane[y * nx + index];
    }
    return { axis, index, width: ny, height: nz, labels };
  });
}
