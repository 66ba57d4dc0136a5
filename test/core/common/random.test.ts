import { describe, expect, it } from 'vitest';
import { Random, deriveSeed } from '../../../core/common/random';

describe('Random', () => {
  it('repeats its sequence for the same seed and stream', () => {
    const a = new Random(42), b = new Random(42);
    for (let i = 0; i < 1000; i++) expect(a.nextU32()).toBe(b.nextU32());
  });

  it('gives different sequences for different seeds and streams', () => {
    const seq = (r: Random) => Array.from({ length: 8 }, () => r.nextU32());
    expect(seq(new Random(1))).not.toEqual(seq(new Random(2)));
    expect(seq(new Random(1, 0))).not.toEqual(seq(new Random(1, 1)));
  });

  it('is uniform in [0, 1) with the right mean and variance', () => {
    const r = new Random(7);
    const n = 200_000;
    let sum = 0, sum2 = 0, min = 1, max = 0;
    for (let i = 0; i < n; i++) {
      const v = r.next();
      sum += v; sum2 += v * v;
      min = Math.min(min, v); max = Math.max(max, v);
    }
    expect(min).toBeGreaterThanOrEqual(0);
    expect(max).toBeLessThan(1);
    expect(sum / n).toBeCloseTo(0.5, 2);
    expect(sum2 / n - (sum / n) ** 2).toBeCloseTo(1 / 12, 2);
  });

  it('draws standard normals', () => {
    const r = new Random(3);
    const n = 100_000;
    let sum = 0, sum2 = 0;
    for (let i = 0; i < n; i++) { const v = r.normal(); sum += v; sum2 += v * v; }
    expect(sum / n).toBeCloseTo(0, 1);
    expect(sum2 / n).toBeCloseTo(1, 1);
  });

  it('restores its state', () => {
    const r = new Random(9);
    r.nextU32();
    const state = r.getState();
    const next = [r.nextU32(), r.nextU32()];
    r.setState(state);
    expect([r.nextU32(), r.nextU32()]).toEqual(next);
  });

  it('rejects bad seeds naming the field and range', () => {
    expect(() => new Random(-1)).toThrow(/seed must be an integer in \[0, 4294967295\]/);
    expect(() => new Random(1.5)).toThrow(/seed/);
  });

  it('derives distinct seeds for sweep points', () => {
    const seeds = new Set(Array.from({ length: 1000 }, (_, i) => deriveSeed(5, i)));
    expect(seeds.size).toBe(1000);
    expect(deriveSeed(5, 3)).toBe(deriveSeed(5, 3));
  });
});
