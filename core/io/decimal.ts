/**
 * Numbers as text in the text exports (CSV, LAMMPS dump), written as bytes into a reused buffer
 * (TextBytes): every value in the shortest decimal that reads back to the same value of its column's
 * type. A float64 is what String gives; a float32 (a tilt angle, a trajectory position) would get the
 * digits of its double widening from String (80.74466 as 80.74465942382812): longer files and a
 * precision the data never had.
 *
 * Bytes, not strings: a 5·10⁷-row trajectory export spent most of its time making a string per
 * number (String of the decimal), joining them into lines and chunks and encoding those to UTF-8,
 * and collecting the garbage; the digits are now written where they go.
 */
import { POW10 } from '../common/power';

/** Export text as bytes (UTF-8; numbers and the formats' words are ASCII), in a buffer that grows and is reused after clear(). */
export class TextBytes {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity = 1 << 16) {
    this.bytes = new Uint8Array(capacity);
  }

  /** The bytes written since the last clear (a view: valid until the next write). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
  }

  /** The bytes written, as a string (small texts: a head, a test's expectation). */
  toString(): string {
    return new TextDecoder().decode(this.view());
  }

  /** Makes room for n more bytes. */
  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let capacity = this.bytes.length * 2;
    while (capacity < this.length + n) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.view());
    this.bytes = grown;
  }

  byte(c: number): void {
    this.room(1);
    this.bytes[this.length++] = c;
  }

  /** A string, as UTF-8. */
  text(s: string): void {
    this.room(3 * s.length);
    const b = this.bytes;
    let at = this.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 128) {
        this.length = at + new TextEncoder().encodeInto(s.slice(i), b.subarray(at)).written;
        return;
      }
      b[at++] = c;
    }
    this.length = at;
  }

  /** A whole number |v| < 2^53, as String writes it (-0 as 0). */
  integer(v: number): void {
    this.room(17);
    const b = this.bytes;
    let at = this.length;
    if (v < 0) { b[at++] = 45; v = -v; }
    let digits = 1;
    for (let t = 10; t <= v; t *= 10) digits++;
    at += digits;
    this.length = at;
    if (v <= 0x7fffffff) {
      for (let i = at - 1; i >= at - digits; i--) { const q = (v / 10) | 0; b[i] = 48 + v - 10 * q; v = q; }
    } else {
      for (let i = at - 1; i >= at - digits; i--) { const q = Math.floor(v / 10); b[i] = 48 + v - 10 * q; v = q; }
    }
  }

  /** A float64 (or any number), as String writes it. */
  number(v: number): void {
    if (Number.isSafeInteger(v)) this.integer(v);
    else this.text(String(v));
  }

  /**
   * A float32 value v in the shortest decimal that Math.fround reads back to v. The nearest decimal
   * of p + 1 significant digits is at least as near as that of p digits, so reading back holds for
   * every p from the smallest on: a binary search over 1..9 (9 digits always read back). The
   * decimals are made by arithmetic (round(v·10^k), exact powers of ten), and their digits written
   * as String writes the double nearest the decimal (which has the decimal's digits: two decimals of
   * at most 15 digits never share a double): toPrecision made the export of float32 columns four
   * times slower, String of each decimal twice.
   */
  float32(v: number): void {
    // Whole numbers up to 2^24 (counts, whole degrees) are exact and short already; NaN and ±Infinity as String.
    if (Number.isInteger(v) && Math.abs(v) <= 16777216) return this.integer(v);
    if (!Number.isFinite(v)) return this.text(String(v));
    // The magnitude, so that ties round away from zero on both sides, as toPrecision does.
    const a = Math.abs(v);
    // Off by one only within a few doubles of a power of ten, where no float32 but a whole number (above) lies.
    const e = Math.floor(Math.log10(a));
    // k = p - 1 - e lies in [-e, 8 - e]: beyond 10^±22 (float32s below 1e-14 or above 1e22) by toPrecision.
    if (e < -14 || e > 22) return this.text(float32TextByPrecision(v));
    let lo = 1, hi = 9;
    while (lo < hi) {
      const p = (lo + hi) >> 1;
      if (Math.fround(nearestDecimal(a, p - 1 - e)) === a) hi = p;
      else lo = p + 1;
    }
    // The decimal m·10^-k: m its digits, at most 10 of them (rounding up to 10^p), trailing zeros dropped.
    let k = lo - 1 - e;
    let m = k >= 0 ? Math.round(a * POW10[k]) : Math.round(a / POW10[-k]);
    while (m > 0 && m % 10 === 0) { m /= 10; k--; }
    this.decimal(v < 0, m, k);
  }

  /**
   * m·10^-k (m < 2^31 without trailing zeros) as String writes a number (ECMA-262 Number::toString):
   * with n = where the point goes after m's first digit, plain for 10^-7 < |value| < 10^21, else
   * in exponent form (1e-7, 1.5e+22).
   */
  private decimal(negative: boolean, m: number, k: number): void {
    this.room(32);
    const b = this.bytes;
    let at = this.length;
    if (negative) b[at++] = 45;
    let digits = 1;
    for (let t = 10; t <= m; t *= 10) digits++;
    const n = digits - k;
    if (digits <= n && n <= 21) {
      at = digitsAt(b, at, m, digits, digits);
      for (let i = digits; i < n; i++) b[at++] = 48;
    } else if (0 < n && n <= 21) {
      at = digitsAt(b, at, m, digits, n);
    } else if (-6 < n && n <= 0) {
      b[at++] = 48; b[at++] = 46;
      for (let i = n; i < 0; i++) b[at++] = 48;
      at = digitsAt(b, at, m, digits, digits);
    } else {
      at = digitsAt(b, at, m, digits, 1);
      b[at++] = 101; // e
      const exponent = n - 1;
      b[at++] = exponent < 0 ? 45 : 43;
      this.length = at;
      this.integer(Math.abs(exponent));
      return;
    }
    this.length = at;
  }
}

/**
 * Writes the `digits` digits of m (< 2^31) at b[at...], with a point after the first `point` of
 * them (none when point >= digits); returns the index after the last byte written.
 */
function digitsAt(b: Uint8Array, at: number, m: number, digits: number, point: number): number {
  const dot = point < digits ? 1 : 0;
  for (let i = digits - 1; i >= 0; i--) {
    const q = (m / 10) | 0;
    b[at + i + (i >= point ? dot : 0)] = 48 + m - 10 * q;
    m = q;
  }
  if (dot) b[at + point] = 46;
  return at + digits + dot;
}

/** v rounded to k decimals (k < 0: to a multiple of 10^-k), |k| <= 22. */
function nearestDecimal(v: number, k: number): number {
  return k >= 0 ? Math.round(v * POW10[k]) / POW10[k] : Math.round(v / POW10[-k]) * POW10[-k];
}

/** The float32 text by toPrecision, for magnitudes whose powers of ten a double does not hold exactly. */
function float32TextByPrecision(v: number): string {
  let lo = 1, hi = 9;
  while (lo < hi) {
    const p = (lo + hi) >> 1;
    if (Math.fround(Number(v.toPrecision(p))) === v) hi = p;
    else lo = p + 1;
  }
  return String(Number(v.toPrecision(lo)));
}

/** Whether a column's values are float32 (written by TextBytes.float32) rather than as String writes them (TextBytes.number). */
export const isFloat32 = (column: ArrayLike<number>): boolean => column instanceof Float32Array;
