/**
 * Particle rotation (seed §3.1): integer degrees, three successive 2D rotations (about x, then y,
 * then z; seed Fig. 4) of coordinates centred at the origin, rounded to the voxel grid. Holes may
 * appear in the rotated particle; particles move one voxel per step, so they cannot slip through.
 *
 * Two of the seed's switches live here:
 * - trigTables: sine/cosine from 360-entry tables instead of Math.sin/Math.cos per coordinate;
 * - fastRounding: floor(v + 0.5) as an integer truncation of v shifted by a large positive offset
 *   (correct for negative v) instead of Math.round.
 * The tables hold Math.sin/Math.cos of the same angles, so they give the same products. The two
 * roundings give the same integer but for a coordinate at most 2^-33 below a half: v + 2^20 + 0.5
 * is rounded to the doubles near 2^21, 2^-32 apart, so it reaches the upper integer, which the
 * truncation keeps, where Math.round takes the lower one. Such coordinates occur: SIN[30] is
 * 0.49999999999999994, and (0, 1, 0) turned 30° about x goes to z = 1 here, 0 with Math.round
 * (rotation.test.ts); in the engine's test of both switches off a few voxel checks differ, not
 * the packing. Both are the seed's rotation with holes; a run is deterministic with either. The WebAssembly SIMD kernels (kernels.wat) rotate in single precision (four lanes a
 * step): a coordinate within ~1e-4 voxel of a half may round the other way there.
 */

const DEG = Math.PI / 180;

/** sin and cos of 0..359 degrees; the single-precision tables are the SIMD kernels'. */
export const SIN = new Float64Array(360);
export const COS = new Float64Array(360);
export const SIN32 = new Float32Array(360);
export const COS32 = new Float32Array(360);
for (let a = 0; a < 360; a++) {
  SIN[a] = SIN32[a] = Math.sin(a * DEG);
  COS[a] = COS32[a] = Math.cos(a * DEG);
}

/** Shift that makes every coordinate positive before truncation (coordinates stay far below it). */
export const ROUND_OFFSET = 1 << 20;

/** An angle in integer degrees as a table index in [0, 360). */
export function wrapDegrees(a: number): number {
  a %= 360;
  return a < 0 ? a + 360 : a;
}

/**
 * Rotates src[from..to) (interleaved x, y, z; angles in [0, 360) integer degrees) into the same
 * positions of dst. The fast path (both switches on) is the hot loop of the packer.
 */
export function rotateRange(
  src: Int32Array, dst: Int32Array, from: number, to: number,
  ax: number, ay: number, az: number,
  trigTables: boolean, fastRounding: boolean,
): void {
  if (trigTables && fastRounding) {
    rotateFast(src, dst, from, to, ax, ay, az);
    return;
  }
  for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
    // The unoptimised reference: trigonometry per coordinate, library rounding.
    const cx = trigTables ? COS[ax] : Math.cos(ax * DEG), sx = trigTables ? SIN[ax] : Math.sin(ax * DEG);
    const cy = trigTables ? COS[ay] : Math.cos(ay * DEG), sy = trigTables ? SIN[ay] : Math.sin(ay * DEG);
    const cz = trigTables ? COS[az] : Math.cos(az * DEG), sz = trigTables ? SIN[az] : Math.sin(az * DEG);
    const x0 = src[k], y0 = src[k + 1], z0 = src[k + 2];
    const y1 = cx * y0 - sx * z0, z1 = sx * y0 + cx * z0;
    const z2 = cy * z1 - sy * x0, x2 = sy * z1 + cy * x0;
    const x3 = cz * x2 - sz * y1, y3 = sz * x2 + cz * y1;
    if (fastRounding) {
      dst[k] = ((x3 + (ROUND_OFFSET + 0.5)) | 0) - ROUND_OFFSET;
      dst[k + 1] = ((y3 + (ROUND_OFFSET + 0.5)) | 0) - ROUND_OFFSET;
      dst[k + 2] = ((z2 + (ROUND_OFFSET + 0.5)) | 0) - ROUND_OFFSET;
    } else {
      dst[k] = Math.round(x3);
      dst[k + 1] = Math.round(y3);
      dst[k + 2] = Math.round(z2);
    }
  }
}

/** The hot loop (both switches on), kept in its own small function so that V8 optimises it alone. */
function rotateFast(src: Int32Array, dst: Int32Array, from: number, to: number, ax: number, ay: number, az: number): void {
  const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
  const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
  for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
    const x0 = src[k], y0 = src[k + 1], z0 = src[k + 2];
    const y1 = cx * y0 - sx * z0, z1 = sx * y0 + cx * z0; // about x
    const z2 = cy * z1 - sy * x0, x2 = sy * z1 + cy * x0; // about y
    const x3 = cz * x2 - sz * y1, y3 = sz * x2 + cz * y1; // about z
    dst[k] = ((x3 + up) | 0) - down;
    dst[k + 1] = ((y3 + up) | 0) - down;
    dst[k + 2] = ((z2 + up) | 0) - down;
  }
}

/**
 * Room above a rotated coordinate's bound for the SIMD kernels' single precision (within ~1e-4
 * voxel of a half a coordinate may round up there, see above; up to ~5e-4 for a particle of 4096
 * voxels): the bound below stays a bound for them too, a voxel too wide at worst.
 */
const KERNEL_ROUNDING_ROOM = 0.01;

/**
 * The largest |coordinate| on `axis` (0 x, 1 y, 2 z) that rotateRange, or the kernels, gives any
 * voxel within ±hx, ±hy, ±hz of the origin rotated to (ax, ay, az): the half-width of the rotated
 * box on that axis (each output coordinate is a row of the rotation matrix times the voxel, at
 * most the row's absolute values times the half-widths), rounded as the voxels are. An upright rod
 * of 8 × 80 voxels reaches 4 on x and y, where its bounding sphere reaches 41; for a sphere it is
 * about its radius at every rotation. 20 multiplications, no allocation: asked per particle in the
 * packer's insertion.
 */
export function rotatedReach(hx: number, hy: number, hz: number, ax: number, ay: number, az: number, axis: 0 | 1 | 2): number {
  const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
  // Rows of Rz·Ry·Rx (rotateFast's x3, y3 and z2 written out).
  let r0: number, r1: number, r2: number;
  if (axis === 0) { r0 = cz * cy; r1 = cz * sy * sx - sz * cx; r2 = cz * sy * cx + sz * sx; }
  else if (axis === 1) { r0 = sz * cy; r1 = sz * sy * sx + cz * cx; r2 = sz * sy * cx - cz * sx; }
  else { r0 = -sy; r1 = cy * sx; r2 = cy * cx; }
  return Math.floor(Math.abs(r0) * hx + Math.abs(r1) * hy + Math.abs(r2) * hz + 0.5 + KERNEL_ROUNDING_ROOM);
}

/**
 * The inverse of the rotation above applied to one point, written to out[0..2] unrounded: undo z,
 * then y, then x. Used by the exact finalisation (seed §3.1: rotate every box position back into
 * the particle's own voxel map).
 */
export function inverseRotate(x: number, y: number, z: number, ax: number, ay: number, az: number, out: Float64Array): void {
  const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
  const x2 = cz * x + sz * y, y1 = -sz * x + cz * y;
  const z1 = cy * z + sy * x2, x0 = -sy * z + cy * x2;
  out[0] = x0;
  out[1] = cx * y1 + sx * z1;
  out[2] = -sx * y1 + cx * z1;
}
