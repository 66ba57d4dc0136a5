/**
 * Stop and keep with each engine (runs.stop, in the engines' worker as the app runs them): a run
 * stopped in its main loop is done, says where it stopped, and its artifacts, read back from disk,
 * pass checks independent of the engine (brute force over the table, a recount of the label volume).
 * The mechanism, refusals and CLI: test/main/stop.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { decodeTable, decodeVolume } from '../../core/io/container';
import { implicitFunction } from '../../core/surface/implicit';
import type { ColumnTable, LabelVolume } from '../../core/common/engine';
import type { RunRecord, RunSpec } from '../../main/api';
import { engineServicesForFile } from './helpers';

const { s } = engineServicesForFile();
s.queue.start();

/**
 * Queues `spec`, stops it once `ready` says so (its main loop is under way), and returns the run
 * with its artifacts read from disk by name.
 */
async function stopped(spec: RunSpec, ready: (counters: RunRecord['counters']) => boolean): Promise<{ run: RunRecord; tables: Record<string, ColumnTable>; volumes: Record<string, LabelVolume> }> {
  const id = (await s.dispatch('runs.enqueue', { spec })).runIds[0];
  for (;;) {
    const r = await s.dispatch('runs.get', { id });
    expect(r.status).not.toBe('done');
    if (r.status === 'running' && ready(r.counters)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await s.dispatch('runs.stop', { id });
  await s.queue.waitFor([id]);
  const run = await s.dispatch('runs.get', { id });
  expect([run.status, run.error, run.metrics.stopReason]).toEqual(['done', null, 'stopped']);
  const tables: Record<string, ColumnTable> = {}, volumes: Record<string, LabelVolume> = {};
  for (const a of await s.dispatch('runs.artifacts', { id })) {
    if (a.kind === 'table') tables[a.name] = decodeTable(readFileSync(a.path));
    else volumes[a.name] = decodeVolume(readFileSync(a.path));
  }
  return { run, tables, volumes };
}

/** The run's log line that says where it stopped. */
const stopLine = (run: RunRecord) => run.log.find((l) => l.startsWith('stopped by user at ')) ?? '(no such line)';

describe('a run stopped by the user is done, with valid artifacts', () => {
  it('ball mill: every ball inside the vial and no two overlapping at the time reached; trajectories up to it', async () => {
    const { run, tables } = await stopped(
      { engine: 'ballmill', name: 'long mill', seed: 1, params: { dim: 3, duration: 600, balls: { count: 150, radius: { law: 'fixed', value: 4 } }, output: { frameRate: 50 } } },
      (c) => (c.simulatedSeconds ?? 0) > 0.1,
    );
    const t = run.metrics.simulatedSeconds as number;
    expect(t).toBeGreaterThan(0.1);
    expect(t).toBeLessThan(600);
    expect(stopLine(run)).toBe(`stopped by user at ${Number(t.toPrecision(6))} s of 600 s simulated`);
    const { x, y, z, r } = tables.particles.columns as Record<string, Float64Array>;
    const meta = tables.particles.meta as { time: number; containerOffset: number; vial: { width: number; height: number } };
    expect(meta.time).toBe(t);
    expect(x.length).toBe(150);
    const W = meta.vial.width, H = meta.vial.height, floor = meta.containerOffset, tol = 1e-6;
    for (let i = 0; i < x.length; i++) {
      expect(Math.hypot(x[i] - W / 2, y[i] - W / 2)).toBeLessThanOrEqual(W / 2 - r[i] + tol);
      expect(z[i]).toBeGreaterThanOrEqual(floor + r[i] - tol);
      expect(z[i]).toBeLessThanOrEqual(floor + H - r[i] + tol);
      for (let j = 0; j < i; j++) expect(Math.hypot(x[i] - x[j], y[i] - y[j], z[i] - z[j])).toBeGreaterThanOrEqual(r[i] + r[j] - tol);
    }
    const frames = tables.trajectories.meta as { frames: number; frameTimes: number[] };
    expect(frames.frames).toBeGreaterThan(1);
    expect(frames.frameTimes.at(-1)!).toBeLessThanOrEqual(t);
    expect(tables.trajectories.columns.x.length).toBe(frames.frames * 150);
  });

  it('stacking: the balls placed so far, no two overlapping and none through a wall (brute force)', async () => {
    const { run, tables } = await stopped(
      { engine: 'stacking', name: 'big stack', seed: 1, params: { dim: 3, region: { shape: 'box', size: [12, 12, 12] }, gradation: { kind: 'classes', classes: [{ radius: 0.2, fraction: 1 }] }, target: { kind: 'count', particles: 50_000 } } },
      (c) => (c.particles ?? 0) > 200,
    );
    const { x, y, z, r } = tables.particles.columns as Record<string, Float64Array>;
    expect(x.length).toBe(run.metrics.particles);
    expect(x.length).toBeLessThan(50_000);
    expect(stopLine(run)).toMatch(new RegExp(`^stopped by user at ${x.length} balls placed, solid fraction 0\\.\\d{4} of the 0\\.\\d{4} asked$`));
    const tol = 1e-9;
    let overlap = 0, wall = 0;
    for (let i = 0; i < x.length; i++) {
      wall = Math.max(wall, r[i] - x[i], x[i] + r[i] - 12, r[i] - y[i], y[i] + r[i] - 12, r[i] - z[i], z[i] + r[i] - 12);
      for (let j = 0; j < i; j++) {
        const dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j], s = r[i] + r[j], d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < s * s) overlap = Math.max(overlap, s - Math.sqrt(d2));
      }
    }
    expect(overlap).toBeLessThanOrEqual(tol);
    expect(wall).toBeLessThanOrEqual(tol);
    // The engine's own contact check ran, as at a finished stacking.
    expect(run.metrics.overlappingPairs).toBe(0);
  });

  it('voxel: the packing so far finalised, its label volume agreeing voxel for voxel with the table', async () => {
    const { run, tables, volumes } = await stopped(
      { engine: 'voxel', name: 'big box', seed: 1, params: { box: { size: [16, 16, 16], resolution: 8 }, mixture: { types: [{ shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1 } }] } } },
      (c) => (c.particles ?? 0) > 30,
    );
    const ids = tables.particles.columns.id, voxels = tables.particles.columns.voxels;
    expect(ids.length).toBe(run.metrics.particles);
    expect(stopLine(run)).toBe(`stopped by user at time step ${run.metrics.steps}, ${ids.length} particles placed`);
    // Recounted from the labels: each particle holds the voxels its row says, and no label names a particle the table lacks.
    const counts = new Uint32Array(ids.length);
    for (const l of volumes.labels.labels) if (l > 0) counts[l - 1]++;
    expect(Array.from(counts)).toEqual(Array.from(voxels));
    expect(run.metrics.overlapFraction as number).toBeLessThan(0.01);
  });

  it('surface: the particles as they are, off-surface ones recounted from the table as the metric says', async () => {
    const { run, tables, volumes } = await stopped(
      { engine: 'surface', name: 'fine torus', seed: 1, params: { surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.4 }, spacing: 0.04, voxelsAcross: 32, stop: { maxIterations: 100_000 } } },
      (c) => (c.particles ?? 0) > 0,
    );
    expect(run.metrics.iterations as number).toBeLessThan(100_000);
    expect(stopLine(run)).toMatch(new RegExp(`^stopped by user at iteration ${run.metrics.iterations} of at most 100000, nearest-neighbour CV \\d`));
    const t = tables.particles, off = t.meta!.offset as number[], fn = implicitFunction({ kind: 'torus', majorRadius: 1, minorRadius: 0.4 } as never);
    const { x, y, z } = t.columns as Record<string, Float64Array>;
    expect(x.length).toBe(run.metrics.particles);
    const g = new Float64Array(3);
    let offSurface = 0;
    for (let i = 0; i < x.length; i++) {
      const F = fn.valueAndGradient(x[i] + off[0], y[i] + off[1], z[i] + off[2], g);
      if (Math.abs(F) / Math.hypot(g[0], g[1], g[2]) > 0.1 * 0.04) offSurface++;
    }
    expect(run.metrics.offSurfaceParticles).toBe(offSurface);
    expect(volumes.solid.dims.every((d) => d > 0)).toBe(true);
  });
});
