import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeHeader, encodeTable, encodeVolume, TABLE_MAGIC } from '../../core/io/container';
import { sphereCsvToTable } from '../../core/io/csv';
import { parseDump } from '../../core/io/lammps';
import { parseStl } from '../../core/io/mesh';
import { asciiSolids, checkSurface } from '../core/io/surface-check';
import { parseRawHeader } from '../../core/io/raw';
import { decodeTiffStack } from '../../core/io/tiff';
import { decodeVti } from '../../core/io/vti';
import { voxeliseMesh } from '../../core/io/voxelise';
import { analyseVoxelPacking } from '../../core/analysis/index';
import type { ColumnTable, EngineResult, LabelVolume } from '../../core/common/engine';
import { ballmillEngine, ballmillParamsSchema } from '../../core/ballmill/index';
import { voxelEngine, voxelParamsSchema } from '../../core/voxel/index';
import { surfaceEngine } from '../../core/surface/index';
import { stackingEngine } from '../../core/stacking/index';
import { surfaceParamsSchema } from '../../core/surface/params';
import { Random } from '../../core/common/random';
import { UNITS } from '../../core/common/units';
import { EXPORT_FORMATS, exportFileName, exportForDownload, exportRun, FormatNotApplicable, type ExportableRun } from '../../main/services/exports';
import { ownerTag, THIS_PROCESS, type ProcessOwner } from '../../main/services/processes';

let dir: string;
let run: ExportableRun;
let voxelRun: ExportableRun;
const dims: [number, number, number] = [7, 6, 5];
// Three box particles in a 7 x 6 x 5 volume, labels 1..3.
const labels = new Uint32Array(7 * 6 * 5).map((_, i) => {
  const x = i % 7, y = Math.floor(i / 7) % 6, z = Math.floor(i / 42);
  return z < 2 && x < 4 ? 1 : z < 4 && x >= 4 && y < 3 ? 2 : z === 3 && x < 3 && y > 2 ? 3 : 0;
});
const volume: LabelVolume = { kind: 'volume', name: 'labels', dims, voxelSize: 0.25, labels, meta: { unit: 'mm' } };
const particles: ColumnTable = {
  kind: 'table',
  name: 'particles',
  columns: {
    id: Uint32Array.of(0, 1, 2), type: Uint16Array.of(0, 0, 1),
    x: Float64Array.of(0.5, 1.4, 0.4), y: Float64Array.of(0.75, 0.4, 1.1), z: Float64Array.of(0.25, 0.5, 0.9),
    rx: Int16Array.of(0, 90, 180), ry: Int16Array.of(0, 0, 0), rz: Int16Array.of(0, 0, 45), voxels: Uint32Array.of(48, 24, 9),
  },
  meta: { box: [1.75, 1.5, 1.25], resolution: 4, periodic: [true, true, false] },
};
const spheres: ColumnTable = {
  kind: 'table',
  name: 'spheres',
  columns: {
    id: Uint32Array.of(0, 1, 2),
    type: Uint16Array.of(0, 1, 0),
    x: Float64Array.of(0.5, 1.25, 2.125),
    y: Float64Array.of(1, 2, 3),
    z: Float64Array.of(0.1, 0.2, 1 / 3),
    r: Float64Array.of(0.5, 0.25, 0.125),
  },
  meta: { box: [4, 4, 4], periodic: [true, true, false] },
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pb-export-'));
  writeFileSync(join(dir, 'spheres.pbt'), encodeTable(spheres));
  run = {
    id: 'r1',
    name: 'test run',
    engine: 'stacking',
    params: { n: 3 },
    metrics: { porosity: 0.4 },
    series: [{ name: 'g(r)', xLabel: 'r', yLabel: 'g', kind: 'line', x: Float64Array.of(1, 2), y: Float64Array.of(0.5, 1) }],
    artifacts: [{ kind: 'table', name: 'spheres', path: join(dir, 'spheres.pbt') }],
  };
  writeFileSync(join(dir, 'labels.pbv'), encodeVolume(volume));
  writeFileSync(join(dir, 'particles.pbt'), encodeTable(particles));
  voxelRun = {
    ...run,
    id: 'v1',
    engine: 'voxel',
    artifacts: [
      { kind: 'table', name: 'particles', path: join(dir, 'particles.pbt') },
      { kind: 'volume', name: 'labels', path: join(dir, 'labels.pbv') },
    ],
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Tag → values of a little-endian TIFF's first IFD (SHORT, LONG, RATIONAL as numbers; ASCII as one string). */
function firstIfdTags(bytes: Uint8Array): Map<number, (number | string)[]> {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(String.fromCharCode(bytes[0], bytes[1])).toBe('II');
  expect(v.getUint16(2, true)).toBe(42);
  const ifd = v.getUint32(4, true);
  const tags = new Map<number, (number | string)[]>();
  for (let k = 0; k < v.getUint16(ifd, true); k++) {
    const e = ifd + 2 + 12 * k;
    const tag = v.getUint16(e, true), type = v.getUint16(e + 2, true), count = v.getUint32(e + 4, true);
    const size = { 2: 1, 3: 2, 4: 4, 5: 8 }[type]!;
    const at = size * count <= 4 ? e + 8 : v.getUint32(e + 8, true);
    const values: (number | string)[] = [];
    if (type === 2) values.push(new TextDecoder().decode(bytes.subarray(at, at + count)).replace(/\0+$/, ''));
    else for (let i = 0; i < count; i++) {
      values.push(type === 3 ? v.getUint16(at + 2 * i, true) : type === 4 ? v.getUint32(at + 4 * i, true) : v.getUint32(at + 8 * i, true) / v.getUint32(at + 8 * i + 4, true));
    }
    tags.set(tag, values);
  }
  return tags;
}

describe('exportRun', () => {
  it('writes json with params, metrics and series', async () => {
    const out = join(dir, 'r.json');
    const res = await exportRun(run, 'json', out);
    const back = JSON.parse(readFileSync(out, 'utf8'));
    expect(res.bytes).toBe(readFileSync(out).length);
    expect(back.params).toEqual({ n: 3 });
    expect(back.metrics).toEqual({ porosity: 0.4 });
    expect(back.series[0]).toMatchObject({ name: 'g(r)', x: [1, 2], y: [0.5, 1] });
  });

  it("the results JSON gives each metric's unit, as the metrics CSV does, for the run (an area in 2D)", async () => {
    const out = join(dir, 'units.json');
    await exportRun({ ...run, engine: 'ballmill', params: { dim: 2 }, metrics: { dissipatedEnergy: 1.5, eventsPerSecond: 2e5, collisions: 3, solidFraction: 0.2, stopReason: 'duration' } }, 'json', out);
    expect(JSON.parse(readFileSync(out, 'utf8')).metricUnits).toEqual({ dissipatedEnergy: 'J', eventsPerSecond: '1/s', solidFraction: 'fraction' });
    await exportRun({ ...run, engine: 'stacking', params: { dim: 2 }, metrics: { regionVolume: 4 } }, 'json', out);
    expect(JSON.parse(readFileSync(out, 'utf8')).metricUnits).toEqual({ regionVolume: 'length units²' });
  });

  it('writes the results JSON as JSON.stringify(…, null, 1) wrote it, byte for byte, its series in parts', async () => {
    // The old writer: the whole run as one stringify of plain arrays (0.9 s of the host's thread for a 2,000,000-point series).
    const odd = Float64Array.from([0, -0, 1.5, 1e21, 1e-7, NaN, Infinity, -Infinity, 123456789.123, 5e-324]);
    const long = Float64Array.from({ length: 70_000 }, (_, i) => Math.sin(i) * 1e3);
    const many: ExportableRun = {
      ...run, threads: undefined, params: { nested: [1, [2, { text: 'a\u0000b "q"' }]], none: [] },
      series: [
        { name: 'odd', kind: 'line', xLabel: 'x', yLabel: 'y', x: odd, y: odd.slice().reverse() },
        { name: 'empty', kind: 'bar', xLabel: '', yLabel: '', x: new Float64Array(0), y: new Float64Array(0) },
        { name: 'long', kind: 'line', xLabel: 'ball', yLabel: 'f', x: long, y: long },
      ],
    };
    const out = join(dir, 'many.json');
    const fractions: number[] = [];
    await exportRun(many, 'json', out, (f) => fractions.push(f));
    const plain = { ...many, artifacts: undefined, series: many.series.map((s) => ({ name: s.name, kind: s.kind, xLabel: s.xLabel, yLabel: s.yLabel, x: Array.from(s.x), y: Array.from(s.y) })) };
    const { id, name, engine, seed, threads, params, metrics, series } = plain;
    // (metricUnits: the stacking engine declares no 'porosity'.)
    expect(readFileSync(out, 'utf8')).toBe(JSON.stringify({ id, name, engine, seed, threads, params, metrics, metricUnits: {}, series }, null, 1) + '\n');
    // Written in parts, each said: 140,020 numbers are more than one turn's.
    expect(fractions.filter((f) => f < 1).length).toBeGreaterThan(1);
    expect(fractions.at(-1)).toBe(1);
  });

  it('writes the sphere table as x,y,z,r,type (then its other columns) csv that reads back exactly', async () => {
    const out = join(dir, 's.csv');
    const fractions: number[] = [];
    await exportRun(run, 'csv', out, (f) => fractions.push(f));
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n')[0]).toBe('x,y,z,r,type,id');
    const back = sphereCsvToTable(text);
    for (const c of ['x', 'y', 'z', 'r', 'type']) expect(Array.from(back.columns[c])).toEqual(Array.from(spheres.columns[c]));
    expect(fractions.at(-1)).toBe(1);
  });

  it('writes series as long-form csv', async () => {
    const out = join(dir, 'series.csv');
    await exportRun(run, 'series-csv', out);
    expect(readFileSync(out, 'utf8')).toBe('series,x_label,y_label,x,y\ng(r),r,g,1,0.5\ng(r),r,g,2,1\n');
  });

  it("writes a long series' csv in parts, each said (a 2,000,000-ball mill's collision frequency held the host 5 s of CPU in one turn)", async () => {
    const odd = Float64Array.from([0, -0, 1.5, 1e21, 1e-7, NaN, Infinity, -Infinity, 123456789.123, 5e-324]);
    const long = Float64Array.from({ length: 70_000 }, (_, i) => Math.sin(i) * 1e3);
    const series: ExportableRun['series'] = [
      { name: 'odd, "quoted"', kind: 'line', xLabel: 'x', yLabel: 'y, too', x: odd, y: odd.slice().reverse() },
      { name: 'empty', kind: 'bar', xLabel: '', yLabel: '', x: new Float64Array(0), y: new Float64Array(0) },
      { name: 'long', kind: 'bar', xLabel: 'ball', yLabel: 'f', x: long, y: long },
    ];
    const out = join(dir, 'long-series.csv');
    const fractions: number[] = [];
    await exportRun({ ...run, series }, 'series-csv', out, (f) => fractions.push(f));
    // As String writes each number, a field with a comma or quote quoted (RFC 4180).
    const expected = ['series,x_label,y_label,x,y'];
    for (let i = 0; i < odd.length; i++) expected.push(`"odd, ""quoted""",x,"y, too",${String(odd[i])},${String(odd[odd.length - 1 - i])}`);
    for (let i = 0; i < long.length; i++) expected.push(`long,ball,f,${String(long[i])},${String(long[i])}`);
    expect(readFileSync(out, 'utf8')).toBe(expected.join('\n') + '\n');
    expect(fractions.filter((f) => f < 1).length).toBeGreaterThan(1);
    expect(fractions.at(-1)).toBe(1);
  });

  it('writes metrics as csv with the unit each engine declares, quoting text that needs it', async () => {
    const out = join(dir, 'm.csv');
    await exportRun({ ...run, engine: 'ballmill', metrics: { dissipatedEnergy: 1.5, eventsPerSecond: 2e5, stopReason: 'full, at last', ok: true } }, 'metrics-csv', out);
    expect(readFileSync(out, 'utf8')).toBe('metric,value,unit\ndissipatedEnergy,1.5,J\neventsPerSecond,200000,1/s\nstopReason,"full, at last",\nok,true,\n');
    // An engine the build does not know (a run imported from elsewhere): no units, the same columns.
    await exportRun({ ...run, engine: 'gone', metrics: { porosity: 0.4 } }, 'metrics-csv', out);
    expect(readFileSync(out, 'utf8')).toBe('metric,value,unit\nporosity,0.4,\n');
    // The unit that applies to the run: an area in a 2D run ('length units³ (length units² in 2D)' named both).
    for (const [dim, unit] of [[2, 'length units²'], [3, 'length units³']] as const) {
      await exportRun({ ...run, engine: 'stacking', params: { dim }, metrics: { regionVolume: 4 } }, 'metrics-csv', out);
      expect(readFileSync(out, 'utf8'), `dim ${dim}`).toBe(`metric,value,unit\nregionVolume,4,${unit}\n`);
    }
  });

  it("removes what an export to the same file left when its process was killed, not another's under way", async () => {
    // A kill -9 mid-export left OUT.partial-PID-… beside --out for good: up to the whole export's size.
    const folder = mkdtempSync(join(dir, 'left-'));
    const dead = spawnSync(process.execPath, ['-e', '']).pid!, host = hostname();
    const left = [`r.json.partial-${dead}@${host}-0123abcd`, `r.json.partial-${dead}@${host}-0123abcd.json`];
    const kept = [`r.json.partial-${process.ppid}@${host}-89abcdef`, `r.json.partial-${dead}@another-host-89abcdef`, `other.json.partial-${dead}@${host}-0123abcd`];
    for (const name of [...left, ...kept]) writeFileSync(join(folder, name), 'half an export');
    await exportRun(run, 'json', join(folder, 'r.json'));
    expect(readdirSync(folder).sort()).toEqual(['r.json', ...kept].sort());
  });

  it('removes the partial files of an earlier boot whose pid a live process has now, and judges them by the machine, not its hostname', async ({ skip }) => {
    if (!THIS_PROCESS.boot || !THIS_PROCESS.machine) return skip();
    // Judged by pid alone, a partial file of a process killed before a reboot stayed for good once its pid was taken.
    const folder = mkdtempSync(join(dir, 'left-'));
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const tag = (o: Partial<ProcessOwner>) => ownerTag({ ...THIS_PROCESS, ...o });
    const earlierBoot = '00000000-0000-4000-8000-000000000000';
    const left = [`r.json.partial-${tag({ pid: process.ppid, boot: earlierBoot })}-0123abcd`, `r.json.partial-${tag({ pid: dead, host: 'old-name' })}-0123abcd`];
    const kept = [`r.json.partial-${tag({ pid: process.ppid })}-89abcdef`, `r.json.partial-${tag({ pid: dead, boot: earlierBoot, machine: '0123456789abcdef' })}-89abcdef`];
    for (const name of [...left, ...kept]) writeFileSync(join(folder, name), 'half an export');
    await exportRun(run, 'json', join(folder, 'r.json'));
    expect(readdirSync(folder).sort()).toEqual(['r.json', ...kept].sort());
  });

  it('rejects an unknown format listing the allowed ones', async () => {
    await expect(exportRun(run, 'xlsx', join(dir, 'x'))).rejects.toThrow(/unknown export format 'xlsx'; allowed: .*json.*csv/);
    expect(EXPORT_FORMATS.map((f) => f.id)).toContain('csv');
  });

  it('says which artifact is missing', async () => {
    const bare = { ...run, artifacts: [] };
    await expect(exportRun(bare, 'csv', join(dir, 'y.csv'))).rejects.toThrow(/has no particle table artifact, which format 'csv' needs/);
  });

  it("the raw export's header says what the labels are: particles of a packing, or the inside of a surface", async () => {
    await exportRun(voxelRun, 'raw', join(dir, 'p.raw'));
    expect(JSON.parse(readFileSync(join(dir, 'p.raw.json'), 'utf8')).labels).toBe('label = particle index + 1, 0 = void');
    // A surface run's volume (core/surface/solid.ts) is 1 inside the surface, one label for all of it.
    const inside = 'solid.pbv';
    writeFileSync(join(dir, inside), encodeVolume({ ...volume, labels: labels.map((l) => (l ? 1 : 0)), meta: { labels: '1 = inside the surface (F < 0), 0 = outside' } }));
    const surface: ExportableRun = { ...run, id: 's3', engine: 'surface', artifacts: [{ kind: 'volume', name: 'solid', path: join(dir, inside) }] };
    await exportRun(surface, 'raw', join(dir, 's.raw'));
    expect(JSON.parse(readFileSync(join(dir, 's.raw.json'), 'utf8')).labels).toBe('1 = inside the surface (F < 0), 0 = outside');
  });

  it('names the length unit of a volume that names none as the metrics do: length units (raw header, TIFF)', async () => {
    writeFileSync(join(dir, 'plain.pbv'), encodeVolume({ ...volume, meta: {} }));
    const plain: ExportableRun = { ...voxelRun, id: 'u1', artifacts: voxelRun.artifacts.map((a) => (a.kind === 'volume' ? { ...a, path: join(dir, 'plain.pbv') } : a)) };
    await exportRun(plain, 'raw', join(dir, 'u.raw'));
    expect(JSON.parse(readFileSync(join(dir, 'u.raw.json'), 'utf8')).unit).toBe(UNITS.length);
    await exportRun(plain, 'tiff', join(dir, 'u.tif'));
    expect(decodeTiffStack(new Uint8Array(readFileSync(join(dir, 'u.tif')))).description).toContain(`\nunit=${UNITS.length}\n`);
  });

  it("a surface run's solid (0 and 1) exports 16-bit whatever its particle count", async () => {
    // Its width came from the particle table's rows, as a packing's labels: a sampling of 70,000
    // particles wrote its 0/1 solid as 32-bit, twice the bytes (0.5 GiB at 512 voxels across).
    const n = 70_000, col = () => new Float64Array(n);
    writeFileSync(join(dir, 'many.pbt'), encodeTable({ kind: 'table', name: 'particles', columns: { x: col(), y: col(), z: col(), r: col().fill(0.1) } }));
    writeFileSync(join(dir, 'solid01.pbv'), encodeVolume({ ...volume, name: 'solid', labels: labels.map((l) => (l ? 1 : 0)), meta: { labels: '1 = inside the surface (F < 0), 0 = outside' } }));
    const surface: ExportableRun = {
      ...run, id: 's4', engine: 'surface',
      artifacts: [{ kind: 'table', name: 'particles', path: join(dir, 'many.pbt') }, { kind: 'volume', name: 'solid', path: join(dir, 'solid01.pbv') }],
    };
    const { bytes } = await exportRun(surface, 'raw', join(dir, 's4.raw'));
    expect(JSON.parse(readFileSync(join(dir, 's4.raw.json'), 'utf8')).dtype).toBe('uint16');
    expect(bytes).toBe(2 * labels.length);
  });

  it('streams the label volume to vti, tiff and raw slab by slab, each reading back exactly', async () => {
    // 100-byte slabs: one slice (7 x 6 x 4 bytes) per read, so every path crosses slab borders.
    for (const format of ['vti', 'tiff', 'raw']) {
      const out = join(dir, `v.${format}`);
      const fractions: number[] = [];
      const res = await exportRun(voxelRun, format, out, (f) => fractions.push(f), { slabBytes: 100 });
      const bytes = new Uint8Array(readFileSync(out));
      expect(res.bytes).toBe(bytes.length);
      expect(fractions.length).toBeGreaterThanOrEqual(5);
      let back: Uint32Array;
      if (format === 'vti') {
        const v = decodeVti(bytes);
        expect(v).toMatchObject({ dims, voxelSize: 0.25, dtype: 'uint16' });
        back = v.labels;
      } else if (format === 'tiff') {
        const t = decodeTiffStack(bytes);
        expect(t.dims).toEqual(dims);
        expect(t.bitsPerSample).toBe(16);
        expect(t.description).toContain('unit=mm');
        back = t.labels;
      } else {
        const header = parseRawHeader(readFileSync(`${out}.json`, 'utf8'), bytes.length);
        expect(header).toMatchObject({ dims, dtype: 'uint16', voxelSize: 0.25 });
        back = Uint32Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2));
      }
      expect(Array.from(back)).toEqual(Array.from(labels));
    }
  });

  it('writes 32-bit labels when a volume without a particle table has labels above 65535', async () => {
    const big = { ...volume, labels: labels.map((l) => (l ? l + 70000 : 0)) };
    writeFileSync(join(dir, 'big.pbv'), encodeVolume(big));
    const bigRun = { ...run, artifacts: [{ kind: 'volume' as const, name: 'labels', path: join(dir, 'big.pbv') }] };
    await exportRun(bigRun, 'tiff', join(dir, 'big.tif'), undefined, { slabBytes: 100 });
    const t = decodeTiffStack(new Uint8Array(readFileSync(join(dir, 'big.tif'))));
    expect(t.bitsPerSample).toBe(32);
    expect(Array.from(t.labels)).toEqual(Array.from(big.labels));
  });

  it("takes a packing's label width from its particle table's header: a table over 2 GiB (readFile's limit) does not stop its volume's export", async () => {
    // 300,000,000 rows of x (a 2048³ packing of small particles has tens of millions): 2.4 GB, sparse on disk.
    const rows = 300_000_000;
    const path = join(dir, 'huge.pbt');
    const head = encodeHeader(TABLE_MAGIC, { rows, columns: [{ name: 'x', dtype: 'float64', byteOffset: 0 }], meta: {} });
    writeFileSync(path, head);
    truncateSync(path, head.length + 8 * rows);
    const huge: ExportableRun = { ...voxelRun, artifacts: [{ kind: 'table', name: 'particles', path }, voxelRun.artifacts[1]] };
    await exportRun(huge, 'vti', join(dir, 'huge.vti'));
    // More particles than 16 bits count: 32-bit labels, those of the volume.
    const back = decodeVti(new Uint8Array(readFileSync(join(dir, 'huge.vti'))));
    expect(back.dtype).toBe('uint32');
    expect(Array.from(back.labels)).toEqual(Array.from(labels));
  });

  it('reads a particle table in blocks of rows: CSV, LAMMPS and sphere STL are the bytes of the table read in one block', async () => {
    // 300 rows, moved (offset), wrapped (periodic x), with a NaN, float32 radii and no box (the dump
    // box from every row): each pass over the table carries its result from block to block.
    const n = 300, random = new Random(7), rand = () => random.next();
    const col = (f: () => number) => Float64Array.from({ length: n }, f);
    const moved: ColumnTable = {
      kind: 'table', name: 'spheres',
      columns: { x: col(() => 5 * rand() - 1), y: col(() => 3 * rand()), z: col(() => (rand() < 0.01 ? NaN : 2 * rand())), r: Float32Array.from({ length: n }, () => 0.3 * rand()), class: Uint8Array.from({ length: n }, () => Math.floor(3 * rand())) },
      meta: { offset: [0.5, -2, 1], periodic: [true, false, false], particleTable: stackingEngine.particleTable },
    };
    // The voxel packing's three particles 100 times over (radii from voxels, rotations, periodic x and y).
    const repeated = (c: ColumnTable['columns'][string]) => {
      const out = new (c.constructor as Float64ArrayConstructor)(100 * c.length);
      for (let k = 0; k < 100; k++) out.set(c, k * c.length);
      return out;
    };
    const voxelled: ColumnTable = { ...particles, columns: Object.fromEntries(Object.entries(particles.columns).map(([k, c]) => [k, repeated(c)])) };
    for (const [name, table, formats] of [['moved', moved, ['csv', 'lammps', 'stl-particles']], ['voxelled', voxelled, ['csv', 'lammps']]] as const) {
      writeFileSync(join(dir, `${name}.pbt`), encodeTable(table));
      const tableRun: ExportableRun = { ...run, id: name, artifacts: [{ kind: 'table', name: 'particles', path: join(dir, `${name}.pbt`) }] };
      for (const format of formats) {
        const whole = join(dir, `${name}-whole.${format}`);
        await exportRun(tableRun, format, whole);
        for (const blockBytes of [1, 300]) {
          const fractions: number[] = [];
          await exportRun(tableRun, format, join(dir, `${name}-${blockBytes}.${format}`), (f) => fractions.push(f), { tableBlockBytes: blockBytes });
          expect(readFileSync(join(dir, `${name}-${blockBytes}.${format}`)).equals(readFileSync(whole)), `${name} ${format} in blocks of ${blockBytes} bytes`).toBe(true);
          expect(fractions.at(-1)).toBe(1);
        }
      }
    }
  });

  it("exports a particle table over 2 GiB (readFile's limit) as CSV and LAMMPS, reading only its rows", async () => {
    // Three rows whose last column lies 2.2 GB into the file (a gap, sparse on disk): the file is over
    // readFile's 2 GiB as a 2048³ packing's table of ~70 million rows is, and exports in a moment.
    const path = join(dir, 'far.pbt');
    const columns = [{ name: 'x', dtype: 'float64', byteOffset: 0 }, { name: 'y', dtype: 'float64', byteOffset: 24 }, { name: 'z', dtype: 'float64', byteOffset: 48 }, { name: 'r', dtype: 'float64', byteOffset: 2_200_000_000 }];
    const head = encodeHeader(TABLE_MAGIC, { rows: 3, columns, meta: { name: 'spheres', box: [4, 4, 4] } });
    writeFileSync(path, Buffer.concat([head, new Uint8Array(Float64Array.of(1, 2, 3, 1.5, 2.5, 3.5, 0.5, 0.5, 0.5).buffer)]));
    truncateSync(path, head.length + 2_200_000_000);
    appendFileSync(path, new Uint8Array(Float64Array.of(0.25, 0.5, 0.75).buffer));
    const far: ExportableRun = { ...run, id: 'far', artifacts: [{ kind: 'table', name: 'particles', path }] };
    await exportRun(far, 'csv', join(dir, 'far.csv'));
    expect(readFileSync(join(dir, 'far.csv'), 'utf8')).toBe('x,y,z,r\n1,1.5,0.5,0.25\n2,2.5,0.5,0.5\n3,3.5,0.5,0.75\n');
    await exportRun(far, 'lammps', join(dir, 'far.dump'));
    expect(Array.from(parseDump(readFileSync(join(dir, 'far.dump'), 'utf8')).table.columns.r)).toEqual([0.25, 0.5, 0.75]);
  });

  it('writes the solid phase as one watertight STL that voxelises back to the packing, and each particle as a named closed solid', async () => {
    const out = join(dir, 'v.stl');
    await exportRun(voxelRun, 'stl-solid', out);
    const mesh = parseStl(new Uint8Array(readFileSync(out)));
    expect(checkSurface(mesh.positions)).toMatchObject({ badEdges: 0, misoriented: 0, pinched: 0 });
    const solid = labels.reduce((s, l) => s + (l ? 1 : 0), 0);
    expect(voxeliseMesh(mesh, 4).voxelCount).toBe(solid);
    await exportRun(voxelRun, 'stl-particles', join(dir, 'p.stl'), undefined, { slabBytes: 100 });
    const solids = asciiSolids(readFileSync(join(dir, 'p.stl'), 'latin1'));
    expect([...solids.keys()]).toEqual(['particle_1', 'particle_2', 'particle_3']);
    for (const [name, positions] of solids) {
      const l = Number(name.split('_')[1]);
      expect(checkSurface(positions), name).toMatchObject({ badEdges: 0, misoriented: 0, pinched: 0, components: 1, euler: 2 });
      expect(checkSurface(positions).volume).toBeCloseTo(labels.filter((x) => x === l).length * 0.25 ** 3, 9);
    }
    await expect(exportRun(run, 'stl-solid', join(dir, 'n.stl'))).rejects.toThrow(/has no label volume artifact, which format 'stl-solid' needs \(voxel packings have one, and surface samplings with voxelsAcross > 0\)/);
  });

  it('writes sphere surfaces as named STL solids and the particle tables as LAMMPS dumps', async () => {
    await exportRun(run, 'stl-particles', join(dir, 's.stl'));
    const solids = asciiSolids(readFileSync(join(dir, 's.stl'), 'latin1'));
    expect([...solids.keys()]).toEqual(['particle_1', 'particle_2', 'particle_3']);
    [...solids.values()].forEach((positions, i) => {
      const mesh = checkSurface(positions);
      expect(mesh).toMatchObject({ triangles: 80, badEdges: 0, pinched: 0, euler: 2 });
      expect(mesh.volume / ((4 / 3) * Math.PI * spheres.columns.r[i] ** 3)).toBeCloseTo(1, 5);
    });
    await exportRun(run, 'lammps', join(dir, 's.dump'));
    const dump = parseDump(readFileSync(join(dir, 's.dump'), 'utf8'));
    expect(dump.box).toEqual([4, 4, 4]);
    expect(Array.from(dump.table.columns.r)).toEqual(Array.from(spheres.columns.r));
    await exportRun(voxelRun, 'lammps', join(dir, 'v.dump'));
    const vd = readFileSync(join(dir, 'v.dump'), 'utf8');
    expect(vd).toContain('ITEM: ATOMS id type x y z radius rx ry rz');
    expect(parseDump(vd).box).toEqual([1.75, 1.5, 1.25]);
  });

  it('writes the height map of an analysed voxel run as a TIFF image', async () => {
    const heightmap = analyseVoxelPacking(volume, particles).artifacts[0] as LabelVolume;
    writeFileSync(join(dir, 'heightmap.pbv'), encodeVolume(heightmap));
    const analysed = { ...voxelRun, artifacts: [...voxelRun.artifacts, { kind: 'volume' as const, name: 'heightmap', path: join(dir, 'heightmap.pbv') }] };
    await exportRun(analysed, 'heightmap-tiff', join(dir, 'h.tif'));
    const bytes = new Uint8Array(readFileSync(join(dir, 'h.tif')));
    const t = decodeTiffStack(bytes);
    expect(t.dims).toEqual([7, 6, 1]);
    expect(Array.from(t.labels)).toEqual(Array.from(heightmap.labels));
    // As Fiji reads it: a pixel is one voxel (0.25 mm) wide, a value of 1 is 0.25 mm of height.
    const tags = firstIfdTags(bytes);
    expect(tags.get(282)).toEqual([4]); // XResolution: pixels per unit
    expect(tags.get(283)).toEqual([4]);
    expect(tags.get(296)).toEqual([1]); // ResolutionUnit: no absolute unit (the TIFF default is inch), as ImageJ writes it for mm
    const description = String(tags.get(270));
    expect(description).toMatch(/^ImageJ=/);
    expect(description).toContain('\nunit=mm\n');
    expect(description).toContain('\ncf=0\nc0=0\nc1=0.25\nvunit=mm\n');
    expect(description).not.toContain('voxels');
    // The labels export still picks the label volume, not the height map.
    await exportRun(analysed, 'tiff', join(dir, 'l.tif'));
    expect(decodeTiffStack(new Uint8Array(readFileSync(join(dir, 'l.tif')))).dims).toEqual(dims);
    await expect(exportRun(voxelRun, 'heightmap-tiff', join(dir, 'x.tif'))).rejects.toThrow(/has no height map artifact/);
  });

  it('refuses the per-particle STL of a run without particles (an ASCII STL holds at least one solid), leaving no file', async () => {
    // A voxel run stopped before its first particle: a table of no rows, a volume of zeros.
    const none: ColumnTable = { ...particles, columns: Object.fromEntries(Object.entries(particles.columns).map(([k, c]) => [k, c.subarray(0, 0)])) };
    writeFileSync(join(dir, 'none.pbt'), encodeTable(none));
    writeFileSync(join(dir, 'none.pbv'), encodeVolume({ ...volume, labels: new Uint32Array(labels.length) }));
    const emptyVoxels: ExportableRun = { ...voxelRun, id: 'e1', artifacts: [{ kind: 'table', name: 'particles', path: join(dir, 'none.pbt') }, { kind: 'volume', name: 'labels', path: join(dir, 'none.pbv') }] };
    await expect(exportRun(emptyVoxels, 'stl-particles', join(dir, 'e1.stl'))).rejects.toThrow("run e1 has no particles (its label volume is all 0): there are no particle surfaces to write, and an ASCII STL cannot hold none");
    expect(existsSync(join(dir, 'e1.stl'))).toBe(false);
    const noSpheres: ColumnTable = { ...spheres, columns: Object.fromEntries(Object.entries(spheres.columns).map(([k, c]) => [k, c.subarray(0, 0)])) };
    writeFileSync(join(dir, 'no-spheres.pbt'), encodeTable(noSpheres));
    const emptySpheres: ExportableRun = { ...run, id: 'e2', artifacts: [{ kind: 'table', name: 'spheres', path: join(dir, 'no-spheres.pbt') }] };
    await expect(exportRun(emptySpheres, 'stl-particles', join(dir, 'e2.stl'))).rejects.toThrow("run e2 has no particles (its table 'spheres' has no rows): there are no particle surfaces to write, and an ASCII STL cannot hold none");
    expect(existsSync(join(dir, 'e2.stl'))).toBe(false);
    // The whole solid phase of the empty packing is a binary STL of no triangles, which is one.
    await exportRun(emptyVoxels, 'stl-solid', join(dir, 'e1-solid.stl'));
    const solid = readFileSync(join(dir, 'e1-solid.stl'));
    expect([solid.length, solid.readUInt32LE(80)]).toEqual([84, 0]);
  });

  it("refuses a TIFF whose voxel its resolution tag cannot hold (a nanometre solid in metres), which Fiji would read at another size", async () => {
    // A 5 nm sphere sampled 64 voxels across, in metres: voxels of 1.64e-10. XResolution is pixels per
    // unit as two 32-bit integers, at most 4294967295 / 1: a pixel of 2.33e-10 at the least.
    const nano = { ...volume, voxelSize: 1.640625e-10 };
    writeFileSync(join(dir, 'nano.pbv'), encodeVolume(nano));
    const nanoRun: ExportableRun = { ...run, id: 'n1', artifacts: [{ kind: 'volume', name: 'solid', path: join(dir, 'nano.pbv') }] };
    const written = await exportRun(nanoRun, 'tiff', join(dir, 'nano.tif')).then(() => true, (err: Error) => err);
    if (written === true) {
      const [perUnit] = firstIfdTags(new Uint8Array(readFileSync(join(dir, 'nano.tif')))).get(282) as number[];
      expect(1 / perUnit, 'the pixel width Fiji reads').toBeCloseTo(nano.voxelSize, 15);
    }
    expect(written).toBeInstanceOf(FormatNotApplicable);
    expect((written as Error).message).toBe('a voxel of 1.640625e-10 length units is smaller than a TIFF resolution holds (pixels per unit as two 32-bit integers: voxels from 2.3283064370807974e-10 to 4294967295): readers would take another size; export vti or raw, whose spacing is exact');
    expect(existsSync(join(dir, 'nano.tif'))).toBe(false);
    // The VTI holds it exactly.
    await exportRun(nanoRun, 'vti', join(dir, 'nano.vti'));
    expect(decodeVti(new Uint8Array(readFileSync(join(dir, 'nano.vti')))).voxelSize).toBe(nano.voxelSize);
  });

  it('says when a voxel format meets a run without a label volume', async () => {
    await expect(exportRun(run, 'vti', join(dir, 'n.vti'))).rejects.toThrow(/has no label volume artifact, which format 'vti' needs/);
    expect(existsSync(join(dir, 'n.vti'))).toBe(false);
  });
});

describe('exports of a packed voxel run agree with the run', () => {
  it("the LAMMPS dump's radii are the CSV's equivalent diameters / 2, and their spheres add up to the solid volume", async () => {
    const params = voxelParamsSchema.parse({
      box: { size: [3, 3, 3], resolution: 12 },
      mixture: { basis: 'number', types: [{ name: 'spheres', shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1 }, fraction: 1 }] },
      stop: { particles: 25 },
    });
    const res = voxelEngine.run(params, { seed: 3, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    const [table, volume] = res.artifacts as [ColumnTable, LabelVolume];
    expect(res.metrics.overlapVoxels).toBeGreaterThan(0); // the case where the shape's voxels and the held ones differ
    writeFileSync(join(dir, 'packed.pbt'), encodeTable(table));
    writeFileSync(join(dir, 'packed.pbv'), encodeVolume(volume));
    const packed: ExportableRun = {
      ...run, id: 'p1', engine: 'voxel', metrics: res.metrics,
      artifacts: [{ kind: 'table', name: 'particles', path: join(dir, 'packed.pbt') }, { kind: 'volume', name: 'labels', path: join(dir, 'packed.pbv') }],
    };
    await exportRun(packed, 'csv', join(dir, 'packed.csv'));
    await exportRun(packed, 'lammps', join(dir, 'packed.dump'));
    const [head, ...rows] = readFileSync(join(dir, 'packed.csv'), 'utf8').trim().split('\n');
    const diameter = head.split(',').indexOf('equivalentDiameter');
    expect(diameter).toBeGreaterThanOrEqual(0);
    const dump = readFileSync(join(dir, 'packed.dump'), 'utf8');
    const radii = parseDump(dump).table.columns.r;
    expect(radii.length).toBe(rows.length);
    // Centres (a reference voxel plus the shape's centre offset) can lie just outside the periodic
    // box (here y = -0.01): the dump has them wrapped into [lo, hi) along x and y, z as it is.
    const lines = dump.split('\n');
    const k = lines.findIndex((l) => l.startsWith('ITEM: BOX BOUNDS'));
    expect(lines[k]).toBe('ITEM: BOX BOUNDS pp pp ff');
    const bounds = [1, 2, 3].map((j) => lines[k + j].split(' ').map(Number));
    expect(bounds.slice(0, 2)).toEqual([[0, 3], [0, 3]]);
    const atoms = lines.slice(lines.findIndex((l) => l.startsWith('ITEM: ATOMS')) + 1).filter((l) => l).map((l) => l.split(' ').map(Number));
    const { x, y, z } = table.columns;
    expect(Math.min(...y)).toBeLessThan(0);
    atoms.forEach(([id, , ax, ay, az]) => {
      const i = id - 1;
      [ax, ay].forEach((v, a) => {
        expect(v).toBeGreaterThanOrEqual(bounds[a][0]);
        expect(v).toBeLessThan(bounds[a][1]);
        const periods = (v - [x, y][a][i]) / 3; // moved by whole box widths only
        expect(Math.abs(periods - Math.round(periods))).toBeLessThan(1e-12);
      });
      expect(az).toBe(z[i]);
    });
    rows.forEach((row, i) => expect(radii[i]).toBe(Number(row.split(',')[diameter]) / 2));
    // Counted here from the labels: every solid voxel belongs to one sphere of the dump.
    let solid = 0;
    for (const l of volume.labels) if (l) solid++;
    const h = volume.voxelSize;
    const spheres = Array.from(radii).reduce((s, r) => s + (4 / 3) * Math.PI * r ** 3, 0);
    expect(spheres / (solid * h ** 3)).toBeCloseTo(1, 12);
    expect(res.metrics.solidVolume).toBeCloseTo(solid * h ** 3, 10);

    // STL: every particle one closed manifold piece holding its voxels; the solid phase watertight.
    await exportRun(packed, 'stl-particles', join(dir, 'packed.stl'));
    const solids = asciiSolids(readFileSync(join(dir, 'packed.stl'), 'latin1'));
    const voxels = table.columns.voxels;
    expect(solids.size).toBe(voxels.filter((v) => v > 0).length);
    for (const [name, positions] of solids) {
      const r = checkSurface(positions);
      expect(r, name).toMatchObject({ badEdges: 0, misoriented: 0, pinched: 0 });
      expect(r.volume / (voxels[Number(name.split('_')[1]) - 1] * h ** 3), name).toBeCloseTo(1, 2);
    }
    await exportRun(packed, 'stl-solid', join(dir, 'packed-solid.stl'));
    const whole = checkSurface(parseStl(new Uint8Array(readFileSync(join(dir, 'packed-solid.stl')))).positions);
    expect(whole).toMatchObject({ badEdges: 0, misoriented: 0, pinched: 0 });
    expect(whole.volume / (solid * h ** 3)).toBeCloseTo(1, 2);
  });
});

/** Entries of an uncompressed tar, read by the POSIX ustar layout (checksums verified). */
function untar(bytes: Uint8Array): { name: string; data: Uint8Array }[] {
  const entries: { name: string; data: Uint8Array }[] = [];
  const text = (at: number, n: number) => new TextDecoder().decode(bytes.subarray(at, at + n)).replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= bytes.length; ) {
    if (bytes.subarray(at, at + 512).every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : bytes[at + i];
    expect(parseInt(text(at + 148, 8).trim(), 8)).toBe(sum);
    expect(text(at + 257, 6)).toBe('ustar');
    const size = parseInt(text(at + 124, 12), 8);
    entries.push({ name: text(at, 100), data: bytes.slice(at + 512, at + 512 + size) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

describe('exports as downloads', () => {
  it('gives every format its own file name', () => {
    const names = EXPORT_FORMATS.map((f) => exportFileName({ name: 'spheres: 6/6', id: 'abc' }, f));
    expect(new Set(names).size).toBe(EXPORT_FORMATS.length);
    expect(names).toEqual(expect.arrayContaining(['spheres_ 6_6-abc.metrics.csv', 'spheres_ 6_6-abc.series.csv', 'spheres_ 6_6-abc.particles.csv', 'spheres_ 6_6-abc.labels.tif', 'spheres_ 6_6-abc.heightmap.tif']));
  });

  it('hands a raw volume over with its JSON header, as one tar', async () => {
    const out = join(dir, 'download');
    mkdirSync(out);
    const file = await exportForDownload(voxelRun, 'raw', out);
    expect(file.fileName).toBe('test run-v1.labels.raw.tar');
    expect(file.mime).toBe('application/x-tar');
    const entries = untar(new Uint8Array(readFileSync(file.path)));
    expect(entries.map((e) => e.name)).toEqual(['test run-v1.labels.raw', 'test run-v1.labels.raw.json']);
    const header = parseRawHeader(new TextDecoder().decode(entries[1].data), entries[0].data.length);
    expect(header).toMatchObject({ dims, dtype: 'uint16', voxelSize: 0.25 });
    const raw = entries[0].data;
    expect(Array.from(new Uint16Array(raw.buffer, raw.byteOffset, raw.length / 2))).toEqual(Array.from(labels));
    const csv = await exportForDownload(voxelRun, 'csv', out);
    expect(csv).toMatchObject({ fileName: 'test run-v1.particles.csv', mime: 'text/csv' });
  });
});

describe('LAMMPS dumps of runs without periodic sides', () => {
  /** The BOX BOUNDS line and its three bound lines, as numbers. */
  function boxOf(text: string): { flags: string; bounds: number[][] } {
    const lines = text.split('\n');
    const k = lines.findIndex((l) => l.startsWith('ITEM: BOX BOUNDS'));
    return { flags: lines[k].slice('ITEM: BOX BOUNDS '.length), bounds: [1, 2, 3].map((j) => lines[k + j].split(' ').map(Number)) };
  }

  it("a ball mill's dump has the vial, where it is at the end, as a box with walls on every side", async () => {
    for (const dim of [2, 3] as const) {
      const params = ballmillParamsSchema.parse({ dim, duration: 0.13, balls: { count: 12, radius: { law: 'fixed', value: 3 } }, vial: { width: 60, height: 80, amplitude: 10, frequency: 15 } });
      const res = ballmillEngine.run(params, { seed: 2, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
      const table = res.artifacts.find((a) => a.kind === 'table' && a.name === 'particles') as ColumnTable;
      const offset = table.meta!.containerOffset as number;
      expect(Math.abs(offset)).toBeGreaterThan(1); // the vial is away from its rest position
      writeFileSync(join(dir, `mill${dim}.pbt`), encodeTable(table));
      const mill: ExportableRun = { ...run, id: `m${dim}`, engine: 'ballmill', artifacts: [{ kind: 'table', name: 'particles', path: join(dir, `mill${dim}.pbt`) }] };
      await exportRun(mill, 'lammps', join(dir, `mill${dim}.dump`));
      const text = readFileSync(join(dir, `mill${dim}.dump`), 'utf8');
      const { flags, bounds } = boxOf(text);
      expect(flags).toBe('ff ff ff');
      // 2D: x horizontal, y vertical (the vial moves along y); 3D: a cylinder of diameter 60 along z.
      // 2D: the disks lie in z = 0 and the box reaches a radius (3) either side, not 0 thick (OVITO refuses that).
      expect(bounds).toEqual(dim === 2 ? [[0, 60], [offset, 80 + offset], [-3, 3]] : [[0, 60], [0, 60], [offset, 80 + offset]]);
      const atoms = parseDump(text).table.columns;
      const vertical = dim === 2 ? atoms.y : atoms.z;
      for (let i = 0; i < 12; i++) {
        expect(atoms.x[i] - atoms.r[i]).toBeGreaterThanOrEqual(-1e-9);
        expect(vertical[i] - atoms.r[i]).toBeGreaterThanOrEqual(offset - 1e-9);
        expect(vertical[i] + atoms.r[i]).toBeLessThanOrEqual(80 + offset + 1e-9);
      }
    }
  });

  it("a 2D stacking's flat box (lz = 0) gets the largest radius either side of the plane", async () => {
    const disks: ColumnTable = { ...spheres, columns: { ...spheres.columns, z: new Float64Array(3) }, meta: { box: [4, 4, 0], dim: 2, periodic: [true, false, false] } };
    writeFileSync(join(dir, 'disks.pbt'), encodeTable(disks));
    const flat: ExportableRun = { ...run, id: 'd2', engine: 'stacking', artifacts: [{ kind: 'table', name: 'particles', path: join(dir, 'disks.pbt') }] };
    await exportRun(flat, 'lammps', join(dir, 'disks.dump'));
    expect(boxOf(readFileSync(join(dir, 'disks.dump'), 'utf8'))).toEqual({ flags: 'pp ff ff', bounds: [[0, 4], [0, 4], [-0.5, 0.5]] });
  });

  it("a stacking's size class is the atom type and the CSV's type (the category its table declares)", async () => {
    const classed: ColumnTable = {
      kind: 'table', name: 'particles',
      columns: { x: Float64Array.of(1, 2, 3), y: Float64Array.of(1, 1, 1), z: Float64Array.of(1, 1, 1), r: Float64Array.of(0.5, 0.25, 0.125), class: Uint8Array.of(2, 0, 1) },
      meta: { box: [4, 4, 4], particleTable: stackingEngine.particleTable },
    };
    writeFileSync(join(dir, 'classed.pbt'), encodeTable(classed));
    const stacked: ExportableRun = { ...run, id: 'c3', engine: 'stacking', artifacts: [{ kind: 'table', name: 'particles', path: join(dir, 'classed.pbt') }] };
    await exportRun(stacked, 'lammps', join(dir, 'classed.dump'));
    expect(Array.from(parseDump(readFileSync(join(dir, 'classed.dump'), 'utf8')).table.columns.type)).toEqual([2, 0, 1]);
    await exportRun(stacked, 'csv', join(dir, 'classed.csv'));
    expect(Array.from(sphereCsvToTable(readFileSync(join(dir, 'classed.csv'), 'utf8')).columns.type)).toEqual([2, 0, 1]);
  });

  it("a wall side's bounds hold every centre: an open-top voxel packing keeps particles centred just above the box height", async () => {
    // top 'open' keeps a particle whose reference voxel is below the box top; its geometric centre
    // can lie above it (box 3 x 3 x 1.5, 60 plates at 10 voxels a unit, seed 1: z = 1.52).
    const open: ColumnTable = { ...particles, columns: { ...particles.columns, z: Float64Array.of(0.25, 1.3, 0.9) } };
    writeFileSync(join(dir, 'open.pbt'), encodeTable(open));
    const packed: ExportableRun = { ...voxelRun, id: 'o1', artifacts: [{ kind: 'table', name: 'particles', path: join(dir, 'open.pbt') }] };
    await exportRun(packed, 'lammps', join(dir, 'open.dump'));
    const { flags, bounds } = boxOf(readFileSync(join(dir, 'open.dump'), 'utf8'));
    expect(flags).toBe('pp pp ff');
    expect(bounds).toEqual([[0, 1.75], [0, 1.5], [0, 1.3]]);
  });

  it('a table with a box but no periodic sides (a surface sample) is not periodic', async () => {
    const sample: ColumnTable = { ...spheres, meta: { box: [4, 4, 4] } };
    writeFileSync(join(dir, 'sample.pbt'), encodeTable(sample));
    const surface: ExportableRun = { ...run, id: 's2', engine: 'surface', artifacts: [{ kind: 'table', name: 'particles', path: join(dir, 'sample.pbt') }] };
    await exportRun(surface, 'lammps', join(dir, 'sample.dump'));
    expect(boxOf(readFileSync(join(dir, 'sample.dump'), 'utf8'))).toEqual({ flags: 'ff ff ff', bounds: [[0, 4], [0, 4], [0, 4]] });
  });
});

describe('exports of a surface sampling are in the surface\'s own coordinates', () => {
  it('positions, boxes, volume origins and meshes all put the unit sphere around the origin', async () => {
    const res = surfaceEngine.run(surfaceParamsSchema.parse({ surface: { kind: 'sphere', radius: 1 }, spacing: 0.3, voxelsAcross: 12 }), { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    const [table, solid] = res.artifacts as [ColumnTable, LabelVolume];
    const offset = table.meta!.offset as number[];
    expect(offset[0]).toBeLessThan(-1); // the sampling's frame starts below the sphere
    writeFileSync(join(dir, 'sphere.pbt'), encodeTable(table));
    writeFileSync(join(dir, 'sphere.pbv'), encodeVolume(solid));
    const sampled: ExportableRun = {
      ...run, id: 'u1', engine: 'surface',
      artifacts: [{ kind: 'table', name: 'particles', path: join(dir, 'sphere.pbt') }, { kind: 'volume', name: 'solid', path: join(dir, 'sphere.pbv') }],
    };
    const out = (f: string) => join(dir, `sphere.${f}`);
    for (const f of ['csv', 'lammps', 'vti', 'tiff', 'raw', 'stl-solid', 'stl-particles']) await exportRun(sampled, f, out(f));

    // CSV and LAMMPS: every particle on the sphere |x| = 1; the dump's box is the frame where it is.
    const [head, ...rows] = readFileSync(out('csv'), 'utf8').trim().split('\n');
    const [ix, iy, iz] = ['x', 'y', 'z'].map((c) => head.split(',').indexOf(c));
    expect(rows.length).toBe(res.metrics.particles);
    for (const row of rows) {
      const c = row.split(',').map(Number);
      expect(Math.hypot(c[ix], c[iy], c[iz])).toBeCloseTo(1, 3);
    }
    const dumpText = readFileSync(out('lammps'), 'utf8');
    const atoms = parseDump(dumpText).table.columns;
    for (let i = 0; i < atoms.x.length; i++) expect(Math.hypot(atoms.x[i], atoms.y[i], atoms.z[i])).toBeCloseTo(1, 3);
    const lines = dumpText.split('\n'), k = lines.findIndex((l) => l.startsWith('ITEM: BOX BOUNDS'));
    const box = table.meta!.box as number[];
    [0, 1, 2].forEach((a) => expect(lines[k + 1 + a].split(' ').map(Number)).toEqual([offset[a], offset[a] + box[a]]));

    // Volumes: voxel (0, 0, 0)'s corner at the frame's offset, so the solid's centre is the origin.
    const vti = decodeVti(new Uint8Array(readFileSync(out('vti'))));
    expect(vti.origin).toEqual(offset);
    const centre = [0, 0, 0];
    let count = 0;
    vti.labels.forEach((l, i) => {
      if (!l) return;
      const p = [i % vti.dims[0], Math.floor(i / vti.dims[0]) % vti.dims[1], Math.floor(i / (vti.dims[0] * vti.dims[1]))];
      p.forEach((v, a) => (centre[a] += vti.origin[a] + (v + 0.5) * vti.voxelSize));
      count++;
    });
    for (const c of centre) expect(Math.abs(c / count)).toBeLessThan(0.5 * vti.voxelSize);
    expect(parseRawHeader(readFileSync(`${out('raw')}.json`, 'utf8')).origin).toEqual(offset);
    // ImageJ: calibrated x = (pixel - xorigin) * pixel size, so voxel 0's corner is at the offset.
    const description = decodeTiffStack(new Uint8Array(readFileSync(out('tiff')))).description;
    (['x', 'y', 'z'] as const).forEach((axis, a) => expect(Number(new RegExp(`\\n${axis}origin=(.+)\\n`).exec(description)?.[1])).toBeCloseTo(-offset[a] / solid.voxelSize, 9));

    // Meshes: the solid's voxel surface and the one particle solid both span about [-1, 1] on each axis.
    const spans = (positions: ArrayLike<number>) => [0, 1, 2].map((a) => {
      let lo = Infinity, hi = -Infinity;
      for (let i = a; i < positions.length; i += 3) { lo = Math.min(lo, positions[i]); hi = Math.max(hi, positions[i]); }
      return [lo, hi];
    });
    const meshes = [parseStl(new Uint8Array(readFileSync(out('stl-solid')))).positions, ...asciiSolids(readFileSync(out('stl-particles'), 'latin1')).values()];
    expect(meshes.length).toBe(2);
    for (const positions of meshes) for (const [lo, hi] of spans(positions)) {
      expect(Math.abs(lo + 1)).toBeLessThan(solid.voxelSize);
      expect(Math.abs(hi - 1)).toBeLessThan(solid.voxelSize);
    }
    // A lopsided solid (a bar with a crossbar near one end) is one piece where it is, in both STLs:
    // the per-particle STL took the open frame for periodic and moved its far part a frame's width.
    const lopsided = surfaceEngine.run(surfaceParamsSchema.parse({
      surface: { kind: 'blobby', threshold: 0.5, blobs: [{ from: [-1, 0, 0], to: [1, 0, 0], radius: 0.45 }, { from: [0.8, -1, 0], to: [0.8, 1, 0], radius: 0.45 }] },
      spacing: 0.15, voxelsAcross: 24,
    }), { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    writeFileSync(join(dir, 'lopsided.pbv'), encodeVolume(lopsided.artifacts[1] as LabelVolume));
    const bar: ExportableRun = { ...sampled, id: 'u3', artifacts: [{ kind: 'volume', name: 'solid', path: join(dir, 'lopsided.pbv') }] };
    await exportRun(bar, 'stl-solid', out('bar-solid.stl'));
    await exportRun(bar, 'stl-particles', out('bar-particles.stl'));
    const barSolid = spans(parseStl(new Uint8Array(readFileSync(out('bar-solid.stl')))).positions);
    const barParticles = [...asciiSolids(readFileSync(out('bar-particles.stl'), 'latin1')).values()];
    expect(barParticles.length).toBe(1);
    spans(barParticles[0]).forEach((span, a) => span.forEach((v, k) => expect(v).toBeCloseTo(barSolid[a][k], 5)));
    expect(barSolid[0][0]).toBeLessThan(-1.2); // the bar's far end, beyond its axis' end at x = -1

    // Without a volume the particles are meshed as spheres, around their own positions too.
    const tableOnly: ExportableRun = { ...sampled, id: 'u2', artifacts: [sampled.artifacts[0]] };
    await exportRun(tableOnly, 'stl-particles', out('spheres.stl'));
    const discs = [...asciiSolids(readFileSync(out('spheres.stl'), 'latin1')).values()];
    expect(discs.length).toBe(res.metrics.particles);
    for (const [lo, hi] of spans(discs.flatMap((p) => Array.from(p)))) {
      expect(lo).toBeGreaterThan(-1.3);
      expect(hi).toBeLessThan(1.3);
      expect(lo).toBeLessThan(-0.9);
    }
  });
});
