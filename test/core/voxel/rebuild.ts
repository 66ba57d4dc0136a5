/**
 * The tests' independent overlap check: a voxel packing's particle table rebuilt into labels with
 * every particle's full solid voxels, by inverse rotation of every position around it with the
 * reference rotation (rotation-reference.ts), not the engine's tables, extents or shortcuts.
 */
import { voxeliseShapeVoxels, type VoxelParams } from '../../../core/voxel/index';
import type { ColumnTable } from '../../../core/common/engine';
import { rotation } from './rotation-reference';

export interface Rebuilt {
  /** Row + 1 of the first particle to claim each voxel (x fastest), 0 = void. */
  labels: Uint32Array;
  /** Voxels written in the box, and those of them an earlier particle held already. */
  written: number;
  overlap: number;
  /** Per row: the voxels it holds (its own in the box, none held by an earlier row). */
  counts: number[];
  /** Per row: its rotation matrix and its shape (for further checks). */
  rotations: number[][];
  shapes: ReturnType<typeof voxeliseShapeVoxels>[];
}

/** `t`: the particles table's columns (type, size, rx, ry, rz, ix, iy, iz). */
export function rebuildLabels(params: VoxelParams, t: ColumnTable['columns'], dims: [number, number, number]): Rebuilt {
  const [nx, ny, nz] = dims, res = params.box.resolution;
  const labels = new Uint32Array(nx * ny * nz), counts: number[] = [], rotations: number[][] = [], shapes: Rebuilt['shapes'] = [];
  let overlap = 0, written = 0;
  const wrap = (v: number, n: number) => ((v % n) + n) % n;
  for (let r = 0; r < t.type.length; r++) {
    const type = params.mixture.types[t.type[r]];
    const shape = voxeliseShapeVoxels(type.shape, Math.round(t.size[r] * res));
    const M = rotation(t.rx[r], t.ry[r], t.rz[r]);
    const reach = Math.ceil(shape.maxRadius) + 2, [dx, dy, dz] = shape.dims;
    let count = 0;
    for (let z = -reach; z <= reach; z++) for (let y = -reach; y <= reach; y++) for (let x = -reach; x <= reach; x++) {
      // Inverse rotation = transpose.
      const sx = Math.round(M[0] * x + M[3] * y + M[6] * z) - shape.min[0];
      const sy = Math.round(M[1] * x + M[4] * y + M[7] * z) - shape.min[1];
      const sz = Math.round(M[2] * x + M[5] * y + M[8] * z) - shape.min[2];
      if (sx < 0 || sy < 0 || sz < 0 || sx >= dx || sy >= dy || sz >= dz || !shape.occupancy[sx + dx * (sy + dy * sz)]) continue;
      const gz = t.iz[r] + z;
      if (gz < 0 || gz >= nz) continue;
      const k = wrap(t.ix[r] + x, nx) + nx * (wrap(t.iy[r] + y, ny) + ny * gz);
      written++;
      if (labels[k]) overlap++;
      else { labels[k] = r + 1; count++; }
    }
    counts.push(count);
    rotations.push(M);
    shapes.push(shape);
  }
  return { labels, written, overlap, counts, rotations, shapes };
}
