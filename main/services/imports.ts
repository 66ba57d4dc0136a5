/**
 * Imports what users bring from other tools: STL (binary, ASCII) and OBJ meshes and raw voxel
 * volumes become voxel-engine particle shapes of kind 'voxels' (core/voxel/shapes.ts: dims and
 * packed solid bits, base64), and an exported sphere CSV becomes a finished, analysed run.
 * Parsing and voxelisation are pure (core/io); this module reads the files and checks sizes
 * before reading data. The handlers run each import as a task in a worker thread
 * (main/workers/imports.ts, runImportTask) under the runs' memory budget (importTaskBytes), so a
 * big or hostile file never blocks or exhausts the process that serves the app. The shape editor's
 * previews (shapes.ts, shapePreview) run as such tasks too, for the same reason.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { analyseSpheres, sphereAnalysisOptionsSchema } from '../../core/analysis/index';
import { WORKER_BYTES, type ColumnTable, type EngineSeries } from '../../core/common/engine';
import { UNITS } from '../../core/common/units';
import { encodeTable } from '../../core/io/container';
import { parseSphereCsv } from '../../core/io/csv';
import { countLines } from '../../core/io/lines';
import { assertWatertight, meshTriangleLimit, parseObj, parseStl } from '../../core/io/mesh';
import { parseRawHeader, rawSizeMismatch, rawToSolidBits, type RawHeader } from '../../core/io/raw';
import { bounds, MAX_SHAPE_VOXELS_PER_AXIS, voxeliseMesh } from '../../core/io/voxelise';
import { parseStrict, SPHERE_IMPORT_ENGINE, type ImportProgress, type MetricValue, type Methods, type RunSummary } from '../api';
import { previewBytes, shapePreview } from './shapes';
import type { Shape as VoxelShape } from '../../core/voxel/shapes';
import type { JobQueue } from './queue';
import type { RunOrigin, RunStore } from './store';

/** Where runs keep their files, and how a run and its files are removed together. */
type RunFolders = Pick<JobQueue, 'runDir' | 'removeRun'>;

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
    resolution: z.number().gt(0).optional().meta({ unit: UNITS.resolution, description: 'voxel grid density in the model units' }),
    voxelsAcross: z.number().int().min(1).max(MAX_SHAPE_VOXELS_PER_AXIS).optional()
      .meta({ unit: 'voxels', description: "voxels along the mesh's longest side (instead of a resolution)" }),
  })
  .refine((o) => (o.resolution === undefined) !== (o.voxelsAcross === undefined), { path: ['resolution'], error: 'give exactly one of resolution or voxelsAcross' });
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
  const maxTriangles = meshTriangleLimit(bytes);
  const mesh = meshFormat(fileName) === 'stl' ? parseStl(bytes, maxTriangles) : parseObj(new TextDecoder().decode(bytes), maxTriangles);
  // An empty mesh is watertight (no edge is open) and has no extent: say what is wrong with it.
  if (mesh.triangles === 0) throw new Error(`mesh '${fileName}' has no triangles`);
  assertWatertight(mesh, fileName);
  let resolution = parsed.data.resolution;
  if (resolution === undefined) {
    const { min, max } = bounds(mesh);
    const longest = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    if (!(longest > 0)) throw new Error(`mesh '${fileName}' has no extent`);
    resolution = parsed.data.voxelsAcross! / longest;
  }
  const solid = voxeliseMesh(mesh, resolution);
  if (solid.voxelCount === 0) {
    // Name the option the user gave: 'raise the resolution' misled one who gave voxelsAcross.
    const given = parsed.data.resolution === undefined ? `${parsed.data.voxelsAcross} voxels across (resolution ${resolution}): raise voxelsAcross` : `resolution ${resolution}: raise the resolution`;
    throw new Error(`mesh '${fileName}' gives no solid voxel at ${given}`);
  }
  return {
    shape: { kind: 'voxels', dims: solid.dims, bits: Buffer.from(solid.bits).toString('base64') },
    voxelCount: solid.voxelCount,
    resolution,
    volume: solid.voxelCount / (resolution * resolution * resolution),
    triangles: mesh.triangles,
  };
}

/**
 * Bytes a mesh import holds per triangle (at most meshTriangleLimit of them): its nine float64
 * coordinates (72) and the watertightness check's vertex ids and first uses (24), hash slots (at
 * most 48) and edge keys (24).
 */
const MESH_TRIANGLE_BYTES = 168;

/**
 * A raw voxel volume with a JSON header (rawHeaderSchema: dims, dtype, byteOrder, headerBytes,
 * voxelSize); the header defaults to '<raw>.json', as the raw export writes it. Non-zero samples are solid.
 */
export async function importRawVoxelShape(rawPath: string, headerPath = `${rawPath}.json`): Promise<VoxelShapeImport> {
  const headerJson = await readFile(headerPath, 'utf8');
  const header = checkRawHeader(headerJson);
  // Checked before reading: a wrong header must not make us read a huge file.
  const { size } = await stat(rawPath);
  const mismatch = rawSizeMismatch(header, size);
  if (mismatch) throw new Error(`raw file '${rawPath}' ${mismatch}`);
  return rawBytesToShape(await readFile(rawPath), headerJson, rawPath);
}

function checkRawHeader(headerJson: string, dataBytes?: number): RawHeader {
  // The shape's size limit first: it is the problem to name when the data is short for huge dims too.
  parseRawHeader(headerJson).dims.forEach((n, a) => {
    if (n > MAX_SHAPE_VOXELS_PER_AXIS) throw new RangeError(`raw header dims[${a}] is ${n}; a voxel shape has at most ${MAX_SHAPE_VOXELS_PER_AXIS} voxels per axis`);
  });
  return parseRawHeader(headerJson, dataBytes);
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
    volume: voxelCount * (header.voxelSize * header.voxelSize * header.voxelSize),
  };
}

/**
 * An exported sphere CSV (x, y, z, r[, type]) as a sphere table. The box is not in the CSV: meta.box
 * is the extent [max(x + r), max(y + r), max(z + r)] from the origin, to be replaced by the caller when known.
 */
export async function importSphereCsv(path: string): Promise<ColumnTable> {
  return sphereTableFromCsv(await readFile(path, 'utf8'), path).table;
}

/** importSphereCsv on text already read, with its lines' numbers (parseSphereCsv); `source` (a file name) goes into meta.source; `progress` as sphereCsvToTable's. */
export function sphereTableFromCsv(text: string, source: string, progress?: (done: number, total: number) => void): { table: ColumnTable; lineNumbers: Uint32Array } {
  const { table, lineNumbers } = parseSphereCsv(text, progress);
  const { x, y, z, r } = table.columns;
  const box = [0, 0, 0];
  for (let i = 0; i < r.length; i++) {
    box[0] = Math.max(box[0], x[i] + r[i]);
    box[1] = Math.max(box[1], y[i] + r[i]);
    box[2] = Math.max(box[2], z[i] + r[i]);
  }
  table.meta = { ...table.meta, box, source };
  return { table, lineNumbers };
}

/**
 * Along any box side at most this many smallest sphere diameters: the analysis grids (porosity
 * slices, pore cells, height map, neighbour cells) grow with this ratio, and past it they explode
 * (a 2-row CSV with a coordinate of 1e300 asked for 8.5 GB).
 */
export const MAX_BOX_DIAMETERS = 100_000;

/**
 * Checks of a parsed sphere set before any analysis allocates: every centre inside the box (a given
 * one, or else the extent from the origin, so no coordinate below 0), no sphere wider than the box
 * in x or y, nor in z when z is periodic (a sphere would overlap its own image), and a box the
 * analysis grids can hold. Errors name the CSV line and the limit. Returns the box.
 */
export function checkSphereSet(table: ColumnTable, given: [number, number, number] | undefined, lines: Uint32Array, periodicZ = false): [number, number, number] {
  const { x, y, z, r } = table.columns;
  const n = r.length;
  if (n === 0) throw new Error('sphere CSV has a header but no spheres');
  const line = (i: number) => `sphere CSV line ${lines[i + 1] ?? i + 2}`;
  const cols = [x, y, z];
  const box = given ?? (table.meta?.box as [number, number, number]);
  let dmin = Infinity, iMin = 0;
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      const v = cols[a][i];
      if (v < 0 || v > box[a]) {
        throw new Error(given
          ? `${line(i)}: ${'xyz'[a]} = ${v} lies outside the box [0, ${box[a]}] along ${'xyz'[a]}; give a box that holds every centre`
          : `${line(i)}: ${'xyz'[a]} = ${v} is below 0; the box runs from the origin (a given box too), so shift the coordinates to 0 and above`);
      }
    }
    if (2 * r[i] > Math.min(box[0], box[1])) {
      throw new Error(`${line(i)}: the sphere's diameter ${2 * r[i]} is wider than the box (${box[0]} x ${box[1]}); spheres must fit the box in x and y`);
    }
    if (periodicZ && 2 * r[i] > box[2]) {
      throw new Error(`${line(i)}: the sphere's diameter ${2 * r[i]} is taller than the box (${box[2]} along z); with z periodic, spheres must fit the box in z too`);
    }
    if (2 * r[i] < dmin) { dmin = 2 * r[i]; iMin = i; }
  }
  for (let a = 0; a < 3; a++) {
    if (!(box[a] / dmin <= MAX_BOX_DIAMETERS)) {
      // Without a given box, the sphere reaching farthest made it this long: name its line.
      let iFar = 0;
      for (let i = 1; i < n; i++) if (cols[a][i] + r[i] > cols[a][iFar] + r[iFar]) iFar = i;
      const where = given ? 'the' : `${line(iFar)}: ${'xyz'[a]} = ${cols[a][iFar]} makes the`;
      throw new Error(
        `${where} box ${box[a]} long along ${'xyz'[a]}, ${(box[a] / dmin).toPrecision(3)} times the smallest sphere's diameter ${dmin} (${line(iMin)}); the analysis allows at most ${MAX_BOX_DIAMETERS}`,
      );
    }
  }
  return box;
}

/** A sphere set analysed (the table with its per-sphere analysis columns), ready to be recorded as a run. */
export interface AnalysedSpheres {
  table: ColumnTable;
  box: [number, number, number];
  analysis: Record<string, unknown>;
  metrics: Record<string, MetricValue>;
  series: EngineSeries[];
  analysisSeconds: number;
}

/** The analysis options of a sphere import, checked strictly (ApiError naming `analysis.<field>`, unknown ones too). */
export function sphereImportAnalysis(analysis: Record<string, unknown> = {}): Record<string, unknown> {
  return parseStrict(sphereAnalysisOptionsSchema, analysis, 'analysis') as Record<string, unknown>;
}

/** Parses, checks (checkSphereSet) and analyses a sphere CSV, telling `progress` how far: the work of a sphere import's task. */
export function analyseSphereCsv(
  csv: string, source: string, box: [number, number, number] | undefined, analysis: Record<string, unknown>,
  progress: (p: ImportProgress) => void = () => {},
): AnalysedSpheres {
  const { table, lineNumbers } = sphereTableFromCsv(csv, source, (done, total) => progress({ phase: 'parsing', fraction: done / total }));
  const checkedBox = checkSphereSet(table, box, lineNumbers, (analysis.periodic as boolean[] | undefined)?.[2] === true);
  const t0 = performance.now();
  const result = analyseSpheres(table, checkedBox, analysis, (done, total) => progress({ phase: 'analysing', fraction: done / total }));
  const analysisSeconds = (performance.now() - t0) / 1000;
  for (const [name, column] of Object.entries(result.particleColumns)) if (!(name in table.columns)) table.columns[name] = column;
  table.meta = { ...table.meta, box: checkedBox, periodic: (analysis.periodic as boolean[] | undefined) ?? [true, true, false] };
  return { table, box: checkedBox, analysis, metrics: { ...result.metrics, particles: table.columns.r.length, analysisSeconds }, series: result.series, analysisSeconds };
}

export interface SphereRunOptions {
  name: string;
  /** Where the spheres came from (a file name); stored in the run's params. */
  source: string;
}

/**
 * Records an analysed sphere set as a finished `spheres` run: metrics and series, and the table as
 * its artifact in `runs.runDir(id)`. The run row is inserted 'paused' so that no queue (of this or
 * another process) picks it up before it is done; `origin` (this process, as a queue would record
 * it) is stored with it. On failure the row and folder go as `runs rm` removes them (JobQueue.removeRun).
 */
export function recordSphereRun(store: RunStore, runs: RunFolders, spheres: AnalysedSpheres, o: SphereRunOptions, origin: RunOrigin): RunSummary {
  const { table } = spheres;
  const params = { source: o.source, box: spheres.box, analysis: spheres.analysis };
  const spec = { engine: SPHERE_IMPORT_ENGINE, name: o.name, seed: 0, params };
  // Recorded like a started run (machine, app version); 'paused' to 'running' to 'done'. In one
  // transaction: a process killed between the two left a 'paused' run that never started, which
  // no start takes up (recover looks at running ones).
  const id = store.transaction(() => {
    const [inserted] = store.insertRuns([{ name: o.name, engine: SPHERE_IMPORT_ENGINE, spec, params, seed: 0, priority: 0, batchId: null, status: 'paused' }]);
    store.claim(inserted, origin, 'paused');
    return inserted;
  });
  try {
    const dir = runs.runDir(id);
    mkdirSync(dir, { recursive: true });
    const bytes = encodeTable(table);
    const path = join(dir, `${table.name}.pbt`);
    writeFileSync(path, bytes);
    store.finishRun(id, {
      status: 'done',
      metrics: spheres.metrics,
      series: spheres.series,
      artifacts: [{ kind: 'table', name: table.name, path, bytes: bytes.length, checksum: createHash('sha256').update(bytes).digest('hex'), meta: table.meta ?? {} }],
      wallSeconds: spheres.analysisSeconds,
    });
  } catch (err) {
    runs.removeRun(id);
    throw err;
  }
  return store.getSummary(id)!;
}

// ---------------------------------------------------------------------------------------------
// Imports as worker tasks

export type ImportTask =
  | { kind: 'spheres'; csv: string; source: string; box?: [number, number, number]; analysis: Record<string, unknown> }
  | { kind: 'mesh'; bytes: Uint8Array; fileName: string; options: MeshImportOptions }
  | { kind: 'raw'; bytes: Uint8Array; header: string; fileName: string }
  // Not an import, but the same kind of work: seconds of CPU at its largest, kept off the thread that serves the app.
  | { kind: 'preview'; shape: VoxelShape; size: number; resolution: number; reductionThreshold?: number };

export type ImportResult =
  | { kind: 'spheres'; spheres: AnalysedSpheres }
  | { kind: 'shape'; shape: VoxelShapeImport }
  | { kind: 'preview'; preview: Methods['shapes.preview']['result'] };

/** The worker entry that runs import tasks (from source, or bundled next to the main bundle). */
export const IMPORT_WORKER = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../workers/imports.ts' : './workers/imports.js', import.meta.url));

/** What a task does inside its worker; a sphere import tells `progress` how far it is (the others take a second or less). */
export function runImportTask(task: ImportTask, progress?: (p: ImportProgress) => void): ImportResult {
  switch (task.kind) {
    case 'spheres': return { kind: 'spheres', spheres: analyseSphereCsv(task.csv, task.source, task.box, task.analysis, progress) };
    case 'mesh': return { kind: 'shape', shape: meshBytesToShape(task.bytes, task.fileName, task.options) };
    case 'raw': return { kind: 'shape', shape: rawBytesToShape(task.bytes, task.header, task.fileName) };
    case 'preview': return { kind: 'preview', preview: shapePreview(task.shape, task.size, task.resolution, task.reductionThreshold) };
  }
}

/**
 * Upper bound of the bytes a task takes, known before it starts (so it is refused up front): its
 * worker (WORKER_BYTES, as a run's estimate counts its own: the isolate, the bundle, zod), then what
 * it allocates: for a sphere CSV, the text and its lines, the table and analysis per line (rows are at most the
 * lines; counted, since characters / 8 took a typical 40-character row for five), the pore grid,
 * at most a million porosity slices (checkSphereSet bounds box over diameter) and the height map;
 * for a mesh, its bytes and text, the triangles it may hold (meshTriangleLimit) and the largest voxel
 * grid an import may have (1024^3 bits, also as base64); for a raw volume, its bytes and its bits.
 */
export function importTaskBytes(task: ImportTask): number {
  return WORKER_BYTES + importTaskAllocates(task);
}

function importTaskAllocates(task: ImportTask): number {
  switch (task.kind) {
    case 'spheres': {
      const rows = countLines(task.csv);
      const cells = (task.analysis.poreGridVoxels as number | undefined) ?? 1 << 21;
      const side = (task.analysis.heightMapCells as number | undefined) ?? 256, heightMap = side * side;
      return 6 * task.csv.length + rows * 600 + 17 * cells + 24 * 10 * MAX_BOX_DIAMETERS + 16 * heightMap;
    }
    case 'mesh':
      return 2 * task.bytes.length + MESH_TRIANGLE_BYTES * meshTriangleLimit(task.bytes) + 3 * (MAX_SHAPE_VOXELS_PER_AXIS * MAX_SHAPE_VOXELS_PER_AXIS * MAX_SHAPE_VOXELS_PER_AXIS / 8);
    case 'raw':
      return 2 * task.bytes.length + 3 * Math.ceil(task.bytes.length / 8);
    case 'preview':
      return previewBytes(task.shape, task.size, task.resolution);
  }
}
