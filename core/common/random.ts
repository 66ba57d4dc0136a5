/**
 * The one seeded generator of PackBench: every engine draws its randomness from here, never from
 * Math.random, so that a run is reproducible from its seed.
 *
 * xoshiro128** (Blackman & Vigna) on four 32-bit words: fast with Math.imul, period 2^128 - 1, and
 * good enough for Monte Carlo packing. The state is seeded with splitmix32, which also derives
 * independent streams (per thread, per sweep point) from one seed.
 */

/** splitmix32 step: a good 32-bit mixer for turning (seed, stream) into generator state. */
function splitmix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  let z = x;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}

export const MAX_SEED = 0xffffffff;

export class Random {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spareNormal = NaN;

  /** seed: integer in [0, 2^32 - 1]; stream: selects an independent sequence for the same seed. */
  constructor(seed: number, stream = 0) {
    if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) {
      throw new RangeError(`seed must be an integer in [0, ${MAX_SEED}], got ${seed}`);
    }
    if (!Number.isInteger(stream) || stream < 0) {
      throw new RangeError(`stream must be a non-negative integer, got ${stream}`);
    }
    let x = splitmix32(seed ^ Math.imul(stream + 1, 0x632be5ab));
    this.s0 = x;
    x = splitmix32(x);
    this.s1 = x;
    x = splitmix32(x);
    this.s2 = x;
    x = splitmix32(x);
    this.s3 = x | 1; // never all-zero state
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const s0 = this.s0, s1 = this.s1, s2 = this.s2, s3 = this.s3;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
    const t = s1 << 9;
    this.s2 = s2 ^ s0;
    this.s3 = s3 ^ s1;
    this.s1 = s1 ^ this.s2;
    this.s0 = s0 ^ this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r >>> 0;
  }

  /** Uniform double in [0, 1) with 32 bits of resolution (plenty for packing decisions). */
  next(): number {
    return this.nextU32() * 2.3283064365386963e-10;
  }

  /** Uniform integer in [0, n), n <= 2^32. Multiply-shift, unbiased enough for n << 2^32. */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform double in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Standard normal deviate (Marsaglia polar method; caches the spare value). */
  normal(): number {
    if (!Number.isNaN(this.spareNormal)) {
      const v = this.spareNormal;
      this.spareNormal = NaN;
      return v;
    }
    let u: number, v: number, s: number;
    do {
      u = 2 * this.next() - 1;
      v = 2 * this.next() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    this.spareNormal = v * f;
    return u * f;
  }

  /** The generator state, for checkpoints. */
  getState(): Uint32Array {
    return Uint32Array.of(this.s0, this.s1, this.s2, this.s3);
  }

  setState(state: ArrayLike<number>): void {
    if (state.length !== 4) throw new RangeError(`state must have 4 words, got ${state.length}`);
    this.s0 = state[0] | 0;
    this.s1 = state[1] | 0;
    this.s2 = state[2] | 0;
    this.s3 = state[3] | 0;
    this.spareNormal = NaN;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/**
 * Stateless draws for work done in parallel, whose results must not depend on which thread draws
 * first: streamKey(seed, a, b) names a stream (the voxel packer: a particle and a time step),
 * streamDraw(key, k) is its k-th uniform 32-bit draw.
 */
export function streamKey(seed: number, a: number, b: number): number {
  return splitmix32(splitmix32(seed ^ Math.imul(a + 1, 0x9e3779b1)) ^ Math.imul(b + 1, 0x85ebca77));
}

export function streamDraw(key: number, k: number): number {
  return splitmix32(key + Math.imul(k, 0x632be5ab));
}

/** A seed for point i of a sweep (or run i of a batch) derived from a base seed. */
export function deriveSeed(baseSeed: number, index: number): number {
  return splitmix32(splitmix32(baseSeed >>> 0) ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
}
