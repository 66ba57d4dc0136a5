/**
 * Parameters of the shaker ball mill (seed 003, Gavrilova et al.): the strict zod schema the batch
 * form renders and `packbench run` validates, the cross-field checks, and the memory estimate.
 *
 * Units: lengths in mm, times in s, speeds in mm/s, gravity in m/s², ball density in kg/m³,
 * energies in J. In 2D the balls are spheres whose centres move in the vertical x–y plane (the
 * seed's disks): masses are sphere masses, the solid fraction is the disks' area over the vial's.
 */
import { z } from 'zod';
import { WORKER_BYTES, writtenAt, type ParamsIssue } from '../common/engine';
import { powInt, root } from '../common/power';
import { MAX_WALL_ACCELERATION } from './vial';

/** The collision-detection optimisations (seed §4) over core/spatial's structures. */
export const CDO_NAMES = ['direct', 'regularSubdivision', 'hashedGrid', 'cellSpace', 'sweepAndPrune', 'spatialTree'] as const;
export type CdoName = (typeof CDO_NAMES)[number];

/** Highest solid fraction the initial placement is asked to reach (2D disks, 3D spheres in a cylinder). */
export const MAX_SOLID_FRACTION = { 2: 0.75, 3: 0.5 } as const;

/**
 * The schema holds one bound for both dims; its message gives each, so that a 3D spec at 0.6 is not
 * sent to 0.75 and then refused by check at 0.5.
 */
const solidFractionRange = (issue: { input?: unknown }) =>
  `must be in (0, ${MAX_SOLID_FRACTION[2]}] in 2D and (0, ${MAX_SOLID_FRACTION[3]}] in 3D (the initial placement cannot reach more), got ${String(issue.input)}`;

const mm = (description: string, dflt: number, max = 1e6) =>
  z.number().gt(0).max(max).default(dflt).meta({ unit: 'mm', description });

export const radiusLawSchema = z.discriminatedUnion('law', [
  z.strictObject({ law: z.literal('fixed'), value: mm('the radius of every ball', 5) })
    .meta({ description: 'every ball the same radius (the seed\'s monosized sets)' }),
  z.strictObject({ law: z.literal('uniform'), min: mm('smallest radius', 1), max: mm('largest radius', 10) })
    .meta({ description: 'radii uniform in [min, max] (the seed\'s polysized sets: max ≈ 10 min)' }),
]);
export type RadiusLaw = z.output<typeof radiusLawSchema>;

export const restitutionSchema = z.discriminatedUnion('model', [
  z.strictObject({
    model: z.literal('constant'),
    value: z.number().min(0).max(1).default(0.8).meta({ unit: 'ratio', description: 'coefficient of normal restitution ε of every impact (1 = elastic)' }),
  }).meta({ description: 'one restitution coefficient for every ball–ball and ball–wall impact' }),
  z.strictObject({
    model: z.literal('hertz'),
    dissipation: z.number().min(0).max(1e3).default(1).meta({
      unit: 'µs',
      description: 'dissipative constant A of viscoelastic Hertz contact (Brilliantov et al. 1996): ε = 1 − C1·A·α^(2/5)·v^(1/5) + C2·A²·α^(4/5)·v^(2/5)',
    }),
    youngModulus: z.number().gt(0).max(1e4).default(200).meta({ unit: 'GPa', description: "Young's modulus of the balls" }),
    poissonRatio: z.number().min(0).lt(0.5).default(0.3).meta({ unit: 'ratio', description: "Poisson's ratio of the balls" }),
    wallYoungModulus: z.number().gt(0).max(1e4).default(200).meta({ unit: 'GPa', description: "Young's modulus of the vial" }),
    wallPoissonRatio: z.number().min(0).lt(0.5).default(0.3).meta({ unit: 'ratio', description: "Poisson's ratio of the vial" }),
  }).meta({ description: 'restitution from Hertz contact of viscoelastic spheres: falls with impact speed and is lower for smaller balls (seed §2, ref. 4)' }),
]);
export type Restitution = z.output<typeof restitutionSchema>;

export const ballmillParamsSchema = z.strictObject({
  dim: z.literal([2, 3]).default(2).meta({ description: '2: disks in a rectangular vial (the seed); 3: spheres in a vertical cylinder' }),
  cdo: z.enum(CDO_NAMES).default('spatialTree').meta({
    description: "collision-detection optimisation (seed §4): 'direct' checks every pair; the others keep a box around each ball in a core/spatial structure " +
      '(regular subdivision = cell space without refinement, hashed grid, cell space with refinement, sweep and prune, spatial tree) and check only balls whose boxes overlap',
  }),
  skin: z.number().gt(0).max(100).default(0.25).meta({
    unit: 'mean radii',
    description: 'how far a ball may move horizontally from the centre of its CDO box before the box is moved (a topological event; under gravity twice as far vertically); larger skins mean fewer box moves and more collision checks',
  }),
  balls: z.strictObject({
    count: z.number().int().min(1).max(1_000_000).default(100).meta({ unit: 'balls', description: 'number of balls' }),
    radius: radiusLawSchema.default({ law: 'uniform', min: 1, max: 10 }),
    solidFraction: z.number().gt(0, { error: solidFractionRange }).max(MAX_SOLID_FRACTION[2], { error: solidFractionRange }).nullable().default(null).meta({
      unit: 'fraction',
      description: "the seed's packing density: when set, every drawn radius is scaled by one factor so that the balls fill this fraction of the vial (area in 2D, volume in 3D), and the radius law gives only the spread; null keeps the radii as drawn",
    }),
    density: z.number().gt(0).max(1e5).default(7800).meta({ unit: 'kg/m³', description: 'density of the ball material (steel 7800); sets masses and energies' }),
    initialSpeed: z.number().min(0).max(1e6).default(300).meta({ unit: 'mm/s', description: 'every ball starts with this speed in a random direction' }),
  }).default({ count: 100, radius: { law: 'uniform', min: 1, max: 10 }, solidFraction: null, density: 7800, initialSpeed: 300 }),
  vial: z.strictObject({
    width: mm('inner width of the rectangle (2D) or inner diameter of the cylinder (3D)', 200),
    height: mm('inner height', 200),
    amplitude: z.number().min(0).max(1e4).default(10).meta({ unit: 'mm', description: 'amplitude A of the vertical oscillation: the floor is at A·sin(2πft)' }),
    frequency: z.number().min(0).max(1e4).default(15).meta({ unit: 'Hz', description: 'frequency f of the vertical oscillation (0 = still vial)' }),
  }).default({ width: 200, height: 200, amplitude: 10, frequency: 15 }),
  gravity: z.number().min(0).max(1e4).default(9.81).meta({ unit: 'm/s²', description: 'gravitational acceleration, downwards' }),
  duration: z.number().gt(0).max(1e6).default(10).meta({ unit: 's', description: 'simulated time' }),
  timeStep: z.number().gt(0).max(10).default(0.005).meta({
    unit: 's',
    description: "Δt of the seed's predict-trajectory events: every Δt each ball's state is updated by Eq. 1 and its wall contacts in the next Δt are searched",
  }),
  restitution: restitutionSchema.default({ model: 'constant', value: 0.8 }),
  minimumRebound: z.number().min(0).max(1e6).default(10).meta({
    unit: 'mm/s',
    description: 'guard against inelastic collapse (a restitution floor): an inelastic impact never leaves its balls separating slower than this, so a ball at rest keeps hopping instead of colliding infinitely often; the energy this adds is reported as guardEnergy (0 = off)',
  }),
  maxEvents: z.number().int().min(1).max(1e12).default(1e10).meta({
    unit: 'events',
    description: "the run stops (stopReason 'maxEvents') after this many events, so that a run that can only crawl never stalls silently",
  }),
  output: z.strictObject({
    frameRate: z.number().min(0).max(1e4).default(50).meta({
      unit: 'frames/s',
      description: 'trajectory frames per simulated second, taken every round(1 / (frameRate · timeStep)) predict-trajectory steps (0 = no trajectories)',
    }),
  }).default({ frameRate: 50 }),
}).meta({
  description: 'Event-driven shaker ball mill (Gavrilova, Rokne, Gavrilov & Vinogradov): balls in a vertically oscillating vial under gravity, ' +
    'exact collision times, restitution constant or Hertz; collision detection by the chosen core/spatial structure.',
});
export type BallmillParams = z.output<typeof ballmillParamsSchema>;

/** Largest number of trajectory rows (frames × balls) a run may write: 36 bytes each, 1.8 GB. */
export const MAX_TRAJECTORY_ROWS = 5e7;


export function maxRadius(law: RadiusLaw): number {
  return law.law === 'fixed' ? law.value : law.max;
}

/** Mean of r^k over the law (k = 2 areas, 3 volumes). */
export function radiusMoment(law: RadiusLaw, k: number): number {
  if (law.law === 'fixed') return powInt(law.value, k);
  const { min, max } = law;
  return max > min ? (powInt(max, k + 1) - powInt(min, k + 1)) / ((k + 1) * (max - min)) : powInt(min, k);
}

/** Area (2D) or volume (3D) of the vial in mm² / mm³. */
export function vialMeasure(p: BallmillParams): number {
  const R = p.vial.width / 2;
  return p.dim === 2 ? p.vial.width * p.vial.height : Math.PI * R * R * p.vial.height;
}

/** Expected solid fraction of the radius law as given (before any scaling). */
export function expectedSolidFraction(p: BallmillParams): number {
  const per = p.dim === 2 ? Math.PI * radiusMoment(p.balls.radius, 2) : (4 / 3) * Math.PI * radiusMoment(p.balls.radius, 3);
  return (p.balls.count * per) / vialMeasure(p);
}

/** Factor the drawn radii will be multiplied by, in expectation (1 without a solid fraction). */
export function expectedRadiusScale(p: BallmillParams): number {
  if (p.balls.solidFraction === null) return 1;
  return root(p.balls.solidFraction / expectedSolidFraction(p), p.dim);
}

/** Predict-trajectory steps of the run (the step at t = 0 included: steps + 1 updates). */
export function stepCount(p: BallmillParams): number {
  return Math.floor(p.duration / p.timeStep + 1e-9);
}

/** Steps between trajectory frames (0: no frames). */
export function frameInterval(p: BallmillParams): number {
  return p.output.frameRate === 0 ? 0 : Math.max(1, Math.round(1 / (p.output.frameRate * p.timeStep)));
}

/**
 * Number of trajectory frames the run writes: the first at t = 0, one every frameInterval steps, and
 * the state at the duration when no step's frame is there (a 1 s run at 30 frames/s, Δt = 5 ms: every
 * 7 steps, the last at 0.980 s, then 1 s), so that playing the trajectories back ends where the run
 * does. A run stopped early ends on its state where it stopped: within these, since it stops before
 * the last step's frame or the duration.
 */
export function frameCount(p: BallmillParams): number {
  const every = frameInterval(p);
  if (every === 0) return 0;
  const steps = stepCount(p), taken = Math.floor(steps / every) + 1;
  // The last step is at min(steps Δt, duration) (simulation.ts).
  const endTaken = (taken - 1) * every === steps && steps * p.timeStep >= p.duration;
  return endTaken ? taken : taken + 1;
}

/** Headroom on the expected largest radius when balls.solidFraction scales a random draw. */
const DRAW_HEADROOM = 1.1;

/** x to four significant digits, without trailing zeros. */
function round4(x: number): number {
  return Number(x.toPrecision(4));
}

/**
 * Radius of the largest n equal disks that fit in a unit square, n = 1..30: the densest packings,
 * proven optimal (Nurmela & Östergård 1997 to n = 27, Markót & Csendes 2005 to 30), values from E.
 * Specht's Packomania tables. The placement's own search (placement.ts) reaches each within 1.3 %
 * and never above it.
 */
const SQUARE_DISK_RADIUS = [
  0.5, 0.292893218813, 0.254333095030, 0.25, 0.207106781187, 0.187680601147, 0.174457630187, 0.170540688701,
  0.166666666667, 0.148204322565, 0.142399237696, 0.139958844038, 0.133993513500, 0.129331793710, 0.127166547545,
  0.125, 0.117196742782, 0.115521432463, 0.112265437570, 0.111382347512, 0.106860451462, 0.105665743301,
  0.102803323663, 0.101381800431, 0.1, 0.096362339016, 0.095420116886, 0.093672833739, 0.092463144016,
  0.091671057986,
];

/** Largest solid fraction n equal disks fill in a square, or null where it is not proven (n > 30). */
export function densestSquareFraction(n: number): number | null {
  if (n < 1 || n > SQUARE_DISK_RADIUS.length) return null;
  const r = SQUARE_DISK_RADIUS[n - 1];
  return n * Math.PI * r * r;
}

/** Equal disks in a square vial: the case whose densest packings densestSquareFraction knows. */
function equalDisksInSquare(p: BallmillParams): boolean {
  const law = p.balls.radius;
  return p.dim === 2 && p.vial.width === p.vial.height && (law.law === 'fixed' || law.min === law.max);
}

/**
 * Equal disks in a square vial above their proven densest packing (densestSquareFraction): no
 * placement exists, so check refuses them instead of the run failing after the placement's search.
 * The issue names what sets the fraction (balls.solidFraction, or the radius and the vial) with its
 * allowed range, and the nearest counts that reach this fraction with balls that fit the vial.
 */
function squareDiskIssues(p: BallmillParams, fraction: number): ParamsIssue[] {
  const law = p.balls.radius, n = p.balls.count, side = p.vial.width;
  if (!equalDisksInSquare(p)) return [];
  const most = densestSquareFraction(n);
  if (most === null || fraction <= most) return [];
  const allowed = Math.floor(most * 1e4) / 1e4;
  const why = `${n} equal disks fill at most ${allowed} of a square vial (their proven densest packing), asked ${round4(fraction)}`;
  if (p.balls.solidFraction !== null) {
    // Counts whose densest packing reaches the fraction with disks that pass the largest-ball rule
    // of checkParams (a radius, with its headroom, of at most a quarter of the side).
    const reaches = (k: number) => (densestSquareFraction(k) ?? 0) >= fraction && DRAW_HEADROOM * Math.sqrt(fraction / (k * Math.PI)) <= 0.25;
    let below = n - 1, above = n + 1;
    while (below >= 1 && !reaches(below)) below--;
    while (above <= SQUARE_DISK_RADIUS.length && !reaches(above)) above++;
    const near = [below >= 1 ? String(below) : '', above <= SQUARE_DISK_RADIUS.length ? String(above) : 'above 30'].filter((c) => c !== '').join(' or ');
    return [{ path: 'balls.solidFraction', message: `${why}: allowed balls.solidFraction ≤ ${allowed}, or balls.count ${near} (the nearest that reach ${round4(fraction)})` }];
  }
  // Without balls.solidFraction the count changes the fraction: the radius or the vial must change.
  const r = SQUARE_DISK_RADIUS[n - 1], radius = law.law === 'fixed' ? law.value : law.max;
  const [path, name] = law.law === 'fixed' ? ['balls.radius.value', 'balls.radius.value'] : ['balls.radius.max', 'balls.radius.min = balls.radius.max'];
  const square = `${why}: allowed vial.width and vial.height ≥ ${Math.ceil((radius / r) * 1e4) / 1e4} mm (a square) for radius ${radius} mm`;
  return [
    { path, message: `${why}: allowed ${name} ≤ ${Math.floor(r * side * 1e4) / 1e4} mm in this ${side} mm square` },
    { path: 'vial.width', message: square },
    { path: 'vial.height', message: square },
  ];
}

/**
 * Share of the densest placement's solid fraction that the advice of a failed placement allows:
 * random starts rarely find the very densest placement of few balls (the advice is then checked:
 * see checkedAdvice in simulation.ts).
 */
const PLACEMENT_MARGIN = 0.99;

/**
 * What to change when the balls could not be placed (placement.ts, PlacementError): the densest
 * placement found holds their radii times `scale` and fills `reached` of the vial. With
 * balls.solidFraction set the answer is a lower fraction; without, smaller radii or a larger vial
 * (the same draw scaled: uniform(k·min, k·max) is k times uniform(min, max)). `params` is the spec
 * with the advised fraction or radii, `value` what it sets, for a check that they place.
 */
export function placementAdvice(p: BallmillParams, scale: number, reached: number): { text: string; params: BallmillParams; value: string } {
  if (p.balls.solidFraction !== null) {
    const allowed = Math.floor(PLACEMENT_MARGIN * reached * 1000) / 1000;
    return {
      text: `allowed balls.solidFraction ≤ ${allowed} for ${p.balls.count} balls of this radius law in this vial`,
      params: { ...p, balls: { ...p.balls, solidFraction: allowed } },
      value: String(allowed),
    };
  }
  const k = scale * root(PLACEMENT_MARGIN, p.dim), law = p.balls.radius;
  const radius: RadiusLaw = law.law === 'fixed' ? { law: 'fixed', value: round4(k * law.value) } : { law: 'uniform', min: round4(k * law.min), max: round4(k * law.max) };
  const radii = radius.law === 'fixed' ? `balls.radius.value ≤ ${radius.value} mm` : `balls.radius.min ≤ ${radius.min} mm and balls.radius.max ≤ ${radius.max} mm`;
  return {
    text: `allowed ${radii} (the radii times ${k.toFixed(4)}), or vial.width ≥ ${round4(p.vial.width / k)} mm and vial.height ≥ ${round4(p.vial.height / k)} mm`,
    params: { ...p, balls: { ...p.balls, radius } },
    value: radius.law === 'fixed' ? `radius ${radius.value} mm` : `radii ${radius.min}-${radius.max} mm`,
  };
}

/**
 * The allowed range of one vial side for the largest ball (radius rMax) to fit (a radius at most a
 * quarter of each side), the other side as it is; null when changing this side cannot help. Without
 * a solid fraction rMax is fixed: the side must be at least 4 rMax. With one, the balls are scaled
 * to fill the vial, so rMax = K · measure^(1/dim) grows with the vial too, and the side lies between
 * two bounds (2D: measure = w·h; 3D: π w² h / 4).
 */
function sideRange(p: BallmillParams, side: 'width' | 'height', rMax: number): string | null {
  const { width, height } = p.vial;
  const other = side === 'width' ? `height ${height} mm` : `width ${width} mm`;
  if (p.balls.solidFraction === null) {
    if (p.vial[side] >= 4 * rMax) return null;
    return `allowed ${side} ≥ ${round4(4 * rMax)} mm`;
  }
  const K = rMax / root(vialMeasure(p), p.dim);
  let lo: number, hi: number;
  if (p.dim === 2) {
    const c = 16 * K * K;
    [lo, hi] = side === 'width' ? [c * height, height / c] : [c * width, width / c];
  } else {
    const k3 = Math.PI * K * K * K;
    [lo, hi] = side === 'width' ? [16 * k3 * height, height / (4 * Math.sqrt(k3))] : [4 * width * Math.sqrt(k3), width / (16 * k3)];
  }
  if (lo > hi) return `no ${side} fits at ${other} with balls.solidFraction ${p.balls.solidFraction}`;
  return `allowed ${side} in [${round4(lo)}, ${round4(hi)}] mm at ${other} (balls.solidFraction scales the balls with the vial)`;
}

/**
 * Checks that need several fields, run before anything is allocated. Each issue names the field and
 * the allowed range.
 */
export function checkParams(p: BallmillParams): ParamsIssue[] {
  const issues: ParamsIssue[] = [];
  const law = p.balls.radius;
  if (law.law === 'uniform' && law.max < law.min) {
    issues.push({ path: 'balls.radius.max', message: `must be >= balls.radius.min = ${law.min} mm, got ${law.max}` });
    return issues;
  }
  const fraction = p.balls.solidFraction ?? expectedSolidFraction(p);
  const limit = MAX_SOLID_FRACTION[p.dim];
  const { width, height } = p.vial;
  if (fraction > limit && p.balls.solidFraction !== null) {
    issues.push({ path: 'balls.solidFraction', message: `must be at most ${limit} in ${p.dim}D (the initial placement cannot reach more), got ${p.balls.solidFraction}` });
  } else if (fraction > limit) {
    // The balls' expected area (volume) over the vial's: each of count, width and height alone can
    // bring it to the limit.
    const fill = `${p.balls.count} balls of these radii fill ${fraction.toFixed(3)} of the vial in expectation; at most ${limit} is allowed in ${p.dim}D`;
    const need = (fraction / limit) * vialMeasure(p); // the smallest vial area (volume)
    const [minWidth, minHeight] = p.dim === 2 ? [need / height, need / width] : [2 * Math.sqrt(need / (Math.PI * height)), need / (Math.PI * (width / 2) * (width / 2))];
    let most = Math.floor((p.balls.count * limit) / fraction);
    // Equal disks in a square: a count the square's densest packing refuses is no advice (8 disks
    // of radius 39 in 200 mm were told 'count ≤ 6', and 6 then fill 0.717 > their densest 0.664).
    const perBall = fraction / p.balls.count;
    if (equalDisksInSquare(p)) while (most >= 1 && (densestSquareFraction(most) ?? Infinity) < most * perBall) most--;
    issues.push({
      path: 'balls.count',
      message: most >= 1
        ? `${fill}: allowed count ≤ ${most} here, or smaller balls or a larger vial`
        : `${fill}: no count fits (one ball fills ${perBall.toFixed(3)}), smaller balls or a larger vial`,
    });
    issues.push({ path: 'vial.width', message: `${fill}: allowed width ≥ ${round4(minWidth)} mm at height ${height} mm, or fewer or smaller balls` });
    issues.push({ path: 'vial.height', message: `${fill}: allowed height ≥ ${round4(minHeight)} mm at width ${width} mm, or fewer or smaller balls` });
  }
  if (fraction <= limit) issues.push(...squareDiskIssues(p, fraction));
  // The largest ball must fit the vial with room to move (a diameter at most half the inner width
  // and height). With a solid fraction the radius is known only in expectation, so the bound uses
  // the expected scale with 10 % headroom for the draw.
  const rMax = maxRadius(law) * expectedRadiusScale(p) * (p.balls.solidFraction === null ? 1 : DRAW_HEADROOM);
  const room = Math.min(width, height) / 4;
  if (rMax > room) {
    const largest = `the largest ball (radius ${rMax.toPrecision(4)} mm) must have a radius of at most a quarter of the vial's smaller inner side (${room} mm)`;
    issues.push({ path: p.balls.solidFraction === null ? `balls.radius.${law.law === 'fixed' ? 'value' : 'max'}` : 'balls.solidFraction', message: largest });
    for (const side of ['width', 'height'] as const) {
      const range = sideRange(p, side, rMax);
      if (range === null) continue;
      issues.push({ path: `vial.${side}`, message: `${largest}: ${range}` });
    }
  }
  // The moving-wall search's graze bound holds up to MAX_WALL_ACCELERATION (vial.ts); beyond it
  // a run of 4e9 g stalled and blamed inelastic collapse.
  const g = 1000 * p.gravity, omega = 2 * Math.PI * p.vial.frequency, shake = p.vial.amplitude * omega * omega;
  if (g + shake > MAX_WALL_ACCELERATION) {
    const most = `gravity plus the vial's peak acceleration A·(2πf)² must be at most ${MAX_WALL_ACCELERATION.toExponential(0)} mm/s² (about 1,000 g), got ${(g + shake).toExponential(3)}`;
    const room = MAX_WALL_ACCELERATION - g;
    issues.push({ path: 'vial.amplitude', message: `${most}: allowed amplitude ≤ ${round4(room / (omega * omega))} mm at frequency ${p.vial.frequency} Hz` });
    issues.push({ path: 'vial.frequency', message: `${most}: allowed frequency ≤ ${round4(Math.sqrt(room / p.vial.amplitude) / (2 * Math.PI))} Hz at amplitude ${p.vial.amplitude} mm` });
  }
  if (p.timeStep > p.duration) {
    issues.push({ path: 'timeStep', message: `must be at most duration = ${p.duration} s, got ${p.timeStep}` });
  }
  const steps = p.duration / p.timeStep;
  if (steps > 1e9) {
    issues.push({ path: 'timeStep', message: `duration / timeStep must be at most 1e9 predict-trajectory steps, got ${steps.toExponential(2)}` });
  }
  const rows = frameCount(p) * p.balls.count;
  // The frames at t = 0 and at the end come on top of frameRate · duration.
  if (rows > MAX_TRAJECTORY_ROWS) {
    issues.push({
      path: 'output.frameRate',
      message: `frames × balls must be at most ${MAX_TRAJECTORY_ROWS.toExponential(0)} trajectory rows, got ${rows.toExponential(2)}; allowed frameRate ≤ ${((MAX_TRAJECTORY_ROWS / p.balls.count - 2) / p.duration).toPrecision(3)}`,
    });
  }
  if (p.output.frameRate > 1 / p.timeStep + 1e-9) {
    issues.push({ path: 'output.frameRate', message: `frames are taken at predict-trajectory events, so at most 1 / timeStep = ${1 / p.timeStep} frames/s, got ${p.output.frameRate}` });
  }
  if (p.cdo === 'direct' && p.balls.count > 20_000) {
    issues.push({ path: 'cdo', message: `'direct' checks every pair at every trajectory change and is allowed up to 20,000 balls, got ${p.balls.count}; choose a structure` });
  }
  return issues;
}

/**
 * Fields written in the spec (`written`, before defaults) that the rest of the params make
 * ineffective (EngineDefinition.warnings): each names why and how to make it take effect.
 */
export function ineffectiveFields(written: Record<string, unknown>, p: BallmillParams): ParamsIssue[] {
  const warnings: ParamsIssue[] = [];
  const warn = (path: string, message: string) => {
    if (writtenAt(written, path)) warnings.push({ path, message });
  };
  if (p.cdo === 'direct') {
    warn('skin', "has no effect with cdo 'direct': it checks every pair and keeps no boxes for a skin to widen; choose a structure (cdo 'spatialTree', 'hashedGrid', ...) for it to apply, or leave skin out");
  }
  const { amplitude, frequency } = p.vial;
  if (frequency === 0 && amplitude > 0) {
    warn('vial.amplitude', 'has no effect with vial.frequency 0: the vial stands still (its floor at A·sin(2π·0·t) = 0); set vial.frequency > 0 to shake it, or leave vial.amplitude out');
  }
  if (amplitude === 0 && frequency > 0) {
    warn('vial.frequency', 'has no effect with vial.amplitude 0: the vial stands still (its floor at 0·sin(2πft) = 0); set vial.amplitude > 0 to shake it, or leave vial.frequency out');
  }
  const r = p.restitution;
  if (r.model === 'hertz' && r.dissipation === 0) {
    for (const key of ['youngModulus', 'poissonRatio', 'wallYoungModulus', 'wallPoissonRatio']) {
      warn(`restitution.${key}`, `has no effect with restitution.dissipation 0: ε = 1 at every impact, whatever the stiffness of the balls and the vial; set restitution.dissipation > 0 for it to apply, or leave restitution.${key} out`);
    }
  }
  const elastic = r.model === 'constant' ? r.value === 1 : r.dissipation === 0;
  if (elastic && p.minimumRebound > 0) {
    const why = r.model === 'constant' ? 'restitution.value 1' : "restitution 'hertz' with dissipation 0";
    warn('minimumRebound', `has no effect with ${why}: every impact is elastic, and the floor raises only the rebounds of inelastic ones; set a restitution below 1 for it to apply, or leave minimumRebound out`);
  }
  if (p.balls.solidFraction !== null && p.balls.radius.law === 'fixed') {
    warn('balls.radius.value', `has no effect with balls.solidFraction ${p.balls.solidFraction}: equal balls are scaled to fill that fraction of the vial whatever radius they are drawn with; set balls.solidFraction null for the radius to apply, or leave balls.radius.value out`);
  }
  return warnings;
}

/** Honest upper bound of what a run takes: its worker (WORKER_BYTES), then what it allocates. */
export function estimateMemoryBytes(p: BallmillParams): number {
  const n = p.balls.count;
  // Ball state and statistics (~30 float64 / int32 arrays with the interleaved copies), the
  // structure (~300 bytes a ball with its sorted lists and cells), the event queue (~70 bytes a
  // ball, and its pool of pair predictions: at most ~48 a ball, 20 bytes each), the neighbour
  // lists (up to 64 ids a ball), the placement's scratch.
  const perBall = 30 * 8 + 300 + 70 + 48 * 20 + 64 * 4 + 200;
  // A trajectory row: the frames the simulation records (x, y, z, speed float32, impacts uint32: 20
  // bytes), the table's time (float64), id and r columns beside them (16), and the copy the worker
  // encodes to write the artifact (36).
  const trajectories = frameCount(p) * n * (20 + 16 + 36);
  return WORKER_BYTES + 16 * 1024 * 1024 + n * perBall + trajectories;
}
