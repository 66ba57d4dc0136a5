/**
 * Exports a finished run to the files the tools users already have can open: particle tables as
 * CSV and LAMMPS dumps (OVITO), label volumes as raw + JSON header (PoreSpy, numpy), multi-page
 * TIFF (Fiji) and VTK ImageData (ParaView), particle surfaces as STL, results as JSON and CSV, a
 * ball mill's trajectories as a multi-frame LAMMPS dump (an animation in OVITO).
 *
 * Volumes are streamed: the .pbv artifact is read and the export written one z-slab at a time,
 * so a 2048^3 volume never has to be in memory. The format writers themselves are pure and live in
 * core/io; this module does only files.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ColumnTable, EngineSeries, ParticleTableSpec } from '../../core/common/engine';
import { metricInfo } from '../../core/common/engines';
import { metricUnitIn } from '../../core/common/engine';
import { UNITS } from '../../core/common/units';
import { decodeHeader, dtypeConstructor, headerByteLength, TABLE_MAGIC, VOLUME_MAGIC, type TableHeader, type VolumeHeader } from '../../core/io/container';
import { csvColumns, isSphereTable, rowCount, tableToCsv } from '../../core/io/csv';
import { frameOrigin, inOwnCoordinates } from '../../core/io/frame';
import { TextBytes } from '../../core/io/decimal';
import { boundsHoldingCentres, dumpHead, dumpRadius, dumpRows, wrapIntoBox } from '../../core/io/lammps';
import { bytesPerLabel, labelBytes, labelDtype, maxOf, type LabelDtype } from '../../core/io/labels';
import { rawSidecar } from '../../core/io/raw';
import { asciiFacet, asciiSolidHead, asciiSolidTail, solidSurfaceTriangles, sphereSolid, stlHeader, ParticleCuts, ParticleSurface, ASCII_FACET_BYTES, STL_HEADER_BYTES, STL_TRIANGLE_BYTES, type SliceWindow } from '../../core/io/stl';
import { tarHeader, tarPadding, TAR_END } from '../../core/io/tar';
import { tiffLayout } from '../../core/io/tiff';
import { vtiHead, vtiTail } from '../../core/io/vti';
import { OWNER_TAG, ownerState, ownerTag, parseOwnerTag } from './processes';
import { Turns } from './turns';
import { isHeightmap, isLabelVolume, isTrajectories, missingArtifact, type ExportFormatInfo, type ExportNeed } from '../api';

export interface ExportableRun {
  id: string;
  name: string;
  engine: string;
  /** The seed and thread count it ran with (a run is repeated by engine, params, seed and threads): in the results JSON. */
  seed?: number;
  threads?: number;
  /** How it ended (done, failed, cancelled), its error and log: in the results JSON, a failed run's only account of its failure. */
  status?: string;
  error?: string | null;
  log?: string[];
  params: unknown;
  metrics: Record<string, unknown>;
  series: EngineSeries[];
  /** Absolute paths of the run's .pbt (table) and .pbv (volume) artifacts. */
  artifacts: { kind: 'table' | 'volume'; name: string; path: string }[];
}

export type { ExportNeed } from '../api';

export interface ExportFormat {
  id: string;
  /** Names the content in the file name (run-id.<stem>.<extension>), so that no two formats share one. */
  stem: string;
  title: string;
  extension: string;
  mime: string;
  needs: ExportNeed;
}

export const EXPORT_FORMATS: readonly ExportFormat[] = [
  { id: 'json', stem: 'results', title: 'Results as JSON (engine, status, error, seed, threads, params, metrics and their units, series, log)', extension: 'json', mime: 'application/json', needs: 'results' },
  { id: 'metrics-csv', stem: 'metrics', title: 'Metrics as CSV (metric, value, unit)', extension: 'csv', mime: 'text/csv', needs: 'results' },
  { id: 'series-csv', stem: 'series', title: 'Series as CSV (series, x, y)', extension: 'csv', mime: 'text/csv', needs: 'results' },
  { id: 'csv', stem: 'particles', title: 'Particle table as CSV (spheres: x, y, z, r, type first, then their other columns)', extension: 'csv', mime: 'text/csv', needs: 'table' },
  { id: 'lammps', stem: 'particles', title: 'LAMMPS dump (OVITO, LIGGGHTS)', extension: 'dump', mime: 'text/plain', needs: 'table' },
  { id: 'lammps-trajectory', stem: 'trajectories', title: "Trajectories as a multi-frame LAMMPS dump (OVITO plays it as an animation): a frame per sampled time, ITEM: TIME its simulated time in s, TIMESTEP its index; columns id type x y z radius speed impacts; lab frame, the box the vial where it is at that frame", extension: 'dump', mime: 'text/plain', needs: 'trajectory' },
  { id: 'trajectory-csv', stem: 'trajectories', title: 'Trajectories as CSV (pandas, R, a spreadsheet): a row per ball per sampled frame, frame after frame; columns x, y, z, r (mm), time (s), id, speed (mm/s), impacts so far; lab frame, the vial\'s floor at A·sin(2πft)', extension: 'csv', mime: 'text/csv', needs: 'trajectory' },
  { id: 'vti', stem: 'labels', title: 'VTK ImageData of the labels (ParaView)', extension: 'vti', mime: 'application/xml', needs: 'volume' },
  { id: 'tiff', stem: 'labels', title: 'Multi-page TIFF stack of the labels (Fiji/ImageJ)', extension: 'tif', mime: 'image/tiff', needs: 'volume' },
  { id: 'raw', stem: 'labels', title: 'Raw labels, little-endian, with a .json header (numpy, PoreSpy); a download is one .tar of both', extension: 'raw', mime: 'application/octet-stream', needs: 'volume' },
  { id: 'stl-particles', stem: 'particles', title: 'Particle surfaces as ASCII STL: one closed, manifold solid per particle (particle_<label>), periodic particles in one piece; spheres (sphere sets) as 80-triangle meshes of the same volume as the sphere', extension: 'stl', mime: 'model/stl', needs: 'volume-or-table' },
  { id: 'stl-solid', stem: 'solid', title: 'Surface of the whole solid phase as one watertight, manifold binary STL', extension: 'stl', mime: 'model/stl', needs: 'volume' },
  { id: 'heightmap-tiff', stem: 'heightmap', title: 'Top-surface height map as TIFF (pixel size in length units; values: height in voxels, calibrated to length for Fiji)', extension: 'tif', mime: 'image/tiff', needs: 'heightmap' },
];

const APPLIES_TO: Record<ExportNeed, string> = {
  results: 'every run that has ended: done, failed or cancelled (a failed or cancelled run keeps its metrics, series and log)',
  table: 'runs with a particle table: every engine (voxel packing, stacking, ball mill, surface sampling) and imported sphere sets',
  volume: 'voxel packings with a label volume (labelVolume on, or auto and at most 512³ voxels), surface samplings with voxelsAcross > 0 (the solid, 1 inside)',
  'volume-or-table': 'voxel packings with a label volume and surface samplings with a solid (voxel faces), and runs whose particles are spheres (stacking, ball mill, surface samplings without a solid, imported sphere sets)',
  heightmap: 'voxel packings with a label volume and the analysis on (they have a height map)',
  trajectory: 'ball mill runs with output.frameRate > 0, which store their trajectories',
};

/**
 * Each metric's unit as its engine declares it (J, s, 1/s …; empty for counts, text, and engines
 * this build does not know), as it applies to the run (an area in a 2D run): a file read away from
 * the app must say what its numbers measure.
 */
function metricUnits(run: ExportableRun): Record<string, string> {
  const info = metricInfo(run.engine);
  return Object.fromEntries(Object.keys(run.metrics).map((k) => [k, metricUnitIn(info[k], run.params)]));
}

/** metric, value and unit (metricUnits). */
function metricsCsv(run: ExportableRun): string {
  const units = metricUnits(run);
  return 'metric,value,unit\n' + Object.entries(run.metrics).map(([k, v]) => `${csvText(k)},${csvText(String(v))},${csvText(units[k])}\n`).join('');
}

/** Whether a format writes the run's series (the others export the same without them). */
export function writesSeries(format: string): boolean {
  return format === 'json' || format === 'series-csv';
}

/** The formats as exports.formats answers. */
export function exportFormatList(): ExportFormatInfo[] {
  return EXPORT_FORMATS.map((f) => ({ id: f.id, label: f.title, extension: f.extension, mime: f.mime, needs: f.needs, appliesTo: APPLIES_TO[f.needs] }));
}

/**
 * A format the run has no data for (no label volume, no particle table, no height map): the choice of
 * format is the caller's to change (the CLI's exit 2), unlike a damaged or missing artifact file.
 */
export class FormatNotApplicable extends Error {}

/** The file name of a run's export: its name and id, the format's stem and extension. */
export function exportFileName(run: { name: string; id: string }, spec: ExportFormat): string {
  return `${run.name.replace(/[^A-Za-z0-9._ -]+/g, '_').slice(0, 60)}-${run.id}.${spec.stem}.${spec.extension}`;
}

/**
 * An export as one file, for a single download (the app's and the web host's): the file itself, or
 * for raw volumes the volume and its JSON header together in an uncompressed tar. `signal`: as exportRun's.
 */
export async function exportForDownload(run: ExportableRun, format: string, dir: string, signal?: AbortSignal): Promise<{ path: string; fileName: string; mime: string }> {
  const spec = EXPORT_FORMATS.find((f) => f.id === format);
  if (!spec) throw new Error(`unknown export format '${format}'; allowed: ${EXPORT_FORMATS.map((f) => f.id).join(', ')}`);
  const fileName = exportFileName(run, spec);
  const path = join(dir, fileName);
  await exportRun(run, format, path, undefined, { signal });
  const download = downloadFile(run, spec);
  if (spec.id !== 'raw') return { path, ...download };
  await writeTar(join(dir, download.fileName), [{ name: fileName, path }, { name: `${fileName}.json`, path: `${path}.json` }], signal);
  return { path: join(dir, download.fileName), ...download };
}

/** The name and type of a run's export as one download (exportForDownload): raw volumes come as a tar with their header. */
export function downloadFile(run: { name: string; id: string }, spec: ExportFormat): { fileName: string; mime: string } {
  const fileName = exportFileName(run, spec);
  return spec.id === 'raw' ? { fileName: `${fileName}.tar`, mime: 'application/x-tar' } : { fileName, mime: spec.mime };
}

/** Copies files into an uncompressed tar, chunk by chunk. */
async function writeTar(out: string, files: { name: string; path: string }[], signal?: AbortSignal): Promise<void> {
  const fh = await open(out, 'w');
  try {
    const writer = new SequentialWriter(fh, signal);
    const chunk = new Uint8Array(SLAB_BYTES);
    for (const f of files) {
      const src = await open(f.path, 'r');
      try {
        const { size, mtimeMs } = await src.stat();
        await writer.write(tarHeader(f.name, size, mtimeMs / 1000));
        for (let at = 0; at < size; ) {
          const { bytesRead } = await src.read(chunk, 0, Math.min(chunk.length, size - at), at);
          if (bytesRead === 0) throw new Error(`${f.path} ended early at byte ${at} of ${size}`);
          await writer.write(chunk.subarray(0, bytesRead));
          at += bytesRead;
        }
        await writer.write(tarPadding(size));
      } finally {
        await src.close();
      }
    }
    await writer.write(TAR_END);
  } finally {
    await fh.close();
  }
}

/** Triangle text of the per-particle STL held before it is written to its places. */
const PENDING_BYTES = 64 * (1 << 20);

/** z-slices per read: about 64 MiB of labels at a time. */
const SLAB_BYTES = 64 * (1 << 20);

/**
 * Rows of a particle table per read (forEachTableBlock): about 16 MiB of its columns at a time, so
 * that each pass over a block (moving, wrapping, radii) takes a few ms of the host's thread.
 */
const TABLE_BLOCK_BYTES = 16 * (1 << 20);

/**
 * Removes what exports to `outPath` left when their process ended mid-write (a kill -9, a crash,
 * a closed terminal): the partial files of processes of this machine that have ended (ownerState: a
 * process of an earlier boot has, whatever process has its pid now), up to the size of the whole
 * export each (a 2048³ volume: gigabytes). Another machine's (a shared disk) stay, its processes
 * cannot be asked, and so do this process's (an export under way beside this one).
 */
async function removeLeftPartials(outPath: string): Promise<void> {
  const prefix = `${basename(outPath)}.partial-`;
  let names: string[];
  try {
    names = await readdir(dirname(outPath));
  } catch {
    return; // no such folder: the export's open says so
  }
  const pattern = new RegExp(`^(${OWNER_TAG})-[0-9a-f]{8}(?:\\.json)?$`);
  for (const name of names) {
    const m = name.startsWith(prefix) ? pattern.exec(name.slice(prefix.length)) : null;
    const owner = m && parseOwnerTag(m[1]);
    if (!owner || ownerState(owner, 'running') !== 'ended') continue;
    await rm(join(dirname(outPath), name), { force: true });
  }
}

/**
 * `options.signal` aborted (the client that asked has gone) stops the export at its next read or
 * write: it fails with the signal's reason and leaves nothing behind, as any failed export.
 */
export async function exportRun(
  run: ExportableRun,
  format: string,
  outPath: string,
  onProgress: (fraction: number) => void = () => {},
  options: { slabBytes?: number; tableBlockBytes?: number; signal?: AbortSignal } = {},
): Promise<{ path: string; bytes: number }> {
  const slabBytes = options.slabBytes ?? SLAB_BYTES;
  const tableBlockBytes = options.tableBlockBytes ?? TABLE_BLOCK_BYTES;
  const spec = EXPORT_FORMATS.find((f) => f.id === format);
  if (!spec) throw new Error(`unknown export format '${format}'; allowed: ${EXPORT_FORMATS.map((f) => f.id).join(', ')}`);
  // Written beside the target and renamed over it when complete: a failed export (a format that
  // does not apply, a full disk) never deletes or truncates a file the user already has.
  const partial = `${outPath}.partial-${ownerTag()}-${randomBytes(4).toString('hex')}`;
  await removeLeftPartials(outPath);
  const out = await open(partial, 'wx');
  let result: { path: string; bytes: number };
  try {
    const writer = new SequentialWriter(out, options.signal);
    switch (spec.id) {
      case 'json':
        await writeJson(writer, runToJson(run), onProgress);
        break;
      case 'metrics-csv':
        await writer.write(metricsCsv(run));
        break;
      case 'series-csv':
        await writeSeriesCsv(writer, run.series, onProgress);
        break;
      case 'csv':
        await withParticleTable(run, spec, writer.signal, (file) => writeTableCsv(writer, file, tableBlockBytes, onProgress));
        break;
      case 'lammps':
        await withParticleTable(run, spec, writer.signal, (file) => writeLammps(writer, file, tableBlockBytes, onProgress));
        break;
      case 'lammps-trajectory':
        await writeTrajectoryLammps(writer, run, spec, onProgress);
        break;
      case 'trajectory-csv':
        // The frame-major table as it is stored: its rows in blocks, as the particle table's CSV.
        await withTrajectories(run, spec, writer.signal, (file) => writeTableCsv(writer, file, tableBlockBytes, onProgress));
        break;
      case 'vti':
      case 'tiff':
      case 'raw':
        await writeVolume(writer, run, volumePath(run, spec), spec.id, partial, onProgress, slabBytes, 'labels');
        break;
      case 'heightmap-tiff': {
        const heightmap = heightmapArtifact(run);
        if (!heightmap) throw new FormatNotApplicable(MISSING.heightmap(run, spec));
        await writeVolume(writer, run, heightmap.path, 'tiff', partial, onProgress, slabBytes, 'heightmap');
        break;
      }
      case 'stl-particles':
        if (volumeArtifact(run)) await writeParticleStl(writer, run, spec, onProgress, slabBytes);
        else await withParticleTable(run, spec, writer.signal, (file) => writeSphereStl(writer, run, file, tableBlockBytes, onProgress));
        break;
      case 'stl-solid':
        await writeSolidStl(writer, run, spec, onProgress);
        break;
    }
    result = { path: outPath, bytes: writer.bytes };
    await out.close();
    // The raw format's JSON header first, so the volume never appears without it.
    if (spec.id === 'raw') await rename(`${partial}.json`, `${outPath}.json`);
    await rename(partial, outPath);
  } catch (err) {
    // No half-written file stays behind to be mistaken for an export (nor fills the disk further).
    await out.close().catch(() => {});
    await rm(partial, { force: true });
    await rm(`${partial}.json`, { force: true });
    throw err;
  }
  onProgress(1);
  return result;
}

/** Engine, how it ended, seed, threads, params, metrics and their units, series (their typed arrays, which writeJson writes as plain arrays) and log. */
export function runToJson(run: ExportableRun): object {
  return {
    id: run.id,
    name: run.name,
    engine: run.engine,
    status: run.status,
    error: run.error,
    seed: run.seed,
    threads: run.threads,
    params: run.params,
    metrics: run.metrics,
    // The units of the metrics that have one (metricUnits), as the metrics CSV gives them.
    metricUnits: Object.fromEntries(Object.entries(metricUnits(run)).filter(([, unit]) => unit)),
    series: run.series.map((s) => ({ name: s.name, kind: s.kind, xLabel: s.xLabel, yLabel: s.yLabel, x: s.x, y: s.y })),
    log: run.log,
  };
}

/** Numbers of a typed array formatted at a time by writeJson, and runs of them in one turn (as writeRows' rows). */
const NUMBERS_AT_ONCE = 1024;
const NUMBERS_PER_TURN = 16 * NUMBERS_AT_ONCE;

/**
 * The bytes of JSON.stringify(value, null, 1) + '\n' with each typed array in `value` as the plain
 * array Array.from makes of it, written in turns: the structure is stringified with a mark in each
 * array's place, and the arrays' numbers are formatted NUMBERS_AT_ONCE at a time and written when
 * the turn is due (Turns) or WRITE_BYTES are held. A ball mill's collision frequency per ball is a
 * series of a number per ball: 2,000,000 balls held the host's thread 0.9 s in one stringify.
 * `onProgress`: the share of the arrays' numbers written.
 */
async function writeJson(writer: SequentialWriter, value: unknown, onProgress: (f: number) => void): Promise<void> {
  const arrays: ArrayLike<number>[] = [];
  // A mark no string of the value can hold: a random nonce, and each found exactly once below.
  const nonce = randomBytes(8).toString('hex');
  const text = JSON.stringify(value, (_key, v: unknown) => (ArrayBuffer.isView(v) ? `\u0000${nonce}:${arrays.push(v as unknown as ArrayLike<number>) - 1}` : v), 1) + '\n';
  const marks = [...text.matchAll(new RegExp(`"\\\\u0000${nonce}:(\\d+)"`, 'g'))];
  if (marks.length !== arrays.length || marks.some((m, i) => Number(m[1]) !== i)) throw new Error('the results JSON could not be laid out: its typed arrays were not each found once');
  let total = 0;
  for (const a of arrays) total += a.length;
  let done = 0, out = '', at = 0;
  const numbers: string[] = [];
  const turns = new Turns(NUMBERS_PER_TURN / NUMBERS_AT_ONCE);
  const flush = async () => {
    await writer.write(out);
    out = '';
    turns.restart();
    onProgress(total ? done / total : 1);
  };
  for (const [i, mark] of marks.entries()) {
    out += text.slice(at, mark.index);
    at = mark.index + mark[0].length;
    const a = arrays[i];
    if (a.length === 0) {
      out += '[]';
      continue;
    }
    // JSON.stringify's indentation: the array's items one space deeper than the line it starts on.
    const indent = /^ */.exec(text.slice(text.lastIndexOf('\n', mark.index) + 1, mark.index))![0], inner = `,\n${indent} `;
    out += `[\n${indent} `;
    for (let start = 0; start < a.length; start += NUMBERS_AT_ONCE) {
      const end = Math.min(a.length, start + NUMBERS_AT_ONCE);
      // Joined: a fifth less CPU than adding number by number to the text (2,000,000 numbers: 0.48 s against 0.62).
      numbers.length = 0;
      for (let k = start; k < end; k++) numbers.push(jsonNumber(a[k]));
      out += (start > 0 ? inner : '') + numbers.join(inner);
      done += end - start;
      if (out.length >= WRITE_BYTES || turns.due()) await flush();
    }
    out += `\n${indent}]`;
  }
  out += text.slice(at);
  await flush();
}

/** A number as JSON.stringify writes it: non-finite ones as null. */
function jsonNumber(v: number): string {
  return Number.isFinite(v) ? String(v) : 'null';
}

/**
 * One line a point: the series' name and labels, x, y (numbers as String writes them), in turns as
 * writeRows writes a table: a ball mill's collision frequency per ball is a point per ball, and
 * 2,000,000 of them made line by line in one go held the host's thread 5 s of CPU.
 */
async function writeSeriesCsv(writer: SequentialWriter, series: EngineSeries[], onProgress: (f: number) => void): Promise<void> {
  await writer.write('series,x_label,y_label,x,y\n');
  let total = 0, done = 0;
  for (const s of series) total += s.x.length;
  const out = new TextBytes();
  for (const s of series) {
    const head = `${csvText(s.name)},${csvText(s.xLabel)},${csvText(s.yLabel)},`;
    await writeRows(writer, out, s.x.length, (o, start, end) => {
      for (let i = start; i < end; i++) {
        o.text(head);
        o.number(s.x[i]);
        o.byte(44);
        o.number(s.y[i]);
        o.byte(10);
      }
    }, (f) => onProgress((done + f * s.x.length) / total));
    done += s.x.length;
  }
}

function csvText(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Rows of a table formatted at a time (CSV, LAMMPS dumps). The formatting runs on the host's
 * thread: between runs of rows, what is formatted is written once the turn has taken TURN_MS or
 * ROWS_PER_TURN rows (the write lets other calls and events through), or WRITE_BYTES are held.
 * Chunks of 65,536 rows formatted each in one go held every other call and event for 120-300 ms.
 */
const ROWS_AT_ONCE = 1024;
const ROWS_PER_TURN = 16 * ROWS_AT_ONCE;
/** Bytes of text held before they are written, whatever the time. */
const WRITE_BYTES = 4 << 20;

/**
 * Rows [0, n) formatted by `format(out, start, end)` in runs of ROWS_AT_ONCE and written in turns
 * (above); `onProgress` after each write.
 */
async function writeRows(writer: SequentialWriter, out: TextBytes, n: number, format: (out: TextBytes, start: number, end: number) => void, onProgress: (f: number) => void): Promise<void> {
  const turns = new Turns(ROWS_PER_TURN / ROWS_AT_ONCE);
  for (let start = 0; start < n; start += ROWS_AT_ONCE) {
    const end = Math.min(n, start + ROWS_AT_ONCE);
    format(out, start, end);
    if (await writeWhenDue(writer, out, turns, end === n)) onProgress(end / n);
  }
}

/**
 * Writes the text held in `out` when `last`, when the turn is due (TURN_MS, or its rows) or when it
 * holds WRITE_BYTES, and begins a new turn: whether it wrote.
 */
async function writeWhenDue(writer: SequentialWriter, out: TextBytes, turns: Turns, last: boolean): Promise<boolean> {
  if (!last && out.length < WRITE_BYTES && !turns.due()) return false;
  await writer.write(out.view());
  out.clear();
  turns.restart();
  return true;
}

/**
 * Rows [0, rows) of a table file, read in blocks (forEachTableBlock) of the columns `names`, each
 * made ready once by `prepare` and formatted by `format(out, ready, start, end, first)` (rows
 * [start, end) of the block whose first row is the table's row `first`) in runs of ROWS_AT_ONCE,
 * written in turns as writeRows writes; `onProgress` after each write.
 */
async function writeTableRows<B>(writer: SequentialWriter, out: TextBytes, file: TableReader, names: readonly string[], blockBytes: number, prepare: (block: ColumnTable) => B, format: (out: TextBytes, ready: B, start: number, end: number, first: number) => void, onProgress: (f: number) => void): Promise<void> {
  const n = file.header.rows;
  const turns = new Turns(ROWS_PER_TURN / ROWS_AT_ONCE);
  await forEachTableBlock(file, names, blockBytes, async (block, first) => {
    const ready = prepare(block), m = rowCount(block);
    for (let start = 0; start < m; start += ROWS_AT_ONCE) {
      const end = Math.min(m, start + ROWS_AT_ONCE);
      format(out, ready, start, end, first);
      if (await writeWhenDue(writer, out, turns, first + end === n)) onProgress((first + end) / n);
    }
  });
}

/** The CSV of a table file, in the run's own coordinates (inOwnCoordinates), read in blocks of rows. */
async function writeTableCsv(writer: SequentialWriter, file: TableReader, blockBytes: number, onProgress: (f: number) => void): Promise<void> {
  const names = columnNames(file);
  const head = inOwnCoordinates(await tableRows(file, names, 0, 0));
  if (csvColumns(head).length === 0) throw new FormatNotApplicable(`table '${head.name}' has no columns to export`);
  const out = new TextBytes();
  tableToCsv(out, head, 0, 0);
  await writeTableRows(writer, out, file, names, blockBytes, inOwnCoordinates, (o, block, start, end) => tableToCsv(o, block, start, end, false), onProgress);
  await writer.write(out.view());
}

/**
 * A single-frame dump of a table file: its atoms in the run's own coordinates, wrapped into the box
 * along its periodic sides, with their radii and the box. The box needs every row before the first
 * is written, so the file is read three times in blocks of rows: the largest radius (and the
 * extent, without a declared box), the centres outside the box (boundsHoldingCentres, from the box
 * the first pass gives), then the rows. Each pass carries its running maximum (or bounds) from block
 * to block, so the box is the one the whole table at once gives, to the bit.
 */
async function writeLammps(writer: SequentialWriter, file: TableReader, blockBytes: number, onProgress: (f: number) => void): Promise<void> {
  const names = columnNames(file);
  const head = inOwnCoordinates(await tableRows(file, names, 0, 0));
  const meta = head.meta ?? {};
  // A table that declares no periodic sides has none: a ball mill's vial has walls all round, a
  // surface sample lies in open space (OVITO would otherwise find neighbours across the box).
  const periodic = (meta.periodic as [boolean, boolean, boolean] | undefined) ?? [false, false, false];
  const resolution = typeof meta.resolution === 'number' ? meta.resolution : undefined;
  dumpRadius(head, resolution); // a table without a radius is refused whatever its rows
  const origin = frameOrigin(meta) ?? [0, 0, 0];
  const declared = meta.box ? frameBounds(meta.box as [number, number, number], origin) : containerBounds(meta);
  const centres = names.filter((c) => c === 'x' || c === 'y' || c === 'z');
  const sized = names.filter((c) => c === 'x' || c === 'y' || c === 'z' || c === 'r' || c === 'voxels' || c === 'size');
  let reach = 0;
  const extent: [number, number, number] = [0, 0, 0];
  await forEachTableBlock(file, sized, blockBytes, (rows) => {
    const block = inOwnCoordinates(rows), radius = dumpRadius(block, resolution);
    reach = maxRadius(radius, reach);
    if (!declared) boundingBox(block, radius, extent);
  });
  let box = thickened(declared ?? { box: extent }, reach);
  await forEachTableBlock(file, centres, blockBytes, (rows) => { box = boundsHoldingCentres(inOwnCoordinates(rows), box.lo, box.box, periodic); });
  // The category the table declares (a stacking's size class, a voxel packing's type) is the atom type OVITO colours by.
  const category = (meta.particleTable as ParticleTableSpec | undefined)?.category?.column;
  const typeColumn = category && category in head.columns ? category : 'type';
  await writer.write(dumpHead(head, { ...box, periodic, atoms: file.header.rows }));
  const ready = (rows: ColumnTable) => {
    const block = inOwnCoordinates(rows);
    return { atoms: wrapIntoBox(block, box.lo, box.box, periodic), radius: dumpRadius(block, resolution) };
  };
  await writeTableRows(writer, new TextBytes(), file, names, blockBytes, ready, (out, { atoms, radius }, start, end, first) => dumpRows(out, atoms, radius, start, end, typeColumn, undefined, first), onProgress);
}

/** Rows of trajectories read from the file at a time (whole frames, at least one). */
const BLOCK_ROWS = 65536;

/** Per-atom columns of the trajectory dump after radius. */
const TRAJECTORY_COLUMNS = ['speed', 'impacts'];

/**
 * A table of frames (a ball mill's trajectories, core/common/engine.ts "Table meta") as a multi-frame
 * LAMMPS dump, one ITEM: TIMESTEP block per frame, as OVITO reads an animation: ITEM: TIME the
 * frame's simulated time (LAMMPS's `dump_modify time yes`), TIMESTEP the frame's index, id the
 * ball's + 1 in every frame (so OVITO follows each ball). Positions are the stored ones, in the lab
 * frame as the inspector plays them back: the box is the vial moved by the frame's offset
 * (frameOffsets), widened to hold every centre. Streamed: a block of frames of at most
 * BLOCK_ROWS rows (at least one frame) is read from the file at a time, and written in turns (writeRows).
 */
async function writeTrajectoryLammps(writer: SequentialWriter, run: ExportableRun, spec: ExportFormat, onProgress: (f: number) => void): Promise<void> {
  await withTrajectories(run, spec, writer.signal, async (file, path) => {
    const { header } = file;
    const meta = header.meta as Record<string, unknown>;
    const frames = Number(meta.frames), n = Number(meta.frameRows);
    if (!(Number.isInteger(frames) && Number.isInteger(n) && frames > 0 && n > 0 && frames * n === header.rows)) {
      throw new Error(`table ${path} is damaged: meta.frames × meta.frameRows (${String(meta.frames)} × ${String(meta.frameRows)}) must be its ${header.rows} rows`);
    }
    const times = meta.frameTimes as number[] | undefined, offsets = meta.frameOffsets as number[] | undefined;
    const names = ['x', 'y', 'z', 'r', ...TRAJECTORY_COLUMNS];
    const periodic = [false, false, false] as const;
    const perBlock = Math.max(1, Math.floor(BLOCK_ROWS / n));
    const out = new TextBytes();
    const turns = new Turns(ROWS_PER_TURN / ROWS_AT_ONCE);
    for (let f0 = 0; f0 < frames; f0 += perBlock) {
      const f1 = Math.min(frames, f0 + perBlock);
      const block = await file.readRows(names, f0 * n, f1 * n);
      turns.restart();
      for (let f = f0; f < f1; f++) {
        const columns: ColumnTable['columns'] = {};
        for (const c of names) columns[c] = block[c].subarray((f - f0) * n, (f - f0 + 1) * n);
        const frame: ColumnTable = { kind: 'table', name: 'trajectories', columns, meta };
        const r = columns.r as Float32Array | Float64Array;
        const bounds = containerBounds({ ...meta, containerOffset: offsets?.[f] ?? 0 }) ?? { box: boundingBox(frame, r) };
        const flat = thickened(bounds, maxRadius(r));
        const box = boundsHoldingCentres(frame, flat.lo, flat.box, periodic);
        out.text(dumpHead(frame, { ...box, periodic, timestep: f, time: times?.[f] ?? f, columns: TRAJECTORY_COLUMNS }));
        // Written in turns within a frame too (a frame may hold many balls).
        for (let start = 0; start < n; start += ROWS_AT_ONCE) {
          dumpRows(out, frame, r, start, Math.min(n, start + ROWS_AT_ONCE), 'type', TRAJECTORY_COLUMNS);
          await writeWhenDue(writer, out, turns, false);
        }
      }
      await writeWhenDue(writer, out, turns, true);
      onProgress(f1 / frames);
    }
  });
}

/**
 * The bounds of a table's container (core/common/engine.ts, "Table meta": a box or a vertical
 * cylinder), moved by containerOffset along the axis it moves along: a ball mill's vial at the end.
 */
function containerBounds(meta: Record<string, unknown>): { lo: [number, number, number]; box: [number, number, number] } | undefined {
  const c = meta.container as { shape?: string; min?: number[] | number; max?: number[] | number; centre?: number[]; radius?: number; moves?: string } | undefined;
  let lo: [number, number, number], hi: [number, number, number];
  if (c?.shape === 'box' && Array.isArray(c.min) && Array.isArray(c.max)) {
    lo = [c.min[0], c.min[1], c.min[2]];
    hi = [c.max[0], c.max[1], c.max[2]];
  } else if (c?.shape === 'cylinder' && Array.isArray(c.centre) && typeof c.radius === 'number' && typeof c.min === 'number' && typeof c.max === 'number') {
    lo = [c.centre[0] - c.radius, c.centre[1] - c.radius, c.min];
    hi = [c.centre[0] + c.radius, c.centre[1] + c.radius, c.max];
  } else {
    return undefined;
  }
  const axis = ['x', 'y', 'z'].indexOf(c.moves ?? '');
  const offset = typeof meta.containerOffset === 'number' ? meta.containerOffset : 0;
  if (axis >= 0) { lo[axis] += offset; hi[axis] += offset; }
  return { lo, box: hi };
}

/**
 * Bounds with every flat side given a thickness: a 2D table (disks in the plane z = 0) declares a
 * box 0 thick along z, which OVITO and LAMMPS refuse or draw as nothing; the dump's box reaches the
 * largest radius (0.5 without particles) either side of the plane instead, so every disk is in it.
 */
function thickened(bounds: { lo?: readonly number[]; box: readonly number[] }, largestRadius: number): { lo: [number, number, number]; box: [number, number, number] } {
  const reach = largestRadius > 0 ? largestRadius : 0.5;
  const lo: [number, number, number] = [bounds.lo?.[0] ?? 0, bounds.lo?.[1] ?? 0, bounds.lo?.[2] ?? 0];
  const hi: [number, number, number] = [bounds.box[0], bounds.box[1], bounds.box[2]];
  for (let a = 0; a < 3; a++) if (!(hi[a] > lo[a])) { lo[a] -= reach; hi[a] += reach; }
  return { lo, box: hi };
}

/** A table's box [0, box] moved to its frame's origin. */
function frameBounds(box: readonly [number, number, number], origin: readonly number[]): { lo: [number, number, number]; box: [number, number, number] } {
  return { lo: [origin[0], origin[1], origin[2]], box: [origin[0] + box[0], origin[1] + box[1], origin[2] + box[2]] };
}

/**
 * [0, max(x + r)] etc. when a table carries no box; `hi` the maxima of the rows before (a table read
 * in blocks of rows), updated and returned.
 */
function boundingBox(table: ColumnTable, radius: Float64Array | Float32Array, hi: [number, number, number] = [0, 0, 0]): [number, number, number] {
  (['x', 'y', 'z'] as const).forEach((c, a) => {
    const col = table.columns[c];
    for (let i = 0; col && i < col.length; i++) hi[a] = Math.max(hi[a], col[i] + radius[i]);
  });
  return hi;
}

/** The largest radius, `from` that of the rows before (a table read in blocks of rows); NaN if any is. */
function maxRadius(radius: Float64Array | Float32Array, from = 0): number {
  let reach = from;
  for (let i = 0; i < radius.length; i++) reach = Math.max(reach, radius[i]);
  return reach;
}

/**
 * Label width of a run's volume at `path`: a packing's labels (volume 'labels', particle index + 1)
 * from its particle count when it has a table, else (a surface's solid, 0 and 1, whatever its
 * particle count) by reading the labels once. The count is the table's header's: the table itself
 * can be larger than a volume export should read (and than readFile reads: 2 GiB, a 2048³ packing's).
 */
async function volumeDtype(run: ExportableRun, path: string, reader: VolumeReader, slabBytes: number): Promise<LabelDtype> {
  const tableArtifact = run.artifacts.find((a) => a.kind === 'table' && a.name === 'particles');
  const particleLabels = run.artifacts.some((a) => a.kind === 'volume' && a.name === 'labels' && a.path === path);
  if (!tableArtifact || !particleLabels) return scannedDtype(reader, slabBytes);
  const table = await openTable(tableArtifact.path, reader.signal);
  try {
    return labelDtype(table.header.rows);
  } finally {
    await table.close();
  }
}

async function scannedDtype(reader: VolumeReader, slabBytes: number): Promise<LabelDtype> {
  let max = 0;
  await forEachSlab(reader, slabBytes, (labels) => { max = Math.max(max, maxOf(labels)); });
  return labelDtype(max);
}

/** Calls fn with consecutive z-slabs of at most slabBytes of labels (at least one slice), reusing one buffer. */
async function forEachSlab(reader: VolumeReader, slabBytes: number, fn: (labels: Uint32Array, z0: number, z1: number) => Promise<void> | void): Promise<void> {
  const [nx, ny, nz] = reader.header.dims;
  const step = slabSlices(reader.header.dims, slabBytes);
  const buffer = new Uint32Array(Math.min(nz, step) * nx * ny);
  for (let z0 = 0; z0 < nz; z0 += step) {
    const z1 = Math.min(nz, z0 + step);
    await fn(await reader.readSlab(z0, z1, buffer), z0, z1);
  }
}

function slabSlices(dims: readonly [number, number, number], slabBytes: number): number {
  return Math.min(dims[2], Math.max(1, Math.floor(slabBytes / (dims[0] * dims[1] * 4))));
}

/** The run's length unit: the label volume's meta.unit when it names one, else length units (UNITS.length), as its metrics say. */
async function lengthUnit(run: ExportableRun): Promise<string> {
  const labels = volumeArtifact(run);
  if (!labels) return UNITS.length;
  const reader = await openVolume(labels.path);
  await reader.close();
  return typeof reader.header.meta.unit === 'string' ? reader.header.meta.unit : UNITS.length;
}

/**
 * A label volume, or the height map: its pixels are voxelSize wide in the run's length unit and
 * its values heights in voxels, which the TIFF calibrates to length (value * voxelSize).
 */
async function writeVolume(
  writer: SequentialWriter, run: ExportableRun, path: string, format: 'vti' | 'tiff' | 'raw', outPath: string,
  onProgress: (f: number) => void, slabBytes: number, volume: 'labels' | 'heightmap',
): Promise<void> {
  const unit = await lengthUnit(run);
  const reader = await openVolume(path, writer.signal);
  try {
    const { dims, voxelSize } = reader.header;
    const origin = frameOrigin(reader.header.meta);
    // Labels never exceed the particle count; height maps are scanned.
    const dtype = volume === 'labels' ? await volumeDtype(run, path, reader, slabBytes) : await scannedDtype(reader, slabBytes);
    let tail: Uint8Array = new Uint8Array(0);
    if (format === 'vti') {
      await writer.write(vtiHead(dims, voxelSize, dtype, 'label', origin));
      tail = vtiTail();
    } else if (format === 'tiff') {
      const values = volume === 'heightmap' ? { offset: 0, scale: voxelSize, unit } : undefined;
      const layout = asNotApplicable(() => tiffLayout(dims, voxelSize, dtype, { unit, values, origin }));
      await writer.write(layout.head);
      tail = layout.tail;
    }
    const scratch = new Uint8Array(slabSlices(dims, slabBytes) * dims[0] * dims[1] * bytesPerLabel(dtype));
    await forEachSlab(reader, slabBytes, async (labels, _z0, z1) => {
      await writer.write(labelBytes(labels, dtype, scratch));
      onProgress(z1 / dims[2]);
    });
    await writer.write(tail);
    if (format === 'raw') {
      // What the labels are, as the volume says (a surface run's is 1 inside the surface), else a packing's.
      const labels = typeof reader.header.meta.labels === 'string' ? reader.header.meta.labels : 'label = particle index + 1, 0 = void';
      const sidecar = rawSidecar({ dims, dtype, byteOrder: 'little', headerBytes: 0, voxelSize, unit, origin }, { run: run.id, labels });
      const fh = await open(`${outPath}.json`, 'w');
      try { await fh.writeFile(sidecar); } finally { await fh.close(); }
    }
  } finally {
    await reader.close();
  }
}

/**
 * What a format cannot hold of a run (a RangeError of its writer: a TIFF's resolution or 4 GiB page)
 * as FormatNotApplicable: another format is the caller's choice (the CLI's exit 2).
 */
function asNotApplicable<T>(write: () => T): T {
  try {
    return write();
  } catch (err) {
    throw err instanceof RangeError ? new FormatNotApplicable(err.message) : err;
  }
}

/** Calls fn with the window of slices z - 1, z, z + 1 for every z, three slices in memory. */
async function forEachSliceWindow(reader: VolumeReader, fn: (w: SliceWindow) => Promise<void> | void): Promise<void> {
  const [nx, ny, nz] = reader.header.dims;
  // Slice z lives in slices[z % 3]; reading slice z + 1 overwrites z - 2, no longer needed.
  const slices = [0, 1, 2].map(() => new Uint32Array(nx * ny));
  await reader.readSlab(0, 1, slices[0]);
  for (let z = 0; z < nz; z++) {
    if (z + 1 < nz) await reader.readSlab(z + 1, z + 2, slices[(z + 1) % 3]);
    await fn({ below: z > 0 ? slices[(z - 1) % 3] : undefined, slice: slices[z % 3], above: z + 1 < nz ? slices[(z + 1) % 3] : undefined, nx, ny, z });
  }
}

/** The whole solid phase, binary; the triangle count is patched in at the end. */
async function writeSolidStl(writer: SequentialWriter, run: ExportableRun, spec: ExportFormat, onProgress: (f: number) => void): Promise<void> {
  const reader = await openVolume(volumePath(run, spec), writer.signal);
  try {
    const { dims, voxelSize } = reader.header;
    const origin = frameOrigin(reader.header.meta);
    await writer.write(stlHeader(0, `PackBench solid phase of run ${run.id}`));
    // Rows per call: keeps the triangle buffer of one call to a few tens of MB even for dense faces.
    const rowsPerCall = Math.max(1, Math.floor((1 << 16) / dims[0]));
    await forEachSliceWindow(reader, async (w) => {
      for (let y0 = 0; y0 < w.ny; y0 += rowsPerCall) await writer.write(solidSurfaceTriangles(w, voxelSize, y0, Math.min(w.ny, y0 + rowsPerCall), origin));
      onProgress((w.z + 1) / dims[2]);
    });
    await writer.patchUint32(80, (writer.bytes - STL_HEADER_BYTES) / STL_TRIANGLE_BYTES);
  } finally {
    await reader.close();
  }
}

/**
 * The per-particle STL of a run without particles (one stopped before its first): refused, as an
 * empty file would be no STL at all (an ASCII STL is at least one `solid … endsolid`, and a solid
 * that is no particle would be counted as one).
 */
const NO_PARTICLE_SURFACES = (run: { id: string }, why: string) => `run ${run.id} has no particles (${why}): there are no particle surfaces to write, and an ASCII STL cannot hold none`;

/**
 * One named solid per particle, streamed: a pass for each particle's cut (periodic unwrapping), a
 * pass counting its triangles (fixed-width records, so every solid's place in the file is known),
 * and a pass writing each slice's triangles of each particle into its place.
 */
async function writeParticleStl(writer: SequentialWriter, run: ExportableRun, spec: ExportFormat, onProgress: (f: number) => void, slabBytes: number): Promise<void> {
  const reader = await openVolume(volumePath(run, spec), writer.signal);
  try {
    const { dims, voxelSize, meta } = reader.header;
    const origin = frameOrigin(meta);
    const [nx, ny, nz] = dims;
    let labels = 0;
    await forEachSlab(reader, slabBytes, (slab) => { labels = Math.max(labels, maxOf(slab)); });
    if (labels === 0) throw new FormatNotApplicable(NO_PARTICLE_SURFACES(run, 'its label volume is all 0'));
    // A volume that declares no periodic sides has none (a surface sampling's solid lies in open
    // space): cutting it at a circular mean would move part of it a frame's width away.
    const periodic = Array.isArray(meta.periodic) ? (meta.periodic as boolean[]) : [false, false, false];
    const cuts = new ParticleCuts(labels, nx, ny, [periodic[0] !== false, periodic[1] !== false]);
    await forEachSlab(reader, slabBytes, (slab) => cuts.add(slab));
    const surface = new ParticleSurface(cuts);
    const triangles = new Float64Array(labels + 1);
    await forEachSliceWindow(reader, (w) => {
      for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
        const l = w.slice[x + nx * y];
        if (l !== 0) triangles[l] += surface.voxel(w, x, y, () => {});
      }
      onProgress((0.5 * (w.z + 1)) / nz);
    });
    // Each solid's place; particles without voxels (all held by others, or clipped) have none.
    const start = new Float64Array(labels + 1), filled = new Float64Array(labels + 1);
    let at = 0;
    for (let l = 1; l <= labels; l++) {
      if (triangles[l] === 0) continue;
      start[l] = at + asciiSolidHead(l).length;
      await writer.writeAt(at, asciiSolidHead(l));
      at = start[l] + triangles[l] * ASCII_FACET_BYTES;
      await writer.writeAt(at, asciiSolidTail(l));
      at += asciiSolidTail(l).length;
    }
    // Each particle's triangles gather over slices and go to its place in few large writes.
    const pending = new Map<number, string[]>();
    let pendingBytes = 0;
    const flush = async () => {
      for (const [l, lines] of pending) {
        const chunk = lines.join('');
        await writer.writeAt(start[l] + filled[l], chunk);
        filled[l] += chunk.length;
      }
      pending.clear();
      pendingBytes = 0;
    };
    await forEachSliceWindow(reader, async (w) => {
      for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
        const l = w.slice[x + nx * y];
        if (l === 0) continue;
        let lines = pending.get(l);
        if (!lines) pending.set(l, (lines = []));
        const out = lines;
        pendingBytes += ASCII_FACET_BYTES * surface.voxel(w, x, y, (n, a, b, c) => out.push(asciiFacet(n, a, b, c, voxelSize, origin)));
      }
      if (pendingBytes > PENDING_BYTES) await flush();
      onProgress(0.5 + (0.5 * (w.z + 1)) / nz);
    });
    await flush();
  } finally {
    await reader.close();
  }
}

async function writeSphereStl(writer: SequentialWriter, run: ExportableRun, file: TableReader, blockBytes: number, onProgress: (f: number) => void): Promise<void> {
  const head = await tableRows(file, columnNames(file), 0, 0);
  if (!isSphereTable(head)) throw new FormatNotApplicable(`table '${head.name}' is not a sphere table (x, y, z, r) and the run has no label volume, so there are no surfaces to export`);
  const n = file.header.rows;
  if (n === 0) throw new FormatNotApplicable(NO_PARTICLE_SURFACES(run, `its table '${head.name}' has no rows`));
  // In turns, as writeRows, of at most 256 spheres (5 MB of text): 1,024 at once held the host's thread 0.1-0.2 s.
  const turns = new Turns(256);
  let text = '';
  await forEachTableBlock(file, ['x', 'y', 'z', 'r'], blockBytes, async (rows, first) => {
    const { x, y, z, r } = inOwnCoordinates(rows).columns;
    for (let k = 0; k < r.length; k++) {
      const i = first + k;
      text += sphereSolid(i + 1, x[k], y[k], z[k], r[k]);
      if (i + 1 < n && text.length < WRITE_BYTES && !turns.due()) continue;
      await writer.write(text);
      text = '';
      turns.restart();
      onProgress((i + 1) / n);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Artifacts on disk

function volumeArtifact(run: ExportableRun): ExportableRun['artifacts'][number] | undefined {
  const volumes = run.artifacts.filter(isLabelVolume);
  return volumes.find((a) => a.name === 'labels') ?? volumes[0];
}

/** The run's particle table: the one named 'particles' (or 'spheres'), else its only table. */
function tableArtifact(run: ExportableRun): ExportableRun['artifacts'][number] | undefined {
  const tables = run.artifacts.filter((a) => a.kind === 'table');
  return tables.find((a) => a.name === 'particles') ?? tables.find((a) => a.name === 'spheres') ?? tables[0];
}

const heightmapArtifact = (run: ExportableRun) => run.artifacts.find(isHeightmap);

/** What a format needs that the run has no artifact of, as the export says it. */
const MISSING = {
  table: (run: { id: string }, spec: { id: string }) => `run ${run.id} has no particle table artifact, which format '${spec.id}' needs`,
  volume: (run: { id: string }, spec: { id: string }) => `run ${run.id} has no label volume artifact, which format '${spec.id}' needs (voxel packings have one, and surface samplings with voxelsAcross > 0)`,
  heightmap: (run: { id: string }, spec: { id: string }) => `run ${run.id} has no height map artifact, which format '${spec.id}' needs (voxel runs analysed by core/analysis have one)`,
  trajectory: (run: { id: string }, spec: { id: string }) => `run ${run.id} has no trajectories artifact, which format '${spec.id}' needs (ball mill runs make it when output.frameRate > 0)`,
};

/**
 * Why the run has no artifact a format needs (as exportRun says it), or null; from the run's artifact
 * records, without reading a file (the web host's answer to HEAD). A file that turns out damaged, or
 * a table that is no sphere table, is found only by the export.
 */
export function lackingData(run: Pick<ExportableRun, 'id' | 'artifacts'>, spec: ExportFormat): string | null {
  const missing = missingArtifact(spec.needs, run.artifacts);
  return missing ? MISSING[missing](run, spec) : null;
}

function volumePath(run: ExportableRun, spec: { id: string }): string {
  const pick = volumeArtifact(run);
  if (!pick) throw new FormatNotApplicable(MISSING.volume(run, spec));
  return pick.path;
}

/** The run's particle table, open (openTable) while `fn` reads it. */
async function withParticleTable(run: ExportableRun, spec: { id: string }, signal: AbortSignal | undefined, fn: (file: TableReader) => Promise<void>): Promise<void> {
  await withTable(tableArtifact(run)?.path, () => MISSING.table(run, spec), signal, fn);
}

/** fn on the run's trajectories (a ball mill's), open, closed after; FormatNotApplicable when it has none. */
async function withTrajectories(run: ExportableRun, spec: { id: string }, signal: AbortSignal | undefined, fn: (file: TableReader, path: string) => Promise<void>): Promise<void> {
  await withTable(run.artifacts.find(isTrajectories)?.path, () => MISSING.trajectory(run, spec), signal, fn);
}

/** fn on the table at `path`, open, closed after; FormatNotApplicable (`missing()`) when there is none. */
async function withTable(path: string | undefined, missing: () => string, signal: AbortSignal | undefined, fn: (file: TableReader, path: string) => Promise<void>): Promise<void> {
  if (path === undefined) throw new FormatNotApplicable(missing());
  const file = await openTable(path, signal);
  try {
    await fn(file, path);
  } finally {
    await file.close();
  }
}

const columnNames = (file: TableReader) => file.header.columns.map((c) => c.name);

/** Rows [start, end) of the columns `names` of an open table, as a table of its name and meta. */
async function tableRows(file: TableReader, names: readonly string[], start: number, end: number): Promise<ColumnTable> {
  const { name, ...meta } = file.header.meta as { name?: string };
  return { kind: 'table', name: name ?? 'table', columns: await file.readRows(names, start, end), meta };
}

/**
 * The rows of an open table in blocks of about `blockBytes` of the columns `names` (at least a row),
 * each as a table (tableRows) and `first` its first row: the exports of particle tables read them so,
 * as those of volumes read z-slabs. A table can be larger than memory should hold, and than readFile
 * reads (2 GiB: a 2048³ packing of 5-voxel particles has about 70 million rows, 17 columns).
 */
async function forEachTableBlock(file: TableReader, names: readonly string[], blockBytes: number, fn: (block: ColumnTable, first: number) => Promise<void> | void): Promise<void> {
  let rowBytes = 0;
  for (const c of file.header.columns) if (names.includes(c.name)) rowBytes += dtypeConstructor(c.dtype).BYTES_PER_ELEMENT;
  const { rows } = file.header;
  const perBlock = Math.max(1, Math.floor(blockBytes / Math.max(1, rowBytes)));
  for (let first = 0; first < rows; first += perBlock) await fn(await tableRows(file, names, first, Math.min(rows, first + perBlock)), first);
}

/**
 * An open .pbt file: its header and a reader of row ranges of its columns, for tables too large to
 * load whole. A read after `signal` is aborted fails with its reason.
 */
interface TableReader {
  header: TableHeader;
  /** Rows [start, end) of the named columns, each a new array of its column's type. */
  readRows(names: readonly string[], start: number, end: number): Promise<Record<string, ColumnTable['columns'][string]>>;
  close(): Promise<void>;
}

async function openTable(path: string, signal?: AbortSignal): Promise<TableReader> {
  const fh = await open(path, 'r');
  try {
    const { header, dataOffset, size } = await readFileHeader<TableHeader>(fh, `table ${path}`, TABLE_MAGIC);
    const columns = new Map(header.columns.map((c) => [c.name, c]));
    for (const c of header.columns) {
      const end = dataOffset + c.byteOffset + header.rows * dtypeConstructor(c.dtype).BYTES_PER_ELEMENT;
      if (size < end) throw new Error(`table ${path} is truncated: column '${c.name}' needs ${end} bytes, the file has ${size}`);
    }
    return {
      header,
      async readRows(names, start, end) {
        signal?.throwIfAborted();
        const out: Record<string, ColumnTable['columns'][string]> = {};
        for (const name of names) {
          const c = columns.get(name);
          if (!c) throw new Error(`table ${path} has no column '${name}'`);
          const ctor = dtypeConstructor(c.dtype);
          const values = new ctor(end - start);
          await readExactly(fh, new Uint8Array(values.buffer, values.byteOffset, values.byteLength), dataOffset + c.byteOffset + start * ctor.BYTES_PER_ELEMENT, `table ${path} ended early in column '${name}'`);
          out[name] = values;
        }
        return out;
      },
      close: () => fh.close(),
    };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** The header of an open .pbt or .pbv file (`what` names it in errors: 'table PATH'), and the file's size. */
async function readFileHeader<H>(fh: FileHandle, what: string, magic: string): Promise<{ header: H; dataOffset: number; size: number }> {
  const { size } = await fh.stat();
  const pre = new Uint8Array(12);
  await fh.read(pre, 0, 12, 0);
  const head = new Uint8Array(headerByteLength(pre, size, what));
  await fh.read(head, 0, head.length, 0);
  try {
    return { ...decodeHeader<H>(head, magic), size };
  } catch (err) {
    throw new Error(`${what} is damaged: ${(err as Error).message}`);
  }
}

/** Fills `bytes` from the file at `position` (a read may return fewer bytes than asked); `ended` is the error if the file ends first. */
async function readExactly(fh: FileHandle, bytes: Uint8Array, position: number, ended: string): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesRead } = await fh.read(bytes, done, bytes.length - done, position + done);
    if (bytesRead === 0) throw new Error(ended);
    done += bytesRead;
  }
}

/** An open .pbv file: its header and a reader of z-slabs of labels; a read after `signal` is aborted fails with its reason. */
export interface VolumeReader {
  header: VolumeHeader;
  signal?: AbortSignal;
  /** Reads slices [z0, z1) into `into` (length >= (z1 - z0) * nx * ny) and returns the filled view. */
  readSlab(z0: number, z1: number, into: Uint32Array): Promise<Uint32Array>;
  close(): Promise<void>;
}

export async function openVolume(path: string, signal?: AbortSignal): Promise<VolumeReader> {
  const fh = await open(path, 'r');
  try {
    const { header, dataOffset, size } = await readFileHeader<VolumeHeader>(fh, `volume ${path}`, VOLUME_MAGIC);
    const [nx, ny, nz] = header.dims;
    if (size < dataOffset + nx * ny * nz * 4) throw new Error(`volume ${path} is truncated: needs ${dataOffset + nx * ny * nz * 4} bytes, has ${size}`);
    return {
      header,
      signal,
      async readSlab(z0, z1, into) {
        signal?.throwIfAborted();
        const slice = nx * ny;
        const view = into.subarray(0, (z1 - z0) * slice);
        await readExactly(fh, new Uint8Array(view.buffer, view.byteOffset, view.byteLength), dataOffset + z0 * slice * 4, `volume ${path} ended early at slice ${z0}`);
        return view;
      },
      close: () => fh.close(),
    };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/**
 * Appends strings and byte arrays to a file in order, counting bytes. A write after `signal` is
 * aborted fails with its reason: every export writes as it goes, so it stops there.
 */
class SequentialWriter {
  bytes = 0;
  constructor(private readonly fh: FileHandle, readonly signal?: AbortSignal) {}
  async write(data: string | Uint8Array): Promise<void> {
    this.signal?.throwIfAborted();
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let done = 0;
    while (done < buf.length) {
      const { bytesWritten } = await this.fh.write(buf, done, buf.length - done, this.bytes + done);
      done += bytesWritten;
    }
    this.bytes += buf.length;
  }
  /** Writes at a byte offset (records placed out of order); the file grows to cover them. */
  async writeAt(at: number, data: string): Promise<void> {
    this.signal?.throwIfAborted();
    const buf = Buffer.from(data, 'latin1');
    let done = 0;
    while (done < buf.length) {
      const { bytesWritten } = await this.fh.write(buf, done, buf.length - done, at + done);
      done += bytesWritten;
    }
    this.bytes = Math.max(this.bytes, at + buf.length);
  }
  /** Overwrites 4 bytes already written (a count only known at the end). */
  async patchUint32(at: number, value: number): Promise<void> {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    await this.fh.write(b, 0, 4, at);
  }
}

