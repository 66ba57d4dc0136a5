/**
 * Structure analysis on a synthetic labelled packing: random spheres (radius 8–14 voxels) rasterised
 * into an n^3 volume up to 85 % of its height, later spheres overwriting earlier ones, so that
 * particles touch and the top is rough. Times each pass and the whole analyseVoxelPacking.
 *
 * Then streams the same volume from a .pbv file into every volume export format, with the peak of
 * live ArrayBuffer memory seen during the export (the volume itself is dropped first).
 *
 *   npm run bench -- analysis [n ...]     (default: 256 512; exports on the largest)
 */
import { printTable, timed, writeResults, type Row } from './_harness';
import { Random } from '../core/common/random';
import type { ColumnTable, LabelVolume } from '../core/common/engine';
import { analyseSpheres, analyseVoxelPacking } from '../core/analysis/index';
import { scanColumns } from '../core/analysis/porosity';
import { voxelContacts } from '../core/analysis/contacts';
import { particleMoments } from '../core/analysis/orientation';
import { encodeHeader, encodeTable, volumeHeader, VOLUME_MAGIC } from '../core/io/container';
import { exportRun, type ExportableRun } from '../main/services/exports';
import { mkdtempSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function syntheticPacking(n: number, seed: number): { labels: LabelVolume; particles: ColumnTable } {
  const rand = new Random(seed);
  const vol = new Uint32Array(n * n * n);
  const target = 0.55 * n * n * n * 0.85;
  const xs: number[] = [], ys: number[] = [], zs: number[] = [], rs: number[] = [];
  let painted = 0;
  while (painted < target) {
    const r = rand.uniform(8, 14), cx = rand.uniform(0, n), cy = rand.uniform(0, n), cz = rand.uniform(r, 0.85 * n - r);
    const label = xs.length + 1;
    xs.push(cx); ys.push(cy); zs.push(cz); rs.push(r);
    const R = Math.ceil(r);
    for (let dz = -R; dz <= R; dz++) {
      const z = Math.round(cz) + dz;
      if (z < 0 || z >= n) continue;
      for (let dy = -R; dy <= R; dy++) {
        const y = (Math.round(cy) + dy + n) % n;
        const rem = r * r - dz * dz - dy * dy;
        if (rem < 0) continue;
        const w = Math.floor(Math.sqrt(rem));
        const row = n * (y + n * z);
        for (let dx = -w; dx <= w; dx++) {
          const x = (Math.round(cx) + dx + n) % n;
          if (vol[row + x] === 0) painted++;
          vol[row + x] = label;
        }
      }
    }
  }
  const count = xs.length;
  const particles: ColumnTable = {
    kind: 'table',
    name: 'particles',
    columns: {
      id: Uint32Array.from({ length: count }, (_, i) => i),
      x: Float64Array.from(xs), y: Float64Array.from(ys), z: Float64Array.from(zs), r: Float64Array.from(rs),
      rx: Int16Array.from({ length: count }, () => rand.int(360)),
      ry: Int16Array.from({ length: count }, () => rand.int(360)),
      rz: Int16Array.from({ length: count }, () => rand.int(360)),
    },
    meta: { periodic: [true, true, false] },
  };
  return { labels: { kind: 'volume', name: 'labels', dims: [n, n, n], voxelSize: 1, labels: vol }, particles };
}

const sizes = process.argv.slice(2).map(Number).filter((v) => v > 0);
const list = sizes.length ? sizes : [256, 512];
const rows: Row[] = [];
const dir = mkdtempSync(join(tmpdir(), 'pb-bench-export-'));
let runForExport: ExportableRun | undefined;
for (const n of list) {
  const { labels, particles } = syntheticPacking(n, 1);
  const dims = labels.dims;
  const periodic: [boolean, boolean, boolean] = [true, true, false];
  const count = particles.columns.id.length;
  const mvox = (n ** 3) / 1e6;
  const phase = (name: string, seconds: number) => rows.push({ n, voxels: n ** 3, particles: count, pass: name, seconds, 'Mvoxel/s': mvox / seconds });
  phase('porosity + height map', timed(() => scanColumns(labels.labels, dims)).seconds);
  phase('moments (orientation, sizes)', timed(() => particleMoments(labels.labels, dims, periodic, count)).seconds);
  phase('contacts', timed(() => voxelContacts(labels.labels, dims, periodic)).seconds);
  const full = timed(() => analyseVoxelPacking(labels, particles));
  phase('analyseVoxelPacking (all, incl. pores)', full.seconds);
  const m = full.value.metrics;
  rows.push({ n, voxels: n ** 3, particles: count, pass: `bed porosity ${Number(m.bedPorosity).toFixed(3)}, bulk ${Number(m.bulkPorosity).toFixed(3)}, Z ${Number(m.coordinationMean).toFixed(2)}, pore grid stride ${m.poreGridStride}`, seconds: null, 'Mvoxel/s': null });
  if (n === Math.max(...list)) {
    // The artifacts as the worker writes them: header, then the labels straight from memory.
    const pbv = join(dir, 'labels.pbv'), pbt = join(dir, 'particles.pbt');
    const fd = openSync(pbv, 'w');
    writeSync(fd, encodeHeader(VOLUME_MAGIC, { ...volumeHeader(labels), meta: { name: 'labels' } }));
    writeSync(fd, new Uint8Array(labels.labels.buffer));
    closeSync(fd);
    writeFileSync(pbt, encodeTable(particles));
    runForExport = {
      id: 'bench', name: 'bench', engine: 'voxel', params: {}, metrics: {}, series: [],
      artifacts: [{ kind: 'table', name: 'particles', path: pbt }, { kind: 'volume', name: 'labels', path: pbv }],
    };
  }
}
printTable('Structure analysis of a synthetic sphere packing (1 thread)', rows);

// Sphere sets: a jittered simple cubic lattice (spacing 1, radii 0.45–0.5) of k^3 spheres.
const sphereRows: Row[] = [];
for (const k of [46, 100]) {
  const rand = new Random(2);
  const n = k ** 3;
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), r = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = (i % k) + 0.5 + rand.uniform(-0.03, 0.03);
    y[i] = (Math.floor(i / k) % k) + 0.5 + rand.uniform(-0.03, 0.03);
    z[i] = Math.floor(i / (k * k)) + 0.5 + rand.uniform(-0.03, 0.03);
    r[i] = rand.uniform(0.45, 0.5);
  }
  const t = timed(() => analyseSpheres({ kind: 'table', name: 'spheres', columns: { x, y, z, r } }, [k, k, k], { bulkTop: k - 1 }));
  sphereRows.push({ spheres: n, seconds: t.seconds, 'spheres/s': n / t.seconds, Z: Number(t.value.metrics.coordinationMean), porosity: Number(t.value.metrics.bulkPorosity), 'pore grid spacing': Number(t.value.metrics.poreGridSpacing) });
}
printTable('analyseSpheres (contacts, RDF from 5000 reference spheres, exact porosity, height map, pores on 2^21 cells; 1 thread)', sphereRows);

const exportRows: Row[] = [];
if (runForExport) {
  const n = Math.max(...list);
  for (const format of ['raw', 'tiff', 'vti', 'stl-solid']) {
    const out = join(dir, `out.${format}`);
    const base = process.memoryUsage().arrayBuffers;
    let peak = base;
    const t0 = process.hrtime.bigint();
    await exportRun(runForExport, format, out, () => { peak = Math.max(peak, process.memoryUsage().arrayBuffers); });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const bytes = statSync(out).size;
    exportRows.push({ n, format, 'output MB': bytes / 1e6, seconds, 'MB/s': bytes / 1e6 / seconds, 'peak extra ArrayBuffer MB': (peak - base) / 1e6 });
    rmSync(out, { force: true });
  }
  printTable(`Streamed export of the ${n}^3 label volume from its .pbv file (volume ${(n ** 3 * 4) / 1e6} MB on disk)`, exportRows);
}
rmSync(dir, { recursive: true, force: true });
writeResults('analysis', { analysis: rows, spheres: sphereRows, exports: exportRows });
