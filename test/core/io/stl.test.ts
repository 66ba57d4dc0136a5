import { describe, expect, it } from 'vitest';
import { parseStl } from '../../../core/io/mesh';
import { asciiFacet, ParticleCuts, ParticleSurface, solidSurfaceTriangles, sphereSolid, stlHeader, type SliceWindow } from '../../../core/io/stl';
import { asciiSolids, checkSurface, windingNumber } from './surface-check';

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function windows(labels: Uint32Array, [nx, ny, nz]: readonly number[]): SliceWindow[] {
  const slice = (z: number) => (z < 0 || z >= nz ? undefined : labels.subarray(z * nx * ny, (z + 1) * nx * ny));
  return Array.from({ length: nz }, (_, z) => ({ below: slice(z - 1), slice: slice(z)!, above: slice(z + 1), nx, ny, z }));
}

/** The whole solid's binary STL, as a file. */
function solidStl(labels: Uint32Array, dims: readonly number[], h: number): Uint8Array {
  const parts = windows(labels, dims).map((w) => solidSurfaceTriangles(w, h));
  const body = parts.reduce((n, p) => n + p.length, 0);
  const file = new Uint8Array(84 + body);
  file.set(stlHeader(body / 50));
  let at = 84;
  for (const p of parts) { file.set(p, at); at += p.length; }
  return file;
}

/** Every voxel centre of the box is inside the surface exactly when `expected` says so. */
function expectWinding(positions: Float64Array, dims: readonly number[], h: number, expected: (x: number, y: number, z: number) => boolean): void {
  const [nx, ny, nz] = dims;
  let wrong = 0;
  for (let z = -1; z <= nz; z++) for (let y = -1; y <= ny; y++) for (let x = -1; x <= nx; x++) {
    const w = windingNumber(positions, [(x + 0.5) * h, (y + 0.5) * h, (z + 0.5) * h]);
    if (Math.abs(w - (expected(x, y, z) ? 1 : 0)) > 1e-6) wrong++;
  }
  expect(wrong).toBe(0);
}

describe('STL of the whole solid phase', () => {
  it('is watertight and manifold where voxels touch only along an edge or at a corner, and encloses exactly the solid voxels', () => {
    // Two voxels touching along an edge, two at a corner, and two voids touching along an edge inside a block.
    const dims = [7, 4, 4] as const;
    const labels = new Uint32Array(7 * 4 * 4);
    const set = (x: number, y: number, z: number, l = 1) => { labels[x + 7 * (y + 4 * z)] = l; };
    set(0, 0, 0); set(1, 1, 0, 2); // edge contact (two particles)
    set(0, 0, 2); set(1, 1, 3); // corner contact
    for (let z = 0; z < 4; z++) for (let y = 0; y < 4; y++) for (let x = 3; x < 7; x++) set(x, y, z);
    labels[4 + 7 * (1 + 4 * 1)] = 0; labels[5 + 7 * (2 + 4 * 1)] = 0; // voids meeting along an edge, inside the block
    const h = 0.25;
    const mesh = parseStl(solidStl(labels, dims, h));
    const r = checkSurface(mesh.positions);
    expect(r).toMatchObject({ badEdges: 0, misoriented: 0, pinched: 0 });
    // The edge pair stays one body (joined by a thin neck), the corner pair comes apart, and the
    // block's two voids, which share only an edge, are two cavities: six spheres.
    expect(r.components).toBe(1 + 2 + 3);
    expect(r.euler).toBe(2 * 6);
    const solid = labels.reduce((s, l) => s + (l ? 1 : 0), 0);
    expect(r.volume / (solid * h ** 3)).toBeCloseTo(1, 2);
    expectWinding(mesh.positions, dims, h, (x, y, z) => x >= 0 && y >= 0 && z >= 0 && x < 7 && y < 4 && z < 4 && labels[x + 7 * (y + 4 * z)] !== 0);
  });

  it('is a closed manifold for each of the 256 configurations of the eight voxels around a vertex', () => {
    const bad: number[] = [];
    for (let c = 0; c < 256; c++) {
      const labels = new Uint32Array(64);
      for (let o = 0; o < 8; o++) if ((c >> o) & 1) labels[1 + (o & 1) + 4 * (1 + ((o >> 1) & 1) + 4 * (1 + (o >> 2)))] = 1;
      const r = checkSurface(parseStl(solidStl(labels, [4, 4, 4], 1)).positions);
      if (r.badEdges || r.misoriented || r.pinched || Math.abs(r.euler % 2) || r.euler > 2 * r.components) bad.push(c);
    }
    expect(bad).toEqual([]);
  });

  it('is a closed orientable manifold for random voxel sets (every kind of contact), enclosing exactly them', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const dims = [5, 4, 4] as const;
      const rnd = random(seed);
      const labels = Uint32Array.from({ length: 80 }, () => (rnd() < 0.5 ? 1 + Math.floor(rnd() * 3) : 0));
      const mesh = parseStl(solidStl(labels, dims, 1));
      const r = checkSurface(mesh.positions);
      expect(r, `seed ${seed}`).toMatchObject({ badEdges: 0, misoriented: 0, pinched: 0 });
      expect(Math.abs(r.euler % 2)).toBe(0);
      expect(r.euler).toBeLessThanOrEqual(2 * r.components);
      expectWinding(mesh.positions, dims, 1, (x, y, z) => x >= 0 && y >= 0 && z >= 0 && x < 5 && y < 4 && z < 4 && labels[x + 5 * (y + 4 * z)] !== 0);
    }
  });
});

/** Named ASCII solids of every label, built as the exporter does: cuts first, then the surfaces. */
function particleSolids(labels: Uint32Array, dims: readonly number[], h: number, count: number): Map<string, Float64Array> {
  const [nx, ny] = dims;
  const cuts = new ParticleCuts(count, nx, ny, [true, true]);
  cuts.add(labels);
  const surface = new ParticleSurface(cuts);
  const text = new Map<number, string>();
  for (const w of windows(labels, dims)) {
    for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
      const l = w.slice[x + nx * y];
      if (l) surface.voxel(w, x, y, (n, a, b, c) => text.set(l, (text.get(l) ?? '') + asciiFacet(n, a, b, c, h)));
    }
  }
  return asciiSolids([...text].map(([l, t]) => `solid particle_${l}\n${t}endsolid particle_${l}\n`).join(''));
}

describe('STL of each particle', () => {
  it('closes each particle on its own, shares no face with touching ones, and unwraps a periodic particle into one piece', () => {
    const dims = [6, 6, 3] as const;
    const labels = new Uint32Array(6 * 6 * 3);
    const set = (x: number, y: number, z: number, l: number) => { labels[x + 6 * (y + 6 * z)] = l; };
    // Particle 1: a 2x2x2 cube across the x and y periodic sides (voxels x in {5, 0}, y in {5, 0}).
    for (const x of [5, 0]) for (const y of [5, 0]) for (const z of [0, 1]) set(x, y, z, 1);
    // Particle 2 touches it face to face; particle 3 touches 2 only along an edge.
    for (const z of [0, 1]) set(1, 0, z, 2);
    set(2, 1, 0, 3);
    const h = 0.5;
    const solids = particleSolids(labels, dims, h, 3);
    expect([...solids.keys()].sort()).toEqual(['particle_1', 'particle_2', 'particle_3']);
    const counts = [0, 8, 2, 1];
    for (const [name, positions] of solids) {
      const l = Number(name.split('_')[1]);
      const r = checkSurface(positions);
      expect(r, name).toMatchObject({ badEdges: 0, misoriented: 0, pinched: 0, components: 1, euler: 2 });
      expect(r.volume).toBeCloseTo(counts[l] * h ** 3, 9);
    }
    // Particle 1 is one cube: its extent is two voxels along x and y, not the box.
    const p1 = solids.get('particle_1')!;
    const extent = (a: number) => { let lo = Infinity, hi = -Infinity; for (let i = a; i < p1.length; i += 3) { lo = Math.min(lo, p1[i]); hi = Math.max(hi, p1[i]); } return hi - lo; };
    expect([extent(0), extent(1), extent(2)]).toEqual([2 * h, 2 * h, 2 * h]);
  });

  it('gives every label of random periodic volumes a closed manifold surface enclosing exactly its voxels (in its unwrapped frame)', () => {
    for (const seed of [11, 12, 13, 14]) {
      const dims = [5, 4, 3] as const;
      const [nx, ny, nz] = dims;
      const rnd = random(seed);
      const labels = Uint32Array.from({ length: nx * ny * nz }, () => (rnd() < 0.7 ? 1 + Math.floor(rnd() * 3) : 0));
      const cuts = new ParticleCuts(3, nx, ny, [true, true]);
      cuts.add(labels);
      const solids = particleSolids(labels, dims, 1, 3);
      for (const [name, positions] of solids) {
        const l = Number(name.split('_')[1]);
        const r = checkSurface(positions);
        expect(r, `${name} seed ${seed}`).toMatchObject({ badEdges: 0, misoriented: 0, pinched: 0 });
        expect(Math.abs(r.euler % 2)).toBe(0);
        expect(r.euler).toBeLessThanOrEqual(2 * r.components);
        // In the unwrapped window [cut, cut + n) every box voxel appears once; nothing outside it.
        const cx = cuts.cut(l, 0), cy = cuts.cut(l, 1);
        let wrong = 0;
        for (let z = -1; z <= nz; z++) for (let v = cy - 1; v <= cy + ny; v++) for (let u = cx - 1; u <= cx + nx; u++) {
          const inWindow = u >= cx && u < cx + nx && v >= cy && v < cy + ny && z >= 0 && z < nz;
          const want = inWindow && labels[(u % nx) + nx * ((v % ny) + ny * z)] === l;
          if (Math.abs(windingNumber(positions, [u + 0.5, v + 0.5, z + 0.5]) - (want ? 1 : 0)) > 1e-6) wrong++;
        }
        expect(wrong, `${name} seed ${seed}`).toBe(0);
      }
    }
  });

  it("writes each sphere as a named, closed, outward icosphere that holds the sphere's volume", () => {
    for (const radius of [0.5, 3e-3, 250]) {
      const solids = asciiSolids(sphereSolid(4, 1, 2, 3, radius));
      const r = checkSurface(solids.get('particle_4')!);
      expect(r).toMatchObject({ triangles: 80, badEdges: 0, misoriented: 0, pinched: 0, components: 1, euler: 2 });
      // Volumes and porosities measured on the STL are the spheres' (up to the file's nine digits:
      // a small sphere far from the origin has fewer of them across it).
      expect(r.volume / ((4 / 3) * Math.PI * radius ** 3)).toBeCloseTo(1, 5);
    }
  });
});
