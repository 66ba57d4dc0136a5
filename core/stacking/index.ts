/**
 * The geometric stacking engine (id 'stacking'): Meng & Zhang (2019), "A fast algorithm for
 * particle stacking" (seed 004). Disks (2D) or spheres (3D) of a gradation, placed largest class
 * first at random, one-, two- and three-contact positions, to a void ratio or a count. See
 * README.md in this folder for the algorithm, the parameters and the costs.
 */
import {
  defineEngine, throwIfIssues, type ColumnTable, type EngineContext, type EngineResult, type EngineSeries, type MetricInfo, type ParticleTableSpec,
} from '../common/engine';
import { coordinationSeries, sphereContacts } from '../analysis/index';
import { achievedPassing, askedPassing, resolveGradation, sieveSizes, type SizeClass } from './gradation';
import { check, className, estimateMemoryBytes, ineffectiveFields, plan, stackingParamsSchema, type StackingParams } from './params';
import { Region } from './region';
import { Stacker } from './stacker';
import { UNITS } from '../common/units';

export { stackingParamsSchema, check, estimateMemoryBytes, ineffectiveFields, type StackingParams } from './params';
export { resolveGradation, askedPassing, achievedPassing, type SizeClass } from './gradation';
export { Stacker } from './stacker';
export { Region } from './region';

/** Two balls count as touching when the gap between their surfaces is at most this share of the smallest radius. */
export const CONTACT_GAP = 1e-6;

/**
 * The particle table: centres, radius, the class as a category, the coordination from the contact
 * check. Spheres in 3D; a 2D run's table declares disks in the x-y plane (PARTICLE_TABLE_2D).
 */
export const PARTICLE_TABLE: ParticleTableSpec = {
  name: 'particles',
  centre: ['x', 'y', 'z'],
  size: [{ column: 'r', is: 'radius' }],
  glyph: { kind: 'sphere' },
  category: { column: 'class', label: 'Size class', namesFrom: 'classNames' },
  quantities: [
    { column: 'r', label: 'Radius', unit: UNITS.length },
    { column: 'coordination', label: 'Coordination number' },
  ],
};
export const PARTICLE_TABLE_2D: ParticleTableSpec = { ...PARTICLE_TABLE, glyph: { kind: 'disk-xy' } };

const STACKING_METRICS: Record<string, MetricInfo> = {
  particles: { description: 'balls placed' },
  solidFraction: { unit: 'fraction', description: 'solid volume (area in 2D) / the volume of the whole region' },
  voidRatio: { unit: 'ratio', description: 'void / solid volume over the whole region, e = 1 / solidFraction − 1' },
  voidRatioAsked: { unit: 'ratio', description: 'the void ratio the target asked for' },
  particlesAsked: { description: 'the count the target asked for' },
  solidFractionAsked: { unit: 'fraction', description: 'the solid fraction of the region the target asked for' },
  regionVolume: { unit: UNITS.volume, unit2d: UNITS.area, description: 'volume (area) of the region' },
  stopReason: { description: "'target' (every class got its share), 'full' (a class found no more room: shortClasses), 'cancelled' or 'stopped' (by the user, keeping the balls placed so far: runs.stop)" },
  shortClasses: { description: 'the classes (their index in the gradation) that found no more room before their share' },
  maxOverlap: { unit: UNITS.length, description: 'largest interpenetration of two balls, by an independent exact check over every pair in reach' },
  maxOverlapRelative: { unit: 'smallest radius', description: 'maxOverlap / the smallest radius of the gradation (at most 1e-9 by design)' },
  overlappingPairs: { description: 'pairs interpenetrating by more than the contact gap' },
  maxWallOverlap: { unit: UNITS.length, description: 'largest distance a ball reaches through a wall' },
  contacts: { description: 'pairs whose surfaces are at most contactGap apart' },
  coordinationMean: { description: 'mean contacts per ball (2 contacts / balls)' },
  contactGap: { unit: UNITS.length, description: 'largest surface gap that counts as a contact (1e-6 of the smallest radius)' },
  placedRandom: { description: 'balls placed at a random position' },
  placedOneContact: { description: 'balls placed by one contact (Eq. 2)' },
  placedTwoContacts: { description: 'balls placed by two contacts (Eqs. 3-4)' },
  placedThreeContacts: { description: 'balls placed by three contacts (Eq. 5)' },
  candidateTests: { description: 'candidate positions tested' },
  nucleiClosed: { description: 'times a nucleus was closed for a class (no room found around it)' },
  reshapePasses: { description: 'reshape passes run (Fig. 3)' },
  reshapeMoves: { description: 'balls moved by the reshape passes' },
  stackingSeconds: { unit: 's', description: 'wall time of the stacking' },
  checkSeconds: { unit: 's', description: 'wall time of the contact and overlap check' },
  wallSeconds: { unit: 's', description: 'wall time of the whole run' },
  particlesPerSecond: { unit: '1/s', description: 'balls placed per second of stacking' },
};

/**
 * Runs the stacker to its target (or until cancelled, or stopped by the user: `stopped`; every ball
 * placed or moved is at a free position, so the balls so far are a packing without overlap).
 */
export function stack(params: StackingParams, ctx: EngineContext): { stacker: Stacker; classes: SizeClass[]; solidVolume: number; seconds: number; stopped: boolean } {
  throwIfIssues(check(params));
  const t0 = performance.now();
  const classes = resolveGradation(params.gradation);
  const { solidVolume, quotas, classBalls, maxParticles, expectedParticles } = plan(params, classes);
  const rMin = Math.min(...classes.map((c) => c.rMin));
  const region = new Region(params.region, params.dim, 1e-10 * rMin);
  const targetCount = params.target.kind === 'count' ? params.target.particles : Infinity;
  const stacker = new Stacker({
    dim: params.dim, region, classes, quotas, classBalls, solidVolume, targetCount,
    capacity: maxParticles, gid: params.gid, reshape: params.reshape, order: params.order, seed: ctx.seed,
  });
  let stopped = false;
  stacker.fill(() => {
    let solid = 0;
    for (let j = 0; j < classes.length; j++) solid += stacker.classVolume[j];
    const counters = { particles: stacker.count, solidFraction: solid / region.volume, reshapePasses: stacker.counters.reshapePasses };
    // By balls, each about the same work, not by solid volume: in the seed's gradations the
    // smallest class is a fifth of the solid and nine balls in ten, and a million balls read 80 %
    // after a tenth of their time. A reshape pass (a minute at 10⁶ balls) is a phase of its own.
    if (stacker.reshapeVisited >= 0) {
      ctx.progress({ done: stacker.reshapeVisited, total: stacker.count, phase: 'reshaping', counters });
    } else {
      ctx.progress({ done: Math.min(999, Math.floor((1000 * stacker.count) / expectedParticles)), total: 1000, phase: 'stacking', counters });
    }
    if (ctx.cancelled()) return true;
    stopped = ctx.stopRequested?.() === true;
    return stopped;
  });
  return { stacker, classes, solidVolume, seconds: (performance.now() - t0) / 1000, stopped };
}

/** The particle table: x, y, z, r and the class (its index in the params: class, or sieve segment from the smallest). */
function particleTable(s: Stacker, classes: SizeClass[], params: StackingParams): ColumnTable {
  const n = s.count, p = s.pos;
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), r = new Float64Array(n);
  const cls = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = p[4 * i]; y[i] = p[4 * i + 1]; z[i] = p[4 * i + 2]; r[i] = p[4 * i + 3];
    cls[i] = classes[s.cls[i]].source;
  }
  const reg = s.region;
  const g = params.gradation;
  const classNames = g.kind === 'classes'
    ? g.classes.map((c) => `r = ${c.radius}`)
    : g.sizes.slice(1).map((d, k) => `${g.sizes[k]}-${d}`);
  return {
    kind: 'table',
    name: PARTICLE_TABLE.name,
    columns: { x, y, z, r, class: cls },
    meta: {
      ...(params.dim === 2 ? { particleTable: PARTICLE_TABLE_2D } : {}),
      classNames,
      dim: params.dim,
      region: params.region,
      box: [reg.lx, reg.ly, reg.lz],
      periodic: [reg.periodicX, reg.periodicY, false],
      classColumn: params.gradation.kind === 'classes' ? 'index of the class in gradation.classes' : 'sieve segment, 0 = between the two smallest sizes',
    },
  };
}

/** Largest distance by which a ball reaches through a wall (0 when all are inside), checked directly. */
function maxWallOverlap(t: ColumnTable, s: Stacker): number {
  const { x, y, z, r } = t.columns as Record<string, Float64Array>;
  const reg = s.region;
  let worst = 0;
  for (let i = 0; i < x.length; i++) {
    if (reg.dim === 3) worst = Math.max(worst, r[i] - z[i], z[i] + r[i] - reg.lz);
    if (reg.round) {
      worst = Math.max(worst, Math.hypot(x[i] - reg.radius, y[i] - reg.radius) + r[i] - reg.radius);
    } else {
      if (!reg.periodicX) worst = Math.max(worst, r[i] - x[i], x[i] + r[i] - reg.lx);
      if (!reg.periodicY) worst = Math.max(worst, r[i] - y[i], y[i] + r[i] - reg.ly);
    }
  }
  return worst;
}

/**
 * The log line of a front-order run that met its target with part of the region left empty (null
 * otherwise): the front grows a dense bed from the floor, so a void ratio looser than the bed's
 * leaves the region above it empty. e = 1 asked in 13 x 13 gave a bed 7.45 high at e = 0.25 under
 * an empty top, with e = 1 in the metrics (over the region) and nothing said. Said when the empty
 * part is more than a largest diameter high: above the bed under the ceiling, or, along a periodic
 * y (no floor: the bed grows up from y = 0), the band between the bed's top and the periodic images
 * of its bottom. That band was not said at all. It is the same room a loose void ratio leaves
 * under a ceiling, not a gap the front cannot fill: asked denser, the front fills it (the 2D first
 * group in 6 x 6, e = 0.15: 0.861 with y periodic, 0.857 between walls).
 */
function frontBed(s: Stacker, solid: number, rMax: number): string | null {
  const reg = s.region, p = s.pos, height = reg.ly;
  if (s.count === 0) return null;
  const advice = "for a packing as loose throughout, use order 'seed' or 'contactsFirst'";
  const measured = (thickness: number) => {
    const f = solid / (reg.lx * thickness);
    return `the bed itself is at solid fraction ${f.toFixed(4)} (e = ${(1 / f - 1).toFixed(4)})`;
  };
  if (reg.periodicY) {
    const band = emptyBand(p, s.count, height);
    if (band.width <= 2 * rMax) return null;
    const thickness = height - band.width, to = band.from + band.width;
    const ends = to > height ? `${band.from.toPrecision(4)} across the seam to y = ${(to - height).toPrecision(4)}` : `${band.from.toPrecision(4)} to y = ${to.toPrecision(4)}`;
    return `order 'front' grew its bed up from y = 0 along the periodic y (no floor) to ${thickness.toPrecision(4)} thick, ${Math.round((100 * thickness) / height)} % of the region's height ${height}: ` +
      `the void ratio asked holds over the region, but the band from y = ${ends}, between the bed's top and the periodic images of its underside, is empty, and ${measured(thickness)}: ` +
      `the room this void ratio leaves, as under a ceiling, not a gap of the periodic y (asked denser, the front fills it); ${advice}`;
  }
  let top = 0;
  for (let i = 0; i < s.count; i++) top = Math.max(top, p[4 * i + 1] + p[4 * i + 3]);
  if (top >= height - 2 * rMax) return null;
  // The region's area below the top: a rectangle's strip, a circle's segment.
  const R = reg.radius, d = R - top;
  const below = reg.round ? R * R * Math.acos(d / R) - d * Math.sqrt(R * R - d * d) : reg.lx * top;
  const f = solid / below;
  return `order 'front' grew its bed from the floor to y = ${top.toPrecision(4)}, ${Math.round((100 * top) / height)} % of the region's height ${height}: ` +
    `the void ratio asked holds over the region, but the region above the bed is empty and the bed itself is at solid fraction ${f.toFixed(4)} (e = ${(1 / f - 1).toFixed(4)}); ` +
    advice;
}

/** Bins of a periodic y in which emptyBand marks the disks (a bin is 1/65536 of the height). */
const BAND_BINS = 1 << 16;

/**
 * The widest band of a periodic y [0, ly) that no disk reaches into, from `from` up (from + width
 * may pass ly: the band then crosses the seam y = 0 = ly). Each disk covers [y - r, y + r] (r is
 * at most a tenth of a periodic side), marked in BAND_BINS bins; a bin a disk only touches counts
 * as covered, so the band comes out at most two bins narrower. O(disks + bins).
 */
function emptyBand(p: Float64Array, n: number, ly: number): { from: number; width: number } {
  const bin = ly / BAND_BINS, starts = new Int32Array(BAND_BINS + 1);
  const mark = (lo: number, hi: number) => { starts[lo]++; starts[hi + 1]--; };
  for (let i = 0; i < n; i++) {
    const y = p[4 * i + 1], r = p[4 * i + 3];
    const lo = Math.floor((y - r) / bin), hi = Math.min(Math.floor((y + r) / bin), lo + BAND_BINS - 1);
    if (lo < 0) { mark(lo + BAND_BINS, BAND_BINS - 1); mark(0, hi); } else if (hi >= BAND_BINS) { mark(lo, BAND_BINS - 1); mark(0, hi - BAND_BINS); } else mark(lo, hi);
  }
  // The longest run of empty bins, around the circle (twice over, so a run may cross the seam).
  let covered = 0, run = 0, best = 0, bestEnd = 0;
  const empty = new Uint8Array(BAND_BINS);
  for (let k = 0; k < BAND_BINS; k++) empty[k] = (covered += starts[k]) > 0 ? 0 : 1;
  for (let k = 0; k < 2 * BAND_BINS && best < BAND_BINS; k++) {
    run = empty[k % BAND_BINS] ? run + 1 : 0;
    if (run > best) { best = Math.min(run, BAND_BINS); bestEnd = k; }
  }
  return { from: ((bestEnd - best + 1) % BAND_BINS) * bin, width: best * bin };
}

/** Per-class series: volume fraction asked and achieved, and balls, at each class's mean diameter. */
function classSeries(s: Stacker, classes: SizeClass[]): EngineSeries[] {
  const d = Float64Array.from(classes, (c) => c.rMin + c.rMax).reverse();
  let solid = 0;
  for (let j = 0; j < classes.length; j++) solid += s.classVolume[j];
  const asked = Float64Array.from(classes, (c) => c.fraction).reverse();
  const achieved = Float64Array.from(s.classVolume, (v) => (solid > 0 ? v / solid : 0)).reverse();
  const count = Float64Array.from(s.classCount).reverse();
  return [
    { name: 'class volume fraction asked', xLabel: `class mean diameter (${UNITS.length})`, yLabel: 'share of the solid volume', x: d, y: asked, kind: 'bar' },
    { name: 'class volume fraction achieved', xLabel: `class mean diameter (${UNITS.length})`, yLabel: 'share of the solid volume', x: d, y: achieved, kind: 'bar' },
    { name: 'particles per class', xLabel: `class mean diameter (${UNITS.length})`, yLabel: 'particles', x: d, y: count, kind: 'bar' },
  ];
}

export const stackingEngine = defineEngine({
  id: 'stacking',
  title: 'Geometric stacking',
  description:
    'Non-overlapping disks (2D) or spheres (3D) to a gradation and a void ratio or count, largest class first, each ball at the first free ' +
    'random, one-, two- or three-contact position, with reshape passes when a class finds no room (Meng & Zhang 2019). ' +
    'Metrics over the region: solidFraction = solid volume / region volume, voidRatio = void / solid; maxOverlap = the largest ' +
    'interpenetration of two balls by an independent exact check.',
  paramsSchema: stackingParamsSchema,
  check,
  warnings: ineffectiveFields,
  estimateMemoryBytes,
  particleTable: PARTICLE_TABLE,
  metrics: STACKING_METRICS,
  stopAndKeep: 'the balls placed so far (largest classes first, so the gradation is short of its finest classes), checked for overlaps as a finished stacking',
  run(params, ctx): EngineResult {
    const t0 = performance.now();
    const { stacker: s, classes, solidVolume, seconds, stopped } = stack(params, ctx);
    // The stacker ends 'cancelled' at either; a stopped run goes on to its table and check.
    let cancelled = s.stopReason === 'cancelled' && !stopped;
    if (s.stopReason === 'full') {
      // The status alone ('full') does not say how far short: a count target may ask for more than
      // any stacking of the gradation holds, which check() can bound only for equal balls.
      let placed = 0;
      for (let j = 0; j < classes.length; j++) placed += s.classVolume[j];
      const asked = params.target.kind === 'count' ? `${params.target.particles} balls` : `void ratio ${params.target.e}`;
      ctx.log(`ended full: ${s.shortClasses.map((j) => className(params.gradation, classes[j])).join(', ')} found no more room after ${s.counters.reshapePasses} reshape passes; ` +
        `${s.count} balls at solid fraction ${(placed / s.region.volume).toFixed(4)}, short of the ${asked} asked (solid fraction ${(solidVolume / s.region.volume).toFixed(4)})`);
    } else if (s.stopReason === 'target') {
      // check() gives every class one ball on average, but the last class of a count gets what
      // the larger classes' whole balls leave of it: at the least count it may get none (1 seed in 60).
      const none = classes.filter((_, j) => s.classCount[j] === 0).map((c) => className(params.gradation, c));
      if (none.length > 0) {
        ctx.log(`${none.join(', ')} got no ball: the larger classes' whole balls took ${none.length === 1 ? 'its share' : 'their shares'} of the ${params.target.kind === 'count' ? `${params.target.particles} balls` : 'solid'} asked, and the packing lacks ${none.length === 1 ? 'it' : 'them'}; a larger ${params.target.kind === 'count' ? 'count' : 'region'} gives every class its balls`);
      }
    }
    const table = particleTable(s, classes, params);
    const { x, y, z, r } = table.columns as Record<string, Float64Array>;
    let solid = 0, rMin = Infinity, rMax = 0;
    for (let j = 0; j < classes.length; j++) solid += s.classVolume[j];
    for (const c of classes) { rMin = Math.min(rMin, c.rMin); rMax = Math.max(rMax, c.rMax); }
    if (params.order === 'front' && s.stopReason === 'target' && !stopped) {
      const bed = frontBed(s, solid, rMax);
      if (bed !== null) ctx.log(bed);
    }

    // Contacts and overlaps by core/analysis (its own grid, exact distances over all pairs in reach);
    // not for a cancelled run, which keeps no table and should stop at once (at 38,000 balls the
    // check took most of the 1.5 s a cancel took).
    const t1 = performance.now();
    const reg = s.region;
    let contactMetrics: Record<string, number> = {};
    const contactSeries: EngineSeries[] = [];
    // The check reports its balls and stops at a cancel: at 3·10⁷ balls it takes minutes.
    const contacts = cancelled ? null : sphereContacts(x, y, z, r, [reg.lx, reg.ly, reg.dim === 3 ? reg.lz : 1], [reg.periodicX, reg.periodicY, false], CONTACT_GAP * rMin, (done, total) => {
      ctx.progress({ done, total, phase: 'checking contacts' });
      return ctx.cancelled();
    });
    if (!cancelled && contacts === null) cancelled = true;
    if (contacts !== null) {
      table.columns.coordination = Uint16Array.from(contacts.degree, (d) => Math.min(d, 65535));
      contactMetrics = {
        maxOverlap: contacts.maxOverlap,
        maxOverlapRelative: contacts.maxOverlap / rMin,
        overlappingPairs: contacts.overlappingPairs,
        maxWallOverlap: maxWallOverlap(table, s),
        contacts: contacts.contacts,
        coordinationMean: s.count > 0 ? (2 * contacts.contacts) / s.count : 0,
        contactGap: CONTACT_GAP * rMin,
        checkSeconds: (performance.now() - t1) / 1000,
      };
      contactSeries.push(coordinationSeries(contacts.degree));
    }

    const sizes = sieveSizes(classes);
    const sieveX = sizes.slice();
    const c = s.counters;
    const timeX = s.sampleTime.slice(0, s.samples), timeY = s.sampleCount.slice(0, s.samples);
    return {
      cancelled,
      ...(stopped ? { stopped: `${s.count} balls placed, solid fraction ${(solid / reg.volume).toFixed(4)} of the ${(solidVolume / reg.volume).toFixed(4)} asked` } : {}),
      metrics: {
        particles: s.count,
        solidFraction: solid / reg.volume,
        ...(solid > 0 ? { voidRatio: (reg.volume - solid) / solid } : {}),
        ...(params.target.kind === 'voidRatio' ? { voidRatioAsked: params.target.e } : { particlesAsked: params.target.particles }),
        solidFractionAsked: solidVolume / reg.volume,
        regionVolume: reg.volume,
        stopReason: cancelled ? 'cancelled' : stopped ? 'stopped' : s.stopReason ?? 'target',
        shortClasses: s.shortClasses.map((j) => classes[j].source).join(' '),
        ...contactMetrics,
        placedRandom: c.randomPlaced,
        placedOneContact: c.oneContactPlaced,
        placedTwoContacts: c.twoContactPlaced,
        placedThreeContacts: c.threeContactPlaced,
        candidateTests: c.randomTries + c.oneContactTries + c.twoContactTries + c.threeContactTries,
        nucleiClosed: c.nucleiClosed,
        reshapePasses: c.reshapePasses,
        reshapeMoves: c.reshapeMoves,
        stackingSeconds: seconds,
        wallSeconds: (performance.now() - t0) / 1000,
        particlesPerSecond: seconds > 0 ? s.count / seconds : 0,
      },
      series: [
        { name: 'particles against time', xLabel: 'time (s)', yLabel: 'particles', x: timeX, y: timeY, kind: 'line' },
        { name: 'sieve curve asked', xLabel: `size, diameter (${UNITS.length})`, yLabel: '% finer by volume', x: sieveX, y: askedPassing(classes, sizes, params.dim), kind: 'line' },
        { name: 'sieve curve achieved', xLabel: `size, diameter (${UNITS.length})`, yLabel: '% finer by volume', x: sizes, y: achievedPassing(r, sizes, params.dim), kind: 'line' },
        ...classSeries(s, classes),
        ...contactSeries,
      ],
      artifacts: [table],
    };
  },
});
