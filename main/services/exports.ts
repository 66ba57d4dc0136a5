/**
 * Exports a finished run to the files the tools users already have can open: particle tables as
 * CSV and LAMMPS dumps (OVITO), label volumes as raw + JSON header (PoreSpy, numpy), multi-page
 * TIFF (Fiji) and VTK ImageData (ParaView), particle surfaces as STL, results as JSON and CSV.
 *
 * Volumes are streamed: the .pbv artifact is read and the export written one z-slab at a time,
 * so a 2048^3 volume never has to be in memory. The format writers themselves are pure and live in
 * core/io; this module does only files.
 */
import { open, readFile, type FileHandle } from 'node:fs/promises';
import type { EngineSeries } from '../../core/common/engine';
import type { ColumnTable } from '../../core/common/engine';
import { decodeHeader, decodeTable, VOLUME_MAGIC, type VolumeHeader } from '../../core/io/container';
import { csvColumns, rowCount, tableToCsv } from '../../core/io/csv';

export interface ExportableRun {
  id: string;
  name: string;
  engine: string;
  params: unknown;
  metrics: Record<string, unknown>;
  series: EngineSeries[];
  /** Absolute paths of the run's .pbt (table) and .pbv (volume) artifacts. */
  artifacts: { kind: 'table' | 'volume'; name: string; path: string }[];
}

/** What a format needs from a run: its results only, its particle table, or its label volume. */
export type ExportNeed = 'results' | 'table' | 'volume';

export interface ExportFormat {
  id: string;
  title: string;
  extension: string;
  mime: string;
  needs: ExportNeed;
}

export const EXPORT_FORMATS: readonly ExportFormat[] = [
  { id: 'json', title: 'Results as JSON (params, metrics, series)', extension: 'json', mime: 'application/json', needs: 'results' },
  { id: 'series-csv', title: 'Series as CSV (series, x, y)', extension: 'csv', mime: 'text/csv', needs: 'results' },
  { id: 'csv', title: 'Particle table as CSV (spheres: x, y, z, r, type)', extension: 'csv', mime: 'text/csv', needs: 'table' },
];

export async function exportRun(
  run: ExportableRun,
  format: string,
  outPath: string,
  onProgress: (fraction: number) => void = () => {},
): Promise<{ path: string; bytes: number }> {
  const spec = EXPORT_FORMATS.find((f) => f.id === format);
  if (!spec) throw new Error(`unknown export format '${format}'; allowed: ${EXPORT_FORMATS.map((f) => f.id).join(', ')}`);
  const out = await open(outPath, 'w');
  let result: { path: string; bytes: number };
  try {
    const writer = new SequentialWriter(out);
    switch (spec.id) {
      case 'json':
        await writer.write(JSON.stringify(runToJson(run), null, 1) + '\n');
        break;
      case 'series-csv':
        await writeSeriesCsv(writer, run.series);
        break;
      case 'csv':
        await writeTableCsv(writer, await loadTable(run, spec), onProgress);
        break;
    }
    result = { path: outPath, bytes: writer.bytes };
  } finally {
    await out.close();
  }
  onProgress(1);
  return result;
}

/** Params, metrics and series with typed arrays turned into plain arrays. */
export function runToJson(run: ExportableRun): object {
  return {
    id: run.id,
    name: run.name,
    engine: run.engine,
    params: run.params,
    metrics: run.metrics,
    series: run.series.map((s) => ({ name: s.name, kind: s.kind, xLabel: s.xLabel, yLabel: s.yLabel, x: Array.from(s.x), y: Array.from(s.y) })),
  };
}

async function writeSeriesCsv(writer: SequentialWriter, series: EngineSeries[]): Promise<void> {
  await writer.write('series,x_label,y_label,x,y\n');
  for (const s of series) {
    const lines: string[] = [];
    for (let i = 0; i < s.x.length; i++) lines.push(`${csvText(s.name)},${csvText(s.xLabel)},${csvText(s.yLabel)},${s.x[i]},${s.y[i]}`);
    await writer.write(lines.join('\n') + (lines.length ? '\n' : ''));
  }
}

function csvText(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const CSV_CHUNK_ROWS = 65536;

async function writeTableCsv(writer: SequentialWriter, table: ColumnTable, onProgress: (f: number) => void): Promise<void> {
  if (csvColumns(table).length === 0) throw new Error(`table '${table.name}' has no columns to export`);
  const n = rowCount(table);
  if (n === 0) await writer.write(tableToCsv(table, 0, 0));
  for (let start = 0; start < n; start += CSV_CHUNK_ROWS) {
    await writer.write(tableToCsv(table, start, Math.min(n, start + CSV_CHUNK_ROWS)));
    onProgress(Math.min(n, start + CSV_CHUNK_ROWS) / n);
  }
}

// ---------------------------------------------------------------------------------------------
// Artifacts on disk

/** The run's particle table: the one named 'particles' (or 'spheres'), else its only table. */
export async function loadTable(run: ExportableRun, spec: { id: string }): Promise<ColumnTable> {
  const tables = run.artifacts.filter((a) => a.kind === 'table');
  const pick = tables.find((a) => a.name === 'particles') ?? tables.find((a) => a.name === 'spheres') ?? tables[0];
  if (!pick) throw new Error(`run ${run.id} has no particle table artifact, which format '${spec.id}' needs`);
  return decodeTable(new Uint8Array(await readFile(pick.path)));
}

/** An open .pbv file: its header and a reader of z-slabs of labels. */
export interface VolumeReader {
  header: VolumeHeader;
  /** Reads slices [z0, z1) into `into` (length >= (z1 - z0) * nx * ny) and returns the filled view. */
  readSlab(z0: number, z1: number, into: Uint32Array): Promise<Uint32Array>;
  close(): Promise<void>;
}

export async function openVolume(path: string): Promise<VolumeReader> {
  const fh = await open(path, 'r');
  try {
    const pre = new Uint8Array(12);
    await fh.read(pre, 0, 12, 0);
    const len = new DataView(pre.buffer).getUint32(8, true);
    const head = new Uint8Array(12 + len);
    await fh.read(head, 0, head.length, 0);
    const { header, dataOffset } = decodeHeader<VolumeHeader>(head, VOLUME_MAGIC);
    const [nx, ny, nz] = header.dims;
    const { size } = await fh.stat();
    if (size < dataOffset + nx * ny * nz * 4) throw new Error(`volume ${path} is truncated: needs ${dataOffset + nx * ny * nz * 4} bytes, has ${size}`);
    return {
      header,
      async readSlab(z0, z1, into) {
        const slice = nx * ny;
        const view = into.subarray(0, (z1 - z0) * slice);
        const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        let done = 0;
        while (done < bytes.length) {
          const { bytesRead } = await fh.read(bytes, done, bytes.length - done, dataOffset + z0 * slice * 4 + done);
          if (bytesRead === 0) throw new Error(`volume ${path} ended early at slice ${z0}`);
          done += bytesRead;
        }
        return view;
      },
      close: () => fh.close(),
    };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Appends strings and byte arrays to a file in order, counting bytes. */
class SequentialWriter {
  bytes = 0;
  constructor(private readonly fh: FileHandle) {}
  async write(data: string | Uint8Array): Promise<void> {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let done = 0;
    while (done < buf.length) {
      const { bytesWritten } = await this.fh.write(buf, done, buf.length - done, this.bytes + done);
      done += bytesWritten;
    }
    this.bytes += buf.length;
  }
}

