/**
 * Parameters of the voxel packing engine: the zod schema the batch manager renders as a form and
 * `packbench run` validates, and the checks that need several fields at once.
 */
import { z } from 'zod';
import { WORKER_BYTES, valueAt, writtenAt, type ParamsIssue } from '../common/engine';
import { Kept } from '../common/kept';
import { flatFaceShare, quantiseSize, shapeHalfExtents, shapeIssues, shapeSchema, voxeliseShapeVoxels, type Shape } from './shapes';
import { solidBounds } from '../surface/solid';
import { bitMatrixBytes } from './bit-matrix';
import { WASM_WINDOW_BYTES } from './wasm-kernels';
import { idMatrixBytes } from './id-matrix';
import { voxelAnalysisOptionsSchema } from '../analysis/index';
import { UNITS } from '../common/units';
import { powInt } from '../common/power';

const positiveLength = (description: string, dflt: number) =>
  z.number().gt(0).max(1e6).default(dflt).meta({ unit: UNITS.length, description });

/** The voxel engine's id: its specs say `"engine": "voxel"`; the particle editor's mixture is its params. */
export const VOXEL_ENGINE_ID = 'voxel';

export const sizeLawSchema = z.discriminatedUnion('law', [
  z.object({ law: z.literal('fixed'), value: positiveLength('the size', 1) }).meta({ description: 'every particle the same size' }),
  z.object({ law: z.literal('uniform'), min: positiveLength('smallest size', 0.5), max: positiveLength('largest size', 1) })
    .refine((s) => s.max >= s.min, { path: ['max'], error: (iss) => `must be ≥ min (${(iss.input as { min: number }).min}), got ${(iss.input as { max: number }).max}` })
    .meta({ description: 'sizes uniform in [min, max]' }),
  z.object({
    law: z.literal('normal'),
    mean: positiveLength('mean size', 1),
    sd: z.number().min(0).max(1e6).default(0.1).meta({ unit: UNITS.length, description: 'standard deviation' }),
  }).meta({ description: 'normal, truncated to mean ± 4 sd and to sizes > 0' }),
  z.object({
    law: z.literal('lognormal'),
    median: positiveLength('median size', 1),
    sigma: z.number().min(0).max(3).default(0.2).meta({ description: 'standard deviation of ln(size), without a unit' }),
  }).meta({ description: 'log-normal, truncated to median · exp(± 4 sigma)' }),
  z.object({
    law: z.literal('table'),
    sizes: z.array(z.number().gt(0).max(1e6)).min(1).max(10000).meta({ unit: UNITS.length, description: 'sizes' }),
    // Bounded as mixture fractions are: two weights of 1e308 summed to Infinity, and every draw was the last size.
    weights: z.array(z.number().min(0).max(1e9)).min(1).max(10000).meta({ unit: 'weight', description: 'relative weight of each size (number basis)' }),
  }).refine((s) => s.sizes.length === s.weights.length, {
    path: ['weights'],
    error: (iss) => `must have one weight per size: ${(iss.input as { sizes: number[] }).sizes.length} sizes, got ${(iss.input as { weights: number[] }).weights.length} weights`,
  })
    .refine((s) => s.weights.some((w) => w > 0), { message: 'at least one weight must be > 0', path: ['weights'] })
    .meta({ description: 'a discrete size distribution' }),
]);
export type SizeLaw = z.output<typeof sizeLawSchema>;

const degrees = z.number().int().min(0).max(180);

export const particleTypeSchema = z.object({
  name: z.string().max(100).default('').meta({ description: 'label shown in tables and plots' }),
  shape: shapeSchema.default({ kind: 'sphere' }),
  size: sizeLawSchema.default({ law: 'fixed', value: 1 }).meta({ description: "the shape's characteristic size (see the shape)" }),
  fraction: z.number().min(0).max(1e9).default(1).meta({ unit: 'share', description: 'share of this type in the mixture (normalised over types; number or volume basis, see mixture.basis)' }),
  maxRotation: z.tuple([degrees, degrees, degrees]).default([180, 180, 180]).meta({
    unit: UNITS.angle,
    description: 'largest rotation about x, y, z relative to the initial orientation (0 = none, 180 = free)',
  }),
  rotationStep: z.number().int().min(0).max(180).default(0).meta({
    unit: UNITS.angle,
    description: 'largest change of each rotation angle in one move (0 = automatic: the angle that moves the outermost voxel by about one voxel). Large steps let hollow shells jump through each other',
  }),
  orientation: z.enum(['random', 'aligned']).default('random').meta({
    description: "initial orientation: 'random' integer degrees, or 'aligned' with the shape's own axes (plates flat)",
  }),
});
export type ParticleType = z.output<typeof particleTypeSchema>;

export const optimisationsSchema = z.object({
  trigTables: z.boolean().default(true).meta({ description: 'seed §3.1: sine/cosine tables at integer degrees (Fig. 10 B)' }),
  fastRounding: z.boolean().default(true).meta({ description: 'seed §3.1: cheap float-to-int rounding instead of Math.round (C)' }),
  savedRotations: z.boolean().default(true).meta({ description: 'seed §3.2: keep each active particle\'s rotated voxels to remove it without rotating again (D)' }),
  risingRoof: z.boolean().default(true).meta({ description: 'seed §3.6: insert new particles just above the frozen bed, not at the box top (E)' }),
  cheapModulus: z.boolean().default(true).meta({ description: 'seed §3.3: wrap x/y only near the edge, by one subtraction (F)' }),
  shellReduction: z.boolean().default(true).meta({ description: "seed §3.2: pack with the reduced shell, about half of the shell voxels (G); cuboids, hexagonal plates, cylinders, other shapes with more than a third of their shell in flat faces (boxy superellipsoids, thin ellipsoids, imported cubes) and a type held 'aligned' with a maxRotation of 0 about any axis keep their whole shell (their flat chessboards land on the grid and would pass through each other)" }),
  simdKernels: z.boolean().default(true).meta({
    description: 'not in the seed: particles rotated, tested and written in WebAssembly SIMD, four voxels a step (bit matrices of any size: above 512 MiB through a window of planes; with B, C, D and F on; H)',
  }),
  bricks: z.boolean().default(true).meta({
    description: "not in the seed: the bit matrix in bricks of 8 × 8 × 8 voxels, one cache line each, instead of the seed's rows of words (fewer cache lines per particle: faster in large boxes; I)",
  }),
});
export type Optimisations = z.output<typeof optimisationsSchema>;

/**
 * The structure analysis after packing (core/analysis): the options of analyseVoxelPacking a user
 * may want to change. Without a label volume only the size and orientation parts run.
 */
export const analysisSchema = voxelAnalysisOptionsSchema
  .pick({ sliceThickness: true, topPercentile: true, angleBins: true, bodyAxis: true, sizeBins: true, poreBins: true, poreGridVoxels: true })
  .extend({
    enabled: z.boolean().default(true).meta({
      description: 'analyse the finished packing: porosity and its profile, height map and roughness, orientations, coordination, pore and size distributions',
    }),
  })
  .meta({ description: 'structure analysis of the finished packing (skipped for cancelled runs)' });
export type AnalysisParams = z.output<typeof analysisSchema>;

export const voxelParamsSchema = z.object({
  box: z.object({
    size: z.tuple([positiveLength('box x', 10), positiveLength('box y', 10), positiveLength('box z (height)', 10)])
      .default([10, 10, 10]).meta({ unit: UNITS.length, description: 'box edge lengths [x, y, z]; x and y are periodic; each a whole number of voxels (length × resolution)' }),
    resolution: z.number().gt(0).max(1000).default(20).meta({ unit: UNITS.resolution, description: 'voxels per unit length' }),
    top: z.enum(['ceiling', 'open']).default('ceiling').meta({
      description: "'ceiling': a solid lid at the box height; 'open': particles may stick out of the top while packing (and be taller than the box), and those whose centre ends above the box height are left out of the result",
    }),
  }).default({ size: [10, 10, 10], resolution: 20, top: 'ceiling' }),
  mixture: z.object({
    basis: z.enum(['number', 'volume']).default('number').meta({ description: 'whether type fractions count particles or solid volume' }),
    types: z.array(particleTypeSchema).min(1).max(64).default([particleTypeSchema.parse({})]),
  }).default({ basis: 'number', types: [particleTypeSchema.parse({})] }),
  reboundProbability: z.number().min(0).max(1).default(0.25).meta({
    unit: 'probability',
    description: 'probability that the upward z component of a move is kept (seed §2.2)',
  }),
  reboundRule: z.enum(['component', 'move']).default('component').meta({
    description:
      "what happens to a move whose upward component is not kept (seed §2.2 reads both ways): 'component' = the component is dropped and the particle still moves in x and y; " +
      "'move' = the whole move is dropped and the particle stays where it is that time step (fewer moves, looser packings: at 256^3 with 20-voxel spheres 0.60x the moves, bulk solid fraction 0.540 against 0.567)",
  }),
  freezingInterval: z.number().int().min(1).max(1e6).default(100).meta({
    unit: 'steps',
    description: 'every t_f steps, particles that have not moved since the last check are frozen (seed §3.5). Under 10 steps particles still falling freeze in mid-air (a warning says so); shorter intervals pack looser',
  }),
  insertionInterval: z.number().int().min(1).max(1e6).default(1).meta({ unit: 'steps', description: 'a new particle is tried every n-th time step' }),
  insertionTries: z.number().int().min(1).max(1e7).default(200).meta({
    unit: 'tries',
    description: "the box is full after this many failed insertions in a row at the top of the box. A particle is inserted there only where its bounding cube clears the highest frozen particle top in a footprint wider than itself, so under a ceiling 'full' leaves the valleys of the last layer empty: the mean top surface ends 1.5-1.8 diameters below the lid (16-voxel spheres in 96^3: 1.55), with room for more particles there; more tries do not change it (5000: the same count). For a bed up to a lid, pack a box about two diameters taller",
  }),
  stop: z.object({
    particles: z.number().int().min(0).max(1e8).default(0).meta({ unit: 'particles', description: 'stop inserting at this many particles (0 = until full)' }),
    solidFraction: z.number().min(0).max(1).default(0).meta({ unit: 'fraction', description: "stop inserting when the particles' solid voxels add up to this share of the box (0 = until full). A voxel two particles claim counts twice here, and the settling passes afterwards change how many they share, so the run's boxSolidFraction ends below or above it by about its overlapFraction: asked 0.2, 16-voxel spheres end at 0.201; asked 0.3, 8-voxel spheres at 0.293" }),
    maxSteps: z.number().int().min(1).max(1e9).default(10_000_000).meta({ unit: 'steps', description: 'hard limit on time steps' }),
    settle: z.boolean().default(true).meta({ description: 'after the last insertion keep stepping until every particle is frozen' }),
  }).default({ particles: 0, solidFraction: 0, maxSteps: 10_000_000, settle: true }),
  matrix: z.enum(['bit', 'id']).default('bit').meta({ description: "packing matrix: 'bit' (1 bit per voxel) or 'id' (32-bit particle id per voxel, Jia & Williams)" }),
  optimisations: optimisationsSchema.default(optimisationsSchema.parse({})),
  reductionThreshold: z.number().int().min(0).max(6).default(0).meta({
    unit: 'neighbours',
    description: 'shell area reduction drops a shell voxel when more of its face-neighbours than this were already kept (0: a chess board on flat faces, about half of a sphere shell)',
  }),
  finalSettling: z.boolean().default(true).meta({
    description: 'after packing, move particles that interpenetrate by more than one voxel (all their solid voxels, not the reduced shell they were packed with) apart by one-voxel steps until no pair is deeper than one voxel (metric interpenetrationVoxels; packedInterpenetrationVoxels before the pass)',
  }),
  labelVolume: z.enum(['auto', 'on', 'off']).default('auto').meta({
    description: "write the labelled voxel volume artifact: 'auto' = when the box is at most 512^3 voxels",
  }),
  analysis: analysisSchema.default(analysisSchema.parse({})),
}).meta({
  description: 'Voxel-based Monte Carlo packing (Byholm, Toivakka & Westerholm 2009). With threads, particles of one colour of the x–y cells move at once; the thread count does not change the packing.',
});
export type VoxelParams = z.output<typeof voxelParamsSchema>;

/** Largest size a law can produce (the truncation bound of normal and log-normal). */
export function maxSize(law: SizeLaw): number {
  switch (law.law) {
    case 'fixed': return law.value;
    case 'uniform': return law.max;
    case 'normal': return law.mean + 4 * law.sd;
    case 'lognormal': return law.median * Math.exp(4 * law.sigma);
    case 'table': return Math.max(...law.sizes.filter((_, i) => law.weights[i] > 0));
  }
}

/** Smallest size a law can produce. */
export function minSize(law: SizeLaw): number {
  switch (law.law) {
    case 'fixed': return law.value;
    case 'uniform': return law.min;
    case 'normal': return Math.max(law.mean - 4 * law.sd, 0);
    case 'lognormal': return law.median * Math.exp(-4 * law.sigma);
    case 'table': return Math.min(...law.sizes.filter((_, i) => law.weights[i] > 0));
  }
}

/** Diameter of the sphere around a shape of characteristic size 1 (its longest diagonal). */
export function boundingDiameter(shape: Shape): number {
  switch (shape.kind) {
    case 'sphere': return 1;
    case 'ellipsoid': return 1;
    case 'cuboid':
    case 'superellipsoid': return Math.hypot(1, shape.b, shape.c);
    case 'cylinder': return Math.hypot(1, shape.length);
    case 'hexagonalPlate': return Math.hypot(1, shape.thickness);
    case 'voxels': return Math.hypot(...shape.dims) / Math.max(...shape.dims);
    case 'implicit': {
      const b = solidBounds(shape.surface);
      const side = [b[3] - b[0], b[4] - b[1], b[5] - b[2]];
      return Math.hypot(...side) / Math.max(...side);
    }
  }
}

/**
 * Width (voxels) a particle of the type spans across x or y at its largest size, under every
 * orientation it can take: its bounding diameter, or for a type held 'aligned' (initial rotation 0)
 * at most 2 h + 1 for the largest |x| or |y| offset h any of its voxels reaches from its reference
 * voxel turned by at most maxRotation: an upright rod of 8 x 80 voxels held at [0, 0, 0] spans 11
 * (offsets within ±4.5 before rounding), where its bounding diameter is 81. The offsets are within
 * half the shape's box + 0.5 (the sampling offset, shapes.ts); turned about x, then y, then z
 * (rotation.ts), each by at most its limit, a half-width grows by at most the sine of the limit
 * times the other half-width of that plane, and never past their hypotenuse (the rotation keeps
 * it); rounded as the voxels are (rotatedReach).
 */
export function widthAcross(t: ParticleType, resolution: number): number {
  const d = boundingDiameter(t.shape) * maxSize(t.size) * resolution;
  if (t.orientation === 'random') return d;
  const [hx, hy, hz] = shapeHalfExtents(t.shape, quantiseSize(maxSize(t.size), resolution)).map((h) => h + 0.5);
  return Math.min(d, 2 * alignedReachAcross(t.maxRotation, hx, hy, hz) + 1);
}

/**
 * The largest |x| or |y| (voxels, rounded as the voxels are) of a point within ±hx, ±hy, ±hz of the
 * origin turned about x, then y, then z by at most maxRotation from 0 (a type held 'aligned'); see
 * widthAcross. The packer bounds its self masks' periodic images with it (packer.ts selfBias).
 */
export function alignedReachAcross(maxRotation: readonly number[], hx: number, hy: number, hz: number): number {
  const [sx, sy, sz] = maxRotation.map((m) => Math.sin((Math.min(m, 90) * Math.PI) / 180));
  const y1 = Math.min(hy + sx * hz, Math.hypot(hy, hz)), z1 = Math.min(sx * hy + hz, Math.hypot(hy, hz));
  const x2 = Math.min(hx + sy * z1, Math.hypot(hx, z1));
  const x3 = Math.min(x2 + sz * y1, Math.hypot(x2, y1)), y3 = Math.min(y1 + sz * x2, Math.hypot(x2, y1));
  return Math.floor(Math.max(x3, y3) + 0.5 + 0.01);
}

/**
 * Radius of the largest ball about the shape's centre inside a shape of characteristic size 1: the
 * least height of its centre when it rests on a floor, however it lies. 0 where none is known
 * simply (superellipsoids beyond ellipsoids, which may rest lower; voxel and implicit shapes).
 */
export function inscribedRadius(shape: Shape): number {
  switch (shape.kind) {
    case 'sphere': return 0.5;
    case 'ellipsoid':
    case 'cuboid': return Math.min(1, shape.b, shape.c) / 2;
    // Between a box and an ellipsoid of these axes (ε ≤ 1), it holds the ellipsoid.
    case 'superellipsoid': return shape.e1 <= 1 && shape.e2 <= 1 ? Math.min(1, shape.b, shape.c) / 2 : 0;
    case 'cylinder': return Math.min(1, shape.length) / 2;
    // Across its flats a hexagon is √3/2 of its diameter across corners.
    case 'hexagonalPlate': return Math.min(Math.sqrt(3) / 2, shape.thickness) / 2;
    case 'voxels':
    case 'implicit': return 0;
  }
}

/**
 * Largest reach, in voxels, of a particle of `sizeVoxels` from its reference voxel under any
 * rotation, at least the packer's extent (packer.ts: ceil of its farthest voxel + 0.5): its voxels
 * lie within half the bounding diameter of the shape's centre, which is at most half a voxel on
 * each axis from the reference voxel (voxeliseShapeVoxels' sampling offset).
 */
export function extentBound(shape: Shape, sizeVoxels: number): number {
  return Math.ceil((boundingDiameter(shape) * sizeVoxels) / 2 + Math.sqrt(3) / 2 + 0.5);
}

/**
 * The types drawn: those with a share. A type of fraction 0 takes no part (a user leaves it in the
 * list at 0 to try it later), so neither its size nor its shape's extent bounds the box, the
 * matrix or the estimate: a fraction-0 type of 5 units in a box of 3 was refused for its size.
 */
export function drawnTypes(p: VoxelParams): ParticleType[] {
  return p.mixture.types.filter((t) => t.fraction > 0);
}

/**
 * Box size in voxels; the z extent of the packing matrix adds headroom for an open top. The sides
 * are whole voxels (checkParams refuses others); rounding only drops floating-point error.
 */
export function boxVoxels(p: VoxelParams): { nx: number; ny: number; nz: number; nzMatrix: number; maxExtent: number } {
  const r = p.box.resolution;
  const [nx, ny, nz] = p.box.size.map((l) => Math.max(1, Math.round(l * r)));
  let maxExtent = 0; // largest particle bounding diameter in voxels
  for (const t of drawnTypes(p)) maxExtent = Math.max(maxExtent, Math.ceil(boundingDiameter(t.shape) * maxSize(t.size) * r) + 3);
  return { nx, ny, nz, nzMatrix: p.box.top === 'open' ? nz + maxExtent : nz, maxExtent };
}

export const LABEL_AUTO_LIMIT = 512 * 512 * 512;
/** Largest label volume: one Uint32Array of at most 1 GiB. */
export const LABEL_MAX_VOXELS = 1 << 28;

export function labelsEnabled(p: VoxelParams): boolean {
  const { nx, ny, nz } = boxVoxels(p);
  const n = nx * ny * nz;
  return p.labelVolume === 'on' || (p.labelVolume === 'auto' && n <= LABEL_AUTO_LIMIT);
}

/**
 * Smallest particle size in voxels (the shape's characteristic size × box.resolution), with the
 * whole shell and with the reduced one. Below, particles pack through each other: 300 spheres
 * (fixed size, seed 1, default parameters) leave overlapFraction 6.2 / 4.1 / 3.8 / 0.67 / 0.47 %
 * at 2 / 3 / 4 / 5 / 6 voxels with the whole shell, and with the reduced shell, whose one-voxel
 * holes are as large as such a particle's features (seed §3.2 assumes particles much larger),
 * 36 / 15 / 23 / 9.3 / 5.5 / 2.4 / 1.0 / 0.62 / 0.21 % at 2 / 3 / 4 / 5 / 6 / 8 / 10 / 12 / 16
 * voxels; ellipsoids (1 × 0.6 × 0.6) and hexagonal plates (thickness 0.4) a little more (whole
 * shell at 6 voxels 1.8 and 1.1 %). The examples (16-voxel spheres) run at 0.2 %. The reduced
 * shell's limit is the seed's own smallest particle (Fig. 12: 0.4 mm spheres at 20 voxels/mm, also
 * the bench's polydisperse case at 20 voxels/unit, and its rods 8 voxels across): from there the
 * overlap falls below a few per cent; below it rises to 5.5-36 %.
 */
export const MIN_PARTICLE_VOXELS = { wholeShell: 5, reducedShell: 8 };

/**
 * Whether the packer moves a type's whole shell rather than the reduced one (seed §3.2), and so
 * which of the limits above holds for it. A particle at the grid's orientation keeps the reduced
 * shell's flat chessboards on the grid: two of them one voxel apart (moves change x + y + z by an
 * odd number) are complementary and pass through each other. With two angles at 0 a coordinate is
 * not turned at all (rotation.ts: z = z0 at ax = ay = 0, x = x0 at ay = az = 0, y = y0 at
 * ax = az = 0), so a type held 'aligned' (angles start at 0) with an axis that never turns lands
 * faces on the grid whenever one other angle passes 0, and turning about one axis only always.
 * Aligned spheres at maxRotation [0, 0, 0] claimed 17.8 % of their voxels twice, upright rods 18 %,
 * cuboids at [0, 0, 180] 6.8 %, at [20, 20, 0] 8.8 % (as packed; turning about all three axes
 * 0.3 %, as turned at random): such a type is packed with its whole shell.
 *
 * So is every type of a shape with flat faces (FLAT_FACED), however it turns: a move changes x and
 * y by ±1 each, so x + y keeps its parity, and two such particles whose horizontal faces' chess
 * boards have opposite parities (half the pairs, by where they were inserted) pass through each
 * other wherever both lie flat, as platelets and rods come to rest on a bed (their tilts blocked):
 * then they sink into each other's hollow interior. Free hexagonal plates of 26 voxels, thickness
 * 0.15, 96² × 64 voxels, seed 1, as packed: 44 pairs deeper than one voxel (deepest 9.6 voxels), 0.45 %
 * of the voxels claimed twice, against none, 0.015 % with the whole shell; after the final settling
 * pass (which had 163 moves to make, none with the whole shell) 0.13 against 0.015 %, in about the
 * same CPU time. Other shapes are judged by their voxels: more than FLAT_FACE_SHARE of the shell in
 * flat faces, and they sink the same way.
 */
export function packsWithWholeShell(t: ParticleType, o: Optimisations, resolution: number): boolean {
  return !o.shellReduction || (t.orientation === 'aligned' && t.maxRotation.some((m) => m === 0)) || hasFlatFaces(t, resolution);
}

/** Shapes whose faces are flat by construction (packsWithWholeShell). */
const FLAT_FACED: ReadonlySet<Shape['kind']> = new Set(['cuboid', 'hexagonalPlate', 'cylinder']);

/**
 * Share of the shell in flat faces (shapes.ts flatFaceShare) above which a shape of another kind
 * packs with its whole shell too. Those whose faces are flat only as voxelised (boxy
 * superellipsoids, thin ellipsoids, imported voxel maps, implicit solids) sink into each other as
 * the plates did. Free particles as packed, 96² × 64 voxels, no final settling, seeds 1 and 2,
 * pairs deeper than one voxel, reduced against whole shell: spheres of 16 voxels (share 0.15) 20
 * and 20 against 0 and 0, ellipsoids 1 : 1 : 0.6 (0.17) 21 and 28 against 1 and 0, superellipsoids
 * at ε 0.8 (0.29) 13 and 9 against 0 and 0: the curved shell's own; ellipsoids 1 : 1 : 0.3 (0.39)
 * 52 and 64 against 1 and 3, 1 : 1 : 0.15 (0.67) 53 and 51 (deepest 9.4 voxels) against 5 and 2,
 * superellipsoid plates 1 : 1 : 0.15 at ε 0.5 16 and 13 (deepest 18.7) against 1 and 1, an
 * imported cube of 11 voxels (0.82) 34 and 33 (3.0 and 1.1 % of the voxels claimed twice) against
 * 2 and 0 (0.011 and 0.028 %). The threshold lies between 0.30 and 0.37, the largest and smallest
 * share of the two groups from 8 to 40 voxels across.
 */
const FLAT_FACE_SHARE = 1 / 3;

/** Whether a type's shape has flat faces: by construction, or by its share at its typical size (kept by shape). */
function hasFlatFaces(t: ParticleType, resolution: number): boolean {
  if (FLAT_FACED.has(t.shape.kind)) return true;
  const size = Math.min(quantiseSize(typicalSize(t.size), resolution), COUNT_SIZE_VOXELS);
  return flatShares.get(JSON.stringify([t.shape, size]), () => flatFaceShare(voxeliseShapeVoxels(t.shape, size))) > FLAT_FACE_SHARE;
}
const flatShares = new Kept<number>(64);

/**
 * The typed size of a law below `minVoxels` at `resolution`, or null. The normal and log-normal
 * laws are judged by their mean and median (a draw from their tails below is packed as drawn).
 */
function belowVoxels(law: SizeLaw, resolution: number, minVoxels: number): { field: string; value: number } | null {
  // Within 1e-9 of the limit is at it (0.6 × 10 is 6 here, however it rounds).
  const small = (v: number) => v * resolution < minVoxels * (1 - 1e-9);
  switch (law.law) {
    case 'fixed': return small(law.value) ? { field: 'value', value: law.value } : null;
    case 'uniform': return small(law.min) ? { field: 'min', value: law.min } : null;
    case 'normal': return small(law.mean) ? { field: 'mean', value: law.mean } : null;
    case 'lognormal': return small(law.median) ? { field: 'median', value: law.median } : null;
    case 'table': {
      const k = law.sizes.findIndex((v, j) => law.weights[j] > 0 && small(v));
      return k < 0 ? null : { field: `sizes.${k}`, value: law.sizes[k] };
    }
  }
}

/** A length of `voxels` voxels, to twelve significant digits (4.05, not 4.050000000000001). */
const voxelsToLength = (voxels: number, resolution: number): number => Number((voxels / resolution).toPrecision(12));

/**
 * Each box side that is not a whole number of voxels at the resolution. The packing matrix has whole
 * voxels only, so such a side was simulated rounded to the nearest voxel, up or down (3 × 3 × 2.04
 * at 20 voxels/unit packed a box 2.05 high), and the solid fractions described that box, not the
 * one typed. Refused with the two nearest sides that are whole (a product within 1e-9 of a whole
 * number is whole: 4.1 × 30 is 122.99999999999999 in floating point).
 */
function fractionalSides(p: VoxelParams): ParamsIssue[] {
  const r = p.box.resolution;
  const issues: ParamsIssue[] = [];
  p.box.size.forEach((l, a) => {
    const v = l * r, whole = Math.round(v);
    if (Math.abs(v - whole) <= 1e-9 * Math.max(1, v)) return;
    const below = Math.floor(v), above = Math.ceil(v);
    const allowed = below >= 1 ? `are ${voxelsToLength(below, r)} and ${voxelsToLength(above, r)}` : `is ${voxelsToLength(above, r)}`;
    issues.push({
      path: `box.size.${a}`,
      message: `${l} units is ${Number(v.toPrecision(6))} voxels at box.resolution ${r} voxels/unit; each side must be a whole number of voxels (the packing matrix has no part voxels): the nearest allowed ${allowed}, or a resolution that makes it whole`,
    });
  });
  return issues;
}

/**
 * analysis.sliceThickness, unless absent (one voxel): the porosity profile sums whole voxel planes,
 * so it must be a whole number of voxels from one to the box height. The analysis rounded any other
 * to the nearest whole number, at least one (0.14 at 10 voxels/unit was 0.1, 0.03 was 0.1), and a
 * slice taller than the box was one slice of the box: a profile of slices the user did not ask for.
 */
function sliceIssues(p: VoxelParams, nz: number): ParamsIssue[] {
  const t = p.analysis.sliceThickness;
  if (t === undefined) return [];
  const r = p.box.resolution, v = t * r, whole = Math.round(v);
  const isWhole = Math.abs(v - whole) <= 1e-9 * Math.max(1, v);
  if (isWhole && whole >= 1 && whole <= nz) return [];
  const range = `a whole number of voxels from ${voxelsToLength(1, r)} (one voxel) to ${voxelsToLength(nz, r)} (the box height)`;
  const below = Math.min(Math.max(1, Math.floor(v)), nz), above = Math.max(1, Math.min(Math.ceil(v), nz));
  const nearest = below === above ? `${voxelsToLength(below, r)}` : `are ${voxelsToLength(below, r)} and ${voxelsToLength(above, r)}`;
  return [{
    path: 'analysis.sliceThickness',
    message: `${t} units is ${Number(v.toPrecision(6))} voxels at box.resolution ${r} voxels/unit; the porosity profile is summed over whole voxel planes: allowed ${range}, the nearest ${below === above ? 'is ' : ''}${nearest}`,
  }];
}

/** The engine's cross-field checks (EngineDefinition.check): every issue, each naming its field and the allowed range. */
export function checkParams(p: VoxelParams): ParamsIssue[] {
  // The other checks count the box in voxels: first it must be whole voxels.
  const issues = fractionalSides(p);
  if (issues.length > 0) return issues;
  const { nx, ny, nz, nzMatrix } = boxVoxels(p);
  const r = p.box.resolution;
  if (nx > 65536 || ny > 65536 || nzMatrix > 65536) {
    issues.push({ path: 'box.size', message: `box.size × box.resolution must be at most 65536 voxels per axis, got ${nx} x ${ny} x ${nzMatrix}` });
  }
  // A particle of one voxel needs a box of three (the largest particle spans at most the narrowest side − 2).
  const narrowest = Math.min(nx, ny, nz);
  if (narrowest < 3) {
    issues.push({ path: 'box.size', message: `the box is ${narrowest} voxel${narrowest === 1 ? '' : 's'} across at its narrowest (box.size × box.resolution); it must be at least 3` });
  }
  p.mixture.types.forEach((t, i) => {
    const own = shapeIssues(t.shape, `mixture.types.${i}.shape`);
    if (own.length > 0) { issues.push(...own); return; }
    if (t.fraction === 0) return;
    const d = boundingDiameter(t.shape) * maxSize(t.size) * r, across = widthAcross(t, r);
    // Under an open top the box height bounds no span: the matrix has a particle's height of
    // headroom above it (boxVoxels), and a particle taller than the box is packed and kept when
    // its centre ends in the box (the height check below). x and y bound its width across them,
    // which the wrap of the packing matrix needs (matrix.ts corner: 2 h ≤ the side; 2 h + 1 ≤ the
    // side − 2 here) and which a type held aligned keeps below its bounding diameter.
    const open = p.box.top === 'open';
    const acrossLimit = Math.min(nx, ny) - 2, heightLimit = nz - 2;
    const aligned = across < d ? ` held 'aligned' within maxRotation [${t.maxRotation.join(', ')}]` : '';
    if (across > acrossLimit && narrowest >= 3) {
      issues.push({
        path: `mixture.types.${i}.size`,
        message: `the largest particle${aligned} spans ${Math.ceil(across)} voxels across x and y, the box allows at most ${acrossLimit} (box.size x and y × box.resolution − 2); use smaller particles or a larger box`,
      });
    } else if (!open && d > heightLimit && narrowest >= 3) {
      issues.push({
        path: `mixture.types.${i}.size`,
        message: `the largest particle spans ${Math.ceil(d)} voxels, the box allows at most ${heightLimit} under a ceiling (box.size z × box.resolution − 2); use smaller particles, a taller box or box.top 'open'`,
      });
    } else if (open && narrowest >= 3) {
      // Only particles whose centre ends at or below the box height are kept. One resting on the
      // floor has its centre at least its inscribed radius up: above the box, none could be kept
      // and the run ended 'full' with no particle (spheres of 1 in a box 0.4 high).
      const size = quantiseSize(maxSize(t.size), r), low = inscribedRadius(t.shape) * size;
      if (low > nz) {
        issues.push({
          path: `mixture.types.${i}.size`,
          message: `the largest particle (${size} voxels) rests on the floor with its centre at least ${Number(low.toPrecision(4))} voxels up, above the box height (${nz} voxels); box.top 'open' keeps only particles centred at or below it, so none of these could be kept: allowed sizes up to ${Number(((nz / inscribedRadius(t.shape)) / r).toPrecision(3))} units here, or a taller box`,
        });
      }
    } else if (p.box.top === 'ceiling' && narrowest >= 3) {
      // The packer inserts a particle where every rotation of it lies between the floor and the
      // ceiling: 2 e + 1 voxels of height. A lower box is accepted but never gets a particle.
      const e = extentBound(t.shape, quantiseSize(maxSize(t.size), r));
      if (2 * e + 1 > nz) {
        const allowed = (2 * (Math.floor((nz - 1) / 2) - 0.5 - Math.sqrt(3) / 2)) / boundingDiameter(t.shape) / r;
        issues.push({
          path: `mixture.types.${i}.size`,
          message: `the largest particle (${quantiseSize(maxSize(t.size), r)} voxels) is inserted only where each of its rotations lies between the floor and the ceiling: ${2 * e + 1} voxels of height, the box has ${nz}; ${allowed > 0 ? `allowed sizes up to ${allowed.toPrecision(3)} units here, or a taller box` : `no size of this shape fits under a ceiling this low (one voxel across needs ${2 * extentBound(t.shape, 1) + 1}): a box at least ${voxelsToLength(2 * extentBound(t.shape, 1) + 1, r)} units high`}, or box.top 'open'`,
        });
      }
    }
    const reduced = !packsWithWholeShell(t, p.optimisations, r), min = reduced ? MIN_PARTICLE_VOXELS.reducedShell : MIN_PARTICLE_VOXELS.wholeShell;
    const below = belowVoxels(t.size, r, min);
    if (below) {
      issues.push({
        path: `mixture.types.${i}.size.${below.field}`,
        message: `${below.value} units is ${Number((below.value * r).toPrecision(4))} voxels at ${r} voxels/unit; particles under ${min} voxels across pack through each other${reduced ? ` with the reduced shell (optimisations.shellReduction; without it from ${MIN_PARTICLE_VOXELS.wholeShell} voxels)` : ''}; allowed ≥ ${voxelsToLength(min, r)}, or a higher box.resolution`,
      });
    }
  });
  if (!p.mixture.types.some((t) => t.fraction > 0)) {
    issues.push({ path: 'mixture.types', message: 'at least one fraction must be > 0' });
  }
  issues.push(...sliceIssues(p, nz));
  if (p.labelVolume === 'on' && nx * ny * nz > LABEL_MAX_VOXELS) {
    issues.push({ path: 'labelVolume', message: `'on' allows at most ${LABEL_MAX_VOXELS} voxels (1 GiB of labels), the box has ${nx * ny * nz}; use 'off'` });
  }
  return issues;
}

/**
 * The analysis options that only the full analysis reads, over a label volume (the profile and the
 * pores); without one the particle table gives sizes and orientations only (analyseParticleTable).
 */
const LABEL_ANALYSIS_OPTIONS = ['sliceThickness', 'poreBins', 'poreGridVoxels'] as const;
/** The SIMD kernels build on these switches (Packer: kernels only with all of them on). */
const KERNEL_NEEDS = ['trigTables', 'fastRounding', 'savedRotations', 'cheapModulus'] as const;

/**
 * Fields written in the spec (`written`, before defaults) that the rest of the params make
 * ineffective (EngineDefinition.warnings): each names why and how to make it take effect.
 */
export function ineffectiveFields(written: Record<string, unknown>, p: VoxelParams): ParamsIssue[] {
  const warnings: ParamsIssue[] = [];
  const warn = (path: string, message: string) => {
    if (writtenAt(written, path)) warnings.push({ path, message });
  };
  if (!p.analysis.enabled) {
    // topPercentile also sets the bulk region of the engine's own solid fractions (bedMetrics).
    for (const key of Object.keys(analysisSchema.shape)) {
      if (key !== 'enabled' && key !== 'topPercentile') warn(`analysis.${key}`, 'has no effect with analysis.enabled false: no analysis runs; set analysis.enabled true for it to apply, or leave it out');
    }
  } else if (!labelsEnabled(p)) {
    const { nx, ny, nz } = boxVoxels(p);
    const why = p.labelVolume === 'off'
      ? "labelVolume 'off'"
      : `labelVolume 'auto' and a box of ${nx}x${ny}x${nz} voxels (over 512³, no label volume is written)`;
    const fix = nx * ny * nz <= LABEL_MAX_VOXELS ? "set labelVolume 'on'" : `use a box of at most ${LABEL_MAX_VOXELS} voxels with labelVolume 'on'`;
    for (const key of LABEL_ANALYSIS_OPTIONS) {
      warn(`analysis.${key}`, `has no effect with ${why}: the porosity profile and the pore sizes are measured on the label volume, and without one the analysis gives sizes and orientations only; ${fix} for it to apply, or leave it out`);
    }
  }
  const drawn = drawnTypes(p);
  if (!p.optimisations.shellReduction) {
    warn('reductionThreshold', 'has no effect with optimisations.shellReduction false: particles are packed with their whole shell; set optimisations.shellReduction true for it to apply, or leave reductionThreshold out');
  } else if (drawn.length > 0 && drawn.every((t) => packsWithWholeShell(t, p.optimisations, p.box.resolution))) {
    warn('reductionThreshold', "has no effect with every particle type a cuboid, hexagonal plate, cylinder or another shape with more than a third of its shell in flat faces, or held 'aligned' with a maxRotation of 0 about some axis (mixture.types): such types are packed with their whole shell, as their reduced shell's flat faces would pass through each other; add a type of a rounder shape that turns about all three axes for it to apply, or leave reductionThreshold out");
  }
  p.mixture.types.forEach((t, i) => {
    if (t.maxRotation.every((m) => m === 0)) {
      warn(`mixture.types.${i}.rotationStep`, `has no effect with mixture.types.${i}.maxRotation [0, 0, 0]: these particles never rotate; allow a rotation for it to apply, or leave rotationStep out`);
    }
  });
  if (p.matrix === 'id') {
    warn('optimisations.bricks', "has no effect with matrix 'id': bricks are a layout of the bit matrix; set matrix 'bit' for it to apply, or leave it out");
  }
  // Only when written true: a switch written false where it does nothing anyway surprises nobody.
  if (valueAt(written, 'optimisations.simdKernels') === true) {
    const off = KERNEL_NEEDS.filter((k) => !p.optimisations[k]);
    if (p.matrix === 'id') {
      warn('optimisations.simdKernels', "has no effect with matrix 'id': the kernels move particles in a bit matrix; set matrix 'bit' for them to run, or leave it out");
    } else if (off.length > 0) {
      warn('optimisations.simdKernels', `has no effect with ${off.map((k) => `optimisations.${k}`).join(', ')} false: the kernels build on ${KERNEL_NEEDS.join(', ')}; turn ${off.length === 1 ? 'it' : 'them'} on for the kernels to run, or leave simdKernels out`);
    }
  }
  return warnings;
}

/**
 * Shortest freezingInterval that lets particles come to rest before they are frozen. A particle is
 * frozen where it is at a check when it was there at the last one, t_f steps before: over a step
 * or two a particle still falling is often back in place (held for a step by a neighbour that
 * moves on, or returned by its ±1 moves), and it freezes in mid-air. The spheres example
 * (resources/examples/voxel-spheres.json, seeds 1 and 2) ends at a box solid fraction of 0.13 at
 * t_f 1, 0.07-0.08 at 2, 0.26-0.29 at 5 and 0.34-0.36 at 10, against 0.46 at the default 100;
 * its bulk (0.47-0.49 at 10, 0.60 at 100) keeps falling off gently below 100, as t_f is meant to.
 */
const SHORT_FREEZING_INTERVAL = 10;

/**
 * The engine's warnings (EngineDefinition.warnings), none of which refuses: the fields written
 * that have no effect with the others (ineffectiveFields), and a freezingInterval written so short
 * that particles freeze in mid-air (valid, as a study of freezing may want it, but said).
 */
export function fieldWarnings(written: Record<string, unknown>, p: VoxelParams): ParamsIssue[] {
  const warnings = ineffectiveFields(written, p);
  if (writtenAt(written, 'freezingInterval') && p.freezingInterval < SHORT_FREEZING_INTERVAL) {
    warnings.push({
      path: 'freezingInterval',
      message: `a freezing check every ${p.freezingInterval === 1 ? 'step' : `${p.freezingInterval} steps`} freezes particles in mid-air: a particle is frozen when it is where it was at the last check, and over so few steps one still falling is often back in place (held for a step by a neighbour, or returned by its moves), so the bed packs loose (the spheres example: box solid fraction 0.13 at 1, 0.29 at 5, 0.46 at the default 100); from ${SHORT_FREEZING_INTERVAL} steps up particles come to rest first`,
    });
  }
  return warnings;
}

/**
 * Per particle: its state in the packer (54 bytes in typed arrays grown by doubling), its row of
 * the particle table (60 bytes, and the same again encoded for the artifact), the settling pass's
 * per-particle arrays and the JavaScript objects all of these make (a particle's entries in maps
 * and lists, and their garbage before a collection): 3.0 KiB a particle of 10-voxel spheres, 3.6
 * with the settling runs of 8-voxel ones, resident in bench/voxel-memory.ts's largest fills.
 */
const PARTICLE_BYTES = 3 * 1024;
/**
 * Per particle of the analysis: moments (88 bytes), sizes, tilts and coordination (40), its new
 * table columns (48, twice with the encoded table) and its share of the contact pairs' hash table
 * (two uint32 keys a slot, at most half full, about 8 pairs a particle).
 */
const ANALYSIS_PARTICLE_BYTES = 512;
/** Largest size at which the smallest particle is voxelised to count its voxels (27³ samples: a few ms). */
const COUNT_SIZE_VOXELS = 24;
/**
 * The settling pass's cache of solid voxel runs (settle.ts CACHE_INTS, 2^25 int32): it keeps at
 * most this many bytes, and never more than four int32 per run of every particle.
 */
const RUN_CACHE_BYTES = 1 << 27;

/**
 * Solid voxels of a shape at a size, kept by shape: voxelising one takes 1-2 ms, and the estimate is
 * asked for every point of a sweep (10,000 points held the host's thread for 12-20 s) whose points
 * mostly share their shapes.
 */
const solidCounts = new Kept<number>(64);
function solidVoxels(shape: Shape, sizeVoxels: number, reductionThreshold: number): number {
  return solidCounts.get(JSON.stringify([shape, sizeVoxels, reductionThreshold]), () => voxeliseShapeVoxels(shape, sizeVoxels, reductionThreshold).solid.length / 3);
}

/** A law's typical size: its value, the middle of its range, its mean or median, the weighted mean of a table. */
function typicalSize(law: SizeLaw): number {
  switch (law.law) {
    case 'fixed': return law.value;
    case 'uniform': return (law.min + law.max) / 2;
    case 'normal': return law.mean;
    case 'lognormal': return law.median;
    case 'table': {
      let sum = 0, weight = 0;
      law.sizes.forEach((s, i) => { sum += s * law.weights[i]; weight += law.weights[i]; });
      return sum / weight;
    }
  }
}

/**
 * About the solid voxels of a particle of the type at its typical size: the amount one more of it
 * adds to its share on a volume basis (the packer's choice of the next type). Voxelised at most
 * COUNT_SIZE_VOXELS across and scaled by the cube of the sizes, so a type of huge particles costs
 * no large voxelisation.
 */
export function typicalSolidVoxels(t: ParticleType, resolution: number, reductionThreshold: number): number {
  const size = quantiseSize(typicalSize(t.size), resolution), counted = Math.min(size, COUNT_SIZE_VOXELS);
  return solidVoxels(t.shape, counted, reductionThreshold) * powInt(size / counted, 3);
}

/**
 * The most particles a run can hold: no more than the stop targets and the insertions
 * stop.maxSteps has time for allow, and no more than fit in the packing matrix at the solid voxels
 * of the smallest particle (types with a share), with a tenth to spare for the voxels packed particles share (a few per cent at most; cuboids held
 * aligned may fill the box whole). Sizes above COUNT_SIZE_VOXELS are counted at that size, which
 * has fewer voxels, so the bound stays above.
 */
export function particleBound(p: VoxelParams): number {
  const { nx, ny, nz, nzMatrix } = boxVoxels(p);
  const r = p.box.resolution;
  let fewest = Infinity;
  for (const t of drawnTypes(p)) {
    const size = Math.min(quantiseSize(minSize(t.size), r), COUNT_SIZE_VOXELS);
    fewest = Math.min(fewest, solidVoxels(t.shape, size, p.reductionThreshold));
  }
  let bound = (1.1 * nx * ny * nzMatrix) / fewest;
  // The packer stops inserting once the particles' solid voxels reach the target: one more at most.
  if (p.stop.solidFraction > 0) bound = Math.min(bound, (p.stop.solidFraction * nx * ny * nz) / fewest + 1);
  if (p.stop.particles > 0) bound = Math.min(bound, p.stop.particles);
  // One insertion is tried every insertionInterval steps (steps 0, n, 2n, ... below maxSteps).
  bound = Math.min(bound, Math.ceil(p.stop.maxSteps / p.insertionInterval));
  return Math.ceil(Math.min(bound, 1e8));
}

/**
 * An upper bound of the memory a run takes in its worker (bench/voxel-memory.ts measures it
 * against runs: resident set and the ArrayBuffers they allocate), term by term below.
 */
export function estimateMemoryBytes(p: VoxelParams): number {
  const { nx, ny, nz, nzMatrix } = boxVoxels(p);
  const r = p.box.resolution;
  const boxCount = nx * ny * nz;
  // The packing matrix. A bit matrix with the SIMD kernels lives in their WebAssembly.Memory, up to
  // WASM_WINDOW_BYTES; a larger one in slabs, with a window of its planes copied there as well.
  // That memory grows by doubling as the kernels' heap fills, but its pages beyond what the heap
  // uses are never written: address space, not memory (the heap is counted with the particles).
  const bits = bitMatrixBytes(nx, ny, nzMatrix, p.optimisations.bricks ? 'bricks' : 'rows');
  const matrix = p.matrix === 'bit' ? bits + (p.optimisations.simdKernels && bits > WASM_WINDOW_BYTES ? WASM_WINDOW_BYTES : 0) : idMatrixBytes(nx, ny, nzMatrix);
  // The label volume (finalise.ts), a uint32 a voxel, kept until the artifact is written.
  const labels = labelsEnabled(p) ? 4 * boxCount : 0;
  // Per column and plane: the finalisation's column heights and solid per plane, the analysis'
  // height map (twice: its scan and its artifact) and the packer's height cells.
  const columns = 16 * nx * ny + 16 * nzMatrix;
  const particles = particleBound(p);
  // The largest particle: its shell voxels (a sphere's π D², D its bounding diameter in voxels, at
  // most) and the runs of its solid voxels along x (one per row: π D² / 4).
  let largest = 0;
  for (const t of drawnTypes(p)) largest = Math.max(largest, boundingDiameter(t.shape) * quantiseSize(maxSize(t.size), r) + 2);
  const shellVoxels = Math.PI * largest * largest;
  // Moving particles keep their rotated shell (12 bytes a voxel: three int32, or in the kernels'
  // heap its matrix word, bit and mask bit) and a self mask (a bit a voxel of the cube around
  // them). They are those not frozen yet: at most the particles of a few layers over the whole
  // floor (settling starts only when insertions end), and never more than all.
  const smallest = Math.max(1, Math.min(...drawnTypes(p).map((t) => minSize(t.size) * r)));
  const active = Math.min(particles, (4 * nx * ny) / (smallest * smallest) + 1000);
  const moving = active * (12 * shellVoxels + powInt(largest + 3, 3) / 8);
  // The settling pass's runs (16 bytes each), for every particle, up to its cache.
  const runs = Math.min(RUN_CACHE_BYTES, particles * 16 * (shellVoxels / 4));
  // The analysis with a label volume: its pore grid (a solid byte, two float32 and a float64 per
  // cell, at most poreGridVoxels cells of the box) and per particle its moments and contacts.
  const analysis = p.analysis.enabled
    ? (labels ? 17 * Math.min(p.analysis.poreGridVoxels, boxCount) : 0) + particles * ANALYSIS_PARTICLE_BYTES
    : 0;
  // The worker itself (WORKER_BYTES), then the run's own.
  return WORKER_BYTES + matrix + labels + columns + particles * PARTICLE_BYTES + moving + runs + analysis;
}
