import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import { localThickness, poreGridPlan, poreSizeDistribution, squaredDistanceToSolid } from '../../../core/analysis/pores';

type P = [boolean, boolean, boolean];

describe('squared distance transform', () => {
  it('matches brute force on random volumes, open and periodic', () => {
    const rand = new Random(3);
    for (const periodic of [[false, false, false], [true, true, false], [true, false, true]] as P[]) {
      const dims: [number, number, number] = [9, 7, 8];
      const [nx, ny, nz] = dims;
      const solid = new Uint8Array(nx * ny * nz).map(() => (rand.next() < 0.08 ? 1 : 0));
      const d2 = squaredDistanceToSolid(solid, dims, periodic);
      const delta = (a: number, b: number, n: number, wrap: boolean) => {
        const d = Math.abs(a - b);
        return wrap ? Math.min(d, n - d) : d;
      };
      for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
        let best = Infinity;
        for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
          if (!solid[i + nx * (j + ny * k)]) continue;
          const d = delta(x, i, nx, periodic[0]) ** 2 + delta(y, j, ny, periodic[1]) ** 2 + delta(z, k, nz, periodic[2]) ** 2;
          if (d < best) best = d;
        }
        expect(d2[x + nx * (y + ny * z)]).toBe(best);
      }
    }
  });
});

describe('local thickness', () => {
  it('is the slit width between two walls (odd widths exact)', () => {
    for (const width of [1, 3, 5, 7]) {
      const dims: [number, number, number] = [6, 6, width + 2];
      const solid = new Uint8Array(36 * (width + 2));
      solid.fill(1, 0, 36);
      solid.fill(1, 36 * (width + 1));
      const lt = localThickness(squaredDistanceToSolid(solid, dims, [true, true, false]), dims, [true, true, false]);
      for (let i = 36; i < 36 * (width + 1); i++) expect(lt[i]).toBe(width);
    }
  });

  it('is the cavity diameter in a spherical pore, within one voxel', () => {
    const R = 6, n = 2 * R + 5, c = (n - 1) / 2;
    const dims: [number, number, number] = [n, n, n];
    const solid = new Uint8Array(n ** 3);
    for (let z = 0; z < n; z++) for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
      solid[x + n * (y + n * z)] = (x - c) ** 2 + (y - c) ** 2 + (z - c) ** 2 <= R * R ? 0 : 1;
    }
    const lt = localThickness(squaredDistanceToSolid(solid, dims, [false, false, false]), dims, [false, false, false]);
    for (let i = 0; i < lt.length; i++) {
      if (solid[i]) expect(lt[i]).toBe(0);
      else expect(Math.abs(lt[i] - 2 * R)).toBeLessThanOrEqual(1);
    }
  });

  it('keeps the larger pore where a narrow throat meets a wide one', () => {
    // A 9-wide channel along x, then a 3-wide one; voxels in the wide part read 9, in the narrow 3.
    const nx = 30, ny = 11, nz = 11;
    const dims: [number, number, number] = [nx, ny, nz];
    const solid = new Uint8Array(nx * ny * nz).fill(1);
    for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
      const half = x < 15 ? 4 : 1;
      if (Math.abs(y - 5) <= half && Math.abs(z - 5) <= half) solid[x + nx * (y + ny * z)] = 0;
    }
    const lt = localThickness(squaredDistanceToSolid(solid, dims, [true, false, false]), dims, [true, false, false]);
    expect(lt[7 + nx * (5 + ny * 5)]).toBeCloseTo(9, 0);
    expect(lt[22 + nx * (5 + ny * 5)]).toBe(3);
  });
});

describe('local thickness against brute force', () => {
  it('equals the largest covering ball over all void centres (no ridge shortcut)', () => {
    const rand = new Random(9);
    for (const periodic of [[false, false, false], [true, true, false]] as P[]) {
      const dims: [number, number, number] = [12, 11, 10];
      const [nx, ny, nz] = dims;
      const solid = new Uint8Array(nx * ny * nz).map(() => (rand.next() < 0.12 ? 1 : 0));
      const d2 = squaredDistanceToSolid(solid, dims, periodic);
      const lt = localThickness(d2, dims, periodic);
      const delta = (a: number, b: number, n: number, wrap: boolean) => { const d = Math.abs(a - b); return wrap ? Math.min(d, n - d) : d; };
      for (let p = 0; p < solid.length; p++) {
        if (solid[p]) continue;
        const px = p % nx, py = Math.floor(p / nx) % ny, pz = Math.floor(p / (nx * ny));
        let best = 0;
        for (let c = 0; c < solid.length; c++) {
          const D = d2[c];
          if (solid[c] || D >= 1e20) continue;
          const cx = c % nx, cy = Math.floor(c / nx) % ny, cz = Math.floor(c / (nx * ny));
          const dist2 = delta(px, cx, nx, periodic[0]) ** 2 + delta(py, cy, ny, periodic[1]) ** 2 + delta(pz, cz, nz, periodic[2]) ** 2;
          if (dist2 < D) best = Math.max(best, 2 * Math.sqrt(D) - 1);
        }
        expect(lt[p]).toBeCloseTo(best, 5);
      }
    }
  });
});

describe('poreGridPlan', () => {
  it('keeps the whole bed when it fits, else a centred full-resolution window, else a stride', () => {
    expect(poreGridPlan(100, 100, 50, 1e6, 40, 10)).toEqual({ stride: 1, x0: 0, y0: 0, wx: 100, wy: 100, wholeX: true, wholeY: true, margin: 0 });
    // 1000 x 1000 x 99 (+ floor) cells in a budget of 4e6: a 200 x 200 window, margins of 10 cells.
    expect(poreGridPlan(1000, 1000, 99, 4e6, 40, 10)).toEqual({ stride: 1, x0: 400, y0: 400, wx: 200, wy: 200, wholeX: false, wholeY: false, margin: 10 });
    // A 300-cell window does not fit at full resolution: the grid is strided until it does.
    const p = poreGridPlan(1000, 1000, 99, 4e6, 300, 10);
    expect(p.stride).toBeGreaterThan(1);
    expect(p.wx * p.stride).toBeGreaterThanOrEqual(300);
    expect(p.wx * p.wy * (Math.floor(99 / p.stride) + 1)).toBeLessThanOrEqual(4e6);
  });
});

describe('poreSizeDistribution', () => {
  it('reads the median diameter off the pore volume between its neighbouring sizes, as d50 is read (percentFiner)', () => {
    // Two slits across a 4 x 4 cell periodic in x and y: one void layer (thickness 1, 16 voxels) and
    // three (thickness 3, 48 voxels), between solid layers. By pore volume 25 % is finer than or at 1
    // and 100 % at 3, so 50 % lies 1 + (50 - 25) / (100 - 25) * (3 - 1) = 5/3 voxels; cells of 0.5:
    // 5/6. The middle voxel's value (the 33rd of 64 sorted) read 3 voxels, 1.5.
    const layers = [1, 0, 1, 0, 0, 0, 1];
    const dims: [number, number, number] = [4, 4, layers.length];
    const solid = new Uint8Array(16 * layers.length);
    layers.forEach((s, z) => solid.fill(s, 16 * z, 16 * (z + 1)));
    const pores = poreSizeDistribution(solid, dims, [true, true, false], [0, 0, 0], dims, 0.5, 10)!;
    expect(pores.mean).toBeCloseTo((16 * 1 + 48 * 3) * 0.5 / 64, 12);
    expect(pores.max).toBe(1.5);
    expect(pores.median).toBeCloseTo(5 / 6, 12);
  });
});
