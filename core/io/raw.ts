/**
 * Raw voxel volumes with a JSON header sidecar: the data file is the bare samples, x fastest,
 * little-endian (numpy: np.fromfile(path, '<u2').reshape(nz, ny, nx)); the sidecar says how.
 * The same header describes imported raw voxel shapes (any non-zero sample is solid).
 */
import { z } from 'zod';
import { parseJsonText } from './json';
import { UNITS } from '../common/units';

export const RAW_DTYPES = ['uint8', 'uint16', 'uint32', 'float32'] as const;

/**
 * Strict: a misspelt key ('voxel_size') is refused rather than its default (a voxel of 1) used. The
 * notes the raw export writes beside the fields (layout, numpy, run, labels) are allowed.
 */
export const rawHeaderSchema = z.strictObject({
  dims: z.tuple([z.number().int().min(1), z.number().int().min(1), z.number().int().min(1)])
    .meta({ unit: 'voxels', description: 'volume size [nx, ny, nz], x fastest' }),
  dtype: z.enum(RAW_DTYPES).meta({ description: 'sample type' }),
  byteOrder: z.enum(['little', 'big']).default('little'),
  headerBytes: z.number().int().min(0).default(0).meta({ unit: 'bytes', description: 'bytes to skip at the start of the raw file' }),
  voxelSize: z.number().gt(0).default(1).meta({ unit: UNITS.length, description: 'edge length of one voxel' }),
  unit: z.string().optional(),
  origin: z.tuple([z.number(), z.number(), z.number()]).optional()
    .meta({ unit: UNITS.length, description: "where voxel (0, 0, 0)'s corner lies (informative: an import takes the shape's voxels, not its place)" }),
  layout: z.string().optional(),
  numpy: z.string().optional(),
  run: z.string().optional(),
  labels: z.string().optional(),
});
export type RawHeader = z.output<typeof rawHeaderSchema>;

export const RAW_DTYPE_BYTES: Record<RawHeader['dtype'], number> = { uint8: 1, uint16: 2, uint32: 4, float32: 4 };

/** The sidecar written next to an exported raw volume. */
export function rawSidecar(header: RawHeader, extra: Record<string, unknown> = {}): string {
  const [nx, ny, nz] = header.dims;
  const np = { uint8: 'u1', uint16: '<u2', uint32: '<u4', float32: '<f4' }[header.dtype];
  return JSON.stringify({
    ...header,
    layout: 'x fastest: index = x + nx * (y + ny * z)',
    numpy: `np.fromfile(path, '${np}', offset=${header.headerBytes}).reshape(${nz}, ${ny}, ${nx})`,
    ...extra,
  }, null, 1) + '\n';
}

/** Parses and checks a raw header (JSON text) against the data size. */
export function parseRawHeader(json: string, dataBytes?: number): RawHeader {
  let value: unknown;
  try {
    value = parseJsonText(json);
  } catch (e) {
    throw new Error(`raw header is ${(e as Error).message}`);
  }
  const parsed = rawHeaderSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') {
      throw new Error(`raw header has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}; allowed: ${Object.keys(rawHeaderSchema.shape).join(', ')}`);
    }
    throw new Error(`raw header field '${issue.path.join('.')}': ${issue.message}`);
  }
  const h = parsed.data;
  const mismatch = dataBytes === undefined ? null : rawSizeMismatch(h, dataBytes);
  if (mismatch) throw new Error(`raw data ${mismatch}`);
  return h;
}

/**
 * Why a raw file of `fileBytes` bytes is not the volume its header describes, or null: it must be
 * exactly headerBytes and the samples. A larger file was read in part, silently: a uint16 volume
 * described as uint8 became half of its voxels, in the wrong places. When the samples would fill the
 * file at another width, the message names that dtype.
 */
export function rawSizeMismatch(h: RawHeader, fileBytes: number): string | null {
  const voxels = h.dims[0] * h.dims[1] * h.dims[2];
  const need = h.headerBytes + voxels * RAW_DTYPE_BYTES[h.dtype];
  if (fileBytes === need) return null;
  const described = `the header (dims ${h.dims.join('x')}, ${h.dtype}, headerBytes ${h.headerBytes})`;
  if (fileBytes < need) return `has ${fileBytes} bytes, but ${described} needs ${need}`;
  const width = (fileBytes - h.headerBytes) / voxels;
  const dtypes = RAW_DTYPES.filter((d) => RAW_DTYPE_BYTES[d] === width);
  const hint = dtypes.length ? `; ${width} bytes a voxel would fill it: dtype ${dtypes.join(' or ')}?` : '';
  return `has ${fileBytes} bytes, more than the ${need} that ${described} describes: its dims, dtype or headerBytes do not match the file${hint}`;
}

/** Solid bits (any non-zero sample) of raw data, packed 8 voxels a byte, least significant bit first. */
export function rawToSolidBits(data: Uint8Array, header: RawHeader): Uint8Array {
  const [nx, ny, nz] = header.dims;
  const n = nx * ny * nz;
  const size = RAW_DTYPE_BYTES[header.dtype];
  const bits = new Uint8Array(Math.ceil(n / 8));
  const view = new DataView(data.buffer, data.byteOffset + header.headerBytes, n * size);
  const little = header.byteOrder === 'little';
  for (let i = 0; i < n; i++) {
    let v: number;
    switch (header.dtype) {
      case 'uint8': v = view.getUint8(i); break;
      case 'uint16': v = view.getUint16(2 * i, little); break;
      case 'uint32': v = view.getUint32(4 * i, little); break;
      case 'float32': v = view.getFloat32(4 * i, little); break;
    }
    if (v !== 0) bits[i >> 3] |= 1 << (i & 7);
  }
  return bits;
}
