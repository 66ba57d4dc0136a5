/**
 * A voxel map seen from the front (looking along +y, x to the right, z up): per pixel the share of
 * solid voxels along the line of sight, so that thin and thick parts read apart. Forms show imported
 * shapes this way instead of their base64 bits.
 */
import { decodeBits } from '../../../core/voxel/shapes';

export interface Projection {
  width: number;
  height: number;
  /** Row-major, top row first (highest z), 0 (empty) .. 1 (solid all the way through). */
  shade: Float32Array;
  solid: number;
}

export function projectVoxelMap(dims: readonly number[], bits: string | number[]): Projection {
  const [nx, ny, nz] = dims;
  const map = decodeBits(bits, nx * ny * nz);
  const shade = new Float32Array(nx * nz);
  let solid = 0;
  for (let z = 0; z < nz; z++) {
    const row = (nz - 1 - z) * nx;
    for (let y = 0; y < ny; y++) {
      const o = nx * (y + ny * z);
      for (let x = 0; x < nx; x++) {
        if (map[o + x]) {
          shade[row + x] += 1;
          solid++;
        }
      }
    }
  }
  for (let i = 0; i < shade.length; i++) shade[i] /= ny;
  return { width: nx, height: nz, shade, solid };
}
