/**
 * Imports what users bring from other tools: STL (binary, ASCII) and OBJ meshes and raw voxel
 * volumes become voxel-engine particle shapes of kind 'voxels' (core/voxel/shapes.ts: dims and
 * packed solid bits, base64), and an exported sphere CSV becomes a sphere table for analysis.
 * Parsing and voxelisation are pure (core/io); this module reads the files and checks sizes
 * before reading data.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { z } from 'zod';
import type { ColumnTable } from '../../core/common/engine';
import { sphereCsvToTable } from '../../core/io/csv';
import { assertWatertight, parseObj, parseStl } from '../../core/io/mesh';
import { parseRawHeader, rawToSolidBits, RAW_DTYPE_BYTES } from '../../core/io/raw';
import { bounds, MAX_SHAPE_VOXELS_PER_AXIS, voxeliseMesh } from '../../core/io/voxelise';

export interface VoxelShapeImport {
  /** Ready for the shape library: a voxel-engine shape of kind 'voxels'. */
  shape: { kind: 'voxels'; dims: [number, number, number]; bits: string };
  voxelCount: number;
  /** Voxels per model length unit (meshes), or 1 / voxelSize (raw volumes). */
  resolution: number;
  /** Solid volume in model units cubed. */
  volume: number;
  /** Triangles read from a mesh. */
  triangles?: number;
}

export const meshImportOptionsSchema = z
  .object({
    resolution: z.number().gt(0).optional().meta({ unit: 'voxels per length unit', description: 'voxel grid density in the model units' }),
    voxelsAcross: z.number().int().min(1).max(MAX_SHAPE_VOXELS_PER_AXIS).optional()
      .meta({ unit: 'voxels', description: "voxels along the mesh's longest side (instead of a resolution)" }),
  })
  .refine((o) => (o.resolution === undefined) !== (o.voxelsAcross === undefined), 'give exactly one of resolution or voxelsAcross');
export type MeshImportOptions = z.input<typeof meshImportOptionsSchema>;

/** The mesh format from a file name: .stl or .obj. */
export function meshFormat(fileName: string): 'stl' | 'obj' {
  const ext = extname(fileName).toLowerCase();
  if (ext !== '.stl' && ext !== '.obj') throw new Error(`mesh file '${fileName}' must end in .stl or .obj, got '${ext || '(none)'}'`);
  return ext === '.stl' ? 'stl' : 'obj';
}

/** A mesh file on disk as a voxel shape. */
export async function importMeshShape(path: string, options: MeshImportOptions): Promise<VoxelShapeImport> {
  meshFormat(path);
  return meshBytesToShape(new Uint8Array(await readFile(path)), path, options);
}

/** Uploaded mesh bytes (the web host, drag and drop) as a voxel shape; `fileName` gives the format. */
export function meshBytesToShape(bytes: Uint8Array, fileName: string, options: MeshImportOptions): VoxelShapeImport {
  const parsed = meshImportOptionsSchema.safeParse(options);
  if (!parsed.success) throw new Error(`mesh import options: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ')}`);
  const mesh = meshFormat(fileName) === 'stl' ? parseStl(bytes) : parseObj(new TextDecoder().decode(bytes));
  assertWatertight(mesh, fileName);
  let resolution = parsed.data.resolution;
  if (resolution === undefined) {
    const { min, max } = bounds(mesh);
    const longest = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    if (!(longest > 0)) throw new Error(`mesh '${fileName}' has no extent`);
    resolution = parsed.data.voxelsAcross! / longest;
  }
  const solid = voxeliseMesh(mesh, resolution);
  if (solid.voxelCount === 0) throw new Error(`mesh '${fileName}' gives no solid voxel at resolution ${resolution}: raise the resolution`);
  return {
    shape: { kind: 'voxels', dims: solid.dims, bits: Buffer.from(solid.bits).toString('base64') },
    voxelCount: solid.voxelCount,
    resolution,
    volume: solid.voxelCount / resolution ** 3,
    triangles: mesh.triangles,
  };
}

/**
 * A raw voxel volume with a JSON header (rawHeaderSchema: dims, dtype, byteOrder, headerBytes,
 * voxelSize); the header defaults to '<raw>.json', as the raw export writes it. Non-zero samples are solid.
 */
export async function importRawVoxelShape(rawPath: string, headerPath = `${rawPath}.json`): Promise<VoxelShapeImport> {
  const header = parseRawHeader(await readFile(headerPath, 'utf8'));
  header.dims.forEach((n, a) => {
    if (n > MAX_SHAPE_VOXELS_PER_AXIS) throw new RangeError(`raw header dims[${a}] is ${n}; a voxel shape has at most ${MAX_SHAPE_VOXELS_PER_AXIS} voxels per axis`);
  });
  const { size } = await stat(rawPath);
  const need = header.headerBytes + header.dims[0] * header.dims[1] * header.dims[2] * RAW_DTYPE_BYTES[header.dtype];
  if (size < need) throw new Error(`raw file '${rawPath}' has ${size} bytes, but the header (dims ${header.dims.join('x')}, ${header.dtype}, headerBytes ${header.headerBytes}) needs ${need}`);
  const bits = rawToSolidBits(new Uint8Array(await readFile(rawPath)), header);
  let voxelCount = 0;
  for (let i = 0; i < bits.length; i++) for (let b = bits[i]; b; b &= b - 1) voxelCount++;
  if (voxelCount === 0) throw new Error(`raw volume '${rawPath}' has no non-zero (solid) voxel`);
  return {
    shape: { kind: 'voxels', dims: header.dims, bits: Buffer.from(bits).toString('base64') },
    voxelCount,
    resolution: 1 / header.voxelSize,
    volume: voxelCount * header.voxelSize ** 3,
  };
}

/**
 * An exported sphere CSV (x, y, z, r[, type]) as a sphere table. The box is not in the CSV: meta.box
 * is the extent [max(x + r), max(y + r), max(z + r)] from the origin, to be replaced by the caller when known.
 */
export async function importSphereCsv(path: string): Promise<ColumnTable> {
  const table = sphereCsvToTable(await readFile(path, 'utf8'));
  const { x, y, z, r } = table.columns;
  const box = [0, 0, 0];
  for (let i = 0; i < r.length; i++) {
    box[0] = Math.max(box[0], x[i] + r[i]);
    box[1] = Math.max(box[1], y[i] + r[i]);
    box[2] = Math.max(box[2], z[i] + r[i]);
  }
  table.meta = { box, source: path };
  return table;
}
