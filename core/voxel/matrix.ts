/**
 * The packing matrix (seed §2.1, §3.7): the voxel box the particles are packed into. This file is
 * the contract its two implementations share, for the comparison of seed Fig. 11:
 * - BitMatrix (bit-matrix.ts): 1 bit per voxel, in rows of 32-bit words per (y, z) (seed Fig. 9) or in
 *   bricks of 8³ voxels (a cache line each).
 * - IdMatrix (id-matrix.ts): a 32-bit particle id per voxel, as in Jia & Williams' DigiPac.
 *
 * Both store z-slabs (slab-plan.ts), each its own SharedArrayBuffer holding a whole number of
 * z-planes and at most 1 GiB, so a 4000^3 bit matrix (8 GB) is possible. x and y are periodic, z
 * is bounded: a voxel with z outside [0, nz) counts as occupied (solid floor, ceiling), so a
 * particle can never leave the box through it.
 *
 * The list operations take particle-relative coordinates (interleaved x, y, z) plus an offset (the
 * particle's centre voxel) and the particle's extent e (every coordinate lies in [-e, e]). With the
 * extent they pick one of these paths per call (seed §3.3):
 * - one slab: the particle's bounding cube lies inside the box in z and inside one slab, so the
 *   slab is looked up once and no z bound is checked; x and y start from a non-negative
 *   reference corner and wrap with one subtraction near the edge (seed Fig. 7) (the id matrix
 *   also skips that subtraction for particles away from the x/y edge);
 * - general: z bounds checked and the slab looked up per voxel (particles straddling a slab
 *   boundary or touching the floor or ceiling), with `%` on every coordinate when the switch
 *   `cheapModulus` is off (the unoptimised reference).
 */

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
  /** The matrix's words for a checkpoint: views of its slabs (a window's planes written back first). */
  saveSlabs(): ArrayBufferView[];
  /** Restores the words saveSlabs gave (same sizes, in the same order). */
  loadSlabs(slabs: ArrayBufferView[]): void;
}

export interface MatrixOptions {
  /** Refuse, before allocating, a matrix whose slabs would exceed this many bytes. */
  memoryBudgetBytes?: number;
  /** Largest slab in bytes (default and maximum 1 GiB); tests use a small value to get many slabs. */
  maxSlabBytes?: number;
  /**
   * BitMatrix: 'wasm' (default) keeps the matrix, or a window of its planes, in the memory of the
   * WebAssembly SIMD kernels (`wasm`), so the packer can use them; 'js': never.
   */
  kernels?: 'wasm' | 'js';
  /**
   * BitMatrix with kernels: the largest matrix kept whole in the kernels' memory, and the size of
   * the window of planes there for a larger one (default and maximum WASM_WINDOW_BYTES; tests use
   * a small value to move a window through a small box).
   */
  windowBytes?: number;
  /** BitMatrix: 'rows' (default, the seed's) or 'bricks' of 8³ voxels (bit-matrix.ts). */
  layout?: 'rows' | 'bricks';
}

/** Throws a RangeError naming the axis when a dimension is not an integer in [1, 2^20]. */
export function checkDims(nx: number, ny: number, nz: number): void {
  for (const [name, v] of [['nx', nx], ['ny', ny], ['nz', nz]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 1 << 20) {
      throw new RangeError(`${name} must be an integer in [1, ${1 << 20}] voxels, got ${v}`);
    }
  }
}


/**
 * The non-negative reference corner of seed §3.3: a centre o in [0, n) whose particle (extent e)
 * may reach below 0 is shifted up by the box side, so that every voxel coordinate o + c lies in
 * [0, 2n) and one subtraction of n wraps it (Fig. 7). It needs of the offsets c on this axis only
 * |c| ≤ e and 2|c| ≤ n, whatever e: with t = min(e, ⌊n/2⌋) ≥ |c|, a centre below t gives
 * o + n + c in [n - |c|, t - 1 + n + |c|] ⊂ [0, 2n), one from t gives o + c in [t - |c|, n - 1 + |c|].
 * Shifting below e alone needed e + |c| ≤ n: an upright rod of 8 x 80 voxels (extent 41, offsets
 * within ±4) in a box 44 wide reached 40 + 44 + 4 = 88 = 2n. test/core/voxel/matrix.test.ts checks
 * every o and c.
 */
export function corner(o: number, e: number, n: number): number {
  return o < Math.min(e, n >> 1) ? o + n : o;
}
