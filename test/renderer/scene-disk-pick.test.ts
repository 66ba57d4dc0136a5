import { describe, expect, it } from 'vitest';
import { pickSphere } from '../../renderer/src/scene/spherePick';
import { Random } from '../../core/common/random';

describe('disk picking (tangent disks)', () => {
  it('hits a disk within its radius where the ray meets its plane, the nearest first', () => {
    // Disk 0 in the x-y plane at the origin, disk 1 tilted 45° about y at z = 2, both radius 1.
    const h = Math.SQRT1_2;
    const s = { count: 2, x: [0, 0], y: [0, 0], z: [0, 2], radius: [1, 1], dotRadius: 0, normal: [[0, h], [0, 0], [1, h]] as [number[], number[], number[]] };
    expect(pickSphere(s, [0.5, 0, 5], [0, 0, -1], null)).toBe(1); // through both: disk 1 is nearer
    expect(pickSphere(s, [0.5, 0, 1], [0, 0, -1], null)).toBe(0); // disk 1 is behind the origin
    expect(pickSphere(s, [0.8, 0.5, 5], [0, 0, -1], null)).toBe(0); // misses tilted disk 1: |(0.8, 0.5, -0.8)| > 1
    expect(pickSphere(s, [1.1, 0, 1], [0, 0, -1], null)).toBe(-1);
    expect(pickSphere(s, [5, 0, 0], [-1, 0, 0], null)).toBe(-1); // in disk 0's plane: no hit
    expect(pickSphere(s, [0.5, 0, 5], [0, 0, -1], { min: [-1, -1, -1], max: [1, 1, 1] })).toBe(0); // disk 1 clipped away
  });

  it('agrees with a point-by-point walk along random rays', () => {
    const rnd = new Random(8), n = 30;
    const x = Float64Array.from({ length: n }, () => rnd.uniform(0, 10));
    const y = Float64Array.from({ length: n }, () => rnd.uniform(0, 10));
    const z = Float64Array.from({ length: n }, () => rnd.uniform(0, 10));
    const r = Float64Array.from({ length: n }, () => rnd.uniform(0.5, 1.5));
    const nrm: [Float64Array, Float64Array, Float64Array] = [new Float64Array(n), new Float64Array(n), new Float64Array(n)];
    for (let i = 0; i < n; i++) {
      const a = rnd.normal(), b = rnd.normal(), c = rnd.normal(), l = Math.hypot(a, b, c);
      nrm[0][i] = a / l; nrm[1][i] = b / l; nrm[2][i] = c / l;
    }
    let hits = 0;
    for (let k = 0; k < 60; k++) {
      const o = [rnd.uniform(0, 10), rnd.uniform(0, 10), -2];
      const d = [rnd.uniform(-0.3, 0.3), rnd.uniform(-0.3, 0.3), 1];
      const got = pickSphere({ count: n, x, y, z, radius: r, dotRadius: 0, normal: nrm }, o, d, null);
      // Walk: the first step at which the ray crosses a disk's plane (sign change) within its radius.
      let want = -1, wantT = Infinity;
      for (let i = 0; i < n; i++) {
        const side = (t: number) => (o[0] + t * d[0] - x[i]) * nrm[0][i] + (o[1] + t * d[1] - y[i]) * nrm[1][i] + (o[2] + t * d[2] - z[i]) * nrm[2][i];
        for (let t = 0, prev = side(0); t < 14; t += 0.001) {
          const cur = side(t + 0.001);
          if (prev === 0 || prev * cur < 0) {
            const p = [o[0] + t * d[0] - x[i], o[1] + t * d[1] - y[i], o[2] + t * d[2] - z[i]];
            if (Math.hypot(p[0], p[1], p[2]) <= r[i] && t < wantT) { wantT = t; want = i; }
            break;
          }
          prev = cur;
        }
      }
      expect(got).toBe(want);
      if (got >= 0) hits++;
    }
    expect(hits).toBeGreaterThan(5);
  });
});
