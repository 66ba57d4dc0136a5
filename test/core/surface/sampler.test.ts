import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import type { ColumnTable, EngineContext, EngineProgress, EngineResult, LabelVolume } from '../../../core/common/engine';
import { implicitFunction, implicitSurfaceSchema, type ImplicitSurface } from '../../../core/surface/implicit';
import { solidBounds, longestSide, surfaceDistance } from '../../../core/surface/solid';
import { SurfaceSampler, expNegative, variation, type NeighbourSearch } from '../../../core/surface/sampler';
import { checkParams, surfaceEngine, surfaceParamsSchema } from '../../../core/surface/index';

const ctx = (seed = 1, cancelAfter = Infinity): EngineContext => {
  let calls = 0;
  return { seed, threads: 1, progress() {}, cancelled: () => ++calls > cancelAfter, log() {} };
};
const run = (params: unknown, c = ctx()) => surfaceEngine.run(surfaceParamsSchema.parse(params), c) as EngineResult;

function sampler(s: ImplicitSurface, spacing: number, search: NeighbourSearch = 'cells', seed = 1): SurfaceSampler {
  const fn = implicitFunction(s);
  return new SurfaceSampler({ fn, bounds: solidBounds(s, fn), spacing, capacity: 100_000, neighbourSearch: search, seed, timeStep: 0.25, feedback: 2 });
}

/** Nearest-neighbour distances by brute force, independent of the sampler's grid. */
function nearestByBruteForce(x: Float64Array, y: Float64Array, z: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n).fill(Infinity);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
    const d = Math.hypot(x[i] - x[j], y[i] - y[j], z[i] - z[j]);
    if (d < out[i]) out[i] = d;
    if (d < out[j]) out[j] = d;
  }
  return out;
}

const blobby = {
  kind: 'blobby', threshold: 0.5, blobs: [
    { from: [-1, 0, 0], to: [1, 0, 0], radius: 0.45 },
    { from: [0, -1, 0.3], to: [0, 1, 0.3], radius: 0.4 },
    { falloff: 'polynomial', from: [0.6, 0.2, -0.8], to: [0.6, 0.2, 1], radius: 0.6, strength: 1.5 },
  ],
};

describe('surface engine', () => {
  it.each([
    ['sphere', { kind: 'sphere', radius: 1 }, 0.12],
    ['torus', { kind: 'torus', majorRadius: 1, minorRadius: 0.4 }, 0.1],
    ['superquadric', { kind: 'superquadric', semiAxes: [1, 0.8, 0.6], e1: 0.3, e2: 0.3 }, 0.1],
    ['blobby', blobby, 0.1],
  ] as const)('%s: ends uniform with every particle on the surface', (_name, surface, spacing) => {
    const r = run({ surface, spacing, voxelsAcross: 0 });
    const m = r.metrics;
    expect(m.stopReason).toBe('uniform');
    // Every metric declared with what it measures (History's tooltip and unit).
    expect(Object.keys(m).filter((k) => !surfaceEngine.metrics?.[k])).toEqual([]);
    const table = r.artifacts[0] as ColumnTable;
    const { nx, ny, nz, r: radius } = table.columns as Record<string, Float64Array>;
    // Positions in the frame of the solid's box: surface coordinates minus the offset.
    const offset = table.meta!.offset as number[];
    const [x, y, z] = (['x', 'y', 'z'] as const).map((c, a) => (table.columns[c] as Float64Array).map((v) => v + offset[a]));
    const n = x.length;
    expect(m.particles).toBe(n);
    // Residual checked here, not by the engine's own number: |F|/|∇F| at every point.
    const s = implicitSurfaceSchema.parse(surface), fn = implicitFunction(s), g = new Float64Array(3);
    const size = longestSide(solidBounds(s, fn));
    let worst = 0;
    for (let i = 0; i < n; i++) {
      const F = fn.valueAndGradient(x[i], y[i], z[i], g);
      const gl = Math.hypot(g[0], g[1], g[2]);
      worst = Math.max(worst, Math.abs(F) / gl);
      // Normals are unit and outward.
      expect(nx[i] * g[0] + ny[i] * g[1] + nz[i] * g[2]).toBeCloseTo(gl, 9);
    }
    expect(worst).toBeLessThan(1e-3 * size);
    // The engine's number is the distance to the point Newton's steps reach: |F|/|∇F| to first order.
    let distance = 0;
    for (let i = 0; i < n; i++) distance = Math.max(distance, surfaceDistance(fn, x[i], y[i], z[i], spacing));
    expect(m.maxSurfaceResidual).toBeCloseTo(distance, 12);
    expect(distance / worst).toBeGreaterThan(0.99);
    expect(distance / worst).toBeLessThan(1.01);
    // Uniform, by distances computed here by brute force.
    const nn = nearestByBruteForce(x, y, z, n);
    const v = variation(nn, n);
    expect(v.cv).toBeLessThanOrEqual(0.1);
    expect(m.nearestNeighbourCV).toBeCloseTo(v.cv, 9);
    expect(Math.abs(v.mean / spacing - 1)).toBeLessThan(0.05);
    for (let i = 0; i < n; i++) expect(radius[i]).toBeCloseTo(nn[i] / 2, 9);
    // The particles it ends with are those the stop rule measured (moved once): no pair split in the
    // last iteration, σ/2 (a quarter of the spacing) apart, is among them.
    let nearest = Infinity;
    for (let i = 0; i < n; i++) nearest = Math.min(nearest, nn[i]);
    expect(nearest / spacing).toBeGreaterThan(0.4);
  });

  it("a uniform run's results are the sampling its stop rule found uniform: no fission or death after it", () => {
    // A sphere at spacing 0.05 ended 'uniform' with a pair its last iteration had split 0.29
    // spacings apart; a torus at stop.targetCV 0.05 ended 'uniform' with nearestNeighbourCV 0.0575.
    const r = run({ spacing: 0.05, voxelsAcross: 0 });
    expect(r.metrics.stopReason).toBe('uniform');
    expect(r.metrics.nearestNeighbourCV as number).toBeLessThanOrEqual(0.08);
    const radius = (r.artifacts[0] as ColumnTable).columns.r as Float64Array;
    let smallest = Infinity;
    for (const v of radius) smallest = Math.min(smallest, v);
    expect((2 * smallest) / 0.05).toBeGreaterThan(0.4);
  });

  it('a random sampling of the sphere has CV near 0.5, the uniform one at most 0.1', () => {
    const r = run({ surface: { kind: 'sphere', radius: 1 }, spacing: 0.1, voxelsAcross: 0 });
    const n = Number(r.metrics.particles), rnd = new Random(9);
    const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const a = rnd.normal(), b = rnd.normal(), c = rnd.normal(), l = Math.hypot(a, b, c);
      x[i] = a / l; y[i] = b / l; z[i] = c / l;
    }
    const random = variation(nearestByBruteForce(x, y, z, n), n).cv;
    expect(random).toBeGreaterThan(0.4);
    expect(random).toBeLessThan(0.6);
    expect(Number(r.metrics.nearestNeighbourCV)).toBeLessThanOrEqual(0.1);
  });

  it('series, label volume, determinism, cancellation', () => {
    const p = { surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.4 }, spacing: 0.15, voxelsAcross: 30 };
    const a = run(p), b = run(p);
    expect(a.series.map((s) => s.name)).toEqual(['nearest-neighbour CV', 'particles', 'mean spacing']);
    expect(a.series[1].y.at(-1)).toBe(a.metrics.particles);
    expect(a.series[0].x.length).toBe(a.metrics.iterations);
    expect((a.artifacts[0] as ColumnTable).columns.x).toEqual((b.artifacts[0] as ColumnTable).columns.x);
    const vol = a.artifacts[1] as LabelVolume;
    expect(vol.kind).toBe('volume');
    expect(vol.dims[0]).toBe(30);
    expect(vol.dims[2]).toBe(Math.ceil(30 * (0.8 + 0.15) / (2.8 + 0.15) - 1e-9));
    // Table and volume share the frame: every particle lies in the volume's box.
    const t = a.artifacts[0] as ColumnTable, box = t.meta!.box as number[];
    for (let k = 0; k < 3; k++) expect(box[k]).toBeCloseTo(vol.dims[k] * vol.voxelSize, 9);
    expect(t.meta!.offset).toEqual(vol.meta!.offset);
    for (const c of ['x', 'y', 'z'] as const) {
      const v = t.columns[c] as Float64Array, k = ['x', 'y', 'z'].indexOf(c);
      expect(Math.min(...v)).toBeGreaterThan(0);
      expect(Math.max(...v)).toBeLessThan(box[k]);
    }
    let solid = 0;
    for (const l of vol.labels) solid += l;
    const exact = 2 * Math.PI * Math.PI * 1 * 0.16;
    expect(Math.abs((solid * vol.voxelSize ** 3) / exact - 1)).toBeLessThan(0.05);
    // The seeding looks once a row of its grid, the sampling once an iteration.
    let looks = 0, seedingLooks = -1;
    run(p, { ...ctx(), cancelled: () => (looks++, false), progress: () => { if (seedingLooks < 0) seedingLooks = looks - 1; } });
    const c = run(p, ctx(1, seedingLooks + 5));
    expect(c.cancelled).toBe(true);
    expect(c.metrics.stopReason).toBe('cancelled');
    expect(c.metrics.iterations).toBe(5);
    // A cancelled run does not voxelise the solid (its artifacts are dropped; 2 s at 400 across).
    expect(c.artifacts.map((x) => x.kind)).toEqual(['table']);
  });

  it('the solid\'s voxelisation reports its planes and stops at a cancel (minutes on a large blobby surface)', () => {
    const p = { surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.4 }, spacing: 0.15, voxelsAcross: 60 };
    const planes: number[] = [];
    let voxelising = false;
    const progress = (e: EngineProgress) => {
      if (e.phase !== 'voxelising the solid') return;
      voxelising = true;
      planes.push(e.done);
    };
    // Cancelled at its fourth plane: no volume, the run cancelled.
    const c = run(p, { ...ctx(), progress, cancelled: () => voxelising && planes.length > 3 });
    expect(planes).toEqual([0, 1, 2, 3]);
    expect(c.cancelled).toBe(true);
    expect(c.metrics.stopReason).toBe('cancelled');
    expect(c.artifacts.map((x) => x.kind)).toEqual(['table']);
  });

  it('a cancel during the seeding stops it part-way (seconds on a large blobby surface)', () => {
    const p = { surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.4 }, spacing: 0.15, voxelsAcross: 0 };
    let looks = 0, seedingLooks = -1;
    const full = run(p, { ...ctx(), cancelled: () => (looks++, false), progress: () => { if (seedingLooks < 0) seedingLooks = looks - 1; } });
    expect(seedingLooks).toBeGreaterThan(20);
    const seeded = sampler(surfaceParamsSchema.parse(p).surface, 0.15).n;
    expect(Number(full.metrics.particles)).toBeGreaterThan(0);
    // At the first look (the grid's corners): no particle yet, no iteration.
    const first = run(p, ctx(1, 0));
    expect(first.cancelled).toBe(true);
    expect(first.metrics.stopReason).toBe('cancelled');
    expect(first.metrics.iterations).toBe(0);
    expect(first.metrics.particles).toBe(0);
    // Three quarters into its looks (half of them the corners' rows, half the cells'): some
    // particles, not all.
    const late = run(p, ctx(1, Math.floor(0.75 * seedingLooks)));
    expect(late.metrics.iterations).toBe(0);
    expect(Number(late.metrics.particles)).toBeGreaterThan(0);
    expect(Number(late.metrics.particles)).toBeLessThan(seeded);
  });

  it('progress counts to maxIterations only as an upper bound, and to the window\'s end once uniform', () => {
    // A run uniform after some 60 iterations of 2,000 had shown 3 % and then done.
    const all: EngineProgress[] = [];
    const r = run({ surface: { kind: 'sphere' }, spacing: 0.1 }, { ...ctx(), progress: (q) => { all.push(q); } });
    // Then the solid's voxelisation, its planes (64 at voxelsAcross 64) in a phase of its own.
    const reports = all.filter((q) => q.phase !== 'voxelising the solid');
    expect(all.length - reports.length).toBe(64);
    const end = r.metrics.iterations as number, window = 20;
    expect(r.metrics.stopReason).toBe('uniform');
    expect(end).toBeLessThan(500);
    expect(reports.length).toBe(end);
    // Its counters are named as its metrics, so that `runs show` gives them with their units: the
    // mean spacing was 'meanSpacing 0.01202', without its length unit.
    expect(Object.keys(reports[0].counters ?? {}).map((k) => [k, surfaceEngine.metrics?.[k]?.unit])).toEqual([
      ['particles', undefined], ['nearestNeighbourCV', 'ratio'], ['meanNearestNeighbour', 'length units'], ['uniformFor', 'iterations'],
    ]);
    const last = reports.slice(-window);
    for (const q of last) {
      expect(q.total).toBe(end);
    }
    expect(last[0].done / last[0].total).toBeGreaterThan(0.5);
    expect(last.at(-1)!.done).toBe(end);
    const before = reports[end - window - 1];
    expect(before.total).toBe(2000);
    expect(new Set(reports.map((q) => q.phase))).toEqual(new Set(['sampling until uniform, at most 2000 iterations']));
    expect(all.slice(reports.length).map((q) => q.done)).toEqual([...Array(64).keys()]);
  });

  it('a run on a surface whose area estimate did not resolve says in its log that its surfaceArea is uncertain', () => {
    // 64 blobs: the area keeps the grid's figure, uncertain (estimateArea); the run reported it as
    // measured, with nothing in its log.
    const rnd = new Random(3), corner = () => [rnd.next() * 20, rnd.next() * 20, rnd.next() * 20];
    const blobs = Array.from({ length: 64 }, () => ({ from: corner(), to: corner(), radius: 0.8 + rnd.next() }));
    const logs: string[] = [];
    const r = run({ surface: { kind: 'blobby', threshold: 0.5, blobs }, spacing: 0.8, stop: { maxIterations: 1, window: 1 }, voxelsAcross: 0 }, { ...ctx(), log: (m) => { logs.push(m); } });
    expect(logs[0]).toMatch(new RegExp(`^surfaceArea ${(r.metrics.surfaceArea as number).toPrecision(4)} is uncertain: the grids that measure it did not agree within 2 %`));
    const sphere: string[] = [];
    run({ spacing: 0.1, stop: { maxIterations: 1, window: 1 }, voxelsAcross: 0 }, { ...ctx(), log: (m) => { sphere.push(m); } });
    expect(sphere.some((m) => m.includes('uncertain'))).toBe(false);
  });

  it('a run that ends at stop.maxIterations before it is uniform says so in its log, with how far it was', () => {
    // It ended 'done' with an empty log: stopReason 'maxIterations' among the metrics was all that
    // said the sampling (CV 0.28 against 0.08) was not the uniform one asked for.
    const logs: string[] = [];
    const r = run({ spacing: 0.1, stop: { maxIterations: 5, window: 5 }, voxelsAcross: 0 }, { ...ctx(), log: (m) => { logs.push(m); } });
    expect(r.metrics.stopReason).toBe('maxIterations');
    expect(logs).toEqual([expect.stringMatching(/^not uniform at stop\.maxIterations = 5: nearest-neighbour CV 0\.\d+ \(stop\.targetCV 0\.08\), mean spacing -?\d+\.\d+ % off \(stop\.spacingTolerance 2 %\).*; raise stop\.maxIterations/)]);
    // Its numbers are the results' (the particles moved once after the stop rule measured them): it
    // said CV 0.350 and -11.95 % at spacing 0.05 while the metrics said 0.221 and +0.29 %.
    const [, cv, offBy] = /CV ([\d.]+) .*mean spacing (-?[\d.]+) % off/.exec(logs[0])!;
    expect(cv).toBe((r.metrics.nearestNeighbourCV as number).toPrecision(3));
    expect(offBy).toBe((100 * (r.metrics.spacingError as number)).toFixed(2));
    const uniform: string[] = [];
    expect(run({ spacing: 0.1, voxelsAcross: 0 }, { ...ctx(), log: (m) => { uniform.push(m); } }).metrics.stopReason).toBe('uniform');
    expect(uniform).toEqual([]);
  });

  it('uniform needs the particles on the surface: a sharp superquadric (ε = 2) is not uniform while particles stay off its edges', () => {
    const sharp = (o: Record<string, unknown>) => ({ surface: { kind: 'superquadric', e1: 2, e2: 2 }, spacing: 0.05, stop: { maxIterations: 300, ...o } });
    const logs: string[] = [];
    const r = run(sharp({}), { ...ctx(), log: (m) => { logs.push(m); } });
    // It had ended 'uniform' at iteration 142 with 6 % of the particles more than 0.01 off the surface.
    expect(r.metrics.stopReason).toBe('maxIterations');
    expect(logs.some((m) => m.includes('stop.surfaceTolerance'))).toBe(true);
    // Its last line told the user to raise stop.maxIterations, with a CV and spacing both within
    // their targets: the particles off the edges stay off however long it runs.
    expect(logs.at(-1)).toMatch(/^not uniform at stop\.maxIterations = 300: evenly spaced when the stop rule last measured it \(the results, moved once since: nearest-neighbour CV .*\), but a particle lies 0\.0\d+ from the surface, over stop\.surfaceTolerance × spacing = 0\.00500 .*; raise stop\.surfaceTolerance to accept them$/);
    // The distances recomputed from the table, in the surface's coordinates.
    const t = r.artifacts[0] as ColumnTable, off = t.meta!.offset as number[], fn = implicitFunction(implicitSurfaceSchema.parse(sharp({}).surface));
    const { x, y, z } = t.columns as Record<string, Float64Array>;
    let off5 = 0;
    for (let i = 0; i < x.length; i++) if (surfaceDistance(fn, x[i] + off[0], y[i] + off[1], z[i] + off[2], 0.05) > 0.1 * 0.05) off5++;
    expect(r.metrics.offSurfaceParticles).toBe(off5);
    expect(off5).toBeGreaterThan(0);
    // With a looser tolerance it ends uniform, within it.
    const loose = run(sharp({ surfaceTolerance: 1 }));
    expect(loose.metrics.stopReason).toBe('uniform');
    expect(loose.metrics.maxSurfaceResidual as number).toBeLessThanOrEqual(0.05);
    expect(loose.metrics.offSurfaceParticles).toBe(0);
    // A smooth surface is not held back: uniform, every particle within 0.1 spacing.
    const round = run({ surface: { kind: 'superquadric', e1: 1.2, e2: 0.3 }, spacing: 0.1 });
    expect(round.metrics.stopReason).toBe('uniform');
    expect(round.metrics.maxSurfaceResidual as number).toBeLessThanOrEqual(0.1 * 0.1);
  });

  it('particles stepped past a sharp rim come back: a flat ellipsoid at the thinnest the checks allow ends uniform, a flat sharp superquadric keeps its count', () => {
    // Beyond a rim of small radius of curvature the level sets of F are flat, so the repulsion of
    // the faces pushed a particle that had stepped past it on outwards (moves.ts, STRAY_SIGMAS).
    const flat = { surface: { kind: 'ellipsoid', semiAxes: [1, 1, 0.075] }, spacing: 0.1, voxelsAcross: 0, stop: { maxIterations: 1000 } } as const;
    expect(checkParams(surfaceParamsSchema.parse(flat))).toEqual([]);
    // It ran to maxIterations with 41 particles up to 0.14 off the rim (stop.surfaceTolerance × spacing: 0.01).
    const e = run(flat).metrics;
    expect([e.stopReason, e.offSurfaceParticles]).toEqual(['uniform', 0]);
    // ε = 2, 0.2 thick: 2,203 particles after 300 iterations (270 now), 1,820 of them off the
    // surface, |F|/|∇F| up to 0.36; with 2,000 iterations 12,437 particles and 165 s. Some stay
    // beyond its flat tips (0.03 now: surfaceDistance; |F|/|∇F| read 0.006 there).
    const sharp = run({ surface: { kind: 'superquadric', semiAxes: [1, 1, 0.1], e1: 2, e2: 2 }, spacing: 0.1, voxelsAcross: 0, stop: { maxIterations: 300 } }).metrics;
    expect(sharp.particles as number).toBeLessThan(400);
    expect(sharp.maxSurfaceResidual as number).toBeLessThan(0.1);
  });

  it("a particle beyond the flat tips of a sharp superquadric counts as off the surface: |F|/|∇F| read it on", () => {
    // ε 2, (1, 1, 0.2): an octahedron. Its run ended 'uniform' with 41 particles 0.01 to 0.02 (seed
    // 1) beyond its tips, |F|/|∇F| (the distance to a face's plane) under 0.01 for every one.
    const spacing = 0.1, c = 0.2;
    const r = run({ surface: { kind: 'superquadric', semiAxes: [1, 1, c], e1: 2, e2: 2 }, spacing, voxelsAcross: 0, stop: { maxIterations: 1000 } });
    const t = r.artifacts[0] as ColumnTable, off = t.meta!.offset as number[];
    const { x, y, z } = t.columns as Record<string, Float64Array>;
    let worst = 0, far = 0;
    for (let i = 0; i < x.length; i++) {
      const d = octahedronDistance([Math.abs(x[i] + off[0]), Math.abs(y[i] + off[1]), Math.abs(z[i] + off[2])], [[1, 0, 0], [0, 1, 0], [0, 0, c]]);
      worst = Math.max(worst, d);
      if (d > 0.1 * spacing) far++;
    }
    expect(far).toBeGreaterThan(0);
    expect(r.metrics.stopReason).toBe('maxIterations');
    expect(r.metrics.offSurfaceParticles).toBe(far);
    expect(r.metrics.maxSurfaceResidual as number).toBeCloseTo(worst, 2);
  });
});

/** Distance from p (in the first octant) to the triangle abc (Ericson, Real-Time Collision Detection, 5.1.5): an octahedron's face. */
function octahedronDistance(p: number[], [a, b, c]: number[][]): number {
  const sub = (u: number[], v: number[]) => [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
  const dot = (u: number[], v: number[]) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  const at = (o: number[], d: number[], t: number) => [o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]];
  const ab = sub(b, a), ac = sub(c, a), ap = sub(p, a), bp = sub(p, b), cp = sub(p, c);
  const d1 = dot(ab, ap), d2 = dot(ac, ap), d3 = dot(ab, bp), d4 = dot(ac, bp), d5 = dot(ab, cp), d6 = dot(ac, cp);
  const va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
  let q: number[];
  if (d1 <= 0 && d2 <= 0) q = a;
  else if (d3 >= 0 && d4 <= d3) q = b;
  else if (d6 >= 0 && d5 <= d6) q = c;
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) q = at(a, ab, d1 / (d1 - d3));
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) q = at(a, ac, d2 / (d2 - d6));
  else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) q = at(b, sub(c, b), (d4 - d3) / (d4 - d3 + d5 - d6));
  else { const w = 1 / (va + vb + vc); q = at(at(a, ab, vb * w), ac, vc * w); }
  return Math.hypot(...sub(p, q));
}

describe('surface sampler', () => {
  it('expNegative is exp(−u) within 3e-14 over a neighbour\'s range [0, 4.5]', () => {
    let worst = 0;
    for (let k = 0; k <= 450_000; k++) {
      const u = k * 1e-5 + (k % 7) * 1.3e-7;
      worst = Math.max(worst, Math.abs(expNegative(u) / Math.exp(-u) - 1));
    }
    expect(expNegative(0)).toBe(1);
    expect(worst).toBeLessThan(3e-14);
  });

  it('the grid steps (linked cells, range queries) equal the O(n²) step', () => {
    const s = implicitSurfaceSchema.parse(blobby);
    const c = sampler(s, 0.12, 'cells');
    // A state mid-way (births done, σ still varied: the cells are sized by the largest), copied
    // into a range-query sampler and an O(n²) one.
    for (let it = 0; it < 25; it++) c.step();
    expect(c.births).toBeGreaterThan(0);
    const others = (['queries', 'direct'] as const).map((search) => {
      const o = sampler(s, 0.12, search);
      o.place(c.x, c.y, c.z, c.sigma, c.n);
      o.sigmaHat = c.sigmaHat;
      return o;
    });
    // Repulsion and constrained moves (the grids renumber their particles on the way): match by position.
    for (let it = 0; it < 10; it++) for (const sm of [c, ...others]) sm.step(false);
    const key = (sm: SurfaceSampler) => Array.from({ length: sm.n }, (_, i) => [sm.x[i], sm.y[i], sm.z[i], sm.sigma[i], sm.energy[i], sm.dx[i], sm.nearest2[i], sm.shareSum[i]]).sort((p, q) => p[0] - q[0]);
    const kd = key(others[1]);
    for (const sm of [c, others[0]]) {
      const k = key(sm);
      expect(k.length).toBe(kd.length);
      for (let i = 0; i < k.length; i++) for (let a = 0; a < 8; a++) expect(k[i][a]).toBeCloseTo(kd[i][a], 10);
      expect(sm.grid!.counters.cellsVisited + sm.grid!.regrids).toBeGreaterThan(0);
    }
  });

  it('birth and death reach a new spacing within 5 %', () => {
    const s = implicitSurfaceSchema.parse({ kind: 'sphere', radius: 1 });
    const sm = sampler(s, 0.1);
    const settle = () => { for (let it = 0; it < 150; it++) sm.step(); };
    settle();
    const nn = new Float64Array(sm.n);
    const spacing = () => { sm.nearestNeighbours(nn); return variation(nn, sm.n).mean; };
    expect(spacing() / 0.1).toBeGreaterThan(0.95);
    expect(spacing() / 0.1).toBeLessThan(1.05);
    // Coarser: particles die.
    const n0 = sm.n, d0 = sm.deaths;
    sm.setSpacing(0.16);
    settle();
    expect(sm.deaths - d0).toBeGreaterThan(0.4 * n0);
    expect(Math.abs(spacing() / 0.16 - 1)).toBeLessThan(0.05);
    // Finer: particles fission.
    const n1 = sm.n, b1 = sm.births;
    sm.setSpacing(0.08);
    settle();
    expect(sm.births - b1).toBeGreaterThan(2 * n1);
    expect(Math.abs(spacing() / 0.08 - 1)).toBeLessThan(0.05);
  });

  it('nearestNeighbours matches brute force, also for particles alone in their range', () => {
    const s = implicitSurfaceSchema.parse({ kind: 'torus', majorRadius: 1, minorRadius: 0.3 });
    const sm = sampler(s, 0.2);
    // Right after seeding many particles have no neighbour within 3σ.
    const out = new Float64Array(sm.n);
    sm.nearestNeighbours(out);
    const bf = nearestByBruteForce(sm.x, sm.y, sm.z, sm.n);
    for (let i = 0; i < sm.n; i++) expect(out[i]).toBeCloseTo(bf[i], 12);
  });
});
