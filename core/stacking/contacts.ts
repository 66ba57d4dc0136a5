/**
 * Contact positions of the seed's description (6)-(8): where the centre of a new ball of radius r
 * goes so that it touches given partners. A partner ball j of radius r_j puts the centre on the
 * sphere (circle in 2D) of radius r_j + r around its centre (its "reach"); a plane wall puts it on
 * the plane r inside the wall; the side of a cylinder (circle) on the cylinder (circle) R - r
 * around the axis. Each solver writes up to two centres into out[0..5] (x, y, z each; z = 0 in
 * 2D) and returns how many it found (0 or 2; 2 also when they coincide). Nothing is allocated.
 */

const plane = new Float64Array(4);

/**
 * Intersection of two circles in a plane, (u1, v1, R1) and (u2, v2, R2): the two points into
 * plane[0..3] (u, v, u, v). 0 when they do not meet (or share a centre).
 */
function circles(u1: number, v1: number, R1: number, u2: number, v2: number, R2: number): number {
  const du = u2 - u1, dv = v2 - v1;
  const d2 = du * du + dv * dv;
  if (!(d2 > 0)) return 0;
  const d = Math.sqrt(d2);
  if (d > R1 + R2 || d < Math.abs(R1 - R2)) return 0;
  const a = (R1 * R1 - R2 * R2 + d2) / (2 * d);
  const h = Math.sqrt(Math.max(0, R1 * R1 - a * a));
  const eu = du / d, ev = dv / d;
  const pu = u1 + a * eu, pv = v1 + a * ev;
  plane[0] = pu - h * ev;
  plane[1] = pv + h * eu;
  plane[2] = pu + h * ev;
  plane[3] = pv - h * eu;
  return 2;
}

/** The two in-plane axes of the plane normal to `axis` (x: y, z; y: z, x; z: x, y). */
const U_AXIS = [1, 2, 0], V_AXIS = [2, 0, 1];

/** Component `axis` of (x, y, z), without building an array. */
function pick(axis: number, x: number, y: number, z: number): number {
  return axis === 0 ? x : axis === 1 ? y : z;
}

/** Writes the plane's two points back to 3D (the normal coordinate c) into out. */
function fromPlane(out: Float64Array, axis: number, c: number): void {
  const ua = U_AXIS[axis], va = V_AXIS[axis];
  out[axis] = c;
  out[ua] = plane[0];
  out[va] = plane[1];
  out[3 + axis] = c;
  out[3 + ua] = plane[2];
  out[3 + va] = plane[3];
}

/** Eq. 2: one contact, at (ra + r (1 + t)) along the unit vector u from A (t in [0, 1]: a gap of t r). */
export function oneContact(
  out: Float64Array,
  ax: number, ay: number, az: number, ra: number,
  r: number, t: number,
  ux: number, uy: number, uz: number,
): void {
  const d = ra + r * (1 + t);
  out[0] = ax + d * ux;
  out[1] = ay + d * uy;
  out[2] = az + d * uz;
}

/**
 * Centres on the plane x_axis = c at distance ra from A and rb from B: the two reach spheres cut
 * by the plane are circles, which meet in up to two points.
 */
export function spheresOnPlane(
  out: Float64Array,
  ax: number, ay: number, az: number, ra: number,
  bx: number, by: number, bz: number, rb: number,
  axis: 0 | 1 | 2, c: number,
): number {
  const ha = c - pick(axis, ax, ay, az), hb = c - pick(axis, bx, by, bz);
  const Ra2 = ra * ra - ha * ha, Rb2 = rb * rb - hb * hb;
  if (Ra2 < 0 || Rb2 < 0) return 0;
  const ua = U_AXIS[axis], va = V_AXIS[axis];
  const found = circles(
    pick(ua, ax, ay, az), pick(va, ax, ay, az), Math.sqrt(Ra2),
    pick(ua, bx, by, bz), pick(va, bx, by, bz), Math.sqrt(Rb2),
  );
  if (found === 0) return 0;
  fromPlane(out, axis, c);
  return 2;
}

/**
 * Eqs. 3-4: two contacts in 3D. The centre is at distance ra + r from A and rb + r from B
 * (Eq. 3); Eq. 4 fixes z = za + t (zb - za), t in [0, 1], which leaves two solutions.
 */
export function twoContacts3(
  out: Float64Array,
  ax: number, ay: number, az: number, ra: number,
  bx: number, by: number, bz: number, rb: number,
  r: number, t: number,
): number {
  return spheresOnPlane(out, ax, ay, az, ra + r, bx, by, bz, rb + r, 2, az + t * (bz - az));
}

/** Two contacts in 2D: the circles of radius ra + r around A and rb + r around B meet in two points. */
export function twoContacts2(out: Float64Array, ax: number, ay: number, ra: number, bx: number, by: number, rb: number, r: number): number {
  if (circles(ax, ay, ra + r, bx, by, rb + r) === 0) return 0;
  out[0] = plane[0];
  out[1] = plane[1];
  out[2] = 0;
  out[3] = plane[2];
  out[4] = plane[3];
  out[5] = 0;
  return 2;
}

/**
 * Eq. 5: three contacts. The centre is at distance ra + r, rb + r, rc + r from A, B, C
 * (trilateration in the frame of A: e1 towards B, e2 towards C in the plane ABC, e3 normal).
 */
export function threeContacts(
  out: Float64Array,
  ax: number, ay: number, az: number, ra: number,
  bx: number, by: number, bz: number, rb: number,
  cx: number, cy: number, cz: number, rc: number,
  r: number,
): number {
  return threeReaches(out, ax, ay, az, ra + r, bx, by, bz, rb + r, cx, cy, cz, rc + r);
}

/** Points at distances ra, rb, rc from A, B, C (the intersection of three spheres). */
export function threeReaches(
  out: Float64Array,
  ax: number, ay: number, az: number, ra: number,
  bx: number, by: number, bz: number, rb: number,
  cx: number, cy: number, cz: number, rc: number,
): number {
  let e1x = bx - ax, e1y = by - ay, e1z = bz - az;
  const d = Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z);
  if (!(d > 0) || d > ra + rb) return 0;
  e1x /= d; e1y /= d; e1z /= d;
  const qx = cx - ax, qy = cy - ay, qz = cz - az;
  const i = e1x * qx + e1y * qy + e1z * qz;
  let e2x = qx - i * e1x, e2y = qy - i * e1y, e2z = qz - i * e1z;
  const j = Math.sqrt(e2x * e2x + e2y * e2y + e2z * e2z);
  // C on the line AB (or nearly): no unique plane.
  if (!(j > 1e-12 * d)) return 0;
  e2x /= j; e2y /= j; e2z /= j;
  const x = (ra * ra - rb * rb + d * d) / (2 * d);
  const y = (ra * ra - rc * rc + i * i + j * j) / (2 * j) - (i / j) * x;
  const z2 = ra * ra - x * x - y * y;
  if (z2 < 0) return 0;
  const zz = Math.sqrt(z2);
  const e3x = e1y * e2z - e1z * e2y, e3y = e1z * e2x - e1x * e2z, e3z = e1x * e2y - e1y * e2x;
  const px = ax + x * e1x + y * e2x, py = ay + x * e1y + y * e2y, pz = az + x * e1z + y * e2z;
  out[0] = px + zz * e3x;
  out[1] = py + zz * e3y;
  out[2] = pz + zz * e3z;
  out[3] = px - zz * e3x;
  out[4] = py - zz * e3y;
  out[5] = pz - zz * e3z;
  return 2;
}

/** Centres on two perpendicular planes x_a1 = c1 and x_a2 = c2 at distance ra from A (a line through a sphere). */
export function sphereOnTwoPlanes(
  out: Float64Array,
  ax: number, ay: number, az: number, ra: number,
  a1: 0 | 1 | 2, c1: number, a2: 0 | 1 | 2, c2: number,
): number {
  if (a1 === a2) return 0;
  const a3 = 3 - a1 - a2;
  const h1 = c1 - pick(a1, ax, ay, az), h2 = c2 - pick(a2, ax, ay, az);
  const s2 = ra * ra - h1 * h1 - h2 * h2;
  if (s2 < 0) return 0;
  const s = Math.sqrt(s2), m = pick(a3, ax, ay, az);
  out[a1] = c1; out[a2] = c2; out[a3] = m + s;
  out[3 + a1] = c1; out[3 + a2] = c2; out[3 + a3] = m - s;
  return 2;
}

/**
 * Centres on the plane z = c at distance ra from A and at distance R from the vertical axis through
 * (ox, oy): the reach sphere's circle in the plane meets the circle R around the axis.
 */
export function sphereOnPlaneAndAxis(
  out: Float64Array,
  ax: number, ay: number, az: number, ra: number,
  c: number, ox: number, oy: number, R: number,
): number {
  const h = c - az;
  const Ra2 = ra * ra - h * h;
  if (Ra2 < 0 || R < 0) return 0;
  if (circles(ax, ay, Math.sqrt(Ra2), ox, oy, R) === 0) return 0;
  fromPlane(out, 2, c);
  return 2;
}

/** 2D: centres at distance ra from A on the line x_axis = c. */
export function circleOnLine(out: Float64Array, ax: number, ay: number, ra: number, axis: 0 | 1, c: number): number {
  const h = c - (axis === 0 ? ax : ay);
  const s2 = ra * ra - h * h;
  if (s2 < 0) return 0;
  const s = Math.sqrt(s2);
  if (axis === 0) {
    out[0] = c; out[1] = ay + s; out[3] = c; out[4] = ay - s;
  } else {
    out[0] = ax + s; out[1] = c; out[3] = ax - s; out[4] = c;
  }
  out[2] = 0;
  out[5] = 0;
  return 2;
}

/** 2D: centres at distance ra from A and R from O (two circles). */
export function circleOnCircle(out: Float64Array, ax: number, ay: number, ra: number, ox: number, oy: number, R: number): number {
  if (R < 0 || circles(ax, ay, ra, ox, oy, R) === 0) return 0;
  out[0] = plane[0]; out[1] = plane[1]; out[2] = 0;
  out[3] = plane[2]; out[4] = plane[3]; out[5] = 0;
  return 2;
}

/**
 * Two contacts with A and a plane wall in 3D: the centres on the plane x_axis = c at distance ra
 * from A form a circle; the angle theta picks a point on it and the opposite one.
 */
export function sphereOnPlane(
  out: Float64Array,
  ax: number, ay: number, az: number, ra: number,
  axis: 0 | 1 | 2, c: number, theta: number,
): number {
  const h = c - pick(axis, ax, ay, az);
  const s2 = ra * ra - h * h;
  if (s2 < 0) return 0;
  const s = Math.sqrt(s2), cu = s * Math.cos(theta), cv = s * Math.sin(theta);
  const au = pick(U_AXIS[axis], ax, ay, az), av = pick(V_AXIS[axis], ax, ay, az);
  plane[0] = au + cu; plane[1] = av + cv;
  plane[2] = au - cu; plane[3] = av - cv;
  fromPlane(out, axis, c);
  return 2;
}
