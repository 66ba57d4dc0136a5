/**
 * Surface mesh of labelled voxels: one quad for every face between a particle voxel and a voxel of
 * another label (void, another particle, or outside the region, so that cut particles look closed).
 * Interior faces are skipped, so a particle of V voxels costs about its surface, not 6 V quads.
 *
 * Two passes over the block (count, then fill) so the output arrays are allocated once at their
 * exact size. Pure: the Babylon side (voxelMesh.ts) only uploads the arrays.
 */

export interface VoxelBlock {
  /** Labels of the block, x fastest: labels[x + nx * (y + ny * z)]. */
  labels: Uint32Array;
  dims: [number, number, number];
  /** World position of the block's voxel (0,0,0) corner. */
  origin: [number, number, number];
  /** Edge length of one voxel in world units. */
  voxelSize: number;
}

export interface SurfaceMesh {
  positions: Float32Array;
  normals: Float32Array;
  /** RGBA per vertex. */
  colors: Float32Array;
  indices: Uint32Array;
  /** For picking: the label of each quad (faceIndex >> 1 for triangles). */
  quadLabels: Uint32Array;
  quads: number;
}

// The six face directions and, for each, the four corners of the face on the unit cube, counter-
// clockwise seen from outside (the right-hand normal of every quad points out of the voxel).
const DIRS: readonly (readonly [number, number, number])[] = [
  [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
];
const CORNERS: readonly (readonly number[])[] = [
  [1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1],
  [0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0],
  [0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0],
  [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1],
  [0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1],
  [0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0],
];

function neighbour(b: VoxelBlock, x: number, y: number, z: number): number {
  const [nx, ny, nz] = b.dims;
  if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) return 0;
  return b.labels[x + nx * (y + ny * z)];
}

/** Counts the exposed faces of the block (the number of quads buildVoxelSurface will emit). */
export function countExposedFaces(b: VoxelBlock): number {
  const [nx, ny, nz] = b.dims;
  let quads = 0;
  for (let z = 0; z < nz; z++)
    for (let y = 0; y < ny; y++)
      for (let x = 0; x < nx; x++) {
        const l = b.labels[x + nx * (y + ny * z)];
        if (l === 0) continue;
        for (let d = 0; d < 6; d++) if (neighbour(b, x + DIRS[d][0], y + DIRS[d][1], z + DIRS[d][2]) !== l) quads++;
      }
  return quads;
}

/**
 * Builds the surface. `colourOf(label, out, offset)` writes the RGB (0..1) of a label; it is called
 * once per label, not per face. Throws before allocating when the mesh would exceed maxQuads.
 */
export function buildVoxelSurface(
  b: VoxelBlock,
  colourOf: (label: number, out: Float32Array, offset: number) => void,
  maxQuads = 4_000_000,
): SurfaceMesh {
  const [nx, ny, nz] = b.dims;
  if (b.labels.length !== nx * ny * nz) throw new Error(`voxel block: labels has ${b.labels.length} values, dims ${nx}x${ny}x${nz} need ${nx * ny * nz}`);
  const quads = countExposedFaces(b);
  if (quads > maxQuads) throw new Error(`voxel region has ${quads} surface faces, more than ${maxQuads}: choose a smaller region`);
  const positions = new Float32Array(quads * 12);
  const normals = new Float32Array(quads * 12);
  const colors = new Float32Array(quads * 16);
  const indices = new Uint32Array(quads * 6);
  const quadLabels = new Uint32Array(quads);
  const s = b.voxelSize;
  const [ox, oy, oz] = b.origin;
  const rgb = new Float32Array(3);
  let lastLabel = 0;
  let q = 0;
  for (let z = 0; z < nz; z++)
    for (let y = 0; y < ny; y++)
      for (let x = 0; x < nx; x++) {
        const l = b.labels[x + nx * (y + ny * z)];
        if (l === 0) continue;
        if (l !== lastLabel) {
          colourOf(l, rgb, 0);
          lastLabel = l;
        }
        for (let d = 0; d < 6; d++) {
          const dir = DIRS[d];
          if (neighbour(b, x + dir[0], y + dir[1], z + dir[2]) === l) continue;
          const c = CORNERS[d];
          for (let k = 0; k < 4; k++) {
            const p = q * 12 + k * 3;
            positions[p] = ox + (x + c[k * 3]) * s;
            positions[p + 1] = oy + (y + c[k * 3 + 1]) * s;
            positions[p + 2] = oz + (z + c[k * 3 + 2]) * s;
            normals[p] = dir[0];
            normals[p + 1] = dir[1];
            normals[p + 2] = dir[2];
            const cc = q * 16 + k * 4;
            colors[cc] = rgb[0];
            colors[cc + 1] = rgb[1];
            colors[cc + 2] = rgb[2];
            colors[cc + 3] = 1;
          }
          const v = q * 4;
          const i = q * 6;
          indices[i] = v;
          indices[i + 1] = v + 1;
          indices[i + 2] = v + 2;
          indices[i + 3] = v;
          indices[i + 4] = v + 2;
          indices[i + 5] = v + 3;
          quadLabels[q] = l;
          q++;
        }
      }
  return { positions, normals, colors, indices, quadLabels, quads };
}
