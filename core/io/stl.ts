/**
 * Binary STL of particle surfaces (80-byte header, uint32 triangle count, 50 bytes per triangle:
 * normal, three vertices, a zero attribute).
 *
 * Voxel packings: every voxel face between a particle voxel and a voxel that is not the same particle
 * (void, another particle or outside the box) becomes two triangles, outward. Each particle's
 * surface is then closed; a particle cut by a periodic boundary is closed on both sides of the cut.
 * Faces are produced row range by row range so that the caller can stream them with three z-slices in memory.
 *
 * Sphere sets: each sphere as a once-subdivided icosahedron (80 triangles).
 */

export const STL_HEADER_BYTES = 84;
export const STL_TRIANGLE_BYTES = 50;

export function stlHeader(triangles: number, title = 'PackBench particle surfaces'): Uint8Array {
  const out = new Uint8Array(STL_HEADER_BYTES);
  // Must not start with 'solid', or readers take the file for ASCII STL.
  out.set(new TextEncoder().encode(title.replace(/^solid/i, 'Solid_').slice(0, 80)));
  new DataView(out.buffer).setUint32(80, triangles, true);
  return out;
}

function putTriangle(v: DataView, at: number, n: readonly number[], a: readonly number[], b: readonly number[], c: readonly number[]): void {
  const vals = [...n, ...a, ...b, ...c];
  for (let k = 0; k < 12; k++) v.setFloat32(at + 4 * k, vals[k], true);
  v.setUint16(at + 48, 0, true);
}

/**
 * Triangles of the faces of slice z, rows y in [y0, y1). `below`/`above` are the neighbouring slices
 * (undefined outside the box). Returns the binary triangle records.
 */
export function voxelFaceTriangles(
  below: Uint32Array | undefined, slice: Uint32Array, above: Uint32Array | undefined,
  nx: number, ny: number, z: number, voxelSize: number, y0 = 0, y1 = ny,
): Uint8Array {
  // Count first so the records go into one exact buffer.
  let faces = 0;
  for (let y = y0; y < y1; y++) for (let x = 0; x < nx; x++) {
    const i = x + nx * y, l = slice[i];
    if (l === 0) continue;
    if (x === 0 || slice[i - 1] !== l) faces++;
    if (x === nx - 1 || slice[i + 1] !== l) faces++;
    if (y === 0 || slice[i - nx] !== l) faces++;
    if (y === ny - 1 || slice[i + nx] !== l) faces++;
    if (!below || below[i] !== l) faces++;
    if (!above || above[i] !== l) faces++;
  }
  const out = new Uint8Array(faces * 2 * STL_TRIANGLE_BYTES);
  const v = new DataView(out.buffer);
  let at = 0;
  const h = voxelSize;
  // A face as two triangles, corners counter-clockwise seen from outside.
  const quad = (n: number[], p0: number[], p1: number[], p2: number[], p3: number[]) => {
    putTriangle(v, at, n, p0, p1, p2); at += STL_TRIANGLE_BYTES;
    putTriangle(v, at, n, p0, p2, p3); at += STL_TRIANGLE_BYTES;
  };
  for (let y = y0; y < y1; y++) for (let x = 0; x < nx; x++) {
    const i = x + nx * y, l = slice[i];
    if (l === 0) continue;
    const X0 = x * h, X1 = (x + 1) * h, Y0 = y * h, Y1 = (y + 1) * h, Z0 = z * h, Z1 = (z + 1) * h;
    if (x === 0 || slice[i - 1] !== l) quad([-1, 0, 0], [X0, Y0, Z0], [X0, Y0, Z1], [X0, Y1, Z1], [X0, Y1, Z0]);
    if (x === nx - 1 || slice[i + 1] !== l) quad([1, 0, 0], [X1, Y0, Z0], [X1, Y1, Z0], [X1, Y1, Z1], [X1, Y0, Z1]);
    if (y === 0 || slice[i - nx] !== l) quad([0, -1, 0], [X0, Y0, Z0], [X1, Y0, Z0], [X1, Y0, Z1], [X0, Y0, Z1]);
    if (y === ny - 1 || slice[i + nx] !== l) quad([0, 1, 0], [X0, Y1, Z0], [X0, Y1, Z1], [X1, Y1, Z1], [X1, Y1, Z0]);
    if (!below || below[i] !== l) quad([0, 0, -1], [X0, Y0, Z0], [X0, Y1, Z0], [X1, Y1, Z0], [X1, Y0, Z0]);
    if (!above || above[i] !== l) quad([0, 0, 1], [X0, Y0, Z1], [X1, Y0, Z1], [X1, Y1, Z1], [X0, Y1, Z1]);
  }
  return out;
}

/** Unit icosahedron subdivided once: 80 triangles as vertex triples (outward, counter-clockwise). */
function unitSphereTriangles(): number[][][] {
  const t = (1 + Math.sqrt(5)) / 2;
  const verts = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]];
  const faces = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8],
    [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]];
  const unit = (p: number[]) => { const l = Math.hypot(p[0], p[1], p[2]); return p.map((c) => c / l); };
  const mid = (a: number[], b: number[]) => unit([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2]);
  const out: number[][][] = [];
  for (const [i, j, k] of faces) {
    const a = unit(verts[i]), b = unit(verts[j]), c = unit(verts[k]);
    const ab = mid(a, b), bc = mid(b, c), ca = mid(c, a);
    out.push([a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]);
  }
  return out;
}
const UNIT_SPHERE = unitSphereTriangles();
export const SPHERE_TRIANGLES = UNIT_SPHERE.length;

/** Triangle records of spheres [start, end). */
export function sphereTriangles(x: ArrayLike<number>, y: ArrayLike<number>, z: ArrayLike<number>, r: ArrayLike<number>, start: number, end: number): Uint8Array {
  const out = new Uint8Array((end - start) * SPHERE_TRIANGLES * STL_TRIANGLE_BYTES);
  const v = new DataView(out.buffer);
  let at = 0;
  for (let i = start; i < end; i++) {
    for (const tri of UNIT_SPHERE) {
      const n = [(tri[0][0] + tri[1][0] + tri[2][0]) / 3, (tri[0][1] + tri[1][1] + tri[2][1]) / 3, (tri[0][2] + tri[1][2] + tri[2][2]) / 3];
      const place = (p: number[]) => [x[i] + r[i] * p[0], y[i] + r[i] * p[1], z[i] + r[i] * p[2]];
      const nl = Math.hypot(n[0], n[1], n[2]);
      putTriangle(v, at, n.map((c) => c / nl), place(tri[0]), place(tri[1]), place(tri[2]));
      at += STL_TRIANGLE_BYTES;
    }
  }
  return out;
}
