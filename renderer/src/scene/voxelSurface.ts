/**
 * Surface mesh of labelled voxels: one quad for every face between a particle voxel and a voxel of
 * another label (void, another particle, or outside the region, so that cut particles look closed).
 * Interior faces are skipped, so a particle of V voxels costs about its surface, not 6 V quads.
 *
 * Two passes over the block (a face mask per voxel and the count, then the fill) so the output
 * arrays are allocated once at their exact size. Pure: the Babylon side (voxelMesh.ts) only uploads the arrays.
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

/**
 * Per voxel, a 6-bit mask of its exposed faces (bit d for DIRS[d]); 0 for void. Neighbours are
 * found by index offsets, with the block's faces treated as void.
 */
function exposedMasks(b: VoxelBlock, mask: Uint8Array): number {
  const [nx, ny, nz] = b.dims;
  const L = b.labels;
  const sxy = nx * ny;
  let quads = 0;
  for (let z = 0; z < nz; z++)
    for (let y = 0; y < ny; y++) {
      const row = nx * (y + ny * z);
      for (let x = 0; x < nx; x++) {
        const k = row + x;
        const l = L[k];
        if (l === 0) continue;
        let m = 0;
        if (x === nx - 1 || L[k + 1] !== l) m |= 1;
        if (x === 0 || L[k - 1] !== l) m |= 2;
        if (y === ny - 1 || L[k + nx] !== l) m |= 4;
        if (y === 0 || L[k - nx] !== l) m |= 8;
        if (z === nz - 1 || L[k + sxy] !== l) m |= 16;
        if (z === 0 || L[k - sxy] !== l) m |= 32;
        mask[k] = m;
        // popcount of 6 bits
        quads += (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1) + ((m >> 4) & 1) + ((m >> 5) & 1);
      }
    }
  return quads;
}

/** Counts the exposed faces of the block (the number of quads buildVoxelSurface will emit). */
export function countExposedFaces(b: VoxelBlock): number {
  return exposedMasks(b, new Uint8Array(b.labels.length));
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
  const mask = new Uint8Array(nx * ny * nz);
  const quads = exposedMasks(b, mask);
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
        const k = x + nx * (y + ny * z);
        const m = mask[k];
        if (m === 0) continue;
        const l = b.labels[k];
        if (l !== lastLabel) {
          colourOf(l, rgb, 0);
          lastLabel = l;
        }
        for (let d = 0; d < 6; d++) {
          if ((m & (1 << d)) === 0) continue;
          const dir = DIRS[d];
          const c = CORNERS[d];
          for (let k4 = 0; k4 < 4; k4++) {
            const p = q * 12 + k4 * 3;
            positions[p] = ox + (x + c[k4 * 3]) * s;
            positions[p + 1] = oy + (y + c[k4 * 3 + 1]) * s;
            positions[p + 2] = oz + (z + c[k4 * 3 + 2]) * s;
            normals[p] = dir[0];
            normals[p + 1] = dir[1];
            normals[p + 2] = dir[2];
            const cc = q * 16 + k4 * 4;
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
