/**
 * Voxelises a closed triangle mesh into a solid bit map, the voxel-engine shape of kind 'voxels'
 * (core/voxel/shapes.ts: dims, bits x fastest, 8 voxels a byte, least significant bit first).
 *
 * Inside test: a ray along +x through every row of voxel centres; each triangle the ray crosses adds
 * +1 or -1 to the winding number by the sign of its normal's x component, and voxel centres where
 * the winding number is non-zero are solid. This is exact for closed meshes, also for several
 * overlapping closed parts, and needs no per-voxel search. Rays are nudged by a tiny irrational
 * offset so that they never pass exactly through an edge or vertex of a grid-aligned mesh.
 */
import type { TriangleMesh } from './mesh';

export const MAX_SHAPE_VOXELS_PER_AXIS = 1024;

export interface SolidVoxels {
  dims: [number, number, number];
  /** Packed solid bits, index x + nx * (y + ny * z), least significant bit first. */
  bits: Uint8Array;
  voxelCount: number;
  /** Model coordinates of the grid's corner; voxel (i, j, k) is centred at origin + (i + 0.5, j + 0.5, k + 0.5) / resolution. */
  origin: [number, number, number];
  /** Voxels per model length unit. */
  resolution: number;
}

export function bounds(mesh: TriangleMesh): { min: [number, number, number]; max: [number, number, number] } {
  const min: [number, number, number] = [Infinity, Infinity, Infinity], max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  const p = mesh.positions;
  for (let i = 0; i < p.length; i += 3) {
    for (let a = 0; a < 3; a++) {
      if (p[i + a] < min[a]) min[a] = p[i + a];
      if (p[i + a] > max[a]) max[a] = p[i + a];
    }
  }
  return { min, max };
}

/** Grid size the mesh gets at `resolution` voxels per unit; throws before any allocation when too large. */
export function voxelGridDims(mesh: TriangleMesh, resolution: number): [number, number, number] {
  if (!(resolution > 0) || !Number.isFinite(resolution)) throw new RangeError(`resolution must be a positive number of voxels per unit, got ${resolution}`);
  const { min, max } = bounds(mesh);
  const dims = [0, 1, 2].map((a) => Math.max(1, Math.ceil((max[a] - min[a]) * resolution - 1e-9))) as [number, number, number];
  dims.forEach((n, a) => {
    if (n > MAX_SHAPE_VOXELS_PER_AXIS) {
      throw new RangeError(`resolution ${resolution} gives ${n} voxels along ${'xyz'[a]} (extent ${max[a] - min[a]}); at most ${MAX_SHAPE_VOXELS_PER_AXIS}: lower the resolution`);
    }
  });
  return dims;
}

export function voxeliseMesh(mesh: TriangleMesh, resolution: number): SolidVoxels {
  const dims = voxelGridDims(mesh, resolution);
  const [nx, ny, nz] = dims;
  const { min } = bounds(mesh);
  const origin: [number, number, number] = [min[0], min[1], min[2]];
  const p = mesh.positions;
  const rows = ny * nz;
  // Nudge in voxel units: far below any meaningful coordinate, irrational so never on a lattice.
  const ey = 1e-7 * Math.SQRT2, ez = 1e-7 * Math.PI;
  // Two passes over the triangles: count crossings per row, then store them (x and winding sign).
  const count = new Uint32Array(rows + 1);
  const visit = (store: ((row: number, x: number, sign: number) => void) | null) => {
    for (let t = 0; t < mesh.triangles; t++) {
      const o = 9 * t;
      // Vertices in voxel units relative to the grid corner.
      const ax = (p[o] - origin[0]) * resolution, ay = (p[o + 1] - origin[1]) * resolution, az = (p[o + 2] - origin[2]) * resolution;
      const bx = (p[o + 3] - origin[0]) * resolution, by = (p[o + 4] - origin[1]) * resolution, bz = (p[o + 5] - origin[2]) * resolution;
      const cx = (p[o + 6] - origin[0]) * resolution, cy = (p[o + 7] - origin[1]) * resolution, cz = (p[o + 8] - origin[2]) * resolution;
      // Normal's x component (twice the signed area of the yz projection).
      const area = (by - ay) * (cz - az) - (bz - az) * (cy - ay);
      if (area === 0) continue;
      const j0 = Math.max(0, Math.ceil(Math.min(ay, by, cy) - 0.5 - ey)), j1 = Math.min(ny - 1, Math.floor(Math.max(ay, by, cy) - 0.5 - ey));
      const k0 = Math.max(0, Math.ceil(Math.min(az, bz, cz) - 0.5 - ez)), k1 = Math.min(nz - 1, Math.floor(Math.max(az, bz, cz) - 0.5 - ez));
      for (let k = k0; k <= k1; k++) {
        const zc = k + 0.5 + ez;
        for (let j = j0; j <= j1; j++) {
          const yc = j + 0.5 + ey;
          // Barycentric coordinates of (yc, zc) in the projected triangle.
          const u = ((by - yc) * (cz - zc) - (bz - zc) * (cy - yc)) / area;
          const v = ((cy - yc) * (az - zc) - (cz - zc) * (ay - yc)) / area;
          const w = 1 - u - v;
          if (u < 0 || v < 0 || w < 0) continue;
          const row = j + ny * k;
          if (store) store(row, u * ax + v * bx + w * cx, area > 0 ? -1 : 1); // +1 entering (normal against the ray)
          else count[row + 1]++;
        }
      }
    }
  };
  visit(null);
  for (let r = 0; r < rows; r++) count[r + 1] += count[r];
  const xs = new Float64Array(count[rows]);
  const signs = new Int8Array(count[rows]);
  const fill = count.slice(0, rows);
  visit((row, x, sign) => { const at = fill[row]++; xs[at] = x; signs[at] = sign; });

  const bits = new Uint8Array(Math.ceil((nx * ny * nz) / 8));
  let voxelCount = 0;
  const order: number[] = [];
  for (let row = 0; row < rows; row++) {
    const s = count[row], e = count[row + 1];
    if (e === s) continue;
    order.length = 0;
    for (let c = s; c < e; c++) order.push(c);
    order.sort((a, b) => xs[a] - xs[b]);
    let winding = 0, c = 0;
    const base = row * nx;
    for (let i = 0; i < nx; i++) {
      const xc = i + 0.5;
      while (c < order.length && xs[order[c]] < xc) winding += signs[order[c++]];
      if (winding !== 0) {
        const idx = base + i;
        bits[idx >> 3] |= 1 << (idx & 7);
        voxelCount++;
      }
    }
  }
  return { dims, bits, voxelCount, origin, resolution };
}
