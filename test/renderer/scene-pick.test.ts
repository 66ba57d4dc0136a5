import { describe, it, expect } from 'vitest';
import { pickSphere } from '../../renderer/src/scene/spherePick';
import { Random } from '../../core/common/random';

/** Independent check: march along the ray in small steps and return the first sphere containing the point. */
function marchPick(x: Float64Array, y: Float64Array, z: Float64Array, r: Float64Array, o: number[], d: number[], clip: { min: number[]; max: number[] } | null): number {
  const len = Math.hypot(d[0], d[1], d[2]);
  for (let t = 0; t < 30; t += 0.0005) {
    const p = [o[0] + (d[0] / len) * t, o[1] + (d[1] / len) * t, o[2] + (d[2] / len) * t];
    for (let i = 0; i < x.length; i++) {
      if (clip && [x[i], y[i], z[i]].some((c, a) => c < clip.min[a] || c > clip.max[a])) continue;
      if ((p[0] - x[i]) ** 2 + (p[1] - y[i]) ** 2 + (p[2] - z[i]) ** 2 <= r[i] * r[i]) return i;
    }
  }
  return -1;
}

describe('sphere picking', () => {
  it('finds the nearest sphere along the ray, as marching along it does', () => {
    const rnd = new Random(5);
    const n = 25;
    const x = Float64Array.from({ length: n }, () => rnd.uniform(0, 10));
    const y = Float64Array.from({ length: n }, () => rnd.uniform(0, 10));
    const z = Float64Array.from({ length: n }, () => rnd.uniform(0, 10));
    const r = Float64Array.from({ length: n }, () => rnd.uniform(0.3, 1.2));
    let hits = 0;
    for (let k = 0; k < 40; k++) {
      const o = [rnd.uniform(-2, 12), rnd.uniform(-2, 12), -3];
      const target = [rnd.uniform(0, 10), rnd.uniform(0, 10), 10];
      const d = [target[0] - o[0], target[1] - o[1], target[2] - o[2]];
      const clip = k % 3 === 0 ? { min: [0, 0, 0], max: [10, 10, 5] } : null;
      const got = pickSphere({ count: n, x, y, z, radius: r, dotRadius: 0 }, o, d, clip);
      expect(got).toBe(marchPick(x, y, z, r, o, d, clip));
      if (got >= 0) hits++;
    }
    expect(hits).toBeGreaterThan(5); // the random rays do hit spheres
  });

  it('misses behind the origin and picks the sphere the origin is inside', () => {
    const s = { count: 2, x: [0, 5], y: [0, 0], z: [0, 0], radius: [1, 1], dotRadius: 0 };
    expect(pickSphere(s, [3, 0, 0], [1, 0, 0], null)).toBe(1);
    expect(pickSphere(s, [3, 0, 0], [-1, 0, 0], null)).toBe(0);
    expect(pickSphere(s, [7, 0, 0], [1, 0, 0], null)).toBe(-1);
    expect(pickSphere(s, [0, 0, 0], [0, 1, 0], null)).toBe(0);
    expect(pickSphere({ ...s, radius: null, dotRadius: 0.1 }, [0, 0.05, -5], [0, 0, 1], null)).toBe(0);
  });
});
