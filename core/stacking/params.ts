/**
 * Parameters of the geometric stacking engine (seed 004, Meng & Zhang 2019): the zod schema the
 * batch form renders and `packbench run` validates, the cross-field checks (`check`), and the
 * memory estimate. Names follow the seed's description (1): void ratio e, gradation, rang, gid,
 * a_f, reshape.
 */
import { z } from 'zod';
import { WORKER_BYTES, writtenAt, type ParamsIssue } from '../common/engine';
import { powInt } from '../common/power';
import { resolveGradation, type SizeClass } from './gradation';
import { UNITS } from '../common/units';

/**
 * Smallest length (radius, sieve size, region side) the schema takes. Ball volumes go by r^4 (the
 * mean volume of a class, meanBallVolume) and region / ball volume ratios by (1e6 / r)^3: at 1e-30
 * both stay finite doubles, while a radius of 1e-120 made every volume 0 and the checks divide by
 * it ('at most NaN', or no error at all and a NaN memory estimate). A fixed bound, not one relative
 * to the region: 1e-30 is below any length unit a user types (quecto-), so only a typo meets it.
 */
const MIN_LENGTH = 1e-30;
/** Largest length the schema takes. */
const MAX_LENGTH = 1e6;
const length = (description: string) => z.number().min(MIN_LENGTH).max(MAX_LENGTH).meta({ unit: UNITS.length, description });

/** The seed's search radius index a_f = [a1, a2] of one class (description (3)). */
export const searchIndexSchema = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)])
  .refine((a) => a[0] < a[1], { error: (iss) => `a_f = [a1, a2] needs a1 < a2 (both in [0, 1]), got [${(iss.input as number[]).join(', ')}]` })
  .meta({
    unit: 'new diameters',
    description: 'a_f = [a1, a2]: a neighbour B of the nucleus ball A takes part in two- and three-contact positions when the gap between A and B is in [2 r_new a1, 2 r_new a2] (larger for large balls, so that they do not cluster)',
  });

export const sizeClassSchema = z.strictObject({
  radius: length('nominal radius r of the class; radii are drawn by Eq. 1, r (1 + 2 (rand - 0.5) rang)'),
  fraction: z.number().min(0).max(1e9).meta({ unit: 'share', description: 'volume (mass) share of the class, normalised over the classes' }),
  af: searchIndexSchema.default([0, 0.3]),
});

export const gradationSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('classes'),
    rang: z.number().min(0).max(0.9).default(0.05)
      .meta({ unit: 'fraction', description: 'rang: fluctuation of the radius within a class, Eq. 1 (0 = every ball of a class has its nominal radius)' }),
    classes: z.array(sizeClassSchema).min(1).max(64).meta({ description: 'size classes, any order (filled largest first)' }),
  }).meta({ description: 'size classes with volume fractions' }),
  z.strictObject({
    kind: z.literal('sieve'),
    sizes: z.array(z.number().min(MIN_LENGTH).max(MAX_LENGTH)).min(2).max(65)
      .meta({ unit: UNITS.length, description: 'sieve sizes (particle diameters), increasing' }),
    passing: z.array(z.number().min(0).max(100)).min(2).max(65)
      .meta({ unit: '%', description: 'percent of the volume (mass) passing each sieve: non-decreasing, 0 at the first size and 100 at the last' }),
    af: z.array(searchIndexSchema).min(1).max(64)
      .meta({ description: 'a_f per segment between consecutive sieve sizes (smallest first), or one pair for all' }),
  }).meta({ description: 'a sieve curve: each segment between two sieve sizes is a class with radii drawn uniformly between its bounds' }),
]).meta({ form: 'gradation', description: 'the gradation asked for: size classes or a sieve curve' });
export type GradationParams = z.output<typeof gradationSchema>;

const periodicXY = z.tuple([z.boolean(), z.boolean()]).default([false, false])
  .meta({ description: 'periodic x and y: balls leaving one side come back at the other (no wall there)' });

export const regionSchema = z.discriminatedUnion('shape', [
  z.strictObject({
    shape: z.literal('box'),
    size: z.tuple([length('x edge'), length('y edge'), length('z edge')]).meta({ unit: UNITS.length, description: 'edges [x, y, z]; the box is [0, x] × [0, y] × [0, z]' }),
    periodic: periodicXY,
  }).meta({ description: '3D: a box' }),
  z.strictObject({
    shape: z.literal('cylinder'),
    radius: length('radius'),
    height: length('height (along z)'),
  }).meta({ description: '3D: an upright cylinder, axis at (radius, radius), z in [0, height]' }),
  z.strictObject({
    shape: z.literal('rectangle'),
    size: z.tuple([length('x edge'), length('y edge')]).meta({ unit: UNITS.length, description: 'edges [x, y]; the rectangle is [0, x] × [0, y]' }),
    periodic: periodicXY,
  }).meta({ description: '2D: a rectangle' }),
  z.strictObject({
    shape: z.literal('circle'),
    radius: length('radius'),
  }).meta({ description: '2D: a circle centred at (radius, radius)' }),
]).meta({ description: 'the region the balls fill (box or cylinder in 3D, rectangle or circle in 2D)' });
export type RegionParams = z.output<typeof regionSchema>;

/** The most balls a target may ask (the schema's bound on a count, and check's on what a plan may need). */
export const MAX_PARTICLES = 3e7;

/** Largest void ratio a target may ask (the schema's bound; check's refusal of too many balls searches up to it). */
const MAX_VOID_RATIO = 100;

export const targetSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('voidRatio'),
    e: z.number().gt(0).max(MAX_VOID_RATIO).meta({ unit: 'ratio', description: 'void ratio e = void / solid volume over the region (solid fraction 1 / (1 + e))' }),
  }).meta({ description: 'fill to a void ratio: each class gets its share of the solid volume' }),
  z.strictObject({
    kind: z.literal('count'),
    particles: z.number().int().min(1).max(MAX_PARTICLES).meta({ unit: 'particles', description: 'number of balls; the solid volume is the one this many balls of the gradation have on average' }),
  }).meta({ description: 'fill to a number of balls' }),
]).meta({ description: 'when to stop: a void ratio or a number of balls (a class that finds no more room ends short and the run says so)' });

const defaultParams = {
  dim: 3 as const,
  region: { shape: 'box' as const, size: [1.5, 1.5, 1.5] as [number, number, number], periodic: [false, false] as [boolean, boolean] },
  gradation: {
    kind: 'classes' as const,
    rang: 0.05,
    classes: [
      { radius: 0.2, fraction: 1, af: [0.5, 1] as [number, number] },
      { radius: 0.15725, fraction: 1, af: [0.5, 1] as [number, number] },
      { radius: 0.1145, fraction: 1, af: [0, 0.3] as [number, number] },
      { radius: 0.07175, fraction: 1, af: [0, 0.3] as [number, number] },
      { radius: 0.029, fraction: 1, af: [0, 0.3] as [number, number] },
    ],
  },
  target: { kind: 'voidRatio' as const, e: 0.4993 },
};

export const stackingParamsSchema = z.strictObject({
  dim: z.literal([2, 3]).default(3).meta({ description: '2: disks in the x-y plane (z = 0); 3: spheres' }),
  region: regionSchema.default(defaultParams.region),
  gradation: gradationSchema.default(defaultParams.gradation),
  target: targetSchema.default(defaultParams.target),
  gid: z.number().min(2).max(16).default(4).meta({
    unit: 'ratio',
    description: 'gid: grid spacing / largest radius, per level of the overlap grid (a level holds radii within a factor two; at least 2 so that a ball reaches only the adjacent cells)',
  }),
  order: z.enum(['seed', 'contactsFirst', 'front']).default('seed').meta({
    description: "candidate positions: 'seed' (description (9)): a random position, then around a nucleus one contact (Eq. 2), two (Eqs. 3-4), three (Eq. 5); 'contactsFirst': only two and three contacts around a nucleus, random positions only while no nucleus is open (the first ball, and when every nucleus is closed): balls touch two or three others, denser packings (narrow gradations) and fewer reshape passes, but each class clusters (on narrow gradations in patches of its own); 'front' (dim 2 only): an advancing front from the floor, every class at once (each ball's class drawn by the balls each class still lacks, so that every height of the bed holds the classes at their shares), each ball at the lowest and snuggest free two-contact position (Eqs. 3-4) among the lowest open balls: the densest mixed packings of narrow gradations; a void ratio above the front's own leaves the top of the region empty",
  }),
  reshape: z.number().int().min(0).max(100).default(4).meta({
    unit: 'passes',
    description: 'reshape correction times: when a class finds no more room, up to this many passes move balls to three-contact positions (Fig. 3) before the class ends short',
  }),
}).meta({
  description: 'Geometric stacking (Meng & Zhang 2019): balls placed largest class first at random, one-, two- and three-contact positions, to a gradation and a void ratio or count.',
});
export type StackingParams = z.output<typeof stackingParamsSchema>;

/** Volume of the region (area in 2D). */
export function regionVolume(region: RegionParams): number {
  switch (region.shape) {
    case 'box': return region.size[0] * region.size[1] * region.size[2];
    case 'cylinder': return Math.PI * region.radius * region.radius * region.height;
    case 'rectangle': return region.size[0] * region.size[1];
    case 'circle': return Math.PI * region.radius * region.radius;
  }
}

/** Mean volume (area in 2D) of a ball of a class whose radius is uniform in [rMin, rMax]. */
export function meanBallVolume(c: SizeClass, dim: 2 | 3): number {
  const a = c.rMin, b = c.rMax;
  const a2 = a * a, b2 = b * b;
  if (dim === 3) return b > a ? (Math.PI / 3) * (b2 * b2 - a2 * a2) / (b - a) : (4 / 3) * Math.PI * a2 * a;
  return b > a ? (Math.PI / 3) * (b2 * b - a2 * a) / (b - a) : Math.PI * a2;
}

export function ballVolume(r: number, dim: 2 | 3): number {
  return dim === 3 ? (4 / 3) * Math.PI * r * r * r : Math.PI * r * r;
}

/** A class is done when it lacks at most this share of its smallest ball of its quota (round-off). */
export const CLASS_DONE = 1e-9;

/**
 * The most a class's balls may be clamped for the count plan() allows it: the chance, per class,
 * that its uniform radii alone would need more balls (Bernstein's or Hoeffding's bound, the
 * tighter), after which the stacker draws its last balls larger (Stacker.radiusToward). 1e-12:
 * never seen, and the bound of a 1:100 Fuller curve of 4.6·10⁶ balls is 0.3 % over their mean count.
 */
export const CLAMP_CHANCE = 1e-12;

/**
 * Variance of the volume (area in 2D) of a ball of a class whose radius is uniform in [rMin, rMax].
 * With r = c + h u, u uniform in [-1, 1], the deviation from the mean is a polynomial in u whose
 * odd and even parts are uncorrelated; each term below is positive, so a narrow class (h ≪ c) has
 * no cancellation, which E[v²] - E[v]² would have (rang 0.005: E[v²] and E[v]² agree to 5 digits).
 */
export function ballVolumeVariance(c: SizeClass, dim: 2 | 3): number {
  const m = (c.rMin + c.rMax) / 2, h = (c.rMax - c.rMin) / 2;
  const m2 = m * m, h2 = h * h;
  if (dim === 3) {
    // v / (4π/3) - mean = 3 m² h u + h³ u³ (odd) + 3 m h² (u² - 1/3) (even); E[u²] = 1/3, E[u⁴] = 1/5, E[u⁶] = 1/7.
    const k = (4 / 3) * Math.PI;
    return k * k * (3 * m2 * m2 * h2 + 2 * m2 * h2 * h2 + (h2 * h2 * h2) / 7);
  }
  // v / π - mean = 2 m h u (odd) + h² (u² - 1/3) (even); Var(u²) = 4/45.
  return Math.PI * Math.PI * ((4 / 3) * m2 * h2 + (4 / 45) * h2 * h2);
}

/**
 * The balls a class of radii uniform in [rMin, rMax] may place to fill `volume`: the least n for
 * which its uniform draws have, but for `chance` (CLAMP_CHANCE), filled all but the four largest
 * balls that the stacker sizes to end on the quota exactly (Stacker.radiusToward) after n - 4
 * balls; and never more than balls of its smallest radius all (+1: round-off of the last ball's
 * radius). m draws of volumes in [vMin, vMax] of mean μ and variance σ² sum to less than m μ - t
 * with chance at most exp(-2 t² / (m (vMax - vMin)²)) (Hoeffding) and at most
 * exp(-t² / (2 (m σ² + (μ - vMin) t / 3))) (Bernstein); each makes m μ - t ≥ volume - 4 vMax a
 * quadratic in m (Hoeffding: in √m), and the smaller m of the two holds. Hoeffding alone counts the
 * spread of the volumes by their range, while a class's uniform radii spread them less: σ² is
 * 0.080-0.089 times (vMax - vMin)², against the quarter the range allows. Its margin bounded 300
 * balls of a 1:2 segment at 1.47 times their mean count in 3D (1.31 in 2D; now 1.27 and 1.18); a
 * sieve segment was bounded by its smallest balls alone: 2.9 times the balls of a 1:100 Fuller
 * curve of 8 segments (2.2 in 2D).
 */
export function classBallBound(c: SizeClass, volume: number, dim: 2 | 3, chance = CLAMP_CHANCE): number {
  const vMin = ballVolume(c.rMin, dim), vMax = ballVolume(c.rMax, dim), mean = meanBallVolume(c, dim);
  const smallest = Math.ceil(volume / vMin) + 1;
  const log = Math.log(1 / chance);
  const rest = volume - 4 * vMax;
  const spread = (vMax - vMin) * Math.sqrt(log / 2);
  const root = (spread + Math.sqrt(Math.max(0, spread * spread + 4 * mean * rest))) / (2 * mean);
  const hoeffding = Math.ceil(root * root) + 4;
  // Bernstein: t = b + √(b² + 2 m σ² log) with b = (μ - vMin) log / 3, and m μ - t ≥ rest, i.e.
  // (m μ - a)² ≥ b² + 2 m σ² log with a = rest + b and m μ ≥ a: m at least the larger root of
  // μ² m² - 2 (a μ + σ² log) m + a² - b². A quota of at most four largest balls keeps the bound
  // it had (the last balls' round-off decides there, not the spread of the draws).
  const b = (Math.max(0, mean - vMin) * log) / 3, a = rest + b, s = ballVolumeVariance(c, dim) * log;
  const half = a * mean + s;
  const bernstein = rest <= 0 ? Infinity : Math.ceil((half + Math.sqrt(2 * a * mean * s + s * s + mean * mean * b * b)) / (mean * mean)) + 4;
  return Math.min(smallest, hoeffding, bernstein);
}

/**
 * Solid volume to place per class (largest class first), the balls the target gives on average
 * (the run's progress goes by them), and a true upper bound on the balls, per class and in all,
 * for the memory a run takes before it allocates it. A count target stops at its count. To a void
 * ratio a class fills its quota, in at most classBallBound balls (the stacker holds each class to
 * it). In the classes' order a class ends at most half a ball, and less than one of its smallest,
 * under its quota (the nearest whole ball, when no whole number of its balls makes the rest),
 * which the next class makes up (Stacker.fillByClass); the smallest class also takes the round-off
 * of every class (and gives back what a class placed over its quota). The front order has no
 * carry: each class to its quota. The leftover was counted as half a largest ball of every class
 * in the smallest class's balls: 1:100 in radius, 64 classes of rang 0, 2.8 million balls allowed
 * for 250,000 placed, and wider gradations refused.
 */
export function plan(p: StackingParams, classes: SizeClass[]): { solidVolume: number; quotas: Float64Array; classBalls: Float64Array; maxParticles: number; expectedParticles: number } {
  let perVolume = 0; // expected balls per unit solid volume
  for (const c of classes) perVolume += c.fraction / meanBallVolume(c, p.dim);
  const solidVolume = p.target.kind === 'voidRatio' ? regionVolume(p.region) / (1 + p.target.e) : p.target.particles / perVolume;
  const quotas = new Float64Array(classes.length), classBalls = new Float64Array(classes.length);
  const carries = p.order !== 'front';
  let maxParticles = 0, carried = 0, roundOff = 0;
  classes.forEach((c, j) => {
    quotas[j] = c.fraction * solidVolume;
    const vMin = ballVolume(c.rMin, p.dim);
    const extra = carries ? carried + (j === classes.length - 1 ? roundOff : 0) : 0;
    classBalls[j] = classBallBound(c, quotas[j] + extra, p.dim);
    maxParticles += classBalls[j];
    carried = Math.min(vMin, ballVolume(c.rMax, p.dim) / 2);
    roundOff += CLASS_DONE * vMin;
  });
  if (p.target.kind === 'count') maxParticles = p.target.particles;
  return { solidVolume, quotas, classBalls, maxParticles, expectedParticles: p.target.kind === 'count' ? p.target.particles : solidVolume * perVolume };
}

/**
 * Checks that need several fields, run before anything is allocated: the region fits the dim and
 * the largest ball, the gradation is a valid curve, and the target asks for at most
 * MAX_PARTICLES balls and less solid than the region holds. Returns the problems found (none: []).
 */
export function check(p: StackingParams): ParamsIssue[] {
  const issues: ParamsIssue[] = [];
  const three = p.region.shape === 'box' || p.region.shape === 'cylinder';
  if (three !== (p.dim === 3)) {
    issues.push({
      path: 'region.shape',
      message: `'${p.region.shape}' is a ${three ? '3D' : '2D'} region; with dim ${p.dim} use ${p.dim === 3 ? "'box' or 'cylinder'" : "'rectangle' or 'circle'"}`,
    });
  }
  if (p.order === 'front' && p.dim !== 2) {
    issues.push({ path: 'order', message: "'front' is for dim 2 (disks); with dim 3 use 'seed' or 'contactsFirst'" });
  }
  const g = p.gradation;
  if (g.kind === 'sieve') {
    if (g.sizes.length !== g.passing.length) {
      issues.push({ path: 'gradation.passing', message: `needs one value per sieve size: ${g.sizes.length} sizes, ${g.passing.length} values` });
    }
    for (let k = 1; k < g.sizes.length; k++) {
      if (!(g.sizes[k] > g.sizes[k - 1])) {
        issues.push({ path: `gradation.sizes.${k}`, message: `sieve sizes must increase: ${g.sizes[k]} follows ${g.sizes[k - 1]}` });
      }
    }
    for (let k = 1; k < g.passing.length; k++) {
      if (g.passing[k] < g.passing[k - 1]) {
        issues.push({ path: `gradation.passing.${k}`, message: `percent passing must not decrease: ${g.passing[k]} follows ${g.passing[k - 1]}` });
      }
    }
    if (g.passing[0] !== 0) {
      issues.push({ path: 'gradation.passing.0', message: `must be 0 (the first size is the smallest ball; add a smaller size for the fines), got ${g.passing[0]}` });
    }
    if (g.passing[g.passing.length - 1] !== 100) {
      issues.push({ path: `gradation.passing.${g.passing.length - 1}`, message: `must be 100 (the last size is the largest ball), got ${g.passing[g.passing.length - 1]}` });
    }
    const segments = g.sizes.length - 1;
    if (g.af.length !== 1 && g.af.length !== segments) {
      issues.push({ path: 'gradation.af', message: `needs one pair for all segments or one per segment (${segments}), got ${g.af.length}` });
    }
  } else if (!g.classes.some((c) => c.fraction > 0)) {
    issues.push({ path: 'gradation.classes', message: 'at least one class needs a fraction > 0' });
  }
  if (issues.length > 0) return issues;

  const classes = resolveGradation(g);
  const rMax = Math.max(...classes.map((c) => c.rMax));
  // Bounds at 12 significant digits: rMax carries round-off (0.2 · 1.05 is 0.21000000000000002), and a
  // bound must read as the user would type it, and accept it typed.
  const bound = (x: number): number => Number(x.toPrecision(12));
  // Each side the user typed is judged on its own and named: the narrowest side of a box, or a
  // cylinder's height against its radius, is the field to change, at its own bound (a radius holds
  // one largest diameter, a side two).
  const minWidth = bound(4 * rMax), minRadius = bound(2 * rMax);
  const holds = `it must hold two of the largest balls (diameter ${bound(2 * rMax)})`;
  const region = p.region;
  if (region.shape === 'box' || region.shape === 'rectangle') {
    region.size.forEach((side, a) => {
      if (side < minWidth) issues.push({ path: `region.size.${a}`, message: `the region is ${side} wide along ${'xyz'[a]}; ${holds}: at least ${minWidth}` });
    });
  } else {
    if (region.radius < minRadius) {
      issues.push({ path: 'region.radius', message: `the region is ${2 * region.radius} across (radius ${region.radius}); ${holds}: a radius of at least ${minRadius}` });
    }
    if (region.shape === 'cylinder' && region.height < minWidth) {
      issues.push({ path: 'region.height', message: `the region is ${region.height} high; ${holds}: at least ${minWidth}` });
    }
  }
  if (p.region.shape === 'box' || p.region.shape === 'rectangle') {
    const { size, periodic } = p.region;
    const minPeriodic = bound(10 * rMax);
    periodic.forEach((on, a) => {
      if (on && size[a] < minPeriodic) {
        issues.push({
          path: `region.size.${a}`,
          message: `a periodic side must be at least five of the largest diameters (${minPeriodic}) so that every neighbour has one nearest image; got ${size[a]}`,
        });
      }
    });
  }
  const { solidVolume, maxParticles } = plan(p, classes);
  const V = regionVolume(p.region);
  if (p.target.kind === 'count' && solidVolume >= V) {
    issues.push({
      path: 'target.particles',
      message: `${p.target.particles} balls of this gradation have ${solidVolume.toPrecision(4)} of solid, more than the region's ${V.toPrecision(4)}; at most ${Math.floor((p.target.particles * V) / solidVolume)}`,
    });
  }
  // Equal balls in a box or rectangle (with walls, mirrored across them, a packing of all space)
  // fill at most the densest packing of space: Kepler's π/√18 (Hales), Thue's π/√12. For unequal
  // balls no such bound holds (small balls fill the holes of large ones): a target the region
  // cannot take ends 'full', and the run's log says so.
  const fraction = solidVolume / V, r0 = classes[0].rMin;
  const equal = classes.every((c) => c.fraction === 0 || (c.rMin === r0 && c.rMax === r0));
  const densest = p.dim === 3 ? Math.PI / Math.sqrt(18) : Math.PI / Math.sqrt(12);
  if (equal && (p.region.shape === 'box' || p.region.shape === 'rectangle') && fraction > densest && fraction < 1) {
    const what = `equal ${p.dim === 3 ? 'balls' : 'disks'} (radius ${r0}) fill at most ${densest.toFixed(4)} of a ${p.region.shape} (the densest packing of ${p.dim === 3 ? 'space, Kepler' : 'the plane, Thue'})`;
    issues.push(p.target.kind === 'count'
      ? { path: 'target.particles', message: `${what}; ${p.target.particles} would fill ${fraction.toFixed(4)}: at most ${Math.floor((p.target.particles * densest) / fraction)}` }
      : { path: 'target.e', message: `${what}; e = ${p.target.e} asks ${fraction.toFixed(4)}: at least ${(1 / densest - 1).toFixed(4)}` });
  }
  if (p.target.kind === 'voidRatio' && maxParticles > MAX_PARTICLES) issues.push(tooManyBalls(p, maxParticles, p.target.e));
  issues.push(...classesUnderOneBall(p, classes, solidVolume));
  return issues;
}

/** A class as the user wrote it: 'class 0 (r = 0.2)', or a sieve curve's 'segment 1 (0.1-0.2)'. */
export function className(g: GradationParams, c: SizeClass): string {
  return g.kind === 'classes'
    ? `class ${c.source} (r = ${g.classes[c.source].radius})`
    : `segment ${c.source} (${g.sizes[c.source]}-${g.sizes[c.source + 1]})`;
}

/**
 * A target whose solid volume gives some class less than one of its balls on average, with the
 * bound of the field typed at which every class gets one. Each class fills its share of the solid
 * largest first, and a class whose share is under one of its balls may get none: 3 balls of five
 * classes were one small ball, at a fifth of the solid fraction asked, and e = 100 in the default
 * box had no ball of the two largest classes, with nothing said. At one ball on average a class
 * (but the last of a count, which takes what the count leaves) always places one. When no count a
 * run holds, or no void ratio, gives every class its ball, the fields to change are the named
 * classes' fractions: each is told its least (shareFloors).
 */
function classesUnderOneBall(p: StackingParams, classes: SizeClass[], solidVolume: number): ParamsIssue[] {
  const balls = (c: SizeClass, solid: number) => (c.fraction * solid) / meanBallVolume(c, p.dim);
  const under = classes.filter((c) => balls(c, solidVolume) < 1);
  if (under.length === 0) return [];
  // The solid volume at which every class holds one ball on average.
  const need = Math.max(...classes.map((c) => meanBallVolume(c, p.dim) / c.fraction));
  // Rounded down (0.997 is not '1.0'): each of these is under one.
  const each = under.map((c) => {
    const b = balls(c, solidVolume);
    return `${className(p.gradation, c)} ${Number(b.toPrecision(2)) < 1 ? b.toPrecision(2) : '0.99'}`;
  }).join(', ');
  const what = `${under.length === 1 ? 'a class' : 'classes'} less than one ball on average (${each}): a class whose share of the solid is under one of its balls may get none, and the run then lacks it`;
  const t = p.target;
  if (t.kind === 'count') {
    const perVolume = t.particles / solidVolume; // balls per unit solid volume (plan)
    let least = Math.ceil(need * perVolume);
    // Past what a run holds the count cannot be the field to change (and a tiny fraction made it
    // 'at least Infinity', or a count past 2^53 that least++ never moves): the fractions are.
    if (!(least <= MAX_PARTICLES)) {
      const why = `${t.particles} balls of this gradation give ${what}; one ball of every class on average needs more than the ${MAX_PARTICLES.toExponential(0)} balls a run holds`;
      // Of n balls a class of share f holds n (f / m) / (f / m + (1 - f) B) on average (m its mean
      // ball, B the other classes' balls per unit of their share): at least one from f = B / ((n - 1) / m + B).
      const floors = shareFloors(p, classes, under, (c, others) => (t.particles > 1 ? others / ((t.particles - 1) / meanBallVolume(c, p.dim) + others) : Infinity));
      return floors.map((f) => ({ path: f.path, message: `${why}; ${f.message}` }));
    }
    while (classes.some((c) => balls(c, least / perVolume) < 1)) least++;
    return [{ path: 'target.particles', message: `${t.particles} balls of this gradation give ${what}; for one ball of every class on average: at least ${least}` }];
  }
  const V = regionVolume(p.region);
  // Four decimals, rounded down until every class holds its ball there (round-off).
  let most = Math.floor((V / need - 1) * 1e4) / 1e4;
  while (most > 0 && classes.some((c) => balls(c, V / (1 + most)) < 1)) most = Math.round((most - 1e-4) * 1e4) / 1e4;
  const prefix = `this region at e = ${t.e} holds ${solidVolume.toPrecision(4)} of solid, which gives ${what}`;
  if (!(most > 0)) {
    // Of the solid S a class of share f holds f S / m balls on average: at least one from f = m / S.
    const floors = shareFloors(p, classes, under, (c) => meanBallVolume(c, p.dim) / solidVolume);
    // A region the schema's lengths cannot make (a tiny fraction asked 'at least Infinity volume') is no bound.
    const region = need * (1 + t.e) <= Math.PI * powInt(MAX_LENGTH, p.dim)
      ? [{ path: regionField(p.region), message: `${prefix}; no void ratio gives every class one ball: at e = ${t.e} the region's ${p.dim === 3 ? 'volume' : 'area'} must be at least ${atLeast(need * (1 + t.e))} (or the classes named larger fractions), got ${Number(V.toPrecision(4))}` }]
      : [];
    return [...region, ...floors.map((f) => ({ path: f.path, message: `${prefix}; no void ratio gives every class one ball; ${f.message}` }))];
  }
  return [{ path: 'target.e', message: `${prefix}; for one ball of every class on average: e at most ${most} (or a larger region)` }];
}

/**
 * The least share of each class in `under` at which it gets one ball on average (the other
 * classes in proportion, as their fractions are typed), as an issue at the field that sets it: a
 * class's fraction (the others as typed) or a sieve segment's percent passing. `floor(c, others)`
 * is the least share of the solid given the other classes' balls per unit of their share
 * (Infinity or 1 and more: no share does).
 */
function shareFloors(p: StackingParams, classes: SizeClass[], under: SizeClass[], floor: (c: SizeClass, others: number) => number): ParamsIssue[] {
  const g = p.gradation;
  return under.map((c) => {
    let others = 0;
    for (const k of classes) if (k !== c) others += k.fraction / meanBallVolume(k, p.dim);
    const least = floor(c, others / (1 - c.fraction));
    const name = className(g, c);
    if (g.kind === 'classes') {
      const typed = g.classes[c.source].fraction;
      const rest = g.classes.reduce((sum, k) => sum + k.fraction, 0) - typed;
      const path = `gradation.classes.${c.source}.fraction`;
      if (!(least < 1)) return { path, message: `no fraction of ${name} gives it one ball on average, got ${typed}` };
      return { path, message: `for one ball of ${name} on average its fraction must be at least ${atLeast((least * rest) / (1 - least))} (the other fractions as typed), got ${typed}` };
    }
    const path = `gradation.passing.${c.source + 1}`, typed = Number((g.passing[c.source + 1] - g.passing[c.source]).toPrecision(10));
    if (!(least < 1)) return { path, message: `no share of ${name} gives it one ball on average, got ${typed} %` };
    return { path, message: `for one ball of ${name} on average its share of the volume (percent passing ${g.sizes[c.source + 1]} less percent passing ${g.sizes[c.source]}) must be at least ${atLeast(100 * least)} % (the other segments in proportion), got ${typed} %` };
  });
}

/** The field that sets a region's size: a box's or rectangle's edges, a cylinder's or circle's radius. */
function regionField(r: RegionParams): string {
  return r.shape === 'box' || r.shape === 'rectangle' ? 'region.size' : 'region.radius';
}

/** x to 3 significant digits, rounded up: a least value the user can type and that holds. */
function atLeast(x: number): number {
  return roundTo3(x, 1);
}

/** x to 3 significant digits, rounded down: a largest value the user can type and that holds. */
function atMost(x: number): number {
  return roundTo3(x, -1);
}

/** x to 3 significant digits, moved a last digit up (way 1) or down (-1) when rounding went the other way. */
function roundTo3(x: number, way: 1 | -1): number {
  const [mantissa, exponent] = x.toExponential(2).split('e');
  const c = Number(`${mantissa}e${exponent}`);
  return way * (c - x) >= 0 ? c : Number(`${(Number(mantissa) + way * 0.01).toFixed(2)}e${exponent}`);
}

/**
 * The issue of a void ratio whose plan may need more than MAX_PARTICLES balls (a count target's
 * plan is its count, which the schema bounds), with the allowed range of the field to change: the
 * smallest void ratio whose plan fits (the bound falls as e grows); when none up to
 * MAX_VOID_RATIO does, the region's largest volume (noVoidRatioFits). It was told 'even at
 * e = 100: use a smaller region or larger balls': neither how much smaller nor how much larger.
 */
function tooManyBalls(p: StackingParams, maxParticles: number, e: number): ParamsIssue {
  const need = `may need up to ${maxParticles.toExponential(3)} balls, more than the ${MAX_PARTICLES.toExponential(0)} a run holds`;
  const fitsAt = (q: StackingParams, x: number) => plan({ ...q, target: { kind: 'voidRatio', e: x } }, resolveGradation(q.gradation)).maxParticles <= MAX_PARTICLES;
  const prefix = `this region and gradation at e = ${e} ${need}`;
  if (!fitsAt(p, MAX_VOID_RATIO)) return noVoidRatioFits(p, `${prefix}, even at e = ${MAX_VOID_RATIO}`, e, (q) => fitsAt(q, e));
  const hi = boundary(e, MAX_VOID_RATIO, (x) => fitsAt(p, x));
  // The bound as short as it reads and still fits (at 17 digits it is hi itself).
  let least = hi;
  for (let digits = 4; digits < 17; digits++) {
    const c = Number(hi.toPrecision(digits));
    if (fitsAt(p, c)) { least = c; break; }
  }
  return { path: 'target.e', message: `${prefix}: e at least ${least} (or a smaller region, larger balls)` };
}

/**
 * Where a monotone `holds` turns true between `fails` (where it does not hold) and `holdsAt` (where
 * it does), found by 60 halvings: the value nearest the turn that holds.
 */
function boundary(fails: number, holdsAt: number, holds: (x: number) => boolean): number {
  let bad = fails, good = holdsAt;
  for (let k = 0; k < 60; k++) {
    const mid = (bad + good) / 2;
    if (holds(mid)) good = mid; else bad = mid;
  }
  return good;
}

/**
 * tooManyBalls when no void ratio fits: the region made smaller (every length by one factor, none
 * below what holds two of the largest balls) until its plan fits at the void ratio typed, told as
 * its largest volume at the region's field; when not even the smallest such region fits, the
 * smallest class's size field with the least value at which the region typed fits.
 */
function noVoidRatioFits(p: StackingParams, why: string, e: number, fits: (q: StackingParams) => boolean): ParamsIssue {
  const classes = resolveGradation(p.gradation);
  const rMax = Math.max(...classes.map((c) => c.rMax));
  const side = (x: number, k: number, least: number) => Math.max(x * k, Math.min(x, least));
  const scaled = (k: number): StackingParams => {
    const r = p.region;
    switch (r.shape) {
      case 'box': return { ...p, region: { ...r, size: [side(r.size[0], k, 4 * rMax), side(r.size[1], k, 4 * rMax), side(r.size[2], k, 4 * rMax)] } };
      case 'rectangle': return { ...p, region: { ...r, size: [side(r.size[0], k, 4 * rMax), side(r.size[1], k, 4 * rMax)] } };
      case 'cylinder': return { ...p, region: { ...r, radius: side(r.radius, k, 2 * rMax), height: side(r.height, k, 4 * rMax) } };
      case 'circle': return { ...p, region: { ...r, radius: side(r.radius, k, 2 * rMax) } };
    }
  };
  const round = (x: number) => Number(x.toPrecision(4));
  if (fits(scaled(0))) {
    const r = scaled(boundary(1, 0, (k) => fits(scaled(k)))).region;
    const example = r.shape === 'box' || r.shape === 'rectangle' ? `size [${r.size.map(round).join(', ')}]` : r.shape === 'cylinder' ? `radius ${round(r.radius)} and height ${round(r.height)}` : `radius ${round(r.radius)}`;
    return {
      path: regionField(r),
      message: `${why}: at e = ${e} the region's ${p.dim === 3 ? 'volume' : 'area'} must be at most ${atMost(regionVolume(r))} (e.g. ${example}), got ${round(regionVolume(p.region))}`,
    };
  }
  // The smallest class's size field, raised until the region typed fits (its plan falls as it grows).
  const g = p.gradation;
  const smallest = classes.reduce((a, c) => (c.rMin < a.rMin ? c : a));
  const at = (x: number): StackingParams => (g.kind === 'classes'
    ? { ...p, gradation: { ...g, classes: g.classes.map((c, i) => (i === smallest.source ? { ...c, radius: x } : c)) } }
    : { ...p, gradation: { ...g, sizes: g.sizes.map((d, i) => (i === 0 ? x : d)) } });
  const typed = g.kind === 'classes' ? g.classes[smallest.source].radius : g.sizes[0];
  const top = g.kind === 'classes' ? Math.max(...g.classes.map((c) => c.radius)) : g.sizes[1];
  const path = g.kind === 'classes' ? `gradation.classes.${smallest.source}.radius` : 'gradation.sizes.0';
  const holds = `no region that holds two of the largest balls (${round(4 * rMax)} wide) fits`;
  if (!fits(at(top))) return { path, message: `${why}, and ${holds}, nor does a larger ${className(g, smallest)}: got ${typed}` };
  const above = boundary(typed, top, (x) => fits(at(x)));
  return { path, message: `${why}, and ${holds}: in this region ${className(g, smallest)} must be at least ${atLeast(above)}, got ${typed}` };
}

/**
 * Fields written in the spec (`written`, before defaults) that the rest of the params make
 * ineffective (EngineDefinition.warnings): a class's search radius index a_f with order 'front',
 * which places every ball at the front's lowest two-contact position and never searches around a
 * nucleus. Not a sieve curve's af: it is required, so writing it says nothing of what was meant.
 */
export function ineffectiveFields(written: Record<string, unknown>, p: StackingParams): ParamsIssue[] {
  const g = p.gradation;
  if (p.order !== 'front' || g.kind !== 'classes') return [];
  const paths = g.classes.map((_, i) => `gradation.classes.${i}.af`);
  return paths.filter((path) => writtenAt(written, path)).map((path) => ({
    path,
    message: "has no effect with order 'front': the front places each ball at its lowest two-contact position and searches no nucleus' neighbours by a_f; choose order 'seed' or 'contactsFirst' for it to apply, or leave it out",
  }));
}

/**
 * Honest upper bound of what a run takes: its worker (WORKER_BYTES), and per ball the stacker's
 * state (position and radius twice for renumbering, class, grid links, open list, order: 86 bytes),
 * the particle table (35 bytes), its coordination column (2), the same table encoded for the
 * artifact (37) and the contact check (57: its degree, band, ids, a copy of the centres, a cell and
 * a sorted id per ball, and up to two cells' offsets, twice); the grid's cell heads; the neighbour
 * lists; the check's least cells per band of radii (4096 offsets, twice, per factor two of radius)
 * and the count-against-time samples. The check was counted 45 bytes a ball and neither fixed part:
 * plan's bound exceeded the balls by enough to hide it (the default spec: 5,635 for 4,803) until it
 * became tight (4,926), and the run then took 1,236,496 bytes against an estimate of 1,208,865.
 */
export function estimateMemoryBytes(p: StackingParams): number {
  const classes = resolveGradation(p.gradation);
  const { maxParticles, classBalls } = plan(p, classes);
  const rMax = Math.max(...classes.map((c) => c.rMax)), rMin = Math.min(...classes.map((c) => c.rMin));
  const levels = gridLevels(rMax, rMin), levelCells = gridLevelCells(classes, classBalls, maxParticles, p.target.kind === 'count');
  let cells = 0;
  for (let l = 0; l < levels; l++) cells += Math.min(levelCells[l], regionVolume(p.region) / powInt((p.gid * rMax) / powInt(2, l), p.dim) + 1);
  const neighbours = Math.min(maxParticles + 8, 1 << 20, Math.ceil(powInt(6 * rMax / rMin, p.dim)) + 8);
  return WORKER_BYTES + maxParticles * (86 + 35 + 2 + 37 + 57) + 4 * cells + 40 * neighbours + levels * CHECK_BAND_BYTES + SAMPLE_BYTES;
}

/** The contact check's least grid per band of radii (analysis SphereGrid: at least 4096 cells, offsets and their copy, 4 bytes each). */
const CHECK_BAND_BYTES = 2 * 4 * 4097;

/** The stacker's count-against-time samples (Stacker.sampleTime, sampleCount: 1024 doubles each). */
const SAMPLE_BYTES = 2 * 8 * 1024;

/** Cells of one level of the overlap grid at most (2^24: a 64 MiB head array); a larger level gets coarser cells. */
export const MAX_CELLS_PER_LEVEL = 1 << 24;

/** Levels of the overlap grid: level l holds radii in (rMax / 2^(l+1), rMax / 2^l]. */
export function gridLevels(rMax: number, rMin: number): number {
  return Math.max(1, Math.floor(Math.log2(rMax / rMin)) + 1);
}

/** The level of the overlap grid that holds radius r (gridLevels), of `levels`. */
export function gridLevel(rMax: number, r: number, levels: number): number {
  const l = Math.floor(Math.log2(rMax / r));
  return l < 0 ? 0 : l >= levels ? levels - 1 : l;
}

/** Cells a level of the overlap grid gets at most per ball it may hold (and at least LEVEL_CELLS_MIN). */
const CELLS_PER_BALL = 8;
const LEVEL_CELLS_MIN = 4096;

/**
 * The most cells of each level of the overlap grid: MAX_CELLS_PER_LEVEL, and CELLS_PER_BALL per
 * ball the level may hold (at least LEVEL_CELLS_MIN); a level past it gets coarser cells. A level's
 * cells went by its radius and the region alone, and a wide gradation's levels of small balls got
 * 2^24 cells each however few balls they took: 64 classes of 10 balls at 1:250 in a cube of side 2
 * held 141 MiB of cell heads for 640 balls. The balls a level may hold: plan's bounds of the classes
 * whose radii reach into it; any of them with a count target, whose balls past the quotas may be of
 * any class (the front order) or the smallest's. A count target's levels could be sized by the
 * classes' bounds and the count for the smallest's (the seed's order and contactsFirst hold the
 * others to their bounds), but that saves heads only where the cap then binds, and there the cells
 * coarsen: the gathers and the renumbering go in another order, and the same spec and seed give
 * another packing (64 classes at 1:250 of 20,000 balls in all, in a cube of side 4: 3.44 -> 1.78
 * MiB of grid, another packing; of 10⁶ balls at solid fraction 0.6: 167 -> 80 MiB of heads; a
 * 1:100 Fuller curve of 10⁶ balls or disks at its density: none saved). So they stay by the count.
 */
export function gridLevelCells(classes: SizeClass[], classBalls: Float64Array, maxParticles: number, byCount: boolean): Float64Array {
  let rMax = 0, rMin = Infinity;
  for (const c of classes) { rMax = Math.max(rMax, c.rMax); rMin = Math.min(rMin, c.rMin); }
  const levels = gridLevels(rMax, rMin);
  const balls = new Float64Array(levels).fill(byCount ? maxParticles : 0);
  if (!byCount) {
    classes.forEach((c, j) => {
      for (let l = gridLevel(rMax, c.rMax, levels); l <= gridLevel(rMax, c.rMin, levels); l++) balls[l] += classBalls[j];
    });
  }
  return balls.map((n) => Math.min(MAX_CELLS_PER_LEVEL, Math.max(LEVEL_CELLS_MIN, CELLS_PER_BALL * Math.min(n, maxParticles))));
}
