import { describe, expect, it } from 'vitest';
import { sphereSurfaceInBox } from '../../../core/analysis/boxcut';

const sides = (s: number[]) => Float64Array.from(s);

/**
 * The same fraction by quadrature, independent of the closed form: the unit sphere in (w, φ), where
 * dA = dφ dw (Archimedes), on an m x m midpoint grid, each point in or out of the box: within about
 * 1/m (a grid row or column a side crosses counts whole or not at all).
 */
function byQuadrature(s: number[], d: number, m: number): number {
  let inside = 0;
  for (let i = 0; i < m; i++) {
    const w = -1 + (2 * (i + 0.5)) / m, rho = Math.sqrt(1 - w * w);
    for (let j = 0; j < m; j++) {
      const phi = (2 * Math.PI * (j + 0.5)) / m;
      const p = [d * rho * Math.cos(phi), d * rho * Math.sin(phi), d * w];
      if (p.every((v, a) => v >= -s[2 * a] && v <= s[2 * a + 1])) inside++;
    }
  }
  return inside / (m * m);
}

describe('sphereSurfaceInBox', () => {
  it('gives the fractions worked by hand: whole, a face, an edge, a corner, one side, a slab, none', () => {
    expect(sphereSurfaceInBox(sides([5, 5, 5, 5, 5, 5]), 1)).toBe(1);
    expect(sphereSurfaceInBox(sides([0, 5, 5, 5, 5, 5]), 1)).toBeCloseTo(1 / 2, 14);
    expect(sphereSurfaceInBox(sides([5, 0, 0, 5, 5, 5]), 2)).toBeCloseTo(1 / 4, 14);
    expect(sphereSurfaceInBox(sides([0, 5, 5, 0, 0, 5]), 3)).toBeCloseTo(1 / 8, 14);
    // One side at distance t·d: a cap of 2π(1 − t) d² of the 4π d² lies beyond it, so (1 + t) / 2 inside.
    expect(sphereSurfaceInBox(sides([0.3, Infinity, Infinity, Infinity, Infinity, Infinity]), 1)).toBeCloseTo(0.65, 14);
    // A slab (x and y periodic) thinner than the sphere: the band between its sides, (t₁ + t₂) / 2.
    expect(sphereSurfaceInBox(sides([Infinity, Infinity, Infinity, Infinity, 0.2, 0.5]), 1)).toBeCloseTo(0.35, 14);
    // A box inside the sphere: none of the surface.
    expect(sphereSurfaceInBox(sides([0.5, 0.6, 0.55, 0.45, 0.5, 0.52]), 1.3)).toBeCloseTo(0, 14);
  });

  it('agrees with a quadrature over the sphere where sides of two and three axes cut it', () => {
    const I = Infinity;
    const cases: [number[], number][] = [
      [[0.1, 2, 0.15, 2, 0.05, 2], 1], // near one corner: three sides, their three edges, the corner
      [[0.3, 0.9, 0.2, 0.7, 0.4, 0.5], 1], // all six sides, edges and corners
      [[0.5, 0.5, 0.5, 0.5, 0.5, 0.5], 0.8], // all six sides and their twelve edges, no corner
      [[I, I, 0.2, 0.3, 0.1, 0.6], 0.8], // x periodic: edges of y and z only
      [[0.6, 0.2, I, I, 0.3, 0.9], 0.7],
    ];
    for (const [s, d] of cases) {
      expect(Math.abs(sphereSurfaceInBox(sides(s), d) - byQuadrature(s, d, 2000)), `sides ${s}, d ${d}`).toBeLessThan(3e-4);
    }
  });
});
