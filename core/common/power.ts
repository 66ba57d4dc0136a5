/**
 * x^y, the same bits on every host. `**` and Math.pow are not: V8 changed how it computes them
 * between V8 11.3 (Node 20) and V8 13.6/14.x (Node 24/25, Electron 39), so the same spec and seed
 * gave another result in the app than in the CLI (core/README.md, "The same result on every host").
 * Math.exp and Math.log agree on those V8s (V8's own port of fdlibm, not the platform's libm), and so
 * does IEEE arithmetic, so exp(y·ln x) does too.
 *
 * Its error against Math.pow grows with |y·ln x|, within 2·|y·ln x| + 2 ulp (test/core/common/power.test.ts;
 * measured at most 14 ulp for the ball mill's (α²·v)^(1/5), 60 for superquadric terms |x|^(2/ε) at
 * ε = 0.1 far inside the surface: relative errors of 1.4e-14 at most). Reducing x to m·2^e first (so that
 * exp's argument stays small) was within 10 ulp, but 3 times slower where the ball mill calls it
 * per impact.
 * Integer and constant powers do not need it: write x * x, x * x * x, powInt (an exponent known
 * only at run time: dim, a level), root (the dim-th root), an exact literal (1e-3, 1 << 30) or POW10.
 */

/** x^y for x ≥ 0 (NaN for x < 0, as Math.pow gives for a non-integer y; 0^y is 0, 1 or Infinity). */
export function pow(x: number, y: number): number {
  if (y === 0) return 1;
  if (x > 0) return Math.exp(y * Math.log(x));
  return x === 0 ? (y > 0 ? 0 : Infinity) : NaN;
}

/**
 * x^n for an integer n as n products, left to right (x * x * x for 3), and 1 / x^-n for n < 0: exact
 * where the products are (2^k, 10^k up to 10^22 and its reciprocal correctly rounded, small integers).
 */
export function powInt(x: number, n: number): number {
  if (!Number.isInteger(n)) throw new RangeError(`powInt: the exponent must be an integer, got ${n}`);
  let p = 1;
  for (let i = n < 0 ? -n : n; i > 0; i--) p *= x;
  return n < 0 ? 1 / p : p;
}

/** The n-th root of x ≥ 0 for n = 1, 2, 3 (a length from an area or volume of dim 1-3): Math.sqrt, Math.cbrt. */
export function root(x: number, n: number): number {
  if (n === 2) return Math.sqrt(x);
  if (n === 3) return Math.cbrt(x);
  if (n === 1) return x;
  throw new RangeError(`root: n must be 1, 2 or 3, got ${n}`);
}

/** 10^k exact (as a literal) for k = 0 … 22, the powers of ten a double holds exactly. */
export const POW10: Float64Array = Float64Array.of(
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
);
