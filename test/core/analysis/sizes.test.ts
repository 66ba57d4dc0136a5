import { describe, expect, it } from 'vitest';
import { sizeDistributions } from '../../../core/analysis/sizes';
import { Random } from '../../../core/common/random';

const ball = (d: number) => (Math.PI / 6) * d * d * d;

/** d10, d50 and d90 of spheres of diameters `d`, as sizeDistributions reports them. */
function percentiles(d: number[]): number[] {
  const m = sizeDistributions(Float64Array.from(d), Float64Array.from(d, ball), 10).metrics;
  return [m.d10, m.d50, m.d90];
}

/**
 * Sieve analysis written out independently: the volume held at each distinct size, the percent
 * finer than or at each, and p read linearly between the two sizes whose percents bracket it (the
 * finest size below its own percent).
 */
function sieve(d: number[], p: number): number {
  const held = new Map<number, number>();
  for (const x of d) held.set(x, (held.get(x) ?? 0) + ball(x));
  const sizes = [...held.keys()].sort((a, b) => a - b);
  const total = sizes.reduce((s, x) => s + held.get(x)!, 0);
  let below = 0, prev = sizes[0], prevPercent = 0;
  for (const x of sizes) {
    below += held.get(x)!;
    const percent = (100 * below) / total;
    if (percent >= p) return prevPercent === 0 ? x : prev + ((p - prevPercent) / (percent - prevPercent)) * (x - prev);
    prev = x;
    prevPercent = percent;
  }
  return sizes[sizes.length - 1];
}

describe('d10, d50, d90 (sizeDistributions)', () => {
  it('reads them between neighbouring sizes, linear in the percent finer by volume, as sieve analysis does (hand-computed)', () => {
    // Diameters 1 and 2: 1/9 and 8/9 of the volume. 10 % is within the finest size's 11.1 %: 1;
    // 50 %: 1 + (50 - 100/9) / (800/9) = 1 + 350/800; 90 %: 1 + 710/800. Before: 1, 2, 2.
    const two = percentiles([1, 2]);
    expect(two[0]).toBe(1);
    expect(two[1]).toBeCloseTo(1.4375, 12);
    expect(two[2]).toBeCloseTo(1.8875, 12);
    // A gradation of two classes, one sphere of 1 and two of 2 (1/17 and 16/17): every sphere of a
    // size counts at that size, so 50 % lies 1 + (50 - 100/17) / (1600/17) = 1 + 750/1600 along.
    expect(percentiles([2, 1, 2])[1]).toBeCloseTo(1.46875, 12);
    // The gradation drawn is the curve they are read off: one point per size (a line through
    // (1, 100/17 %) and a first sphere of 2 at 52.9 % put 50 % at 1.94 there).
    const gradation = sizeDistributions(Float64Array.of(2, 1, 2), Float64Array.from([2, 1, 2], ball), 10).series[2];
    expect(Array.from(gradation.x)).toEqual([1, 2]);
    expect(gradation.y[0]).toBeCloseTo(100 / 17, 12);
    expect(gradation.y[1]).toBeCloseTo(100, 12);
    // One size: all three are that size.
    expect(percentiles([3, 3, 3])).toEqual([3, 3, 3]);
  });

  it('agrees with sieve analysis written out independently on random gradations of a few classes', () => {
    const rng = new Random(7);
    for (let trial = 0; trial < 50; trial++) {
      const classes = Array.from({ length: 1 + rng.int(5) }, () => 0.5 + 4 * rng.next());
      const d = Array.from({ length: 1 + rng.int(40) }, () => classes[rng.int(classes.length)]);
      const got = percentiles(d);
      [10, 50, 90].forEach((p, k) => expect(got[k], `trial ${trial}, d${p} of ${d.join(', ')}`).toBeCloseTo(sieve(d, p), 10));
    }
  });
});
