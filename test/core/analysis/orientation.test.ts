import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import { tiltFromRotation } from '../../../core/analysis/orientation';

describe('tilt of the body axis', () => {
  it('is the angle from z of the axis turned about x by rx, then about y by ry', () => {
    expect(tiltFromRotation(0, 0, [0, 0, 1])).toBeCloseTo(0, 9);
    expect(tiltFromRotation(30, 0, [0, 0, 1])).toBeCloseTo(30, 9);
    expect(tiltFromRotation(0, 90, [0, 0, 1])).toBeCloseTo(90, 9);
    expect(tiltFromRotation(0, 0, [1, 0, 0])).toBeCloseTo(90, 9);
  });

  it('depends on the axis\'s direction only, also for components near the largest double', () => {
    // (0, 1, 1) turned 45° about x is z, then 30° about y: 30° from z, however long the axis given.
    expect(tiltFromRotation(45, 30, [0, 1, 1])).toBeCloseTo(30, 9);
    expect(tiltFromRotation(45, 30, [0, 1.5e308, 1.5e308])).toBeCloseTo(30, 9);
    const rnd = new Random(3);
    for (let k = 0; k < 50; k++) {
      const rx = rnd.uniform(-180, 180), ry = rnd.uniform(-180, 180);
      const a: [number, number, number] = [rnd.uniform(-1, 1), rnd.uniform(-1, 1), rnd.uniform(-1, 1)];
      const want = tiltFromRotation(rx, ry, a);
      for (const s of [1e-300, 1e300, 1e308]) {
        expect(tiltFromRotation(rx, ry, [a[0] * s, a[1] * s, a[2] * s])).toBeCloseTo(want, 9);
      }
    }
  });
});
