import { describe, expect, it } from 'vitest';
import { assertWatertight, checkWatertight, parseObj, parseStl, type TriangleMesh, type WatertightReport } from '../../../core/io/mesh';
import { voxeliseMesh } from '../../../core/io/voxelise';
import { stlHeader } from '../../../core/io/stl';
import { Random } from '../../../core/common/random';

/** An indexed mesh as flat triangles. */
function mesh(verts: number[][], faces: number[][]): TriangleMesh {
  const positions = new Float64Array(faces.length * 9);
  faces.forEach((f, t) => f.forEach((v, k) => positions.set(verts[v], 9 * t + 3 * k)));
  return { positions, triangles: faces.length };
}

/** Axis-aligned box [0, s]^3 as 12 outward triangles. */
function cube(s: number): TriangleMesh {
  const v = [[0, 0, 0], [s, 0, 0], [s, s, 0], [0, s, 0], [0, 0, s], [s, 0, s], [s, s, s], [0, s, s]];
  const f = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [2, 3, 7], [2, 7, 6], [1, 2, 6], [1, 6, 5], [0, 4, 7], [0, 7, 3]];
  return mesh(v, f);
}

/** UV sphere of radius r: `rings` latitude bands, `segments` longitudes, outward. */
function uvSphere(r: number, rings: number, segments: number): TriangleMesh {
  const verts: number[][] = [[0, 0, r], [0, 0, -r]];
  for (let i = 1; i < rings; i++) for (let j = 0; j < segments; j++) {
    const th = (Math.PI * i) / rings, ph = (2 * Math.PI * j) / segments;
    verts.push([r * Math.sin(th) * Math.cos(ph), r * Math.sin(th) * Math.sin(ph), r * Math.cos(th)]);
  }
  const at = (i: number, j: number) => 2 + (i - 1) * segments + (j % segments);
  const faces: number[][] = [];
  for (let j = 0; j < segments; j++) {
    faces.push([0, at(1, j), at(1, j + 1)]);
    faces.push([1, at(rings - 1, j + 1), at(rings - 1, j)]);
    for (let i = 1; i < rings - 1; i++) {
      faces.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
      faces.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
    }
  }
  return mesh(verts, faces);
}

/** Signed volume by the divergence theorem (positive for outward triangles). */
function meshVolume(m: TriangleMesh): number {
  let v = 0;
  const p = m.positions;
  for (let t = 0; t < m.triangles; t++) {
    const o = 9 * t;
    v += (p[o] * (p[o + 4] * p[o + 8] - p[o + 5] * p[o + 7]) - p[o + 1] * (p[o + 3] * p[o + 8] - p[o + 5] * p[o + 6]) + p[o + 2] * (p[o + 3] * p[o + 7] - p[o + 4] * p[o + 6])) / 6;
  }
  return v;
}

function binaryStl(m: TriangleMesh): Uint8Array {
  const out = new Uint8Array(84 + 50 * m.triangles);
  out.set(stlHeader(m.triangles));
  const v = new DataView(out.buffer);
  for (let t = 0; t < m.triangles; t++) for (let k = 0; k < 9; k++) v.setFloat32(84 + 50 * t + 12 + 4 * k, m.positions[9 * t + k], true);
  return out;
}

function asciiStl(m: TriangleMesh): string {
  let s = 'solid test\n';
  for (let t = 0; t < m.triangles; t++) {
    s += ' facet normal 0 0 0\n  outer loop\n';
    for (let k = 0; k < 3; k++) s += `   vertex ${m.positions[9 * t + 3 * k]} ${m.positions[9 * t + 3 * k + 1]} ${m.positions[9 * t + 3 * k + 2]}\n`;
    s += '  endloop\n endfacet\n';
  }
  return s + 'endsolid test\n';
}

const popcount = (bits: Uint8Array) => bits.reduce((s, b) => { let c = 0; for (let x = b; x; x >>= 1) c += x & 1; return s + c; }, 0);

describe('mesh import', () => {
  it('reads binary and ASCII STL and OBJ to the same triangles', () => {
    const c = cube(2);
    expect(Array.from(parseStl(binaryStl(c)).positions)).toEqual(Array.from(c.positions));
    expect(Array.from(parseStl(new TextEncoder().encode(asciiStl(c))).positions)).toEqual(Array.from(c.positions));
    const obj = 'o cube\nv 0 0 0\nv 2 0 0\nv 2 2 0\nv 0 2 0\nv 0 0 2\nv 2 0 2\nv 2 2 2\nv 0 2 2\n' +
      'f 1 3 2\nf 1 4 3\nf 5/1/1 6/2/2 7/3/3\nf -4 -2 -1\nf 1 2 6 5\nf 3 4 8 7\nf 2 3 7 6\nf 1 5 8 4\n';
    const m = parseObj(obj);
    expect(m.triangles).toBe(12);
    expect(checkWatertight(m).watertight).toBe(true);
    expect(meshVolume(m)).toBeCloseTo(8, 12);
  });

  it('reads ASCII STL and OBJ with CR (classic Mac), CRLF and mixed line ends as with LF', () => {
    const c = cube(2);
    const obj = 'v 0 0 0\nv 2 0 0\nv 0 2 0\nv 0 0 2\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n';
    for (const breaks of [['\r'], ['\r\n'], ['\r', '\n', '\r\n']]) {
      let k = 0;
      const re = (text: string) => text.replace(/\n/g, () => breaks[k++ % breaks.length]);
      expect(Array.from(parseStl(new TextEncoder().encode(re(asciiStl(c)))).positions)).toEqual(Array.from(c.positions));
      expect(parseObj(re(obj)).triangles).toBe(4);
      // Errors still name the line an editor shows.
      expect(() => parseObj(re('v 0 0 0\nv 1 x 0\n'))).toThrow(/^OBJ line 2: /);
    }
  });

  it('voxelises a hand-checked cube to exactly its volume', () => {
    // A 1 x 1 x 1 cube at 10 voxels per unit: 10^3 voxel centres inside, none on the boundary.
    const v = voxeliseMesh(cube(1), 10);
    expect(v.dims).toEqual([10, 10, 10]);
    expect(v.voxelCount).toBe(1000);
    expect(popcount(v.bits)).toBe(1000);
    // Shifted and at a resolution that does not divide it: 2.5 units at 4 voxels/unit = 10 voxels.
    const shifted = cube(2.5);
    for (let i = 0; i < shifted.positions.length; i++) shifted.positions[i] += [-7, 3, 100][i % 3];
    expect(voxeliseMesh(shifted, 4).voxelCount).toBe(1000);
  });

  it('voxelises a sphere to its volume within 1.5 %', () => {
    // 80 voxels across: the staircase error of the voxel count is well below 1 %; the UV sphere of
    // 96 x 48 facets is 0.3 % smaller than the true sphere.
    const s = uvSphere(1, 48, 96);
    expect(checkWatertight(s).watertight).toBe(true);
    const res = 40;
    const v = voxeliseMesh(s, res);
    const volume = v.voxelCount / res ** 3;
    expect(Math.abs(volume / meshVolume(s) - 1)).toBeLessThan(0.01);
    expect(Math.abs(volume / ((4 / 3) * Math.PI) - 1)).toBeLessThan(0.015);
    // Voxels near the centre are solid, corners are void.
    const at = (x: number, y: number, z: number) => (v.bits[(x + 80 * (y + 80 * z)) >> 3] >> ((x + 80 * (y + 80 * z)) & 7)) & 1;
    expect(at(40, 40, 40)).toBe(1);
    expect(at(0, 0, 0)).toBe(0);
  });

  it('rejects malformed STL with clear errors', () => {
    const good = binaryStl(cube(1));
    expect(() => parseStl(good.subarray(0, good.length - 7))).toThrow(/binary header says 12 triangles \(684 bytes\) but the file has 677 bytes/);
    expect(() => parseStl(new Uint8Array(10))).toThrow(/shorter than the 84-byte binary header/);
    // A binary STL whose header starts with 'solid' (SolidWorks writes 'solid <name>' there), cut short:
    // the message is about the binary file, not 'ASCII STL has no facets'.
    const solidHeader = good.slice(0, good.length - 7);
    solidHeader.set(new TextEncoder().encode('solid part exported as binary'));
    expect(() => parseStl(solidHeader)).toThrow(/starts with 'solid' but is binary: its header says 12 triangles \(684 bytes\) but the file has 677 bytes/);
    expect(() => parseStl(new TextEncoder().encode('solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zero\n'))).toThrow(/line 4: expected 'vertex x y z'/);
    expect(() => parseStl(new TextEncoder().encode('solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\n'))).toThrow(/has 2 vertices, expected 3/);
    expect(() => parseObj('v 0 0 0\nf 1 2 3\n')).toThrow(/line 2: vertex index '2' is not in 1..1/);
  });

  it('reports holes and flipped faces as not watertight', () => {
    const c = cube(1);
    const holed: TriangleMesh = { positions: c.positions.slice(9), triangles: 11 };
    expect(checkWatertight(holed)).toMatchObject({ watertight: false, boundaryEdges: 3 });
    expect(() => assertWatertight(holed, 'part.stl')).toThrow(/part.stl is not watertight: 3 boundary edges \(holes\), e.g. the edge from/);
    const flipped = c.positions.slice();
    flipped.set([c.positions[3], c.positions[4], c.positions[5]], 6);
    flipped.set([c.positions[6], c.positions[7], c.positions[8]], 3);
    expect(checkWatertight({ positions: flipped, triangles: 12 })).toMatchObject({ watertight: false, inconsistentEdges: 3 });
  });

  it('refuses a resolution that makes the shape too large before allocating', () => {
    expect(() => voxeliseMesh(cube(1), 2000)).toThrow(/gives 2000 voxels along x .*at most 1024/);
    expect(() => voxeliseMesh(cube(1), 0)).toThrow(/resolution must be a positive number/);
  });
});

describe('watertightness check', () => {
  /** The check as it was written first: vertices by their coordinates' text, a Map of edges in order of first use. */
  function reference(m: TriangleMesh): Omit<WatertightReport, 'example'> {
    const ids = new Map<string, number>();
    const vid = (t: number, k: number) => {
      const key = Array.from(m.positions.subarray(9 * t + 3 * k, 9 * t + 3 * k + 3)).join(',');
      if (!ids.has(key)) ids.set(key, ids.size);
      return ids.get(key)!;
    };
    const edges = new Map<string, [number, number]>();
    for (let t = 0; t < m.triangles; t++) {
      const v = [vid(t, 0), vid(t, 1), vid(t, 2)];
      if (new Set(v).size < 3) continue;
      for (let k = 0; k < 3; k++) {
        const a = v[k], b = v[(k + 1) % 3];
        const key = `${Math.min(a, b)}-${Math.max(a, b)}`;
        const e = edges.get(key) ?? [0, 0];
        e[a < b ? 0 : 1]++;
        edges.set(key, e);
      }
    }
    const r = { watertight: true, boundaryEdges: 0, nonManifoldEdges: 0, inconsistentEdges: 0 };
    for (const [fwd, back] of edges.values()) {
      if (fwd + back === 1) r.boundaryEdges++;
      else if (fwd + back > 2) r.nonManifoldEdges++;
      else if (fwd !== 1) r.inconsistentEdges++;
    }
    r.watertight = r.boundaryEdges + r.nonManifoldEdges + r.inconsistentEdges === 0;
    return r;
  }

  it('counts holes, shared and flipped edges as the first check did, on random triangle soups and closed meshes', () => {
    const rng = new Random(3);
    // Few distinct points (0 and -0 among them, the same point) so that edges repeat, flip and go missing.
    const coords = [0, -0, 1, 0.5, -2.25, 1e-300];
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(rng.next() * 40);
      const positions = Float64Array.from({ length: 9 * n }, () => coords[Math.floor(rng.next() * coords.length)]);
      const soup = { positions, triangles: n };
      const { example, ...counts } = checkWatertight(soup);
      expect(counts).toEqual(reference(soup));
      expect(example === undefined).toBe(counts.watertight);
    }
    for (const closed of [cube(2), uvSphere(1, 12, 16)]) expect(checkWatertight(closed)).toEqual({ watertight: true, boundaryEdges: 0, nonManifoldEdges: 0, inconsistentEdges: 0 });
  });
});
