/**
 * A run's checkpoint on disk (EngineContext.checkpoints): `checkpoint.pbc` in the run's folder, a
 * container (core/io/container.ts) with magic 'PBCHECK1': a JSON header holding the engine's meta
 * and the list of its arrays, then the arrays' bytes, each at its byteOffset from the data start.
 *
 * Saving writes a temporary file in full, flushes it to the disk (fsync), renames it over the
 * previous checkpoint and flushes the folder: a process killed at any moment (kill -9 included)
 * leaves either the previous checkpoint or the new one, never a torn file under the real name.
 * A temporary file left by such a kill is ignored, and removed by the next save.
 */
import { closeSync, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpoint, CheckpointStore } from '../../core/common/engine';
import { decodeHeader, dtypeOf, DTYPES, encodeHeader, type DType } from '../../core/io/container';

export const CHECKPOINT_MAGIC = 'PBCHECK1';
export const CHECKPOINT_FILE = 'checkpoint.pbc';

interface CheckpointHeader {
  meta: Record<string, unknown>;
  arrays: { name: string; dtype: DType; length: number; byteOffset: number }[];
}

/** Bytes written per call: large arrays go out in pieces, without a second copy. */
const PIECE = 16 << 20;

/**
 * Writes all of `bytes` at the file's position. One writeSync may write only part (a disk that fills
 * up part-way returns the count written, without an error); the next call then throws ENOSPC.
 */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, Math.min(PIECE, bytes.length - at));
}

/**
 * Writes `path` through `write` into `path + suffix`, then renames it over `path`: a reader never
 * sees half a file. A write that fails (a full disk) removes its part, which held the room the
 * run's results need, and throws.
 */
export function replaceFile(path: string, suffix: string, write: (fd: number) => void): void {
  const part = `${path}${suffix}`;
  try {
    const fd = openSync(part, 'w');
    try {
      write(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(part, path);
  } catch (err) {
    rmSync(part, { force: true });
    throw err;
  }
}

/** Writes `c` to `file` atomically (temporary file, fsync, rename, fsync of the folder). */
export function saveCheckpoint(dir: string, c: Checkpoint, file = CHECKPOINT_FILE): void {
  const arrays: CheckpointHeader['arrays'] = [];
  let offset = 0;
  for (const [name, a] of Object.entries(c.arrays)) {
    arrays.push({ name, dtype: dtypeOf(a), length: a.length, byteOffset: offset });
    offset += Math.ceil(a.byteLength / 8) * 8;
  }
  const head = encodeHeader(CHECKPOINT_MAGIC, { meta: c.meta, arrays } satisfies CheckpointHeader);
  replaceFile(join(dir, file), '.tmp', (fd) => {
    writeAll(fd, head);
    const pad = new Uint8Array(8);
    for (const a of Object.values(c.arrays)) {
      writeAll(fd, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      if (a.byteLength % 8 !== 0) writeAll(fd, pad.subarray(0, 8 - (a.byteLength % 8)));
    }
    fsyncSync(fd);
  });
  // The rename itself reaches the disk only with the folder.
  const dfd = openSync(dir, 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/** The checkpoint in `dir`, or null when there is none. A file that cannot be read is an error. */
export function loadCheckpoint(dir: string, file = CHECKPOINT_FILE): Checkpoint | null {
  const path = join(dir, file);
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  try {
    const first = new Uint8Array(12);
    if (readSync(fd, first, 0, 12, 0) !== 12) throw new Error(`${path}: not a checkpoint (too short)`);
    const headerBytes = new DataView(first.buffer).getUint32(8, true);
    const head = new Uint8Array(12 + headerBytes);
    readSync(fd, head, 0, head.length, 0);
    const { header, dataOffset } = decodeHeader<CheckpointHeader>(head, CHECKPOINT_MAGIC);
    const arrays: Checkpoint['arrays'] = {};
    for (const e of header.arrays) {
      const a = new DTYPES[e.dtype](e.length);
      const bytes = new Uint8Array(a.buffer);
      for (let at = 0; at < bytes.length;) {
        const n = readSync(fd, bytes, at, Math.min(PIECE, bytes.length - at), dataOffset + e.byteOffset + at);
        if (n === 0) throw new Error(`${path}: truncated in array '${e.name}'`);
        at += n;
      }
      arrays[e.name] = a;
    }
    return { meta: header.meta, arrays };
  } finally {
    closeSync(fd);
  }
}

/** Removes the run's checkpoint (and a temporary file a kill left): the run is over. */
export function removeCheckpoint(dir: string, file = CHECKPOINT_FILE): void {
  rmSync(join(dir, file), { force: true });
  rmSync(join(dir, `${file}.tmp`), { force: true });
}

/**
 * A write a running run makes beside its work (its checkpoint, its live table), whose failure (a
 * full disk) must not fail the run: a checkpoint insures the work, a live table only shows it. The
 * failure is said through `log` once until such a write works again (else one line each time), and
 * the run goes on. `otherwise`: what the user has instead.
 */
export function besideTheWork(what: string, otherwise: string, log: (line: string) => void): (write: () => void) => void {
  let failing = false;
  return (write) => {
    try {
      write();
      if (failing) log(`${what} saved again`);
      failing = false;
    } catch (err) {
      if (!failing) log(`${what} not saved (${err instanceof Error ? err.message : String(err)}): the run goes on; ${otherwise}; not said again until a ${what} is saved`);
      failing = true;
    }
  };
}

/**
 * EngineContext.checkpoints of a run whose folder is `dir`. A save that fails (a full disk: a
 * checkpoint as large as a voxel run's matrix must fit beside the previous one) does not fail the
 * run (besideTheWork): the previous checkpoint is kept.
 */
export function checkpointStore(dir: string, intervalSeconds: number, log: (line: string) => void): CheckpointStore {
  const save = besideTheWork('checkpoint', 'an interruption would resume it from its previous checkpoint, if it has one', log);
  return {
    intervalSeconds,
    load: () => loadCheckpoint(dir),
    save: (c) => save(() => saveCheckpoint(dir, c)),
  };
}
