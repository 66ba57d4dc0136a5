import { describe, expect, it, vi } from 'vitest';
import { WORKER_BYTES, type EngineResult } from '../../../core/common/engine';
import { checkParams, estimateMemoryBytes, surfaceGeometry, implicitFunction, implicitSurfaceSchema, solidBounds, surfaceEngine, surfaceParamsSchema } from '../../../core/surface/index';
import { gridBits, gridBytes, SurfaceSampler } from '../../../core/surface/sampler';
import * as solid from '../../../core/surface/solid';

// estimateArea as it is, counted: the checks must refuse on the box before they measure the area.
vi.mock('../../../core/surface/solid', async (original) => {
  const actual = await original<typeof import('../../../core/surface/solid')>();
  return { ...actual, estimateArea: vi.fn(actual.estimateArea) };
});

const parse = (p: unknown) => surfaceParamsSchema.parse(p);
const paths = (p: unknown) => checkParams(parse(p)).map((i) => i.path);

describe('surface params', () => {
  it('defaults parse and pass the checks', () => {
    expect(checkParams(parse({}))).toEqual([]);
  });

  it('are strict at every level', () => {
    for (const bad of [{ spacng: 1 }, { stop: { window: 3, windw: 2 } }, { dynamics: { timeStep: 0.1, dt: 1 } }, { surface: { kind: 'sphere', r: 1 } }]) {
      expect(surfaceParamsSchema.safeParse(bad).success).toBe(false);
    }
  });

  it('refuses a time step outside [0.1, 0.5], naming the field and the range', () => {
    for (const timeStep of [1e-300, 0.05, 0.6, 1e300]) {
      const r = surfaceParamsSchema.safeParse({ dynamics: { timeStep } });
      expect(r.success, String(timeStep)).toBe(false);
      expect(r.error!.issues.map((i) => [i.path.join('.'), i.message.slice(0, 26)])).toEqual([['dynamics.timeStep', 'must be in [0.1, 0.5]: wit']]);
    }
    expect(parse({ dynamics: { timeStep: 0.1 } }).dynamics.timeStep).toBe(0.1);
  });

  it('every field carries a description (and numbers a unit)', () => {
    let numbers = 0;
    const walk = (node: Record<string, unknown>, path: string) => {
      const props = node.properties as Record<string, Record<string, unknown>> | undefined;
      for (const [k, v] of Object.entries(props ?? {})) {
        if (k === 'kind') continue;
        if (v.type === 'number' || v.type === 'integer') {
          numbers++;
          expect(v.unit, `${path}.${k}`).toBeTruthy();
          expect(v.description, `${path}.${k}`).toBeTruthy();
        }
        walk(v, `${path}.${k}`);
      }
      for (const alt of (node.anyOf ?? node.oneOf ?? []) as Record<string, unknown>[]) walk(alt, path);
      if (node.items) walk(node.items as Record<string, unknown>, `${path}[]`);
    };
    walk(surfaceParamsSchema.toJSONSchema({ io: 'input' }) as Record<string, unknown>, 'params');
    expect(numbers).toBeGreaterThan(15);
  });

  it('cross-field checks name the field and the allowed range', () => {
    const torus = checkParams(parse({ surface: { kind: 'torus', majorRadius: 1, minorRadius: 1.2 } }));
    expect(torus).toEqual([{ path: 'surface.minorRadius', message: 'must be less than majorRadius = 1 (a ring torus), got 1.2' }]);
    const empty = checkParams(parse({ surface: { kind: 'blobby', threshold: 2, blobs: [{ strength: 1 }] } }));
    expect(empty[0].path).toBe('surface.threshold');
    expect(empty[0].message).toContain('never reaches the threshold 2');
    // Sphere of area 4π at spacing 0.001 needs ~14.5 million particles.
    const tight = checkParams(parse({ spacing: 0.001 }));
    expect(tight[0].path).toBe('spacing');
    expect(tight[0].message).toMatch(/about 145\d{5} particles at spacing 0.001; with maxParticles 200000 the spacing must be ≥ 0\.00\d+/);
    expect(paths({ spacing: 0.6 })).toEqual(['spacing']);
    expect(paths({ spacing: 0.02, neighbourSearch: 'direct' })).toEqual(['neighbourSearch']);
    expect(paths({ spacing: 0.05, neighbourSearch: 'direct' })).toEqual([]);
    expect(paths({ dynamics: { timeStep: 0.5, feedback: 3 } })).toEqual(['dynamics.feedback']);
    expect(checkParams(parse({ stop: { window: 50, maxIterations: 40 } }))).toEqual([
      { path: 'stop.window', message: 'must be at most stop.maxIterations = 40 (the sampling is uniform after window iterations in a row), got 50' },
    ]);
    expect(paths({ stop: { window: 40, maxIterations: 40 } })).toEqual([]);
  });

  it('the smallest spacing the check allows passes it', () => {
    const msg = checkParams(parse({ spacing: 0.001, maxParticles: 50_000 }))[0].message;
    const smallest = Number(/≥ ([\d.e-]+)/.exec(msg)![1]);
    expect(checkParams(parse({ spacing: smallest * 1.01, maxParticles: 50_000 }))).toEqual([]);
    expect(checkParams(parse({ spacing: smallest * 0.98, maxParticles: 50_000 }))).toHaveLength(1);
  });

  it('the maxParticles the check names passes it, and a count past its range is not advised', () => {
    // It said only 'or raise maxParticles': after a thickness refusal the spacing it names can be
    // over the thickness limit, and raising maxParticles, to a number it did not give, is the way out.
    const msg = checkParams(parse({ spacing: 0.005, maxParticles: 50_000 }))[0].message;
    const fewest = Number(/or raise maxParticles to at least (\d+)\)/.exec(msg)![1]);
    expect(checkParams(parse({ spacing: 0.005, maxParticles: fewest }))).toEqual([]);
    expect(checkParams(parse({ spacing: 0.005, maxParticles: fewest - 1 }))).toHaveLength(1);
    expect(checkParams(parse({ spacing: 0.0005 }))[0].message).toContain('(maxParticles cannot hold them: at most 10000000)');
  });

  it('a box too thin or too small for the spacing is refused before the area is measured', () => {
    // An ellipsoid 2·10^6 long and 2·10^-9 thick spent its area's whole budget (4.7 s under load)
    // before being refused for its thickness.
    const estimateArea = vi.mocked(solid.estimateArea);
    estimateArea.mockClear();
    expect(paths({ surface: { kind: 'ellipsoid', semiAxes: [1e6, 1e-9, 1] }, spacing: 0.1 })).toEqual(['spacing']);
    expect(paths({ surface: { kind: 'ellipsoid', semiAxes: [0.01, 0.01, 0.01] }, spacing: 0.1 })).toEqual(['spacing']);
    expect(estimateArea).not.toHaveBeenCalled();
    // An accepted surface is measured once, and the run's geometry reuses it.
    const sphere = { kind: 'sphere', radius: 1.234 } as const;
    expect(checkParams(parse({ surface: sphere }))).toEqual([]);
    expect(surfaceGeometry(sphere).area).toBeCloseTo(4 * Math.PI * 1.234 * 1.234, 1);
    expect(estimateArea).toHaveBeenCalledTimes(1);
  });

  it('a solid thinner than the repulsion range 3σ is refused: its two sides would repel each other', () => {
    // A flat ellipsoid 0.02 thick sampled at 0.1 was accepted; its count ran away (85,000 particles
    // after 550 iterations of the 725 its area needs, nearest-neighbour CV 0.65, minutes an hour).
    const sheet = (spacing: number) => checkParams(parse({ surface: { kind: 'ellipsoid', semiAxes: [1, 0.01, 1] }, spacing }));
    expect(sheet(0.1)).toEqual([{
      path: 'spacing',
      message: 'must be at most 0.01338: the solid is 0.02000 thick along y, less than the repulsion range 3σ (0.1494) at spacing 0.1, so its two sides would repel each other through it; got 0.1',
    }]);
    expect(sheet(0.01338)).toEqual([]);
    expect(sheet(0.01339)).toHaveLength(1);
    expect(paths({ surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.05 }, spacing: 0.1 })).toEqual(['spacing']);
    // A tube 1.5 spacings thick is sampled uniformly.
    const tube = parse({ surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.075 }, spacing: 0.1, voxelsAcross: 0 });
    expect(checkParams(tube)).toEqual([]);
    const r = surfaceEngine.run(tube, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    expect(r.metrics.stopReason).toBe('uniform');
  });

  it('a part thinner than the repulsion range inside a thick box is refused too, naming the blob', () => {
    // A filament 0.028 thick beside a sphere blob (box 2.1 thick) at spacing 0.1: the check read the
    // box's thickness and let it run; it ended at maxIterations 2000, nearest-neighbour CV 0.090, with
    // 'raise stop.maxIterations' as its advice.
    const filament = (spacing: number) => checkParams(parse({
      surface: { kind: 'blobby', threshold: 0.999, blobs: [{ radius: 0.5, strength: 100 }, { from: [2, 0, 0], to: [12, 0, 0], radius: 0.45 }] },
      spacing, maxParticles: 1e6,
    }));
    expect(filament(0.1)).toEqual([{
      path: 'spacing',
      message: expect.stringMatching(/^must be at most 0\.01904: the solid is 0\.02847 thick across blob 1 at \[7, 0, 0\], less than the repulsion range 3σ \(0\.1494\) at spacing 0\.1, so its two sides would repel each other through it; got 0\.1$/),
    }]);
    expect(filament(0.01904)).toEqual([]);
    expect(filament(0.01905)).toHaveLength(1);
  });

  it('a thin neck between blobs is refused too, along the blob it runs on; a short pinch is not', () => {
    // Three beads strung on a filament 0.028 thick: its ends and middle lie inside the beads, which
    // the check looked at alone. Accepted at spacing 0.1, the run ended 'uniform' in 62 iterations
    // with no particle on the middle of either neck (x in [-3.5, -2.5] and [2.5, 3.5]).
    const beads = (spacing: number) => checkParams(parse({
      surface: {
        kind: 'blobby', threshold: 0.999, blobs: [
          { from: [-6, 0, 0], to: [-6, 0, 0], radius: 0.5, strength: 100 }, { radius: 0.5, strength: 100 },
          { from: [6, 0, 0], to: [6, 0, 0], radius: 0.5, strength: 100 }, { from: [-6, 0, 0], to: [6, 0, 0], radius: 0.45 },
        ],
      },
      spacing, maxParticles: 1e6,
    }));
    expect(beads(0.1)).toEqual([{
      path: 'spacing',
      message: expect.stringMatching(/^must be at most 0\.0190\d: the solid is 0\.0284\d thick across blob 3 at \[-?[\d.]+, 0, 0\] over [\d.]+ of its length, less than the repulsion range 3σ \(0\.1494\) at spacing 0\.1, so its two sides would repel each other through it; got 0\.1$/),
    }]);
    const allowed = Number(/at most ([\d.]+)/.exec(beads(0.1)[0].message)![1]);
    expect(beads(allowed)).toEqual([]);
    // Two blobs whose fields just meet pinch to a neck 0.11 thick, thinner than 3σ over 0.08 only:
    // at spacing 0.1 the run ends uniform with particles on the neck. Not refused.
    const pinch = parse({
      surface: { kind: 'blobby', threshold: 0.5, blobs: [{ from: [-0.527, 0, 0], to: [-0.527, 0, 0], radius: 0.45 }, { from: [0.527, 0, 0], to: [0.527, 0, 0], radius: 0.45 }] },
      spacing: 0.1,
    });
    expect(checkParams(pinch)).toEqual([]);
  });

  it('a surface the area grid does not find is refused: the run would have no particle', () => {
    // A blob rod 0.75 thick from x = 1.2 to 10^5: on the area grid's 1.7 steps (as fine as its
    // budget of nodes allows) nothing was inside, the area estimate was 0, and the run ended at
    // maxIterations with no particle and NaN spacing metrics.
    const rod = (x: number) => parse({ surface: { kind: 'blobby', blobs: [{ from: [x, 0, 0], to: [1.2, 0, 0], radius: 0.45 }] }, spacing: 0.1, maxParticles: 1e7 });
    expect(checkParams(rod(1e5))).toEqual([{ path: 'surface', message: expect.stringMatching(/^no part of the surface was found on the grid that measures its area \(57737 steps along its longest side of 1\.000e\+5, step 1\.73\)/) }]);
    // At x = 100 it was refused so too (60 steps of 1.66 along it); the grid is now 16 steps across
    // the box's thinnest side, and the narrow band refines it: the rod's area within 1 % of a cylinder's with hemispherical ends.
    expect(checkParams(rod(100))).toEqual([]);
    const radius = 0.45 * Math.sqrt(Math.log(2));
    expect(Math.abs(surfaceGeometry(rod(100).surface).area / (2 * Math.PI * radius * (100 - 1.2) + 4 * Math.PI * radius * radius) - 1)).toBeLessThan(0.01);
  });

  it('a blob rod 10^4 long and 0.03 thick is measured: the narrow band samples the levels it cannot afford whole', () => {
    // Its grid steps 0.175 within the budget (0.03 thick), its area read 6382 (a capsule's: 894) and
    // no level of the band fitted its budget, so the refusal called it uncertain. Levels that sample
    // their cells go down to a step of 0.0014: within 2 %.
    const rod = (threshold: number, spacing = 0.005) => parse({ surface: { kind: 'blobby', threshold, blobs: [{ from: [1e4, 0, 0], to: [1.2, 0, 0], radius: 0.45 }] }, spacing, maxParticles: 1e7 });
    const radius = 0.45 * Math.sqrt(-Math.log(0.999));
    const g = surfaceGeometry(rod(0.999).surface);
    expect(g.areaResolved).toBe(true);
    expect(Math.abs(g.area / (2 * Math.PI * radius * (1e4 - 1.2) + 4 * Math.PI * radius * radius) - 1)).toBeLessThan(0.02);
    expect(checkParams(rod(0.999))).toEqual([{ path: 'spacing', message: expect.not.stringContaining('uncertain') }]);
    // Ten times thinner (0.003) the levels do not agree within the budget: refused with its area said to be uncertain, and why.
    expect(checkParams(rod(0.99999, 0.0015))).toEqual([{
      path: 'spacing',
      message: expect.stringMatching(/^the surface \(area [\d.]+\) needs about \d+ particles .*; but that area is uncertain: the grids that measure it did not agree within 2 % down to a step of 0\.00\d+ within their budget \(a part too thin for them, or too many blobs to refine them\)/),
    }]);
    // A torus the band resolves (10 of its steps across the tube) is refused with its area as measured, and no doubt.
    const torus = parse({ surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.005 }, spacing: 0.001, maxParticles: 1e5 });
    expect(checkParams(torus)).toEqual([{ path: 'spacing', message: expect.not.stringContaining('uncertain') }]);
  });

  it("a blob whose inside the solid's box misses is refused: its part of the surface would get no particle", () => {
    // The box is measured on a 48-node grid over the blobs' reach. A sphere blob of radius 0.1 at
    // x = 10 beside one of radius 1 fell between its nodes: the run sampled the large sphere alone
    // ('uniform', area 8.70) and said nothing of the small one. Two of radius 1, 1000 apart, left no
    // node inside: 'spacing: must be at most a quarter of the surface's longest side (0)'.
    const blobs = (b: { at: number; radius: number }[]) => parse({
      surface: { kind: 'blobby', blobs: b.map(({ at, radius }) => ({ from: [at, 0, 0], to: [at, 0, 0], radius })) },
      spacing: 0.05,
    });
    const small = checkParams(blobs([{ at: 0, radius: 1 }, { at: 10, radius: 0.1 }]));
    expect(small).toEqual([{ path: 'surface.blobs.1', message: expect.stringMatching(/^blob 1 is inside at \[10, 0, 0\] but outside the solid's box as measured on a 48-node grid \(step 0\.2\d+\)/) }]);
    const far = checkParams(blobs([{ at: 0, radius: 1 }, { at: 1000, radius: 1 }]));
    expect(far).toEqual([{ path: 'surface.blobs.0', message: expect.stringMatching(/^blob 0 is inside at \[0, 0, 0\] .* \(step 20\.9\) \(and 1 other blob\)/) }]);
    expect(checkParams(blobs([{ at: 0, radius: 1 }, { at: 10, radius: 0.5 }]))).toEqual([]);
    // A cross rod at x = 0 beside a rod to x = 50: the box held the long rod alone (y within ±0.37,
    // x from 0.81), and the run sampled it 'uniform' without the cross rod.
    const cross = (x: number) => checkParams(parse({
      surface: { kind: 'blobby', blobs: [{ from: [x, 0, 0], to: [1.2, 0, 0], radius: 0.45 }, { from: [0, -1.2, 0], to: [0, 1.2, 0], radius: 0.45 }] },
      spacing: 0.1,
    })).map((i) => i.path);
    expect(cross(50)).toEqual(['surface.blobs.1']);
    expect(cross(10)).toEqual([]);
  });

  it('the engine refuses a spec that fails the checks before sampling', () => {
    expect(() => surfaceEngine.run(parse({ spacing: 0.6 }), { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} })).toThrow(/spacing: must be at most a quarter/);
  });

  it("counts the grid the sampler can build for the surface and spacing (not 2^24 cells), and the grid stays within it without wrapping", () => {
    for (const [surface, spacing, search] of [
      [{ kind: 'sphere', radius: 1 }, 0.1, 'cells'],
      [{ kind: 'torus', majorRadius: 1, minorRadius: 0.4 }, 0.05, 'queries'],
    ] as const) {
      const p = parse({ surface, spacing, neighbourSearch: search, maxParticles: 20_000, voxelsAcross: 0 });
      const fn = implicitFunction(p.surface);
      const bits = gridBits(fn.bounds, spacing);
      expect(estimateMemoryBytes(p) - estimateMemoryBytes({ ...p, neighbourSearch: 'direct' })).toBe(gridBytes(bits));
      expect(gridBytes(bits)).toBeLessThan(4 * 2 ** 20); // 64 MiB before: the grid's largest, whatever the run
      const s = new SurfaceSampler({ fn, bounds: solidBounds(p.surface, fn), spacing, capacity: p.maxParticles, neighbourSearch: search, seed: 1, timeStep: 0.25, feedback: 2 });
      let widest = 0;
      for (let k = 0; k < 60; k++) {
        s.step();
        const g = s.grid!;
        widest = Math.max(widest, g.bits[0]);
        // The grid's period spans the particles' box: neighbours are never found through a wrap.
        expect(g.cellSize[0] * 2 ** g.bits[0]).toBeGreaterThan(2 * Math.max(...fn.bounds.map(Math.abs)));
      }
      expect(widest).toBeLessThanOrEqual(bits);
      expect(s.grid!.maxBits).toBe(bits);
    }
  });

  it("counts the arrays of the area estimate, and not much more: a flat ellipsoid's hold 81 MB at once, the bound of a primitive is 83 MB", () => {
    // The estimate left them out: a flat superquadric (1, 1, 0.02) with maxParticles 20,000 was
    // estimated 25.5 MiB beyond its worker; the run's resident set grew 64.5 MiB.
    const surfaces = [
      [{ kind: 'ellipsoid', semiAxes: [1, 1, 0.001] }, 75e6], // near the largest: the grid's band holds all its 2^21 cells, its levels are sampled
      [{ kind: 'ellipsoid', semiAxes: [1000, 0.01, 0.01] }, 75e6],
      [{ kind: 'torus', majorRadius: 1, minorRadius: 0.005 }, 40e6],
      [{ kind: 'sphere', radius: 1 }, 10e6],
      [{ kind: 'blobby', blobs: [{ from: [-1.2, 0, 0], to: [1.2, 0, 0], radius: 0.45 }, { from: [0, -1.2, 0], to: [0, 1.2, 0], radius: 0.45 }, { from: [0, 0, -1.2], to: [0, 0, 1.2], radius: 0.45 }] }, 5e6],
    ] as const;
    for (const [surface, atLeast] of surfaces) {
      const p = parse({ surface, spacing: 0.001, maxParticles: 1, neighbourSearch: 'direct', voxelsAcross: 0 });
      const fn = implicitFunction(p.surface);
      const { bytes } = solid.estimateArea(fn, solidBounds(p.surface, fn));
      expect(bytes, surface.kind).toBeGreaterThan(atLeast);
      expect(solid.areaEstimateBytes(p.surface), surface.kind).toBeGreaterThanOrEqual(bytes);
      // One particle, no grid, no volume: the worker, the seeding grid and the area's arrays.
      expect(estimateMemoryBytes(p) - WORKER_BYTES, surface.kind).toBeGreaterThanOrEqual(bytes);
    }
    // A level's children went into an array grown by doubling (3 times its size while copying): the
    // flat ellipsoid held 131 MB at once and the bound of a primitive was 133 MB (of 3 blobs 53 MB).
    expect(solid.areaEstimateBytes(implicitSurfaceSchema.parse(surfaces[0][0]))).toBeLessThan(85e6);
    expect(solid.areaEstimateBytes(implicitSurfaceSchema.parse(surfaces[4][0]))).toBeLessThan(41e6);
  });

  it('memory grows with maxParticles and the label volume', () => {
    const a = estimateMemoryBytes(parse({ maxParticles: 1000, voxelsAcross: 0 }));
    const b = estimateMemoryBytes(parse({ maxParticles: 1_001_000, voxelsAcross: 0 }));
    expect((b - a) / 1e6).toBeGreaterThan(250);
    expect(estimateMemoryBytes(parse({ maxParticles: 1000, voxelsAcross: 512 })) - a).toBeGreaterThan(4 * 512 ** 3);
  });
});
