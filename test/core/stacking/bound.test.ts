import { describe, expect, it } from 'vitest';
import { ballVolume, ballVolumeVariance, classBallBound, meanBallVolume } from '../../../core/stacking/params';
import type { SizeClass } from '../../../core/stacking/gradation';
import { Random } from '../../../core/common/random';

const sizeClass = (rMin: number, rMax: number): SizeClass => ({ rMin, rMax, fraction: 1, af1: 0, af2: 0.3, source: 0 });

/**
 * The balls a class takes to fill `volume`, as the stacker draws them (independent of it): uniform
 * radii while more than four of its largest balls are left, then the fewest balls of its range
 * that make the rest (Stacker.radiusToQuota).
 */
function ballsToFill(c: SizeClass, volume: number, dim: 2 | 3, rng: Random): number {
  const vMax = ballVolume(c.rMax, dim);
  let rest = volume, n = 0;
  while (rest > 4 * vMax) {
    rest -= ballVolume(c.rMin + (c.rMax - c.rMin) * rng.next(), dim);
    n++;
  }
  return n + Math.max(0, Math.ceil(rest / vMax - 1e-12));
}

describe('classBallBound: the balls a class of uniform radii may place', () => {
  it('the variance of a ball volume agrees with a quadrature over the radius, narrow classes included', () => {
    const quadrature = (c: SizeClass, dim: 2 | 3) => {
      // Midpoint rule over r, in deviations from the mean (no cancellation in the check itself).
      const k = 200_000, mean = meanBallVolume(c, dim);
      let s = 0;
      for (let i = 0; i < k; i++) {
        const d = ballVolume(c.rMin + ((c.rMax - c.rMin) * (i + 0.5)) / k, dim) - mean;
        s += d * d;
      }
      return s / k;
    };
    for (const dim of [2, 3] as const) {
      for (const [a, b] of [[0.1, 0.2], [0.1, 1], [0.0995, 0.1005], [0.029, 0.03]]) {
        const c = sizeClass(a, b);
        expect(ballVolumeVariance(c, dim) / quadrature(c, dim)).toBeCloseTo(1, 6);
      }
      expect(ballVolumeVariance(sizeClass(0.1, 0.1), dim)).toBe(0);
    }
  });

  it('holds: in 2·10⁴ fills by brute force of 40 random classes the count passes the bound at most as often as its chance', () => {
    // Random classes 1:1.01 to 1:10 in radius (and of one radius), 20 to 2000 balls, 2D and 3D, at
    // chances 0.1 and 0.01 (1e-12, the one plan() uses, no brute force can see). Each case's
    // exceedance rate is at most its chance.
    const rng = new Random(11), fill = new Random(12);
    let cases = 0;
    while (cases < 40) {
      const dim = rng.next() < 0.5 ? 2 : 3, ratio = cases % 8 === 7 ? 1 : 1.01 + 9 * rng.next() * rng.next();
      const c = sizeClass(0.1, 0.1 * ratio), mean = meanBallVolume(c, dim);
      const volume = mean * (20 + 1980 * rng.next() * rng.next());
      const chance = cases % 2 === 0 ? 0.1 : 0.01;
      const bound = classBallBound(c, volume, dim, chance);
      const trials = 500;
      let over = 0;
      for (let t = 0; t < trials; t++) if (ballsToFill(c, volume, dim, fill) > bound) over++;
      expect(over / trials, `dim ${dim}, radii 0.1-${c.rMax}, ${(volume / mean).toFixed(0)} balls on average, chance ${chance}: bound ${bound}`).toBeLessThanOrEqual(chance);
      cases++;
    }
  });

  it('at the chance plan() uses, no fill of 10⁴ passes it, and a few hundred balls of a 1:2 class are bounded within 1.3 times their mean count (Hoeffding alone: 1.47 in 3D, 1.31 in 2D)', () => {
    const fill = new Random(3);
    for (const dim of [2, 3] as const) {
      const c = sizeClass(0.1, 0.2), volume = 300 * meanBallVolume(c, dim);
      const bound = classBallBound(c, volume, dim);
      let most = 0;
      for (let t = 0; t < 10_000; t++) most = Math.max(most, ballsToFill(c, volume, dim, fill));
      expect(most).toBeLessThanOrEqual(bound);
      expect(bound / 300).toBeLessThan(dim === 3 ? 1.3 : 1.2);
    }
  });
});
