/**
 * Export formats of a packed voxel run, each written to a temporary file by exportRun as the app,
 * the CLI and the web host do: wall and process CPU time, bytes. The run is the 187-sphere example
 * (resources/examples/voxel-spheres.json: 96³ voxels), or `npm run bench -- exports FORMAT...`
 * for some formats only.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ColumnTable, EngineResult, LabelVolume } from '../core/common/engine';
import { encodeTable, encodeVolume } from '../core/io/container';
import { voxelEngine, voxelParamsSchema } from '../core/voxel/index';
import { EXPORT_FORMATS, exportRun, type ExportableRun } from '../main/services/exports';
import { printTable, writeResults } from './_harness';

const spec = JSON.parse(readFileSync(new URL('../resources/examples/voxel-spheres.json', import.meta.url), 'utf8'));
const result = voxelEngine.run(voxelParamsSchema.parse(spec.params), { seed: spec.seed, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
const dir = mkdtempSync(join(tmpdir(), 'pb-bench-exports-'));
const artifacts: ExportableRun['artifacts'] = [];
for (const a of result.artifacts) {
  const path = join(dir, `${a.name}.${a.kind === 'table' ? 'pbt' : 'pbv'}`);
  writeFileSync(path, a.kind === 'table' ? encodeTable(a as ColumnTable) : encodeVolume(a as LabelVolume));
  artifacts.push({ kind: a.kind, name: a.name, path });
}
const run: ExportableRun = { id: 'bench', name: 'bench', engine: 'voxel', params: spec.params, metrics: result.metrics, series: result.series, artifacts };

const wanted = process.argv.slice(2).filter((a) => EXPORT_FORMATS.some((f) => f.id === a));
const rows = [];
for (const f of EXPORT_FORMATS.filter((x) => !wanted.length || wanted.includes(x.id))) {
  const cpu0 = process.cpuUsage(), t0 = performance.now();
  const out = await exportRun(run, f.id, join(dir, `out.${f.extension}`));
  const wall = (performance.now() - t0) / 1000, cpu = process.cpuUsage(cpu0);
  rows.push({ format: f.id, MiB: out.bytes / 2 ** 20, 'wall s': wall, 'cpu s': (cpu.user + cpu.system) / 1e6 });
}
rmSync(dir, { recursive: true, force: true });
const title = `exportRun of the 187-sphere example (96³ voxels, ${result.metrics.particles} particles; one thread)`;
printTable(title, rows);
writeResults('exports', { [title]: rows });
