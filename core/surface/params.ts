/**
 * Parameters of the surface sampling engine: the zod schema (strict, every field with its unit and
 * range), the checks that need several fields, and the memory estimate.
 */
import { z } from 'zod';
import { implicitFunction, implicitSurfaceSchema, type ImplicitFunction, type ImplicitSurface } from './implicit';
import { WORKER_BYTES, type ParamsIssue } from '../common/engine';
import { Kept } from '../common/kept';
import { areaEstimateBytes, estimateArea, longestSide, solidBounds, surfaceIssues, thinBlobPart } from './solid';
import { gridBits, gridBytes, sigmaForSpacing } from './sampler';
import { RANGE_SIGMAS } from './rows';
import { UNITS } from '../common/units';
import { powInt } from '../common/power';

/** The most particles a run may reserve memory for (maxParticles). */
const MAX_PARTICLES = 1e7;

export const surfaceParamsSchema = z.strictObject({
  surface: implicitSurfaceSchema.default({ kind: 'sphere', radius: 1 }),
  spacing: z.number().gt(0).max(1e6).default(0.1).meta({
    unit: UNITS.length,
    description: 'the mean distance from a particle to its nearest neighbour that birth and death steer to',
  }),
  maxParticles: z.number().int().min(1).max(MAX_PARTICLES).default(200_000).meta({
    unit: 'particles',
    description: 'most particles at once (memory is reserved for this many); must hold the surface area at the spacing',
  }),
  stop: z.strictObject({
    targetCV: z.number().min(0.001).max(1).default(0.08).meta({
      unit: 'ratio',
      description: 'uniform when the nearest-neighbour distances vary by at most this (standard deviation / mean; a random sampling is near 0.5)',
    }),
    spacingTolerance: z.number().gt(0).max(0.5).default(0.02).meta({
      unit: 'ratio',
      description: 'and the mean nearest-neighbour distance is within this share of the spacing',
    }),
    window: z.number().int().min(1).max(1e5).default(20).meta({ unit: 'iterations', description: 'both hold for this many iterations in a row' }),
    surfaceTolerance: z.number().gt(0).max(1).default(0.1).meta({
      unit: 'ratio',
      description: 'and then every particle lies within this share of the spacing from the surface (its distance to the surface point Newton steps along ∇F reach; near the sharp edges of a superquadric with ε near 2 some particles stay off it)',
    }),
    maxIterations: z.number().int().min(1).max(1e6).default(2000).meta({ unit: 'iterations', description: 'stop here if the sampling is not uniform before' }),
  }).default({ targetCV: 0.08, spacingTolerance: 0.02, window: 20, surfaceTolerance: 0.1, maxIterations: 2000 }),
  dynamics: z.strictObject({
    timeStep: z.number()
      .min(0.1, { error: 'must be in [0.1, 0.5]: with a smaller Δt the particles barely move and the sampling stalls short of uniform until maxIterations' })
      .max(0.5, { error: 'must be in [0.1, 0.5]: with a larger Δt the particles overshoot' })
      .default(0.25).meta({
        unit: UNITS.time,
        description: 'Δt of the Euler steps, in [0.1, 0.5] (repulsion of strength 1: above about 0.5 particles overshoot; below 0.1 the sampling stalls: a unit sphere at spacing 0.1 is uniform after 58 iterations at 0.25, 17,859 at 0.1, not within 20,000 at 0.05)',
      }),
    feedback: z.number().gt(0).max(100).default(2).meta({
      unit: UNITS.rate,
      description: "φ: the constraint's pull back to F = 0 (timeStep · feedback ≤ 1, else it overshoots)",
    }),
  }).default({ timeStep: 0.25, feedback: 2 }),
  neighbourSearch: z.enum(['cells', 'queries', 'direct']).default('cells').meta({
    description: "through Heckbert's periodic 2^k grid, O(n) an iteration: 'cells' each pair once from a cell's neighbour cells (cells as large as the largest range 3σ), or 'queries' one spherical range query per particle (the seed's method and regrid rules); 'direct' every pair, O(n²) (the seed's naive loop, for comparison). All give the same sampling",
  }),
  voxelsAcross: z.number().int().min(0).max(512).default(64).meta({
    unit: 'voxels',
    description: 'voxelise the solid with this many voxels along its longest side (0 = no label volume)',
  }),
}).meta({
  description: "Particles on an implicit surface (Heckbert 1997, after Witkin & Heckbert 1994): constrained Gaussian repulsion with adaptive radii, birth and death. With several threads they share the 'cells' repulsion passes and the moves from 20,000 particles on (bands of z-layers, ranges of particles): a sampling is the same for a seed and thread count; other thread counts add the same terms in another order (round-off), so their samplings differ slightly.",
});
export type SurfaceParams = z.output<typeof surfaceParamsSchema>;

/** Area of one particle's share of a hexagonal sampling at spacing h. */
export function hexagonArea(h: number): number {
  return (Math.sqrt(3) / 2) * h * h;
}

/** Headroom over the expected count that maxParticles must leave (fluctuations, transients). */
const COUNT_HEADROOM = 1.25;
/** 'direct' (O(n²)) is refused above this many expected particles: an iteration would take minutes. */
export const DIRECT_MAX_PARTICLES = 20_000;

/** The solid's box and surface area (estimateArea: resolved, and the finest step it took). */
type Geometry = { bounds: Float64Array; area: number; areaResolved: boolean; areaStep: number };
/** A solid's box, and its area once asked for: the checks refuse on the box alone first (an
 *  ellipsoid 10^-9 thick spent seconds on its area before being refused for its thickness). */
type Measured = { fn: ImplicitFunction; bounds: Float64Array; area?: ReturnType<typeof estimateArea> };
/** The last surfaces' box and area (the area takes seconds for a blobby object of 256 blobs). */
const measured = new Kept<Measured>(16);

/** The kept box of the surface, without its area. */
function measuredSolid(surface: ImplicitSurface): Measured {
  return measured.get(JSON.stringify(surface), () => {
    const fn = implicitFunction(surface);
    return { fn, bounds: solidBounds(surface, fn) };
  });
}

/** The solid's box and its area, measured once and kept. */
function geometryOf(m: Measured): Geometry {
  m.area ??= estimateArea(m.fn, m.bounds);
  return { bounds: Float64Array.from(m.bounds), area: m.area.area, areaResolved: m.area.resolved, areaStep: m.area.step };
}

/** The solid's box and surface area, the two things the checks and the engine need to know first. */
export function surfaceGeometry(surface: ImplicitSurface): Geometry {
  return geometryOf(measuredSolid(surface));
}

/** Why an area estimateArea did not resolve is uncertain, `step` the finest it took (the check's refusal and the run's log). */
export function whyAreaUncertain(step: number): string {
  return `the grids that measure it did not agree within 2 % down to a step of ${step.toPrecision(3)} within their budget (a part too thin for them, or too many blobs to refine them)`;
}

/** x to four significant digits, rounded down (a limit printed this way is itself allowed). */
function fourDigitsDown(x: number): number {
  const rounded = Number(x.toPrecision(4));
  return rounded <= x ? rounded : Number((x - 0.5 * powInt(10, Math.floor(Math.log10(x)) - 3)).toPrecision(4));
}

/**
 * Checks that need several fields, each naming the field and the allowed range: the surface's own
 * (surfaceIssues), the spacing against the surface's size, its thinnest side and maxParticles, the
 * O(n²) search against its practical size, the Euler step against the feedback, and the stop
 * window against maxIterations.
 */
export function checkParams(p: SurfaceParams): ParamsIssue[] {
  const issues = surfaceIssues(p.surface, 'surface');
  const { timeStep, feedback } = p.dynamics;
  if (timeStep * feedback > 1) {
    issues.push({ path: 'dynamics.feedback', message: `timeStep · feedback must be ≤ 1 (a full projection each step at most); allowed ≤ ${1 / timeStep} with timeStep ${timeStep}, got ${feedback}` });
  }
  if (p.stop.window > p.stop.maxIterations) {
    // Uniform takes `window` iterations in a row: a longer window can only end at maxIterations.
    issues.push({ path: 'stop.window', message: `must be at most stop.maxIterations = ${p.stop.maxIterations} (the sampling is uniform after window iterations in a row), got ${p.stop.window}` });
  }
  if (issues.length > 0) return issues;
  // The refusals on the box come first: they cost nothing, the area up to seconds.
  const solid = measuredSolid(p.surface);
  const bounds = solid.bounds;
  const side = longestSide(bounds);
  if (p.spacing > side / 4) {
    issues.push({ path: 'spacing', message: `must be at most a quarter of the surface's longest side (${side / 4}), got ${p.spacing}` });
    return issues;
  }
  // Particles within the repulsion range 3σ of each other repel, through the solid as well: on a
  // sheet or tube thinner than that the two sides push each other apart, births outrun deaths and
  // the count runs away to maxParticles without the sampling ever becoming uniform.
  const reach = RANGE_SIGMAS * sigmaForSpacing(p.spacing);
  const thickness = [0, 1, 2].map((a) => bounds[a + 3] - bounds[a]);
  const thinnest = Math.min(...thickness);
  if (thinnest < reach) {
    issues.push({
      path: 'spacing',
      message: `must be at most ${fourDigitsDown((p.spacing * thinnest) / reach)}: the solid is ${thinnest.toPrecision(4)} thick along ${'xyz'[thickness.indexOf(thinnest)]}, less than the repulsion range 3σ (${reach.toPrecision(4)}) at spacing ${p.spacing}, so its two sides would repel each other through it; got ${p.spacing}`,
    });
    return issues;
  }
  // A thin part inside a thicker box (a filament beside a large blob) repels itself as well; it ran
  // to maxIterations without becoming uniform. A neck (a filament between beads strung on it) ran
  // 'uniform' with no particle on the middle of its 3.8 units.
  const part = p.surface.kind === 'blobby' ? thinBlobPart(p.surface, reach) : null;
  if (part) {
    issues.push({
      path: 'spacing',
      message: `must be at most ${fourDigitsDown((p.spacing * part.thickness) / reach)}: the solid is ${part.thickness.toPrecision(4)} thick across blob ${part.blob} at [${part.at.map((c) => Number(c.toPrecision(6))).join(', ')}]${part.length === undefined ? '' : ` over ${part.length.toPrecision(3)} of its length`}, less than the repulsion range 3σ (${reach.toPrecision(4)}) at spacing ${p.spacing}, so its two sides would repel each other through it; got ${p.spacing}`,
    });
    return issues;
  }
  const { area, areaResolved, areaStep: finest } = geometryOf(solid);
  if (!(area > 0)) {
    // The grid over the solid's box (estimateArea's) met no part of the surface: a part thinner
    // than its step far from the rest. A run would seed no particle and end with no sampling.
    // `finest` is then the grid's step (a narrow band refines only cells near a part it has found).
    issues.push({
      path: 'surface',
      message: `no part of the surface was found on the grid that measures its area (${Math.round(side / finest)} steps along its longest side of ${side.toPrecision(4)}, step ${finest.toPrecision(3)}), so a run would seed no particle: its parts must be at least about a step thick`,
    });
    return issues;
  }
  const expected = area / hexagonArea(p.spacing);
  if (expected * COUNT_HEADROOM > p.maxParticles) {
    const smallest = Math.sqrt((area * COUNT_HEADROOM) / (hexagonArea(1) * p.maxParticles));
    // The other way out, with the count it takes: after a thickness refusal (spacing at most …) the
    // smallest spacing named here can be past that limit, and then only maxParticles can move.
    const fewest = Math.ceil(expected * COUNT_HEADROOM);
    const raise = fewest <= MAX_PARTICLES ? `or raise maxParticles to at least ${fewest}` : `maxParticles cannot hold them: at most ${MAX_PARTICLES}`;
    // A part too thin for the finest step the area estimate could take (a blob rod 10^4 long and
    // 0.003 thick: 1.3 times its area), or a grid the band could not check (64 blobs or more: a
    // value of F costs a term a blob): the refusal says the number is uncertain, and why.
    const uncertain = areaResolved ? '' :
      `; but that area is uncertain: ${whyAreaUncertain(finest)}, and such a grid counts a thin part's area too large, up to several times, so fewer particles may do`;
    issues.push({
      path: 'spacing',
      message: `the surface (area ${area.toPrecision(4)}) needs about ${Math.round(expected)} particles at spacing ${p.spacing}; with maxParticles ${p.maxParticles} the spacing must be ≥ ${smallest.toPrecision(4)} (${raise})${uncertain}`,
    });
  }
  if (p.neighbourSearch === 'direct' && expected > DIRECT_MAX_PARTICLES) {
    issues.push({ path: 'neighbourSearch', message: `'direct' is O(n²): allowed up to ${DIRECT_MAX_PARTICLES} expected particles, this surface needs about ${Math.round(expected)}; use 'cells' or 'queries'` });
  }
  return issues;
}

/**
 * Whether a run shares its work with helper threads (EngineDefinition.usesHelpers): only the
 * 'cells' pass and its moves are cut into tasks (rows.ts, board.ts); the sampler runs 'queries' and
 * 'direct' on one thread whatever it is given, so the queue starts, records and estimates them on one.
 */
export function usesHelpers(p: SurfaceParams): boolean {
  return p.neighbourSearch === 'cells';
}

/** Bytes per particle: 18 float64 and 4 int32 arrays of the sampler and its scratch, the grid's 6
 *  float64 and 8 int32 arrays (5 of its lists, 3 of sortRows) and 2 bytes, the output table's 9
 *  float64 columns and a nearest-distance array. */
const BYTES_PER_PARTICLE = 18 * 8 + 4 * 4 + (6 * 8 + 8 * 4 + 2) + 10 * 8;

/** Honest upper bound of what a run takes: its worker (WORKER_BYTES), particles at maxParticles,
 *  the grid's cells at the most the sampler gives it (gridBits: by the surface's box and the
 *  spacing; none for 'direct'), the seeding grid, the label volume, and the area estimate's arrays
 *  (areaEstimateBytes: up to 83 MB, before the sampler's, but not yet collected, maybe). */
export function estimateMemoryBytes(p: SurfaceParams): number {
  const across = p.voxelsAcross;
  // The label volume's longest side is `across` voxels plus a margin; the others are at most that.
  const volume = across > 0 ? 4 * powInt(across + 3, 3) : 0;
  const seeding = 8 * 66 * 66 * 66;
  // The box of the function (exact for the primitives, conservative for a blobby object): the solid's own takes seconds to measure.
  const grid = p.neighbourSearch === 'direct' ? 0 : gridBytes(gridBits(implicitFunction(p.surface).bounds, p.spacing));
  return WORKER_BYTES + p.maxParticles * BYTES_PER_PARTICLE + grid + seeding + volume + areaEstimateBytes(p.surface);
}
