/**
 * The bit packing matrix (seed §3.7, Fig. 9): 1 bit per voxel, a row of 32-bit words per (y, z);
 * word = x >> 5, bit = x & 31, in z-slabs (slab-plan.ts). The list operations of the contract
 * (matrix.ts), firstHitBesides (a move tested before the particle is removed, with its self mask),
 * and the self mask itself. The rotate-and-test loops that use it are in fused.ts.
 *
 * A BitMatrix of one slab up to WASM_MATRIX_LIMIT_BYTES keeps it in a WebAssembly memory, where
 * the packer's SIMD kernels (wasm-kernels.ts) move particles in it; the loops here move the rest.
 */
import { checkDims, corner, type MatrixOptions, type PackingMatrix } from './matrix';
import { planSlabs } from './slab-plan';
import { WASM_MATRIX_LIMIT_BYTES, WasmKernels } from './wasm-kernels';

/** Bytes a bit matrix of this size needs (rows padded to whole 32-bit words). */
export function bitMatrixBytes(nx: number, ny: number, nz: number): number {
  return Math.ceil(nx / 32) * 4 * ny * nz;
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
  readonly planeWord: Int32Array;
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
  slabFor(oz: number, e: number): Int32Array | null {
    if (!this.cheapModulus || oz < e || oz + e >= this.nz) return null;
    const s = this.slabOf[oz - e];
    return s === this.slabOf[oz + e] ? this.slabs[s] : null;
  }

  /**
   * The one slab holding the planes of [oz - e, oz + e] that lie inside the box, else null (also
   * when cheapModulus is off or oz is outside the box): for a particle touching the floor or the
   * ceiling, which then needs a z bound check per voxel but no slab lookup.
   */
  clampedSlabFor(oz: number, e: number): Int32Array | null {
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

