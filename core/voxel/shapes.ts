/**
 * Particle shapes and their voxelisation (seed §2.1, §3.2).
 *
 * A shape is described without a size; its characteristic size comes from the particle type's
 * size law: sphere diameter; ellipsoid, cuboid, superellipsoid longest extent (x) with ratios for
 * y and z; cylinder diameter with a length ratio (length along z); hexagonal plate diameter across
 * corners with a thickness ratio (thickness along z); an imported voxel map and the solid of an
 * implicit surface are scaled so that their longest side has the size.
 *
 * Voxelisation samples voxel centres on the integer grid centred at the origin. Each shape yields
 * its solid voxels, its shell (solid voxels with an empty 6-neighbour) and its reduced shell (seed
 * §3.2, "shell area reduction"), all as interleaved (x, y, z) coordinates centred at the origin.
 */
import { z } from 'zod';
import { implicitFunction, implicitSurfaceSchema } from '../surface/implicit';
import { solidBounds, surfaceIssues } from '../surface/solid';
import type { ParamsIssue } from '../common/engine';
import { pow } from '../common/power';

const ratio = (description: string) =>
  z.number().gt(0).max(1).default(1).meta({ unit: 'ratio', description });

export const shapeKindSchemas = {
  sphere: z.object({ kind: z.literal('sphere') }).meta({ description: 'Sphere; size = diameter.' }),
  ellipsoid: z
    .object({
      kind: z.literal('ellipsoid'),
      b: ratio('y semi-axis / x semi-axis'),
      c: ratio('z semi-axis / x semi-axis'),
    })
    .meta({ description: 'Ellipsoid; size = x axis length (the longest), b and c scale y and z.' }),
  cuboid: z
    .object({
      kind: z.literal('cuboid'),
      b: ratio('y edge / x edge'),
      c: ratio('z edge / x edge'),
    })
    .meta({ description: 'Cuboid; size = x edge (the longest), b and c scale y and z.' }),
  cylinder: z
    .object({
      kind: z.literal('cylinder'),
      length: z.number().gt(0).max(50).default(1).meta({ unit: 'ratio', description: 'length (along z) / diameter' }),
    })
    .meta({ description: 'Circular cylinder with its axis along z; size = diameter.' }),
  hexagonalPlate: z
    .object({
      kind: z.literal('hexagonalPlate'),
      thickness: z.number().gt(0).max(1).default(0.4).meta({ unit: 'ratio', description: 'thickness (along z) / diameter across corners' }),
    })
    .meta({ description: 'Hexagonal plate lying in the x-y plane; size = diameter across corners.' }),
  superellipsoid: z
    .object({
      kind: z.literal('superellipsoid'),
      b: ratio('y semi-axis / x semi-axis'),
      c: ratio('z semi-axis / x semi-axis'),
      e1: z.number().min(0.1).max(4).default(0.5).meta({ unit: 'exponent', description: "Barr's north-south roundness ε1 (1 = ellipsoid, → 0 = box)" }),
      e2: z.number().min(0.1).max(4).default(0.5).meta({ unit: 'exponent', description: "Barr's east-west roundness ε2 (1 = ellipsoid, → 0 = box)" }),
    })
    .meta({ description: "Barr's superellipsoid ((|x/a|^(2/ε2) + |y/b|^(2/ε2))^(ε2/ε1) + |z/c|^(2/ε1) ≤ 1); size = x axis length." }),
  voxels: z
    .object({
      kind: z.literal('voxels'),
      dims: z.tuple([z.number().int().min(1).max(1024), z.number().int().min(1).max(1024), z.number().int().min(1).max(1024)])
        .meta({ unit: 'voxels', description: 'map size [nx, ny, nz]' }),
      bits: z.union([z.string(), z.array(z.number().int().min(0).max(255))]).meta({
        description: 'solid map, x fastest (index x + nx*(y + ny*z)), packed 8 voxels a byte, least significant bit first; base64 or byte values',
      }),
    })
    // The map must hold every voxel of its dims: checked here, before a run is queued, not in its worker.
    .superRefine((s, ctx) => {
      const have = bitsBytes(s.bits), need = Math.ceil((s.dims[0] * s.dims[1] * s.dims[2]) / 8);
      if (have === null) ctx.addIssue({ code: 'custom', path: ['bits'], message: 'is not base64 (A-Z, a-z, 0-9, +, /, padded with = to a multiple of 4)' });
      else if (have < need) ctx.addIssue({ code: 'custom', path: ['bits'], message: `holds ${have} bytes; dims ${s.dims.join(' x ')} need ${need}` });
      // An empty map has no particle to pack (a run of it 'packed' thousands of voxel-less particles).
      else if (!hasSolid(s.bits, s.dims[0] * s.dims[1] * s.dims[2])) ctx.addIssue({ code: 'custom', path: ['bits'], message: `has no solid voxel in its ${s.dims.join(' x ')} map; at least one bit must be 1` });
    })
    // form: forms show it by its size and a thumbnail, not as its raw fields (renderer batch/schema.ts).
    .meta({ description: 'An imported solid voxel map; size = its longest side.', form: 'voxelMap' }),
  implicit: z
    .strictObject({
      kind: z.literal('implicit'),
      surface: implicitSurfaceSchema.default({ kind: 'sphere', radius: 1 }),
    })
    .meta({ description: 'The solid inside an implicit surface F = 0 (core/surface: sphere, ellipsoid, torus, superquadric, blobby sum of blobs), centred on its bounding box; size = the box\'s longest side.' }),
} as const;

export const shapeSchema = z.discriminatedUnion('kind', [
  shapeKindSchemas.sphere,
  shapeKindSchemas.ellipsoid,
  shapeKindSchemas.cuboid,
  shapeKindSchemas.cylinder,
  shapeKindSchemas.hexagonalPlate,
  shapeKindSchemas.superellipsoid,
  shapeKindSchemas.voxels,
  shapeKindSchemas.implicit,
]);
export type Shape = z.output<typeof shapeSchema>;

/** Checks of a parsed shape that need several of its fields (an implicit surface's own), each
 *  naming its field under `path`. The voxel engine's check, the shape library and the editor ask it. */
export function shapeIssues(shape: Shape, path: string): ParamsIssue[] {
  return shape.kind === 'implicit' ? surfaceIssues(shape.surface, path ? `${path}.surface` : 'surface') : [];
}

/** Default shell-reduction threshold: about half of a sphere's shell remains (see the tests). */
export const DEFAULT_REDUCTION_THRESHOLD = 0;

export interface VoxelisedShape {
  /** Bounding box of the solid voxels: [nx, ny, nz]. */
  dims: [number, number, number];
  /** Lowest coordinate of the bounding box per axis (voxel (i,j,k) of the box is at min + (i,j,k)). */
  min: [number, number, number];
  /** Solid occupancy of the bounding box, x fastest (1 = solid). */
  occupancy: Uint8Array;
  solid: Int32Array;
  shell: Int32Array;
  reducedShell: Int32Array;
  /** Largest distance of a solid voxel centre from the origin (voxels). */
  maxRadius: number;
  /** The shape's geometric centre in its voxel coordinates (0 or -0.5 per axis). */
  centre: [number, number, number];
}

/**
 * Whether the first `count` bits of a voxel map (base64 or byte values) hold a solid voxel; decodes
 * base64 a block at a time and stops at the first solid one, so a large map is not decoded whole.
 */
function hasSolid(bits: string | number[], count: number): boolean {
  const bytes = Math.ceil(count / 8);
  const solidIn = (b: number, at: number) => (at < bytes - 1 || count % 8 === 0 ? b : b & ((1 << (count % 8)) - 1)) !== 0;
  if (typeof bits !== 'string') return bits.slice(0, bytes).some((b, at) => solidIn(b, at));
  const BLOCK = 4096; // base64 characters: 3072 bytes
  for (let c = 0, at = 0; c < bits.length && at < bytes; c += BLOCK) {
    const bin = atob(bits.slice(c, c + BLOCK));
    for (let i = 0; i < bin.length && at < bytes; i++, at++) if (solidIn(bin.charCodeAt(i), at)) return true;
  }
  return false;
}

/** Bytes a voxel map's bits hold (base64 or byte values), without decoding; null when not base64. */
function bitsBytes(bits: string | number[]): number | null {
  if (typeof bits !== 'string') return bits.length;
  if (bits.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(bits)) return null;
  return (bits.length / 4) * 3 - (bits.endsWith('==') ? 2 : bits.endsWith('=') ? 1 : 0);
}

/** The solid map of a voxels shape, one byte per voxel (1 = solid), x fastest; throws when too short. */
export function decodeBits(bits: string | number[], count: number): Uint8Array {
  let bytes: Uint8Array;
  if (typeof bits === 'string') {
    const bin = atob(bits);
    bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  } else {
    bytes = Uint8Array.from(bits);
  }
  const need = Math.ceil(count / 8);
  if (bytes.length < need) throw new RangeError(`shape.bits: ${bytes.length} bytes given, dims need ${need}`);
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = (bytes[i >> 3] >> (i & 7)) & 1;
  return out;
}

/** Inside test for a point (voxel centre) of an analytic shape of characteristic size d voxels. */
function insideFunction(shape: Shape, d: number): { inside: (x: number, y: number, z: number) => boolean; half: [number, number, number] } {
  const r = d / 2;
  switch (shape.kind) {
    case 'sphere':
      return { inside: (x, y, z) => x * x + y * y + z * z <= r * r, half: [r, r, r] };
    case 'ellipsoid': {
      const a = r, b = r * shape.b, c = r * shape.c;
      return {
        inside: (x, y, z) => {
          const u = x / a, v = y / b, w = z / c;
          return u * u + v * v + w * w <= 1;
        },
        half: [a, b, c],
      };
    }
    case 'cuboid': {
      const a = r, b = r * shape.b, c = r * shape.c;
      return { inside: (x, y, z) => Math.abs(x) <= a && Math.abs(y) <= b && Math.abs(z) <= c, half: [a, b, c] };
    }
    case 'cylinder': {
      const h = (d * shape.length) / 2;
      return { inside: (x, y, z) => x * x + y * y <= r * r && Math.abs(z) <= h, half: [r, r, h] };
    }
    case 'hexagonalPlate': {
      // Corners on the x axis at distance r; flat sides at |y| = r*sqrt(3)/2.
      const h = (d * shape.thickness) / 2, s3 = Math.sqrt(3);
      return {
        inside: (x, y, z) => Math.abs(z) <= h && Math.abs(y) <= (s3 / 2) * r && s3 * Math.abs(x) + Math.abs(y) <= s3 * r,
        half: [r, (s3 / 2) * r, h],
      };
    }
    case 'superellipsoid': {
      const a = r, b = r * shape.b, c = r * shape.c, e1 = shape.e1, e2 = shape.e2;
      return {
        inside: (x, y, z) =>
          pow(pow(Math.abs(x / a), 2 / e2) + pow(Math.abs(y / b), 2 / e2), e2 / e1) + pow(Math.abs(z / c), 2 / e1) <= 1,
        half: [a, b, c],
      };
    }
    case 'implicit': {
      // The surface's box scaled so that its longest side is d, its centre at the origin.
      const fn = implicitFunction(shape.surface), b = solidBounds(shape.surface, fn);
      const k = Math.max(b[3] - b[0], b[4] - b[1], b[5] - b[2]) / d;
      const cx = (b[0] + b[3]) / 2, cy = (b[1] + b[4]) / 2, cz = (b[2] + b[5]) / 2;
      return {
        inside: (x, y, z) => fn.inside(cx + x * k, cy + y * k, cz + z * k),
        half: [(b[3] - b[0]) / (2 * k), (b[4] - b[1]) / (2 * k), (b[5] - b[2]) / (2 * k)],
      };
    }
    case 'voxels':
      throw new Error('unreachable');
  }
}

function checkSize(size: number): void {
  if (!Number.isInteger(size) || size < 1 || size > 4096) {
    throw new RangeError(`size must be an integer number of voxels in [1, 4096], got ${size}`);
  }
}

/**
 * Half-extents [hx, hy, hz] (voxels) of a shape of characteristic size d voxels along its own axes,
 * before voxelisation: a voxel map's longest side is d.
 */
export function shapeHalfExtents(shape: Shape, d: number): [number, number, number] {
  if (shape.kind !== 'voxels') return insideFunction(shape, d).half;
  const m = Math.max(...shape.dims);
  return [(shape.dims[0] * d) / m / 2, (shape.dims[1] * d) / m / 2, (shape.dims[2] * d) / m / 2];
}

/**
 * Half-extents [hx, hy, hz] of the box voxeliseShapeVoxels samples, [-h, h] voxels on each axis:
 * known before sampling, so that its size (a cylinder's box grows with its length) can be checked
 * first. A voxel map's longest side is sizeVoxels; an analytic shape's box has a voxel to spare.
 */
export function sampleHalfExtents(shape: Shape, sizeVoxels: number): [number, number, number] {
  if (shape.kind === 'voxels') {
    const [mx, my, mz] = shape.dims;
    const scale = Math.max(mx, my, mz) / sizeVoxels;
    return [Math.ceil(mx / scale / 2), Math.ceil(my / scale / 2), Math.ceil(mz / scale / 2)];
  }
  const half = insideFunction(shape, sizeVoxels).half;
  return [Math.ceil(half[0]) + 1, Math.ceil(half[1]) + 1, Math.ceil(half[2]) + 1];
}

/**
 * Voxelises a shape whose characteristic size is `sizeVoxels` voxels (an integer: sizes are
 * quantised to the grid).
 */
export function voxeliseShapeVoxels(shape: Shape, sizeVoxels: number, reductionThreshold = DEFAULT_REDUCTION_THRESHOLD): VoxelisedShape {
  checkSize(sizeVoxels);
  if (!Number.isInteger(reductionThreshold) || reductionThreshold < 0 || reductionThreshold > 26) {
    throw new RangeError(`reductionThreshold must be an integer in [0, 26], got ${reductionThreshold}`);
  }
  // Sample a symmetric integer box [-h, h]^3 around the origin.
  const [hx, hy, hz] = sampleHalfExtents(shape, sizeVoxels);
  let sample: (x: number, y: number, z: number) => boolean;
  // Voxel (x, y, z) samples the shape at (x, y, z) + offset: half a voxel on an axis whose extent
  // is an even number of voxels, so that a 40-voxel sphere is 40 voxels wide, not 41.
  const offset: [number, number, number] = [0, 0, 0];
  if (shape.kind === 'voxels') {
    const [mx, my, mz] = shape.dims;
    const src = decodeBits(shape.bits, mx * my * mz);
    const scale = Math.max(mx, my, mz) / sizeVoxels; // source voxels per target voxel
    sample = (x, y, z) => {
      // Nearest source voxel to the target voxel centre, both grids centred on the map centre.
      const sx = Math.floor((x + 0.5) * scale + mx / 2 - 1e-9), sy = Math.floor((y + 0.5) * scale + my / 2 - 1e-9), sz = Math.floor((z + 0.5) * scale + mz / 2 - 1e-9);
      if (sx < 0 || sy < 0 || sz < 0 || sx >= mx || sy >= my || sz >= mz) return false;
      return src[sx + mx * (sy + my * sz)] === 1;
    };
  } else {
    const f = insideFunction(shape, sizeVoxels);
    // An axis under half a voxel wide (0 voxels when rounded) is sampled on its centre plane, as
    // one of under a voxel is: one voxel thick. Offset, no sample would fall inside, and a plate
    // 10 voxels across and 0.1 thick would be packed as the single voxel below.
    for (let a = 0; a < 3; a++) {
      const width = Math.round(2 * f.half[a]);
      offset[a] = width > 0 && width % 2 === 0 ? 0.5 : 0;
    }
    const [o0, o1, o2] = offset;
    sample = (x, y, z) => f.inside(x + o0, y + o1, z + o2);
  }
  const bx = 2 * hx + 1, by = 2 * hy + 1, bz = 2 * hz + 1;
  const grid = new Uint8Array(bx * by * bz);
  let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  let count = 0;
  for (let k = 0; k < bz; k++) for (let j = 0; j < by; j++) for (let i = 0; i < bx; i++) {
    const x = i - hx, y = j - hy, z = k - hz;
    if (!sample(x, y, z)) continue;
    grid[i + bx * (j + by * k)] = 1;
    count++;
    lo = [Math.min(lo[0], x), Math.min(lo[1], y), Math.min(lo[2], z)];
    hi = [Math.max(hi[0], x), Math.max(hi[1], y), Math.max(hi[2], z)];
  }
  if (count === 0) {
    // A shape thinner than one voxel at this size still occupies the voxel at its centre.
    grid[hx + bx * (hy + by * hz)] = 1;
    count = 1;
    lo = [0, 0, 0];
    hi = [0, 0, 0];
  }
  const dims: [number, number, number] = [hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1];
  const occupancy = new Uint8Array(dims[0] * dims[1] * dims[2]);
  const at = (x: number, y: number, z: number) =>
    x < lo[0] || y < lo[1] || z < lo[2] || x > hi[0] || y > hi[1] || z > hi[2]
      ? 0
      : occupancy[x - lo[0] + dims[0] * (y - lo[1] + dims[1] * (z - lo[2]))];
  const solid = new Int32Array(3 * count);
  let n = 0, maxR2 = 0;
  for (let z = lo[2]; z <= hi[2]; z++) for (let y = lo[1]; y <= hi[1]; y++) for (let x = lo[0]; x <= hi[0]; x++) {
    if (grid[x + hx + bx * (y + hy + by * (z + hz))] === 0) continue;
    occupancy[x - lo[0] + dims[0] * (y - lo[1] + dims[1] * (z - lo[2]))] = 1;
    solid[n++] = x; solid[n++] = y; solid[n++] = z;
    maxR2 = Math.max(maxR2, x * x + y * y + z * z);
  }
  // Shell: a solid voxel with at least one empty 6-neighbour.
  const isShell = new Uint8Array(count);
  let shellCount = 0;
  for (let i = 0; i < count; i++) {
    const x = solid[3 * i], y = solid[3 * i + 1], z = solid[3 * i + 2];
    if (!at(x - 1, y, z) || !at(x + 1, y, z) || !at(x, y - 1, z) || !at(x, y + 1, z) || !at(x, y, z - 1) || !at(x, y, z + 1)) {
      isShell[i] = 1;
      shellCount++;
    }
  }
  const shell = new Int32Array(3 * shellCount);
  for (let i = 0, m = 0; i < count; i++) {
    if (!isShell[i]) continue;
    shell[m++] = solid[3 * i]; shell[m++] = solid[3 * i + 1]; shell[m++] = solid[3 * i + 2];
  }
  // The reduced shell so far, for the reduction's neighbour count.
  const kept = new Uint8Array(occupancy.length);
  // Shell area reduction (seed §3.2): in scan order, drop a shell voxel when more than
  // `threshold` of its face-neighbours were already kept. With threshold 0 a flat face becomes a
  // chess board; on curved shells about half of the voxels remain.
  const keptAt = (x: number, y: number, z: number) =>
    x < lo[0] || y < lo[1] || z < lo[2] || x > hi[0] || y > hi[1] || z > hi[2]
      ? 0
      : kept[x - lo[0] + dims[0] * (y - lo[1] + dims[1] * (z - lo[2]))];
  const reduced: number[] = [];
  for (let i = 0; i < shellCount; i++) {
    const x = shell[3 * i], y = shell[3 * i + 1], z = shell[3 * i + 2];
    const neighbours = keptAt(x - 1, y, z) + keptAt(x + 1, y, z) + keptAt(x, y - 1, z) + keptAt(x, y + 1, z) + keptAt(x, y, z - 1) + keptAt(x, y, z + 1);
    if (neighbours > reductionThreshold) continue;
    kept[x - lo[0] + dims[0] * (y - lo[1] + dims[1] * (z - lo[2]))] = 1;
    reduced.push(x, y, z);
  }
  return { dims, min: [lo[0], lo[1], lo[2]], occupancy, solid, shell, reducedShell: Int32Array.from(reduced), maxRadius: Math.sqrt(maxR2), centre: [-offset[0], -offset[1], -offset[2]] };
}

/**
 * The particle editor's entry point: voxelises `shape` of characteristic `size` (length units) at
 * `resolution` voxels per unit length.
 */
export function voxeliseShape(
  shape: Shape,
  size: number,
  resolution: number,
  reductionThreshold = DEFAULT_REDUCTION_THRESHOLD,
): { dims: [number, number, number]; solid: Int32Array; shell: Int32Array; reducedShell: Int32Array } {
  if (!(size > 0)) throw new RangeError(`size must be > 0 length units, got ${size}`);
  if (!(resolution > 0 && resolution <= 1000)) throw new RangeError(`resolution must be in (0, 1000] voxels/unit, got ${resolution}`);
  const v = voxeliseShapeVoxels(shapeSchema.parse(shape), quantiseSize(size, resolution), reductionThreshold);
  return { dims: v.dims, solid: v.solid, shell: v.shell, reducedShell: v.reducedShell };
}

/** A size in length units as a whole number of voxels (at least 1). */
export function quantiseSize(size: number, resolution: number): number {
  return Math.max(1, Math.round(size * resolution));
}

/**
 * Share of a voxelised shape's shell voxels that lie inside a flat face: a voxel whose neighbour
 * along some axis direction is empty, and whose four neighbours across that direction are solid
 * with the same neighbour empty (a plus of five face voxels in one plane). The reduced shell keeps
 * such a face as a chess board, and two chess boards of opposite parity pass through each other
 * (params.ts packsWithWholeShell). Spheres: 0.07-0.17 from 8 to 40 voxels across; oblate
 * ellipsoids of axis ratio 0.6 up to 0.20, of 0.3 0.37-0.55; superellipsoids at ε 0.8 up to 0.30,
 * at ε 0.5 0.44-0.49, at ε 0.3 0.62-0.75; hexagonal plates 0.45-0.80, cylinders 0.41-0.56,
 * cubes 0.73-0.95.
 */
export function flatFaceShare(v: VoxelisedShape): number {
  const { dims, min, occupancy, shell } = v;
  const [nx, ny, nz] = dims;
  const solidAt = (x: number, y: number, z: number) =>
    x >= 0 && y >= 0 && z >= 0 && x < nx && y < ny && z < nz && occupancy[x + nx * (y + ny * z)] === 1;
  // Voxel (x, y, z) of the box lies in a face open along (dx, dy, dz) (one of them ±1).
  const inFace = (x: number, y: number, z: number, dx: number, dy: number, dz: number) =>
    !solidAt(x + dx, y + dy, z + dz) &&
    (dx !== 0 || (across(x - 1, y, z, dx, dy, dz) && across(x + 1, y, z, dx, dy, dz))) &&
    (dy !== 0 || (across(x, y - 1, z, dx, dy, dz) && across(x, y + 1, z, dx, dy, dz))) &&
    (dz !== 0 || (across(x, y, z - 1, dx, dy, dz) && across(x, y, z + 1, dx, dy, dz)));
  const across = (x: number, y: number, z: number, dx: number, dy: number, dz: number) => solidAt(x, y, z) && !solidAt(x + dx, y + dy, z + dz);
  let flat = 0;
  const n = shell.length / 3;
  for (let i = 0; i < n; i++) {
    const x = shell[3 * i] - min[0], y = shell[3 * i + 1] - min[1], z = shell[3 * i + 2] - min[2];
    if (inFace(x, y, z, 0, 0, -1) || inFace(x, y, z, 0, 0, 1) || inFace(x, y, z, 0, -1, 0) || inFace(x, y, z, 0, 1, 0) || inFace(x, y, z, -1, 0, 0) || inFace(x, y, z, 1, 0, 0)) flat++;
  }
  return n === 0 ? 0 : flat / n;
}
