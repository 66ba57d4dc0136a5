/**
 * The surface's area (a grid of F over the solid's box: seconds for a blobby object of 256 blobs) is
 * measured once per surface: a run's start (the worker's check, then the engine's own check and
 * set-up) and the points of a sweep that share a surface do not measure it again.
 */
import { describe, expect, it, vi } from 'vitest';
import type { EngineContext } from '../../../core/common/engine';

const measured = vi.hoisted(() => ({ areas: 0 }));
vi.mock('../../../core/surface/solid', async (actual) => {
  const solid = await actual<typeof import('../../../core/surface/solid')>();
  return { ...solid, estimateArea: (...a: Parameters<typeof solid.estimateArea>) => (measured.areas++, solid.estimateArea(...a)) };
});
const { surfaceEngine, surfaceParamsSchema } = await import('../../../core/surface/index');
const { implicitFunction, implicitSurfaceSchema } = await import('../../../core/surface/implicit');
const { solidBounds } = await import('../../../core/surface/solid');

const ctx: EngineContext = { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} };
/** A torus of tube `minor` (each test its own: the measurements are kept across tests). */
const torus = (minor: number, spacing: number) => surfaceParamsSchema.parse({ surface: { kind: 'torus', majorRadius: 1, minorRadius: minor }, spacing, voxelsAcross: 0, stop: { maxIterations: 2, window: 1 } });

describe('surface geometry', () => {
  it('a run measures its surface once: its check and its start share the measurement', () => {
    measured.areas = 0;
    const p = torus(0.31, 0.2);
    expect(surfaceEngine.check!(p)).toEqual([]);
    surfaceEngine.run(p, ctx);
    expect(measured.areas).toBe(1);
  });

  it('specs that differ but in the spacing (a sweep) share it; another surface is measured', () => {
    measured.areas = 0;
    for (const spacing of [0.15, 0.16, 0.17]) expect(surfaceEngine.check!(torus(0.32, spacing))).toEqual([]);
    expect(measured.areas).toBe(1);
    surfaceEngine.check!(torus(0.33, 0.15));
    expect(measured.areas).toBe(2);
  });

  it("a blobby solid's box is found once per definition, also for another copy of it (a shape preview's, from a message)", () => {
    const text = JSON.stringify({ kind: 'blobby', threshold: 0.5, blobs: [{ from: [0, 0, 0], to: [1.3, 0, 0], radius: 0.4 }, { from: [0, 0, 0], to: [0, 0.7, 0], radius: 0.4 }] });
    const first = implicitSurfaceSchema.parse(JSON.parse(text)), copy = implicitSurfaceSchema.parse(JSON.parse(text));
    /** The surface's function, counting its evaluations (values and inside tests). */
    const counting = (s: typeof first) => {
      const fn = implicitFunction(s), count = { values: 0 };
      return {
        count, fn: {
          ...fn, bounds: fn.bounds,
          value: (x: number, y: number, z: number) => (count.values++, fn.value(x, y, z)),
          inside: (x: number, y: number, z: number) => (count.values++, fn.inside(x, y, z)),
        },
      };
    };
    const a = counting(first), b = counting(copy);
    const box = solidBounds(first, a.fn);
    expect(a.count.values).toBeGreaterThan(0);
    expect(solidBounds(copy, b.fn)).toEqual(box);
    expect(b.count.values).toBe(0);
  });
});
