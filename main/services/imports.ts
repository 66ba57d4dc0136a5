/**
 * Imports what users bring from other tools: STL (binary, ASCII) and OBJ meshes and raw voxel
 * volumes become voxel-engine particle shapes of kind 'voxels' (core/voxel/shapes.ts: dims and
 * packed solid bits, base64), and an exported sphere CSV becomes a finished, analysed run.
 * Parsing and voxelisation are pure (core/io); this module reads the files and checks sizes
 * before reading data.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { z } from 'zod';
import { analyseSpheres, sphereAnalysisOptionsSchema } from '../../core/analysis/index';
import type { ColumnTable } from '../../core/common/engine';
import { encodeTable } from '../../core/io/container';
import { sphereCsvToTable } from '../../core/io/csv';
import { assertWatertight, parseObj, parseStl } from '../../core/io/mesh';
import { parseRawHeader, rawToSolidBits, RAW_DTYPE_BYTES, type RawHeader } from '../../core/io/raw';
import { bounds, MAX_SHAPE_VOXELS_PER_AXIS, voxeliseMesh } from '../../core/io/voxelise';
import { ApiError, invalidMessage, issuesFrom, type RunSummary } from '../api';
import type { RunOrigin, RunStore } from './store';

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
  const headerJson = await readFile(headerPath, 'utf8');
  const header = checkRawHeader(headerJson);
  // Checked before reading: a wrong header must not make us read a huge file.
  const { size } = await stat(rawPath);
  const need = header.headerBytes + header.dims[0] * header.dims[1] * header.dims[2] * RAW_DTYPE_BYTES[header.dtype];
  if (size < need) throw new Error(`raw file '${rawPath}' has ${size} bytes, but the header (dims ${header.dims.join('x')}, ${header.dtype}, headerBytes ${header.headerBytes}) needs ${need}`);
  return rawBytesToShape(await readFile(rawPath), headerJson, rawPath);
}

function checkRawHeader(headerJson: string, dataBytes?: number): RawHeader {
  const header = parseRawHeader(headerJson, dataBytes);
  header.dims.forEach((n, a) => {
    if (n > MAX_SHAPE_VOXELS_PER_AXIS) throw new RangeError(`raw header dims[${a}] is ${n}; a voxel shape has at most ${MAX_SHAPE_VOXELS_PER_AXIS} voxels per axis`);
  });
  return header;
}

/** Uploaded raw bytes and the text of their JSON header as a voxel shape; `fileName` names it in errors. */
export function rawBytesToShape(bytes: Uint8Array, headerJson: string, fileName: string): VoxelShapeImport {
  const header = checkRawHeader(headerJson, bytes.length);
  const bits = rawToSolidBits(bytes, header);
  let voxelCount = 0;
  for (let i = 0; i < bits.length; i++) for (let b = bits[i]; b; b &= b - 1) voxelCount++;
  if (voxelCount === 0) throw new Error(`raw volume '${fileName}' has no non-zero (solid) voxel`);
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
  return sphereTableFromCsv(await readFile(path, 'utf8'), path);
}

/** importSphereCsv on text already read; `source` (a file name) goes into meta.source. */
export function sphereTableFromCsv(text: string, source: string): ColumnTable {
  const table = sphereCsvToTable(text);
  const { x, y, z, r } = table.columns;
  const box = [0, 0, 0];
  for (let i = 0; i < r.length; i++) {
    box[0] = Math.max(box[0], x[i] + r[i]);
    box[1] = Math.max(box[1], y[i] + r[i]);
    box[2] = Math.max(box[2], z[i] + r[i]);
  }
  table.meta = { box, source };
  return table;
}

/**
 * Imported sphere sets are recorded as finished runs of this pseudo-engine: not in the engine
 * registry (there is nothing to run), but listed, analysed and exported like any other run.
 */
export const SPHERE_IMPORT_ENGINE = 'spheres';

export interface SphereRunOptions {
  name: string;
  /** Where the spheres came from (a file name); stored in the run's params. */
  source: string;
  /** Box [x, y, z] in the CSV's length unit; default: the spheres' extent from the origin. */
  box?: [number, number, number];
  /** core/analysis sphereAnalysisOptionsSchema. */
  analysis?: Record<string, unknown>;
}

/**
 * Records a sphere table as a finished `spheres` run: analyseSpheres metrics and series, and the
 * table (with the per-sphere analysis columns) as its artifact in `runDir(id)`. The run row is
 * inserted 'paused' so that no queue (of this or another process) picks it up before it is done;
 * `origin` (this process, as a queue would record it) is stored with it.
 */
export function recordSphereRun(store: RunStore, runDir: (id: string) => string, table: ColumnTable, o: SphereRunOptions, origin: RunOrigin): RunSummary {
  const parsed = sphereAnalysisOptionsSchema.safeParse(o.analysis ?? {});
  if (!parsed.success) {
    const issues = issuesFrom(parsed.error, 'analysis');
    throw new ApiError('invalid', invalidMessage(issues), issues);
  }
  const box = o.box ?? (table.meta?.box as [number, number, number]);
  const t0 = performance.now();
  const result = analyseSpheres(table, box, parsed.data);
  const analysisSeconds = (performance.now() - t0) / 1000;
  for (const [name, column] of Object.entries(result.particleColumns)) if (!(name in table.columns)) table.columns[name] = column;
  table.meta = { ...table.meta, box, periodic: parsed.data.periodic ?? [true, true, false] };

  const params = { source: o.source, box, analysis: parsed.data };
  const spec = { engine: SPHERE_IMPORT_ENGINE, name: o.name, seed: 0, params };
  const [id] = store.insertRuns([{ name: o.name, engine: SPHERE_IMPORT_ENGINE, spec, params, seed: 0, priority: 0, batchId: null, status: 'paused' }]);
  try {
    // Recorded like a started run (machine, app version); 'paused' to 'running' to 'done'.
    store.claim(id, origin, 'paused');
    const dir = runDir(id);
    mkdirSync(dir, { recursive: true });
    const bytes = encodeTable(table);
    const path = join(dir, `${table.name}.pbt`);
    writeFileSync(path, bytes);
    store.finishRun(id, {
      status: 'done',
      metrics: { ...result.metrics, particles: table.columns.r.length, analysisSeconds },
      series: result.series,
      artifacts: [{ kind: 'table', name: table.name, path, bytes: bytes.length, checksum: createHash('sha256').update(bytes).digest('hex'), meta: table.meta }],
      wallSeconds: analysisSeconds,
    });
  } catch (err) {
    store.deleteRun(id);
    rmSync(runDir(id), { recursive: true, force: true });
    throw err;
  }
  return store.getSummary(id)!;
}
