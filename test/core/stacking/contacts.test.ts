import { describe, expect, it } from 'vitest';
import {
  circleOnCircle, circleOnLine, oneContact, sphereOnPlane, sphereOnPlaneAndAxis, sphereOnTwoPlanes,
  spheresOnPlane, threeContacts, twoContacts2, twoContacts3,
} from '../../../core/stacking/contacts';

const out = new Float64Array(6);
const dist = (o: number, p: readonly number[]) => Math.hypot(out[o] - p[0], out[o + 1] - p[1], out[o + 2] - p[2]);
const centre = (o: number) => [out[o], out[o + 1], out[o + 2]];
/** The two solutions, in either order. */
const both = () => [centre(0), centre(3)].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
const close = (got: number[][], want: number[][]) => got.forEach((g, k) => g.forEach((v, a) => expect(v).toBeCloseTo(want[k][a], 12)));

describe('contact positions (seed 004 Eqs. 2-5), hand-worked', () => {
  it('Eq. 2: one contact at r_a + r (1 + t) along the direction', () => {
    oneContact(out, 1, 2, 3, 0.5, 0.2, 0.25, 0, 0.6, 0.8);
    // distance 0.5 + 0.2 * 1.25 = 0.75 along (0, 0.6, 0.8)
    close([centre(0)], [[1, 2.45, 3.6]]);
    expect(dist(0, [1, 2, 3])).toBeCloseTo(0.75, 14);
  });

  it('2D two contacts: three unit disks in a row of triangles', () => {
    expect(twoContacts2(out, 0, 0, 1, 2, 0, 1, 1)).toBe(2);
    close(both(), [[1, -Math.sqrt(3), 0], [1, Math.sqrt(3), 0]]);
  });

  it('2D two contacts: unequal disks touch both to round-off, and none when too far apart', () => {
    expect(twoContacts2(out, 0.3, -0.2, 0.7, 1.4, 0.3, 0.45, 0.2)).toBe(2);
    for (const o of [0, 3]) {
      expect(Math.abs(dist(o, [0.3, -0.2, 0]) - 0.9)).toBeLessThan(1e-14);
      expect(Math.abs(dist(o, [1.4, 0.3, 0]) - 0.65)).toBeLessThan(1e-14);
    }
    expect(twoContacts2(out, 0, 0, 1, 5, 0, 1, 1)).toBe(0); // gap 3 > one new diameter
  });

  it('Eqs. 3-4: two contacts in 3D on the plane z = z_A + t (z_B - z_A)', () => {
    // A = 0, B = (2, 0, 2), unit balls, t = 1/2: z = 1; the reach spheres (radius 2) cut z = 1 in
    // circles of radius sqrt(3) about (0, 0) and (2, 0): they meet at x = 1, y = ±sqrt(2).
    expect(twoContacts3(out, 0, 0, 0, 1, 2, 0, 2, 1, 1, 0.5)).toBe(2);
    close(both(), [[1, -Math.SQRT2, 1], [1, Math.SQRT2, 1]]);
    for (const o of [0, 3]) {
      expect(Math.abs(dist(o, [0, 0, 0]) - 2)).toBeLessThan(1e-14);
      expect(Math.abs(dist(o, [2, 0, 2]) - 2)).toBeLessThan(1e-14);
    }
  });

  it('Eq. 5: three contacts, a unit ball on three touching unit balls (the regular tetrahedron)', () => {
    expect(threeContacts(out, 0, 0, 0, 1, 2, 0, 0, 1, 1, Math.sqrt(3), 0, 1, 1)).toBe(2);
    const h = 2 * Math.sqrt(2 / 3);
    close(both(), [[1, 1 / Math.sqrt(3), -h], [1, 1 / Math.sqrt(3), h]]);
  });

  it('Eq. 5: unequal balls in general position touch all three to round-off', () => {
    const A = [0.1, 0.2, -0.3], B = [0.9, 0.1, 0.2], C = [0.3, 1.0, 0.1];
    const [ra, rb, rc, r] = [0.4, 0.35, 0.5, 0.2];
    expect(threeContacts(out, A[0], A[1], A[2], ra, B[0], B[1], B[2], rb, C[0], C[1], C[2], rc, r)).toBe(2);
    for (const o of [0, 3]) {
      expect(Math.abs(dist(o, A) - (ra + r))).toBeLessThan(1e-14);
      expect(Math.abs(dist(o, B) - (rb + r))).toBeLessThan(1e-14);
      expect(Math.abs(dist(o, C) - (rc + r))).toBeLessThan(1e-14);
    }
    // Too far apart for a ball of radius r to reach all three; and three balls on a line.
    expect(threeContacts(out, 0, 0, 0, 1, 5, 0, 0, 1, 2, 2, 0, 1, 0.5)).toBe(0);
    expect(threeContacts(out, 0, 0, 0, 1, 1.5, 0, 0, 1, 3, 0, 0, 1, 0.5)).toBe(0);
  });

  it('walls: two balls and a plane, a ball and two planes, a ball, the floor and a cylinder side', () => {
    // Unit balls on the floor z = 0 (centres at z = 1, x = 0 and 2): a unit ball on the floor
    // touching both has its centre on the plane z = 1, at distance 2 from each: (1, ±sqrt(3), 1).
    expect(spheresOnPlane(out, 0, 0, 1, 2, 2, 0, 1, 2, 2, 1)).toBe(2);
    close(both(), [[1, -Math.sqrt(3), 1], [1, Math.sqrt(3), 1]]);
    // A unit ball at (1, 1, 1) in the corner of the planes x = 0 and y = 0: a ball of radius 0.5
    // touching it and both walls has centre x = y = 0.5, z = 1 ± sqrt(1.5^2 - 0.5).
    expect(sphereOnTwoPlanes(out, 1, 1, 1, 1.5, 0, 0.5, 1, 0.5)).toBe(2);
    const s = Math.sqrt(2.25 - 0.5);
    close(both(), [[0.5, 0.5, 1 - s], [0.5, 0.5, 1 + s]]);
    expect(sphereOnTwoPlanes(out, 1, 1, 1, 1.5, 0, 0.5, 0, 0.7)).toBe(0); // parallel planes
    // Inside a cylinder of radius 3 about (3, 3): a unit ball on the floor (centre z = 1) touching
    // the side (centre 2 from the axis) and a unit ball at (4, 3, 1) (centre 2 from it).
    expect(sphereOnPlaneAndAxis(out, 4, 3, 1, 2, 1, 3, 3, 2)).toBe(2);
    for (const o of [0, 3]) {
      expect(out[o + 2]).toBe(1);
      expect(Math.abs(dist(o, [4, 3, 1]) - 2)).toBeLessThan(1e-14);
      expect(Math.abs(Math.hypot(out[o] - 3, out[o + 1] - 3) - 2)).toBeLessThan(1e-14);
    }
  });

  it('walls: a ball and a plane (a circle of centres, theta picks two opposite points); 2D lines and circles', () => {
    expect(sphereOnPlane(out, 0, 0, 1.5, 2, 2, 1, 0)).toBe(2); // plane z = 1, reach 2: circle radius sqrt(4 - 0.25)
    const rho = Math.sqrt(3.75);
    close(both(), [[-rho, 0, 1], [rho, 0, 1]]);
    expect(circleOnLine(out, 1, 1, 1.25, 0, 0.5)).toBe(2); // x = 0.5: y = 1 ± sqrt(1.25^2 - 0.25)
    close(both(), [[0.5, 1 - Math.sqrt(1.3125), 0], [0.5, 1 + Math.sqrt(1.3125), 0]]);
    expect(circleOnCircle(out, 4, 3, 2, 3, 3, 2)).toBe(2);
    for (const o of [0, 3]) {
      expect(Math.abs(dist(o, [4, 3, 0]) - 2)).toBeLessThan(1e-14);
      expect(Math.abs(dist(o, [3, 3, 0]) - 2)).toBeLessThan(1e-14);
    }
  });
});
