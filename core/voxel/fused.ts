/**
 * The fused rotate-and-test loops of the bit matrix (trigTables and fastRounding on), in one place:
 * voxel i of `src` is rotated to (ax, ay, az) exactly as rotation.ts rotateRange does (the same
 * integers; test/core/voxel/fused.test.ts holds them to it), stored in `dst` and tested against the
 * matrix at once, with early exit: no rotation ahead of the test, no second pass over the
 * coordinates. The packer uses them for particles the SIMD kernels do not move.
 */
import type { BitMatrix } from './bit-matrix';
import { corner } from './matrix';
import { COS, ROUND_OFFSET, SIN } from './rotation';

/**
 * Rotation and BitMatrix.firstHitBesides fused: dst[0..3·(hit + 1)) holds rotated voxels
 * afterwards (all n when -1 is returned). Returns -2, having done nothing, off the fast paths
 * (several slabs, cheapModulus off: the caller rotates and calls firstHitBesides).
 */
export function rotateFirstHitBesides(
  bits: BitMatrix, src: Int32Array, dst: Int32Array, n: number, ax: number, ay: number, az: number,
  ox: number, oy: number, oz: number, e: number,
  mw: Int32Array, bias: number, dx: number, dy: number, dz: number,
): number {
  const slab = bits.slabFor(oz, e);
  if (slab === null) return rotateFirstHitBesidesZ(bits, src, dst, n, ax, ay, az, ox, oy, oz, e, mw, bias, dx, dy, dz);
  const wpr = bits.wordsPerRow, wpp = bits.wordsPerPlane, nx = bits.nx, ny = bits.ny;
  const ms = 2 * bias + 1, mx = dx + bias, my = dy + bias, mz = dz + bias;
  const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
  const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
  const plane = bits.planeWord[oz];
  if (ox >= e && ox + e < nx && oy >= e && oy + e < ny) {
    const base = plane + oy * wpr;
    for (let i = 0, k = 0; i < n; i++, k += 3) {
      const x0 = src[k], y0 = src[k + 1], z0 = src[k + 2];
      const y1 = cx * y0 - sx * z0, z1 = sx * y0 + cx * z0;
      const z2 = cy * z1 - sy * x0, x2 = sy * z1 + cy * x0;
      const x3 = cz * x2 - sz * y1, y3 = sz * x2 + cz * y1;
      const rx = ((x3 + up) | 0) - down, ry = ((y3 + up) | 0) - down, rz = ((z2 + up) | 0) - down;
      dst[k] = rx;
      dst[k + 1] = ry;
      dst[k + 2] = rz;
      // Branch-free: the mask word is read for every voxel (the particle's own voxels set
      // about half of the bits met, a branch on them would be mispredicted often).
      const x = ox + rx, m = ((rz + mz) * ms + ry + my) * ms + rx + mx;
      if (((slab[base + rz * wpp + ry * wpr + (x >> 5)] >>> x) & ~(mw[m >> 5] >>> m) & 1) !== 0) return i;
    }
    return -1;
  }
  const bx = corner(ox, e, nx), by = corner(oy, e, ny);
  for (let i = 0, k = 0; i < n; i++, k += 3) {
    const x0 = src[k], y0 = src[k + 1], z0 = src[k + 2];
    const y1 = cx * y0 - sx * z0, z1 = sx * y0 + cx * z0;
    const z2 = cy * z1 - sy * x0, x2 = sy * z1 + cy * x0;
    const x3 = cz * x2 - sz * y1, y3 = sz * x2 + cz * y1;
    const rx = ((x3 + up) | 0) - down, ry = ((y3 + up) | 0) - down, rz = ((z2 + up) | 0) - down;
    dst[k] = rx;
    dst[k + 1] = ry;
    dst[k + 2] = rz;
    let x = bx + rx, y = by + ry;
    if (x >= nx) x -= nx;
    if (y >= ny) y -= ny;
    const m = ((rz + mz) * ms + ry + my) * ms + rx + mx;
    if (((slab[plane + rz * wpp + y * wpr + (x >> 5)] >>> x) & ~(mw[m >> 5] >>> m) & 1) !== 0) return i;
  }
  return -1;
}

/**
 * rotateFirstHitBesides for a particle reaching below the floor or above the ceiling (inside
 * one slab): x and y wrapped as near the edge, z bounds checked per voxel (outside is a hit).
 */
function rotateFirstHitBesidesZ(
  bits: BitMatrix, src: Int32Array, dst: Int32Array, n: number, ax: number, ay: number, az: number,
  ox: number, oy: number, oz: number, e: number,
  mw: Int32Array, bias: number, dx: number, dy: number, dz: number,
): number {
  const slab = bits.clampedSlabFor(oz, e);
  if (slab === null) return -2;
  const wpr = bits.wordsPerRow, wpp = bits.wordsPerPlane, nx = bits.nx, ny = bits.ny;
  const zlo = -oz, zhi = bits.nz - oz;
  const ms = 2 * bias + 1, mx = dx + bias, my = dy + bias, mz = dz + bias;
  const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
  const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
  const plane = bits.planeWord[oz];
  const bx = corner(ox, e, nx), by = corner(oy, e, ny);
  for (let i = 0, k = 0; i < n; i++, k += 3) {
    const x0 = src[k], y0 = src[k + 1], z0 = src[k + 2];
    const y1 = cx * y0 - sx * z0, z1 = sx * y0 + cx * z0;
    const z2 = cy * z1 - sy * x0, x2 = sy * z1 + cy * x0;
    const x3 = cz * x2 - sz * y1, y3 = sz * x2 + cz * y1;
    const rx = ((x3 + up) | 0) - down, ry = ((y3 + up) | 0) - down, rz = ((z2 + up) | 0) - down;
    dst[k] = rx;
    dst[k + 1] = ry;
    dst[k + 2] = rz;
    if (rz < zlo || rz >= zhi) return i;
    let x = bx + rx, y = by + ry;
    if (x >= nx) x -= nx;
    if (y >= ny) y -= ny;
    const m = ((rz + mz) * ms + ry + my) * ms + rx + mx;
    if (((slab[plane + rz * wpp + y * wpr + (x >> 5)] >>> x) & ~(mw[m >> 5] >>> m) & 1) !== 0) return i;
  }
  return -1;
}

/** rotateFirstHitBesides without a self mask (every set bit is a hit): insertions, and bit mode without masks. */
export function rotateFirstHit(
  bits: BitMatrix, src: Int32Array, dst: Int32Array, n: number, ax: number, ay: number, az: number,
  ox: number, oy: number, oz: number, e: number,
): number {
  const slab = bits.slabFor(oz, e);
  if (slab === null) return -2;
  const wpr = bits.wordsPerRow, wpp = bits.wordsPerPlane, nx = bits.nx, ny = bits.ny;
  const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
  const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
  const plane = bits.planeWord[oz];
  const inside = ox >= e && ox + e < nx && oy >= e && oy + e < ny;
  const bx = inside || ox - e >= 0 ? ox : ox + nx, by = inside || oy - e >= 0 ? oy : oy + ny;
  for (let i = 0, k = 0; i < n; i++, k += 3) {
    const x0 = src[k], y0 = src[k + 1], z0 = src[k + 2];
    const y1 = cx * y0 - sx * z0, z1 = sx * y0 + cx * z0;
    const z2 = cy * z1 - sy * x0, x2 = sy * z1 + cy * x0;
    const x3 = cz * x2 - sz * y1, y3 = sz * x2 + cz * y1;
    const rx = ((x3 + up) | 0) - down, ry = ((y3 + up) | 0) - down, rz = ((z2 + up) | 0) - down;
    dst[k] = rx;
    dst[k + 1] = ry;
    dst[k + 2] = rz;
    let x = bx + rx, y = by + ry;
    if (x >= nx) x -= nx;
    if (y >= ny) y -= ny;
    if ((slab[plane + rz * wpp + y * wpr + (x >> 5)] & (1 << (x & 31))) !== 0) return i;
  }
  return -1;
}
