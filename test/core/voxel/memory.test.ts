import { describe, expect, it } from 'vitest';
import { voxelEngine, voxelParamsSchema } from '../../../core/voxel/index';
import { estimateMemoryBytes, particleBound } from '../../../core/voxel/params';
import { bitMatrixBytes } from '../../../core/voxel/bit-matrix';
import { WORKER_BYTES, type EngineResult } from '../../../core/common/engine';
import { arrayBufferPeak } from '../common/array-buffer-peak';

describe('the voxel memory estimate (bench/voxel-memory.ts measures it on larger runs)', () => {
  // Each run's own allocation (ArrayBuffers and SharedArrayBuffers, seen at every progress report)
  // against the estimate without its fixed term for the worker thread.
  it.each([
    ['8-voxel spheres, labels and analysis', { box: { size: [4, 4, 4], resolution: 8 } }],
    ['8-voxel spheres, id matrix', { box: { size: [4, 4, 4], resolution: 8 }, matrix: 'id' }],
    ['plates, open top, no labels', { box: { size: [3, 3, 3], resolution: 12, top: 'open' }, labelVolume: 'off', mixture: { types: [{ shape: { kind: 'hexagonalPlate', thickness: 0.4 } }] } }],
  ])('%s: the run allocates less than the estimate says, and holds no more particles than its bound', (_, spec) => {
    const p = voxelParamsSchema.parse(spec);
    const { sample, peak } = arrayBufferPeak();
    const result = voxelEngine.run(p, { seed: 1, threads: 1, progress: sample, cancelled: () => false, log: sample }) as EngineResult;
    sample();
    expect(peak()).toBeGreaterThan(0);
    expect(estimateMemoryBytes(p) - WORKER_BYTES).toBeGreaterThan(peak());
    expect(result.metrics.particles).toBeLessThanOrEqual(particleBound(p));
  });

  it('a large box with few particles is estimated by its matrix, not by particles that cannot be there', () => {
    // 1024² × 1280 voxels, 50 spheres of 20 voxels: the bit matrix is 160 MiB and a run of it takes
    // 250 MiB (bench/voxel-memory.ts); the estimate was 1.9 GiB, and a 1 GiB budget refused it.
    const p = voxelParamsSchema.parse({ box: { size: [51.2, 51.2, 64], resolution: 20 }, stop: { particles: 50 } });
    const matrix = bitMatrixBytes(1024, 1024, 1280, 'bricks');
    expect(estimateMemoryBytes(p)).toBeGreaterThan(WORKER_BYTES + matrix);
    expect(estimateMemoryBytes(p)).toBeLessThan(2 * (WORKER_BYTES + matrix));
    // Filled until full, the count is bounded by the box over the smallest particle's voxels
    // (4,224 for a 20-voxel sphere), not a tenth of a sphere's volume.
    const full = voxelParamsSchema.parse({ box: { size: [51.2, 51.2, 64], resolution: 20 }, labelVolume: 'off' });
    expect(particleBound(full)).toBeLessThan((1.2 * 1024 * 1024 * 1280) / 4224);
  });
  it('a run cut short by stop.maxSteps is bounded by the insertions it has time for', () => {
    // A particle is tried every insertionInterval steps, so 200 steps at 4 insert at most 50. A
    // 368² × 63600 box (a 1 GiB matrix in two slabs) run for 700 steps, 161 particles, took
    // 1.2 GiB and was estimated at 16.3 GiB (the box filled with spheres), near a 16.5 GiB budget.
    const p = voxelParamsSchema.parse({ box: { size: [51.2, 51.2, 64], resolution: 20 }, insertionInterval: 4, stop: { maxSteps: 200 } });
    expect(particleBound(p)).toBe(50);
    expect(estimateMemoryBytes(p)).toBeLessThan(2 * (WORKER_BYTES + bitMatrixBytes(1024, 1024, 1280, 'bricks')));
    // One step inserts at most one particle (step 0 tries one).
    expect(particleBound(voxelParamsSchema.parse({ box: { size: [4, 4, 4], resolution: 8 }, stop: { maxSteps: 1 } }))).toBe(1);
  });
});
