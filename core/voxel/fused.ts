/**
 * The fused rotate-and-test loops of the bit matrix (trigTables and fastRounding on), in one place:
 * voxel i of `src` is rotated to (ax, ay, az) exactly as rotation.ts rotateRange does (the same
 * integers; test/core/voxel/fused.test.ts holds them to it), stored in `dst` and tested against the
 * matrix at once, with early exit: no rotation ahead of the test, no second pass over the
 * coordinates. dst[0..3·(hit + 1)) holds rotated voxels afterwards (all n when -1 is returned).
 * The packer uses them for particles the SIMD kernels do not move.
 */
import type { BitMatrix } from './bit-matrix';
import { corner } from './matrix';
import { COS, ROUND_OFFSET, SIN } from './rotation';

/**
 * Rotation and BitMatrix.firstHitBesides fused. Returns -2, having done nothing, off the fast
 * paths (several slabs, cheapModulus off: the caller rotates and calls firstHitBesides).
 */
export function rotateFirstHitBesides(
  bits: BitMatrix, src: Int32Array, dst: Int32Array, n: number, ax: number, ay: number, az: number,
  ox: number, oy: number, oz: number, e: number,
  mw: Int32Array, bias: number, dx: number, dy: number, dz: number,
): number {
  const slab = bits.clampedSlabFor(oz, e);
  if (slab === null) return -2;
  const nx = bits.nx, ny = bits.ny, xw = bits.xWord, xb = bits.xBit, yw = bits.yWord, yb = bits.yBit, zw = bits.zWord;
  // Outside [zlo, zhi) in z (the floor, the ceiling) is a hit.
  const zlo = -oz, zhi = bits.nz - oz;
  const ms = 2 * bias + 1, mx = dx + bias, my = dy + bias, mz = dz + bias;
  const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
  const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
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
    // Branch-free: the mask word is read for every voxel (the particle's own voxels set about
    // half of the bits met, a branch on them would be mispredicted often).
    const m = ((rz + mz) * ms + ry + my) * ms + rx + mx;
    if (((slab[zw[oz + rz] + yw[y] + xw[x]] >>> (yb[y] + xb[x])) & ~(mw[m >> 5] >>> m) & 1) !== 0) return i;
  }
  return -1;
}

/** rotateFirstHitBesides without a self mask (every set bit is a hit): insertions, and bit mode without masks. */
export function rotateFirstHit(
  bits: BitMatrix, src: Int32Array, dst: Int32Array, n: number, ax: number, ay: number, az: number,
  ox: number, oy: number, oz: number, e: number,
): number {
  const slab = bits.clampedSlabFor(oz, e);
  if (slab === null) return -2;
  const nx = bits.nx, ny = bits.ny, xw = bits.xWord, xb = bits.xBit, yw = bits.yWord, yb = bits.yBit, zw = bits.zWord;
  const zlo = -oz, zhi = bits.nz - oz;
  const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
  const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
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
    if (((slab[zw[oz + rz] + yw[y] + xw[x]] >>> (yb[y] + xb[x])) & 1) !== 0) return i;
  }
  return -1;
}
