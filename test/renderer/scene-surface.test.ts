import { describe, it, expect } from 'vitest';
import { buildVoxelSurface, countExposedFaces, type VoxelBlock } from '../../renderer/src/scene/voxelSurface';
import { Random } from '../../core/common/random';
import { labelColourer } from '../../renderer/src/scene/surfaceColours';
import { meshVoxelSurface } from '../../renderer/src/scene/voxelMesher';
import { idColour } from '../../renderer/src/scene/colormap';

function block(dims: [number, number, number], labels: number[]): VoxelBlock {
  return { labels: Uint32Array.from(labels), dims, origin: [0, 0, 0], voxelSize: 1 };
}
const grey = (_l: number, out: Float32Array, o: number): void => { out[o] = out[o + 1] = out[o + 2] = 0.5; };

/** Brute force: a face is exposed when the voxel across it (looked up in a map) has another label. */
function bruteFaces(b: VoxelBlock): number {
  const [nx, ny, nz] = b.dims;
  const at = new Map<string, number>();
  for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) at.set(`${x},${y},${z}`, b.labels[x + nx * (y + ny * z)]);
  let n = 0;
  for (const [key, l] of at) {
    if (l === 0) continue;
    const [x, y, z] = key.split(',').map(Number);
    for (const [dx, dy, dz] of [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]) {
      if ((at.get(`${x + dx},${y + dy},${z + dz}`) ?? 0) !== l) n++;
    }
  }
  return n;
}

describe('voxel surface mesh', () => {
  it('draws 6 quads for one voxel, 10 for two of one particle, 12 for two particles', () => {
    expect(buildVoxelSurface(block([1, 1, 1], [1]), grey).quads).toBe(6);
    expect(buildVoxelSurface(block([2, 1, 1], [3, 3]), grey).quads).toBe(10);
    expect(buildVoxelSurface(block([2, 1, 1], [3, 4]), grey).quads).toBe(12);
    expect(buildVoxelSurface(block([2, 2, 1], [0, 0, 0, 0]), grey).quads).toBe(0);
  });

  it('matches a brute-force face count on random blocks', () => {
    const rnd = new Random(7);
    for (let trial = 0; trial < 20; trial++) {
      const dims: [number, number, number] = [1 + Math.floor(rnd.next() * 6), 1 + Math.floor(rnd.next() * 6), 1 + Math.floor(rnd.next() * 6)];
      const labels = Array.from({ length: dims[0] * dims[1] * dims[2] }, () => Math.floor(rnd.next() * 3));
      const b = block(dims, labels);
      expect(countExposedFaces(b)).toBe(bruteFaces(b));
      expect(buildVoxelSurface(b, grey).quads).toBe(bruteFaces(b));
    }
  });

  it('winds every quad so that its right-hand normal points out of the voxel', () => {
    const m = buildVoxelSurface({ labels: Uint32Array.from([5]), dims: [1, 1, 1], origin: [10, 20, 30], voxelSize: 0.5 }, grey);
    for (let q = 0; q < m.quads; q++) {
      const p = (k: number): number[] => [0, 1, 2].map((a) => m.positions[m.indices[q * 6 + k] * 3 + a]);
      const [a, b, c] = [p(0), p(1), p(2)];
      const e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
      const e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
      const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
      const normal = [0, 1, 2].map((k) => m.normals[m.indices[q * 6] * 3 + k]);
      expect(n[0] * normal[0] + n[1] * normal[1] + n[2] * normal[2]).toBeGreaterThan(0);
      // the face lies on the voxel's boundary: outward from the centre
      const centre = [10.25, 20.25, 30.25];
      expect((a[0] - centre[0]) * normal[0] + (a[1] - centre[1]) * normal[1] + (a[2] - centre[2]) * normal[2]).toBeCloseTo(0.25);
      expect(m.quadLabels[q]).toBe(5);
    }
  });

  it('refuses a block whose labels do not match its dims, and a mesh over the face limit', () => {
    expect(() => buildVoxelSurface(block([2, 2, 2], [1]), grey)).toThrow(/dims 2x2x2 need 8/);
    expect(() => buildVoxelSurface(block([2, 1, 1], [1, 2]), grey, 5)).toThrow(/more than 5/);
  });
});

describe('voxel surface meshing off the main thread', () => {
  it('colours labels from the particle table, else by id, alike in the worker and its fallback', async () => {
    // particle 1 (label 1) has a table colour, label 3 is past the table's end
    const table = Float32Array.of(0.1, 0.2, 0.3, 1);
    const out = new Float32Array(3);
    labelColourer(table)(1, out, 0);
    expect(Array.from(out)).toEqual([0.1, 0.2, 0.3].map(Math.fround));
    const want = new Float32Array(3);
    idColour(2, want, 0, 1);
    labelColourer(table)(3, out, 0);
    expect(Array.from(out)).toEqual(Array.from(want));

    const block = { labels: Uint32Array.of(1, 0, 3, 3), dims: [2, 2, 1] as [number, number, number], origin: [0, 0, 0] as [number, number, number], voxelSize: 0.5 };
    const direct = buildVoxelSurface(block, labelColourer(table));
    const viaMesher = await meshVoxelSurface(block, table);
    expect(viaMesher.quads).toBe(direct.quads);
    expect(Array.from(viaMesher.colors)).toEqual(Array.from(direct.colors));
    expect(Array.from(viaMesher.positions)).toEqual(Array.from(direct.positions));
    // the caller keeps its block
    expect(Array.from(block.labels)).toEqual([1, 0, 3, 3]);
  });
});
