/**
 * Closed, manifold triangle surfaces of voxel solids, for STL (which has no shared vertices: readers
 * join triangles at equal coordinates, so topology has to be in the geometry).
 *
 * Every face between a voxel inside the solid and one outside becomes a quad, outward. Where the
 * solid (or the void) touches itself only along an edge or at a corner, the plain quads would meet
 * four at an edge or pinch at a vertex; there the surface is taken apart by tiny moves:
 * - an edge with four faces (inside and outside voxels alternating around it) is split at its
 *   middle: the two faces of each outside voxel meet at their own midpoint, moved EPSILON into
 *   that voxel, and those quads are fanned from their centre. So two inside voxels that share only
 *   an edge stay one body, joined by a thin neck (a particle whose voxels touch along an edge is one
 *   piece), while two outside voxels that share only an edge are parted;
 * - a lattice vertex whose faces form several separate fans (cycles around the vertex, with the
 *   faces at a split edge paired by their outside voxel) gets one copy per fan, moved EPSILON towards
 *   the side of that fan where the other fans are not (into the corner the fan wraps): voxels that
 *   share only a corner come apart there.
 * Vertices and midpoints are computed by one arithmetic for every face that uses them, so they
 * match bit for bit. The solid is given by a predicate in its own frame, so one particle of a
 * periodic packing can be meshed unwrapped (see stl.ts).
 */

/** Inside test of the voxel (x, y, z) in the solid's frame; false outside its extent. */
export type Inside = (x: number, y: number, z: number) => boolean;

/** Receives a triangle: its unit normal and corners (voxel units, counter-clockwise seen from outside). */
export type TriangleSink = (n: readonly number[], a: readonly number[], b: readonly number[], c: readonly number[]) => void;

/** Unit normal of triangle abc (a moved corner tilts it slightly off the face's axis). */
function normal(a: readonly number[], b: readonly number[], c: readonly number[]): number[] {
  const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]], v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const l = Math.hypot(n[0], n[1], n[2]);
  return [n[0] / l, n[1] / l, n[2] / l];
}

/** How far (voxels) copies of a vertex or an edge midpoint move apart. */
export const EPSILON = 1 / 32;

// ---------------------------------------------------------------------------------------------
// The 2x2x2 voxels around a lattice vertex: octant o = dx + 2 dy + 4 dz is the voxel at
// (X - 1 + dx, Y - 1 + dy, Z - 1 + dz). Its 12 internal faces join octants that differ in one bit:
// face (axis, o) for the octant o with that bit 0; id = 4 * axis + (the other two bits of o).

function faceId(axis: number, o: number): number {
  const lo = o & ~(1 << axis);
  const others = [0, 1, 2].filter((a) => a !== axis).map((a) => (lo >> a) & 1);
  return 4 * axis + others[0] + 2 * others[1];
}

interface VertexTable {
  /** fan[c * 12 + face]: the fan of that surface face in configuration c (-1: not a surface face). */
  fan: Int8Array;
  /** Fans per configuration. */
  fans: Uint8Array;
  /** offset[(c * 12 + fan) * 3 + k]: the move of that fan's vertex copy (zero when only one fan). */
  offset: Float64Array;
}

function buildVertexTable(): VertexTable {
  const fan = new Int8Array(256 * 12).fill(-1);
  const fans = new Uint8Array(256);
  const offset = new Float64Array(256 * 12 * 3);
  for (let c = 0; c < 256; c++) {
    const inside = (o: number) => ((c >> o) & 1) === 1;
    // Surface faces, each with its inside octant.
    const faces: { id: number; axis: number; inner: number; outer: number }[] = [];
    for (let axis = 0; axis < 3; axis++) {
      for (let o = 0; o < 8; o++) {
        if ((o >> axis) & 1) continue;
        const p = o | (1 << axis);
        if (inside(o) !== inside(p)) faces.push({ id: faceId(axis, o), axis, inner: inside(o) ? o : p, outer: inside(o) ? p : o });
      }
    }
    if (faces.length === 0) continue;
    // Half-edges at the vertex: (edge axis e, side s). A face (axis, octant) touches the two
    // half-edges along its in-plane axes, on its octant's side. Two faces at a half-edge belong
    // together; of four (a split edge), the two faces of each outside octant.
    const next = new Map<number, number[]>(); // face index -> linked face indices
    const link = (i: number, j: number) => { next.set(i, [...(next.get(i) ?? []), j]); next.set(j, [...(next.get(j) ?? []), i]); };
    for (let e = 0; e < 3; e++) {
      for (let s = 0; s < 2; s++) {
        const around = faces.map((f, i) => ({ f, i })).filter(({ f }) => f.axis !== e && ((f.inner >> e) & 1) === s);
        if (around.length === 2) { link(around[0].i, around[1].i); continue; }
        const byOuter = new Map<number, number[]>();
        for (const { f, i } of around) byOuter.set(f.outer, [...(byOuter.get(f.outer) ?? []), i]);
        for (const pair of byOuter.values()) link(pair[0], pair[1]);
      }
    }
    // Fans: cycles of the linking.
    const fanOf = new Array<number>(faces.length).fill(-1);
    let count = 0;
    for (let start = 0; start < faces.length; start++) {
      if (fanOf[start] >= 0) continue;
      const stack = [start];
      fanOf[start] = count;
      while (stack.length) for (const j of next.get(stack.pop()!) ?? []) if (fanOf[j] < 0) { fanOf[j] = count; stack.push(j); }
      count++;
    }
    fans[c] = count;
    faces.forEach((f, i) => { fan[c * 12 + f.id] = fanOf[i]; });
    if (count < 2) continue;
    // Each fan splits the octants in two sides (connected across faces not in the fan); its copy
    // moves towards the centroid of the smaller side.
    for (let k = 0; k < count; k++) {
      const walls = new Set(faces.filter((_, i) => fanOf[i] === k).map((f) => f.inner * 8 + f.outer).flatMap((w) => [w, (w % 8) * 8 + Math.floor(w / 8)]));
      const side = new Int8Array(8).fill(-1);
      const sizes: number[] = [];
      for (let o0 = 0; o0 < 8; o0++) {
        if (side[o0] >= 0) continue;
        const s = sizes.length;
        sizes.push(0);
        const stack = [o0];
        side[o0] = s;
        while (stack.length) {
          const o = stack.pop()!;
          sizes[s]++;
          for (let a = 0; a < 3; a++) {
            const p = o ^ (1 << a);
            if (side[p] < 0 && !walls.has(o * 8 + p)) { side[p] = s; stack.push(p); }
          }
        }
      }
      // The side free of the other fans' faces (so the copies move apart), else the smaller one.
      const others = new Set(faces.filter((_, i) => fanOf[i] !== k).map((f) => side[f.inner]));
      const free = [0, 1].filter((s) => s < sizes.length && !others.has(s));
      let to = free.length === 1 ? free[0] : 0;
      if (free.length !== 1) for (let s = 1; s < sizes.length; s++) if (sizes[s] < sizes[to]) to = s;
      const d = [0, 0, 0];
      for (let o = 0; o < 8; o++) if (side[o] === to) for (let a = 0; a < 3; a++) d[a] += ((o >> a) & 1) - 0.5;
      const len = Math.hypot(d[0], d[1], d[2]);
      for (let a = 0; a < 3; a++) offset[(c * 12 + k) * 3 + a] = (EPSILON * d[a]) / len;
    }
  }
  return { fan, fans, offset };
}

const TABLE = buildVertexTable();

/** The configuration of the 8 voxels around lattice vertex (X, Y, Z). */
function vertexConfig(inside: Inside, X: number, Y: number, Z: number): number {
  let c = 0;
  for (let o = 0; o < 8; o++) if (inside(X - 1 + (o & 1), Y - 1 + ((o >> 1) & 1), Z - 1 + ((o >> 2) & 1))) c |= 1 << o;
  return c;
}

/**
 * Emits the surface of voxel (x, y, z) (which must be inside): a quad per face towards an outside
 * neighbour, with the vertex copies and edge splits above. Coordinates in voxels of the solid's frame.
 */
export function voxelSurface(inside: Inside, x: number, y: number, z: number, emit: TriangleSink): number {
  let triangles = 0;
  const v = [x, y, z];
  for (let axis = 0; axis < 3; axis++) {
    for (const sign of [-1, 1]) {
      const nb = v.slice();
      nb[axis] += sign;
      if (inside(nb[0], nb[1], nb[2])) continue;
      triangles += face(inside, v, axis, sign, emit);
    }
  }
  return triangles;
}

/** Triangles voxelSurface would emit for voxel (x, y, z), without making them. */
export function voxelSurfaceCount(inside: Inside, x: number, y: number, z: number): number {
  return voxelSurface(inside, x, y, z, NO_SINK);
}
const NO_SINK: TriangleSink = () => {};

function face(inside: Inside, v: number[], axis: number, sign: number, emit: TriangleSink): number {
  const u = (axis + 1) % 3, w = (axis + 2) % 3;
  const plane = v[axis] + (sign > 0 ? 1 : 0);
  // Corners counter-clockwise seen from outside: (u, w) = (0,0), (1,0), (1,1), (0,1) for +axis; reversed for -axis.
  const uw = sign > 0 ? [[0, 0], [1, 0], [1, 1], [0, 1]] : [[0, 0], [0, 1], [1, 1], [1, 0]];
  // Split edges: corner i to corner i + 1 runs along u or w at fixed other coordinate.
  // Edge midpoints first (they decide the triangle count, all a counting pass needs), then corners.
  const mids: (number[] | null)[] = [null, null, null, null];
  let splits = 0;
  for (let i = 0; i < 4; i++) {
    const [du0, dw0] = uw[i], [du1] = uw[(i + 1) % 4];
    const along = du0 !== du1 ? u : w, across = along === u ? w : u;
    const acrossAt = v[across] + (along === u ? dw0 : du0); // lattice coordinate of the edge across
    // The four voxels around the edge: this one, across the face, beside it, diagonal.
    const beside = v.slice();
    beside[across] += acrossAt > v[across] ? 1 : -1;
    const outer = v.slice();
    outer[axis] += sign;
    const diagonal = beside.slice();
    diagonal[axis] += sign;
    // Four faces at the edge: beside is outside and diagonal inside (outer is outside here).
    if (inside(beside[0], beside[1], beside[2]) || !inside(diagonal[0], diagonal[1], diagonal[2])) continue;
    const m = [0, 0, 0];
    m[axis] = plane;
    m[along] = v[along] + 0.5;
    m[across] = acrossAt;
    const d = [0, 0, 0];
    d[axis] = sign; // towards the centre of the outside voxel across the face, perpendicular to the edge
    d[across] = acrossAt > v[across] ? -1 : 1;
    m[axis] += (EPSILON * d[axis]) / Math.SQRT2;
    m[across] += (EPSILON * d[across]) / Math.SQRT2;
    mids[i] = m;
    splits++;
  }
  if (emit === NO_SINK) return splits ? 4 + splits : 2;
  const corners = uw.map(([du, dw]) => {
    const P = [0, 0, 0];
    P[axis] = plane; P[u] = v[u] + du; P[w] = v[w] + dw;
    const c = vertexConfig(inside, P[0], P[1], P[2]);
    if (TABLE.fans[c] > 1) {
      // This voxel's octant in the vertex's block, and the face towards the outside neighbour.
      const o = (v[0] - P[0] + 1) | ((v[1] - P[1] + 1) << 1) | ((v[2] - P[2] + 1) << 2);
      const k = TABLE.fan[c * 12 + faceId(axis, o & ~(1 << axis))];
      for (let a = 0; a < 3; a++) P[a] += TABLE.offset[(c * 12 + k) * 3 + a];
    }
    return P;
  });
  if (!splits) {
    emit(normal(corners[0], corners[1], corners[2]), corners[0], corners[1], corners[2]);
    emit(normal(corners[0], corners[2], corners[3]), corners[0], corners[2], corners[3]);
    return 2;
  }
  const polygon: number[][] = [];
  for (let i = 0; i < 4; i++) {
    polygon.push(corners[i]);
    if (mids[i]) polygon.push(mids[i]!);
  }
  const centre = [0, 0, 0];
  centre[axis] = plane; centre[u] = v[u] + 0.5; centre[w] = v[w] + 0.5;
  for (let i = 0; i < polygon.length; i++) {
    const a = polygon[i], b = polygon[(i + 1) % polygon.length];
    emit(normal(centre, a, b), centre, a, b);
  }
  return polygon.length;
}
