/**
 * The packing matrix (seed §2.1, §3.7): the voxel box the particles are packed into.
 *
 * Two implementations behind one interface, for the comparison of seed Fig. 11:
 * - BitMatrix: 1 bit per voxel, a row of 32-bit words per (y, z); word = x >> 5, bit = x & 31.
 * - IdMatrix: a 32-bit particle id per voxel, as in Jia & Williams' DigiPac.
 *
 * Both store z-slabs, each its own SharedArrayBuffer holding a whole number of z-planes and at
 * most 1 GiB, so a 4000^3 bit matrix (8 GB) is possible. x and y are periodic, z is bounded: a
 * voxel with z outside [0, nz) counts as occupied (solid floor, ceiling), so a particle can never
 * leave the box through it.
 *
 * The list operations take particle-relative coordinates (interleaved x, y, z) plus an offset (the
 * particle's centre voxel) and the particle's extent e (every coordinate lies in [-e, e]). With the
 * extent they pick one of these paths per call (seed §3.3):
 * - inside: the particle's bounding cube lies inside the box and inside one slab, so no wrap, no
 *   bounds check, and the slab is looked up once (the common case);
 * - near the x/y edge, inside one slab: coordinates wrapped with one subtraction (seed Fig. 7);
 * - general: z bounds checked and the slab looked up per voxel (particles straddling a slab
 *   boundary or touching the floor or ceiling), with `%` on every coordinate when the switch
 *   `cheapModulus` is off (the unoptimised reference).
 * A BitMatrix of one slab up to WASM_MATRIX_LIMIT_BYTES keeps it in a WebAssembly memory, where
 * the packer's SIMD kernels (wasm-kernels.ts) move particles in it; the loops here move the rest.
 */

import { COS, ROUND_OFFSET, SIN } from './rotation';
import { WASM_MATRIX_LIMIT_BYTES, WasmKernels } from './wasm-kernels';

export const MAX_SLAB_BYTES = 2 ** 30;

export interface PackingMatrix {
  readonly kind: 'bit' | 'id';
  readonly nx: number;
  readonly ny: number;
  readonly nz: number;
  /** False: every list operation wraps x/y with `%` (the ablation's unoptimised modulus). */
  cheapModulus: boolean;
  /** Total bytes of the slabs. */
  readonly bytes: number;
  /** Number of z-slabs (each its own SharedArrayBuffer). */
  readonly slabCount: number;
  /** Raw voxel access; x, y, z must lie inside the box. */
  test(x: number, y: number, z: number): boolean;
  set(x: number, y: number, z: number, id: number): void;
  clear(x: number, y: number, z: number): void;
  /**
   * Index (in voxels, relative to `from`) of the first of coords[from..to) that is occupied by
   * anything but `selfId` (IdMatrix) or by anything (BitMatrix), or -1. Early exit (seed §3.4).
   */
  firstHit(coords: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, extent: number, selfId: number): number;
  /** Marks every voxel of coords[from..to) at the offset as occupied by `id`. */
  writeAll(coords: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, extent: number, id: number): void;
  /** Clears every voxel of coords[from..to) at the offset (IdMatrix: only voxels holding `id`). */
  clearAll(coords: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, extent: number, id: number): void;
  /** Empties the whole matrix (reuse for finalisation). */
  clearEverything(): void;
  /** Number of occupied voxels (a scan; for tests and statistics, not for hot loops). */
  countOccupied(): number;
}

export interface MatrixOptions {
  /** Refuse, before allocating, a matrix whose slabs would exceed this many bytes. */
  memoryBudgetBytes?: number;
  /** Largest slab in bytes (default and maximum 1 GiB); tests use a small value to get many slabs. */
  maxSlabBytes?: number;
  /**
   * BitMatrix: 'wasm' (default) keeps a matrix of one slab of at most WASM_MATRIX_LIMIT_BYTES in
   * the memory of the WebAssembly SIMD kernels (`wasm`), so the packer can use them; 'js': never.
   */
  kernels?: 'wasm' | 'js';
}

function checkDims(nx: number, ny: number, nz: number): void {
  for (const [name, v] of [['nx', nx], ['ny', ny], ['nz', nz]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 1 << 20) {
      throw new RangeError(`${name} must be an integer in [1, ${1 << 20}] voxels, got ${v}`);
    }
  }
}

/**
 * The non-negative reference corner of seed §3.3: a centre o in [0, n) whose particle (extent e)
 * reaches below 0 is shifted up by the box side, so every voxel coordinate o + c is non-negative
 * and one subtraction of n wraps it (Fig. 7).
 */
function corner(o: number, e: number, n: number): number {
  return o - e < 0 ? o + n : o;
}

/** Bytes a bit matrix of this size needs (rows padded to whole 32-bit words). */
export function bitMatrixBytes(nx: number, ny: number, nz: number): number {
  return Math.ceil(nx / 32) * 4 * ny * nz;
}

/** Bytes an id matrix of this size needs. */
export function idMatrixBytes(nx: number, ny: number, nz: number): number {
  return 4 * nx * ny * nz;
}

/** Splits nz planes of planeBytes each into slabs of at most maxSlabBytes. */
function planSlabs(planeBytes: number, nz: number, options: MatrixOptions, what: string) {
  const maxSlab = options.maxSlabBytes ?? MAX_SLAB_BYTES;
  if (!(maxSlab > 0 && maxSlab <= MAX_SLAB_BYTES)) {
    throw new RangeError(`maxSlabBytes must be in (0, ${MAX_SLAB_BYTES}], got ${maxSlab}`);
  }
  if (planeBytes > maxSlab) {
    throw new RangeError(`${what}: one z-plane needs ${planeBytes} bytes, more than a slab may hold (${maxSlab})`);
  }
  const total = planeBytes * nz;
  const budget = options.memoryBudgetBytes ?? Infinity;
  if (total > budget) {
    throw new RangeError(
      `${what} needs ${total} bytes (${(total / 2 ** 30).toFixed(2)} GiB), more than the memory budget of ${budget} bytes`,
    );
  }
  const planesPerSlab = Math.min(nz, Math.floor(maxSlab / planeBytes));
  const slabCount = Math.ceil(nz / planesPerSlab);
  // Per plane: its slab and the element offset of the plane inside that slab.
  const slabOf = new Int32Array(nz);
  const planeBase = new Int32Array(nz);
  for (let z = 0; z < nz; z++) {
    slabOf[z] = Math.floor(z / planesPerSlab);
    planeBase[z] = z - slabOf[z] * planesPerSlab;
  }
  return { planesPerSlab, slabCount, slabOf, planeBase, total };
}

/** 1 bit per voxel. */
export class BitMatrix implements PackingMatrix {
  readonly kind = 'bit' as const;
  readonly wordsPerRow: number;
  readonly wordsPerPlane: number;
  readonly planesPerSlab: number;
  readonly slabs: Int32Array[];
  readonly bytes: number;
  /** slabOf[z]: slab of plane z; planeWord[z]: index of plane z's first word inside its slab. */
  private readonly slabOf: Int32Array;
  private readonly planeWord: Int32Array;
  cheapModulus = true;
  /** The WebAssembly kernels and their memory (slab 0 lives in it), or null. */
  readonly wasm: WasmKernels | null = null;

  constructor(readonly nx: number, readonly ny: number, readonly nz: number, options: MatrixOptions = {}) {
    checkDims(nx, ny, nz);
    this.wordsPerRow = Math.ceil(nx / 32);
    this.wordsPerPlane = this.wordsPerRow * ny;
    const plan = planSlabs(this.wordsPerPlane * 4, nz, options, `bit matrix ${nx}x${ny}x${nz}`);
    this.planesPerSlab = plan.planesPerSlab;
    this.bytes = plan.total;
    this.slabOf = plan.slabOf;
    this.planeWord = new Int32Array(nz);
    for (let z = 0; z < nz; z++) this.planeWord[z] = plan.planeBase[z] * this.wordsPerPlane;
    this.slabs = [];
    if ((options.kernels ?? 'wasm') === 'wasm' && plan.slabCount === 1 && plan.total <= WASM_MATRIX_LIMIT_BYTES) {
      this.wasm = new WasmKernels(nx, ny, nz, this.wordsPerRow, this.wordsPerPlane);
      this.slabs.push(this.wasm.matrix);
      return;
    }
    for (let s = 0; s < plan.slabCount; s++) {
      const planes = Math.min(this.planesPerSlab, nz - s * this.planesPerSlab);
      this.slabs.push(new Int32Array(new SharedArrayBuffer(planes * this.wordsPerPlane * 4)));
    }
  }

  get slabCount(): number {
    return this.slabs.length;
  }

  test(x: number, y: number, z: number): boolean {
    return (this.slabs[this.slabOf[z]][this.planeWord[z] + y * this.wordsPerRow + (x >> 5)] & (1 << (x & 31))) !== 0;
  }

  set(x: number, y: number, z: number, _id = 1): void {
    this.slabs[this.slabOf[z]][this.planeWord[z] + y * this.wordsPerRow + (x >> 5)] |= 1 << (x & 31);
  }

  clear(x: number, y: number, z: number): void {
    this.slabs[this.slabOf[z]][this.planeWord[z] + y * this.wordsPerRow + (x >> 5)] &= ~(1 << (x & 31));
  }

  /** The one slab holding planes [oz - e, oz + e] when they lie inside the box, else null. */
  private slabFor(oz: number, e: number): Int32Array | null {
    if (!this.cheapModulus || oz < e || oz + e >= this.nz) return null;
    const s = this.slabOf[oz - e];
    return s === this.slabOf[oz + e] ? this.slabs[s] : null;
  }

  /**
   * The one slab holding the planes of [oz - e, oz + e] that lie inside the box, else null (also
   * when cheapModulus is off or oz is outside the box): for a particle touching the floor or the
   * ceiling, which then needs a z bound check per voxel but no slab lookup.
   */
  private clampedSlabFor(oz: number, e: number): Int32Array | null {
    if (!this.cheapModulus || oz < 0 || oz >= this.nz) return null;
    const s = this.slabOf[Math.max(0, oz - e)];
    return s === this.slabOf[Math.min(this.nz - 1, oz + e)] ? this.slabs[s] : null;
  }

  firstHit(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, _selfId = 0): number {
    const wpr = this.wordsPerRow, wpp = this.wordsPerPlane, nx = this.nx, ny = this.ny;
    const slab = this.slabFor(oz, e);
    if (slab !== null) {
      // One slab: plane z + dz starts dz planes after plane z.
      const plane = this.planeWord[oz];
      if (ox >= e && ox + e < nx && oy >= e && oy + e < ny) {
        // Inside the box: no wrap at all (the common case).
        const base = plane + oy * wpr;
        for (let i = from, k = 3 * from; i < to; i++, k += 3) {
          const x = ox + c[k];
          if ((slab[base + c[k + 2] * wpp + c[k + 1] * wpr + (x >> 5)] & (1 << (x & 31))) !== 0) return i - from;
        }
        return -1;
      }
      // Near the x/y edge (seed §3.3): a non-negative reference corner, then one subtraction (Fig. 7).
      const bx = corner(ox, e, nx), by = corner(oy, e, ny);
      for (let i = from, k = 3 * from; i < to; i++, k += 3) {
        let x = bx + c[k], y = by + c[k + 1];
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
        if ((slab[plane + c[k + 2] * wpp + y * wpr + (x >> 5)] & (1 << (x & 31))) !== 0) return i - from;
      }
      return -1;
    }
    // General path: bounds in z, slab per voxel; `%` when cheapModulus is off.
    const nz = this.nz, slabs = this.slabs, slabOf = this.slabOf, planeWord = this.planeWord, cheap = this.cheapModulus;
    const bx = corner(ox, e, nx), by = corner(oy, e, ny);
    for (let i = from, k = 3 * from; i < to; i++, k += 3) {
      const z = oz + c[k + 2];
      if (z < 0 || z >= nz) return i - from;
      let x = bx + c[k], y = by + c[k + 1];
      if (cheap) {
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
      } else {
        x %= nx;
        y %= ny;
      }
      if ((slabs[slabOf[z]][planeWord[z] + y * wpr + (x >> 5)] & (1 << (x & 31))) !== 0) return i - from;
    }
    return -1;
  }

  /**
   * firstHit for a particle that is still in the matrix: a voxel counts as occupied only when its
   * bit is set and it is not one of the particle's own current voxels, marked in its self mask
   * `mw` (selfMaskWords, markSelf) relative to the old centre; the new centre is the old one plus
   * (dx, dy, dz). The same answer as removing the particle first and then calling firstHit,
   * without the removal and the write-back on a collision (seed §3: "preferable to avoid removing
   * a particle ... before it is known if it can be moved"). The box must be wider than the
   * particle (periodic images of one particle must not meet), which the caller checks.
   */
  firstHitBesides(
    c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number,
    mw: Int32Array, bias: number, dx: number, dy: number, dz: number,
  ): number {
    const wpr = this.wordsPerRow, wpp = this.wordsPerPlane, nx = this.nx, ny = this.ny;
    const ms = 2 * bias + 1, mx = dx + bias, my = dy + bias, mz = dz + bias;
    const slab = this.slabFor(oz, e);
    if (slab !== null) {
      const plane = this.planeWord[oz];
      if (ox >= e && ox + e < nx && oy >= e && oy + e < ny) {
        const base = plane + oy * wpr;
        for (let i = from, k = 3 * from; i < to; i++, k += 3) {
          const cx = c[k], cy = c[k + 1], cz = c[k + 2], x = ox + cx;
          if ((slab[base + cz * wpp + cy * wpr + (x >> 5)] & (1 << (x & 31))) !== 0) {
            const m = ((cz + mz) * ms + cy + my) * ms + cx + mx;
            if ((mw[m >> 5] & (1 << (m & 31))) === 0) return i - from;
          }
        }
        return -1;
      }
      const bx = corner(ox, e, nx), by = corner(oy, e, ny);
      for (let i = from, k = 3 * from; i < to; i++, k += 3) {
        const cx = c[k], cy = c[k + 1], cz = c[k + 2];
        let x = bx + cx, y = by + cy;
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
        if ((slab[plane + cz * wpp + y * wpr + (x >> 5)] & (1 << (x & 31))) !== 0) {
          const m = ((cz + mz) * ms + cy + my) * ms + cx + mx;
          if ((mw[m >> 5] & (1 << (m & 31))) === 0) return i - from;
        }
      }
      return -1;
    }
    const nz = this.nz, slabs = this.slabs, slabOf = this.slabOf, planeWord = this.planeWord, cheap = this.cheapModulus;
    const bx = corner(ox, e, nx), by = corner(oy, e, ny);
    for (let i = from, k = 3 * from; i < to; i++, k += 3) {
      const cx = c[k], cy = c[k + 1], cz = c[k + 2], z = oz + cz;
      if (z < 0 || z >= nz) return i - from;
      let x = bx + cx, y = by + cy;
      if (cheap) {
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
      } else {
        x %= nx;
        y %= ny;
      }
      if ((slabs[slabOf[z]][planeWord[z] + y * wpr + (x >> 5)] & (1 << (x & 31))) !== 0) {
        const m = ((cz + mz) * ms + cy + my) * ms + cx + mx;
        if ((mw[m >> 5] & (1 << (m & 31))) === 0) return i - from;
      }
    }
    return -1;
  }

  /**
   * Rotation and firstHitBesides fused (trigTables and fastRounding on): voxel i of `src` is
   * rotated to (ax, ay, az) (as rotation.ts rotateRange does: the same integers), stored in `dst`
   * and tested at once, with early exit: no rotation ahead of the test, no second pass over the
   * coordinates. dst[0..3·(hit + 1)) holds rotated voxels afterwards (all n when -1 is returned).
   * Returns -2, having done nothing, off the fast paths (the caller rotates and calls
   * firstHitBesides).
   */
  rotateFirstHitBesides(
    src: Int32Array, dst: Int32Array, n: number, ax: number, ay: number, az: number,
    ox: number, oy: number, oz: number, e: number,
    mw: Int32Array, bias: number, dx: number, dy: number, dz: number,
  ): number {
    const slab = this.slabFor(oz, e);
    if (slab === null) return this.rotateFirstHitBesidesZ(src, dst, n, ax, ay, az, ox, oy, oz, e, mw, bias, dx, dy, dz);
    const wpr = this.wordsPerRow, wpp = this.wordsPerPlane, nx = this.nx, ny = this.ny;
    const ms = 2 * bias + 1, mx = dx + bias, my = dy + bias, mz = dz + bias;
    const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
    const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
    const plane = this.planeWord[oz];
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
  private rotateFirstHitBesidesZ(
    src: Int32Array, dst: Int32Array, n: number, ax: number, ay: number, az: number,
    ox: number, oy: number, oz: number, e: number,
    mw: Int32Array, bias: number, dx: number, dy: number, dz: number,
  ): number {
    const slab = this.clampedSlabFor(oz, e);
    if (slab === null) return -2;
    const wpr = this.wordsPerRow, wpp = this.wordsPerPlane, nx = this.nx, ny = this.ny;
    const zlo = -oz, zhi = this.nz - oz;
    const ms = 2 * bias + 1, mx = dx + bias, my = dy + bias, mz = dz + bias;
    const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
    const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
    const plane = this.planeWord[oz];
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
  rotateFirstHit(
    src: Int32Array, dst: Int32Array, n: number, ax: number, ay: number, az: number,
    ox: number, oy: number, oz: number, e: number,
  ): number {
    const slab = this.slabFor(oz, e);
    if (slab === null) return -2;
    const wpr = this.wordsPerRow, wpp = this.wordsPerPlane, nx = this.nx, ny = this.ny;
    const cx = COS[ax], sx = SIN[ax], cy = COS[ay], sy = SIN[ay], cz = COS[az], sz = SIN[az];
    const up = ROUND_OFFSET + 0.5, down = ROUND_OFFSET;
    const plane = this.planeWord[oz];
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

  writeAll(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, _id = 1): void {
    const wpr = this.wordsPerRow, wpp = this.wordsPerPlane, nx = this.nx, ny = this.ny;
    const slab = this.slabFor(oz, e);
    if (slab !== null) {
      const plane = this.planeWord[oz];
      if (ox >= e && ox + e < nx && oy >= e && oy + e < ny) {
        const base = plane + oy * wpr;
        for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
          const x = ox + c[k];
          slab[base + c[k + 2] * wpp + c[k + 1] * wpr + (x >> 5)] |= 1 << (x & 31);
        }
        return;
      }
      const bx = corner(ox, e, nx), by = corner(oy, e, ny);
      for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
        let x = bx + c[k], y = by + c[k + 1];
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
        slab[plane + c[k + 2] * wpp + y * wpr + (x >> 5)] |= 1 << (x & 31);
      }
      return;
    }
    this.applyGeneral(c, from, to, ox, oy, oz, e, true);
  }

  clearAll(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, _id = 1): void {
    const wpr = this.wordsPerRow, wpp = this.wordsPerPlane, nx = this.nx, ny = this.ny;
    const slab = this.slabFor(oz, e);
    if (slab !== null) {
      const plane = this.planeWord[oz];
      if (ox >= e && ox + e < nx && oy >= e && oy + e < ny) {
        const base = plane + oy * wpr;
        for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
          const x = ox + c[k];
          slab[base + c[k + 2] * wpp + c[k + 1] * wpr + (x >> 5)] &= ~(1 << (x & 31));
        }
        return;
      }
      const bx = corner(ox, e, nx), by = corner(oy, e, ny);
      for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
        let x = bx + c[k], y = by + c[k + 1];
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
        slab[plane + c[k + 2] * wpp + y * wpr + (x >> 5)] &= ~(1 << (x & 31));
      }
      return;
    }
    this.applyGeneral(c, from, to, ox, oy, oz, e, false);
  }

  /**
   * writeAll of coords[0..n), and the self mask `mw` (selfMaskWords(bias)) rebuilt to hold exactly
   * these voxels: an inserted particle, or one whose move was accepted.
   */
  writeAllMarking(c: Int32Array, n: number, ox: number, oy: number, oz: number, e: number, mw: Int32Array, bias: number): void {
    this.writeAll(c, 0, n, ox, oy, oz, e);
    // The whole cube at once: a memset is cheaper than clearing the old voxels one by one.
    mw.fill(0);
    markSelf(mw, bias, c, n);
  }

  /** Set or clear on the general path (slab per voxel, z bounds, `%` when cheapModulus is off). */
  private applyGeneral(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, on: boolean): void {
    const wpr = this.wordsPerRow, nx = this.nx, ny = this.ny, nz = this.nz;
    const slabs = this.slabs, slabOf = this.slabOf, planeWord = this.planeWord, cheap = this.cheapModulus;
    const bx = corner(ox, e, nx), by = corner(oy, e, ny);
    for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
      const z = oz + c[k + 2];
      if (z < 0 || z >= nz) continue; // never written: firstHit refuses such positions
      let x = bx + c[k], y = by + c[k + 1];
      if (cheap) {
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
      } else {
        x %= nx;
        y %= ny;
      }
      const w = planeWord[z] + y * wpr + (x >> 5);
      if (on) slabs[slabOf[z]][w] |= 1 << (x & 31);
      else slabs[slabOf[z]][w] &= ~(1 << (x & 31));
    }
  }

  clearEverything(): void {
    for (const s of this.slabs) s.fill(0);
  }

  countOccupied(): number {
    let n = 0;
    for (const s of this.slabs) {
      for (let i = 0; i < s.length; i++) {
        let v = s[i];
        if (v === 0) continue;
        v = v - ((v >>> 1) & 0x55555555);
        v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
        n += (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
      }
    }
    return n;
  }
}

/**
 * A particle's own voxels as bits in a small cube around its centre, for
 * BitMatrix.firstHitBesides: offsets within ±bias on each axis, bit ((z + b)·side + y + b)·side
 * + x + b with side = 2·bias + 1.
 */
export function selfMaskWords(bias: number): Int32Array {
  return new Int32Array(selfMaskLength(bias));
}

/** Words of a self mask (selfMaskWords). */
export function selfMaskLength(bias: number): number {
  return Math.ceil((2 * bias + 1) ** 3 / 32);
}

/** Marks coords[0..n) (each within ±bias) in a self mask. */
export function markSelf(w: Int32Array, bias: number, c: Int32Array, n: number): void {
  const s = 2 * bias + 1;
  for (let k = 0, end = 3 * n; k < end; k += 3) {
    const m = ((c[k + 2] + bias) * s + c[k + 1] + bias) * s + c[k] + bias;
    w[m >> 5] |= 1 << (m & 31);
  }
}

/** A 32-bit particle id per voxel (0 = void), index x + nx * (y + ny * z) within each slab. */
export class IdMatrix implements PackingMatrix {
  readonly kind = 'id' as const;
  readonly planeSize: number;
  readonly planesPerSlab: number;
  readonly slabs: Uint32Array[];
  readonly bytes: number;
  private readonly slabOf: Int32Array;
  private readonly planeStart: Int32Array;
  cheapModulus = true;

  constructor(readonly nx: number, readonly ny: number, readonly nz: number, options: MatrixOptions = {}) {
    checkDims(nx, ny, nz);
    this.planeSize = nx * ny;
    const plan = planSlabs(this.planeSize * 4, nz, options, `id matrix ${nx}x${ny}x${nz}`);
    this.planesPerSlab = plan.planesPerSlab;
    this.bytes = plan.total;
    this.slabOf = plan.slabOf;
    this.planeStart = new Int32Array(nz);
    for (let z = 0; z < nz; z++) this.planeStart[z] = plan.planeBase[z] * this.planeSize;
    this.slabs = [];
    for (let s = 0; s < plan.slabCount; s++) {
      const planes = Math.min(this.planesPerSlab, nz - s * this.planesPerSlab);
      this.slabs.push(new Uint32Array(new SharedArrayBuffer(planes * this.planeSize * 4)));
    }
  }

  get slabCount(): number {
    return this.slabs.length;
  }

  /** The id at a voxel (0 = void). */
  get(x: number, y: number, z: number): number {
    return this.slabs[this.slabOf[z]][this.planeStart[z] + y * this.nx + x];
  }

  test(x: number, y: number, z: number): boolean {
    return this.get(x, y, z) !== 0;
  }

  set(x: number, y: number, z: number, id: number): void {
    this.slabs[this.slabOf[z]][this.planeStart[z] + y * this.nx + x] = id;
  }

  clear(x: number, y: number, z: number): void {
    this.slabs[this.slabOf[z]][this.planeStart[z] + y * this.nx + x] = 0;
  }

  private insideSlab(ox: number, oy: number, oz: number, e: number): Uint32Array | null {
    if (ox < e || ox + e >= this.nx || oy < e || oy + e >= this.ny || oz < e || oz + e >= this.nz) return null;
    const s = this.slabOf[oz - e];
    return s === this.slabOf[oz + e] ? this.slabs[s] : null;
  }

  firstHit(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, selfId: number): number {
    const nx = this.nx, planeStart = this.planeStart;
    const slab = this.cheapModulus ? this.insideSlab(ox, oy, oz, e) : null;
    if (slab !== null) {
      const base = planeStart[oz] + oy * nx + ox, plane = this.planeSize;
      for (let i = from, k = 3 * from; i < to; i++, k += 3) {
        const v = slab[base + c[k + 2] * plane + c[k + 1] * nx + c[k]];
        if (v !== 0 && v !== selfId) return i - from;
      }
      return -1;
    }
    const ny = this.ny, nz = this.nz, slabs = this.slabs, slabOf = this.slabOf;
    const bx = corner(ox, e, nx);
    const by = corner(oy, e, ny);
    const cheap = this.cheapModulus;
    for (let i = from, k = 3 * from; i < to; i++, k += 3) {
      const z = oz + c[k + 2];
      if (z < 0 || z >= nz) return i - from;
      let x = bx + c[k], y = by + c[k + 1];
      if (cheap) {
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
      } else {
        x %= nx;
        y %= ny;
      }
      const v = slabs[slabOf[z]][planeStart[z] + y * nx + x];
      if (v !== 0 && v !== selfId) return i - from;
    }
    return -1;
  }

  writeAll(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, id: number): void {
    this.apply(c, from, to, ox, oy, oz, e, id, true);
  }

  clearAll(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, id: number): void {
    this.apply(c, from, to, ox, oy, oz, e, id, false);
  }

  private apply(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, id: number, on: boolean): void {
    const nx = this.nx, ny = this.ny, nz = this.nz, planeStart = this.planeStart, slabs = this.slabs, slabOf = this.slabOf;
    const inside = this.cheapModulus && this.insideSlab(ox, oy, oz, e) !== null;
    const bx = corner(ox, e, nx);
    const by = corner(oy, e, ny);
    const cheap = this.cheapModulus;
    for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
      const z = oz + c[k + 2];
      let x: number, y: number;
      if (inside) {
        x = ox + c[k];
        y = oy + c[k + 1];
      } else {
        if (z < 0 || z >= nz) continue;
        x = bx + c[k];
        y = by + c[k + 1];
        if (cheap) {
          if (x >= nx) x -= nx;
          if (y >= ny) y -= ny;
        } else {
          x %= nx;
          y %= ny;
        }
      }
      const slab = slabs[slabOf[z]], w = planeStart[z] + y * nx + x;
      if (on) slab[w] = id;
      else if (slab[w] === id) slab[w] = 0;
    }
  }

  clearEverything(): void {
    for (const s of this.slabs) s.fill(0);
  }

  countOccupied(): number {
    let n = 0;
    for (const s of this.slabs) for (let i = 0; i < s.length; i++) if (s[i] !== 0) n++;
    return n;
  }
}
