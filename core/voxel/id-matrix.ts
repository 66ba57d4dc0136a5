/**
 * The 32-bit id packing matrix of Jia & Williams' DigiPac (seed §3.7, Fig. 11): a particle's own
 * voxels are told apart by their id, so a move is tested without removing the particle.
 */
import { checkDims, corner, type MatrixOptions, type PackingMatrix } from './matrix';
import { planSlabs } from './slab-plan';

/** Bytes an id matrix of this size needs. */
export function idMatrixBytes(nx: number, ny: number, nz: number): number {
  return 4 * nx * ny * nz;
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

  saveSlabs(): Uint32Array[] {
    return this.slabs;
  }

  loadSlabs(slabs: ArrayBufferView[]): void {
    if (slabs.length !== this.slabs.length) throw new RangeError(`id matrix: ${slabs.length} slabs to load, it has ${this.slabs.length}`);
    this.slabs.forEach((s, i) => s.set(new Uint32Array(slabs[i].buffer, slabs[i].byteOffset, s.length)));
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
