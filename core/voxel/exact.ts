/**
 * A particle's exact solid voxels (seed §3.1, §3.2): every position of its rotated bounding box is
 * rotated back into the particle's own voxel map (no holes), as the exact finalisation writes it.
 * Shared by finalise.ts and the interpenetration measure and settling pass (settle.ts), so that
 * all three see the same voxels.
 */
import { COS, SIN, ROUND_OFFSET, inverseRotate } from './rotation';
import type { VoxelisedShape } from './shapes';

/** Forward rotation of one point, about x, then y, then z (degrees as table indices). */
export function rotatePoint(x: number, y: number, z: number, ax: number, ay: number, az: number): [number, number, number] {
  const y1 = COS[ax] * y - SIN[ax] * z, z1 = SIN[ax] * y + COS[ax] * z;
  const z2 = COS[ay] * z1 - SIN[ay] * x, x2 = SIN[ay] * z1 + COS[ay] * x;
  return [COS[az] * x2 - SIN[az] * y1, SIN[az] * x2 + COS[az] * y1, z2];
}

/** A reusable buffer of one particle's exact solid voxels, as offsets from its reference voxel. */
export class ExactVoxels {
  /** Interleaved (x, y, z) offsets of the solid voxels; the first 3·n entries are valid. */
  xyz = new Int32Array(3 * 4096);
  n = 0;
  /** The same voxels as runs along x, (z, y, x0, x1) each, in (z, y, x) order; the first 4·runCount entries are valid. */
  runs = new Int32Array(4 * 1024);
  runCount = 0;
  private readonly q = new Float64Array(3);

  /** Fills the buffer with the solid voxels of shape v at rotation (ax, ay, az); returns their count. */
  of(v: VoxelisedShape, ax: number, ay: number, az: number): number {
    // The rotated bounding box (a parallelepiped) and its axis-aligned hull.
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (let c = 0; c < 8; c++) {
      const p = rotatePoint(
        c & 1 ? v.min[0] + v.dims[0] - 0.5 : v.min[0] - 0.5,
        c & 2 ? v.min[1] + v.dims[1] - 0.5 : v.min[1] - 0.5,
        c & 4 ? v.min[2] + v.dims[2] - 0.5 : v.min[2] - 0.5,
        ax, ay, az,
      );
      for (let a = 0; a < 3; a++) { lo[a] = Math.min(lo[a], p[a]); hi[a] = Math.max(hi[a], p[a]); }
    }
    const [dx, dy, dz] = v.dims, [mx, my, mz] = v.min, occ = v.occupancy, q = this.q;
    // The inverse rotation is linear: its images of the unit vectors step it along each axis.
    inverseRotate(1, 0, 0, ax, ay, az, q);
    const xx = q[0], xy = q[1], xz = q[2];
    inverseRotate(0, 1, 0, ax, ay, az, q);
    const yx = q[0], yy = q[1], yz = q[2];
    inverseRotate(0, 0, 1, ax, ay, az, q);
    const zx = q[0], zy = q[1], zz = q[2];
    // A position is solid when it rotates back to within half a voxel per axis of a solid voxel,
    // so it lies within maxRadius + √3/2 of the origin: the hull is cut to that cube (a rotated
    // sphere's hull is about 4 times its volume). x starts at the hull's x0 for the arithmetic
    // (the same sums, so the same roundings, as without the cut). Each row is cut further to that
    // ball (about half of the cube).
    const r = Math.ceil(v.maxRadius + 0.8661), ball = (v.maxRadius + 0.8661) * (v.maxRadius + 0.8661) + 1e-6;
    const x0 = Math.floor(lo[0]), xa = Math.max(x0, -r), x1 = Math.min(Math.ceil(hi[0]), r);
    const y0 = Math.max(Math.floor(lo[1]), -r), y1 = Math.min(Math.ceil(hi[1]), r), z0 = Math.max(Math.floor(lo[2]), -r), z1 = Math.min(Math.ceil(hi[2]), r);
    // At most one voxel per position of the cut hull.
    const hull = Math.max(0, (x1 - xa + 1) * (y1 - y0 + 1) * (z1 - z0 + 1));
    if (this.xyz.length < 3 * hull) this.xyz = new Int32Array(3 * hull);
    // At most one run per two positions of a row, plus one.
    const runRoom = 4 * Math.max(0, (y1 - y0 + 1) * (z1 - z0 + 1) * Math.ceil((x1 - xa + 2) / 2));
    if (this.runs.length < runRoom) this.runs = new Int32Array(runRoom);
    const out = this.xyz, runs = this.runs, OFFSET = ROUND_OFFSET;
    let n = 0, at = -4;
    for (let z = z0; z <= z1; z++) {
      for (let y = y0; y <= y1; y++) {
        const rest = ball - y * y - z * z;
        if (rest < 0) continue;
        const reach = Math.floor(Math.sqrt(rest)), xb = Math.max(xa, -reach), xe = Math.min(x1, reach);
        // Source position of (x0, y, z), shifted so that the occupancy box starts at 0, plus 0.5
        // and a large offset so that truncation rounds (coordinates stay far below the offset).
        const bx = x0 * xx + y * yx + z * zx - mx + 0.5 + OFFSET;
        const by = x0 * xy + y * yy + z * zy - my + 0.5 + OFFSET;
        const bz = x0 * xz + y * yz + z * zz - mz + 0.5 + OFFSET;
        for (let x = xb, t = xb - x0, last = xb - 2; x <= xe; x++, t++) {
          const sx = ((bx + t * xx) | 0) - OFFSET, sy = ((by + t * xy) | 0) - OFFSET, sz = ((bz + t * xz) | 0) - OFFSET;
          if (sx < 0 || sy < 0 || sz < 0 || sx >= dx || sy >= dy || sz >= dz || occ[sx + dx * (sy + dy * sz)] === 0) continue;
          out[3 * n] = x;
          out[3 * n + 1] = y;
          out[3 * n + 2] = z;
          n++;
          if (x !== last + 1) {
            at += 4;
            runs[at] = z;
            runs[at + 1] = y;
            runs[at + 2] = x;
          }
          runs[at + 3] = last = x;
        }
      }
    }
    this.n = n;
    this.runCount = (at + 4) / 4;
    return n;
  }
}
