/**
 * The stacking engine through the services and the CLI, as a user runs it: its examples run with
 * `packbench run`, its cross-field checks refuse a spec at enqueue time, its particle table carries
 * its declaration (spheres in 3D, disks in the x-y plane in 2D).
 */
import { describe, expect, it } from 'vitest';
import { PARTICLE_TABLE, PARTICLE_TABLE_2D } from '../../core/stacking/index';
import { engineServicesForFile, runExample } from './helpers';

const { s } = engineServicesForFile();

const gradation = {
  kind: 'classes', rang: 0.05,
  classes: [0.2, 0.15, 0.1, 0.05].map((radius, i) => ({ radius, fraction: 1, af: i < 2 ? [0.5, 1] : [0, 0.3] })),
};

describe('stacking engine in the services', () => {
  it('refuses a spec its check fails, naming the field, before storing it', async () => {
    await expect(s.dispatch('runs.enqueue', { spec: { engine: 'stacking', name: 'bad', params: { dim: 2, region: { shape: 'box', size: [2, 2, 2] } } } }))
      .rejects.toMatchObject({ code: 'invalid', issues: [{ path: 'spec.params.region.shape', message: "'box' is a 3D region; with dim 2 use 'rectangle' or 'circle'" }] });
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it('runs 3D and 2D specs in the generic worker; the tables declare spheres and disks', async () => {
    const { runIds } = await s.dispatch('runs.enqueue', {
      spec: { engine: 'stacking', name: 'small box', seed: 3, params: { dim: 3, region: { shape: 'box', size: [1.2, 1.2, 1.2] }, gradation, target: { kind: 'voidRatio', e: 0.8 } } },
    });
    const { runIds: ids2 } = await s.dispatch('runs.enqueue', {
      spec: { engine: 'stacking', name: 'small circle', seed: 3, params: { dim: 2, region: { shape: 'circle', radius: 2 }, gradation, target: { kind: 'count', particles: 400 } } },
    });
    s.queue.start();
    await s.queue.waitFor([...runIds, ...ids2]);
    const run = await s.dispatch('runs.get', { id: runIds[0] });
    expect(run.status, run.error ?? '').toBe('done');
    expect(run.metrics.stopReason).toBe('target');
    expect(Math.abs((run.metrics.voidRatio as number) - 0.8)).toBeLessThan(0.005);
    expect(run.metrics.maxOverlapRelative).toBeLessThanOrEqual(1e-9);
    const particles = await s.dispatch('runs.particles', { id: runIds[0] });
    expect(particles.meta.particleTable).toEqual(PARTICLE_TABLE);
    expect(Object.keys(particles.columns).sort()).toEqual(['class', 'coordination', 'r', 'x', 'y', 'z']);
    const series = await s.dispatch('runs.series', { id: runIds[0] });
    expect(series.map((x) => x.name)).toEqual([
      'particles against time', 'sieve curve asked', 'sieve curve achieved',
      'class volume fraction asked', 'class volume fraction achieved', 'particles per class', 'coordination number',
    ]);

    const run2 = await s.dispatch('runs.get', { id: ids2[0] });
    expect(run2.status, run2.error ?? '').toBe('done');
    expect(run2.metrics.particles).toBe(400);
    const disks = await s.dispatch('runs.particles', { id: ids2[0] });
    expect(disks.meta.particleTable).toEqual(PARTICLE_TABLE_2D);
    expect(Array.from(disks.columns.z as ArrayLike<number>).every((v) => v === 0)).toBe(true);
  });
});

describe('stacking examples', () => {
  it.each(['stacking-3d-group1', 'stacking-3d-group2', 'stacking-2d-group1'])('%s reaches the seed\'s density with `packbench run`', async (name) => {
    const { spec, out } = await runExample(name, 'stacking');
    expect(out.metrics.stopReason).toBe('target');
    expect(Math.abs(out.metrics.voidRatio - spec.params.target.e)).toBeLessThan(0.005);
    expect(out.metrics.maxOverlapRelative).toBeLessThanOrEqual(1e-9);
  });
});
