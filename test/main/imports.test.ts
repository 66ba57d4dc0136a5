import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTable, encodeVolume } from '../../core/io/container';
import { solidSurfaceTriangles, stlHeader } from '../../core/io/stl';
import { shapeSchema } from '../../core/voxel/shapes';
import { analyseSpheres } from '../../core/analysis/index';
import type { ColumnTable } from '../../core/common/engine';
import { exportRun, type ExportableRun } from '../../main/services/exports';
import { importMeshShape, importRawVoxelShape, importSphereCsv, importTaskBytes, meshBytesToShape } from '../../main/services/imports';
import { meshTriangleLimit } from '../../core/io/mesh';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'pb-import-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bitAt = (b64: string, i: number) => (Buffer.from(b64, 'base64')[i >> 3] >> (i & 7)) & 1;

/** ASCII STL of the box [0, a] x [0, b] x [0, c]. */
function asciiBox(a: number, b: number, c: number): string {
  const v = [[0, 0, 0], [a, 0, 0], [a, b, 0], [0, b, 0], [0, 0, c], [a, 0, c], [a, b, c], [0, b, c]];
  const f = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [2, 3, 7], [2, 7, 6], [1, 2, 6], [1, 6, 5], [0, 4, 7], [0, 7, 3]];
  return 'solid box\n' + f.map((t) => ' facet normal 0 0 0\n  outer loop\n' + t.map((k) => `   vertex ${v[k].join(' ')}\n`).join('') + '  endloop\n endfacet\n').join('') + 'endsolid box\n';
}

describe('mesh shapes', () => {
  it('voxelises an ASCII STL box and an OBJ into voxel-engine shapes', async () => {
    writeFileSync(join(dir, 'box.stl'), asciiBox(2, 1, 0.5));
    const res = await importMeshShape(join(dir, 'box.stl'), { resolution: 10 });
    expect(res.shape.dims).toEqual([20, 10, 5]);
    expect(res.voxelCount).toBe(1000);
    expect(res.volume).toBeCloseTo(1, 12);
    expect(shapeSchema.parse(res.shape).kind).toBe('voxels');
    const byCount = await importMeshShape(join(dir, 'box.stl'), { voxelsAcross: 40 });
    expect(byCount.shape.dims).toEqual([40, 20, 10]);
    // Uploaded bytes (the web host) take the same path.
    const uploaded = meshBytesToShape(new TextEncoder().encode(asciiBox(2, 1, 0.5)), 'Box.STL', { resolution: 10 });
    expect(uploaded.shape).toEqual(res.shape);
    writeFileSync(join(dir, 'tet.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n');
    const tet = await importMeshShape(join(dir, 'tet.obj'), { resolution: 40 });
    // The unit corner tetrahedron has volume 1/6; 40 voxels per unit gives it within 5 %.
    expect(Math.abs(tet.volume * 6 - 1)).toBeLessThan(0.05);
  });

  it('takes an exported voxel STL back to the same solid map', async () => {
    const [nx, ny, nz] = [5, 4, 3];
    const labels = new Uint32Array(nx * ny * nz).map((_, i) => ((i * 37) % 5 < 3 ? 1 : 0));
    labels[0] = labels[labels.length - 1] = 1; // opposite corners solid: the mesh spans the whole grid
    const slices = [0, 1, 2].map((z) => labels.subarray(z * nx * ny, (z + 1) * nx * ny));
    const tris = slices.map((s, z) => solidSurfaceTriangles({ below: slices[z - 1], slice: s, above: slices[z + 1], nx, ny, z }, 1));
    const n = tris.reduce((a, t) => a + t.length, 0);
    const file = new Uint8Array(84 + n);
    file.set(stlHeader(n / 50));
    let at = 84;
    for (const t of tris) { file.set(t, at); at += t.length; }
    writeFileSync(join(dir, 'vox.stl'), file);
    const res = await importMeshShape(join(dir, 'vox.stl'), { resolution: 1 });
    expect(res.shape.dims).toEqual([nx, ny, nz]);
    for (let i = 0; i < labels.length; i++) expect(bitAt(res.shape.bits, i)).toBe(labels[i]);
  });

  it('reports malformed and open meshes and bad options clearly', async () => {
    writeFileSync(join(dir, 'bad.stl'), new Uint8Array(100));
    await expect(importMeshShape(join(dir, 'bad.stl'), { resolution: 1 })).rejects.toThrow(/STL is malformed: binary header says 0 triangles \(84 bytes\) but the file has 100 bytes/);
    writeFileSync(join(dir, 'open.stl'), asciiBox(1, 1, 1).replace(/ facet[\s\S]*?endfacet\n/, ''));
    await expect(importMeshShape(join(dir, 'open.stl'), { resolution: 4 })).rejects.toThrow(/open.stl is not watertight: 3 boundary edges/);
    await expect(importMeshShape(join(dir, 'box.stl'), {})).rejects.toThrow(/exactly one of resolution or voxelsAcross/);
    await expect(importMeshShape(join(dir, 'box.ply'), { resolution: 1 })).rejects.toThrow(/must end in .stl or .obj/);
    // An empty binary STL said 'has no extent'; a mesh too coarse for a voxel names the option given.
    expect(() => meshBytesToShape(new Uint8Array(84), 'empty.stl', { voxelsAcross: 8 })).toThrow(/^mesh 'empty.stl' has no triangles$/);
    const box = new TextEncoder().encode(asciiBox(2, 1, 0.5));
    expect(() => meshBytesToShape(box, 'box.stl', { voxelsAcross: 1 })).toThrow(/^mesh 'box.stl' gives no solid voxel at 1 voxels across \(resolution 0.5\): raise voxelsAcross$/);
    expect(() => meshBytesToShape(box, 'box.stl', { resolution: 0.4 })).toThrow(/^mesh 'box.stl' gives no solid voxel at resolution 0.4: raise the resolution$/);
  });
});

describe('mesh size', () => {
  it('refuses an OBJ whose long faces fan into more triangles than its size sets memory aside for, before allocating them', () => {
    // 2.2 MB: one face of 1,100,002 vertices. A 40 MB one (2·10⁷ triangles) aborted the whole process: its plain array of coordinates outgrew V8's limit.
    const obj = new TextEncoder().encode(`v 0 0 0\nv 1 0 0\nv 0 1 0\nf ${'1 2 '.repeat(550001)}\n`);
    expect(meshTriangleLimit(obj)).toBe(2 ** 20);
    expect(() => meshBytesToShape(obj, 'fan.obj', { voxelsAcross: 10 })).toThrow(/^OBJ has 1100000 triangles, more than the 1048576 an import of a file this size holds/);
    expect(importTaskBytes({ kind: 'mesh', bytes: obj, fileName: 'fan.obj', options: { voxelsAcross: 10 } })).toBeGreaterThan(168 * 2 ** 20);
  });
});

describe('raw voxel shapes', () => {
  it('reads an exported raw volume with its header as a solid shape', async () => {
    const dims: [number, number, number] = [4, 3, 2];
    const labels = Uint32Array.of(0, 1, 1, 0, 2, 2, 0, 0, 3, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 5, 5, 0, 1);
    writeFileSync(join(dir, 'l.pbv'), encodeVolume({ kind: 'volume', name: 'labels', dims, voxelSize: 0.5, labels }));
    const run: ExportableRun = { id: 'r', name: 'r', engine: 'voxel', params: {}, metrics: {}, series: [], artifacts: [{ kind: 'volume', name: 'labels', path: join(dir, 'l.pbv') }] };
    await exportRun(run, 'raw', join(dir, 'l.raw'));
    const res = await importRawVoxelShape(join(dir, 'l.raw'));
    expect(res.shape.dims).toEqual(dims);
    expect(res.voxelCount).toBe(12);
    expect(res.volume).toBeCloseTo(12 * 0.125, 12);
    for (let i = 0; i < labels.length; i++) expect(bitAt(res.shape.bits, i)).toBe(labels[i] ? 1 : 0);
  });

  it('checks the header against the data and the shape size limit', async () => {
    writeFileSync(join(dir, 's.raw'), new Uint8Array(10).fill(1));
    writeFileSync(join(dir, 's.raw.json'), JSON.stringify({ dims: [4, 4, 4], dtype: 'uint8' }));
    await expect(importRawVoxelShape(join(dir, 's.raw'))).rejects.toThrow(/has 10 bytes, but the header .* needs 64/);
    // A uint16 volume (numpy '<u2') described as uint8: read in part, it was half its voxels in the wrong places.
    writeFileSync(join(dir, 's.raw'), new Uint8Array(128).fill(1));
    await expect(importRawVoxelShape(join(dir, 's.raw'))).rejects.toThrow(/s\.raw' has 128 bytes, more than the 64 that the header \(dims 4x4x4, uint8, headerBytes 0\) describes: .*2 bytes a voxel would fill it: dtype uint16\?/);
    writeFileSync(join(dir, 'h.json'), JSON.stringify({ dims: [2000, 1, 1], dtype: 'uint8' }));
    await expect(importRawVoxelShape(join(dir, 's.raw'), join(dir, 'h.json'))).rejects.toThrow(/dims\[0\] is 2000; a voxel shape has at most 1024/);
  });
});

describe('sphere csv', () => {
  it("a sphere import's memory bound counts its rows, not its characters / 8", () => {
    // Longer lines hold the same spheres: only the text itself (6 bytes a character) grows. By
    // characters / 8, a typical 40-character row counted as 5 rows of 600 bytes (3.2 GiB asked for
    // a 1,000,000-row, 41 MB file, refused on an 8 GB machine's 5.6 GB budget; it needs under 1 GB).
    const rows = (pad: number) => 'x,y,z,r\n' + Array.from({ length: 1000 }, (_, i) => `${i},1,1,0.5${' '.repeat(pad)}`).join('\n') + '\n';
    const bytes = (csv: string) => importTaskBytes({ kind: 'spheres', csv, source: 'a.csv', analysis: {} });
    const short = rows(0), long = rows(72);
    expect(bytes(long) - bytes(short)).toBe(6 * (long.length - short.length));
  });

  it("counts the rows of a file with CR (classic Mac) or mixed line ends as those of its LF form", () => {
    const lf = 'x,y,z,r\n' + Array.from({ length: 1000 }, (_, i) => `${i},1,1,0.5`).join('\n') + '\n';
    const bytes = (csv: string) => importTaskBytes({ kind: 'spheres', csv, source: 'a.csv', analysis: {} });
    // The same rows: only the text (6 bytes a character) differs, by CRLF's second character.
    let k = 0;
    for (const text of [lf.replace(/\n/g, '\r'), lf.replace(/\n/g, '\r\n'), lf.replace(/\n/g, () => ['\n', '\r', '\r\n'][k++ % 3])]) {
      expect(bytes(text) - bytes(lf)).toBe(6 * (text.length - lf.length));
    }
  });

  it('brings an exported sphere csv back into a table that analyses like the original', async () => {
    const a = 1, k = 3;
    const pts: number[][] = [];
    for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) for (let l = 0; l < k; l++) pts.push([(i + 0.5) * a, (j + 0.5) * a, (l + 0.5) * a]);
    const spheres: ColumnTable = {
      kind: 'table', name: 'spheres',
      columns: {
        x: Float64Array.from(pts, (p) => p[0]), y: Float64Array.from(pts, (p) => p[1]), z: Float64Array.from(pts, (p) => p[2]),
        r: new Float64Array(pts.length).fill(a / 2), type: new Uint16Array(pts.length),
      },
    };
    writeFileSync(join(dir, 'sp.pbt'), encodeTable(spheres));
    const run: ExportableRun = { id: 's', name: 's', engine: 'stacking', params: {}, metrics: {}, series: [], artifacts: [{ kind: 'table', name: 'spheres', path: join(dir, 'sp.pbt') }] };
    await exportRun(run, 'csv', join(dir, 'sp.csv'));
    const table = await importSphereCsv(join(dir, 'sp.csv'));
    expect(table.meta?.box).toEqual([3, 3, 3]);
    const box: [number, number, number] = [3, 3, 3];
    const before = analyseSpheres(spheres, box, { gapTolerance: 1e-9, poreGridVoxels: 4096 });
    const after = analyseSpheres(table, box, { gapTolerance: 1e-9, poreGridVoxels: 4096 });
    expect(after.metrics).toEqual(before.metrics);
    expect(after.metrics.coordinationMean).toBeGreaterThan(4);
  });
});
