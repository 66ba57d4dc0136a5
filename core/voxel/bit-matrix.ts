/**
 * The bit packing matrix (seed §3.7, Fig. 9): 1 bit per voxel, in z-slabs (slab-plan.ts), in one
 * of two layouts:
 * - 'rows' (the seed's): a row of 32-bit words per (y, z); word x >> 5, bit x & 31;
 * - 'bricks': bricks of 8 × 8 × 8 voxels, each one 64-byte cache line, in x-fastest order; inside
 *   a brick, word (z & 7)·2 + ((y >> 2) & 1), bit ((y & 3) << 3) | (x & 7). A particle of 20
 *   voxels touches about 50 cache lines instead of about 400 rows: at 1024² and more, where the
 *   bed's top layers no longer fit in the caches, that is the cost of a check (README: Costs).
 *   The box is padded to whole bricks; the padding planes above nz are solid (the kernels read
 *   them as the ceiling), padding columns beyond nx, ny are never addressed (x and y wrap first).
 *
 * Both are separable, so one code path serves both: voxel (x, y, z) is bit yBit[y] + xBit[x] of
 * word zWord[z] + yWord[y] + xWord[x] of slab slabOf[z] (the tables play the part of the seed's
 * reference map, data[y][z]).
 *
 * The list operations of the contract (matrix.ts), firstHitBesides (a move tested before the
 * particle is removed, with its self mask), and the self mask itself. The rotate-and-test loops
 * that use them are in fused.ts.
 *
 * With kernels, the matrix lives in the WebAssembly memory of the packer's SIMD kernels
 * (wasm-kernels.ts), which move particles in it; the loops here move the rest. WebAssembly (32-bit,
 * Node 20 has no memory64 without a flag) reaches at most WASM_WINDOW_BYTES of matrix there, so a
 * larger matrix keeps all its planes in its slabs and a *window* of them (whole units: planes of
 * rows, layers of bricks) in the kernels' memory: the window's copy is the one in use (slabOf and
 * zWord point at it, for these loops too), and moveWindow hands planes back to the slabs and takes
 * others, as the packing rises.
 */
import { checkDims, corner, type MatrixOptions, type PackingMatrix } from './matrix';
import { planSlabs } from './slab-plan';
import { WASM_WINDOW_BYTES, WasmKernels, type KernelLayout } from './wasm-kernels';
import { powInt } from '../common/power';

export type BitLayout = 'rows' | 'bricks';

/** Voxels per brick edge. */
const BRICK = 8;

/** Bytes a bit matrix of this size needs in this layout (rows padded to whole words, bricks to whole bricks). */
export function bitMatrixBytes(nx: number, ny: number, nz: number, layout: BitLayout = 'rows'): number {
  if (layout === 'rows') return Math.ceil(nx / 32) * 4 * ny * nz;
  return Math.ceil(nx / BRICK) * Math.ceil(ny / BRICK) * Math.ceil(nz / BRICK) * 64;
}

/** 1 bit per voxel. */
export class BitMatrix implements PackingMatrix {
  readonly kind = 'bit' as const;
  readonly layout: BitLayout;
  readonly slabs: Int32Array[];
  readonly bytes: number;
  /** Voxel (x, y, z): bit yBit[y] + xBit[x] of word zWord[z] + yWord[y] + xWord[x] of slab slabOf[z]. */
  readonly xWord: Int32Array;
  readonly xBit: Uint8Array;
  readonly yWord: Int32Array;
  readonly yBit: Uint8Array;
  readonly zWord: Int32Array;
  readonly slabOf: Int32Array;
  /** Planes per unit of the slab plan: 1 (rows) or 8 (a layer of bricks). */
  readonly planesPerUnit: number;
  /** Planes of each slab (a multiple of planesPerUnit, but for the last). */
  readonly planesPerSlab: number;
  /** Bricks: the solid padding planes above nz in the top layer, as bits (not voxels of the box). */
  private readonly paddingBits: number;
  cheapModulus = true;
  /** The WebAssembly kernels and their memory (the last slab lives in it), or null. */
  readonly wasm: WasmKernels | null = null;
  /**
   * With kernels: units [windowUnit, windowUnit + windowUnits) are in the kernels' memory (the
   * last entry of slabs). When the window holds the whole matrix there are no other slabs.
   */
  windowUnit = 0;
  readonly windowUnits: number = 0;
  /** Words of one unit (a plane of rows, a layer of bricks) and of one row (of words or of bricks). */
  private readonly unitWords: number;
  private readonly rowWords: number;
  /** Per unit: its slab and first word there, outside the window. */
  private readonly homeSlab: Int32Array;
  private readonly homeWord: Int32Array;

  constructor(readonly nx: number, readonly ny: number, readonly nz: number, options: MatrixOptions = {}) {
    checkDims(nx, ny, nz);
    const layout = (this.layout = options.layout ?? 'rows');
    const bricks = layout === 'bricks';
    const unit = (this.planesPerUnit = bricks ? BRICK : 1);
    // Words of one unit (a plane of rows, a layer of bricks) and of one brick row or row.
    const rowWords = bricks ? Math.ceil(nx / BRICK) * 16 : Math.ceil(nx / 32);
    const unitWords = bricks ? rowWords * Math.ceil(ny / BRICK) : rowWords * ny;
    const units = Math.ceil(nz / unit);
    const plan = planSlabs(unitWords * 4, units, options, `bit matrix ${nx}x${ny}x${nz}`);
    this.planesPerSlab = plan.planesPerSlab * unit;
    this.bytes = plan.total;
    this.xWord = new Int32Array(nx);
    this.xBit = new Uint8Array(nx);
    for (let x = 0; x < nx; x++) {
      this.xWord[x] = bricks ? (x >> 3) * 16 : x >> 5;
      this.xBit[x] = bricks ? x & 7 : x & 31;
    }
    this.yWord = new Int32Array(ny);
    this.yBit = new Uint8Array(ny);
    for (let y = 0; y < ny; y++) {
      this.yWord[y] = bricks ? (y >> 3) * rowWords + ((y >> 2) & 1) : y * rowWords;
      this.yBit[y] = bricks ? (y & 3) << 3 : 0;
    }
    this.unitWords = unitWords;
    this.rowWords = rowWords;
    this.homeSlab = plan.slabOf;
    this.homeWord = plan.planeBase.map((b) => b * unitWords);
    this.zWord = new Int32Array(nz);
    this.slabOf = new Int32Array(nz);
    this.paddingBits = bricks ? (units * BRICK - nz) * Math.ceil(nx / BRICK) * Math.ceil(ny / BRICK) * 64 : 0;
    this.slabs = [];
    const windowLimit = Math.min(options.windowBytes ?? WASM_WINDOW_BYTES, WASM_WINDOW_BYTES);
    const whole = plan.slabCount === 1 && plan.total <= windowLimit;
    if (!whole || (options.kernels ?? 'wasm') === 'js') {
      for (let s = 0; s < plan.slabCount; s++) {
        const slabUnits = Math.min(plan.planesPerSlab, units - s * plan.planesPerSlab);
        this.slabs.push(new Int32Array(new SharedArrayBuffer(slabUnits * unitWords * 4)));
      }
    }
    if ((options.kernels ?? 'wasm') === 'wasm') {
      const kernelLayout: KernelLayout = bricks
        ? { zShift: 3, zBytes: unitWords * 4, yShift: 3, yBytes: rowWords * 4, xShift: 3, xUp: 6, zLow: 7, yLow: 4, yBitShift: 3, xLow: 7 }
        : { zShift: 0, zBytes: unitWords * 4, yShift: 0, yBytes: rowWords * 4, xShift: 5, xUp: 2, zLow: 0, yLow: 0, yBitShift: 5, xLow: 31 };
      this.windowUnits = whole ? units : Math.floor(windowLimit / (unitWords * 4));
      if (this.windowUnits < 1) throw new RangeError(`bit matrix ${nx}x${ny}x${nz}: one unit of planes needs ${unitWords * 4} bytes, more than the kernels' window (${windowLimit})`);
      this.wasm = new WasmKernels(nx, ny, this.windowUnits * unitWords * 4, kernelLayout);
      this.slabs.push(this.wasm.matrix);
    }
    for (let z = 0; z < nz; z++) this.mapPlane(z);
    this.fillPadding();
  }

  /** Points plane z at its words: in the window when its unit is there, else in its slab. */
  private mapPlane(z: number): void {
    const unit = this.planesPerUnit, u = Math.floor(z / unit), within = unit === BRICK ? (z & 7) * 2 : 0;
    if (this.wasm !== null && u >= this.windowUnit && u < this.windowUnit + this.windowUnits) {
      this.slabOf[z] = this.slabs.length - 1;
      this.zWord[z] = (u - this.windowUnit) * this.unitWords + within;
    } else {
      this.slabOf[z] = this.homeSlab[u];
      this.zWord[z] = this.homeWord[u] + within;
    }
  }

  /**
   * The voxel (x, y, z) of bit `bit` (mod 32) of word `word` of the kernels' memory (the window):
   * the inverse of the kernels' addressing, written to out[0..2].
   */
  voxelOfWindowWord(word: number, bit: number, out: Int32Array): void {
    const u = Math.floor(word / this.unitWords), r = word - u * this.unitWords, row = Math.floor(r / this.rowWords), inRow = r - row * this.rowWords;
    bit &= 31;
    if (this.layout === 'rows') {
      out[0] = inRow * 32 + bit;
      out[1] = row;
      out[2] = u + this.windowUnit;
      return;
    }
    const brick = inRow >> 4, w = inRow & 15;
    out[0] = brick * BRICK + (bit & 7);
    out[1] = row * BRICK + (w & 1) * 4 + (bit >> 3);
    out[2] = (u + this.windowUnit) * BRICK + (w >> 1);
  }

  /** True when the matrix has planes outside the kernels' window (it is larger than the window). */
  get windowed(): boolean {
    return this.wasm !== null && this.slabs.length > 1;
  }

  /** The planes [z0, z1) in the kernels' memory (z1 may pass nz: the padding of the top layer). */
  windowPlanes(): [number, number] {
    return [this.windowUnit * this.planesPerUnit, (this.windowUnit + this.windowUnits) * this.planesPerUnit];
  }

  /**
   * Moves the window to start at unit `first` (clamped to the matrix): units leaving it are
   * copied back to their slabs, units staying move inside it, units entering come from their
   * slabs. Returns the bytes every matrix address the kernels hold must be shifted by
   * (wasm-kernels.ts rebaseVoxels).
   */
  moveWindow(first: number): number {
    if (!this.windowed) return 0;
    const units = Math.ceil(this.nz / this.planesPerUnit), w = this.windowUnits, uw = this.unitWords;
    const to = Math.max(0, Math.min(units - w, first)), from = this.windowUnit;
    if (to === from) return 0;
    const win = this.slabs[this.slabs.length - 1];
    const copyOut = (u: number) => this.slabs[this.homeSlab[u]].set(win.subarray((u - from) * uw, (u - from + 1) * uw), this.homeWord[u]);
    const copyIn = (u: number) => win.set(this.slabs[this.homeSlab[u]].subarray(this.homeWord[u], this.homeWord[u] + uw), (u - to) * uw);
    for (let u = from; u < from + w; u++) if (u < to || u >= to + w) copyOut(u);
    // Units in both ranges keep their words, shifted by (from - to) units.
    const lo = Math.max(from, to), hi = Math.min(from + w, to + w);
    if (lo < hi) win.copyWithin((lo - to) * uw, (lo - from) * uw, (hi - from) * uw);
    for (let u = to; u < to + w; u++) if (u < from || u >= from + w) copyIn(u);
    this.windowUnit = to;
    this.wasm!.zOrigin = to * this.planesPerUnit;
    const z0 = Math.min(from, to) * this.planesPerUnit, z1 = Math.min(this.nz, (Math.max(from, to) + w) * this.planesPerUnit);
    for (let z = z0; z < z1; z++) this.mapPlane(z);
    return (from - to) * uw * 4;
  }

  /** Bricks: sets the padding planes above nz (solid, like everything outside the box in z). */
  private fillPadding(): void {
    if (this.paddingBits === 0) return;
    const top = this.slabs[this.slabOf[this.nz - 1]], base = this.zWord[this.nz - 1] - ((this.nz - 1) & 7) * 2;
    const bricks = Math.ceil(this.nx / BRICK) * Math.ceil(this.ny / BRICK);
    for (let b = 0; b < bricks; b++) {
      for (let z = this.nz & 7; z < BRICK; z++) {
        top[base + b * 16 + 2 * z] = -1;
        top[base + b * 16 + 2 * z + 1] = -1;
      }
    }
  }

  get slabCount(): number {
    return this.slabs.length;
  }

  /** Index of the word holding voxel (x, y, z) in its slab (slabOf[z]). */
  wordOf(x: number, y: number, z: number): number {
    return this.zWord[z] + this.yWord[y] + this.xWord[x];
  }

  test(x: number, y: number, z: number): boolean {
    return ((this.slabs[this.slabOf[z]][this.wordOf(x, y, z)] >>> (this.yBit[y] + this.xBit[x])) & 1) !== 0;
  }

  set(x: number, y: number, z: number, _id = 1): void {
    this.slabs[this.slabOf[z]][this.wordOf(x, y, z)] |= 1 << (this.yBit[y] + this.xBit[x]);
  }

  /**
   * Sets voxels x0..x1 (0 <= x0 <= x1 < nx) of row (y, z), a word at a time; returns how many of
   * them were not set before (the exact finalisation's claim of a run of voxels).
   */
  claimRow(x0: number, x1: number, y: number, z: number): number {
    const slab = this.slabs[this.slabOf[z]], base = this.zWord[z] + this.yWord[y], yBit = this.yBit[y];
    // The bits of one word along x: 32 in rows, 8 (a brick's row) in bricks.
    const span = this.layout === 'bricks' ? BRICK : 32;
    let claimed = 0;
    for (let x = x0; x <= x1;) {
      const len = Math.min(x1 - x + 1, span - (x & (span - 1)));
      const mask = (len === 32 ? -1 : (1 << len) - 1) << (yBit + this.xBit[x]);
      const w = base + this.xWord[x], held = slab[w] & mask;
      claimed += len - popcount(held);
      slab[w] |= mask;
      x += len;
    }
    return claimed;
  }

  clear(x: number, y: number, z: number): void {
    this.slabs[this.slabOf[z]][this.wordOf(x, y, z)] &= ~(1 << (this.yBit[y] + this.xBit[x]));
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
    const nx = this.nx, ny = this.ny, xw = this.xWord, xb = this.xBit, yw = this.yWord, yb = this.yBit, zw = this.zWord;
    const slab = this.slabFor(oz, e);
    if (slab !== null) {
      // One slab (seed §3.3): a non-negative reference corner, then one subtraction near the x/y edge (Fig. 7).
      const bx = corner(ox, e, nx), by = corner(oy, e, ny);
      for (let i = from, k = 3 * from; i < to; i++, k += 3) {
        let x = bx + c[k], y = by + c[k + 1];
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
        if (((slab[zw[oz + c[k + 2]] + yw[y] + xw[x]] >>> (yb[y] + xb[x])) & 1) !== 0) return i - from;
      }
      return -1;
    }
    // General path: bounds in z, slab per voxel; `%` when cheapModulus is off.
    const nz = this.nz, slabs = this.slabs, slabOf = this.slabOf, cheap = this.cheapModulus;
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
      if (((slabs[slabOf[z]][zw[z] + yw[y] + xw[x]] >>> (yb[y] + xb[x])) & 1) !== 0) return i - from;
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
    const nx = this.nx, ny = this.ny, xw = this.xWord, xb = this.xBit, yw = this.yWord, yb = this.yBit, zw = this.zWord;
    const ms = 2 * bias + 1, mx = dx + bias, my = dy + bias, mz = dz + bias;
    const slab = this.slabFor(oz, e);
    if (slab !== null) {
      const bx = corner(ox, e, nx), by = corner(oy, e, ny);
      for (let i = from, k = 3 * from; i < to; i++, k += 3) {
        const cx = c[k], cy = c[k + 1], cz = c[k + 2];
        let x = bx + cx, y = by + cy;
        if (x >= nx) x -= nx;
        if (y >= ny) y -= ny;
        if (((slab[zw[oz + cz] + yw[y] + xw[x]] >>> (yb[y] + xb[x])) & 1) !== 0) {
          const m = ((cz + mz) * ms + cy + my) * ms + cx + mx;
          if ((mw[m >> 5] & (1 << (m & 31))) === 0) return i - from;
        }
      }
      return -1;
    }
    const nz = this.nz, slabs = this.slabs, slabOf = this.slabOf, cheap = this.cheapModulus;
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
      if (((slabs[slabOf[z]][zw[z] + yw[y] + xw[x]] >>> (yb[y] + xb[x])) & 1) !== 0) {
        const m = ((cz + mz) * ms + cy + my) * ms + cx + mx;
        if ((mw[m >> 5] & (1 << (m & 31))) === 0) return i - from;
      }
    }
    return -1;
  }

  writeAll(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, _id = 1): void {
    const slab = this.slabFor(oz, e);
    if (slab === null) {
      this.applyGeneral(c, from, to, ox, oy, oz, e, true);
      return;
    }
    const nx = this.nx, ny = this.ny, xw = this.xWord, xb = this.xBit, yw = this.yWord, yb = this.yBit, zw = this.zWord;
    const bx = corner(ox, e, nx), by = corner(oy, e, ny);
    for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
      let x = bx + c[k], y = by + c[k + 1];
      if (x >= nx) x -= nx;
      if (y >= ny) y -= ny;
      slab[zw[oz + c[k + 2]] + yw[y] + xw[x]] |= 1 << (yb[y] + xb[x]);
    }
  }

  clearAll(c: Int32Array, from: number, to: number, ox: number, oy: number, oz: number, e: number, _id = 1): void {
    const slab = this.slabFor(oz, e);
    if (slab === null) {
      this.applyGeneral(c, from, to, ox, oy, oz, e, false);
      return;
    }
    const nx = this.nx, ny = this.ny, xw = this.xWord, xb = this.xBit, yw = this.yWord, yb = this.yBit, zw = this.zWord;
    const bx = corner(ox, e, nx), by = corner(oy, e, ny);
    for (let k = 3 * from, end = 3 * to; k < end; k += 3) {
      let x = bx + c[k], y = by + c[k + 1];
      if (x >= nx) x -= nx;
      if (y >= ny) y -= ny;
      slab[zw[oz + c[k + 2]] + yw[y] + xw[x]] &= ~(1 << (yb[y] + xb[x]));
    }
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
    const nx = this.nx, ny = this.ny, nz = this.nz, xw = this.xWord, xb = this.xBit, yw = this.yWord, yb = this.yBit, zw = this.zWord;
    const slabs = this.slabs, slabOf = this.slabOf, cheap = this.cheapModulus;
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
      const w = zw[z] + yw[y] + xw[x], bit = 1 << (yb[y] + xb[x]);
      if (on) slabs[slabOf[z]][w] |= bit;
      else slabs[slabOf[z]][w] &= ~bit;
    }
  }

  clearEverything(): void {
    for (const s of this.slabs) s.fill(0);
    this.fillPadding();
  }

  /** The slabs holding every plane: all of them, or (windowed) those behind the window, brought up to date. */
  saveSlabs(): Int32Array[] {
    if (!this.windowed) return this.slabs;
    const win = this.slabs[this.slabs.length - 1], uw = this.unitWords;
    for (let u = this.windowUnit; u < this.windowUnit + this.windowUnits; u++) {
      this.slabs[this.homeSlab[u]].set(win.subarray((u - this.windowUnit) * uw, (u - this.windowUnit + 1) * uw), this.homeWord[u]);
    }
    return this.slabs.slice(0, -1);
  }

  loadSlabs(slabs: ArrayBufferView[]): void {
    const own = this.windowed ? this.slabs.slice(0, -1) : this.slabs;
    if (slabs.length !== own.length) throw new RangeError(`bit matrix: ${slabs.length} slabs to load, it has ${own.length}`);
    own.forEach((s, i) => s.set(new Int32Array(slabs[i].buffer, slabs[i].byteOffset, s.length)));
    if (!this.windowed) return;
    const win = this.slabs[this.slabs.length - 1], uw = this.unitWords;
    for (let u = this.windowUnit; u < this.windowUnit + this.windowUnits; u++) {
      win.set(this.slabs[this.homeSlab[u]].subarray(this.homeWord[u], this.homeWord[u] + uw), (u - this.windowUnit) * uw);
    }
  }

  /** Occupied voxels of the box (the padding planes of a brick matrix are not voxels of the box). */
  countOccupied(): number {
    let n = 0;
    const units = Math.ceil(this.nz / this.planesPerUnit), uw = this.unitWords;
    for (let u = 0; u < units; u++) {
      // Each unit where it is in use: in the window or in its slab.
      const inWindow = this.wasm !== null && u >= this.windowUnit && u < this.windowUnit + this.windowUnits;
      const s = inWindow ? this.slabs[this.slabs.length - 1] : this.slabs[this.homeSlab[u]];
      const from = inWindow ? (u - this.windowUnit) * uw : this.homeWord[u];
      for (let i = from, end = from + uw; i < end; i++) if (s[i] !== 0) n += popcount(s[i]);
    }
    return n - this.paddingBits;
  }
}

/** Set bits of a 32-bit word. */
function popcount(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
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
  return Math.ceil(powInt(2 * bias + 1, 3) / 32);
}

/** Marks coords[0..n) (each within ±bias) in a self mask. */
export function markSelf(w: Int32Array, bias: number, c: Int32Array, n: number): void {
  const s = 2 * bias + 1;
  for (let k = 0, end = 3 * n; k < end; k += 3) {
    const m = ((c[k + 2] + bias) * s + c[k + 1] + bias) * s + c[k] + bias;
    w[m >> 5] |= 1 << (m & 31);
  }
}

