import { describe, expect, it } from 'vitest';
import { pow, powInt, POW10, root } from '../../../core/common/power';
import { Random } from '../../../core/common/random';

const bits = new BigInt64Array(2);
const doubles = new Float64Array(bits.buffer);
/** Distance in units in the last place between two positive finite doubles. */
function ulps(a: number, b: number): number {
  doubles[0] = a; doubles[1] = b;
  const d = bits[0] - bits[1];
  return Number(d < 0n ? -d : d);
}

/**
 * The draws (x log-uniform in [lo, hi], y from a uniform u) where pow is further from Math.pow than
 * 2·|y·ln x| + 2 ulp (exp's argument y·ln x carries its rounding and ln x's times y, each up to an ulp of it; exp and Math.pow round once each).
 */
function outliers(lo: number, hi: number, ys: (u: number) => number, n = 20_000): string[] {
  const random = new Random(7);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = lo * Math.exp(Math.log(hi / lo) * random.next()), y = ys(random.next());
    const error = ulps(pow(x, y), Math.pow(x, y));
    if (error > 2 * Math.abs(y * Math.log(x)) + 2) out.push(`${x} ^ ${y}: ${error} ulp`);
  }
  return out;
}

describe('pow (x^y the same on every host)', () => {
  // The ranges the engines use: the ball mill's Hertz restitution (α²·v)^(1/5) (α² ~ 1e20-1e30,
  // v in m/s), superquadric terms |x/a|^(2/ε) and their derivatives, the surface sampler's spacing
  // gain near a ratio of 1, and a wider sweep.
  it.each([
    ['(α²·v)^(1/5) of impacts', 1e10, 1e30, () => 0.2],
    ['superquadric terms |x/a|^(2/ε), ε in [0.1, 2]', 0.05, 1.5, (u: number) => 2 / (0.1 + 1.9 * u)],
    ['near 1, any exponent in [-4, 4]', 0.5, 2, (u: number) => 8 * u - 4],
    ['x in [1e-3, 1e3], y in [-3, 3]', 1e-3, 1e3, (u: number) => 6 * u - 3],
  ] as const)('%s: within 2·|y·ln x| + 2 ulp of Math.pow', (_, lo, hi, ys) => {
    expect(outliers(lo, hi, ys)).toEqual([]);
  });

  it('is exact where Math.pow is defined to be: 0^y, x^0, 1^y; NaN below 0', () => {
    expect([pow(0, 2), pow(0, 0), pow(0, -1), pow(5, 0), pow(NaN, 0), pow(1, 7.3), pow(-2, 0.5), pow(NaN, 1)]).toEqual([0, 1, Infinity, 1, 1, 1, NaN, NaN]);
    expect([pow(Infinity, 0.5), pow(Infinity, -0.5)]).toEqual([Infinity, 0]);
  });

  it('powInt is the product left to right, exact for powers of two and ten; root is sqrt or cbrt', () => {
    const x = 1.1;
    expect([powInt(x, 0), powInt(x, 1), powInt(x, 2), powInt(x, 3), powInt(x, -2)]).toEqual([1, x, x * x, x * x * x, 1 / (x * x)]);
    expect([powInt(2, 30), powInt(2, -40), powInt(10, 22), powInt(10, -3)]).toEqual([1073741824, 2 ** -40, 1e22, 1e-3]);
    expect(() => powInt(2, 0.5)).toThrow(/exponent must be an integer, got 0.5/);
    expect([root(9, 2), root(27, 3), root(5, 1)]).toEqual([3, 3, 5]);
    expect(() => root(8, 4)).toThrow(/n must be 1, 2 or 3, got 4/);
  });

  it('POW10 holds the exact powers of ten', () => {
    expect(POW10.length).toBe(23);
    POW10.forEach((p, k) => expect(BigInt(p)).toBe(10n ** BigInt(k)));
  });
});
