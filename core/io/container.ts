/**
 * The on-disk form of engine artifacts (core/common/engine.ts): a small binary container that a
 * reader can stream and that other tools can read with a JSON parser and a byte offset.
 *
 *   bytes 0..7    magic: 'PBTABLE1' (column table) or 'PBVOLUM1' (label volume)
 *   bytes 8..11   header length H (uint32, little-endian)
 *   bytes 12..    H bytes of UTF-8 JSON header, space-padded so the data starts on an 8-byte boundary
 *   then          the data, little-endian: a table's columns one after another (each at its
 *                 header byteOffset, relative to the data start); a volume's labels, x fastest.
 *
 * Pure functions over Uint8Array: the Node side writes headers and data with streams.
 */
import { z } from 'zod';
import type { ColumnTable, LabelVolume } from '../common/engine';

export const TABLE_MAGIC = 'PBTABLE1';
export const VOLUME_MAGIC = 'PBVOLUM1';

export const DTYPES = {
  float64: Float64Array,
  float32: Float32Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int16: Int16Array,
  uint16: Uint16Array,
  uint8: Uint8Array,
} as const;
export type DType = keyof typeof DTYPES;
type Column = ColumnTable['columns'][string];

export interface TableHeader {
  rows: number;
  columns: { name: string; dtype: DType; byteOffset: number }[];
  meta: Record<string, unknown>;
}

export interface VolumeHeader {
  dims: [number, number, number];
  voxelSize: number;
  dtype: 'uint32';
  meta: Record<string, unknown>;
}

/** The typed-array constructor of a column dtype (readers that read part of a table). */
export function dtypeConstructor(dtype: DType): { new (n: number): Column; readonly BYTES_PER_ELEMENT: number } {
  const ctor = DTYPES[dtype];
  if (!ctor) throw new Error(`unknown column dtype '${dtype}'`);
  return ctor as { new (n: number): Column; readonly BYTES_PER_ELEMENT: number };
}

export function dtypeOf(a: Column): DType {
  for (const [name, ctor] of Object.entries(DTYPES)) if (a instanceof ctor) return name as DType;
  throw new TypeError(`unsupported column type ${Object.prototype.toString.call(a)}`);
}

/** Magic + length + padded JSON header; the caller appends the data. */
export function encodeHeader(magic: string, header: object): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil((12 + json.length) / 8) * 8 - 12;
  const out = new Uint8Array(12 + padded).fill(0x20);
  for (let i = 0; i < 8; i++) out[i] = magic.charCodeAt(i);
  new DataView(out.buffer).setUint32(8, padded, true);
  out.set(json, 12);
  return out;
}

/**
 * What a table's and a volume's headers hold (TableHeader, VolumeHeader), checked when they are read:
 * a damaged file is reported as damaged, naming what is wrong, instead of failing later in a reader
 * ('undefined is not iterable') or being read into nonsense.
 */
const HEADER_SHAPES: Record<string, z.ZodType> = {
  [TABLE_MAGIC]: z.object({
    rows: z.number().int().min(0),
    columns: z.array(z.object({ name: z.string(), dtype: z.string(), byteOffset: z.number().int().min(0) })),
    meta: z.record(z.string(), z.unknown()),
  }),
  [VOLUME_MAGIC]: z.object({
    dims: z.tuple([z.number().int().min(1), z.number().int().min(1), z.number().int().min(1)]),
    voxelSize: z.number().positive(),
    meta: z.record(z.string(), z.unknown()),
  }),
};

/**
 * How many bytes a container's preamble and header take (12 + the header length in its first 12
 * bytes), checked against the file's size before they are read: a corrupt length must not reach a
 * read (over 2^31 bytes, Node aborts the process) nor a 4 GiB allocation.
 */
export function headerByteLength(preamble: Uint8Array, fileSize: number, file: string): number {
  const bytes = 12 + new DataView(preamble.buffer, preamble.byteOffset, preamble.byteLength).getUint32(8, true);
  if (bytes > fileSize) throw new Error(`${file} is truncated: its header needs ${bytes} bytes, the file has ${fileSize}`);
  return bytes;
}

/** Reads magic and header from the first bytes of a container; dataOffset is where data starts. */
export function decodeHeader<H>(bytes: Uint8Array, expectedMagic: string): { header: H; dataOffset: number } {
  if (bytes.length < 12) throw new Error('artifact is truncated: shorter than its 12-byte preamble');
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== expectedMagic) throw new Error(`artifact magic is '${magic}', expected '${expectedMagic}'`);
  const len = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (bytes.length < 12 + len) throw new Error(`artifact header is truncated: needs ${12 + len} bytes, have ${bytes.length}`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + len)));
  } catch {
    throw new Error(`artifact header is damaged: its ${len} bytes are not JSON`);
  }
  const shape = HEADER_SHAPES[expectedMagic]?.safeParse(header);
  if (shape && !shape.success) {
    const issue = shape.error.issues[0];
    throw new Error(`artifact header is damaged: ${issue.path.join('.') || 'the header'}: ${issue.message}`);
  }
  return { header: header as H, dataOffset: 12 + len };
}

/**
 * `count` elements of type `ctor` starting at byte `start` of `bytes`, copied into a fresh, aligned
 * array independent of `bytes`. Copies through subarray + set rather than `bytes.slice().buffer`:
 * on a Node Buffer (readFileSync) slice is a view into a shared pool, so `.buffer` is other memory.
 */
export function copyOut<T extends ArrayBufferView>(bytes: Uint8Array, start: number, count: number, ctor: { new (n: number): T; readonly BYTES_PER_ELEMENT: number }): T {
  const out = new ctor(count);
  new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(bytes.subarray(start, start + count * ctor.BYTES_PER_ELEMENT));
  return out;
}

export function tableHeader(table: ColumnTable): TableHeader {
  const names = Object.keys(table.columns);
  const rows = names.length ? table.columns[names[0]].length : 0;
  let offset = 0;
  const columns = names.map((name) => {
    const col = table.columns[name];
    if (col.length !== rows) throw new RangeError(`column '${name}' has ${col.length} rows, expected ${rows}`);
    const entry = { name, dtype: dtypeOf(col), byteOffset: offset };
    offset += Math.ceil(col.byteLength / 8) * 8;
    return entry;
  });
  return { rows, columns, meta: { name: table.name, ...table.meta } };
}

/** The whole table as one buffer (tables are small: a particle table of 1e6 rows is tens of MB). */
export function encodeTable(table: ColumnTable): Uint8Array {
  const header = tableHeader(table);
  const head = encodeHeader(TABLE_MAGIC, header);
  let dataBytes = 0;
  for (const c of Object.values(table.columns)) dataBytes += Math.ceil(c.byteLength / 8) * 8;
  const out = new Uint8Array(head.length + dataBytes);
  out.set(head, 0);
  for (const col of header.columns) {
    const a = table.columns[col.name];
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), head.length + col.byteOffset);
  }
  return out;
}

export function decodeTable(bytes: Uint8Array): ColumnTable {
  const steps = decodeTableInSteps(bytes, Infinity);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Bytes of column data decodeTableInSteps copies in one step. */
export const DECODE_STEP_BYTES = 4 << 20;

/**
 * decodeTable in steps: it yields after the header and after each `stepBytes` of column data copied
 * and returns the table, so that a host can let other work through between steps (a table of
 * millions of rows is hundreds of MB to copy: 2,000,000 rows of six columns held a host's thread
 * 140-180 ms in one go). Every column is checked before any is allocated.
 */
export function* decodeTableInSteps(bytes: Uint8Array, stepBytes = DECODE_STEP_BYTES): Generator<void, ColumnTable, void> {
  const { header, dataOffset } = decodeHeader<TableHeader>(bytes, TABLE_MAGIC);
  const layout = header.columns.map((col) => {
    const ctor = DTYPES[col.dtype] as { new (n: number): Column; readonly BYTES_PER_ELEMENT: number } | undefined;
    if (!ctor) throw new Error(`column '${col.name}' has unknown dtype '${col.dtype}'`);
    const start = dataOffset + col.byteOffset;
    const byteLength = header.rows * ctor.BYTES_PER_ELEMENT;
    if (start + byteLength > bytes.length) throw new Error(`column '${col.name}' is truncated`);
    return { name: col.name, ctor, start, byteLength };
  });
  // The header and its checks are a step of their own: its JSON holds a trajectory's time and offset
  // per frame (100,000 frames: 3.4 MB, 18-25 ms to parse and check).
  yield;
  const columns: ColumnTable['columns'] = {};
  for (const { name, ctor, start, byteLength } of layout) {
    // Copied, as copyOut does, into a fresh aligned array independent of `bytes`.
    const out = new ctor(header.rows);
    const into = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    for (let at = 0; at < byteLength; at += stepBytes) {
      const end = Math.min(byteLength, at + stepBytes);
      into.set(bytes.subarray(start + at, start + end), at);
      if (end < byteLength) yield;
    }
    columns[name] = out;
    yield;
  }
  const { name, ...meta } = header.meta as { name?: string };
  return { kind: 'table', name: name ?? 'table', columns, meta };
}

export function volumeHeader(volume: Pick<LabelVolume, 'dims' | 'voxelSize' | 'meta'>): VolumeHeader {
  const [nx, ny, nz] = volume.dims;
  for (const [i, n] of [nx, ny, nz].entries()) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`dims[${i}] must be a positive integer, got ${n}`);
  }
  return { dims: [nx, ny, nz], voxelSize: volume.voxelSize, dtype: 'uint32', meta: volume.meta ?? {} };
}

/** Encodes a whole volume in memory; large volumes are written slab by slab by the Node side instead. */
export function encodeVolume(volume: LabelVolume): Uint8Array {
  const head = encodeHeader(VOLUME_MAGIC, { ...volumeHeader(volume), meta: { name: volume.name, ...volume.meta } });
  const out = new Uint8Array(head.length + volume.labels.byteLength);
  out.set(head, 0);
  out.set(new Uint8Array(volume.labels.buffer, volume.labels.byteOffset, volume.labels.byteLength), head.length);
  return out;
}

export function decodeVolume(bytes: Uint8Array): LabelVolume {
  const { header, dataOffset } = decodeHeader<VolumeHeader>(bytes, VOLUME_MAGIC);
  const [nx, ny, nz] = header.dims;
  const n = nx * ny * nz;
  if (dataOffset + n * 4 > bytes.length) throw new Error(`volume data is truncated: needs ${n * 4} bytes`);
  const labels = copyOut(bytes, dataOffset, n, Uint32Array);
  const { name, ...meta } = header.meta as { name?: string };
  return { kind: 'volume', name: name ?? 'labels', dims: header.dims, voxelSize: header.voxelSize, labels, meta };
}
