/**
 * The surface engine through the services and the CLI, as a user runs it: its examples run with
 * `packbench run`, its cross-field checks refuse a spec at enqueue time, its particle table carries
 * the tangent-disk declaration.
 */
import { describe, expect, it } from 'vitest';
import { surfaceEngine } from '../../core/surface/index';
import { engineServicesForFile, runExample } from './helpers';

const { s } = engineServicesForFile();

describe('surface engine in the services', () => {
  it('refuses a spec its check fails, naming the field, before storing it', async () => {
    await expect(s.dispatch('runs.enqueue', { spec: { engine: 'surface', name: 'bad', params: { surface: { kind: 'torus', majorRadius: 1, minorRadius: 2 } } } }))
      .rejects.toMatchObject({ code: 'invalid', issues: [{ path: 'spec.params.surface.minorRadius', message: 'must be less than majorRadius = 1 (a ring torus), got 2' }] });
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it('the shape library keeps implicit shapes and refuses one its checks fail, at the field', async () => {
    const ok = await s.dispatch('shapes.create', { name: 'tube', shape: { kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.3 } } });
    expect(ok.params).toEqual({ kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.3 } });
    await expect(s.dispatch('shapes.update', { id: ok.id, shape: { kind: 'implicit', surface: { kind: 'blobby', threshold: 5, blobs: [{}] } } }))
      .rejects.toMatchObject({ code: 'invalid', issues: [{ path: 'shape.surface.threshold', message: expect.stringContaining('never reaches the threshold 5') }] });
    const preview = await s.dispatch('shapes.preview', { shape: ok.params, size: 1, resolution: 20 });
    expect(preview.dims).toEqual([20, 20, 5]);
  });

  it('runs in the generic worker; the particle table is declared as tangent disks', async () => {
    const { runIds } = await s.dispatch('runs.enqueue', {
      spec: { engine: 'surface', name: 'small torus', seed: 3, params: { surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.4 }, spacing: 0.15, voxelsAcross: 16 } },
    });
    s.queue.start();
    await s.queue.waitFor(runIds);
    const run = await s.dispatch('runs.get', { id: runIds[0] });
    expect(run.status, run.error ?? '').toBe('done');
    expect(run.metrics.stopReason).toBe('uniform');
    const particles = await s.dispatch('runs.particles', { id: runIds[0] });
    expect(particles.meta.particleTable).toEqual(surfaceEngine.particleTable);
    expect(Object.keys(particles.columns).sort()).toEqual(['energy', 'nx', 'ny', 'nz', 'r', 'sigma', 'x', 'y', 'z']);
    // The inspector's particles are in the surface's coordinates, as every export: on the torus
    // about the origin, where the CSV has them, inside the box that starts at meta.offset.
    const { x, y, z } = particles.columns;
    const csv = new TextDecoder().decode((await s.dispatch('runs.export', { id: runIds[0], format: 'csv' })).bytes).trim().split('\n');
    expect(csv[0].split(',').slice(0, 3)).toEqual(['x', 'y', 'z']);
    expect(csv.length - 1).toBe(particles.count);
    const offset = particles.meta.offset as number[], box = particles.meta.box as number[];
    for (let i = 0; i < particles.count; i++) {
      expect(Math.hypot(Math.hypot(x[i], y[i]) - 1, z[i])).toBeCloseTo(0.4, 2);
      expect(csv[i + 1].split(',').slice(0, 3).map(Number)).toEqual([x[i], y[i], z[i]]);
      [x[i], y[i], z[i]].forEach((v, a) => expect(v >= offset[a] && v <= offset[a] + box[a]).toBe(true));
    }
    const series = await s.dispatch('runs.series', { id: runIds[0] });
    expect(series.map((x) => x.name)).toEqual(['nearest-neighbour CV', 'particles', 'mean spacing']);
  });
});

describe('surface examples', () => {
  it.each(['surface-torus', 'surface-blobby'])('%s runs to uniform with `packbench run`', async (name) => {
    const { out } = await runExample(name, 'surface');
    expect(out.metrics.stopReason).toBe('uniform');
    expect(out.metrics.nearestNeighbourCV).toBeLessThanOrEqual(0.1);
  });
});
