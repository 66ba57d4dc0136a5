/**
 * Contacts between voxel particles: two particles touch when a voxel of one is face-adjacent to a
 * voxel of the other in the labelled packing (seed 004 counts contacts per particle as its
 * coordination number). One pass looks at the +x, +y and +z neighbour of every voxel (wrapping
 * periodic axes), so every adjacent face is seen exactly once; distinct pairs go into an
 * open-addressing hash keyed by (a, b), a < b.
 */

/** Set of unordered label pairs {a, b}, a < b, in two parallel key arrays (a = 0 marks an empty slot). */
export class PairSet {
  private keyA: Uint32Array;
  private keyB: Uint32Array;
  size = 0;
  constructor(capacity = 1 << 12) {
    let cap = 16;
    while (cap < capacity * 2) cap *= 2;
    this.keyA = new Uint32Array(cap);
    this.keyB = new Uint32Array(cap);
  }

  /** Adds the pair {a, b} (a != b, both > 0). */
  add(a: number, b: number): void {
    if (a > b) { const t = a; a = b; b = t; }
    if ((this.size + 1) * 2 > this.keyA.length) this.grow();
    this.insert(a, b);
  }

  private insert(a: number, b: number): void {
    const keyA = this.keyA, keyB = this.keyB;
    const mask = keyA.length - 1;
    let i = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) & mask;
    for (;;) {
      const k = keyA[i];
      if (k === 0) { keyA[i] = a; keyB[i] = b; this.size++; return; }
      if (k === a && keyB[i] === b) return;
      i = (i + 1) & mask;
    }
  }

  private grow(): void {
    const oldA = this.keyA, oldB = this.keyB;
    this.keyA = new Uint32Array(oldA.length * 2);
    this.keyB = new Uint32Array(oldA.length * 2);
    this.size = 0;
    for (let i = 0; i < oldA.length; i++) if (oldA[i] !== 0) this.insert(oldA[i], oldB[i]);
  }

  /** Calls fn(a, b) for every pair, a < b. */
  forEach(fn: (a: number, b: number) => void): void {
    for (let i = 0; i < this.keyA.length; i++) if (this.keyA[i] !== 0) fn(this.keyA[i], this.keyB[i]);
  }
}

/** Distinct contacting label pairs of a labelled volume. */
export function voxelContacts(
  labels: Uint32Array,
  dims: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
  progress?: (doneSlices: number) => void,
): PairSet {
  const [nx, ny, nz] = dims;
  const slice = nx * ny;
  const pairs = new PairSet();
  // The last pair added: runs of the same contact along x are common, so skip re-hashing them.
  let lastA = 0, lastB = 0;
  for (let z = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      const row = z * slice + y * nx;
      const yNext = y + 1 < ny ? row + nx : periodic[1] ? z * slice : -1;
      const zNext = z + 1 < nz ? row + slice : periodic[2] ? y * nx : -1;
      for (let x = 0; x < nx; x++) {
        const a = labels[row + x];
        if (a === 0) continue;
        let b: number;
        if (x + 1 < nx) b = labels[row + x + 1];
        else b = periodic[0] ? labels[row] : 0;
        if (b !== 0 && b !== a && !(a === lastA && b === lastB)) { pairs.add(a, b); lastA = a; lastB = b; }
        if (yNext >= 0) {
          b = labels[yNext + x];
          if (b !== 0 && b !== a && !(a === lastA && b === lastB)) { pairs.add(a, b); lastA = a; lastB = b; }
        }
        if (zNext >= 0) {
          b = labels[zNext + x];
          if (b !== 0 && b !== a && !(a === lastA && b === lastB)) { pairs.add(a, b); lastA = a; lastB = b; }
        }
      }
    }
    if (progress && (z & 15) === 15) progress(z + 1);
  }
  return pairs;
}

/** Coordination number of every particle (index = label - 1) from a pair set. */
export function coordinationFromPairs(pairs: PairSet, particleCount: number): Uint32Array {
  const degree = new Uint32Array(particleCount);
  pairs.forEach((a, b) => {
    if (a <= particleCount) degree[a - 1]++;
    if (b <= particleCount) degree[b - 1]++;
  });
  return degree;
}
