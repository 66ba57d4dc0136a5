/**
 * Export formats of a packed voxel run, each written to a temporary file by exportRun as the app,
 * the CLI and the web host do: wall and process CPU time, bytes. The run is the 187-sphere example
 * (resources/examples/voxel-spheres.json: 96³ voxels), or `npm run bench -- exports FORMAT...`
 * for some formats only. `lammps-trajectory` writes a ball mill's trajectories: frames of 1000
 * balls, float32 positions uniform in a 60 × 60 × 80 mm vial, speeds up to 800 mm/s, made up here
 * (a simulation that samples that many rows takes far longer than its export); `--trajectory-rows N`
 * (default 2·10⁶) sets how many rows.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ColumnTable, EngineResult, LabelVolume } from '../core/common/engine';
import { Random } from '../core/common/random';
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

const rowsAt = process.argv.indexOf('--trajectory-rows');
const trajectoryRows = rowsAt > 0 ? Number(process.argv[rowsAt + 1]) : 2e6;

/** A ball mill run whose trajectories artifact has `rows` rows (rounded up to whole frames of 1000 balls). */
function millRun(rows: number): ExportableRun {
  const balls = 1000, frames = Math.ceil(rows / balls), n = frames * balls;
  const rng = new Random(1);
  const uniform = (scale: number) => Float32Array.from({ length: n }, () => rng.next() * scale);
  const times = Array.from({ length: frames }, (_, f) => f * 1e-3);
  const trajectories: ColumnTable = {
    kind: 'table', name: 'trajectories',
    columns: {
      id: Uint32Array.from({ length: n }, (_, i) => i % balls), x: uniform(60), y: uniform(60), z: uniform(80),
      r: new Float32Array(n).fill(3), speed: uniform(800), impacts: Uint32Array.from({ length: n }, (_, i) => Math.floor(i / balls / 10)),
    },
    meta: { frames, frameRows: balls, frameTimes: times, frameOffsets: times.map((t) => 5 * Math.sin(90 * t)), container: { shape: 'box', min: [0, 0, 0], max: [60, 60, 80], moves: 'z' } },
  };
  const path = join(dir, 'trajectories.pbt');
  writeFileSync(path, encodeTable(trajectories));
  return { id: 'mill', name: 'mill', engine: 'ballmill', params: {}, metrics: {}, series: [], artifacts: [{ kind: 'table', name: 'trajectories', path }] };
}

const wanted = process.argv.slice(2).filter((a) => EXPORT_FORMATS.some((f) => f.id === a));
const rows = [];
for (const f of EXPORT_FORMATS.filter((x) => !wanted.length || wanted.includes(x.id))) {
  const source = f.needs === 'trajectory' ? millRun(trajectoryRows) : run;
  const cpu0 = process.cpuUsage(), t0 = performance.now();
  const out = await exportRun(source, f.id, join(dir, `out.${f.extension}`));
  const wall = (performance.now() - t0) / 1000, cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  rows.push({ format: f.id, rows: source === run ? null : Math.ceil(trajectoryRows / 1000) * 1000, MiB: out.bytes / 2 ** 20, 'wall s': wall, 'cpu s': cpuSeconds, 'MiB per cpu s': out.bytes / 2 ** 20 / cpuSeconds });
}
rmSync(dir, { recursive: true, force: true });
const title = `exportRun of the 187-sphere example (96³ voxels, ${result.metrics.particles} particles; one thread); lammps-trajectory of made-up ball mill trajectories`;
printTable(title, rows);
writeResults('exports', { [title]: rows });
