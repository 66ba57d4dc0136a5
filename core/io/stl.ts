/**
 * STL of packings, as two products:
 * - the whole solid phase as one watertight, manifold binary STL (solidSurfaceTriangles): every
 *   voxel face between solid and void (or the box's outside) outward, taken apart where the solid
 *   or the void touches itself only along an edge or at a corner (voxelSurface.ts);
 * - one closed, manifold surface per particle as ASCII STL with a named solid each
 *   (`solid particle_<label>`, label = table row + 1 as in the label volume and the LAMMPS id):
 *   the faces between the particle's voxels and everything else, so touching particles share no
 *   face, and a particle cut by a periodic side unwrapped into one piece (ParticleCuts). Its
 *   records have a fixed width, so that a writer can put each particle's triangles in place while
 *   it streams the volume slice by slice. Sphere sets: each sphere as an 80-triangle icosphere
 *   scaled to hold its sphere's volume (see sphereSolid).
 */
import { voxelSurface, type Inside, type TriangleSink } from './voxelSurface';

export const STL_HEADER_BYTES = 84;
export const STL_TRIANGLE_BYTES = 50;

export function stlHeader(triangles: number, title = 'PackBench particle surfaces'): Uint8Array {
  const out = new Uint8Array(STL_HEADER_BYTES);
  // Must not start with 'solid', or readers take the file for ASCII STL.
  out.set(new TextEncoder().encode(title.replace(/^solid/i, 'Solid_').slice(0, 80)));
  new DataView(out.buffer).setUint32(80, triangles, true);
  return out;
}

const ORIGIN = [0, 0, 0] as const;

function putTriangle(v: DataView, at: number, n: readonly number[], a: readonly number[], b: readonly number[], c: readonly number[], h: number, o: readonly number[]): void {
  for (let k = 0; k < 3; k++) {
    v.setFloat32(at + 4 * k, n[k], true);
    v.setFloat32(at + 12 + 4 * k, o[k] + a[k] * h, true);
    v.setFloat32(at + 24 + 4 * k, o[k] + b[k] * h, true);
    v.setFloat32(at + 36 + 4 * k, o[k] + c[k] * h, true);
  }
  v.setUint16(at + 48, 0, true);
}

/** Slices z - 1, z, z + 1 of a label volume (undefined outside it). */
export interface SliceWindow {
  below: Uint32Array | undefined;
  slice: Uint32Array;
  above: Uint32Array | undefined;
  nx: number;
  ny: number;
  z: number;
}

function labelAt(s: SliceWindow, x: number, y: number, z: number): number {
  const arr = z === s.z ? s.slice : z === s.z - 1 ? s.below : z === s.z + 1 ? s.above : undefined;
  return arr ? arr[x + s.nx * y] : 0;
}

/**
 * Binary triangle records of the whole solid phase's surface for the voxels of slice z, rows y in
 * [y0, y1), in length units (voxel edge h, voxel (0, 0, 0)'s corner at `origin`).
 */
export function solidSurfaceTriangles(s: SliceWindow, h: number, y0 = 0, y1 = s.ny, origin: readonly number[] = ORIGIN): Uint8Array {
  const { nx, ny, z } = s;
  const inside: Inside = (x, y, zz) => x >= 0 && y >= 0 && x < nx && y < ny && labelAt(s, x, y, zz) !== 0;
  const records: (readonly number[])[][] = [];
  const collect: TriangleSink = (n, a, b, c) => { records.push([n, a, b, c]); };
  for (let y = y0; y < y1; y++) for (let x = 0; x < nx; x++) if (s.slice[x + nx * y] !== 0) voxelSurface(inside, x, y, z, collect);
  const out = new Uint8Array(records.length * STL_TRIANGLE_BYTES);
  const v = new DataView(out.buffer);
  records.forEach(([n, a, b, c], t) => putTriangle(v, t * STL_TRIANGLE_BYTES, n, a, b, c, h, origin));
  return out;
}

/**
 * Where each particle of a periodic packing is cut open: along a periodic axis its voxels are
 * taken in the window [cut, cut + n) (voxels below the cut moved up by n), the window centred on
 * the particle's circular mean position. A particle narrower than the box is then one piece.
 */
export class ParticleCuts {
  /** cos and sin sums per label and periodic axis: [4 * (label - 1) + 2 * axis + (0 cos | 1 sin)]. */
  private readonly sums: Float64Array;
  constructor(readonly labels: number, readonly nx: number, readonly ny: number, readonly periodic: readonly [boolean, boolean]) {
    this.sums = new Float64Array(4 * labels);
  }

  /** Adds the voxels of z-slices (nx * ny each, any number of them). */
  add(slab: Uint32Array): void {
    const { nx, ny, sums } = this;
    const ax = (2 * Math.PI) / nx, ay = (2 * Math.PI) / ny;
    for (let i = 0; i < slab.length; i++) {
      const l = slab[i];
      if (l === 0 || l > this.labels) continue;
      const x = i % nx, y = Math.floor(i / nx) % ny, k = 4 * (l - 1);
      sums[k] += Math.cos(ax * (x + 0.5)); sums[k + 1] += Math.sin(ax * (x + 0.5));
      sums[k + 2] += Math.cos(ay * (y + 0.5)); sums[k + 3] += Math.sin(ay * (y + 0.5));
    }
  }

  /** The cut of a label along axis 0 (x) or 1 (y): 0 on a non-periodic axis. */
  cut(label: number, axis: 0 | 1): number {
    if (!this.periodic[axis]) return 0;
    const n = axis === 0 ? this.nx : this.ny, k = 4 * (label - 1) + 2 * axis;
    const mean = ((Math.atan2(this.sums[k + 1], this.sums[k]) / (2 * Math.PI)) * n + n) % n;
    return ((Math.round(mean - n / 2) % n) + n) % n;
  }
}

/** One particle's surface from a slice window: its inside test in its unwrapped frame. */
export class ParticleSurface {
  private label = 0;
  private cx = 0;
  private cy = 0;
  private window!: SliceWindow;
  readonly inside: Inside = (u, v, z) => {
    const { nx, ny } = this.window;
    if (u < this.cx || u >= this.cx + nx || v < this.cy || v >= this.cy + ny) return false;
    return labelAt(this.window, u >= nx ? u - nx : u, v >= ny ? v - ny : v, z) === this.label;
  };
  constructor(private readonly cuts: ParticleCuts) {}

  /** Emits the triangles of voxel (x, y) of the window's slice (its label's particle), in unwrapped voxel coordinates. */
  voxel(w: SliceWindow, x: number, y: number, emit: TriangleSink): number {
    this.window = w;
    this.label = w.slice[x + w.nx * y];
    this.cx = this.cuts.cut(this.label, 0);
    this.cy = this.cuts.cut(this.label, 1);
    return voxelSurface(this.inside, x < this.cx ? x + w.nx : x, y < this.cy ? y + w.ny : y, w.z, emit);
  }
}

// ---------------------------------------------------------------------------------------------
// ASCII STL with fixed-width records

const NUMBER_WIDTH = 16;
/** Nine significant digits, padded to a fixed width: distinct vertices stay distinct, equal ones print equal. */
function fixed(x: number): string {
  let text = FIXED.get(x);
  if (text === undefined) {
    // Coordinates repeat (lattice points, a few offsets): a bounded cache saves most of the formatting.
    if (FIXED.size > 1 << 16) FIXED.clear();
    FIXED.set(x, (text = (x === 0 ? 0 : x).toExponential(8).padStart(NUMBER_WIDTH)));
  }
  return text;
}
const FIXED = new Map<number, string>();
const triple = (p: readonly number[], h: number, o: readonly number[]) => `${fixed(o[0] + p[0] * h)} ${fixed(o[1] + p[1] * h)} ${fixed(o[2] + p[2] * h)}`;

/** One facet, its vertices at origin + h * vertex. */
export function asciiFacet(n: readonly number[], a: readonly number[], b: readonly number[], c: readonly number[], h = 1, origin: readonly number[] = ORIGIN): string {
  return `facet normal ${triple(n, 1, ORIGIN)}\nouter loop\nvertex ${triple(a, h, origin)}\nvertex ${triple(b, h, origin)}\nvertex ${triple(c, h, origin)}\nendloop\nendfacet\n`;
}
/** Bytes of one asciiFacet record. */
export const ASCII_FACET_BYTES = asciiFacet([0, 0, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0]).length;

export const solidName = (label: number) => `particle_${label}`;
export const asciiSolidHead = (label: number) => `solid ${solidName(label)}\n`;
export const asciiSolidTail = (label: number) => `endsolid ${solidName(label)}\n`;

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

/**
 * The radius of the icosphere's vertices per unit sphere radius (about 1.046): with its vertices
 * on the sphere the polyhedron holds only 0.873 of the sphere's volume, so volumes and porosities
 * measured on the STL would be 13 % off; scaled by this it holds exactly the sphere's volume.
 */
export const SPHERE_VERTEX_SCALE = Math.cbrt(((4 / 3) * Math.PI) / UNIT_SPHERE.reduce((v, [a, b, c]) =>
  // Signed volume of the tetrahedron (origin, a, b, c): the triangles are outward, so all positive.
  v + (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6, 0));

/** ASCII solid of sphere `label` (row + 1): an icosphere at (x, y, z) holding the volume of the sphere of radius r. */
export function sphereSolid(label: number, x: number, y: number, z: number, r: number): string {
  let text = asciiSolidHead(label);
  const s = r * SPHERE_VERTEX_SCALE;
  for (const tri of UNIT_SPHERE) {
    const n = [(tri[0][0] + tri[1][0] + tri[2][0]) / 3, (tri[0][1] + tri[1][1] + tri[2][1]) / 3, (tri[0][2] + tri[1][2] + tri[2][2]) / 3];
    const nl = Math.hypot(n[0], n[1], n[2]);
    const place = (p: number[]) => [x + s * p[0], y + s * p[1], z + s * p[2]];
    text += asciiFacet(n.map((c) => c / nl), place(tri[0]), place(tri[1]), place(tri[2]));
  }
  return text + asciiSolidTail(label);
}
