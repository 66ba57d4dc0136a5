import { describe, expect, it } from 'vitest';
import { inverseRotate, rotateRange, wrapDegrees } from '../../../core/voxel/rotation';
import { Random } from '../../../core/common/random';

/** Reference: the composite matrix Rz(c) * Ry(b) * Rx(a), written out from scratch. */
function matrix(a: number, b: number, c: number): number[][] {
  const r = Math.PI / 180;
  const [ca, sa, cb, sb, cc, sc] = [Math.cos(a * r), Math.sin(a * r), Math.cos(b * r), Math.sin(b * r), Math.cos(c * r), Math.sin(c * r)];
  const Rx = [[1, 0, 0], [0, ca, -sa], [0, sa, ca]];
  const Ry = [[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]];
  const Rz = [[cc, -sc, 0], [sc, cc, 0], [0, 0, 1]];
  const mul = (A: number[][], B: number[][]) => A.map((row) => B[0].map((_, j) => row.reduce((s, v, k) => s + v * B[k][j], 0)));
  return mul(Rz, mul(Ry, Rx));
}

describe('rotation', () => {
  it('all switch settings agree with a rotation matrix reference (up to ties at .5)', () => {
    const rnd = new Random(3);
    const n = 2000;
    const src = new Int32Array(3 * n);
    for (let i = 0; i < src.length; i++) src[i] = rnd.int(121) - 60;
    let mismatches = 0;
    for (let t = 0; t < 20; t++) {
      const a = rnd.int(360), b = rnd.int(360), c = rnd.int(360);
      const M = matrix(a, b, c);
      const outs = [[true, true], [true, false], [false, true], [false, false]].map(([tt, fr]) => {
        const dst = new Int32Array(3 * n);
        rotateRange(src, dst, 0, n, a, b, c, tt, fr);
        return dst;
      });
      for (const o of outs.slice(1)) expect(Array.from(o)).toEqual(Array.from(outs[0]));
      for (let i = 0; i < n; i++) {
        const p = [src[3 * i], src[3 * i + 1], src[3 * i + 2]];
        for (let r = 0; r < 3; r++) {
          const exact = M[r][0] * p[0] + M[r][1] * p[1] + M[r][2] * p[2];
          expect(Math.abs(outs[0][3 * i + r] - exact)).toBeLessThanOrEqual(0.5 + 1e-9);
          if (outs[0][3 * i + r] !== Math.round(exact)) mismatches++;
        }
      }
    }
    expect(mismatches).toBeLessThan(5);
  });

  it('fast rounding takes a coordinate at most 2^-33 below a half up, Math.round down', () => {
    // SIN[30] is 0.49999999999999994: (0, 1, 0) turned 30° about x has z just below a half.
    const src = Int32Array.of(0, 1, 0);
    const z = (fastRounding: boolean) => {
      const dst = new Int32Array(3);
      rotateRange(src, dst, 0, 1, 30, 0, 0, true, fastRounding);
      return dst[2];
    };
    expect([z(true), z(false)]).toEqual([1, 0]);
  });

  it('inverseRotate undoes the rotation', () => {
    const out = new Float64Array(3);
    const M = matrix(30, 200, 301);
    const p = [3, -7, 11];
    const q = M.map((row) => row[0] * p[0] + row[1] * p[1] + row[2] * p[2]);
    inverseRotate(q[0], q[1], q[2], 30, 200, 301, out);
    for (let r = 0; r < 3; r++) expect(out[r]).toBeCloseTo(p[r], 9);
  });

  it('wraps degrees into [0, 360)', () => {
    expect([wrapDegrees(-1), wrapDegrees(360), wrapDegrees(725)]).toEqual([359, 0, 5]);
  });
});
