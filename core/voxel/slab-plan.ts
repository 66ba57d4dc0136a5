/**
 * How a packing matrix is cut into z-slabs: each slab its own SharedArrayBuffer of a whole number
 * of z-planes and at most MAX_SLAB_BYTES (Electron's allocator refuses a single buffer near
 * 2 GiB), and a memory budget checked before anything is allocated.
 */
import type { MatrixOptions } from './matrix';

export const MAX_SLAB_BYTES = 1 << 30;

export interface SlabPlan {
  planesPerSlab: number;
  slabCount: number;
  /** slabOf[z]: the slab of plane z. */
  slabOf: Int32Array;
  /** planeBase[z]: the index of plane z inside its slab (in planes). */
  planeBase: Int32Array;
  /** Bytes of all slabs. */
  total: number;
}

/** Splits nz planes of planeBytes each into slabs of at most maxSlabBytes. */
export function planSlabs(planeBytes: number, nz: number, options: MatrixOptions, what: string): SlabPlan {
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
      `${what} needs ${total} bytes (${(total / MAX_SLAB_BYTES).toFixed(2)} GiB), more than the memory budget of ${budget} bytes`,
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

