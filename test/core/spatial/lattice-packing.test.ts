import { describe, expect, it } from 'vitest';
import { LATTICE_MAX_FRACTION, latticePacking, type LatticePacking } from '../../../core/spatial/lattice-packing';

/** Smallest centre distance / (r_i + r_j), with the nearest image when the box is periodic. */
function minGapRatio(p: LatticePacking): number {
  const n = p.r.length;
  const w = (d: number, L: number) => (p.periodic && L > 0 ? d - L * Math.round(d / L) : d);
  let worst = Infinity;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = Math.hypot(w(p.x[i] - p.x[j], p.size[0]), w(p.y[i] - p.y[j], p.size[1]), w(p.z[i] - p.z[j], p.size[2]));
      worst = Math.min(worst, d / (p.r[i] + p.r[j]));
    }
  }
  return worst;
}

describe('latticePacking', () => {
  for (const [dim, n, phi, periodic] of [[3, 640, 0.7, true], [3, 100, 0.74, false], [3, 250, 0.5, false], [2, 400, 0.7, true], [2, 100, 0.9, false], [2, 45, 0.6, false]] as const) {
    it(`${dim}D ${n} balls at ${phi}${periodic ? ', periodic' : ''}: exact count and fraction, no overlap, inside the box`, () => {
      const p = latticePacking({ dim, n, solidFraction: phi, seed: 3, periodic });
      if (periodic) expect(p.periodic).toBe(true);
      expect(p.counts[0] * p.counts[1] * p.counts[2]).toBe(n);
      expect(p.r.length).toBe(n);
      expect(p.solidFraction).toBeCloseTo(phi, 12);
      const ball = dim === 3 ? (4 / 3) * Math.PI : Math.PI;
      const volume = dim === 3 ? p.size[0] * p.size[1] * p.size[2] : p.size[0] * p.size[1];
      expect((n * ball) / volume).toBeCloseTo(phi, 12);
      expect(minGapRatio(p)).toBeGreaterThanOrEqual(1);
      for (let i = 0; i < n; i++) {
        for (let a = 0; a < dim; a++) {
          const v = [p.x, p.y, p.z][a][i];
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThan(p.size[a]);
        }
        if (dim === 2) expect(p.z[i]).toBe(0);
      }
    });
  }

  it('chooses the most cubic layout, periodic when asked', () => {
    const open = latticePacking({ dim: 3, n: 10_000, solidFraction: 0.7, seed: 1 });
    expect(open.counts).toEqual([20, 20, 25]);
    expect(Math.max(...open.size) / Math.min(...open.size)).toBeLessThan(1.2);
    expect(latticePacking({ dim: 3, n: 100, solidFraction: 0.7, seed: 1 }).counts).toEqual([4, 5, 5]);
    const p = latticePacking({ dim: 3, n: 10_000, solidFraction: 0.7, seed: 1, periodic: true });
    // 10,000 = 25 x 20 x 20 is the most cubic split with even rows and layers (20 x 20 x 25 would
    // be more cubic but has an odd layer count, so it would not tile).
    expect(p.counts).toEqual([25, 20, 20]);
    expect(p.periodic).toBe(true);
    expect(Math.max(...p.size) / Math.min(...p.size)).toBeLessThan(1.6);
    const q = latticePacking({ dim: 2, n: 10_000, solidFraction: 0.7, seed: 1, periodic: true });
    expect(q.counts).toEqual([100, 100, 1]);
    expect(q.periodic).toBe(true);
  });

  it('jitters the balls (not a perfect lattice) deterministically per seed', () => {
    const a = latticePacking({ dim: 3, n: 640, solidFraction: 0.6, seed: 1 });
    const b = latticePacking({ dim: 3, n: 640, solidFraction: 0.6, seed: 1 });
    const c = latticePacking({ dim: 3, n: 640, solidFraction: 0.6, seed: 2 });
    expect(Array.from(a.x)).toEqual(Array.from(b.x));
    expect(Array.from(a.x)).not.toEqual(Array.from(c.x));
  });

  it('rejects fractions above the close-packed density and bad counts', () => {
    expect(LATTICE_MAX_FRACTION[3]).toBeCloseTo(0.7405, 4);
    expect(LATTICE_MAX_FRACTION[2]).toBeCloseTo(0.9069, 4);
    expect(() => latticePacking({ dim: 3, n: 100, solidFraction: 0.75, seed: 1 })).toThrow('solidFraction must be in (0, 0.7405] for a 3D lattice, got 0.75');
    expect(() => latticePacking({ dim: 2, n: 100, solidFraction: 0, seed: 1 })).toThrow('solidFraction must be in (0, 0.9069] for a 2D lattice, got 0');
    expect(() => latticePacking({ dim: 3, n: 102, solidFraction: 0.5, seed: 1, periodic: true })).toThrow('n must be a multiple of 4 for a periodic 3D lattice (even rows and layers), got 102');
    expect(() => latticePacking({ dim: 3, n: 2.5, solidFraction: 0.5, seed: 1 })).toThrow('n must be an integer in [1, 2^26), got 2.5');
  });
});
