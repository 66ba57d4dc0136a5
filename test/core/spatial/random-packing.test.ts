import { describe, expect, it } from 'vitest';
import { randomPacking } from '../../../core/spatial/random-packing';

function minGapRatio(p: ReturnType<typeof randomPacking>): number {
  const n = p.r.length, L = p.box;
  const w = (d: number) => d - L * Math.round(d / L);
  let worst = Infinity;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = Math.hypot(w(p.x[i] - p.x[j]), w(p.y[i] - p.y[j]), w(p.z[i] - p.z[j]));
      worst = Math.min(worst, d / (p.r[i] + p.r[j]));
    }
  }
  return worst;
}

function fraction(p: ReturnType<typeof randomPacking>): number {
  let v = 0;
  for (const r of p.r) v += p.dim === 3 ? (4 / 3) * Math.PI * r ** 3 : Math.PI * r * r;
  return v / p.box ** p.dim;
}

describe('randomPacking', () => {
  for (const [dim, ratio, phi] of [[2, 1, 0.6], [2, 10, 0.4], [3, 1, 0.4], [3, 10, 0.3]] as const) {
    it(`${dim}D radius ratio ${ratio} at ${phi}: no overlap (periodic), reported fraction is the real one`, () => {
      const p = randomPacking({ dim, n: 300, solidFraction: phi, radiusRatio: ratio, seed: 4 });
      expect(minGapRatio(p)).toBeGreaterThanOrEqual(1);
      expect(p.solidFraction).toBeCloseTo(fraction(p), 10);
      expect(p.solidFraction).toBeGreaterThan(phi * 0.9);
      expect(p.solidFraction).toBeLessThanOrEqual(phi + 1e-12);
      for (let i = 0; i < p.r.length; i++) {
        for (const v of dim === 3 ? [p.x[i], p.y[i], p.z[i]] : [p.x[i], p.y[i]]) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThan(p.box);
        }
      }
    });
  }

  it('is deterministic for a seed', () => {
    const a = randomPacking({ dim: 2, n: 100, solidFraction: 0.5, radiusRatio: 1, seed: 1 });
    const b = randomPacking({ dim: 2, n: 100, solidFraction: 0.5, radiusRatio: 1, seed: 1 });
    expect(Array.from(a.x)).toEqual(Array.from(b.x));
    expect(Array.from(a.r)).toEqual(Array.from(b.r));
  });

  it('rejects bad options', () => {
    expect(() => randomPacking({ dim: 3, n: 100, solidFraction: 0.95, radiusRatio: 1, seed: 1 })).toThrow('solidFraction must be in (0, 0.9], got 0.95');
    expect(() => randomPacking({ dim: 3, n: 1, solidFraction: 0.5, radiusRatio: 1, seed: 1 })).toThrow('n must be an integer in [2, 2^26), got 1');
    expect(() => randomPacking({ dim: 3, n: 10, solidFraction: 0.5, radiusRatio: 0.5, seed: 1 })).toThrow('radiusRatio must be >= 1, got 0.5');
  });
});
